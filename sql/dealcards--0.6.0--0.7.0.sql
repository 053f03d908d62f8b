-- dealcards 0.6.0 -> 0.7.0 (ALTER EXTENSION dealcards UPDATE TO '0.7.0').
--
-- Each section below adds what one part of 0.7.0 adds to a fresh install; tests/upgrade.rs
-- compares a database updated through this script with a fresh install, object for object.
\echo Use "ALTER EXTENSION dealcards UPDATE TO '0.7.0'" to load this file. \quit

-- No role but the tables' owner sees a deal before the transaction that dealt commits, nor an
-- unrevealed seed through a table-wide grant (sql/install/fair_unseen.sql says how: the policies
-- below are the same). On a Citus cluster, Citus would send each statement to the workers at once, while
-- their extension still lacks dealcards_written_here (the coordinator runs the whole update
-- before the workers do). So every node puts row security and the policies on its own copies,
-- with Citus's propagation off: the table, and the shards of it that the node holds; the
-- coordinator's update comes first, then each worker's run of this script.
DO $$
DECLARE
    -- (table, policy, what follows the table's name in CREATE POLICY)
    policy text[] := ARRAY[
        'game', 'dealcards_deal_unseen', $p$USING (fair_commitment IS NULL
           OR state_no OPERATOR(pg_catalog.<>) 1 OR lord_no OPERATOR(pg_catalog.<>) 0
           OR CASE WHEN ctid OPERATOR(pg_catalog.=) '(4294967295,0)'::pg_catalog.tid THEN true
                   ELSE NOT @extschema@.dealcards_written_here(xmin) END) WITH CHECK (true)$p$,
        'bid_record', 'dealcards_deal_unseen', $p$USING (rec_idx OPERATOR(pg_catalog.>) 0 OR rec_idx OPERATOR(pg_catalog.<) -1
           OR CASE WHEN ctid OPERATOR(pg_catalog.=) '(4294967295,0)'::pg_catalog.tid THEN true
                   ELSE NOT @extschema@.dealcards_written_here(xmin) END) WITH CHECK (true)$p$,
        'note', 'dealcards_deal_unseen', $p$USING (note_type OPERATOR(pg_catalog.<>) 3 OR flag OPERATOR(pg_catalog.<>) 'y'::pg_catalog.bpchar
           OR CASE WHEN ctid OPERATOR(pg_catalog.=) '(4294967295,0)'::pg_catalog.tid THEN true
                   ELSE NOT @extschema@.dealcards_written_here(xmin) END) WITH CHECK (true)$p$,
        'fair_seed', 'dealcards_revealed_seeds', $p$FOR SELECT USING (revealed_at IS NOT NULL
           AND CASE WHEN ctid OPERATOR(pg_catalog.=) '(4294967295,0)'::pg_catalog.tid THEN false
                    ELSE NOT @extschema@.dealcards_written_here(xmin) END)$p$];
    citus boolean := pg_catalog.to_regclass('pg_catalog.pg_dist_shard') IS NOT NULL;
    propagation text := pg_catalog.current_setting('citus.enable_ddl_propagation', true);
    i int;
    rel pg_catalog.regclass;
BEGIN
    IF citus THEN
        PERFORM pg_catalog.set_config('citus.enable_ddl_propagation', 'off', true);
    END IF;
    FOR i IN 1 .. pg_catalog.array_length(policy, 1) BY 3 LOOP
        FOR rel IN
            SELECT pg_catalog.format('@extschema@.%I', policy[i])::pg_catalog.regclass
            UNION ALL
            SELECT c.oid::pg_catalog.regclass
              FROM pg_catalog.pg_class c
             WHERE citus
               AND c.relnamespace OPERATOR(pg_catalog.=) '@extschema@'::pg_catalog.regnamespace
               AND c.relname OPERATOR(pg_catalog.~) ('^' OPERATOR(pg_catalog.||) policy[i] OPERATOR(pg_catalog.||) '_[0-9]+$')
               AND c.relkind OPERATOR(pg_catalog.=) 'r'
        LOOP
            EXECUTE pg_catalog.format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', rel);
            IF NOT EXISTS (SELECT FROM pg_catalog.pg_policy
                            WHERE polrelid OPERATOR(pg_catalog.=) rel
                              AND polname OPERATOR(pg_catalog.=) policy[i + 1]) THEN
                EXECUTE pg_catalog.format('CREATE POLICY %I ON %s %s',
                                          policy[i + 1], rel, policy[i + 2]);
            END IF;
        END LOOP;
    END LOOP;
    IF citus THEN
        PERFORM pg_catalog.set_config('citus.enable_ddl_propagation', propagation, true);
    END IF;
END
$$;

-- set_client_seed refuses a NULL argument (22004) instead of doing nothing, as STRICT made it.
ALTER FUNCTION @extschema@.set_client_seed(integer, integer, text) CALLED ON NULL INPUT;

-- A client seed belongs to the player id that set it (desk_player.seed_player): a seat whose
-- player_id is rewritten holds no seed. A seed set before the update belongs to the player who
-- sits in its seat now. In a DO block, as above, for Citus.
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_attribute
                    WHERE attrelid = '@extschema@.desk_player'::pg_catalog.regclass
                      AND attname = 'seed_player' AND NOT attisdropped) THEN
        ALTER TABLE @extschema@.desk_player ADD COLUMN seed_player bigint;
        UPDATE @extschema@.desk_player SET seed_player = player_id WHERE seed_round IS NOT NULL;
    END IF;
END
$$;

-- ---------------------------------------------------------------------------------------------
-- fair_receipt(game): the receipt of a stored provably fair game, as deal_cards notified it,
-- for a game server to relay once the deal has committed (docs/provably_fair.md). One function,
-- no tables.
-- ---------------------------------------------------------------------------------------------

CREATE  FUNCTION "fair_receipt"(
	"game_id" bigint /* i64 */
) RETURNS jsonb /* pgrx :: JsonB */
STRICT STABLE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'fair_receipt_wrapper';

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

-- ---------------------------------------------------------------------------------------------
-- sample_rows(relation, k [, seed]): exactly k random rows of a table, through sparse_bernoulli
-- (docs/rows.md). The same statement as sql/install/sample_rows.sql.
-- ---------------------------------------------------------------------------------------------

CREATE FUNCTION @extschema@.sample_rows(relation anyelement, k integer, seed bytea DEFAULT NULL)
RETURNS SETOF anyelement
VOLATILE LANGUAGE c
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'dealcards_sample_rows';

-- ---------------------------------------------------------------------------------------------
-- Rounds end: a round's rules include its bound, at most max_deals deals (1000 unless given)
-- and optionally a time by which its seed is due (reveal_by); past it the desk deals nothing
-- until the round is revealed (docs/provably_fair.md). Every round stored before the update,
-- the one in force at each desk included, gets the default bound of 1000 deals and no time
-- limit: a round in force that has dealt that many already deals again once revealed.
-- fair_mode_on and fair_reveal take the bound; a new round's seed is due within one day unless
-- another time (or NULL: no limit) is given, and fair_reveal gives the next round of a round
-- stored before the update that day too. In a DO block, as above, for Citus: each node
-- changes its own tables.
-- ---------------------------------------------------------------------------------------------
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_attribute
                    WHERE attrelid = '@extschema@.fair_seed'::pg_catalog.regclass
                      AND attname = 'max_deals' AND NOT attisdropped) THEN
        ALTER TABLE @extschema@.fair_seed
            ADD COLUMN max_deals bigint NOT NULL DEFAULT 1000 CONSTRAINT fair_seed_max_deals_check CHECK (max_deals OPERATOR(pg_catalog.>) 0),
            ADD COLUMN reveal_by timestamptz;
    END IF;
