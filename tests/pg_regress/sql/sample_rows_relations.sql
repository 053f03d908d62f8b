-- sample_rows on every kind of relation a user can name: a correct sample (k distinct rows, each
-- a row of the relation, from every part of it) or a refusal with its SQLSTATE. Foreign tables
-- anywhere under the relation are refused: PostgreSQL gives a foreign scan no TABLESAMPLE
-- clause, so their rows would come back whole in every try. (Citus tables: tests/citus.)
\set SHOW_CONTEXT never
-- k rows, distinct, each a row the relation holds, in each of `calls` calls.
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

-- A plain table, a temporary one, an unlogged one, a materialized view, an empty table.
CREATE TABLE srr_plain AS SELECT i AS id FROM generate_series(1, 5000) i;
CREATE TEMPORARY TABLE srr_temp AS SELECT i AS id FROM generate_series(1, 5000) i;
CREATE UNLOGGED TABLE srr_unlogged AS SELECT i AS id FROM generate_series(1, 5000) i;
CREATE MATERIALIZED VIEW srr_matview AS SELECT i AS id FROM generate_series(1, 5000) i;
CREATE TABLE srr_empty (id int);
SELECT pg_temp.exact(NULL::srr_plain, 20, 5, 'SELECT * FROM srr_plain') AS plain,
       pg_temp.exact(NULL::srr_temp, 20, 5, 'SELECT * FROM srr_temp') AS temporary,
       pg_temp.exact(NULL::srr_unlogged, 20, 5, 'SELECT * FROM srr_unlogged') AS unlogged,
       pg_temp.exact(NULL::srr_matview, 20, 5, 'SELECT * FROM srr_matview') AS materialized_view,
       (SELECT count(*) FROM sample_rows(NULL::srr_empty, 20)) AS empty,
       (SELECT count(*) FROM sample_rows(NULL::srr_empty, 20, decode(repeat('00', 32), 'hex'))) AS empty_seeded;

-- Partitioned two levels deep (a partition that is itself partitioned, one empty leaf), and a
-- partition named directly: its own rows only.
CREATE TABLE srr_parted (region int, id int) PARTITION BY LIST (region);
CREATE TABLE srr_parted_1 PARTITION OF srr_parted FOR VALUES IN (1);
CREATE TABLE srr_parted_2 PARTITION OF srr_parted FOR VALUES IN (2, 3) PARTITION BY LIST (region);
CREATE TABLE srr_parted_2a PARTITION OF srr_parted_2 FOR VALUES IN (2);
CREATE TABLE srr_parted_2b PARTITION OF srr_parted_2 FOR VALUES IN (3);
CREATE TABLE srr_parted_empty PARTITION OF srr_parted FOR VALUES IN (4);
INSERT INTO srr_parted SELECT 1 + i % 3, i FROM generate_series(1, 6000) i;
SELECT pg_temp.exact(NULL::srr_parted, 20, 5, 'SELECT * FROM srr_parted') AS nested_partitions,
       pg_temp.exact(NULL::srr_parted_2, 20, 5, 'SELECT * FROM srr_parted_2') AS sub_partitioned,
       pg_temp.exact(NULL::srr_parted_2a, 20, 5, 'SELECT * FROM srr_parted_2a') AS one_partition;
-- Every leaf with rows is sampled: 30 calls of 20 rows reach all three.
SELECT array_agg(DISTINCT region ORDER BY region) AS regions_sampled
  FROM generate_series(1, 30) g, LATERAL sample_rows(NULL::srr_parted, 20 + 0 * g);
SELECT array_agg(DISTINCT region ORDER BY region) AS regions_of_the_partition
  FROM generate_series(1, 30) g, LATERAL sample_rows(NULL::srr_parted_2, 20 + 0 * g);

-- A parent of legacy inheritance: the statement reads the parent's rows and its children's
-- (without ONLY), at any depth, and samples them all as rows of the parent's type.
CREATE TABLE srr_parent (id int);
CREATE TABLE srr_child (extra text) INHERITS (srr_parent);
CREATE TABLE srr_grandchild () INHERITS (srr_child);
INSERT INTO srr_parent SELECT i FROM generate_series(1, 2000) i;
INSERT INTO srr_child SELECT i, 'c' FROM generate_series(2001, 4000) i;
INSERT INTO srr_grandchild SELECT i, 'g' FROM generate_series(4001, 6000) i;
SELECT pg_temp.exact(NULL::srr_parent, 20, 5, 'SELECT * FROM srr_parent') AS inheritance_parent,
       pg_temp.exact(NULL::srr_child, 20, 5, 'SELECT * FROM srr_child') AS inheritance_child;
