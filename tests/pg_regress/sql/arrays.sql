-- shuffle_array, sample_array and sample_ints: every element type, every shape, every error.
\set SHOW_CONTEXT never
-- The seed of most replays: the bytes 0, 1, ..., 31.
\set seed 'decode(''000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f'', ''hex'')'
\set ff 'decode(repeat(''ff'', 32), ''hex'')'
CREATE TYPE card AS (rank int, suit text);
CREATE DOMAIN pip AS int CHECK (VALUE BETWEEN 1 AND 13);
-- The elements of an array in a canonical order, compared as text so that types without an
-- ordering or equality (point) work too.
CREATE FUNCTION sorted_text(a anyarray) RETURNS text LANGUAGE sql IMMUTABLE
  AS $$ SELECT array_agg(x::text ORDER BY x::text COLLATE "C")::text FROM unnest(a) x $$;
CREATE FUNCTION same_items(a anyarray, b anyarray) RETURNS bool LANGUAGE sql IMMUTABLE
  AS $$ SELECT sorted_text(a) = sorted_text(b) AND array_dims(a) = array_dims(b)
               AND pg_typeof(a) = pg_typeof(b) $$;

-- Live shuffles keep every element, the dimensions and the type, for every element type
-- (fixed and variable length, every alignment, NULLs among them).
SELECT 'int' AS type, same_items(shuffle_array(a), a) FROM (SELECT ARRAY[3, 1, 4, 1, 5, 9, 2, 6]) t(a)
UNION ALL SELECT 'bigint', same_items(shuffle_array(a), a)
  FROM (SELECT ARRAY[9223372036854775807, -9223372036854775808, 0, NULL]) t(a)
UNION ALL SELECT 'smallint', same_items(shuffle_array(a), a)
  FROM (SELECT ARRAY[1, -32768, 32767, NULL, 2]::smallint[]) t(a)
UNION ALL SELECT 'text', same_items(shuffle_array(a), a)
  FROM (SELECT ARRAY['', 'a', NULL, repeat('long ', 40), 'é', 'bb']) t(a)
UNION ALL SELECT 'varchar', same_items(shuffle_array(a), a)
  FROM (SELECT ARRAY['x', 'yy', 'zzz']::varchar(3)[]) t(a)
UNION ALL SELECT 'numeric', same_items(shuffle_array(a), a)
  FROM (SELECT ARRAY[1.5, -2, 3.14159265358979323846, 0, 1e20, NULL, 'NaN']::numeric[]) t(a)
UNION ALL SELECT 'uuid', same_items(shuffle_array(a), a)
  FROM (SELECT ARRAY['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', NULL,
                     '00000000-0000-0000-0000-000000000001']::uuid[]) t(a)
UNION ALL SELECT 'jsonb', same_items(shuffle_array(a), a)
  FROM (SELECT ARRAY['{"a": [1, 2, {"b": null}]}', 'null', NULL, '"s"', '3']::jsonb[]) t(a)
UNION ALL SELECT 'composite', same_items(shuffle_array(a), a)
  FROM (SELECT ARRAY[(1, 'spades'), (12, 'hearts'), NULL, (13, NULL), (7, 'diamonds')]::card[]) t(a)
UNION ALL SELECT 'domain', same_items(shuffle_array(a), a)
  FROM (SELECT ARRAY[1, 5, 13, NULL, 7]::pip[]) t(a)
UNION ALL SELECT 'float8', same_items(shuffle_array(a), a)
  FROM (SELECT ARRAY[1.5, -0.0, 'Infinity', NULL, 2]::float8[]) t(a)
UNION ALL SELECT 'bool', same_items(shuffle_array(a), a) FROM (SELECT ARRAY[true, NULL, false]) t(a)
UNION ALL SELECT '"char"', same_items(shuffle_array(a), a) FROM (SELECT ARRAY['a', 'b', 'c']::"char"[]) t(a)
UNION ALL SELECT 'name', same_items(shuffle_array(a), a)
  FROM (SELECT ARRAY['pg_class', NULL, 'pg_type']::name[]) t(a)
