-- REPEATABLE (x): PostgreSQL takes x as a float8 and hands every TABLESAMPLE method
-- hashfloat8(x), 32 bits (nodeSamplescan.c), never x itself. Two values with the same hash give
-- the same sample, however far apart; values that differ anywhere else give other samples: x is
-- hashed, not cut. docs/rows.md, "REPEATABLE: a seed of 32 bits". (The colliding pair is that
-- of a little-endian server: hashfloat8 hashes the value's bytes.)
\set SHOW_CONTEXT never
CREATE TABLE tsr_rows AS SELECT i AS id FROM generate_series(1, 20000) i;
CREATE FUNCTION pg_temp.sample(method text, seed float8) RETURNS int[] LANGUAGE plpgsql AS $$
DECLARE
  ids int[];
BEGIN
  EXECUTE format('SELECT array_agg(id ORDER BY id) FROM tsr_rows TABLESAMPLE %s (5) REPEATABLE (%L)', method, seed)
    INTO ids;
  RETURN ids;
END $$;
-- 39732 and 42698 share their 32-bit hash: the same rows, from sparse_bernoulli and from
-- PostgreSQL's own BERNOULLI; 39733 has another hash, and other rows.
SELECT hashfloat8(39732) = hashfloat8(42698) AS same_hash, hashfloat8(39732) = hashfloat8(39733) AS next_same_hash;
SELECT pg_temp.sample('sparse_bernoulli', 39732) = pg_temp.sample('sparse_bernoulli', 42698) AS sparse_same_rows,
       pg_temp.sample('sparse_bernoulli', 39732) = pg_temp.sample('sparse_bernoulli', 39733) AS sparse_next_same_rows,
       pg_temp.sample('bernoulli', 39732) = pg_temp.sample('bernoulli', 42698) AS bernoulli_same_rows,
       pg_temp.sample('bernoulli', 39732) = pg_temp.sample('bernoulli', 39733) AS bernoulli_next_same_rows;
-- 0 and -0 hash alike (hashfloat8 maps -0 to 0), as do all NaNs.
SELECT pg_temp.sample('sparse_bernoulli', 0) = pg_temp.sample('sparse_bernoulli', '-0') AS zero_and_minus_zero,
       pg_temp.sample('sparse_bernoulli', 'NaN') = pg_temp.sample('sparse_bernoulli', '-NaN') AS every_nan;
-- 2^52 and 2^52 + 1 differ in the last bit only: other hashes, other rows.
SELECT hashfloat8(2^52) = hashfloat8(2^52 + 1) AS same_hash,
       pg_temp.sample('sparse_bernoulli', 2^52) = pg_temp.sample('sparse_bernoulli', 2^52 + 1) AS same_rows;
-- Among the whole numbers 1 to 200,000, some 32-bit hashes are shared (the birthday bound:
-- about n^2 / 2^33 pairs, 4.7 here): REPEATABLE values drawn from a large set are not all
-- different samples.
SELECT count(*) BETWEEN 1 AND 20 AS some_pairs_collide
  FROM (SELECT hashfloat8(i::float8) h FROM generate_series(1, 200000) i GROUP BY 1 HAVING count(*) > 1) c;
DROP TABLE tsr_rows;
