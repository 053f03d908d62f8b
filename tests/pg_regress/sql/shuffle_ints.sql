-- shuffle_ints(lo, hi): a permutation of lo..hi.
\set SHOW_CONTEXT never
SELECT array_length(shuffle_ints(1, 54), 1) AS n,
       (SELECT array_agg(x ORDER BY x) FROM unnest(shuffle_ints(1, 54)) x)
         = (SELECT array_agg(g) FROM generate_series(1, 54) g) AS is_permutation;
SELECT shuffle_ints(7, 7) AS one, shuffle_ints(-1, -1) AS negative_one;
SELECT (SELECT array_agg(x ORDER BY x) FROM unnest(shuffle_ints(1, 2)) x) AS two;
-- Ranges touching the int limits, and a million elements.
SELECT (SELECT array_agg(x ORDER BY x) FROM unnest(shuffle_ints(2147483645, 2147483647)) x) AS top,
       (SELECT array_agg(x ORDER BY x) FROM unnest(shuffle_ints(-2147483648, -2147483646)) x) AS bottom;
SELECT count(*) AS n, count(DISTINCT x) AS distinct_values, min(x), max(x)
  FROM unnest(shuffle_ints(-500000, 499999)) x;
SELECT array_lower(a, 1), array_upper(a, 1), pg_typeof(a) FROM (SELECT shuffle_ints(1, 3) a) t;
-- NULL in, NULL out.
SELECT shuffle_ints(NULL, 5) IS NULL AS null_lo, shuffle_ints(1, NULL) IS NULL AS null_hi;
-- How Postgres sees the functions.
SELECT p.oid::regprocedure AS function, p.provolatile AS volatility, p.proparallel AS parallel,
       p.proisstrict AS strict, pg_get_function_result(p.oid) AS result
  FROM pg_proc p WHERE p.proname = 'shuffle_ints' ORDER BY p.oid::regprocedure::text;

-- Errors.
SELECT shuffle_ints(10, 1);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_ints(-2147483648, 2147483647);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_ints(1, 134217728);
\echo :LAST_ERROR_SQLSTATE

-- shuffle_ints(lo, hi, seed): replayable.
SELECT shuffle_ints(1, 10, '\x0000000000000000000000000000000000000000000000000000000000000000');
SELECT shuffle_ints(1, 54, '\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f');
SELECT shuffle_ints(-2147483648, -2147483639, decode(repeat('ff', 32), 'hex'));
SELECT shuffle_ints(1, 1000, decode(repeat('5a', 32), 'hex'))
     = shuffle_ints(1, 1000, decode(repeat('5a', 32), 'hex')) AS replays,
       shuffle_ints(1, 1000, decode(repeat('5a', 32), 'hex'))
     = shuffle_ints(1, 1000, decode(repeat('5b', 32), 'hex')) AS same_for_another_seed;
SELECT shuffle_ints(1, 5, '\x00'::bytea);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_ints(1, 5, decode(repeat('00', 33), 'hex'));
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_ints(5, 1, decode(repeat('00', 32), 'hex'));
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_ints(1, 5, NULL) IS NULL AS null_seed;

-- A long shuffle honours statement_timeout.
SET statement_timeout = '50ms';
SELECT array_length(shuffle_ints(1, 100000000), 1);
\echo :LAST_ERROR_SQLSTATE
RESET statement_timeout;
