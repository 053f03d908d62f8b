-- Statements that once failed the fuzzing pass (scripts/fuzz.sh) without a fault of the
-- extension: each raises an internal error (XX000) of PostgreSQL's own in a statement that also
-- calls the extension, and the pass must forgive it. One statement a line group, each starting
-- with SELECT.

-- pg_catalog.interval(interval, int4) with a typmod that no interval type declares raises
-- "unrecognized interval typmod" in AdjustIntervalForTypmod, on every server (no extension
-- needed); here beside one of the extension's aggregates.
SELECT public.shuffle_agg_seeded(g, decode(repeat('00', 32), 'hex')) FROM generate_series(1, 3) g
 WHERE pg_catalog.interval(CAST('1 day' AS "interval"), CAST(1 AS int4)) <> '1 day'::interval;