SELECT array_agg(DISTINCT (id - 1) / 2000 ORDER BY (id - 1) / 2000) AS generations_sampled,
       count(*) AS rows
  FROM generate_series(1, 30) g, LATERAL sample_rows(NULL::srr_parent, 20 + 0 * g);
-- With a seed, the same rows again, from the parent and its children.
SELECT a = b AS same_seed_same_rows, cardinality(a) AS k
  FROM (SELECT (SELECT array_agg(id) FROM sample_rows(NULL::srr_parent, 30, decode(repeat('01', 32), 'hex'))) AS a,
               (SELECT array_agg(id) FROM sample_rows(NULL::srr_parent, 30, decode(repeat('01', 32), 'hex'))) AS b) s;
-- An empty parent whose rows are all in its children.
CREATE TABLE srr_hollow (id int);
CREATE TABLE srr_hollow_child () INHERITS (srr_hollow);
INSERT INTO srr_hollow_child SELECT i FROM generate_series(1, 3000) i;
SELECT pg_temp.exact(NULL::srr_hollow, 20, 5, 'SELECT * FROM srr_hollow') AS empty_parent_full_child;

-- A view: refused (42809), as before.
CREATE VIEW srr_view AS SELECT * FROM srr_plain;
SELECT * FROM sample_rows(NULL::srr_view, 1);
\echo :LAST_ERROR_SQLSTATE

-- Foreign tables. A wrapper without a handler is enough to create them: the refusal comes
-- before any scan.
CREATE FOREIGN DATA WRAPPER srr_wrapper;
CREATE SERVER srr_server FOREIGN DATA WRAPPER srr_wrapper;
-- A foreign table named directly: not a table (42809).
CREATE FOREIGN TABLE srr_foreign (id int) SERVER srr_server;
SELECT * FROM sample_rows(NULL::srr_foreign, 1);
\echo :LAST_ERROR_SQLSTATE
-- A foreign partition: refused (0A000), with or without a seed, for any k.
CREATE FOREIGN TABLE srr_parted_remote PARTITION OF srr_parted FOR VALUES IN (5) SERVER srr_server;
SELECT * FROM sample_rows(NULL::srr_parted, 10);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM sample_rows(NULL::srr_parted, 10, decode(repeat('00', 32), 'hex'));
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM sample_rows(NULL::srr_parted, 0);
\echo :LAST_ERROR_SQLSTATE
DROP FOREIGN TABLE srr_parted_remote;
-- Two levels down, under a sub-partitioned partition: refused for the top and for that partition,
-- not for a sibling without one.
CREATE FOREIGN TABLE srr_parted_2c PARTITION OF srr_parted_2 FOR VALUES IN (6) SERVER srr_server;
SELECT * FROM sample_rows(NULL::srr_parted, 10);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM sample_rows(NULL::srr_parted_2, 10);
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) AS sibling_sampled FROM sample_rows(NULL::srr_parted_1, 10);
DROP FOREIGN TABLE srr_parted_2c;
-- A foreign child of an inheritance parent, at the second level: refused (0A000).
CREATE FOREIGN TABLE srr_foreign_heir () INHERITS (srr_child) SERVER srr_server;
SELECT * FROM sample_rows(NULL::srr_parent, 10);
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) AS grandchild_sampled FROM sample_rows(NULL::srr_grandchild, 10);
DROP FOREIGN TABLE srr_foreign_heir;
-- Without it, the parent is sampled again.
SELECT pg_temp.exact(NULL::srr_parent, 20, 2, 'SELECT * FROM srr_parent') AS inheritance_parent_again;

DROP VIEW srr_view;
DROP MATERIALIZED VIEW srr_matview;
DROP TABLE srr_plain, srr_unlogged, srr_empty, srr_parted, srr_parent, srr_child, srr_grandchild,
           srr_hollow, srr_hollow_child;
DROP FOREIGN TABLE srr_foreign;
DROP SERVER srr_server;
DROP FOREIGN DATA WRAPPER srr_wrapper;
