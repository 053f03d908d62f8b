-- dealcards 0.4.0 -> 0.5.0 (ALTER EXTENSION dealcards UPDATE TO '0.5.0').
--
-- Each section below adds what one part of 0.5.0 adds to a fresh install; tests/upgrade.rs
-- compares a database updated through this script with a fresh install, object for object.
\echo Use "ALTER EXTENSION dealcards UPDATE TO '0.5.0'" to load this file. \quit

-- ---------------------------------------------------------------------------------------------
-- shuffle_spread: an array in random order with no two neighbours of one group when that can be
-- avoided (docs/spread.md), on one level (artists) or two (artists, then albums). Four
-- functions, no tables.
-- ---------------------------------------------------------------------------------------------

CREATE  FUNCTION "shuffle_spread"(
	"items" anyarray, /* AnyArray */
	"groups" anycompatiblearray /* AnyCompatibleArray */
) RETURNS anyarray /* AnyArray */
STRICT VOLATILE PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'shuffle_spread_wrapper';

CREATE  FUNCTION "shuffle_spread"(
	"items" anyarray, /* AnyArray */
	"groups" anycompatiblearray, /* AnyCompatibleArray */
	"seed" bytea /* & [u8] */
) RETURNS anyarray /* AnyArray */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'shuffle_spread_seeded_wrapper';

CREATE  FUNCTION "shuffle_spread"(
	"items" anyarray, /* AnyArray */
	"groups" anycompatiblearray, /* AnyCompatibleArray */
	"subgroups" anycompatiblearray /* AnyCompatibleArray */
) RETURNS anyarray /* AnyArray */
STRICT VOLATILE PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'shuffle_spread_nested_wrapper';

CREATE  FUNCTION "shuffle_spread"(
	"items" anyarray, /* AnyArray */
	"groups" anycompatiblearray, /* AnyCompatibleArray */
	"subgroups" anycompatiblearray, /* AnyCompatibleArray */
	"seed" bytea /* & [u8] */
) RETURNS anyarray /* AnyArray */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'shuffle_spread_nested_seeded_wrapper';

-- ---------------------------------------------------------------------------------------------
-- Row samples and shuffles: sample_agg, shuffle_agg, resample_agg, sample_agg_seeded,
-- shuffle_agg_seeded (docs/rows.md). The same statements as sql/install/rows.sql.
-- ---------------------------------------------------------------------------------------------

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

-- ---------------------------------------------------------------------------------------------
-- Provably fair deals that hold against the house (docs/provably_fair.md): a revealed seed is
-- shown only once its reveal has committed, and no reveal returns it; each round has its rules
-- (protocol 2 chains the players; house seats; client seeds required); a seat's client seed
-- names the round it answers and is set once per seating and round. Rounds in progress keep
-- dealing: they are protocol 1 rounds with no house seats and no seeds required, and their
-- players' seeds answer them.
-- ---------------------------------------------------------------------------------------------

CREATE  FUNCTION "dealcards_written_here"(
	"xmin" xid /* pg_sys :: TransactionId */
) RETURNS bool /* bool */
STRICT STABLE PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'dealcards_written_here_wrapper';

-- On a Citus cluster the coordinator's changes reach every node's tables, and each worker then
-- runs this script too: there, what is done already is skipped, and the seeds are given their
-- rounds by the coordinator alone. One change per statement of a DO block, as Citus applies
-- them to the shards.
DO $$
DECLARE
    worker boolean := false;