UNION ALL SELECT 'bytea', same_items(shuffle_array(a), a)
  FROM (SELECT ARRAY['\x00'::bytea, '\xdeadbeef', '', NULL]) t(a)
UNION ALL SELECT 'timestamptz', same_items(shuffle_array(a), a)
  FROM (SELECT ARRAY['2024-02-29 12:00+00', NULL, 'infinity']::timestamptz[]) t(a)
UNION ALL SELECT 'interval', same_items(shuffle_array(a), a)
  FROM (SELECT ARRAY['1 day', NULL, '1 year 2 mons', '-5 seconds']::interval[]) t(a)
UNION ALL SELECT 'point', same_items(shuffle_array(a), a)
  FROM (SELECT ARRAY['(1,2)', NULL, '(3.5,-4)']::point[]) t(a)
UNION ALL SELECT 'int[] 3-d', same_items(shuffle_array(a), a)
  FROM (SELECT '{{{1,2},{3,4}},{{5,6},{7,8}},{{9,10},{11,12}}}'::int[]) t(a)
UNION ALL SELECT 'text[] [0:4]', same_items(shuffle_array(a), a)
  FROM (SELECT '[0:4]={a,NULL,ccc,dd,e}'::text[]) t(a);

-- A shuffle of 54 items is a different order (the chance of the same order is 1 in 54!), and
-- live samples are distinct items of the array.
SELECT shuffle_array(a) <> a AS reordered, same_items(shuffle_array(a), a) AS same_items
  FROM (SELECT ARRAY(SELECT 'card ' || g FROM generate_series(1, 54) g)) t(a);
SELECT array_length(s, 1) AS n, (SELECT count(DISTINCT x) FROM unnest(s) x) AS distinct_items,
       s <@ a AS from_the_array, array_lower(s, 1) AS lower_bound
  FROM (SELECT a, sample_array(a, 5) FROM (SELECT ('[0:53]=' || ARRAY(SELECT generate_series(1, 54))::text)::int[]) l(a)) t(a, s);

-- Multi-dimensional arrays: whole rows (sub-arrays) move together; the other dimensions and
-- their lower bounds stay.
SELECT bool_and(b[i][1] + 1 = b[i][2] AND b[i][2] + 1 = b[i][3] AND b[i][1] % 3 = 1) AS rows_intact,
       min(array_dims(b)) AS dims
  FROM (SELECT shuffle_array(ARRAY(SELECT ARRAY[3 * g + 1, 3 * g + 2, 3 * g + 3]
                                     FROM generate_series(0, 9) g))) t(b),
       generate_series(1, 10) i;
SELECT bool_and(b[i][6] = b[i][5] + 1) AS rows_intact, min(array_dims(b)) AS dims
  FROM (SELECT shuffle_array('[-2:0][5:6]={{1,2},{3,4},{5,6}}'::int[])) t(b),
       generate_series(-2, 0) i;
SELECT array_dims(sample_array('[-2:0][5:6]={{1,2},{3,4},{5,6}}'::int[], 2)) AS sample_dims;

-- Arrays of 0, 1 and 2 items.
SELECT shuffle_array('{}'::int[]) AS empty, shuffle_array(ARRAY[42]) AS one,
       shuffle_array('[5:5]={x}'::text[]) AS one_with_bound,
       sorted_text(shuffle_array(ARRAY['x', 'y'])) AS two,
       shuffle_array(ARRAY[NULL]::int[]) AS one_null,
       shuffle_array('{{1,2,3}}'::int[]) AS one_row;
SELECT sample_array('{}'::int[], 0) AS empty_of_empty, sample_array(ARRAY[1, 2], 0) AS none,
       pg_typeof(sample_array(ARRAY[1, 2], 0)) AS type, sample_array(ARRAY[42], 1) AS one,
       sample_array('[7:7]={x}'::text[], 1) AS one_rebased,
       sorted_text(sample_array(ARRAY['x', 'y'], 2)) AS both;

