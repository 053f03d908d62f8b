-- A new hand ($1 table, $2 kind, $3 seats, $4 dealer, $5 board, $6 decks, $7 cut card, $8 cards
-- left) and its key ($9), in one statement.
WITH hand AS (
    INSERT INTO @extschema@.room_hand (table_id, kind, seats, dealer, board, decks, cut_card, cards_left)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
    RETURNING hand_id
)
INSERT INTO @extschema@.room_hand_key (hand_id, key)
SELECT hand_id, $9 FROM hand
RETURNING hand_id