END
$$;

-- ---------------------------------------------------------------------------------------------
-- Restores: a round records the token of the server it was committed on (dealcards_instance,
-- made by CREATE EXTENSION and not dumped) and its timeline, and a provably fair deal refuses a
-- round of another token or timeline until it is revealed (docs/operations.md). The rounds in
-- force when the update runs were committed here: they take this server's new token and its
-- timeline. In a DO block, as above, for Citus: each
-- node adds the column to its own table, and only a single server or the coordinator marks the
-- rounds (through the coordinator, with the token as a constant: a worker's own token is not
-- the one the deals read).
-- ---------------------------------------------------------------------------------------------
CREATE TABLE @extschema@.dealcards_instance (
    token    uuid NOT NULL DEFAULT pg_catalog.gen_random_uuid(),
    only_row boolean PRIMARY KEY DEFAULT true CONSTRAINT dealcards_instance_one_row CHECK (only_row)
);
INSERT INTO @extschema@.dealcards_instance DEFAULT VALUES;
REVOKE ALL ON @extschema@.dealcards_instance FROM PUBLIC;

DO $$
DECLARE
    coordinator boolean := true;
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_attribute
                    WHERE attrelid = '@extschema@.fair_seed'::pg_catalog.regclass
                      AND attname = 'instance' AND NOT attisdropped) THEN
        ALTER TABLE @extschema@.fair_seed ADD COLUMN instance uuid, ADD COLUMN timeline bigint;
    END IF;
    -- The place a round is committed in (its database and data directory): a deal refuses a
    -- round of another place, a copy's. The rounds stored before the update record none and
    -- are not checked for it.
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_attribute
                    WHERE attrelid = '@extschema@.fair_seed'::pg_catalog.regclass
                      AND attname = 'place' AND NOT attisdropped) THEN
        ALTER TABLE @extschema@.fair_seed ADD COLUMN place text;
    END IF;
    IF pg_catalog.to_regclass('pg_catalog.pg_dist_shard') IS NOT NULL THEN
        EXECUTE 'SELECT citus_is_coordinator()' INTO coordinator;
    END IF;
    IF coordinator THEN
        EXECUTE pg_catalog.format(
            'UPDATE @extschema@.fair_seed SET instance = %L::pg_catalog.uuid, timeline = %s WHERE revealed_at IS NULL',
            (SELECT token FROM @extschema@.dealcards_instance),
            (pg_catalog.concat('x', pg_catalog.substr(pg_catalog.pg_walfile_name(pg_catalog.pg_current_wal_insert_lsn()), 1, 8)))::pg_catalog.bit(32)::pg_catalog.int8);
    END IF;
END
$$;

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
       seeds_required,
       max_deals,
       reveal_by
  FROM @extschema@.fair_seed;

-- fair_mode_on and fair_reveal with the bound. On Citus, as above, each node replaces its own
-- with propagation off, and a coordinator where the earlier ones were distributed
-- (dealcards_distribute) distributes the new ones alike.
DO $$
DECLARE
    citus boolean := pg_catalog.to_regclass('pg_catalog.pg_dist_object') IS NOT NULL;
    distributed boolean := false;
BEGIN
    IF citus THEN
        EXECUTE $q$SELECT citus_is_coordinator() AND EXISTS (
                       SELECT FROM pg_catalog.pg_dist_object
                        WHERE classid = 'pg_catalog.pg_proc'::pg_catalog.regclass
                          AND objid = pg_catalog.to_regprocedure('@extschema@.fair_mode_on(integer, integer[], boolean)'))$q$
           INTO distributed;
        PERFORM pg_catalog.set_config('citus.enable_ddl_propagation', 'off', true);
    END IF;
    PERFORM pg_catalog.set_config('dealcards_update.distribute_fair_functions', distributed::text, true);
END
$$;
DROP FUNCTION IF EXISTS @extschema@.fair_mode_on(integer, integer[], boolean);
DROP FUNCTION IF EXISTS @extschema@.fair_reveal(integer, integer[], boolean);
CREATE  FUNCTION "fair_mode_on"(
	"desk_id" INT, /* core::option::Option<i32> */
	"house_seats" INT[] DEFAULT '{}', /* core::option::Option<alloc::vec::Vec<core::option::Option<i32>>> */
	"seeds_required" bool DEFAULT true, /* core::option::Option<bool> */
	"max_deals" bigint DEFAULT 1000, /* core::option::Option<i64> */
	"reveal_within" interval DEFAULT '1 day' /* core::option::Option<pgrx::datum::interval::Interval> */
) RETURNS bytea /* alloc::vec::Vec<u8> */
VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'fair_mode_on_v3_wrapper';
CREATE  FUNCTION "fair_reveal"(
	"desk_id" INT, /* core::option::Option<i32> */
	"house_seats" INT[] DEFAULT NULL, /* core::option::Option<alloc::vec::Vec<core::option::Option<i32>>> */
	"seeds_required" bool DEFAULT NULL, /* core::option::Option<bool> */
	"max_deals" bigint DEFAULT NULL, /* core::option::Option<i64> */
	"reveal_within" interval DEFAULT NULL /* core::option::Option<pgrx::datum::interval::Interval> */
) RETURNS TABLE (
	"round" INT,  /* i32 */
	"commitment" bytea,  /* alloc::vec::Vec<u8> */
	"next_commitment" bytea  /* alloc::vec::Vec<u8> */
)
VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'fair_reveal_v3_wrapper';
DO $$
BEGIN
    IF pg_catalog.current_setting('dealcards_update.distribute_fair_functions')::boolean THEN
        PERFORM pg_catalog.set_config('citus.enable_ddl_propagation', 'on', true);
        EXECUTE $q$SELECT create_distributed_function('@extschema@.fair_mode_on(integer, integer[], boolean, bigint, interval)'::pg_catalog.regprocedure,
                                                      '$1', colocate_with => '@extschema@.desk', force_delegation => true)$q$;
        EXECUTE $q$SELECT create_distributed_function('@extschema@.fair_reveal(integer, integer[], boolean, bigint, interval)'::pg_catalog.regprocedure,
                                                      '$1', colocate_with => '@extschema@.desk', force_delegation => true)$q$;
    END IF;
END
$$;

