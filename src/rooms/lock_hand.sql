-- Hand $1, its row locked, with its key: none for no such hand.
SELECT h.kind, h.seats, h.dealer, h.decks, h.cut_card, h.stages_dealt, h.cards_dealt, h.draws,
       h.ended, k.key
  FROM @extschema@.room_hand h
  LEFT JOIN @extschema@.room_hand_key k ON k.hand_id OPERATOR(pg_catalog.=) h.hand_id
 WHERE h.hand_id OPERATOR(pg_catalog.=) $1
   FOR UPDATE OF h
