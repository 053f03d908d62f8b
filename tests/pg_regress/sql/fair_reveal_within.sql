-- reveal_within, in every function that takes it (fair_mode_on, fair_reveal, and the span a
-- round carries to the next): a round's reveal_by must come after its commitment (22023) and
-- no later than 9998-12-31 00:00:00+00, the latest time the verifiers read (22008, as
-- PostgreSQL's own "timestamp out of range"), whatever the interval's months, days and time.
-- Infinite intervals (PostgreSQL 17 and later) are in fair_infinite_reveal_within.
CREATE EXTENSION IF NOT EXISTS dealcards;
SET client_min_messages = warning;
\set SHOW_CONTEXT never
INSERT INTO desk (desk_id) VALUES (81), (82);
INSERT INTO desk_player VALUES (81, 1, 811), (81, 2, 812), (81, 3, 813),
                               (82, 1, 821), (82, 2, 822), (82, 3, 823);

-- Refused before anything is written: too far, in years, months, days or hours, or beyond
-- what a timestamp holds at all.
SELECT fair_mode_on(81, reveal_within => interval '10000 years');
\echo :LAST_ERROR_SQLSTATE
SELECT fair_mode_on(81, reveal_within => interval '100000000 years');
\echo :LAST_ERROR_SQLSTATE
SELECT fair_mode_on(81, reveal_within => interval '96000 months');
\echo :LAST_ERROR_SQLSTATE
SELECT fair_mode_on(81, reveal_within => interval '2147483647 days');
\echo :LAST_ERROR_SQLSTATE
SELECT fair_mode_on(81, reveal_within => make_interval(hours => 2147483647));
\echo :LAST_ERROR_SQLSTATE
SELECT fair_mode_on(81, reveal_within => make_interval(days => 3000000));
\echo :LAST_ERROR_SQLSTATE
-- Zero or negative, in any of its parts' combinations: 22023.
SELECT fair_mode_on(81, reveal_within => interval '-1 day');
\echo :LAST_ERROR_SQLSTATE
SELECT fair_mode_on(81, reveal_within => interval '1 month -40 days');
\echo :LAST_ERROR_SQLSTATE
SELECT fair_mode_on(81, reveal_within => interval '-100000000 years');
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) AS rounds FROM fair_commitment WHERE desk_id = 81;

-- Accepted: long but within the range, from a commitment now, whatever the parts; each
-- round's reveal_by is its commitment's time plus the span, and the desk deals and verifies.
SELECT fair_mode_on(81, seeds_required => false, reveal_within => interval '1000 years 11 months 30 days 23:59:59') IS NOT NULL AS on;
SELECT reveal_by = committed_at + interval '1000 years 11 months 30 days 23:59:59' AS reveal_by_is_the_sum
  FROM fair_commitment WHERE desk_id = 81;
SELECT deal_cards(81) ->> 'nonce' AS nonce;
SELECT round, nonce, verified, problem FROM fair_verify_desk(81);
-- A mix of huge parts whose sum is near: PostgreSQL adds the months, then the days, then the time.
SELECT round FROM fair_reveal(81, reveal_within => interval '100000 years -876000000 hours');
SELECT reveal_by = committed_at + interval '100000 years -876000000 hours' AS reveal_by_is_the_sum,
       extract(year FROM reveal_by) < 9999 AS before_9999
  FROM fair_commitment WHERE desk_id = 81 AND round = 2;

-- fair_reveal refuses the same spans, and the desk stays under its round.
SELECT * FROM fair_reveal(81, reveal_within => interval '8000 years');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM fair_reveal(81, reveal_within => interval '-1 second');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM fair_reveal(81, max_deals => 5, reveal_within => interval '178000000 years');
\echo :LAST_ERROR_SQLSTATE
SELECT fair_round AS round FROM desk WHERE desk_id = 81;

-- The span a round carries to the next, from a later commitment: checked again. A round made
-- by hand with a reveal_by just under the limit carries a span that a commitment now still
-- fits; one a day past it (as a release without this check could store) is refused when carried,
-- and refused for a deal (22008): no verifier reads its time.
SELECT fair_mode_on(82, seeds_required => false) IS NOT NULL AS on;
UPDATE fair_seed SET reveal_by = '9998-12-30 00:00:00+00' WHERE desk_id = 82;
SELECT round FROM fair_reveal(82);
SELECT reveal_by <= '9998-12-31 00:00:00+00' AS within_the_range FROM fair_commitment WHERE desk_id = 82 AND round = 2;
UPDATE fair_seed SET reveal_by = '10000-01-01 00:00:00+00' WHERE desk_id = 82 AND round = 2;
SELECT deal_cards(82);
\echo :LAST_ERROR_SQLSTATE
-- (The span carried is some seconds more than 7,973 years: only the SQLSTATE is shown.)
\set VERBOSITY sqlstate
SELECT * FROM fair_reveal(82);
\set VERBOSITY default
-- fair_mode_off reveals it; a new round with another span deals again.
SELECT round FROM fair_mode_off(82);
SELECT fair_mode_on(82, seeds_required => false, reveal_within => interval '1 hour') IS NOT NULL AS on;
SELECT deal_cards(82) ->> 'nonce' AS nonce;