-- NULL elements are kept, and a sample without NULLs carries no null bitmap.
SELECT shuffle_array(ARRAY[NULL, NULL, NULL]::int[]) AS all_null,
       (SELECT count(*) FROM unnest(shuffle_array(ARRAY[1, NULL, 3, NULL, 5])) x WHERE x IS NULL)
         AS nulls_kept,
       (SELECT count(*) FROM unnest(sample_array(ARRAY[NULL, 'a', NULL], 3)) x WHERE x IS NULL)
         AS nulls_in_sample;
SELECT sample_array(ARRAY[NULL, 1, 2], 3, :seed) AS with_null, s AS without_null,
       s = '{1}' AS matches_reference, pg_column_size(s) = pg_column_size(ARRAY[1]) AS no_bitmap
  FROM (SELECT sample_array(ARRAY[NULL, 1, 2], 1, :seed)) t(s);

-- Arrays read from a table (compressed, toasted, or stored with a short header) and from a
-- PL/pgSQL variable (an expanded array).
CREATE TEMP TABLE stored AS
  SELECT 'big' AS name, array_agg(md5(g::text)) AS a FROM generate_series(1, 20000) g
  UNION ALL SELECT 'small', ARRAY['a', 'b', 'c'];
SELECT name, same_items(shuffle_array(a), a) AS same_items,
       shuffle_array(a, :seed) = shuffle_array(a || '{}'::text[], :seed) AS stored_equals_in_memory
  FROM stored ORDER BY name;
DO $$
DECLARE
  hand int[] := ARRAY[10, 20, 30];
BEGIN
  hand[4] := 40;  -- makes the variable an expanded array
  hand[5] := 50;
  RAISE NOTICE 'expanded: %', shuffle_array(hand, decode('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', 'hex'));
END $$;

-- Seeded results, for every element type. Each expected value was computed independently with
--   tests/reference/seeded_sample.py shuffle_array 000102...1f ITEMS...
--   tests/reference/seeded_sample.py sample_array 3 000102...1f ITEMS...
-- from the items of the input literal.
SELECT 'int' AS type, s::text AS shuffled, s = '{50,10,40,20,30}' AS matches_reference,
       p::text AS sample, p = '{40,20,30}' AS sample_matches
  FROM (SELECT shuffle_array(a, :seed), sample_array(a, 3, :seed)
          FROM (SELECT '{10,20,30,40,50}'::int[]) i(a)) t(s, p)
UNION ALL
SELECT 'bigint', s::text, s = '{-1,9223372036854775807,1,-9223372036854775808,0}', p::text,
       p = '{1,-9223372036854775808,0}'
  FROM (SELECT shuffle_array(a, :seed), sample_array(a, 3, :seed)
          FROM (SELECT '{9223372036854775807,-9223372036854775808,0,1,-1}'::bigint[]) i(a)) t(s, p)
UNION ALL
SELECT 'text', s::text, s = '{five,ace,"four of a kind","",NULL}', p::text,
       p = '{"four of a kind","",NULL}'
  FROM (SELECT shuffle_array(a, :seed), sample_array(a, 3, :seed)
          FROM (SELECT '{ace,"",NULL,"four of a kind",five}'::text[]) i(a)) t(s, p)
UNION ALL
SELECT 'numeric', s::text, s = '{100000000000000000000,1.5,0,-2,3.14159265358979323846}', p::text,
       p = '{0,-2,3.14159265358979323846}'
  FROM (SELECT shuffle_array(a, :seed), sample_array(a, 3, :seed)
          FROM (SELECT '{1.5,-2,3.14159265358979323846,0,100000000000000000000}'::numeric[]) i(a)) t(s, p)
UNION ALL
SELECT 'uuid', s::text,
       s = '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11,00000000-0000-0000-0000-000000000001,ffffffff-ffff-ffff-ffff-ffffffffffff,6ba7b810-9dad-11d1-80b4-00c04fd430c8,NULL}',
       p::text, p = '{ffffffff-ffff-ffff-ffff-ffffffffffff,6ba7b810-9dad-11d1-80b4-00c04fd430c8,NULL}'
  FROM (SELECT shuffle_array(a, :seed), sample_array(a, 3, :seed)
          FROM (SELECT '{00000000-0000-0000-0000-000000000001,6ba7b810-9dad-11d1-80b4-00c04fd430c8,NULL,ffffffff-ffff-ffff-ffff-ffffffffffff,a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}'::uuid[]) i(a)) t(s, p)
