-- shuffle_key(seed, key): golden values of the independent reference
-- (tests/reference/seeded_rows.py shuffle_key), its order (that of shuffle_agg_seeded), paging
-- through it, parallel plans, an expression index, and errors with their SQLSTATEs.
\set SHOW_CONTEXT never
\set seed 'decode(''000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f'', ''hex'')'
\set ff 'decode(repeat(''ff'', 32), ''hex'')'
CREATE TABLE shuffled_t AS
  SELECT i AS id, md5(i::text) AS code FROM generate_series(1, 1000) i;
ANALYZE shuffled_t;

-- Both forms are IMMUTABLE, STRICT and PARALLEL SAFE, and return bigint.
SELECT p.oid::regprocedure AS function, p.provolatile AS volatility, p.proisstrict AS strict,
       p.proparallel AS parallel, p.prorettype::regtype AS returns
  FROM pg_proc p WHERE p.proname = 'shuffle_key' ORDER BY 1::text;

-- Golden values, printed by
--   tests/reference/seeded_rows.py shuffle_key 000102...1f int8 1 0 -1 42 -9223372036854775808 9223372036854775807
--   tests/reference/seeded_rows.py shuffle_key 000102...1f text ace '' Zoë 42
SELECT array_agg(shuffle_key(:seed, k) ORDER BY n) AS int8_keys,
       array_agg(shuffle_key(:seed, k) ORDER BY n)
         = '{-3812923498326249669,-4555117311458665677,-1190283601572631342,-4246953690035498333,8332138877984853952,2930414506361641320}'
         AS matches_reference
  FROM unnest(ARRAY[1, 0, -1, 42, -9223372036854775808, 9223372036854775807]) WITH ORDINALITY u(k, n);
SELECT array_agg(shuffle_key(:seed, t) ORDER BY n) AS text_keys,
       array_agg(shuffle_key(:seed, t) ORDER BY n)
         = '{-5894646678025663226,2701210225541298157,2917913240492061191,-1281743852566212470}'
         AS matches_reference
  FROM unnest(ARRAY['ace', '', 'Zoë', '42']) WITH ORDINALITY u(t, n);
-- smallint and integer keys are bigint keys; text is another key than the number it spells.
SELECT shuffle_key(:seed, 42::smallint) = shuffle_key(:seed, 42::bigint) AS smallint_is_bigint,
       shuffle_key(:seed, 42) = shuffle_key(:seed, 42::bigint) AS integer_is_bigint,
       shuffle_key(:seed, '42') <> shuffle_key(:seed, 42) AS text_differs,
       shuffle_key(:seed, 42) <> shuffle_key(:ff, 42) AS another_seed_another_key;
-- NULL in, NULL out (STRICT).
SELECT shuffle_key(NULL, 1) IS NULL AS null_seed, shuffle_key(:seed, NULL::bigint) IS NULL AS null_key,
       shuffle_key(:seed, NULL::text) IS NULL AS null_text;

-- The order is the seeded shuffle's: shuffle_agg_seeded of the same bigint and text values.
SELECT array_agg(id::bigint ORDER BY shuffle_key(:seed, id)) = shuffle_agg_seeded(id::bigint, :seed)
         AS bigint_order_is_the_seeded_shuffle,
       array_agg(code ORDER BY shuffle_key(:seed, code)) = shuffle_agg_seeded(code, :seed)
         AS text_order_is_the_seeded_shuffle
  FROM shuffled_t;
-- A call site keeps the key of the seed it saw last: seeds that change from row to row.
SELECT bool_and(shuffle_key(CASE WHEN id % 2 = 0 THEN :seed ELSE :ff END, id)
                = CASE WHEN id % 2 = 0 THEN shuffle_key(:seed, id) ELSE shuffle_key(:ff, id) END)
         AS alternating_seeds
  FROM shuffled_t;
-- 100,000 keys, no two equal; about half of them negative.
SELECT count(DISTINCT shuffle_key(:seed, i)) AS distinct_keys,
       count(*) FILTER (WHERE shuffle_key(:seed, i) < 0) BETWEEN 49000 AND 51000 AS both_signs
  FROM generate_series(1, 100000) i;

