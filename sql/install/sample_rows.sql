-- sample_rows(relation, k [, seed]): exactly k rows of a table, every k-subset of its visible
-- rows equally likely (docs/rows.md). The table is named by its row type, as in
-- `SELECT * FROM sample_rows(NULL::big, 10)`.
--
-- Each try takes a Bernoulli sample with TABLESAMPLE sparse_bernoulli at a rate expected to
-- bring k + 2 sqrt(k) + 3 rows and keeps k of them uniformly (a reservoir); a try that brings
-- fewer than k rows is thrown away and the next, at a higher rate, draws afresh. Where a try
-- would visit a quarter of the table's pages, the table is read whole instead. src/rows/
-- sample_rows.rs says why the result is exact and how the seeded form draws. Not STRICT: the
-- relation argument is a NULL of the table's row type. The search_path makes the seeded form's
-- order key (a relation's name as regclass prints it) the same whatever the caller's.
CREATE FUNCTION @extschema@.sample_rows(relation anyelement, k integer, seed bytea DEFAULT NULL)
RETURNS SETOF anyelement
VOLATILE LANGUAGE c
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'dealcards_sample_rows';