UNION ALL
SELECT 'jsonb', s::text, s = '{3,"{\"a\": 1}","\"s\"","[1, 2]","null"}', p::text,
       p = '{"\"s\"","[1, 2]","null"}'
  FROM (SELECT shuffle_array(a, :seed), sample_array(a, 3, :seed)
          FROM (SELECT '{"{\"a\": 1}","[1, 2]","null","\"s\"",3}'::jsonb[]) i(a)) t(s, p)
UNION ALL
SELECT 'card', s::text, s = '{"(7,diamonds)","(1,spades)",NULL,"(12,hearts)","(13,)"}', p::text,
       p = '{NULL,"(12,hearts)","(13,)"}'
  FROM (SELECT shuffle_array(a, :seed), sample_array(a, 3, :seed)
          FROM (SELECT '{"(1,spades)","(12,hearts)","(13,)",NULL,"(7,diamonds)"}'::card[]) i(a)) t(s, p)
UNION ALL
SELECT 'pip', s::text, s = '{2,1,7,5,13}', p::text, p = '{7,5,13}'
  FROM (SELECT shuffle_array(a, :seed), sample_array(a, 3, :seed)
          FROM (SELECT '{1,5,13,7,2}'::pip[]) i(a)) t(s, p);
-- One-dimensional arrays of 1-, 2-, 4- and 8-byte elements without NULLs are shuffled in place,
-- text in slots, arrays with NULLs as records: every way gives the order shuffle_ints gives.
SELECT shuffle_array(ARRAY(SELECT g FROM generate_series(1, 1000) g), :seed)
         = shuffle_ints(1, 1000, :seed) AS int4_in_place,
       shuffle_array(ARRAY(SELECT g::int2 FROM generate_series(1, 1000) g), :seed)::int[]
         = shuffle_ints(1, 1000, :seed) AS int2_in_place,
       shuffle_array(ARRAY(SELECT g::int8 FROM generate_series(1, 1000) g), :seed)::int[]
         = shuffle_ints(1, 1000, :seed) AS int8_in_place,
       shuffle_array(ARRAY(SELECT g::float8 FROM generate_series(1, 1000) g), :seed)::int[]
         = shuffle_ints(1, 1000, :seed) AS float8_in_place,
       shuffle_array(ARRAY(SELECT g % 3 = 0 FROM generate_series(1, 1000) g), :seed)
         = ARRAY(SELECT x % 3 = 0 FROM unnest(shuffle_ints(1, 1000, :seed)) WITH ORDINALITY u(x, o) ORDER BY o)
         AS bool_in_place,
       shuffle_array(ARRAY(SELECT g::text FROM generate_series(1, 1000) g), :seed)::int[]
         = shuffle_ints(1, 1000, :seed) AS text_in_slots,
       shuffle_array(ARRAY(SELECT nullif(g, 1000) FROM generate_series(1, 1000) g), :seed)
         = ARRAY(SELECT nullif(x, 1000) FROM unnest(shuffle_ints(1, 1000, :seed)) WITH ORDINALITY u(x, o) ORDER BY o)
         AS with_nulls_as_records,
       array_lower(shuffle_array('[-2:2]={1,2,3,4,5}'::int[], :seed), 1) AS lower_bound_kept;
SELECT pg_typeof(shuffle_array('{1,5}'::pip[], :seed)) AS domain_array,
       pg_typeof(sample_array('{"(1,x)"}'::card[], 1, :seed)) AS composite_array;

-- Items move in 16-byte slots (items up to 12 bytes), in 32-byte slots (up to 28 bytes), or as
-- records (a longer item or any NULL); a long last item makes the slots give up at the end.
-- Every way gives the same permutation: the same reference as above.
SELECT 'bigint, 8 bytes' AS items, s::text AS shuffled, s = '{10,50,70,20,60,30,40}' AS matches_reference
  FROM (SELECT shuffle_array('{10,20,30,40,50,60,70}'::bigint[], :seed)) t(s)
