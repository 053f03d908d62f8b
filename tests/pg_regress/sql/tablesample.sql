-- TABLESAMPLE sparse_bernoulli (percent): every visible row once at 100% and none at 0% (dead
-- rows, HOT chains, pages of very different fullness, temporary, unlogged, partitioned and empty
-- tables), REPEATABLE, rescans, the pages it reads next to BERNOULLI, and errors.
\set SHOW_CONTEXT never
SELECT p.oid::regprocedure AS handler, p.prorettype::regtype AS returns, p.proisstrict AS strict
  FROM pg_proc p WHERE p.proname = 'sparse_bernoulli';

-- Pages of one to three wide rows next to pages of about 60 narrow ones; then rows deleted and
-- rows updated in place (HOT: pad is in no index and the pages have room), without VACUUM.
CREATE TABLE ts_mixed (id int PRIMARY KEY, pad text) WITH (fillfactor = 50, autovacuum_enabled = off);
INSERT INTO ts_mixed
  SELECT i, CASE WHEN (i / 100) % 2 = 0 THEN repeat(md5(i::text), 40) ELSE '' END
    FROM generate_series(1, 2000) i;
DELETE FROM ts_mixed WHERE id % 7 = 0;
UPDATE ts_mixed SET pad = pad || 'x' WHERE id % 5 = 0;
SELECT count(*) AS visible, count(DISTINCT (ctid::text::point)[0]) AS pages,
       min(n) AS fewest_on_a_page, max(n) AS most_on_a_page
  FROM (SELECT ctid, count(*) OVER (PARTITION BY (ctid::text::point)[0]) AS n FROM ts_mixed) t;
SELECT sum(n_tup_hot_upd) > 0 AS some_updates_were_hot FROM pg_stat_xact_user_tables WHERE relname = 'ts_mixed';
-- At 100%, every visible row once; at 0%, none.
SELECT count(*) AS rows, count(DISTINCT id) AS distinct_rows,
       count(*) = (SELECT count(*) FROM ts_mixed) AS every_visible_row,
       bool_and(id % 7 <> 0) AS no_deleted_row,
       count(*) FILTER (WHERE pad LIKE '%x') = (SELECT count(*) FROM ts_mixed WHERE id % 5 = 0) AS updated_rows_once
  FROM ts_mixed TABLESAMPLE sparse_bernoulli (100);
SELECT count(*) AS none FROM ts_mixed TABLESAMPLE sparse_bernoulli (0);
-- A WHERE clause filters the sample.
SELECT count(*) AS filtered FROM ts_mixed TABLESAMPLE sparse_bernoulli (100) WHERE id <= 10;

-- REPEATABLE: the same rows from the same seed and table; another seed, other rows.
SELECT a = b AS same_seed_same_rows, a <> c AS other_seed_other_rows, cardinality(a) > 0 AS some_rows
  FROM (SELECT (SELECT array_agg(id ORDER BY id) FROM ts_mixed TABLESAMPLE sparse_bernoulli (5) REPEATABLE (7)) AS a,
               (SELECT array_agg(id ORDER BY id) FROM ts_mixed TABLESAMPLE sparse_bernoulli (5) REPEATABLE (7)) AS b,
               (SELECT array_agg(id ORDER BY id) FROM ts_mixed TABLESAMPLE sparse_bernoulli (5) REPEATABLE (8)) AS c) s;
-- Without it, every scan draws its own (two samples of half the rows are the same with
-- probability 2^-1700)...
SELECT (SELECT array_agg(id ORDER BY id) FROM ts_mixed TABLESAMPLE sparse_bernoulli (50))
       <> (SELECT array_agg(id ORDER BY id) FROM ts_mixed TABLESAMPLE sparse_bernoulli (50)) AS scans_differ;
-- ...but a rescan of one scan node gives its first sample again, as BERNOULLI does.
SELECT count(DISTINCT s) AS samples, count(*) AS rescans
  FROM generate_series(1, 4) g,
       LATERAL (SELECT array_agg(id ORDER BY id) AS s FROM ts_mixed TABLESAMPLE sparse_bernoulli (5) WHERE g > 0) x;

-- The rate: over 200 seeds, the number of rows sampled at 10% of the 1715 visible rows has the
-- mean 171.5 and a variance of 154.35 a sample (binomial): the mean of 200 within 4 standard
-- errors (3.51), and the variance of the 200 within 40% of 154.35.
CREATE FUNCTION pg_temp.sizes(percent float4, seeds int) RETURNS SETOF bigint LANGUAGE plpgsql AS $$
BEGIN
  FOR s IN 1..seeds LOOP
    RETURN QUERY EXECUTE format('SELECT count(*) FROM ts_mixed TABLESAMPLE sparse_bernoulli (%s) REPEATABLE (%s)', percent, s);
  END LOOP;
END $$;
SELECT abs(avg(n) - 171.5) < 4 * 3.51 AS mean_is_right, var_samp(n) BETWEEN 0.6 * 154.35 AND 1.4 * 154.35 AS spread_is_binomial
  FROM pg_temp.sizes(10, 200) n;

