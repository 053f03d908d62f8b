-- sample_rows(relation, k [, seed]): exactly k distinct visible rows of plain, partitioned,
-- never-analyzed, temporary, unlogged and bloated tables, HOT chains, empty pages, dropped
-- columns; all of a table with fewer; the pages read, never more than about a scan; the seeded
-- form's replay; errors with their SQLSTATEs.
\set SHOW_CONTEXT never
\set seed 'decode(''000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f'', ''hex'')'
SELECT p.oid::regprocedure AS function, p.provolatile AS volatility, p.proretset AS set_returning,
       pg_get_function_arguments(p.oid) AS arguments
  FROM pg_proc p WHERE p.proname = 'sample_rows';

-- A column named like the alias the query gives the table's rows.
CREATE TABLE sr_big (id int, code text, sampled int);
INSERT INTO sr_big SELECT i, md5(i::text), i % 3 FROM generate_series(1, 20000) i;
-- Never analyzed: the rate comes from the table's pages.
SELECT count(*) AS k, count(DISTINCT id) AS distinct_rows, bool_and(code = md5(id::text)) AS whole_rows
  FROM sample_rows(NULL::sr_big, 25);
ANALYZE sr_big;
SELECT count(*) AS k, count(DISTINCT id) AS distinct_rows FROM sample_rows(NULL::sr_big, 25);
SELECT count(*) AS k, count(DISTINCT id) AS distinct_rows FROM sample_rows(NULL::sr_big, 1000);
SELECT count(*) AS none FROM sample_rows(NULL::sr_big, 0);
-- 90% of the rows deleted, not vacuumed (the catalog still counts them): still k live rows.
DELETE FROM sr_big WHERE id % 10 <> 0;
SELECT count(*) AS k, count(DISTINCT id) AS distinct_rows, bool_and(id % 10 = 0) AS only_live_rows
  FROM sample_rows(NULL::sr_big, 25);
-- Fewer rows than k: all of them; none in an empty table.
CREATE TABLE sr_small AS SELECT i AS id FROM generate_series(1, 4) i;
CREATE TABLE sr_empty (id int);
SELECT (SELECT array_agg(id ORDER BY id) FROM sample_rows(NULL::sr_small, 10)) AS all_four,
       (SELECT count(*) FROM sample_rows(NULL::sr_empty, 10)) AS empty;
-- Partitioned, temporary, a materialized view.
CREATE TABLE sr_parted (part int, id int) PARTITION BY LIST (part);
CREATE TABLE sr_parted_1 PARTITION OF sr_parted FOR VALUES IN (1);
CREATE TABLE sr_parted_2 PARTITION OF sr_parted FOR VALUES IN (2);
INSERT INTO sr_parted SELECT 1 + i % 2, i FROM generate_series(1, 10000) i;
ANALYZE sr_parted;
CREATE TEMPORARY TABLE sr_temp AS SELECT i AS id FROM generate_series(1, 3000) i;
CREATE MATERIALIZED VIEW sr_materialized AS SELECT i AS id FROM generate_series(1, 3000) i;
SELECT (SELECT count(DISTINCT (part, id)) FROM sample_rows(NULL::sr_parted, 50)) AS partitioned,
       (SELECT count(DISTINCT id) FROM sample_rows(NULL::sr_temp, 50)) AS temporary,
       (SELECT count(DISTINCT id) FROM sample_rows(NULL::sr_materialized, 50)) AS materialized_view;

-- Seeded: the same rows from the same seed and table; other rows from another seed.
SELECT a = b AS same_seed_same_rows, a <> c AS other_seed_other_rows, cardinality(a) AS k
  FROM (SELECT (SELECT array_agg(id) FROM sample_rows(NULL::sr_parted, 5, :seed)) AS a,
               (SELECT array_agg(id) FROM sample_rows(NULL::sr_parted, 5, :seed)) AS b,
               (SELECT array_agg(id) FROM sample_rows(NULL::sr_parted, 5, decode(repeat('ff', 32), 'hex'))) AS c) s;
-- Without a seed, every call draws its own.
SELECT (SELECT array_agg(id ORDER BY id) FROM sample_rows(NULL::sr_parted, 20))
       <> (SELECT array_agg(id ORDER BY id) FROM sample_rows(NULL::sr_parted, 20)) AS calls_differ;

