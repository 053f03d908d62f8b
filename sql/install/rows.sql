-- Aggregates that sample and shuffle rows (docs/rows.md). Their support functions are C
-- functions of the library (src/rows.rs); every aggregate is PARALLEL SAFE with combine,
-- serialize and deserialize functions, so PostgreSQL can run it as a Partial Aggregate in
-- parallel workers (and Citus on its workers), merging the partial states exactly.

CREATE FUNCTION sample_agg_step(internal, anyelement, integer) RETURNS internal
    VOLATILE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_sample_agg_step';
CREATE FUNCTION sample_agg_step(internal, anyelement, integer, double precision) RETURNS internal
    VOLATILE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_weighted_sample_agg_step';
CREATE FUNCTION resample_agg_step(internal, anyelement, integer) RETURNS internal
    VOLATILE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_resample_agg_step';
CREATE FUNCTION resample_agg_step(internal, anyelement, integer, double precision) RETURNS internal
    VOLATILE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_weighted_resample_agg_step';
CREATE FUNCTION shuffle_agg_step(internal, anyelement) RETURNS internal
    VOLATILE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_shuffle_agg_step';
CREATE FUNCTION sample_agg_seeded_step(internal, anyelement, integer, bytea) RETURNS internal
    IMMUTABLE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_seeded_sample_agg_step';
CREATE FUNCTION shuffle_agg_seeded_step(internal, anyelement, bytea) RETURNS internal
    IMMUTABLE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_seeded_shuffle_agg_step';