-- dealcards_distribute() distributes the new fair_mode_on and fair_reveal (sql/install/citus.sql).
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
            (14, 'shuffle_queue_play', 'queue_id', 'shuffle_queue'),
            (15, 'shuffle_queue_ahead', 'queue_id', 'shuffle_queue'),
            (16, 'shuffle_queue_album', 'queue_id', 'shuffle_queue'),
            (17, 'room_hand', 'hand_id', NULL),
            (18, 'room_card', 'hand_id', 'room_hand'),
            (19, 'room_hand_key', 'hand_id', 'room_hand')
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

    -- The server's token that rounds record (dealcards_instance): one for the whole cluster, the
    -- coordinator's, read alike on every node (a deal runs on its desk's worker or on the
    -- coordinator, and a shard move takes a desk to another worker).
    IF NOT EXISTS (SELECT FROM pg_dist_partition
                    WHERE logicalrelid = format('%I.dealcards_instance', ext_schema)::regclass) THEN
        PERFORM create_reference_table(format('%I.dealcards_instance', ext_schema)::regclass);
        PERFORM truncate_local_data_after_distributing_table(
            format('%I.dealcards_instance', ext_schema)::regclass);
    END IF;

    -- A desk's seats go with it. On a single server a rule does it (no key joins the tables
    -- there, so that pg_restore -j keeps their rows); Citus cannot run a statement that a rule
    -- rewrote over distributed tables, so on the coordinator the rule goes, and the key between
    -- the colocated tables does it, as before 0.7.0. (A worker's own copy keeps the rule: a desk
    -- is deleted through the coordinator. Dropping it from here would wait for this very
    -- transaction's locks on the worker.)
    EXECUTE format('DROP RULE IF EXISTS desk_seats_go_with_desk ON %I.desk', ext_schema);
    IF NOT EXISTS (SELECT FROM pg_constraint
                    WHERE conrelid = format('%I.desk_player', ext_schema)::regclass
                      AND conname = 'desk_player_desk_id_fkey') THEN
        PERFORM set_config('dealcards.allow_own_objects', 'on', true);
        EXECUTE format('ALTER TABLE %1$I.desk_player ADD CONSTRAINT desk_player_desk_id_fkey
                            FOREIGN KEY (desk_id) REFERENCES %1$I.desk ON DELETE CASCADE', ext_schema);
        PERFORM set_config('dealcards.allow_own_objects', 'off', true);
    END IF;

    FOR item IN
        SELECT * FROM (VALUES
            (1, 'deal_cards(integer)', 'desk'),
            (2, 'fair_mode_on(integer, integer[], boolean, bigint, interval)', 'desk'),
            (3, 'fair_mode_off(integer)', 'desk'),
            (4, 'fair_reveal(integer, integer[], boolean, bigint, interval)', 'desk'),
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
            (22, 'shuffle_queue_add(bigint, bigint, integer)', 'shuffle_queue'),
            (23, 'shuffle_queue_upcoming(bigint, integer, integer)', 'shuffle_queue'),
            (24, 'shuffle_queue_skip(bigint)', 'shuffle_queue'),
            (25, 'shuffle_queue_played(bigint, integer, integer)', 'shuffle_queue'),
            (26, 'shuffle_queue_now(bigint, integer)', 'shuffle_queue'),
            (27, 'shuffle_queue_add_many(bigint, bigint[])', 'shuffle_queue'),
            (28, 'shuffle_queue_add_many(bigint, bigint[], integer[])', 'shuffle_queue'),
            (29, 'shuffle_queue_remove_many(bigint, bigint[])', 'shuffle_queue'),
            (30, 'hand_deal(bigint, text)', 'room_hand'),
            (31, 'hand_draw(bigint, integer, integer)', 'room_hand'),
            (32, 'hand_end(bigint)', 'room_hand'),
            (33, 'hand_pbn(bigint)', 'room_hand')
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
-- No foreign key between the extension's tables on a single server, so that pg_restore -j keeps
-- every row (docs/operations.md): a seat goes with its desk through a rule, as ON DELETE CASCADE
-- did; a provably fair deal records its game only while its desk names an unrevealed round of
-- its own with that round's commitment; dealcards_check() names what the keys would have
-- refused. Where the desks are distributed by Citus (which cannot run a statement a rule
-- rewrote) the seats' key stays, as dealcards_distribute() keeps it. In a DO block, as above,
-- for Citus: each node drops the keys of its own tables and of the shards it holds (a shard's
-- key is the table's name and the shard's number).
-- ---------------------------------------------------------------------------------------------
DO $$
DECLARE
    citus boolean := pg_catalog.to_regclass('pg_catalog.pg_dist_shard') IS NOT NULL;
    propagation text := pg_catalog.current_setting('citus.enable_ddl_propagation', true);
    distributed boolean := false;
    key record;
BEGIN
    IF citus THEN
        PERFORM pg_catalog.set_config('citus.enable_ddl_propagation', 'off', true);
        EXECUTE $q$SELECT EXISTS (SELECT FROM pg_catalog.pg_dist_partition
                                   WHERE logicalrelid OPERATOR(pg_catalog.=) '@extschema@.desk'::pg_catalog.regclass)
                       OR EXISTS (SELECT FROM pg_catalog.pg_class
                                   WHERE relnamespace OPERATOR(pg_catalog.=) '@extschema@'::pg_catalog.regnamespace
                                     AND relname OPERATOR(pg_catalog.~) '^desk_player_[0-9]+$')$q$
            INTO distributed;
    END IF;
    FOR key IN
        SELECT k.conrelid::pg_catalog.regclass AS rel, k.conname
          FROM pg_catalog.pg_constraint k
          JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) k.conrelid
         WHERE c.relnamespace OPERATOR(pg_catalog.=) '@extschema@'::pg_catalog.regnamespace
           AND k.contype OPERATOR(pg_catalog.=) 'f'
           AND ((c.relname OPERATOR(pg_catalog.~) '^desk(_[0-9]+)?$'
                 AND k.conname OPERATOR(pg_catalog.~) '^desk_fair_round_fkey(_[0-9]+)?$')
             OR (NOT distributed
                 AND c.relname OPERATOR(pg_catalog.~) '^desk_player(_[0-9]+)?$'
                 AND k.conname OPERATOR(pg_catalog.~) '^desk_player_desk_id_fkey(_[0-9]+)?$'))
    LOOP
        EXECUTE pg_catalog.format('ALTER TABLE %s DROP CONSTRAINT %I', key.rel, key.conname);
    END LOOP;
    IF NOT distributed THEN
        CREATE RULE desk_seats_go_with_desk AS ON DELETE TO @extschema@.desk
            DO ALSO DELETE FROM @extschema@.desk_player p WHERE p.desk_id OPERATOR(pg_catalog.=) OLD.desk_id;
    END IF;
    IF citus THEN
        PERFORM pg_catalog.set_config('citus.enable_ddl_propagation', propagation, true);
    END IF;
END
$$;

-- dealcards_check(): what no foreign key holds between the extension's tables, since none joins
-- them on a single server (a parallel restore loads their rows side by side, docs/operations.md):
-- a seat whose desk does not exist, a desk whose provably fair columns name no unrevealed
-- round of its own with that round's commitment, the cards of a hand that does not exist, and,
-- for a caller who reads the hands' keys (their owner, or a role row security does not restrict),
-- a key of a hand that does not exist and a hand not ended without its key. The extension's
-- functions never write any of these; a row written by hand, or a restore that stopped
-- half-way, can. No row: nothing to mend.
-- PL/pgSQL with the schema looked up, so that it keeps naming the extension's tables if their
-- schema is renamed (Citus plans no SQL-standard body over distributed tables).
CREATE FUNCTION @extschema@.dealcards_check()
RETURNS TABLE (table_name text, desk_id integer, problem text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ext_schema text;
    keys text := '';
BEGIN
    SELECT n.nspname INTO ext_schema
      FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
     WHERE e.extname = 'dealcards';
    -- The keys, only where the caller reads them all: another role sees none of them.
    IF has_table_privilege(format('%I.room_hand_key', ext_schema), 'SELECT')
       AND NOT row_security_active(format('%I.room_hand_key', ext_schema)) THEN
        keys := format($k$
        UNION ALL
        SELECT 'room_hand_key'::text, NULL::integer,
               format('the key of hand %%s, which does not exist', k.hand_id)
          FROM %1$I.room_hand_key k
         WHERE NOT EXISTS (SELECT FROM %1$I.room_hand h WHERE h.hand_id = k.hand_id)
        UNION ALL
        SELECT 'room_hand'::text, NULL::integer,
               format('hand %%s has no key: it cannot deal', h.hand_id)
          FROM %1$I.room_hand h
         WHERE NOT h.ended
           AND NOT EXISTS (SELECT FROM %1$I.room_hand_key k WHERE k.hand_id = h.hand_id)$k$, ext_schema);
    END IF;
    RETURN QUERY EXECUTE format($q$
        SELECT 'desk_player'::text,
               p.desk_id,
               format('seat %%s (player %%s) of a desk that does not exist', p.player_no, p.player_id)
          FROM %1$I.desk_player p
         WHERE NOT EXISTS (SELECT FROM %1$I.desk d WHERE d.desk_id = p.desk_id)
        UNION ALL
        SELECT 'desk'::text,
               d.desk_id,
               CASE WHEN d.fair_round IS NULL OR d.fair_commitment IS NULL
                    THEN 'fair_round and fair_commitment: one is set without the other'
                    ELSE format('names round %%s, which is not an unrevealed round of its own with commitment %%s',
                                d.fair_round, d.fair_commitment)
               END
          FROM %1$I.desk d
         WHERE (d.fair_round IS NOT NULL OR d.fair_commitment IS NOT NULL)
           AND NOT EXISTS (SELECT FROM %1$I.fair_commitment c
                            WHERE c.desk_id = d.desk_id
                              AND c.round = d.fair_round
                              AND c.commitment = d.fair_commitment
                              AND c.revealed_at IS NULL)
        UNION ALL
        SELECT 'room_card'::text, NULL::integer,
               format('%%s cards of hand %%s, which does not exist', pg_catalog.count(*), c.hand_id)
          FROM %1$I.room_card c
         WHERE NOT EXISTS (SELECT FROM %1$I.room_hand h WHERE h.hand_id = c.hand_id)
         GROUP BY c.hand_id%2$s
         ORDER BY 2, 1, 3$q$, ext_schema, keys);
END
$$;

-- ---------------------------------------------------------------------------------------------
-- What a DBA sets on the extension's tables: storage parameters and statistics targets kept in
-- dealcards_table_setting through a dump and restore, the other table properties a dump drops
-- refused (docs/operations.md). The same statements as the end of sql/install/guard.sql, last
-- here as there, so that no ALTER TABLE of this update runs under them.
-- ---------------------------------------------------------------------------------------------
-- What a DBA sets on the extension's tables. pg_dump writes none of a table's own settings for
-- an extension's table (the extension creates the table on restore), so two kinds of change are
-- told apart:
--   * the settings DBAs tune on hot tables, storage parameters (fillfactor, autovacuum_*,
--     toast.*) and columns' statistics targets, are kept: every change is recorded in
--     dealcards_table_setting, whose rows pg_dump dumps with the extension's data, and a row
--     restored there applies its settings to its table again (a trigger);
--   * every other property of the table that a dump would drop without a word is refused when
--     the command ends, which undoes it: persistence (SET UNLOGGED, after which a crash empties
--     the table and standbys never get it), tablespace, replica identity, row level security,
--     access method, CLUSTER ON, a column's default, NOT NULL, storage and compression, disabled
--     triggers (DISABLE TRIGGER ALL turns off the one that applies restored settings) and comments.
-- As above, the extension's own scripts and the commands a Citus coordinator sends its workers
-- pass, and dealcards.allow_own_objects = on lets a refused change through (lost on restore).
CREATE TABLE @extschema@.dealcards_table_setting (
    table_name        name PRIMARY KEY,
    options           text[] NOT NULL DEFAULT '{}',
    column_statistics jsonb NOT NULL DEFAULT '{}'
);
SELECT pg_catalog.pg_extension_config_dump('@extschema@.dealcards_table_setting', '');
-- Settings are no secret (pg_class shows them), and a role that dumps the extension's tables
-- must be able to read this one.
GRANT SELECT ON @extschema@.dealcards_table_setting TO PUBLIC;

CREATE FUNCTION @extschema@.dealcards_keep_table_settings() RETURNS event_trigger
LANGUAGE plpgsql AS $$
DECLARE
    ext_schema name;
    properties text[];
    before text[];
    changed text;
BEGIN
    IF pg_catalog.current_setting('citus.enable_ddl_propagation', true) OPERATOR(pg_catalog.=) 'off' THEN
        RETURN;
    END IF;
    SELECT n.nspname INTO ext_schema
      FROM pg_catalog.pg_extension e
      JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace
     WHERE e.extname OPERATOR(pg_catalog.=) 'dealcards';
    -- One line per refused property of every table of the extension.
    WITH members AS (
        SELECT c.oid, c.relname, c.relpersistence, c.reltablespace, c.relreplident,
               c.relrowsecurity, c.relforcerowsecurity, c.relam
          FROM pg_catalog.pg_depend d
          JOIN pg_catalog.pg_extension e
            ON e.oid OPERATOR(pg_catalog.=) d.refobjid AND e.extname OPERATOR(pg_catalog.=) 'dealcards'
          JOIN pg_catalog.pg_class c
            ON c.oid OPERATOR(pg_catalog.=) d.objid AND c.relkind OPERATOR(pg_catalog.=) 'r'
         WHERE d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass
           AND d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
           AND d.deptype OPERATOR(pg_catalog.=) 'e'
    ), lines (line) AS (
        SELECT pg_catalog.concat(m.relname, ': ', p)
          FROM members m,
               LATERAL (VALUES
                   (CASE m.relpersistence WHEN 'u' THEN 'unlogged' ELSE 'logged' END),
                   (pg_catalog.concat('tablespace ', COALESCE(
                       (SELECT s.spcname::text FROM pg_catalog.pg_tablespace s
                         WHERE s.oid OPERATOR(pg_catalog.=) m.reltablespace), 'default'))),
                   (pg_catalog.concat('replica identity ', CASE m.relreplident
                       WHEN 'd' THEN 'default' WHEN 'n' THEN 'nothing' WHEN 'f' THEN 'full'
                       ELSE 'index' END)),
                   (pg_catalog.concat('row level security ',
                       CASE WHEN m.relrowsecurity THEN 'on' ELSE 'off' END,
                       CASE WHEN m.relforcerowsecurity THEN ', forced' END)),
                   (pg_catalog.concat('access method ',
                       (SELECT a.amname FROM pg_catalog.pg_am a WHERE a.oid OPERATOR(pg_catalog.=) m.relam))),
                   (pg_catalog.format('comment %L', pg_catalog.obj_description(m.oid, 'pg_class')))
               ) v (p)
        UNION ALL
        SELECT pg_catalog.concat(m.relname, '.', a.attname, ': ', p)
          FROM members m
          JOIN pg_catalog.pg_attribute a
            ON a.attrelid OPERATOR(pg_catalog.=) m.oid AND a.attnum OPERATOR(pg_catalog.>) 0
           AND NOT a.attisdropped
          LEFT JOIN pg_catalog.pg_attrdef ad
            ON ad.adrelid OPERATOR(pg_catalog.=) m.oid AND ad.adnum OPERATOR(pg_catalog.=) a.attnum,
          LATERAL (VALUES
              (pg_catalog.concat('default ', COALESCE(pg_catalog.pg_get_expr(ad.adbin, ad.adrelid), 'none'))),
              (CASE WHEN a.attnotnull THEN 'not null' ELSE 'nullable' END),
              (pg_catalog.concat('storage ', CASE a.attstorage
                  WHEN 'p' THEN 'plain' WHEN 'm' THEN 'main' WHEN 'e' THEN 'external'
                  ELSE 'extended' END)),
              (pg_catalog.concat('compression ', COALESCE(NULLIF(a.attcompression::text, ''), 'default'))),
              (pg_catalog.format('comment %L', pg_catalog.col_description(m.oid, a.attnum)))
          ) v (p)
        UNION ALL
        SELECT pg_catalog.format('%s: clustered on %s', m.relname, i.indexrelid::pg_catalog.regclass)
          FROM members m JOIN pg_catalog.pg_index i
            ON i.indrelid OPERATOR(pg_catalog.=) m.oid AND i.indisclustered
        UNION ALL
        SELECT pg_catalog.format('%s: trigger %s fires %s', m.relname, t.tgname,
                                 CASE t.tgenabled WHEN 'D' THEN 'never' WHEN 'R' THEN 'on replicas only'
                                 ELSE 'always' END)
          FROM members m JOIN pg_catalog.pg_trigger t
            ON t.tgrelid OPERATOR(pg_catalog.=) m.oid AND t.tgenabled OPERATOR(pg_catalog.<>) 'O'
    )
    SELECT pg_catalog.array_agg(line ORDER BY line) INTO properties FROM lines;
    IF TG_EVENT OPERATOR(pg_catalog.=) 'ddl_command_start' THEN
        PERFORM pg_catalog.set_config('dealcards.table_properties', properties::text, true);
        RETURN;
    END IF;
    before := NULLIF(pg_catalog.current_setting('dealcards.table_properties', true), '')::text[];
    IF before IS NOT NULL
       AND pg_catalog.current_setting('dealcards.allow_own_objects', true)
           IS DISTINCT FROM 'on'
       AND EXISTS (SELECT FROM pg_catalog.pg_event_trigger_ddl_commands() WHERE NOT in_extension) THEN
        -- A line that is new for a table or column that was there: a column added or dropped
        -- is dealcards_keep_table_columns' to refuse, and a property back at its default
        -- (a comment removed, a trigger enabled again) loses nothing.
        SELECT pg_catalog.string_agg(p, '; ') INTO changed
          FROM pg_catalog.unnest(properties) p
         WHERE p OPERATOR(pg_catalog.<>) ALL (before)
           AND pg_catalog.split_part(p, ': ', 1) OPERATOR(pg_catalog.=) ANY
               (ARRAY(SELECT pg_catalog.split_part(b, ': ', 1) FROM pg_catalog.unnest(before) b));
        IF changed IS NOT NULL THEN
            RAISE EXCEPTION 'this change to dealcards'' tables is refused: %', changed
                USING ERRCODE = 'feature_not_supported',
                      DETAIL = 'pg_dump does not keep a table''s own properties for an extension''s '
                               'tables: a restored database would lack the change without a word. '
                               'Storage parameters (fillfactor, autovacuum_*) and statistics '
                               'targets are kept (dealcards_table_setting); the persistence, '
                               'tablespace, replica identity, row level security, clustering, '
                               'column defaults, NOT NULL, storage, compression, disabled triggers '
                               'and comments are not.',
                      HINT = 'To make it anyway, and make it again after every restore: '
                             'SET dealcards.allow_own_objects = on.';
        END IF;
    END IF;
    -- The kept settings, recorded as they now are (a table back at its defaults has no row),
    -- when the command changed a table of the extension: a role altering a table of its own
    -- needs no privilege on dealcards_table_setting. The recording's writes do not apply the
    -- settings back (dealcards_apply_table_setting).
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_event_trigger_ddl_commands() cmd
                     JOIN pg_catalog.pg_depend d
                       ON d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
                      AND d.objid OPERATOR(pg_catalog.=) cmd.objid
                      AND d.deptype OPERATOR(pg_catalog.=) 'e'
                     JOIN pg_catalog.pg_extension e
                       ON e.oid OPERATOR(pg_catalog.=) d.refobjid
                      AND e.extname OPERATOR(pg_catalog.=) 'dealcards'
                    WHERE cmd.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass) THEN
        RETURN;
    END IF;
    PERFORM pg_catalog.set_config('dealcards.recording_table_settings', 'on', true);
    EXECUTE pg_catalog.format($record$
        WITH members AS (
            SELECT c.oid, c.relname, c.reltoastrelid, c.reloptions
              FROM pg_catalog.pg_depend d
              JOIN pg_catalog.pg_extension e
                ON e.oid OPERATOR(pg_catalog.=) d.refobjid AND e.extname OPERATOR(pg_catalog.=) 'dealcards'
              JOIN pg_catalog.pg_class c
                ON c.oid OPERATOR(pg_catalog.=) d.objid AND c.relkind OPERATOR(pg_catalog.=) 'r'
             WHERE d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass
               AND d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
               AND d.deptype OPERATOR(pg_catalog.=) 'e'
        ), settings AS (
            SELECT m.relname AS table_name,
                   pg_catalog.array_cat(
                       COALESCE(m.reloptions, '{}'),
                       ARRAY(SELECT 'toast.' OPERATOR(pg_catalog.||) o
                               FROM pg_catalog.pg_class t, pg_catalog.unnest(t.reloptions) o
                              WHERE t.oid OPERATOR(pg_catalog.=) m.reltoastrelid)) AS options,
                   COALESCE((SELECT pg_catalog.jsonb_object_agg(a.attname, a.attstattarget)
                               FROM pg_catalog.pg_attribute a
                              WHERE a.attrelid OPERATOR(pg_catalog.=) m.oid
                                AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped
                                AND a.attstattarget OPERATOR(pg_catalog.>=) 0), '{}') AS column_statistics
              FROM members m
        ), gone AS (
            DELETE FROM %1$I.dealcards_table_setting s
             WHERE NOT EXISTS (SELECT FROM settings n
                                WHERE n.table_name OPERATOR(pg_catalog.=) s.table_name
                                  AND (n.options OPERATOR(pg_catalog.<>) '{}'
                                       OR n.column_statistics OPERATOR(pg_catalog.<>) '{}'))
        )
        INSERT INTO %1$I.dealcards_table_setting AS s (table_name, options, column_statistics)
        SELECT table_name, options, column_statistics FROM settings
         WHERE options OPERATOR(pg_catalog.<>) '{}' OR column_statistics OPERATOR(pg_catalog.<>) '{}'
        ON CONFLICT (table_name) DO UPDATE
           SET options = excluded.options, column_statistics = excluded.column_statistics
         WHERE (s.options, s.column_statistics)
               IS DISTINCT FROM (excluded.options, excluded.column_statistics)
        $record$, ext_schema);
    PERFORM pg_catalog.set_config('dealcards.recording_table_settings', 'off', true);
END
$$;

CREATE EVENT TRIGGER dealcards_keep_table_settings_start ON ddl_command_start
    WHEN TAG IN ('ALTER TABLE', 'COMMENT') EXECUTE FUNCTION @extschema@.dealcards_keep_table_settings();
CREATE EVENT TRIGGER dealcards_keep_table_settings_end ON ddl_command_end
    WHEN TAG IN ('ALTER TABLE', 'COMMENT') EXECUTE FUNCTION @extschema@.dealcards_keep_table_settings();

-- A row of dealcards_table_setting written (by a restore, or by hand) applies its settings to
-- its table. Only names of the extension's tables and
-- columns, storage parameters of the form name=value and integer targets are taken.
CREATE FUNCTION @extschema@.dealcards_apply_table_setting() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    ext_schema name;
    option text;
    col text;
    target text;
BEGIN
    IF pg_catalog.current_setting('dealcards.recording_table_settings', true) OPERATOR(pg_catalog.=) 'on' THEN
        RETURN NULL;
    END IF;
    SELECT n.nspname INTO ext_schema
      FROM pg_catalog.pg_extension e
      JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace
     WHERE e.extname OPERATOR(pg_catalog.=) 'dealcards';
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_depend d
                     JOIN pg_catalog.pg_extension e
                       ON e.oid OPERATOR(pg_catalog.=) d.refobjid
                      AND e.extname OPERATOR(pg_catalog.=) 'dealcards'
                     JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) d.objid
                    WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
                      AND d.deptype OPERATOR(pg_catalog.=) 'e'
                      AND c.relkind OPERATOR(pg_catalog.=) 'r'
                      AND c.relname OPERATOR(pg_catalog.=) NEW.table_name) THEN
        RAISE EXCEPTION 'dealcards has no table %', NEW.table_name
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    FOREACH option IN ARRAY NEW.options LOOP
        IF option IS NULL OR option OPERATOR(pg_catalog.!~) '^(toast\.)?[a-z_]+=[A-Za-z0-9_.+-]+$' THEN
            RAISE EXCEPTION 'not a storage parameter: %', option
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'Options are written name=value, as pg_class.reloptions holds them.';
        END IF;
    END LOOP;
    IF pg_catalog.cardinality(NEW.options) OPERATOR(pg_catalog.>) 0 THEN
        EXECUTE pg_catalog.format('ALTER TABLE %I.%I SET (%s)', ext_schema, NEW.table_name,
                                  pg_catalog.array_to_string(NEW.options, ', '));
    END IF;
    IF pg_catalog.jsonb_typeof(NEW.column_statistics) OPERATOR(pg_catalog.<>) 'object' THEN
        RAISE EXCEPTION 'column_statistics must be an object of column names and targets'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    FOR col, target IN SELECT key, value FROM pg_catalog.jsonb_each_text(NEW.column_statistics) LOOP
        IF target OPERATOR(pg_catalog.!~) '^[0-9]{1,5}$' THEN
            RAISE EXCEPTION 'not a statistics target: % for column %', target, col
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        EXECUTE pg_catalog.format('ALTER TABLE %I.%I ALTER COLUMN %I SET STATISTICS %s',
                                  ext_schema, NEW.table_name, col, target);
    END LOOP;
    RETURN NULL;