UNION ALL
SELECT 'text up to 12 bytes', s::text, s = '{five,ace,four,two,three}'
  FROM (SELECT shuffle_array('{ace,two,three,four,five}'::text[], :seed)) t(s)
UNION ALL
SELECT 'uuid, 16 bytes', s::text,
       s = '{00000000-0000-0000-0000-000000000002,00000000-0000-0000-0000-000000000001,a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11,6ba7b810-9dad-11d1-80b4-00c04fd430c8,ffffffff-ffff-ffff-ffff-ffffffffffff}'
  FROM (SELECT shuffle_array('{00000000-0000-0000-0000-000000000001,6ba7b810-9dad-11d1-80b4-00c04fd430c8,ffffffff-ffff-ffff-ffff-ffffffffffff,a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11,00000000-0000-0000-0000-000000000002}'::uuid[], :seed)) t(s)
UNION ALL
SELECT 'text up to 28 bytes', s::text, s = '{y,"thirteen byte","a middle item","twenty-four bytes long!!",x}'
  FROM (SELECT shuffle_array('{"thirteen byte","twenty-four bytes long!!",x,"a middle item",y}'::text[], :seed)) t(s)
UNION ALL
SELECT 'text over 28 bytes', s::text,
       s = '{"five and the longest string of them all","a string of thirty-two characters","four: the last of the long strings","another string well over 28 bytes","a third string beyond the largest slot"}'
  FROM (SELECT shuffle_array('{"a string of thirty-two characters","another string well over 28 bytes","a third string beyond the largest slot","four: the last of the long strings","five and the longest string of them all"}'::text[], :seed)) t(s)
UNION ALL
SELECT 'long last item', s::text, s = '{"a last item that is longer than any slot holds",ace,four,two,three}'
  FROM (SELECT shuffle_array('{ace,two,three,four,"a last item that is longer than any slot holds"}'::text[], :seed)) t(s);

-- Seeded multi-dimensional arrays and lower bounds (items are the rows; same reference).
SELECT shuffle_array('{{1,2,3},{4,5,6}}'::int[], :seed) AS two_rows,
       shuffle_array('{{1,2,3},{4,5,6}}'::int[], :seed) = '{{4,5,6},{1,2,3}}' AS matches_reference;
SELECT shuffle_array('{{{1,2},{3,4}},{{5,6},{7,8}},{{9,10},{11,12}}}'::int[], :seed) AS three_d,
       shuffle_array('{{{1,2},{3,4}},{{5,6},{7,8}},{{9,10},{11,12}}}'::int[], :seed)
         = '{{{9,10},{11,12}},{{1,2},{3,4}},{{5,6},{7,8}}}' AS matches_reference;
SELECT shuffle_array('{{a,NULL},{NULL,b},{c,d}}'::text[], :seed) AS with_nulls,
       shuffle_array('{{a,NULL},{NULL,b},{c,d}}'::text[], :seed) = '{{c,d},{a,NULL},{NULL,b}}' AS matches_reference,
       sample_array('{{a,NULL},{NULL,b},{c,d}}'::text[], 2, :seed) AS sample,
       sample_array('{{a,NULL},{NULL,b},{c,d}}'::text[], 2, :seed) = '{{a,NULL},{NULL,b}}' AS sample_matches;
SELECT shuffle_array('[0:4]={a,b,c,d,e}'::text[], :seed) AS kept_bound,
       shuffle_array('[0:4]={a,b,c,d,e}'::text[], :seed)::text = '[0:4]={e,a,d,b,c}' AS matches_reference,
       sample_array('[0:4]={a,b,c,d,e}'::text[], 3, :seed) AS rebased_sample,
       sample_array('[0:4]={a,b,c,d,e}'::text[], 3, :seed)::text = '{d,b,c}' AS sample_matches;
