-- Infinite reveal_within (PostgreSQL 17 and later write 'infinity' and '-infinity' intervals):
-- refused by fair_mode_on and fair_reveal (22008) before anything is written, never a round
-- whose reveal_by is infinity, whose deals no one could verify. PostgreSQL 14 to 16 refuse the
-- literal itself (22007, fair_infinite_reveal_within_1.out); the rest is the same on every major.
CREATE EXTENSION IF NOT EXISTS dealcards;
SET client_min_messages = warning;
\set SHOW_CONTEXT never
INSERT INTO desk (desk_id) VALUES (91);
INSERT INTO desk_player VALUES (91, 1, 911), (91, 2, 912), (91, 3, 913);
SELECT fair_mode_on(91, reveal_within => 'infinity');
\echo :LAST_ERROR_SQLSTATE
SELECT fair_mode_on(91, reveal_within => '-infinity');
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) AS rounds FROM fair_commitment WHERE desk_id = 91;
SELECT fair_mode_on(91, seeds_required => false, reveal_within => '1 day') IS NOT NULL AS on;
SELECT * FROM fair_reveal(91, reveal_within => 'infinity');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM fair_reveal(91, reveal_within => '-infinity');
\echo :LAST_ERROR_SQLSTATE
SELECT fair_round AS round FROM desk WHERE desk_id = 91;

-- A round stored with reveal_by infinity (a release without this check let 'infinity' through):
-- it deals nothing (its deals could not be verified: the message is fair_reveal_within's), and
-- fair_reveal refuses to carry its span (on 17 and later the span is infinite; before,
-- PostgreSQL cannot subtract an infinite time: 22008 both, their messages apart);
-- fair_mode_off reveals it, and a new round deals and verifies.
UPDATE fair_seed SET reveal_by = 'infinity' WHERE desk_id = 91;
\set VERBOSITY sqlstate
SELECT deal_cards(91);
SELECT * FROM fair_reveal(91);
\set VERBOSITY default
SELECT round FROM fair_mode_off(91);
SELECT fair_mode_on(91, seeds_required => false, reveal_within => '1 day') IS NOT NULL AS on;
SELECT deal_cards(91) ->> 'nonce' AS nonce;
SELECT round, nonce, verified, problem FROM fair_verify_desk(91) WHERE round = 2;
