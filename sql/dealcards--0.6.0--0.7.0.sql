-- dealcards 0.6.0 -> 0.7.0 (ALTER EXTENSION dealcards UPDATE TO '0.7.0').
--
-- Each section below adds what one part of 0.7.0 adds to a fresh install; tests/upgrade.rs
-- compares a database updated through this script with a fresh install, object for object.
\echo Use "ALTER EXTENSION dealcards UPDATE TO '0.7.0'" to load this file. \quit

-- No role but the tables' owner sees a deal before the transaction that dealt commits, nor a
-- seed through a table-wide grant (sql/install/fair_unseen.sql says how: the policies below are
-- the same). On a Citus cluster, Citus would send each statement to the workers at once, while
-- their extension still lacks dealcards_written_here (the coordinator runs the whole update
-- before the workers do). So every node puts row security and the policies on its own copies,
-- with Citus's propagation off: the table, and the shards of it that the node holds; the
-- coordinator's update comes first, then each worker's run of this script.
DO $$
DECLARE
    policy text[] := ARRAY[
        'game', $p$fair_commitment IS NULL
           OR state_no OPERATOR(pg_catalog.<>) 1 OR lord_no OPERATOR(pg_catalog.<>) 0
           OR CASE WHEN ctid OPERATOR(pg_catalog.=) '(4294967295,0)'::pg_catalog.tid THEN true
                   ELSE NOT @extschema@.dealcards_written_here(xmin) END$p$,
        'bid_record', $p$rec_idx OPERATOR(pg_catalog.>) 0 OR rec_idx OPERATOR(pg_catalog.<) -1
           OR CASE WHEN ctid OPERATOR(pg_catalog.=) '(4294967295,0)'::pg_catalog.tid THEN true
                   ELSE NOT @extschema@.dealcards_written_here(xmin) END$p$,
        'note', $p$note_type OPERATOR(pg_catalog.<>) 3 OR flag OPERATOR(pg_catalog.<>) 'y'::pg_catalog.bpchar
           OR CASE WHEN ctid OPERATOR(pg_catalog.=) '(4294967295,0)'::pg_catalog.tid THEN true
                   ELSE NOT @extschema@.dealcards_written_here(xmin) END$p$,
        'fair_seed', NULL];
    citus boolean := pg_catalog.to_regclass('pg_catalog.pg_dist_shard') IS NOT NULL;
    propagation text := pg_catalog.current_setting('citus.enable_ddl_propagation', true);
    i int;
    rel pg_catalog.regclass;
BEGIN
    IF citus THEN
        PERFORM pg_catalog.set_config('citus.enable_ddl_propagation', 'off', true);
    END IF;
    FOR i IN 1 .. pg_catalog.array_length(policy, 1) BY 2 LOOP
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
            IF policy[i + 1] IS NOT NULL
               AND NOT EXISTS (SELECT FROM pg_catalog.pg_policy
                                WHERE polrelid OPERATOR(pg_catalog.=) rel
                                  AND polname OPERATOR(pg_catalog.=) 'dealcards_deal_unseen') THEN
                EXECUTE pg_catalog.format(
                    'CREATE POLICY dealcards_deal_unseen ON %s USING (%s) WITH CHECK (true)',
                    rel, policy[i + 1]);
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
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ext_schema text;
    rel regclass;
    kind "char";
    estimate float8;
    bytes float8;
    percent float8;
    try int := 0;
    key bytea;
    repeatable text := '';
    alias text := 'sampled';
    got bigint;
