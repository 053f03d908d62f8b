-- A round whose rules were rewritten by hand into ones no function of dealcards writes: what
-- fair_reveal carries to the next round is refused (XX001, data_corrupted), never a new round
-- under rules the house did not give.
CREATE EXTENSION IF NOT EXISTS dealcards;
SET client_min_messages = warning;
\set SHOW_CONTEXT never
INSERT INTO desk (desk_id) VALUES (95);
INSERT INTO desk_player VALUES (95, 1, 951), (95, 2, 952), (95, 3, 953);
SELECT fair_mode_on(95, house_seats => '{1}', seeds_required => false) IS NOT NULL AS on;
-- A house seat outside 1..3, and a NULL one: refused when carried, and the round stays.
UPDATE fair_seed SET house_seats = '{7}' WHERE desk_id = 95;
SELECT * FROM fair_reveal(95);
\echo :LAST_ERROR_SQLSTATE
UPDATE fair_seed SET house_seats = '{NULL}' WHERE desk_id = 95;
SELECT * FROM fair_reveal(95);
\echo :LAST_ERROR_SQLSTATE
SELECT fair_round AS round FROM desk WHERE desk_id = 95;
-- Seats given with the reveal replace them: the next round is under those.
SELECT round FROM fair_reveal(95, house_seats => '{2}');
SELECT round, house_seats FROM fair_commitment WHERE desk_id = 95 ORDER BY round;
