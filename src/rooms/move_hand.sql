-- Where hand $1 is in its plan after a call: stages dealt $2 (the last named $3), cards dealt $4
-- and left $5, draws $6.
UPDATE @extschema@.room_hand
   SET stages_dealt = $2, stage = $3, cards_dealt = $4, cards_left = $5, draws = $6
 WHERE hand_id OPERATOR(pg_catalog.=) $1
