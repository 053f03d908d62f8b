-- Shuffle any array: a new fair order on every call. Sub-arrays move whole, lower bounds and
-- NULLs stay.
SELECT shuffle_array(ARRAY['ace', 'king', 'queen', 'jack', 'ten']);
SELECT shuffle_array('[0:3]={north,east,south,NULL}'::text[]);
SELECT shuffle_array('{{1,2,3},{4,5,6},{7,8,9}}'::int[]);
SELECT shuffle_array(ARRAY['{"id": 1}', '{"id": 2}', '[3]']::jsonb[]);
-- n items without replacement, in random order; the result starts at 1.
SELECT sample_array('[0:4]={ace,king,queen,jack,ten}'::text[], 2);
-- k distinct integers out of a range, at a cost that depends on k, not on the range:
-- a lottery draw, and a thousand ids out of a trillion.
SELECT sample_ints(1, 49, 6);
SELECT count(DISTINCT id) AS distinct_ids, min(id) >= 1 AND max(id) <= 1000000000000 AS in_range
  FROM unnest(sample_ints(1, 1000000000000, 1000)) id;
-- Replayable: with a 32-byte seed, the same result everywhere, forever. A seeded sample is the
-- tail of the seeded shuffle.
SELECT shuffle_array(ARRAY['ace', 'king', 'queen', 'jack', 'ten'],
                     decode('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', 'hex'));
SELECT sample_array(ARRAY['ace', 'king', 'queen', 'jack', 'ten'], 2,
                    decode('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', 'hex'));
SELECT sample_ints(1, 49, 6, decode('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', 'hex'));
SELECT sample_ints(-9223372036854775808, 9223372036854775807, 3, decode(repeat('00', 32), 'hex'));
