-- TABLESAMPLE sparse_bernoulli on a partitioned table with a foreign partition: PostgreSQL
-- applies the clause to the local partitions only and reads the foreign one whole (a foreign
-- scan takes no sample), without telling the sampling method, which so cannot refuse. What a
-- query gets is shown here (docs/rows.md); sample_rows refuses such tables
-- (sample_rows_relations).
\set SHOW_CONTEXT never
CREATE EXTENSION IF NOT EXISTS file_fdw;
CREATE SERVER tsf_files FOREIGN DATA WRAPPER file_fdw;
CREATE TABLE tsf_parted (region int, id int) PARTITION BY LIST (region);
CREATE TABLE tsf_local PARTITION OF tsf_parted FOR VALUES IN (1);
-- 10,000 rows of region 2 from a program: the foreign partition.
CREATE FOREIGN TABLE tsf_remote PARTITION OF tsf_parted FOR VALUES IN (2)
  SERVER tsf_files OPTIONS (program 'seq 1 10000 | sed "s/^/2,/"', format 'csv');
INSERT INTO tsf_local SELECT 1, i FROM generate_series(1, 10000) i;
ANALYZE tsf_local;
SELECT region, count(*) AS rows FROM tsf_parted GROUP BY region ORDER BY region;
-- A 1% sample: about 100 local rows (a binomial count), and every one of the foreign rows.
SELECT region, count(*) BETWEEN 40 AND 200 AS about_one_percent, count(*) = 10000 AS every_row
  FROM tsf_parted TABLESAMPLE sparse_bernoulli (1) REPEATABLE (7) GROUP BY region ORDER BY region;
-- The plan says so: a sample scan of the local partition, a plain foreign scan of the other.
CREATE FUNCTION pg_temp.scans(query text) RETURNS TABLE (node text, relation text) LANGUAGE plpgsql AS $$
DECLARE
  plan jsonb;
BEGIN
  EXECUTE 'EXPLAIN (COSTS OFF, FORMAT JSON) ' || query INTO plan;
  RETURN QUERY SELECT n ->> 'Node Type', n ->> 'Relation Name'
    FROM jsonb_path_query(plan, 'strict $.**') n
   WHERE jsonb_typeof(n) = 'object' AND n ? 'Relation Name' ORDER BY 2;
END $$;
SELECT * FROM pg_temp.scans('SELECT * FROM tsf_parted TABLESAMPLE sparse_bernoulli (1) REPEATABLE (7)');
-- BERNOULLI, PostgreSQL's own method, does the same.
SELECT region, count(*) = 10000 AS every_row
  FROM tsf_parted TABLESAMPLE bernoulli (1) REPEATABLE (7) WHERE region = 2 GROUP BY region;
-- sample_rows refuses the table (0A000).
SELECT * FROM sample_rows(NULL::tsf_parted, 10);
\echo :LAST_ERROR_SQLSTATE
-- The foreign table named directly: PostgreSQL refuses the clause itself (0A000).
SELECT count(*) FROM tsf_remote TABLESAMPLE sparse_bernoulli (1);
\echo :LAST_ERROR_SQLSTATE
DROP TABLE tsf_parted;
DROP SERVER tsf_files;
DROP EXTENSION file_fdw;
