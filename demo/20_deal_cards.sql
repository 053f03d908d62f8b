CREATE EXTENSION IF NOT EXISTS dealcards;
-- The SQL Server `dealCards` procedure's Dou Dizhu deal on the extension's own tables: desk 7
-- with three players.
INSERT INTO desk (desk_id) VALUES (7);
INSERT INTO desk_player (desk_id, player_no, player_id) VALUES (7, 1, 1001), (7, 2, 1002), (7, 3, 1003);
SELECT * FROM v_player_id_in_room;
-- Deal: a new game at desk 7, with a first bidder drawn from the three seats.
SELECT deal_cards(7);
-- Each player's hand, sorted lowest first (3 .. K A 2, small joker BJ, big joker RJ), and the
-- three extra cards the landlord will take.
SELECT seat, player_id, hand_labels(cards) AS hand
  FROM desk d
  JOIN game g ON g.game_id = d.cur_game_id
 CROSS JOIN LATERAL (VALUES (1, g.p1_id, g.p1_cards), (2, g.p2_id, g.p2_cards),
                            (3, g.p3_id, g.p3_cards), (0, NULL, g.extra_cards)) h (seat, player_id, cards)
 WHERE d.desk_id = 7;
-- The procedure's two opening bid records and its note for the first bidder.
SELECT player_no, rec_idx, bid_size FROM bid_record WHERE game_id = (SELECT cur_game_id FROM desk WHERE desk_id = 7);
SELECT player_no, note_type, flag, body FROM note WHERE desk_id = 7;
-- The same deal without tables, for procedures that keep their own.
SELECT seat, hand_labels(cards) FROM deal_hands() ORDER BY seat = 0, seat;
SELECT card_label(39), sort_hand(ARRAY[54, 1, 9, 53]);