SELECT shuffle_array('[-2:0][5:6]={{1,2},{3,4},{5,6}}'::int[], :seed) AS both_bounds,
       sample_array('[-2:0][5:6]={{1,2},{3,4},{5,6}}'::int[], 2, :seed) AS sample;
SELECT shuffle_array(ARRAY[1, NULL, 3, NULL, 5], :seed) AS nulls,
       shuffle_array(ARRAY[1, NULL, 3, NULL, 5], :seed) IS NOT DISTINCT FROM '{5,1,NULL,NULL,3}' AS matches_reference,
       shuffle_array(ARRAY[10, 20, 30, 40, 50], :ff) = '{10,40,30,50,20}' AS other_seed_matches;
-- A sample is the tail of the shuffle with the same seed, and replays.
SELECT sample_array(a, 3, :seed) = (shuffle_array(a, :seed))[52:54] AS sample_is_shuffle_tail,
       sample_array(a, 54, :seed) = shuffle_array(a, :seed) AS full_sample_is_shuffle,
       shuffle_array(a, :seed) = shuffle_array(a, :seed) AS replays,
       shuffle_array(a, :seed) <> shuffle_array(a, :ff) AS seeds_differ
  FROM (SELECT ARRAY(SELECT 'card ' || g FROM generate_series(1, 54) g)) t(a);

-- sample_ints(lo, hi, k): k distinct integers of lo..hi.
SELECT array_length(s, 1) AS n, (SELECT count(DISTINCT x) FROM unnest(s) x) AS distinct_values,
       (SELECT bool_and(x BETWEEN 1 AND 49) FROM unnest(s) x) AS in_range, pg_typeof(s)
  FROM (SELECT sample_ints(1, 49, 6)) t(s);
SELECT (SELECT array_agg(x ORDER BY x) FROM unnest(sample_ints(1, 49, 49)) x)
         = (SELECT array_agg(g::bigint) FROM generate_series(1, 49) g) AS whole_range,
       sample_ints(5, 5, 1) AS one, sample_ints(1, 10, 0) AS none,
       sample_ints(-9223372036854775808, -9223372036854775808, 1) AS bottom,
       (SELECT array_agg(x ORDER BY x) FROM unnest(sample_ints(9223372036854775806, 9223372036854775807, 2)) x) AS top;
-- A thousand out of a trillion, and the whole int8 range (2^64 values) without overflow.
SELECT count(*) AS n, count(DISTINCT x) AS distinct_values,
       bool_and(x BETWEEN 1 AND 1000000000000) AS in_range
  FROM unnest(sample_ints(1, 1000000000000, 1000)) x;
SELECT count(*) AS n, count(DISTINCT x) AS distinct_values,
       count(*) FILTER (WHERE x < 0) BETWEEN 45000 AND 55000 AS both_halves
  FROM unnest(sample_ints(-9223372036854775808, 9223372036854775807, 100000)) x;
-- Seeded: expected values from tests/reference/seeded_sample.py sample_ints LO HI K 000102...1f
SELECT sample_ints(1, 49, 6, :seed) AS lottery,
       sample_ints(1, 49, 6, :seed) = '{36,48,14,22,20,24}' AS matches_reference;
SELECT sample_ints(1, 1000000000000, 5, :seed) AS trillion,
       sample_ints(1, 1000000000000, 5, :seed) = '{668508567590,570875814253,798505707745,286298556362,414455762480}' AS matches_reference;
SELECT sample_ints(-9223372036854775808, 9223372036854775807, 5, :seed) AS whole_int8_range,
       sample_ints(-9223372036854775808, 9223372036854775807, 5, :seed)
         = '{3108434420605657896,1307428006561434800,5506458395325511048,-3942095838980620916,-1578012656518038215}' AS matches_reference;
SELECT sample_ints(-9223372036854775808, -9223372036854775804, 5, :seed) AS bottom,
       sample_ints(-9223372036854775808, -9223372036854775804, 5, :seed)
         = '{-9223372036854775804,-9223372036854775808,-9223372036854775805,-9223372036854775807,-9223372036854775806}' AS matches_reference,
       sample_ints(9223372036854775806, 9223372036854775807, 2, :seed) = '{9223372036854775807,9223372036854775806}' AS top_matches;