-- Paging: each page is the 50 rows after the last key of the page before; the pages hold every
-- row once, in the order of the whole.
CREATE FUNCTION pg_temp.pages(seed bytea) RETURNS TABLE (page int, ids int[]) LANGUAGE plpgsql AS $$
DECLARE
  last bigint;
  got int[];
  keys bigint[];
BEGIN
  page := 0;
  LOOP
    SELECT array_agg(s.id ORDER BY s.k), array_agg(s.k ORDER BY s.k) INTO got, keys
      FROM (SELECT shuffle_key(seed, t.id) AS k, t.id FROM shuffled_t t
             WHERE last IS NULL OR shuffle_key(seed, t.id) > last
             ORDER BY 1 LIMIT 50) s;
    EXIT WHEN got IS NULL;
    page := page + 1;
    ids := got;
    last := keys[cardinality(keys)];
    RETURN NEXT;
  END LOOP;
END $$;
SELECT count(*) AS pages, min(cardinality(ids)) AS smallest, max(cardinality(ids)) AS largest
  FROM pg_temp.pages(:seed);
SELECT array_agg(id ORDER BY page, n) = (SELECT array_agg(id ORDER BY shuffle_key(:seed, id)) FROM shuffled_t)
         AS pages_are_the_order
  FROM pg_temp.pages(:seed), unnest(ids) WITH ORDINALITY u(id, n);

-- An expression index on a fixed seed serves the pages.
CREATE INDEX shuffled_t_key ON shuffled_t (shuffle_key('\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', id));
SET enable_seqscan = off;
EXPLAIN (COSTS OFF)
SELECT id FROM shuffled_t
 WHERE shuffle_key('\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', id) > 0
 ORDER BY shuffle_key('\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', id) LIMIT 50;
SELECT array_agg(id) = (SELECT array_agg(id ORDER BY shuffle_key(:seed, id)) FILTER (WHERE shuffle_key(:seed, id) > 0)
                          FROM shuffled_t) AS index_order
  FROM (SELECT id FROM shuffled_t
         WHERE shuffle_key('\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', id) > 0
         ORDER BY shuffle_key('\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', id)) t;
RESET enable_seqscan;
DROP INDEX shuffled_t_key;

-- A forced parallel plan computes the keys in the workers, with the same order.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
DO $$ BEGIN PERFORM pg_catalog.set_config(CASE WHEN pg_catalog.current_setting('server_version_num')::int >= 160000 THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END, 'on', false); END $$;
EXPLAIN (COSTS OFF) SELECT id FROM shuffled_t WHERE shuffle_key(:seed, id) > 0;
SELECT array_agg(id ORDER BY k) = (SELECT array_agg(id ORDER BY shuffle_key(:seed, id)) FILTER (WHERE shuffle_key(:seed, id) > 0)
                                     FROM shuffled_t) AS same_in_parallel
  FROM (SELECT id, shuffle_key(:seed, id) AS k FROM shuffled_t WHERE shuffle_key(:seed, id) > 0) t;
RESET ALL;

-- Errors: a seed of any length but 32 bytes, for both forms.
SELECT shuffle_key('\x00', 1);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_key(''::bytea, 'x');
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_key(decode(repeat('00', 31), 'hex'), 1);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_key(decode(repeat('00', 33), 'hex'), 'x');
\echo :LAST_ERROR_SQLSTATE
-- A bad seed after good ones at the same call site is refused too.
SELECT shuffle_key(CASE WHEN id < 1000 THEN :seed ELSE '\x0102' END, id) FROM shuffled_t;
\echo :LAST_ERROR_SQLSTATE
-- Keys of other types have no form of their own (PostgreSQL's own refusal, whose hint differs
-- between majors): cast them (uuid, numeric) to text or bigint.
DO $$ BEGIN PERFORM shuffle_key(decode(repeat('00', 32), 'hex'), 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid);
EXCEPTION WHEN undefined_function THEN RAISE NOTICE 'no shuffle_key(bytea, uuid): refused'; END $$;
SELECT shuffle_key(:seed, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid::text) = shuffle_key(:seed, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11') AS uuid_as_text;
DROP TABLE shuffled_t;