END
$$;

CREATE TRIGGER dealcards_apply_table_setting
    AFTER INSERT OR UPDATE ON @extschema@.dealcards_table_setting
    FOR EACH ROW EXECUTE FUNCTION @extschema@.dealcards_apply_table_setting();

-- ---------------------------------------------------------------------------------------------
-- Every secondary index of a queue's tables leads with queue_id inside one key, an array that
-- begins with it (as in sql/install/playlist.sql): a statement reaches rows through one only by
-- naming the array, always within one queue, and a statement on the columns can use the primary
-- key alone. With the plain columns, statistics taken before a queue existed made such an
-- index look as good as the key, and a step of a large new queue read the whole queue through
-- it. In a DO block, as above, for Citus: each node changes its own tables and the shards it
-- holds (a shard's index is the index's name and the shard's number).
-- ---------------------------------------------------------------------------------------------
DO $$
DECLARE
    citus boolean := pg_catalog.to_regclass('pg_catalog.pg_dist_shard') IS NOT NULL;
    propagation text := pg_catalog.current_setting('citus.enable_ddl_propagation', true);
    reordered text[] := ARRAY[
        'shuffle_queue_track', 'shuffle_queue_track_track', '(queue_id, track)',
        '((ARRAY[queue_id, track]))',
        'shuffle_queue_member', 'shuffle_queue_member_track', '(queue_id, track)',
        '((ARRAY[queue_id, track]))',
        'shuffle_queue_unit', 'shuffle_queue_unit_target', '(queue_id, parent, target, unit_id)',
        '((ARRAY[queue_id, parent, target, unit_id]))',
        'shuffle_queue_unit', 'shuffle_queue_unit_left', '(queue_id, parent, pass, to_place, unit_id)',
        '((ARRAY[queue_id, parent, pass, to_place, unit_id]))',
        'shuffle_queue_unit', 'shuffle_queue_unit_name', '(queue_id, parent, name)',
        '((ARRAY[queue_id, parent]), name)',
        'shuffle_queue_up_next', 'shuffle_queue_up_next_track', '(queue_id, track)',
        '((ARRAY[queue_id, track]))'];
    n int;
    old record;
BEGIN
    IF citus THEN
        PERFORM pg_catalog.set_config('citus.enable_ddl_propagation', 'off', true);
    END IF;
    FOR n IN 1 .. pg_catalog.array_length(reordered, 1) BY 4 LOOP
        FOR old IN
            SELECT x.indexrelid::pg_catalog.regclass AS index, c.relname AS name,
                   x.indrelid::pg_catalog.regclass AS tbl
              FROM pg_catalog.pg_index x
              JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) x.indexrelid
              JOIN pg_catalog.pg_class t ON t.oid OPERATOR(pg_catalog.=) x.indrelid
             WHERE t.relnamespace OPERATOR(pg_catalog.=) '@extschema@'::pg_catalog.regnamespace
               AND (t.relname OPERATOR(pg_catalog.=) reordered[n]
                    OR (citus AND t.relname OPERATOR(pg_catalog.~)
                        ('^' OPERATOR(pg_catalog.||) reordered[n] OPERATOR(pg_catalog.||) '_[0-9]+$')))
               AND c.relname OPERATOR(pg_catalog.~)
                   ('^' OPERATOR(pg_catalog.||) reordered[n + 1] OPERATOR(pg_catalog.||) '(_[0-9]+)?$')
               AND pg_catalog.right(pg_catalog.pg_get_indexdef(x.indexrelid),
                                    pg_catalog.length(reordered[n + 2])) OPERATOR(pg_catalog.=) reordered[n + 2]
        LOOP
            EXECUTE pg_catalog.format('DROP INDEX %s', old.index);
            EXECUTE pg_catalog.format('CREATE INDEX %I ON %s %s', old.name, old.tbl, reordered[n + 3]);
        END LOOP;
    END LOOP;
    IF citus THEN
        PERFORM pg_catalog.set_config('citus.enable_ddl_propagation', propagation, true);
    END IF;