BEGIN
    IF to_regproc('pg_catalog.citus_is_coordinator') IS NOT NULL THEN
        EXECUTE 'SELECT NOT pg_catalog.citus_is_coordinator()' INTO worker;
    END IF;
    ALTER TABLE @extschema@.fair_seed ADD COLUMN IF NOT EXISTS protocol smallint NOT NULL DEFAULT 1;
    ALTER TABLE @extschema@.fair_seed ALTER COLUMN protocol DROP DEFAULT;
    ALTER TABLE @extschema@.fair_seed
        ADD COLUMN IF NOT EXISTS house_seats smallint[] NOT NULL DEFAULT '{}';
    ALTER TABLE @extschema@.fair_seed ALTER COLUMN house_seats DROP DEFAULT;
    ALTER TABLE @extschema@.fair_seed
        ADD COLUMN IF NOT EXISTS seeds_required boolean NOT NULL DEFAULT false;
    ALTER TABLE @extschema@.fair_seed ALTER COLUMN seeds_required DROP DEFAULT;
    ALTER TABLE @extschema@.desk_player ADD COLUMN IF NOT EXISTS seed_round int;
    IF NOT worker THEN
        -- A seat's seed answers the round in force at its desk, if it has one (elsewhere it
        -- stays, answering none: a seed now answers one round's commitment).
        UPDATE @extschema@.desk_player p SET seed_round = d.fair_round
          FROM @extschema@.desk d
         WHERE d.desk_id = p.desk_id AND d.fair_round IS NOT NULL AND p.client_seed <> '';
    END IF;
END
$$;

-- The seed of a round, to the transaction that reveals it, only once that transaction has
-- committed; the round's rules after it.
CREATE OR REPLACE VIEW @extschema@.fair_commitment WITH (security_barrier) AS
SELECT desk_id,
       round,
       commitment,
       CASE WHEN revealed_at IS NOT NULL AND NOT @extschema@.dealcards_written_here(xmin)
            THEN server_seed END AS server_seed,
       committed_at,
       revealed_at,
       protocol,
       house_seats,
       seeds_required
  FROM @extschema@.fair_seed;

-- The functions whose arguments or results change: a round's rules when it is committed, and
-- reveals that return the round, not its seed.
DROP FUNCTION @extschema@.fair_mode_on(integer);
DROP FUNCTION @extschema@.fair_mode_off(integer);
DROP FUNCTION @extschema@.fair_reveal(integer);
CREATE  FUNCTION "fair_mode_on"(
	"desk_id" INT, /* i32 */
	"house_seats" INT[] DEFAULT '{}', /* Vec < Option < i32 > > */
	"seeds_required" bool DEFAULT true /* bool */
) RETURNS bytea /* Vec < u8 > */
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'fair_mode_on_v2_wrapper';
CREATE  FUNCTION "fair_mode_off"(
	"desk_id" INT /* i32 */
) RETURNS TABLE (
	"round" INT,  /* i32 */
	"commitment" bytea  /* Vec < u8 > */
)
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'fair_mode_off_v2_wrapper';
CREATE  FUNCTION "fair_reveal"(
	"desk_id" INT, /* Option < i32 > */
	"house_seats" INT[] DEFAULT NULL, /* :: std :: option :: Option < Vec < Option < i32 > > > */
	"seeds_required" bool DEFAULT NULL /* Option < bool > */
) RETURNS TABLE (
	"round" INT,  /* i32 */
	"commitment" bytea,  /* Vec < u8 > */
	"next_commitment" bytea  /* Vec < u8 > */
)
VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'fair_reveal_v2_wrapper';



-- What the house publishes of a desk.
CREATE  FUNCTION "fair_publication"(
	"desk_id" INT /* i32 */
) RETURNS jsonb /* pgrx::datum::json::JsonB */
STRICT STABLE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'fair_publication_wrapper';

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

-- ---------------------------------------------------------------------------------------------
-- Shuffle queues (docs/playlist.md): queues spread by group (mode 'spread'), with their units
-- and tracks in tables of their own. Existing queues keep every row and value: the new columns
-- of shuffle_queue are NULL on them. The changes are statements of DO blocks, each skipped when
-- done, as in sql/dealcards--0.3.0--0.4.0.sql, so that on a Citus cluster the coordinator's
-- changes reach the shards and a worker's own run of this script skips them.
-- ---------------------------------------------------------------------------------------------

DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_constraint
                    WHERE conrelid = '@extschema@.shuffle_queue'::pg_catalog.regclass
                      AND conname = 'shuffle_queue_mode_check'
                      AND pg_catalog.pg_get_constraintdef(oid) LIKE '%spread%') THEN
        ALTER TABLE @extschema@.shuffle_queue DROP CONSTRAINT shuffle_queue_mode_check;
        ALTER TABLE @extschema@.shuffle_queue
            ADD CONSTRAINT shuffle_queue_mode_check CHECK (mode IN ('shuffle', 'random', 'spread'));
    END IF;
    ALTER TABLE @extschema@.shuffle_queue
        ADD COLUMN IF NOT EXISTS levels smallint CONSTRAINT shuffle_queue_levels_check CHECK (levels IN (1, 2));
    ALTER TABLE @extschema@.shuffle_queue ADD COLUMN IF NOT EXISTS pass bigint;
    ALTER TABLE @extschema@.shuffle_queue
        ADD COLUMN IF NOT EXISTS pass_left bigint CONSTRAINT shuffle_queue_pass_left_check CHECK (pass_left >= 1);
    ALTER TABLE @extschema@.shuffle_queue ADD COLUMN IF NOT EXISTS last_group bigint;
    ALTER TABLE @extschema@.shuffle_queue ADD COLUMN IF NOT EXISTS next_unit bigint;
    ALTER TABLE @extschema@.shuffle_queue ADD COLUMN IF NOT EXISTS ahead_target bigint[];
    ALTER TABLE @extschema@.shuffle_queue ADD COLUMN IF NOT EXISTS ahead_left bigint[];
    ALTER TABLE @extschema@.shuffle_queue
        ADD COLUMN IF NOT EXISTS up_next integer CONSTRAINT shuffle_queue_up_next_check CHECK (up_next >= 1);
    ALTER TABLE @extschema@.shuffle_queue
        ADD COLUMN IF NOT EXISTS seed bytea CONSTRAINT shuffle_queue_seed_check CHECK (octet_length(seed) = 32);
    ALTER TABLE @extschema@.shuffle_queue
        ADD COLUMN IF NOT EXISTS draws bigint CONSTRAINT shuffle_queue_draws_check CHECK (draws >= 0);
    ALTER TABLE @extschema@.shuffle_queue
        ADD COLUMN IF NOT EXISTS weight_max integer
            CONSTRAINT shuffle_queue_weight_max_check CHECK (weight_max BETWEEN 1 AND 1000);
    ALTER TABLE @extschema@.shuffle_queue ADD COLUMN IF NOT EXISTS listener bigint;
    ALTER TABLE @extschema@.shuffle_queue
        ADD COLUMN IF NOT EXISTS plays bigint CONSTRAINT shuffle_queue_plays_check CHECK (plays >= 0);
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_constraint
                    WHERE conrelid = '@extschema@.shuffle_queue'::pg_catalog.regclass
                      AND conname = 'shuffle_queue_listener_plays_check') THEN
        ALTER TABLE @extschema@.shuffle_queue
            ADD CONSTRAINT shuffle_queue_listener_plays_check CHECK ((listener IS NULL) = (plays IS NULL));
    END IF;
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_constraint
                    WHERE conrelid = '@extschema@.shuffle_queue'::pg_catalog.regclass
                      AND conname = 'shuffle_queue_seed_draws_check') THEN
        ALTER TABLE @extschema@.shuffle_queue
            ADD CONSTRAINT shuffle_queue_seed_draws_check CHECK ((seed IS NULL) = (draws IS NULL));
    END IF;
END
$$;