-- One final function for all (the extra arguments only carry the result's type).
CREATE FUNCTION rows_agg_final(internal, anyelement) RETURNS anyarray
    VOLATILE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_rows_agg_final';
CREATE FUNCTION rows_agg_final(internal, anyelement, integer) RETURNS anyarray
    VOLATILE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_rows_agg_final';
CREATE FUNCTION rows_agg_final(internal, anyelement, integer, double precision) RETURNS anyarray
    VOLATILE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_rows_agg_final';
CREATE FUNCTION rows_agg_final(internal, anyelement, integer, bytea) RETURNS anyarray
    VOLATILE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_rows_agg_final';
CREATE FUNCTION rows_agg_final(internal, anyelement, bytea) RETURNS anyarray
    VOLATILE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_rows_agg_final';
CREATE FUNCTION rows_agg_combine(internal, internal) RETURNS internal
    VOLATILE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_rows_agg_combine';
CREATE FUNCTION rows_agg_serialize(internal) RETURNS bytea
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_rows_agg_serialize';
CREATE FUNCTION rows_agg_deserialize(bytea, internal) RETURNS internal
    VOLATILE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_rows_agg_deserialize';

CREATE AGGREGATE sample_agg(value anyelement, k integer) (
    SFUNC = sample_agg_step, STYPE = internal,
    FINALFUNC = rows_agg_final, FINALFUNC_EXTRA, FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = rows_agg_combine, SERIALFUNC = rows_agg_serialize,
    DESERIALFUNC = rows_agg_deserialize, PARALLEL = SAFE);
CREATE AGGREGATE sample_agg(value anyelement, k integer, weight double precision) (
    SFUNC = sample_agg_step, STYPE = internal,
    FINALFUNC = rows_agg_final, FINALFUNC_EXTRA, FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = rows_agg_combine, SERIALFUNC = rows_agg_serialize,
    DESERIALFUNC = rows_agg_deserialize, PARALLEL = SAFE);
CREATE AGGREGATE resample_agg(value anyelement, k integer) (
    SFUNC = resample_agg_step, STYPE = internal,
    FINALFUNC = rows_agg_final, FINALFUNC_EXTRA, FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = rows_agg_combine, SERIALFUNC = rows_agg_serialize,
    DESERIALFUNC = rows_agg_deserialize, PARALLEL = SAFE);
CREATE AGGREGATE resample_agg(value anyelement, k integer, weight double precision) (
    SFUNC = resample_agg_step, STYPE = internal,
    FINALFUNC = rows_agg_final, FINALFUNC_EXTRA, FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = rows_agg_combine, SERIALFUNC = rows_agg_serialize,
    DESERIALFUNC = rows_agg_deserialize, PARALLEL = SAFE);
CREATE AGGREGATE shuffle_agg(value anyelement) (
    SFUNC = shuffle_agg_step, STYPE = internal,
    FINALFUNC = rows_agg_final, FINALFUNC_EXTRA, FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = rows_agg_combine, SERIALFUNC = rows_agg_serialize,
    DESERIALFUNC = rows_agg_deserialize, PARALLEL = SAFE);
CREATE AGGREGATE sample_agg_seeded(value anyelement, k integer, seed bytea) (
    SFUNC = sample_agg_seeded_step, STYPE = internal,
    FINALFUNC = rows_agg_final, FINALFUNC_EXTRA, FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = rows_agg_combine, SERIALFUNC = rows_agg_serialize,
    DESERIALFUNC = rows_agg_deserialize, PARALLEL = SAFE);
CREATE AGGREGATE shuffle_agg_seeded(value anyelement, seed bytea) (
    SFUNC = shuffle_agg_seeded_step, STYPE = internal,
    FINALFUNC = rows_agg_final, FINALFUNC_EXTRA, FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = rows_agg_combine, SERIALFUNC = rows_agg_serialize,
    DESERIALFUNC = rows_agg_deserialize, PARALLEL = SAFE);

-- The typed forms (src/rows/state_type.rs): for smallint, integer, bigint, text and uuid values
-- every aggregate also exists with a concrete signature and the state type rows_agg_state, a real
-- type where the polymorphic forms have internal. Citus runs these on its workers (one partial
-- state per shard goes to the coordinator); it does so for no aggregate whose state is a
-- pseudo-type or whose argument or final types are polymorphic. PostgreSQL picks the typed form
-- for values of these types, the polymorphic one for the others.
CREATE TYPE rows_agg_state;
CREATE FUNCTION rows_agg_state_in(cstring) RETURNS rows_agg_state
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_rows_agg_state_in';
CREATE FUNCTION rows_agg_state_out(rows_agg_state) RETURNS cstring
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_rows_agg_state_out';
CREATE FUNCTION rows_agg_state_recv(internal) RETURNS rows_agg_state
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_rows_agg_state_recv';
CREATE FUNCTION rows_agg_state_send(rows_agg_state) RETURNS bytea
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_rows_agg_state_send';
CREATE TYPE rows_agg_state (
    INPUT = rows_agg_state_in, OUTPUT = rows_agg_state_out,
    RECEIVE = rows_agg_state_recv, SEND = rows_agg_state_send,
    INTERNALLENGTH = VARIABLE, STORAGE = extended);

CREATE FUNCTION sample_agg_step(rows_agg_state, anyelement, integer) RETURNS rows_agg_state
    VOLATILE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_typed_sample_agg_step';
CREATE FUNCTION sample_agg_step(rows_agg_state, anyelement, integer, double precision) RETURNS rows_agg_state
    VOLATILE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_typed_weighted_sample_agg_step';
CREATE FUNCTION resample_agg_step(rows_agg_state, anyelement, integer) RETURNS rows_agg_state
    VOLATILE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_typed_resample_agg_step';
CREATE FUNCTION resample_agg_step(rows_agg_state, anyelement, integer, double precision) RETURNS rows_agg_state
    VOLATILE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_typed_weighted_resample_agg_step';
CREATE FUNCTION shuffle_agg_step(rows_agg_state, anyelement) RETURNS rows_agg_state
    VOLATILE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_typed_shuffle_agg_step';
CREATE FUNCTION sample_agg_seeded_step(rows_agg_state, anyelement, integer, bytea) RETURNS rows_agg_state
    IMMUTABLE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_typed_seeded_sample_agg_step';
CREATE FUNCTION shuffle_agg_seeded_step(rows_agg_state, anyelement, bytea) RETURNS rows_agg_state
    IMMUTABLE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_typed_seeded_shuffle_agg_step';
CREATE FUNCTION rows_agg_combine(rows_agg_state, rows_agg_state) RETURNS rows_agg_state
    VOLATILE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_typed_rows_agg_combine';
-- One final function per type: Citus wants the final function's declared result to be the
-- aggregate's.
CREATE FUNCTION rows_agg_final_int2(rows_agg_state) RETURNS smallint[]
    VOLATILE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_rows_agg_final_int2';
CREATE FUNCTION rows_agg_final_int4(rows_agg_state) RETURNS integer[]
    VOLATILE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_rows_agg_final_int4';
CREATE FUNCTION rows_agg_final_int8(rows_agg_state) RETURNS bigint[]
    VOLATILE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_rows_agg_final_int8';
CREATE FUNCTION rows_agg_final_text(rows_agg_state) RETURNS text[]
    VOLATILE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_rows_agg_final_text';
CREATE FUNCTION rows_agg_final_uuid(rows_agg_state) RETURNS uuid[]
    VOLATILE PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'dealcards_rows_agg_final_uuid';

-- The seven aggregates for each of the five types.
DO $$
DECLARE
    value_type text;
BEGIN
    FOREACH value_type IN ARRAY ARRAY['smallint', 'integer', 'bigint', 'text', 'uuid'] LOOP
        EXECUTE format($sql$
            CREATE AGGREGATE sample_agg(value %1$s, k integer) (
                SFUNC = sample_agg_step, STYPE = rows_agg_state, FINALFUNC = %2$I,
                FINALFUNC_MODIFY = READ_ONLY, COMBINEFUNC = rows_agg_combine, PARALLEL = SAFE);
            CREATE AGGREGATE sample_agg(value %1$s, k integer, weight double precision) (
                SFUNC = sample_agg_step, STYPE = rows_agg_state, FINALFUNC = %2$I,
                FINALFUNC_MODIFY = READ_ONLY, COMBINEFUNC = rows_agg_combine, PARALLEL = SAFE);
            CREATE AGGREGATE resample_agg(value %1$s, k integer) (
                SFUNC = resample_agg_step, STYPE = rows_agg_state, FINALFUNC = %2$I,
                FINALFUNC_MODIFY = READ_ONLY, COMBINEFUNC = rows_agg_combine, PARALLEL = SAFE);
            CREATE AGGREGATE resample_agg(value %1$s, k integer, weight double precision) (
                SFUNC = resample_agg_step, STYPE = rows_agg_state, FINALFUNC = %2$I,
                FINALFUNC_MODIFY = READ_ONLY, COMBINEFUNC = rows_agg_combine, PARALLEL = SAFE);
            CREATE AGGREGATE shuffle_agg(value %1$s) (
                SFUNC = shuffle_agg_step, STYPE = rows_agg_state, FINALFUNC = %2$I,
                FINALFUNC_MODIFY = READ_ONLY, COMBINEFUNC = rows_agg_combine, PARALLEL = SAFE);
            CREATE AGGREGATE sample_agg_seeded(value %1$s, k integer, seed bytea) (
                SFUNC = sample_agg_seeded_step, STYPE = rows_agg_state, FINALFUNC = %2$I,
                FINALFUNC_MODIFY = READ_ONLY, COMBINEFUNC = rows_agg_combine, PARALLEL = SAFE);
            CREATE AGGREGATE shuffle_agg_seeded(value %1$s, seed bytea) (
                SFUNC = shuffle_agg_seeded_step, STYPE = rows_agg_state, FINALFUNC = %2$I,
                FINALFUNC_MODIFY = READ_ONLY, COMBINEFUNC = rows_agg_combine, PARALLEL = SAFE);
            $sql$,
            value_type,
            'rows_agg_final_' || CASE value_type WHEN 'smallint' THEN 'int2' WHEN 'integer' THEN 'int4'
                                                 WHEN 'bigint' THEN 'int8' ELSE value_type END);
    END LOOP;
END
$$;