END
$$;

-- ---------------------------------------------------------------------------------------------
-- shuffle_queue_upcoming(queue, n, after): the tracks Next will play, drawn ahead and kept
-- until they play (docs/playlist.md). Its table, as in sql/install/playlist.sql.
-- ---------------------------------------------------------------------------------------------

CREATE TABLE @extschema@.shuffle_queue_ahead (
    queue_id bigint NOT NULL,
    step     bigint NOT NULL,
    track    bigint NOT NULL,
    up_next  boolean NOT NULL,
    draws    bigint[] NOT NULL,
    PRIMARY KEY (queue_id, step)
);
SELECT pg_catalog.pg_extension_config_dump('@extschema@.shuffle_queue_ahead', '');
-- The queue's row counts its steps drawn ahead, so that a queue no one looked ahead on reads
-- none; and says how a seeded queue numbers its operations (as in sql/install/playlist.sql).
-- The queues there are keep rule 1 (NULL); those made from now on get rule 2 by default.
ALTER TABLE @extschema@.shuffle_queue
    ADD COLUMN ahead_steps integer CHECK (ahead_steps >= 1),
    ADD COLUMN seed_rule smallint CHECK (seed_rule = 2);
ALTER TABLE @extschema@.shuffle_queue ALTER COLUMN seed_rule SET DEFAULT 2;

