-- sample_agg, shuffle_agg, resample_agg and their seeded forms: results, golden seeded values
-- (from tests/reference/seeded_rows.py), errors with their SQLSTATEs, and parallel plans.
\set SHOW_CONTEXT never
\set seed 'decode(''000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f'', ''hex'')'
\set ff 'decode(repeat(''ff'', 32), ''hex'')'
CREATE TABLE rows_t AS
  SELECT i AS id, md5(i::text) AS code, i % 10 AS grp, (i % 4)::float8 AS weight
    FROM generate_series(1, 1000) i;
ANALYZE rows_t;

-- Every polymorphic aggregate is PARALLEL SAFE with combine, serialize and deserialize
-- functions.
SELECT p.oid::regprocedure AS aggregate, p.proparallel AS parallel,
       a.aggcombinefn <> 0 AS combines, a.aggserialfn <> 0 AS serializes,
       a.aggdeserialfn <> 0 AS deserializes, a.aggfinalmodify AS final_modify
  FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
 WHERE p.proname IN ('sample_agg', 'shuffle_agg', 'resample_agg', 'sample_agg_seeded',
                     'shuffle_agg_seeded')
   AND p.proargtypes[0] = 'anyelement'::regtype
 ORDER BY 1::text;
-- The typed forms: the seven for each of five types, PARALLEL SAFE with a combine function and
-- the state type rows_agg_state (no serialization: PostgreSQL flattens the state itself), and a
-- final function that returns the aggregate's own type (which Citus checks).
SELECT p.proargtypes[0]::regtype AS value_type, count(*) AS aggregates,
       bool_and(p.proparallel = 's') AS parallel_safe, bool_and(a.aggcombinefn <> 0) AS combines,
       bool_and(a.aggtranstype = 'rows_agg_state'::regtype) AS typed_state,
       bool_and(a.aggserialfn = 0) AS no_serialize,
       bool_and(f.prorettype = p.prorettype) AS final_returns_the_type,
       bool_and(a.aggfinalmodify = 'r') AS read_only_final
  FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid JOIN pg_proc f ON f.oid = a.aggfinalfn
 WHERE p.proname IN ('sample_agg', 'shuffle_agg', 'resample_agg', 'sample_agg_seeded',
                     'shuffle_agg_seeded')
   AND p.proargtypes[0] <> 'anyelement'::regtype
 GROUP BY 1 ORDER BY 1::text;

-- A live sample: k distinct rows of the input; all of them, when there are fewer.
SELECT cardinality(s) AS k, (SELECT count(DISTINCT x) FROM unnest(s) x) AS distinct_values,
       s <@ (SELECT array_agg(id) FROM rows_t) AS from_the_input
  FROM (SELECT sample_agg(id, 10) AS s FROM rows_t) t;
SELECT (SELECT array_agg(x ORDER BY x) FROM unnest(s) x) AS all_five
  FROM (SELECT sample_agg(id, 10) AS s FROM rows_t WHERE id <= 5) t;
SELECT cardinality(sample_agg(code, 3)) AS text_rows FROM rows_t;
-- A sample per group, with FILTER and DISTINCT as for any aggregate.
SELECT grp, cardinality(sample_agg(id, 3)) AS k,
       sample_agg(id, 3) <@ array_agg(id) AS from_the_group,
       cardinality(sample_agg(id, 500) FILTER (WHERE id <= 50)) AS filtered,
       cardinality(sample_agg(DISTINCT weight, 10)) AS distinct_weights
  FROM rows_t GROUP BY grp ORDER BY grp LIMIT 3;
-- k = 0 is an empty array; no rows is NULL, as for array_agg; NULL values are skipped.
SELECT sample_agg(id, 0) AS k_zero, sample_agg(id, 3) FILTER (WHERE false) AS no_rows,
       resample_agg(id, 0) AS resample_zero, shuffle_agg(id) FILTER (WHERE false) AS no_shuffle
  FROM rows_t;
SELECT sample_agg(x, 5) AS skips_nulls, shuffle_agg(x) IS NOT NULL AS shuffled
  FROM (VALUES (NULL::int), (NULL)) v(x);
SELECT (SELECT array_agg(x ORDER BY x) FROM unnest(s) x) AS without_nulls
  FROM (SELECT sample_agg(x, 5) AS s FROM (VALUES (1), (NULL), (2)) v(x)) t;
-- Types of every storage: by value, fixed length by reference, varlena, numeric, composite.
SELECT pg_typeof(sample_agg(x, 1)) AS type, sample_agg(x, 1)::text AS value
  FROM (VALUES ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid)) v(x)
UNION ALL SELECT pg_typeof(sample_agg(x, 1)), sample_agg(x, 1)::text
  FROM (VALUES (3.14159265358979323846::numeric)) v(x)