CREATE TABLE @extschema@.shuffle_queue_unit (
    queue_id   bigint NOT NULL,
    unit_id    bigint NOT NULL,
    parent     bigint NOT NULL,
    name       text COLLATE "C",
    size       bigint NOT NULL CHECK (size >= 0),
    to_place   bigint NOT NULL CHECK (to_place >= 0 AND to_place <= size),
    placed     bigint NOT NULL CHECK (placed >= 0),
    pass       bigint NOT NULL,
    shift      bigint NOT NULL,
    target     bigint NOT NULL,
    last_child bigint NOT NULL,
    ahead_target bigint[],
    ahead_left   bigint[],
    PRIMARY KEY (queue_id, unit_id)
);
CREATE INDEX shuffle_queue_unit_target ON @extschema@.shuffle_queue_unit (queue_id, parent, target, unit_id);
CREATE INDEX shuffle_queue_unit_left ON @extschema@.shuffle_queue_unit (queue_id, parent, pass, to_place, unit_id);
CREATE INDEX shuffle_queue_unit_name ON @extschema@.shuffle_queue_unit (queue_id, parent, name);

CREATE TABLE @extschema@.shuffle_queue_member (
    queue_id bigint NOT NULL,
    unit_id  bigint NOT NULL,
    slot     bigint NOT NULL,
    track    bigint NOT NULL,
    PRIMARY KEY (queue_id, unit_id, slot)
);
CREATE INDEX shuffle_queue_member_track ON @extschema@.shuffle_queue_member (queue_id, track);

CREATE TABLE @extschema@.shuffle_queue_up_next (
    queue_id bigint NOT NULL,
    seq      bigint NOT NULL,
    track    bigint NOT NULL,
    PRIMARY KEY (queue_id, seq)
);
CREATE INDEX shuffle_queue_up_next_track ON @extschema@.shuffle_queue_up_next (queue_id, track);

CREATE TABLE @extschema@.shuffle_queue_skipped (
    queue_id bigint NOT NULL,
    track    bigint NOT NULL,
    unit_id  bigint,
    PRIMARY KEY (queue_id, track)
);

CREATE TABLE @extschema@.shuffle_queue_weight (
    queue_id bigint NOT NULL,
    track    bigint NOT NULL,
    weight   integer NOT NULL CHECK (weight BETWEEN 1 AND 1000),
    PRIMARY KEY (queue_id, track)
);

CREATE TABLE @extschema@.shuffle_queue_play (
    queue_id  bigint NOT NULL,
    slot      bigint NOT NULL,
    listener  bigint NOT NULL,
    track     bigint NOT NULL,
    played_at timestamptz NOT NULL,
    PRIMARY KEY (queue_id, slot)
);
CREATE INDEX shuffle_queue_play_listener ON @extschema@.shuffle_queue_play (listener, played_at);