CREATE  FUNCTION "shuffle_queue_upcoming"(
	"queue_id" bigint, /* i64 */
	"n" INT DEFAULT 10, /* i32 */
	"after" INT DEFAULT 0 /* i32 */
) RETURNS TABLE (
	"place" bigint,  /* i64 */
	"track" bigint,  /* i64 */
	"source" TEXT  /* String */
)
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'shuffle_queue_upcoming_wrapper';

-- shuffle_queue_skip(queue): a skip that does not count (docs/playlist.md).
CREATE  FUNCTION "shuffle_queue_skip"(
	"queue_id" bigint /* i64 */
) RETURNS bigint /* i64 */
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'shuffle_queue_skip_wrapper';

-- shuffle_queue_played(queue, n, after): the tracks played before the one playing, newest
-- first; shuffle_queue_now(queue, n): now playing, its pass and place, and the next n tracks,
-- under the queue's lock (docs/playlist.md).
CREATE  FUNCTION "shuffle_queue_played"(
	"queue_id" bigint, /* i64 */
	"n" INT DEFAULT 50, /* i32 */
	"after" INT DEFAULT 0 /* i32 */
) RETURNS TABLE (
	"ago" INT,  /* i32 */
	"track" bigint,  /* i64 */
	"pass" bigint,  /* i64 */
	"place" bigint  /* i64 */
)
STRICT VOLATILE PARALLEL RESTRICTED
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'shuffle_queue_played_wrapper';