-- Pages read by a statement (its plan's shared blocks, hit or read), run once before so that
-- the function's first catalog lookups are not counted.
CREATE FUNCTION pg_temp.pages_read(query text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  plan json;
BEGIN
  EXECUTE query;
  EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ' || query INTO plan;
  RETURN (plan -> 0 -> 'Plan' ->> 'Shared Hit Blocks')::bigint + (plan -> 0 -> 'Plan' ->> 'Shared Read Blocks')::bigint;
END $$;
-- k rows, distinct, each a row the table holds now, in each of 30 calls.
CREATE FUNCTION pg_temp.exact(relation anyelement, k int, calls int, now_rows text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  good boolean;
BEGIN
  FOR c IN 1..calls LOOP
    EXECUTE format('SELECT count(*) = %s AND count(DISTINCT s) = %s AND count(*) = count(n)
                      FROM sample_rows($1, %s) s LEFT JOIN (%s) n ON n = s', k, k, k, now_rows)
      INTO good USING relation;
    IF NOT good THEN
      RETURN false;
    END IF;
  END LOOP;
  RETURN true;
END $$;

-- HOT chains and redirect line pointers: rows updated in place several times (HOT, their page
-- pruned by the reads in between, once fuller than their fill factor), never vacuumed. A visible row is in one slot: k distinct
-- rows, each as it is now, never an old version.
CREATE TABLE sr_hot (id int, version int) WITH (fillfactor = 50, autovacuum_enabled = off);
INSERT INTO sr_hot SELECT i, 0 FROM generate_series(1, 20000) i;
ANALYZE sr_hot;
BEGIN;
UPDATE sr_hot SET version = 1 WHERE id % 2 = 0;
SELECT pg_stat_get_xact_tuples_hot_updated('sr_hot'::regclass) > 5000 AS hot_updates;
COMMIT;
SELECT count(*) FROM sr_hot;
UPDATE sr_hot SET version = 2 WHERE id % 4 = 0;
SELECT count(*) FROM sr_hot;
UPDATE sr_hot SET version = 3 WHERE id % 8 = 0;
SELECT pg_temp.exact(NULL::sr_hot, 10, 30, 'SELECT * FROM sr_hot') AS ten_current_rows,
       pg_temp.exact(NULL::sr_hot, 300, 5, 'SELECT * FROM sr_hot') AS three_hundred;
-- Never more than a scan and a half of the table (the short tries before a scan read under half).
SELECT pg_relation_size('sr_hot') / 8192 > 150 AS over_150_pages,
       pg_temp.pages_read('SELECT * FROM sample_rows(NULL::sr_hot, 10)')
         <= 1.5 * pg_relation_size('sr_hot') / 8192 + 20 AS at_most_a_scan_and_a_half;

-- Empty pages in the middle (every row of them deleted, then vacuumed) and pages of 22 rows
-- each, whose line pointers stop far below the 291 slots of a page: most sampled slots are past
-- a page's last line pointer, and none of them is a row.
CREATE TABLE sr_sparse (id int) WITH (fillfactor = 10, autovacuum_enabled = off);
INSERT INTO sr_sparse SELECT i FROM generate_series(1, 48000) i;
DELETE FROM sr_sparse WHERE id BETWEEN 16000 AND 32000;
VACUUM ANALYZE sr_sparse;
SELECT pg_relation_size('sr_sparse') / 8192 > 2000 AS over_2000_pages, count(*) AS rows FROM sr_sparse;
SELECT pg_temp.exact(NULL::sr_sparse, 2, 30, 'SELECT * FROM sr_sparse') AS two_rows;
-- The pages read, with a seed (the same tries every run): under a quarter of the table.
SELECT pg_temp.pages_read('SELECT * FROM sample_rows(NULL::sr_sparse, 2, ' || :'seed' || ')')
         < pg_relation_size('sr_sparse') / 8192 / 4 AS under_a_quarter_of_the_pages,
       pg_temp.pages_read('SELECT * FROM sample_rows(NULL::sr_sparse, 2)')
         <= 1.5 * pg_relation_size('sr_sparse') / 8192 + 20 AS at_most_a_scan_and_a_half;

-- 90% deleted, not vacuumed, the statistics still of every row: exact, more pages read (here the
-- second try would visit more than a quarter of the pages, so the table is read instead), and
-- never more than a scan and the first try.
CREATE TABLE sr_bloat (id int, code text) WITH (autovacuum_enabled = off);
INSERT INTO sr_bloat SELECT i, md5(i::text) FROM generate_series(1, 100000) i;
VACUUM ANALYZE sr_bloat;
SELECT pg_temp.pages_read('SELECT * FROM sample_rows(NULL::sr_bloat, 10, ' || :'seed' || ')') < 60 AS before_under_60;
DELETE FROM sr_bloat WHERE id % 10 <> 0;
SELECT pg_temp.exact(NULL::sr_bloat, 10, 30, 'SELECT * FROM sr_bloat') AS ten_live_rows;
SELECT pg_temp.pages_read('SELECT * FROM sample_rows(NULL::sr_bloat, 10, ' || :'seed' || ')') >= 60 AS deleted_reads_more,
       pg_temp.pages_read('SELECT * FROM sample_rows(NULL::sr_bloat, 10)')
         <= 1.5 * pg_relation_size('sr_bloat') / 8192 + 20 AS at_most_a_scan_and_a_half;
-- 1,000 of the 10,000 left: a try would visit most pages, so the table is read once instead.
SELECT pg_temp.exact(NULL::sr_bloat, 1000, 3, 'SELECT * FROM sr_bloat') AS thousand_live_rows;
SELECT pg_temp.pages_read('SELECT * FROM sample_rows(NULL::sr_bloat, 1000)')
         <= pg_relation_size('sr_bloat') / 8192 + 20 AS one_scan;
-- Every row deleted: nothing, after a few tries and one scan.
DELETE FROM sr_bloat;
SELECT count(*) AS none_left FROM sample_rows(NULL::sr_bloat, 10);
SELECT pg_temp.pages_read('SELECT * FROM sample_rows(NULL::sr_bloat, 10)')
         <= 1.5 * pg_relation_size('sr_bloat') / 8192 + 20 AS at_most_a_scan_and_a_half;

-- Unlogged; dropped columns, and a partition whose columns are in another order.
CREATE UNLOGGED TABLE sr_unlogged AS SELECT i AS id FROM generate_series(1, 3000) i;
CREATE TABLE sr_dropped (gone text, id int, code text);
INSERT INTO sr_dropped SELECT 'x', i, md5(i::text) FROM generate_series(1, 3000) i;
ALTER TABLE sr_dropped DROP COLUMN gone;
CREATE TABLE sr_reordered (id int, code text) PARTITION BY RANGE (id);
CREATE TABLE sr_reordered_1 (code text, extra int, id int);
ALTER TABLE sr_reordered_1 DROP COLUMN extra;
ALTER TABLE sr_reordered ATTACH PARTITION sr_reordered_1 FOR VALUES FROM (1) TO (2000);
CREATE TABLE sr_reordered_2 PARTITION OF sr_reordered FOR VALUES FROM (2000) TO (4000);
INSERT INTO sr_reordered SELECT i, md5(i::text) FROM generate_series(1, 3000) i;
SELECT pg_temp.exact(NULL::sr_unlogged, 50, 5, 'SELECT * FROM sr_unlogged') AS unlogged,
       pg_temp.exact(NULL::sr_dropped, 50, 5, 'SELECT * FROM sr_dropped') AS dropped_column,
       pg_temp.exact(NULL::sr_reordered, 50, 5, 'SELECT * FROM sr_reordered') AS reordered_partition;
SELECT bool_and(code = md5(id::text)) AS columns_in_place FROM sample_rows(NULL::sr_reordered, 100);
-- Called in a select list, and once per row of a lateral join.
SELECT count(*) AS in_select_list FROM (SELECT sample_rows(NULL::sr_small, 3)) s;
SELECT count(*) AS per_row, count(DISTINCT (g, id)) AS distinct_per_row
  FROM generate_series(1, 5) g, LATERAL sample_rows(NULL::sr_small, 2 + 0 * g);
-- A k far above the rows: all of them, nothing allocated for k.
SELECT count(*) AS all_four FROM sample_rows(NULL::sr_small, 2147483647);
-- Rows kept beyond dealcards.max_working_memory: refused (54000).
CREATE TABLE sr_wide AS SELECT i AS id, repeat('x', 1000) AS pad FROM generate_series(1, 2000) i;
SET dealcards.max_working_memory = '1MB';
SELECT count(*) FROM sample_rows(NULL::sr_wide, 2147483647);
\echo :LAST_ERROR_SQLSTATE
RESET dealcards.max_working_memory;

-- Errors.
SELECT * FROM sample_rows(NULL::sr_small, -1);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM sample_rows(NULL::sr_small, NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM sample_rows(NULL::sr_small, 1, '\x00');
\echo :LAST_ERROR_SQLSTATE
CREATE VIEW sr_view AS SELECT * FROM sr_small;
SELECT * FROM sample_rows(NULL::sr_view, 1);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM sample_rows(NULL::int, 1);
\echo :LAST_ERROR_SQLSTATE
SELECT sample_rows(ROW(1, 2), 1);
\echo :LAST_ERROR_SQLSTATE
DROP VIEW sr_view;
DROP MATERIALIZED VIEW sr_materialized;
DROP TABLE sr_big, sr_small, sr_empty, sr_parted, sr_hot, sr_sparse, sr_bloat, sr_unlogged, sr_dropped, sr_reordered, sr_wide;