-- Pages read: a sample of about 10 rows of 100,000 (0.01%) takes about 834 x 291 x 0.0001 = 24
-- slots and reads their pages, at most 30 of the 834 here; BERNOULLI reads them all.
CREATE TABLE ts_big AS SELECT i AS id, md5(i::text) AS code FROM generate_series(1, 100000) i;
VACUUM ANALYZE ts_big;
CREATE FUNCTION pg_temp.pages_read(query text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  plan json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ' || query INTO plan;
  RETURN (plan -> 0 -> 'Plan' ->> 'Shared Hit Blocks')::bigint + (plan -> 0 -> 'Plan' ->> 'Shared Read Blocks')::bigint;
END $$;
SELECT pg_relation_size('ts_big') / current_setting('block_size')::int AS pages,
       pg_temp.pages_read('SELECT * FROM ts_big TABLESAMPLE sparse_bernoulli (0.01) REPEATABLE (1)') <= 30 AS sparse_reads_few,
       pg_temp.pages_read('SELECT * FROM ts_big TABLESAMPLE bernoulli (0.01) REPEATABLE (1)')
         = pg_relation_size('ts_big') / current_setting('block_size')::int AS bernoulli_reads_all;
SELECT count(*) BETWEEN 1 AND 30 AS about_ten_rows FROM ts_big TABLESAMPLE sparse_bernoulli (0.01) REPEATABLE (1);
-- The planner's estimates: about 10 rows, from about 24 pages read at random (BERNOULLI reads
-- 834 in order).
CREATE FUNCTION pg_temp.planned(query text) RETURNS json LANGUAGE plpgsql AS $$
DECLARE
  plan json;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || query INTO plan;
  RETURN plan -> 0 -> 'Plan';
END $$;
SELECT (p ->> 'Plan Rows')::int AS rows,
       (p ->> 'Total Cost')::float8 < (b ->> 'Total Cost')::float8 / 5 AS under_a_fifth_of_bernoulli
  FROM pg_temp.planned('SELECT * FROM ts_big TABLESAMPLE sparse_bernoulli (0.01)') p,
       pg_temp.planned('SELECT * FROM ts_big TABLESAMPLE bernoulli (0.01)') b;

-- Temporary, unlogged, empty and partitioned tables.
CREATE TEMPORARY TABLE ts_temp AS SELECT i AS id FROM generate_series(1, 500) i;
CREATE UNLOGGED TABLE ts_unlogged AS SELECT i AS id FROM generate_series(1, 500) i;
CREATE TABLE ts_empty (id int);
SELECT (SELECT count(*) FROM ts_temp TABLESAMPLE sparse_bernoulli (100)) AS temporary,
       (SELECT count(*) FROM ts_unlogged TABLESAMPLE sparse_bernoulli (100)) AS unlogged,
       (SELECT count(*) FROM ts_empty TABLESAMPLE sparse_bernoulli (100)) AS empty;
CREATE MATERIALIZED VIEW ts_materialized AS SELECT i AS id FROM generate_series(1, 300) i;
CREATE VIEW ts_view AS SELECT i AS id FROM generate_series(1, 300) i;
SELECT count(*) AS materialized_view FROM ts_materialized TABLESAMPLE sparse_bernoulli (100);
SELECT count(*) FROM ts_view TABLESAMPLE sparse_bernoulli (100);
\echo :LAST_ERROR_SQLSTATE
DROP VIEW ts_view;
DROP MATERIALIZED VIEW ts_materialized;
DELETE FROM ts_temp;
SELECT count(*) AS all_deleted FROM ts_temp TABLESAMPLE sparse_bernoulli (100);
-- Two partitions with the same rows in the same places: the same REPEATABLE seed draws other
-- rows in each (the relation's name is in the key).
CREATE TABLE ts_parted (part int, id int) PARTITION BY LIST (part);
CREATE TABLE ts_parted_1 PARTITION OF ts_parted FOR VALUES IN (1);
CREATE TABLE ts_parted_2 PARTITION OF ts_parted FOR VALUES IN (2);
INSERT INTO ts_parted SELECT 1, i FROM generate_series(1, 1000) i;
INSERT INTO ts_parted SELECT 2, i FROM generate_series(1, 1000) i;
SELECT count(*) AS every_row FROM ts_parted TABLESAMPLE sparse_bernoulli (100);
SELECT array_agg(id ORDER BY id) FILTER (WHERE part = 1) <> array_agg(id ORDER BY id) FILTER (WHERE part = 2)
         AS partitions_differ,
       count(*) FILTER (WHERE part = 1) > 0 AND count(*) FILTER (WHERE part = 2) > 0 AS both_sampled
  FROM ts_parted TABLESAMPLE sparse_bernoulli (20) REPEATABLE (3);

-- Errors: a percentage outside 0..100 (as BERNOULLI's: 2202H), NULL arguments (PostgreSQL's own
-- refusals).
SELECT count(*) FROM ts_mixed TABLESAMPLE sparse_bernoulli (-1);
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM ts_mixed TABLESAMPLE sparse_bernoulli (100.5);
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM ts_mixed TABLESAMPLE sparse_bernoulli ('NaN');
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM ts_mixed TABLESAMPLE sparse_bernoulli (NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM ts_mixed TABLESAMPLE sparse_bernoulli (1) REPEATABLE (NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM ts_mixed TABLESAMPLE sparse_bernoulli (1, 2);
\echo :LAST_ERROR_SQLSTATE
DROP TABLE ts_mixed, ts_big, ts_unlogged, ts_empty, ts_parted;
