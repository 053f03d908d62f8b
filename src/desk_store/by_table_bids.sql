-- The two opening bid records of game $2, by seat $3.
INSERT INTO @extschema@.bid_record (desk_id, game_id, player_no, rec_idx, bid_size)
VALUES ($1, $2, $3, 0, -1), ($1, $2, $3, -1, -1)
