-- An ordinary deal at a locked desk $1, in one statement: counts the seated players and, when
-- all three are there, writes the game (cards $2 to $5, leader $6), points the desk at it, and
-- writes the two opening bid records by seat $7 and the note naming the leader. It runs after
-- the desk's lock is granted, so it sees the seats as they are then. The same statement serves
-- the tables of every release.
WITH seats AS (
    SELECT pg_catalog.count(*) AS seated,
           pg_catalog.max(player_id) FILTER (WHERE player_no OPERATOR(pg_catalog.=) 1) AS p1_id,
           pg_catalog.max(player_id) FILTER (WHERE player_no OPERATOR(pg_catalog.=) 2) AS p2_id,
           pg_catalog.max(player_id) FILTER (WHERE player_no OPERATOR(pg_catalog.=) 3) AS p3_id
      FROM @extschema@.desk_player
     WHERE desk_id OPERATOR(pg_catalog.=) $1
), new_game AS (
    INSERT INTO @extschema@.game (desk_id, p1_cards, p2_cards, p3_cards, extra_cards,
                                  state_no, lord_no, p1_id, p2_id, p3_id, leader)
    SELECT $1, $2, $3, $4, $5, 1, 0, s.p1_id, s.p2_id, s.p3_id, $6
      FROM seats s
     WHERE s.seated OPERATOR(pg_catalog.=) 3
    RETURNING game_id
), desk_game AS (
    UPDATE @extschema@.desk d SET cur_game_id = g.game_id FROM new_game g
     WHERE d.desk_id OPERATOR(pg_catalog.=) $1
), opening_bids AS (
    INSERT INTO @extschema@.bid_record (desk_id, game_id, player_no, rec_idx, bid_size)
    SELECT $1, g.game_id, $7, r.rec_idx, -1
      FROM new_game g, (VALUES (0), (-1)) r (rec_idx)
), leader_note AS (
    INSERT INTO @extschema@.note (desk_id, player_no, note_type, flag, body)
    SELECT $1, $6, 3, 'y', pg_catalog.concat($6, '#', g.game_id)
      FROM new_game g
)
SELECT s.seated, g.game_id FROM seats s LEFT JOIN new_game g ON true