UNION ALL SELECT pg_typeof(sample_agg(x, 1)), sample_agg(x, 1)::text
  FROM (VALUES (interval '1 day 2 hours')) v(x)
UNION ALL SELECT pg_typeof(sample_agg(x, 1)), sample_agg(x, 1)::text
  FROM (VALUES ('2026-12-01'::date)) v(x)
UNION ALL SELECT pg_typeof(sample_agg(x, 1)), sample_agg(x, 1)::text
  FROM (VALUES ('{"a": [1, 2]}'::jsonb)) v(x)
UNION ALL SELECT pg_typeof(sample_agg(x, 1)), sample_agg(x, 1)::text
  FROM (VALUES ('x'::name)) v(x);
-- name, varchar and char(n) values take the typed form of text (as text's functions do): the
-- sample is text[].
SELECT pg_typeof(sample_agg(x, 1)) AS varchar_sample FROM (VALUES ('x'::varchar)) v(x);
SELECT length((sample_agg(repeat(i::text, 1000), 1))[1]) > 0 AS long_text
  FROM generate_series(1, 3) i;
SELECT sample_agg(r, 1) AS whole_row FROM (SELECT 7 AS rank, 'spades' AS suit) r;
-- A domain's values come back as an array of the domain; but a domain over a type with a
-- typed form takes that form, and comes back as an array of the base type.
CREATE DOMAIN card_pip AS numeric CHECK (VALUE BETWEEN 1 AND 13);
SELECT pg_typeof(s), s = ARRAY[5]::card_pip[] AS equal
  FROM (SELECT sample_agg(x, 3) AS s FROM (VALUES (5::card_pip)) v(x)) t;
DROP DOMAIN card_pip;
CREATE DOMAIN seat_no AS int CHECK (VALUE BETWEEN 1 AND 3);
SELECT pg_typeof(s), s = ARRAY[2] AS equal
  FROM (SELECT sample_agg(x, 3) AS s FROM (VALUES (2::seat_no)) v(x)) t;
DROP DOMAIN seat_no;
-- As window functions, over a growing and a moving frame.
SELECT i, cardinality(sample_agg(i, 2) OVER (ORDER BY i)) AS growing,
       sample_agg_seeded(i, 1, :seed) OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS moving,
       (sample_agg_seeded(i::numeric, 1, :seed) OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW))::int[] AS moving_polymorphic
  FROM generate_series(1, 4) i;

-- A shuffle is every row, once; a resample is k rows of the input, repeats allowed.
SELECT cardinality(s) AS rows, (SELECT count(DISTINCT x) FROM unnest(s) x) AS distinct_values
  FROM (SELECT shuffle_agg(id) AS s FROM rows_t) t;
SELECT cardinality(r) AS k, r <@ ARRAY[1, 2, 3] AS from_the_input
  FROM (SELECT resample_agg(i, 20) AS r FROM generate_series(1, 3) i) t;
-- Weighted: a row of weight 0 or NULL is never drawn; with one drawable row, always it.
SELECT sample_agg(id, 5, CASE WHEN id = 7 THEN 2.5 ELSE 0 END) AS only_seven,
       resample_agg(id, 3, CASE WHEN id = 7 THEN 1 END) AS seven_thrice
  FROM rows_t;
SELECT cardinality(sample_agg(id, 10, weight)) AS k,
       0 < ALL (SELECT id % 4 FROM unnest(sample_agg(id, 10, weight)) id) AS no_zero_weight
  FROM rows_t;

-- Seeded: golden values of the reference implementation, whatever the order of the rows.
SELECT sample_agg_seeded(id, 5, :seed) AS golden FROM rows_t;
SELECT sample_agg_seeded(id, 5, :seed) AS reversed
  FROM (SELECT id FROM rows_t ORDER BY id DESC) t;
SELECT sample_agg_seeded(id::bigint, 5, :seed) AS golden_int8 FROM rows_t;
SELECT sample_agg_seeded(id::numeric, 5, :seed)::int[] AS polymorphic_seeded FROM rows_t;
SELECT shuffle_agg_seeded(i, :ff) AS golden_shuffle FROM generate_series(1, 12) i;
SELECT sample_agg_seeded(t, 3, :seed) AS golden_text
  FROM unnest(ARRAY['ace', 'king', 'queen', 'jack', 'ten', 'nine']) t;
-- Equal values have equal keys: they come out together.
SELECT sample_agg_seeded(x, 4, :seed) AS repeats FROM unnest(ARRAY[1, 1, 1, 2, 2, 3]) x;
-- A seeded sample is the head of the seeded shuffle.
SELECT (shuffle_agg_seeded(id, :seed))[1:5] = sample_agg_seeded(id, 5, :seed) AS head
  FROM rows_t;

