-- sample_rows(relation, k [, seed]): exactly k distinct visible rows of plain, partitioned,
-- never-analyzed, temporary and bloated tables; all of a table with fewer; the seeded form's
-- replay; errors with their SQLSTATEs.
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
DROP TABLE sr_big, sr_small, sr_empty, sr_parted;
