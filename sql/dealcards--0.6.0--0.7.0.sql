-- dealcards 0.6.0 -> 0.7.0 (ALTER EXTENSION dealcards UPDATE TO '0.7.0').
--
-- Each section below adds what one part of 0.7.0 adds to a fresh install; tests/upgrade.rs
-- compares a database updated through this script with a fresh install, object for object.
\echo Use "ALTER EXTENSION dealcards UPDATE TO '0.7.0'" to load this file. \quit

-- ---------------------------------------------------------------------------------------------
-- shuffle_key(seed, key): a seeded order key for bigint and text keys, to order and page through
-- rows in a shuffled order that every connection sees alike (docs/rows.md). Two functions, no
-- tables.
-- ---------------------------------------------------------------------------------------------

CREATE  FUNCTION "shuffle_key"(
	"seed" bytea, /* & [u8] */
	"key" bigint /* i64 */
) RETURNS bigint /* i64 */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'shuffle_key_wrapper';

CREATE  FUNCTION "shuffle_key"(
	"seed" bytea, /* & [u8] */
	"key" TEXT /* TextBytes */
) RETURNS bigint /* i64 */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'shuffle_key_text_wrapper';

-- ---------------------------------------------------------------------------------------------
-- TABLESAMPLE sparse_bernoulli (percent): BERNOULLI's sample of rows, reading only the pages
-- where it takes a slot (docs/rows.md). Its handler, no tables.
-- ---------------------------------------------------------------------------------------------

CREATE FUNCTION sparse_bernoulli(internal) RETURNS tsm_handler
    LANGUAGE c STRICT AS 'MODULE_PATHNAME', 'sparse_bernoulli_wrapper';
