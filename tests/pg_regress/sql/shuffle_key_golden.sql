-- shuffle_key(seed, key) of every key type it accepts, against golden values of the independent
-- reference (tests/reference/seeded_rows.py shuffle_key, from docs/rows.md's specification):
-- smallint and integer keys as bigint, varchar, name and char(n) keys as text (char(n) without
-- its trailing spaces), domains as their base types. shuffle_key.sql pins bigint and text.
\set seed 'decode(''000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f'', ''hex'')'
\set ff 'decode(repeat(''ff'', 32), ''hex'')'

-- Printed by
--   tests/reference/seeded_rows.py shuffle_key 000102...1f int2 1 0 -1 42 -32768 32767
--   tests/reference/seeded_rows.py shuffle_key 000102...1f int4 1 0 -1 42 -2147483648 2147483647
--   tests/reference/seeded_rows.py shuffle_key ff...ff int4 1 42
SELECT array_agg(shuffle_key(:seed, k) ORDER BY n) AS int2_keys,
       array_agg(shuffle_key(:seed, k) ORDER BY n)
         = '{-3812923498326249669,-4555117311458665677,-1190283601572631342,-4246953690035498333,201792496384399941,8627678922002923023}'
         AS matches_reference
  FROM unnest(ARRAY[1, 0, -1, 42, -32768, 32767]::smallint[]) WITH ORDINALITY u(k, n);
SELECT array_agg(shuffle_key(:seed, k) ORDER BY n) AS int4_keys,
       array_agg(shuffle_key(:seed, k) ORDER BY n)
         = '{-3812923498326249669,-4555117311458665677,-1190283601572631342,-4246953690035498333,-388456459839265505,-4093251253827353504}'
         AS matches_reference
  FROM unnest(ARRAY[1, 0, -1, 42, -2147483648, 2147483647]::integer[]) WITH ORDINALITY u(k, n);
SELECT array_agg(shuffle_key(:ff, k) ORDER BY n) AS int4_keys_ff,
       array_agg(shuffle_key(:ff, k) ORDER BY n) = '{-2257866720827457343,-2576090700784442960}'
         AS matches_reference
  FROM unnest(ARRAY[1, 42]::integer[]) WITH ORDINALITY u(k, n);

-- Printed by
--   tests/reference/seeded_rows.py shuffle_key 000102...1f varchar ace '' Zoë 'a b '
--   tests/reference/seeded_rows.py shuffle_key 000102...1f bpchar 'ace ' '    ' 'Zoë ' 'a   '
--   tests/reference/seeded_rows.py shuffle_key 000102...1f name ace pg_class Zoë
--   tests/reference/seeded_rows.py shuffle_key ff...ff bpchar 'ace '
SELECT array_agg(shuffle_key(:seed, k) ORDER BY n) AS varchar_keys,
       array_agg(shuffle_key(:seed, k) ORDER BY n)
         = '{-5894646678025663226,2701210225541298157,2917913240492061191,3530886106460069435}'
         AS matches_reference
  FROM unnest(ARRAY['ace', '', 'Zoë', 'a b ']::varchar[]) WITH ORDINALITY u(k, n);
SELECT array_agg(shuffle_key(:seed, k) ORDER BY n) AS char4_keys,
       array_agg(shuffle_key(:seed, k) ORDER BY n)
         = '{-5894646678025663226,2701210225541298157,2917913240492061191,-6572388880853508844}'
         AS matches_reference
  FROM unnest(ARRAY['ace', '', 'Zoë', 'a']::char(4)[]) WITH ORDINALITY u(k, n);
SELECT array_agg(shuffle_key(:seed, k) ORDER BY n) AS name_keys,
       array_agg(shuffle_key(:seed, k) ORDER BY n)
         = '{-5894646678025663226,-2254409056687192033,2917913240492061191}'
         AS matches_reference
  FROM unnest(ARRAY['ace', 'pg_class', 'Zoë']::name[]) WITH ORDINALITY u(k, n);
SELECT shuffle_key(:ff, 'ace'::char(4)) AS char4_key_ff,
       shuffle_key(:ff, 'ace'::char(4)) = -4145141241696049694 AS matches_reference;

-- Domains are keys of their base types.
CREATE DOMAIN golden_code AS varchar(8);
CREATE DOMAIN golden_small AS smallint;
SELECT shuffle_key(:seed, 'Zoë'::golden_code) = 2917913240492061191 AS text_domain,
       shuffle_key(:seed, 42::golden_small) = -4246953690035498333 AS smallint_domain;
DROP DOMAIN golden_code;
DROP DOMAIN golden_small;