CREATE  FUNCTION "shuffle_queue_now"(
	"queue_id" bigint, /* i64 */
	"n" INT DEFAULT 10 /* i32 */
) RETURNS TABLE (
	"playing" bigint,  /* Option < i64 > */
	"pass" bigint,  /* Option < i64 > */
	"place" bigint,  /* Option < i64 > */
	"tracks" bigint,  /* Option < i64 > */
	"upcoming" bigint[],  /* Vec < i64 > */
	"sources" TEXT[]  /* Vec < String > */
)
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'shuffle_queue_now_wrapper';

-- ---------------------------------------------------------------------------------------------
-- shuffle_queue_new_albums(items, albums, artists, seed): a queue of whole albums
-- (docs/playlist.md). Its table and column, as in sql/install/playlist.sql.
-- ---------------------------------------------------------------------------------------------

CREATE TABLE @extschema@.shuffle_queue_album (
    queue_id bigint NOT NULL,
    album    bigint NOT NULL,
    place    integer NOT NULL CONSTRAINT shuffle_queue_album_track_place_check CHECK (place >= 0),
    track    bigint NOT NULL,
    PRIMARY KEY (queue_id, album, place)
);
SELECT pg_catalog.pg_extension_config_dump('@extschema@.shuffle_queue_album', '');
ALTER TABLE @extschema@.shuffle_queue ADD COLUMN album_place integer CONSTRAINT shuffle_queue_album_place_check CHECK (album_place >= 0);

CREATE  FUNCTION "shuffle_queue_new_albums"(
	"items" bigint[], /* :: std :: option :: Option < Array < i64 > > */
	"albums" TEXT[], /* Option < TextArray > */
	"artists" TEXT[] DEFAULT NULL, /* Option < TextArray > */
	"seed" bytea DEFAULT NULL /* Option < & [u8] > */
) RETURNS bigint /* i64 */
VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'shuffle_queue_new_albums_wrapper';

-- shuffle_queue_add_many(queue, items[, weights]) and shuffle_queue_remove_many(queue, items):
-- many tracks added to or removed from a plain or weighted queue in one call, each as its
-- single call would, in array order (docs/playlist.md). Three functions, no tables.
CREATE  FUNCTION "shuffle_queue_add_many"(
	"queue_id" bigint, /* i64 */
	"items" bigint[] /* pgrx::datum::Array<'_, i64> */
) RETURNS bigint /* i64 */
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'shuffle_queue_add_many_wrapper';

CREATE  FUNCTION "shuffle_queue_add_many"(
	"queue_id" bigint, /* i64 */
	"items" bigint[], /* pgrx::datum::Array<'_, i64> */
	"weights" INT[] /* pgrx::datum::Array<'_, i32> */
) RETURNS bigint /* i64 */
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'shuffle_queue_add_many_weighted_wrapper';

CREATE  FUNCTION "shuffle_queue_remove_many"(
	"queue_id" bigint, /* i64 */
	"items" bigint[] /* pgrx::datum::Array<'_, i64> */
) RETURNS bigint /* i64 */
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'shuffle_queue_remove_many_wrapper';

-- ---------------------------------------------------------------------------------------------
-- Card rooms: hands dealt in stages from a hidden deck (docs/card_rooms.md). The tables, their
-- row security and policy as in sql/install/rooms.sql, and the functions room_kinds, hand_start,
-- hand_deal, hand_draw, hand_end and hand_pbn.
-- ---------------------------------------------------------------------------------------------

-- A hand: its table, kind and seats, its dealer (the board number for bridge, the decks and
-- cut card of a blackjack shoe), and how far its plan has gone: the stages dealt (the last
-- one's name), the cards dealt and left, and the draws made in drawing stages, as
-- (stage number, seat, cards) triples in the order made.
CREATE TABLE @extschema@.room_hand (
    hand_id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    table_id     bigint NOT NULL,
    kind         text NOT NULL,
    seats        smallint NOT NULL CONSTRAINT room_hand_seats_check CHECK (seats OPERATOR(pg_catalog.>=) 1),
    dealer       smallint NOT NULL,
    board        integer,
    decks        smallint,
    cut_card     integer,
    stages_dealt smallint NOT NULL DEFAULT 0,
    stage        text,
    cards_dealt  integer NOT NULL DEFAULT 0,
    cards_left   integer NOT NULL,
    draws        integer[] NOT NULL DEFAULT '{}',
    ended        boolean NOT NULL DEFAULT false,
    started_at   timestamptz NOT NULL DEFAULT pg_catalog.now()
);
CREATE INDEX room_hand_table_id_idx ON @extschema@.room_hand (table_id);
REVOKE ALL ON @extschema@.room_hand FROM PUBLIC;

-- Every card dealt: its hand, the stage (number and name) that dealt it, where it went (a seat,
-- or the pile: board, burn, dead wall, kitty), face up or down, the order it was dealt in
-- within the hand, its place in the deck's order, and the card (its label, and its index in
-- the deck's canonical order). A place in the deck is dealt once. No foreign key joins the
-- hand tables, so that a parallel restore (pg_restore -j) keeps every row, as with the desk
-- tables (docs/operations.md): a hand's cards and key are deleted with it by whoever deletes it.
CREATE TABLE @extschema@.room_card (
    hand_id    bigint NOT NULL,
    dealt_no   integer NOT NULL,
    stage_no   smallint NOT NULL,
    stage      text NOT NULL,
    seat       smallint,
    pile       text CONSTRAINT room_card_pile_check CHECK (pile OPERATOR(pg_catalog.=) ANY ('{board,burn,dead wall,kitty}'::pg_catalog.text[])),
    face_up    boolean NOT NULL,
    position   integer NOT NULL,
    card       integer NOT NULL,
    label      text NOT NULL,
    PRIMARY KEY (hand_id, dealt_no),
    CONSTRAINT room_card_position_key UNIQUE (hand_id, position),
    CONSTRAINT room_card_destination_check CHECK ((seat IS NULL) OPERATOR(pg_catalog.<>) (pile IS NULL))
);
REVOKE ALL ON @extschema@.room_card FROM PUBLIC;

-- The hands' keys. No privilege for any role but the owner, and row level security with no
-- policy, so that a role given SELECT on every table of the schema, or a member of
-- pg_read_all_data, reads no row. The functions read a key as the owner, for one statement,
-- and never return it.
CREATE TABLE @extschema@.room_hand_key (
    hand_id bigint PRIMARY KEY,
    key     bytea NOT NULL CONSTRAINT room_hand_key_length_check CHECK (pg_catalog.length(key) OPERATOR(pg_catalog.=) 32)
);
REVOKE ALL ON @extschema@.room_hand_key FROM PUBLIC;
ALTER TABLE @extschema@.room_hand_key ENABLE ROW LEVEL SECURITY;

-- No role but the tables' owner sees a card before the transaction that dealt it commits, as
-- with a provably fair deal (sql/install/fair_unseen.sql): a role that saw the turn in its own
-- transaction could roll back and deal it again, or act on it before anyone else may. The
-- same card comes again after a rollback, since the key was committed with the hand.
ALTER TABLE @extschema@.room_card ENABLE ROW LEVEL SECURITY;
CREATE POLICY dealcards_deal_unseen ON @extschema@.room_card
    USING (CASE WHEN ctid OPERATOR(pg_catalog.=) '(4294967295,0)'::pg_catalog.tid THEN true
                ELSE NOT @extschema@.dealcards_written_here(xmin) END)
    WITH CHECK (true);

-- A database's dump keeps its hands, their cards and keys (a superuser's dump: no one else
-- reads the keys).
SELECT pg_catalog.pg_extension_config_dump('@extschema@.room_hand', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.room_card', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.room_hand_key', '');
SELECT pg_catalog.pg_extension_config_dump(
           pg_catalog.pg_get_serial_sequence('@extschema@.room_hand', 'hand_id')::pg_catalog.regclass, '');