-- Errors.
SELECT sample_agg(id, -1) FROM rows_t;
\echo :LAST_ERROR_SQLSTATE
SELECT sample_agg(id, NULL) FROM rows_t;
\echo :LAST_ERROR_SQLSTATE
SELECT sample_agg(id, CASE WHEN id < 500 THEN 3 ELSE 4 END) FROM rows_t;
\echo :LAST_ERROR_SQLSTATE
SELECT sample_agg(id, 3, -1) FROM rows_t;
\echo :LAST_ERROR_SQLSTATE
SELECT sample_agg(id, 3, 'NaN') FROM rows_t;
\echo :LAST_ERROR_SQLSTATE
SELECT resample_agg(id, 3, 'Infinity') FROM rows_t;
\echo :LAST_ERROR_SQLSTATE
SELECT sample_agg_seeded(id, 3, '\x00') FROM rows_t;
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_agg_seeded(id, NULL) FROM rows_t;
\echo :LAST_ERROR_SQLSTATE
SET dealcards.max_working_memory = '1MB';
SELECT sample_agg(id, 100000000) FROM rows_t;
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_agg(repeat('x', 1000)) FROM generate_series(1, 5000);
\echo :LAST_ERROR_SQLSTATE
RESET dealcards.max_working_memory;
-- A state of a typed form written by hand (its text form is that of bytea): the element type's
-- oid, a shuffle of one int4 7. Checked whole before it is taken.
SELECT rows_agg_final_int4('\x170000000301000000000000000400000007000000'::rows_agg_state) AS by_hand;
SELECT '\x170000000301000000000000000400000007000000'::rows_agg_state::text = '\x170000000301000000000000000400000007000000' AS round_trip;
SELECT 'xyz'::rows_agg_state;
\echo :LAST_ERROR_SQLSTATE
SELECT '\x1700000003'::rows_agg_state;
\echo :LAST_ERROR_SQLSTATE
-- An int4 of 3 bytes, a value of a type without a typed form (numeric), text with a NUL byte.
SELECT '\x1700000003010000000000000003000000070000'::rows_agg_state;
\echo :LAST_ERROR_SQLSTATE
SELECT '\xa40600000301000000000000000400000007000000'::rows_agg_state;
\echo :LAST_ERROR_SQLSTATE
DO $$ BEGIN PERFORM '\x190000000301000000000000000100000000'::rows_agg_state;
EXCEPTION WHEN character_not_in_repertoire THEN RAISE NOTICE 'text not in the database encoding: refused'; END $$;
-- A state of int4 values does not finish a bigint aggregate.
SELECT rows_agg_final_int8('\x170000000301000000000000000400000007000000'::rows_agg_state);
\echo :LAST_ERROR_SQLSTATE

-- Forced parallel plans: a Partial Aggregate in the workers, merged by the leader, with the
-- same results.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
-- debug_parallel_query is PostgreSQL 16's name of force_parallel_mode.
DO $$ BEGIN PERFORM pg_catalog.set_config(CASE WHEN pg_catalog.current_setting('server_version_num')::int >= 160000 THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END, 'on', false); END $$;
EXPLAIN (COSTS OFF) SELECT sample_agg(id, 10) FROM rows_t;
EXPLAIN (COSTS OFF) SELECT grp, sample_agg(id, 3, weight) FROM rows_t GROUP BY grp;
SELECT cardinality(s) AS k, (SELECT count(DISTINCT x) FROM unnest(s) x) AS distinct_values
  FROM (SELECT sample_agg(id, 10) AS s FROM rows_t) t;
SELECT cardinality(shuffle_agg(id)) AS shuffled, cardinality(resample_agg(id, 7)) AS resampled,
       cardinality(sample_agg(code, 4, weight)) AS weighted FROM rows_t;
SELECT sample_agg_seeded(id, 5, :seed) AS golden_in_parallel FROM rows_t;
-- The polymorphic forms in parallel too (numeric values): the seeded sample as in a serial plan.
EXPLAIN (COSTS OFF) SELECT sample_agg(id::numeric, 10) FROM rows_t;
SELECT cardinality(sample_agg(id::numeric, 10)) AS polymorphic,
       cardinality(shuffle_agg(id::numeric)) AS polymorphic_shuffled,
       sample_agg_seeded(id::numeric, 5, :seed)::int[] AS polymorphic_seeded
  FROM rows_t;
SELECT (SELECT array_agg(x ORDER BY x) FROM unnest(s) x) = (SELECT array_agg(id ORDER BY id) FROM rows_t)
       AS every_row_in_parallel
  FROM (SELECT shuffle_agg_seeded(id, :ff) AS s FROM rows_t) t;
RESET ALL;
DROP TABLE rows_t;