-- The sample is the tail of shuffle_ints with the same seed.
SELECT sample_ints(1, 54, 54, :seed) = shuffle_ints(1, 54, :seed)::bigint[] AS full_sample_is_shuffle,
       sample_ints(1, 54, 6, :seed) = (shuffle_ints(1, 54, :seed))[49:54]::bigint[] AS sample_is_shuffle_tail;

-- NULL in, NULL out.
SELECT shuffle_array(NULL::int[]) IS NULL AS null_array, shuffle_array(ARRAY[1], NULL) IS NULL AS null_seed,
       sample_array(ARRAY[1], NULL) IS NULL AS null_n, sample_array(NULL::text[], 1, :seed) IS NULL AS null_seeded,
       sample_ints(NULL, 1, 1) IS NULL AS null_lo, sample_ints(1, 2, 1, NULL) IS NULL AS null_int_seed;
-- How Postgres sees the functions.
SELECT p.oid::regprocedure AS function, p.provolatile AS volatility, p.proparallel AS parallel,
       p.proisstrict AS strict, pg_get_function_result(p.oid) AS result
  FROM pg_proc p WHERE p.proname IN ('shuffle_array', 'sample_array', 'sample_ints') ORDER BY p.oid::regprocedure::text;

-- Errors.
SELECT sample_array(ARRAY[1, 2, 3], 4);
\echo :LAST_ERROR_SQLSTATE
SELECT sample_array(ARRAY[1, 2, 3], -1);
\echo :LAST_ERROR_SQLSTATE
SELECT sample_array('{}'::int[], 1);
\echo :LAST_ERROR_SQLSTATE
SELECT sample_array('{{1,2},{3,4}}'::int[], 3);
\echo :LAST_ERROR_SQLSTATE
SELECT sample_array(ARRAY[1, 2, 3], 4, :seed);
\echo :LAST_ERROR_SQLSTATE
SELECT sample_array(ARRAY[1, 2, 3], 1, '\x00'::bytea);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_array(ARRAY[1, 2, 3], '\x00'::bytea);
\echo :LAST_ERROR_SQLSTATE
SELECT shuffle_array(ARRAY[1, 2, 3], decode(repeat('00', 33), 'hex'));
\echo :LAST_ERROR_SQLSTATE
SELECT sample_ints(10, 1, 1);
\echo :LAST_ERROR_SQLSTATE
SELECT sample_ints(1, 10, 11);
\echo :LAST_ERROR_SQLSTATE
SELECT sample_ints(1, 10, -1);
\echo :LAST_ERROR_SQLSTATE
SELECT sample_ints(10, 1, 1, :seed);
\echo :LAST_ERROR_SQLSTATE
SELECT sample_ints(1, 10, 11, :seed);
\echo :LAST_ERROR_SQLSTATE
SELECT sample_ints(1, 10, 1, decode(repeat('00', 31), 'hex'));
\echo :LAST_ERROR_SQLSTATE
-- Larger than one array can hold: refused before anything is allocated.
SELECT sample_ints(-9223372036854775808, 9223372036854775807, 2147483647);
\echo :LAST_ERROR_SQLSTATE
SELECT sample_ints(1, 1099511627776, 134217725);
\echo :LAST_ERROR_SQLSTATE
SELECT sample_ints(1, 1099511627776, 134217725, :seed);
\echo :LAST_ERROR_SQLSTATE
-- Not an array.
SELECT shuffle_array(5);
\echo :LAST_ERROR_SQLSTATE

-- Long shuffles and samples honour statement_timeout.
SET statement_timeout = '50ms';
SELECT array_length(shuffle_array(array_fill(7, ARRAY[20000000])), 1);
\echo :LAST_ERROR_SQLSTATE
SELECT array_length(sample_ints(1, 4611686018427387904, 10000000), 1);
\echo :LAST_ERROR_SQLSTATE
RESET statement_timeout;