SELECT pg_catalog.pg_extension_config_dump('@extschema@.shuffle_queue_unit', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.shuffle_queue_member', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.shuffle_queue_up_next', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.shuffle_queue_skipped', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.shuffle_queue_weight', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.shuffle_queue_play', '');

CREATE  FUNCTION "shuffle_queue_new"(
	"items" bigint[], /* core::option::Option<pgrx::datum::array::Array<'_, i64>> */
	"mode" TEXT DEFAULT 'shuffle', /* core::option::Option<dealcards::text::TextBytes<'_>> */
	"window" INT DEFAULT NULL, /* core::option::Option<i32> */
	"groups" TEXT[] DEFAULT NULL, /* core::option::Option<dealcards::playlist::texts::TextArray<'_>> */
	"subgroups" TEXT[] DEFAULT NULL, /* core::option::Option<dealcards::playlist::texts::TextArray<'_>> */
	"start_with" bigint DEFAULT NULL, /* core::option::Option<i64> */
	"seed" bytea DEFAULT NULL, /* core::option::Option<&[u8]> */
	"weights" INT[] DEFAULT NULL, /* core::option::Option<pgrx::datum::array::Array<'_, i32>> */
	"listener" bigint DEFAULT NULL /* core::option::Option<i64> */
) RETURNS bigint /* i64 */
VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'shuffle_queue_new_wrapper';

CREATE  FUNCTION "shuffle_queue_add"(
	"queue_id" bigint, /* core::option::Option<i64> */
	"item" bigint, /* core::option::Option<i64> */
	"item_group" TEXT, /* core::option::Option<dealcards::text::TextBytes<'_>> */
	"item_subgroup" TEXT DEFAULT NULL /* core::option::Option<dealcards::text::TextBytes<'_>> */
) RETURNS bigint /* core::option::Option<i64> */
VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'shuffle_queue_add_to_group_wrapper';

CREATE  FUNCTION "shuffle_queue_add"(
	"queue_id" bigint, /* i64 */
	"item" bigint, /* i64 */
	"weight" INT /* i32 */
) RETURNS bigint /* i64 */
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'shuffle_queue_add_weighted_wrapper';

CREATE  FUNCTION "shuffle_queue_play_next"(
	"queue_id" bigint, /* i64 */
	"items" bigint[] /* pgrx::datum::array::Array<'_, i64> */
) RETURNS INT /* i32 */
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'shuffle_queue_play_next_wrapper';

CREATE  FUNCTION "shuffle_queue_play_later"(
	"queue_id" bigint, /* i64 */
	"items" bigint[] /* pgrx::datum::array::Array<'_, i64> */
) RETURNS INT /* i32 */
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'shuffle_queue_play_later_wrapper';

CREATE  FUNCTION "shuffle_queue_up_next"(
	"queue_id" bigint /* i64 */
) RETURNS bigint[] /* alloc::vec::Vec<i64> */
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'shuffle_queue_up_next_wrapper';

CREATE  FUNCTION "shuffle_queue_clear_up_next"(
	"queue_id" bigint /* i64 */
) RETURNS INT /* i32 */
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'shuffle_queue_clear_up_next_wrapper';

CREATE  FUNCTION "shuffle_queue_jump"(
	"queue_id" bigint, /* i64 */
	"item" bigint /* i64 */
) RETURNS bigint /* i64 */
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'shuffle_queue_jump_wrapper';

CREATE  FUNCTION "shuffle_queue_skip_when_shuffling"(
	"queue_id" bigint, /* i64 */
	"item" bigint, /* i64 */
	"skip" bool DEFAULT true /* bool */
) RETURNS bigint /* i64 */
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'shuffle_queue_skip_when_shuffling_wrapper';

CREATE  FUNCTION "shuffle_queue_forget"(
	"listener" bigint /* i64 */
) RETURNS bigint /* i64 */
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'shuffle_queue_forget_wrapper';

CREATE  FUNCTION "shuffle_queue_save"(
	"queue_id" bigint /* i64 */
) RETURNS jsonb /* dealcards::playlist::texts::JsonbResult */
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'shuffle_queue_save_wrapper';

CREATE  FUNCTION "shuffle_queue_restore"(
	"state" jsonb /* dealcards::playlist::texts::JsonbArg */
) RETURNS bigint /* i64 */
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'shuffle_queue_restore_wrapper';

-- ---------------------------------------------------------------------------------------------
-- Citus: dealcards_distribute() as 0.5.0 has it: the new queue tables distributed by queue_id,
-- colocated with shuffle_queue, and the new functions (and those whose arguments changed) by
-- their desk or queue. On a cluster distributed under an earlier release, run it again after the
-- update (docs/citus.md).
-- ---------------------------------------------------------------------------------------------
CREATE OR REPLACE FUNCTION @extschema@.dealcards_distribute()
RETURNS TABLE (object text, distributed_by text, colocated_with text)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ext_schema text;
    item record;
    had_rows text[] := '{}';
    tbl text;
    has_rows boolean;
BEGIN
    IF to_regproc('pg_catalog.create_distributed_table') IS NULL THEN
        RAISE EXCEPTION 'Citus is not installed in this database'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'dealcards_distribute() spreads the extension''s tables over the workers of a Citus cluster.',
                  HINT = 'On the coordinator of a Citus cluster: CREATE EXTENSION citus, add the workers with citus_add_node(), then SELECT dealcards_distribute().';
    END IF;
    IF NOT citus_is_coordinator() THEN
        RAISE EXCEPTION 'dealcards_distribute() runs on the Citus coordinator'
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    SELECT n.nspname INTO ext_schema
      FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
     WHERE e.extname = 'dealcards';

    FOR item IN
        SELECT * FROM (VALUES
            (1, 'fair_seed', 'desk_id', NULL),
            (2, 'desk', 'desk_id', 'fair_seed'),
            (3, 'desk_player', 'desk_id', 'desk'),
            (4, 'game', 'desk_id', 'desk'),
            (5, 'bid_record', 'desk_id', 'desk'),
            (6, 'note', 'desk_id', 'desk'),
            (7, 'shuffle_queue', 'queue_id', NULL),
            (8, 'shuffle_queue_track', 'queue_id', 'shuffle_queue'),
            (9, 'shuffle_queue_unit', 'queue_id', 'shuffle_queue'),
            (10, 'shuffle_queue_member', 'queue_id', 'shuffle_queue'),
            (11, 'shuffle_queue_up_next', 'queue_id', 'shuffle_queue'),
            (12, 'shuffle_queue_skipped', 'queue_id', 'shuffle_queue'),
            (13, 'shuffle_queue_weight', 'queue_id', 'shuffle_queue'),
            (14, 'shuffle_queue_play', 'queue_id', 'shuffle_queue')
        ) t (n, tbl, col, colocate)
        ORDER BY n
    LOOP
        IF NOT EXISTS (SELECT FROM pg_dist_partition
                        WHERE logicalrelid = format('%I.%I', ext_schema, item.tbl)::regclass) THEN
            EXECUTE format('SELECT EXISTS (SELECT FROM %I.%I)', ext_schema, item.tbl) INTO has_rows;
            IF has_rows THEN
                had_rows := had_rows || item.tbl;
            END IF;
            PERFORM create_distributed_table(
                format('%I.%I', ext_schema, item.tbl)::regclass, item.col,
                colocate_with => CASE WHEN item.colocate IS NULL THEN 'none'
                                      ELSE format('%I.%I', ext_schema, item.colocate) END);
        END IF;
        object := item.tbl;
        distributed_by := item.col;
        colocated_with := item.colocate;
        RETURN NEXT;
    END LOOP;
    -- Rows that were there were copied into the shards; the coordinator's own copies go,
    -- referencing tables first.
    FOREACH tbl IN ARRAY (SELECT COALESCE(array_agg(t ORDER BY n DESC), '{}')
                            FROM unnest(had_rows) WITH ORDINALITY u (t, n)) LOOP
        PERFORM truncate_local_data_after_distributing_table(format('%I.%I', ext_schema, tbl)::regclass);
    END LOOP;

    FOR item IN
        SELECT * FROM (VALUES
            (1, 'deal_cards(integer)', 'desk'),
            (2, 'fair_mode_on(integer, integer[], boolean)', 'desk'),
            (3, 'fair_mode_off(integer)', 'desk'),
            (4, 'fair_reveal(integer, integer[], boolean)', 'desk'),
            (5, 'set_client_seed(integer, integer, text)', 'desk'),
            (6, 'fair_verify_desk(integer)', 'desk'),
            (7, 'fair_publication(integer)', 'desk'),
            (8, 'shuffle_queue_next(bigint)', 'shuffle_queue'),
            (9, 'shuffle_queue_prev(bigint)', 'shuffle_queue'),
            (10, 'shuffle_queue_current(bigint)', 'shuffle_queue'),
            (11, 'shuffle_queue_add(bigint, bigint)', 'shuffle_queue'),
            (12, 'shuffle_queue_remove(bigint, bigint)', 'shuffle_queue'),
            (13, 'shuffle_queue_drop(bigint)', 'shuffle_queue'),
            (14, 'shuffle_queue_add(bigint, bigint, text, text)', 'shuffle_queue'),
            (15, 'shuffle_queue_play_next(bigint, bigint[])', 'shuffle_queue'),
            (16, 'shuffle_queue_play_later(bigint, bigint[])', 'shuffle_queue'),
            (17, 'shuffle_queue_up_next(bigint)', 'shuffle_queue'),
            (18, 'shuffle_queue_clear_up_next(bigint)', 'shuffle_queue'),
            (19, 'shuffle_queue_jump(bigint, bigint)', 'shuffle_queue'),
            (20, 'shuffle_queue_skip_when_shuffling(bigint, bigint, boolean)', 'shuffle_queue'),
            (21, 'shuffle_queue_save(bigint)', 'shuffle_queue'),
            (22, 'shuffle_queue_add(bigint, bigint, integer)', 'shuffle_queue')
        ) f (n, fn, colocate)
        ORDER BY n
    LOOP
        PERFORM create_distributed_function(
            format('%I.%s', ext_schema, item.fn)::regprocedure, '$1',
            colocate_with => format('%I.%I', ext_schema, item.colocate),
            force_delegation => true);
        object := item.fn;
        distributed_by := '$1';
        colocated_with := item.colocate;
        RETURN NEXT;
    END LOOP;
END
$$;

-- ---------------------------------------------------------------------------------------------
-- A player's games, indexed; and the guard against objects of the user's own on the extension's
-- tables (sql/install/guard.sql), which pg_dump would not dump. The indexes are made as
-- statements of a DO block, skipped when there, so that on a Citus cluster the coordinator's
-- reach the shards and a worker's own run of this script skips them.
-- ---------------------------------------------------------------------------------------------
DO $$
BEGIN
    CREATE INDEX IF NOT EXISTS game_p1_id_idx ON @extschema@.game (p1_id);
    CREATE INDEX IF NOT EXISTS game_p2_id_idx ON @extschema@.game (p2_id);
    CREATE INDEX IF NOT EXISTS game_p3_id_idx ON @extschema@.game (p3_id);
END
$$;

-- Nor do they take objects of the user's own: pg_dump dumps none of what hangs off an
-- extension's table, so an index, a constraint, a trigger, a rule, a policy or extended
-- statistics made on one of these tables would be missing, without a word, from every restored
-- database. Their creation outside the extension's own scripts is refused at the end of the
-- command, which undoes it (CREATE INDEX CONCURRENTLY has committed its index by then: the
-- index stays, invalid, and the error says to drop it). Who takes the loss on knowingly sets
-- dealcards.allow_own_objects to on. Commands a Citus coordinator sends its workers (with
-- citus.enable_ddl_propagation off) pass: they repeat, on a worker's copy of a table, what the
-- coordinator did, an update's new index among them. Constraints count as made by the command
-- when this transaction wrote them (unless it also created the extension, whose own are new
-- too).
CREATE FUNCTION @extschema@.dealcards_keep_table_objects() RETURNS event_trigger
LANGUAGE plpgsql AS $$
DECLARE
    ext_schema text;
    made text;
BEGIN
    IF pg_catalog.current_setting('citus.enable_ddl_propagation', true) OPERATOR(pg_catalog.=) 'off'
       OR pg_catalog.current_setting('dealcards.allow_own_objects', true) OPERATOR(pg_catalog.=) 'on' THEN
        RETURN;
    END IF;
    SELECT n.nspname INTO ext_schema
      FROM pg_catalog.pg_extension e
      JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace
     WHERE e.extname OPERATOR(pg_catalog.=) 'dealcards';
    EXECUTE pg_catalog.format($made$
        WITH members AS (
            SELECT d.objid AS relid
              FROM pg_catalog.pg_depend d
              JOIN pg_catalog.pg_extension e
                ON e.oid OPERATOR(pg_catalog.=) d.refobjid
               AND e.extname OPERATOR(pg_catalog.=) 'dealcards'
             WHERE d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass
               AND d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
               AND d.deptype OPERATOR(pg_catalog.=) 'e'
        ), cmd AS (
            SELECT c.classid, c.objid, c.command_tag
              FROM pg_catalog.pg_event_trigger_ddl_commands() c
             WHERE NOT c.in_extension
        ), made (what, relid) AS (
            SELECT pg_catalog.format('index %%s', i.indexrelid::pg_catalog.regclass), i.indrelid
              FROM cmd JOIN pg_catalog.pg_index i ON i.indexrelid OPERATOR(pg_catalog.=) cmd.objid
             WHERE cmd.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
            UNION ALL
            SELECT pg_catalog.format('trigger %%I', t.tgname), t.tgrelid
              FROM cmd JOIN pg_catalog.pg_trigger t ON t.oid OPERATOR(pg_catalog.=) cmd.objid
             WHERE cmd.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_trigger'::pg_catalog.regclass
               AND NOT t.tgisinternal
            UNION ALL
            SELECT pg_catalog.format('rule %%I', r.rulename), r.ev_class
              FROM cmd JOIN pg_catalog.pg_rewrite r ON r.oid OPERATOR(pg_catalog.=) cmd.objid
             WHERE cmd.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_rewrite'::pg_catalog.regclass
            UNION ALL
            SELECT pg_catalog.format('policy %%I', p.polname), p.polrelid
              FROM cmd JOIN pg_catalog.pg_policy p ON p.oid OPERATOR(pg_catalog.=) cmd.objid
             WHERE cmd.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_policy'::pg_catalog.regclass
            UNION ALL
            SELECT pg_catalog.format('statistics %%I', s.stxname), s.stxrelid
              FROM cmd JOIN pg_catalog.pg_statistic_ext s ON s.oid OPERATOR(pg_catalog.=) cmd.objid
             WHERE cmd.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_statistic_ext'::pg_catalog.regclass
            UNION ALL
            SELECT pg_catalog.format('constraint %%I', k.conname), k.conrelid
              FROM cmd JOIN pg_catalog.pg_constraint k ON k.conrelid OPERATOR(pg_catalog.=) cmd.objid
             WHERE cmd.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
               AND cmd.command_tag OPERATOR(pg_catalog.=) 'ALTER TABLE'
               AND %1$I.dealcards_written_here(k.xmin)
               AND NOT EXISTS (SELECT FROM pg_catalog.pg_extension e
                                WHERE e.extname OPERATOR(pg_catalog.=) 'dealcards'
                                  AND %1$I.dealcards_written_here(e.xmin))
        )
        SELECT pg_catalog.string_agg(DISTINCT pg_catalog.concat(m.what, ' on ', c.relname), ', ')
          FROM made m JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) m.relid
         WHERE m.relid OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT relid FROM members))
        $made$, ext_schema) INTO made;
    IF made IS NOT NULL THEN
        RAISE EXCEPTION 'objects of your own on dealcards'' tables are refused: %', made
            USING ERRCODE = 'feature_not_supported',
                  DETAIL = 'pg_dump does not dump the indexes, constraints, triggers, rules, policies '
                           'or statistics made on an extension''s tables: a restored database '
                           'would lack it. (After CREATE INDEX CONCURRENTLY the index is left '
                           'behind, invalid: drop it.)',
                  HINT = 'dealcards indexes a player''s games (p1_id, p2_id, p3_id) and a desk''s '
                         'games by time. To make it anyway, and make it again after every '
                         'restore: SET dealcards.allow_own_objects = on.';
    END IF;
END
$$;

CREATE EVENT TRIGGER dealcards_keep_table_objects ON ddl_command_end
    WHEN TAG IN ('ALTER TABLE', 'CREATE INDEX', 'CREATE TRIGGER', 'CREATE RULE', 'CREATE POLICY',
                 'CREATE STATISTICS')
    EXECUTE FUNCTION @extschema@.dealcards_keep_table_objects();