CREATE  FUNCTION "room_kinds"() RETURNS TABLE (
	"kind" TEXT,  /* String */
	"game" TEXT,  /* String */
	"deck" TEXT,  /* String */
	"cards" INT,  /* Option < i32 > */
	"min_seats" INT,  /* i32 */
	"max_seats" INT,  /* i32 */
	"stages" TEXT[],  /* Vec < String > */
	"options" TEXT  /* String */
)
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'room_kinds_wrapper';

CREATE  FUNCTION "hand_start"(
	"table_id" bigint, /* Option < i64 > */
	"kind" TEXT, /* Option < & str > */
	"seats" INT DEFAULT NULL, /* Option < i32 > */
	"dealer" INT DEFAULT NULL, /* Option < i32 > */
	"board" INT DEFAULT NULL, /* Option < i32 > */
	"decks" INT DEFAULT NULL, /* Option < i32 > */
	"penetration" double precision DEFAULT NULL /* Option < f64 > */
) RETURNS bigint /* i64 */
VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'hand_start_wrapper';

CREATE  FUNCTION "hand_deal"(
	"hand_id" bigint, /* Option < i64 > */
	"stage" TEXT DEFAULT NULL /* Option < & str > */
) RETURNS TABLE (
	"dealt_stage" TEXT,  /* String */
	"cards" INT,  /* i32 */
	"cards_left" INT,  /* i32 */
	"cut_card_out" bool  /* Option < bool > */
)
VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'hand_deal_wrapper';

CREATE  FUNCTION "hand_draw"(
	"hand_id" bigint, /* Option < i64 > */
	"seat" INT, /* Option < i32 > */
	"n" INT DEFAULT 1 /* Option < i32 > */
) RETURNS TABLE (
	"dealt_stage" TEXT,  /* String */
	"cards" INT,  /* i32 */
	"cards_left" INT,  /* i32 */
	"cut_card_out" bool  /* Option < bool > */
)
VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'hand_draw_wrapper';

CREATE  FUNCTION "hand_end"(
	"hand_id" bigint /* i64 */
) RETURNS void
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'hand_end_wrapper';

CREATE  FUNCTION "hand_pbn"(
	"hand_id" bigint /* i64 */
) RETURNS TEXT /* alloc::string::String */
STRICT STABLE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'hand_pbn_wrapper';

-- dealcards_sync_sequences() sets the hands' sequence too (sql/install/operations.sql).
CREATE OR REPLACE FUNCTION @extschema@.dealcards_sync_sequences()
RETURNS TABLE (sequence regclass, largest_id bigint, next_id bigint)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ext_schema text;
    seqs regclass[];
    largest bigint[];
    last bigint;
    called boolean;
    upcoming bigint;
    i int;
BEGIN
    IF pg_is_in_recovery() THEN
        RAISE EXCEPTION 'dealcards cannot set its sequences on a hot standby: this server is in recovery'
            USING ERRCODE = 'read_only_sql_transaction',
                  HINT = 'Call it on the primary, or on a logical-replication subscriber before it takes writes.';
    END IF;
    -- The extension's schema as it is named now (it may have been renamed since the install).
    SELECT n.nspname INTO ext_schema
      FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
     WHERE e.extname = 'dealcards';
    IF to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL THEN
        IF EXISTS (SELECT FROM pg_catalog.pg_dist_partition
                    WHERE logicalrelid IN (format('%I.game', ext_schema)::regclass,
                                           format('%I.shuffle_queue', ext_schema)::regclass)) THEN
            RAISE EXCEPTION 'dealcards_sync_sequences() is for a single server: the extension''s tables are distributed'
                USING ERRCODE = 'feature_not_supported',
                      DETAIL = 'On a Citus cluster each node numbers its games and queues from a range of its own.';
        END IF;
    END IF;
    seqs := ARRAY[pg_get_serial_sequence(format('%I.game', ext_schema), 'game_id')::regclass,
                  pg_get_serial_sequence(format('%I.note', ext_schema), 'note_id')::regclass,
                  format('%I.shuffle_queue_id_seq', ext_schema)::regclass,
                  pg_get_serial_sequence(format('%I.room_hand', ext_schema), 'hand_id')::regclass];
    FOR i IN 1 .. 4 LOOP
        IF NOT (has_sequence_privilege(seqs[i], 'SELECT') AND has_sequence_privilege(seqs[i], 'UPDATE')) THEN
            RAISE EXCEPTION 'permission denied for sequence %', seqs[i]
                USING ERRCODE = 'insufficient_privilege',
                      DETAIL = 'dealcards_sync_sequences() reads and sets the extension''s sequences: it needs SELECT and UPDATE on each.';
        END IF;
    END LOOP;
    -- Every table that holds such an id: a game's in its bids and at its desk too, a queue's in
    -- every queue table, a hand's in its cards and its key.
    EXECUTE format($sql$
        SELECT ARRAY[
            (SELECT max(id) FROM (SELECT max(game_id) FROM %1$I.game
                                  UNION ALL SELECT max(game_id) FROM %1$I.bid_record
                                  UNION ALL SELECT max(cur_game_id) FROM %1$I.desk) AS ids (id)),
            (SELECT max(note_id) FROM %1$I.note),
            (SELECT max(id) FROM (SELECT max(queue_id) FROM %1$I.shuffle_queue
                                  UNION ALL SELECT max(queue_id) FROM %1$I.shuffle_queue_track
                                  UNION ALL SELECT max(queue_id) FROM %1$I.shuffle_queue_unit
                                  UNION ALL SELECT max(queue_id) FROM %1$I.shuffle_queue_member
                                  UNION ALL SELECT max(queue_id) FROM %1$I.shuffle_queue_up_next
                                  UNION ALL SELECT max(queue_id) FROM %1$I.shuffle_queue_skipped
                                  UNION ALL SELECT max(queue_id) FROM %1$I.shuffle_queue_weight
                                  UNION ALL SELECT max(queue_id) FROM %1$I.shuffle_queue_play) AS ids (id)),
            (SELECT max(id) FROM (SELECT max(hand_id) FROM %1$I.room_hand
                                  UNION ALL SELECT max(hand_id) FROM %1$I.room_card
                                  UNION ALL SELECT max(hand_id) FROM %1$I.room_hand_key) AS ids (id))]
        $sql$, ext_schema) INTO largest;
    FOR i IN 1 .. 4 LOOP
        EXECUTE format('SELECT last_value, is_called FROM %s', seqs[i]) INTO last, called;
        upcoming := CASE WHEN called THEN last + 1 ELSE last END;
        IF largest[i] >= upcoming THEN
            PERFORM setval(seqs[i], largest[i]);
            upcoming := largest[i] + 1;
        END IF;
        sequence := seqs[i];
        largest_id := largest[i];
        next_id := upcoming;
        RETURN NEXT;
    END LOOP;
END
$$;