BEGIN
    IF k IS NULL OR k < 0 THEN
        RAISE EXCEPTION 'k must be 0 or more, got %', coalesce(k::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF seed IS NOT NULL AND octet_length(seed) <> 32 THEN
        RAISE EXCEPTION 'seed must be exactly 32 bytes, got %', octet_length(seed)
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT t.typrelid, c.relkind INTO rel, kind
      FROM pg_type t LEFT JOIN pg_class c ON c.oid = t.typrelid
     WHERE t.oid = pg_typeof(relation);
    IF kind IS NULL OR kind NOT IN ('r', 'p', 'm') THEN
        RAISE EXCEPTION 'sample_rows samples tables: % is not the row type of a table or materialized view',
                        pg_typeof(relation)
            USING ERRCODE = 'wrong_object_type',
                  HINT = 'Name the table by its row type, as in sample_rows(NULL::my_table, 10); to sample a view or a query, aggregate it with sample_agg.';
    END IF;
    IF k = 0 THEN
        RETURN;
    END IF;
    -- The extension's schema as it is named now (it may have been renamed since the install).
    SELECT n.nspname INTO ext_schema
      FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
     WHERE e.extname = 'dealcards';
    -- The rows and bytes of the table, or of its partitions, as the catalog knows them
    -- (pg_partition_tree lists nothing for a relation that is neither partitioned nor a
    -- partition).
    SELECT sum(greatest(c.reltuples, 0)), sum(pg_relation_size(c.oid)) INTO estimate, bytes
      FROM pg_class c
     WHERE c.relkind IN ('r', 'm')
       AND (c.oid = rel OR c.oid IN (SELECT p.relid FROM pg_partition_tree(rel) p));
    IF seed IS NOT NULL OR coalesce(estimate, 0) < 1 THEN
        -- From the pages alone, where the table was never analyzed, and always with a seed (whose
        -- rows then depend on the table's pages, not on its statistics, which ANALYZE changes
        -- and pg_upgrade does not keep): at most 291 rows a page (MaxHeapTuplesPerPage of 8 kB
        -- pages), which errs towards a rate too low. A table whose pages the catalog does not
        -- see (the coordinator's of a Citus table) is taken for a million rows.
        estimate := coalesce(bytes, 0) / current_setting('block_size')::float8 * 291;
        IF estimate < 1 THEN
            estimate := 1e6;
        END IF;
    END IF;
    -- The table's alias in the query names its whole row: it must not be a column's name.
    WHILE EXISTS (SELECT FROM pg_attribute WHERE attrelid = rel AND attname = alias) LOOP
        alias := alias || '_';
    END LOOP;
    -- k + 4 sqrt(k) + 4 rows expected: a try comes back short about once in a thousand or less.
    percent := least(100, 100 * (k + 4 * sqrt(k) + 4) / estimate);
    LOOP
        IF seed IS NULL THEN
            key := sha256(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()));
        ELSE
            key := sha256(seed || int4send(try));
            repeatable := format('REPEATABLE (%s)',
                                 ('x' || substr(encode(key, 'hex'), 1, 13))::bit(52)::bigint);
        END IF;
        -- A row's order is shuffle_key of its relation (a partition's, a shard's) and place.
        RETURN QUERY EXECUTE format(
            'WITH tried AS MATERIALIZED (
                 SELECT %4$I AS r, %1$I.shuffle_key($3, %4$I.tableoid::regclass::text || %4$I.ctid::text) AS o
                   FROM %2$s AS %4$I TABLESAMPLE %1$I.sparse_bernoulli ($1) %3$s)
             SELECT (tried.r).* FROM tried
              WHERE $1 >= 100 OR (SELECT count(*) FROM tried) >= $2
              ORDER BY tried.o LIMIT $2',
            ext_schema, rel, repeatable, alias)
            USING percent::float4, k, key;
        GET DIAGNOSTICS got = ROW_COUNT;
        IF got > 0 OR percent >= 100 THEN
            RETURN;
        END IF;
        percent := least(100, percent * 4);
        try := try + 1;
    END LOOP;
END
$$;

-- ---------------------------------------------------------------------------------------------
-- Rounds end: a round's rules include its bound, at most max_deals deals (1000 unless given)
-- and optionally a time by which its seed is due (reveal_by); past it the desk deals nothing
-- until the round is revealed (docs/provably_fair.md). Every round stored before the update,
-- the one in force at each desk included, gets the default bound of 1000 deals and no time
-- limit: a round in force that has dealt that many already deals again once revealed.
-- fair_mode_on and fair_reveal take the bound. In a DO block, as above, for Citus: each node
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
	"reveal_within" interval DEFAULT NULL /* core::option::Option<pgrx::datum::interval::Interval> */
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
