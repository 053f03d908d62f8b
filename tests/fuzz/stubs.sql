-- Turns a copy of the fuzzing database into one where every function and aggregate of dealcards
-- is a stub: same name, arguments, result type, volatility and strictness, but it runs none of
-- the extension's code and returns a constant of its result type. scripts/fuzz.sh replays each
-- statement that raised an internal error (XX000) here: an error that is raised again without
-- the extension's code is PostgreSQL's own, one that goes away was raised inside the extension.
-- Run as a superuser, in the copy only.
SET client_min_messages = warning;
CREATE SCHEMA dealcards_stub;
DO $stubs$
DECLARE
  f record;
  outs boolean;
  result text;
  body text;
  traits text;
  sfunc text;
  initcond text;
  io text;
  io_typlen int2;
BEGIN
  FOR f IN
    SELECT p.oid, p.oid::regprocedure AS signature, p.prokind, p.proretset, p.prorettype,
           p.proisstrict, p.provolatile, p.proparallel, p.proargtypes::oid[] AS argtypes,
           p.proallargtypes, p.proargmodes, pg_catalog.pg_get_function_arguments(p.oid) AS arguments,
           pg_catalog.pg_get_function_result(p.oid) AS returns,
           pg_catalog.format('%I.%I', n.nspname, p.proname) AS name
      FROM pg_catalog.pg_proc p
      JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
      JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_proc'::regclass
       AND d.objid = p.oid AND d.deptype = 'e'
      JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid AND e.extname = 'dealcards'
     ORDER BY p.oid
  LOOP
    -- A constant of a type: an empty array, zero, an empty string or bytea, false, an empty
    -- JSON object; NULL where no such constant fits (and for polymorphic types, which a body
    -- cannot name).
    initcond := CASE
      WHEN f.prorettype IN ('anyarray'::regtype, 'anycompatiblearray'::regtype) THEN '{}'
      WHEN f.prorettype IN ('json'::regtype, 'jsonb'::regtype) THEN '{}'
      WHEN f.prorettype = 'bytea'::regtype THEN '\x'
      ELSE (SELECT CASE t.typcategory WHEN 'A' THEN '{}' WHEN 'N' THEN '0' WHEN 'S' THEN ''
                                      WHEN 'B' THEN 'false' END
              FROM pg_catalog.pg_type t WHERE t.oid = f.prorettype AND t.typtype <> 'p')
    END;
    traits := CASE f.provolatile WHEN 'i' THEN ' IMMUTABLE' WHEN 's' THEN ' STABLE' ELSE ' VOLATILE' END
      || CASE WHEN f.proisstrict THEN ' STRICT' ELSE '' END
      || CASE f.proparallel WHEN 's' THEN ' PARALLEL SAFE' WHEN 'r' THEN ' PARALLEL RESTRICTED' ELSE '' END;
    IF f.prokind = 'a' THEN
      -- An aggregate: its state is its result, which the stub's step returns unchanged.
      sfunc := pg_catalog.format('dealcards_stub.step_%s', f.oid);
      EXECUTE pg_catalog.format(
        'CREATE FUNCTION %s(%s) RETURNS %s LANGUAGE plpgsql%s AS %L',
        sfunc,
        (SELECT pg_catalog.string_agg(t::regtype::text, ', ' ORDER BY i)
           FROM unnest(f.prorettype || f.argtypes) WITH ORDINALITY AS a(t, i)),
        f.prorettype::regtype,
        CASE f.proparallel WHEN 's' THEN ' PARALLEL SAFE' ELSE '' END,
        'BEGIN RETURN $1; END');
      EXECUTE pg_catalog.format(
        'CREATE OR REPLACE AGGREGATE %s(%s) (SFUNC = %s, STYPE = %s%s)',
        f.name, f.arguments, sfunc, f.prorettype::regtype,
        CASE WHEN initcond IS NULL THEN '' ELSE pg_catalog.format(', INITCOND = %L', initcond) END);
      CONTINUE;
    END IF;
    -- A type's I/O function: bytea's, which reads and writes any variable-length value as its
    -- bytes (in hex), so that the type's values still go in and out (a cast of text to the type
    -- runs its input function, a statement calling no function of the extension).
    SELECT CASE f.oid WHEN t.typinput THEN 'byteain' WHEN t.typoutput THEN 'byteaout'
                      WHEN t.typreceive THEN 'bytearecv' WHEN t.typsend THEN 'byteasend' END, t.typlen
      INTO io, io_typlen
      FROM pg_catalog.pg_type t
     WHERE f.oid IN (t.typinput, t.typoutput, t.typreceive, t.typsend, t.typmodin, t.typmodout,
                     t.typanalyze, t.typsubscript);
    IF FOUND THEN
      IF io IS NULL OR io_typlen <> -1 THEN
        RAISE EXCEPTION 'tests/fuzz/stubs.sql has no stand-in for %, a support function of a type', f.signature;
      END IF;
      EXECUTE pg_catalog.format(
        'CREATE OR REPLACE FUNCTION %s(%s) RETURNS %s LANGUAGE internal%s AS %L',
        f.name, f.arguments, f.returns, traits, io);
      CONTINUE;
    END IF;
    IF f.prorettype = 'tsm_handler'::regtype THEN
      -- A sampling method: PostgreSQL's own BERNOULLI instead.
      EXECUTE pg_catalog.format(
        'CREATE OR REPLACE FUNCTION %s(%s) RETURNS tsm_handler LANGUAGE internal%s AS %L',
        f.name, f.arguments, traits, 'tsm_bernoulli_handler');
      CONTINUE;
    END IF;
    -- Functions of internal, cstring, trigger or event-trigger types are only called by
    -- PostgreSQL on the extension's behalf (aggregate support, the table guard), not by a
    -- statement: left as they are (the check below sees that no statement reaches them).
    IF f.prorettype IN ('internal'::regtype, 'cstring'::regtype, 'trigger'::regtype,
                        'event_trigger'::regtype)
       OR f.argtypes && ARRAY['internal'::regtype, 'cstring'::regtype]::oid[]
       OR f.prokind NOT IN ('f', 'p') THEN
      CONTINUE;
    END IF;
    outs := f.proallargtypes IS NOT NULL;
    -- A polymorphic result: the first argument of its type (a shuffle's input is a fine stand-in
    -- for its result), else NULL.
    result := CASE
      WHEN (SELECT t.typtype = 'p' FROM pg_catalog.pg_type t WHERE t.oid = f.prorettype) THEN
        COALESCE('$' || pg_catalog.array_position(f.argtypes, f.prorettype), 'NULL')
      WHEN initcond IS NOT NULL THEN pg_catalog.format('%L::%s', initcond, f.prorettype::regtype)
      ELSE 'NULL'
    END;
    body := CASE
      WHEN f.prokind = 'p' OR f.prorettype = 'void'::regtype THEN 'BEGIN RETURN; END'
      WHEN f.proretset THEN pg_catalog.format('BEGIN RETURN NEXT %s; END', result)
      ELSE pg_catalog.format('BEGIN RETURN %s; END', result)
    END;
    IF outs AND f.prokind = 'f' THEN
      -- Output columns (RETURNS TABLE, OUT arguments): one row of NULLs, in SQL, where the
      -- columns may share the arguments' names.
      EXECUTE pg_catalog.format('CREATE OR REPLACE FUNCTION %s(%s) RETURNS %s LANGUAGE sql%s AS %L',
        f.name, f.arguments, f.returns, traits,
        'SELECT ' || (SELECT pg_catalog.string_agg(pg_catalog.format('NULL::%s', t::regtype), ', ' ORDER BY i)
                        FROM unnest(f.proallargtypes, f.proargmodes) WITH ORDINALITY AS a(t, m, i)
                       WHERE m IN ('o', 't', 'b')));
    ELSIF f.prokind = 'p' THEN
      EXECUTE pg_catalog.format('CREATE OR REPLACE PROCEDURE %s(%s) LANGUAGE plpgsql AS %L',
                                f.name, f.arguments, body);
    ELSE
      EXECUTE pg_catalog.format('CREATE OR REPLACE FUNCTION %s(%s) RETURNS %s LANGUAGE plpgsql%s AS %L',
                                f.name, f.arguments, f.returns, traits, body);
    END IF;
  END LOOP;
END
$stubs$;
-- No function a statement can call runs the extension's library any more: only those taking
-- internal, which a statement cannot pass, and those PL/pgSQL guards that only PostgreSQL calls
-- (trigger and event trigger functions) are left.
DO $check$
DECLARE
  real text;
BEGIN
  SELECT pg_catalog.string_agg(p.oid::regprocedure::text, ', ') INTO real
    FROM pg_catalog.pg_proc p
    JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
    JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid AND e.extname = 'dealcards'
    JOIN pg_catalog.pg_language l ON l.oid = p.prolang
   WHERE l.lanname = 'c' AND NOT p.proargtypes::oid[] && ARRAY['internal'::regtype]::oid[];
  IF real IS NOT NULL THEN
    RAISE EXCEPTION 'the stub database still runs the extension''s code in %', real;
  END IF;
END
$check$;
GRANT USAGE ON SCHEMA dealcards_stub TO PUBLIC;
