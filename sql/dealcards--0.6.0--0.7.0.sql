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
VOLATILE LANGUAGE c
SET search_path = pg_catalog, pg_temp
AS 'MODULE_PATHNAME', 'dealcards_sample_rows';
