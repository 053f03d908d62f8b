-- dealcards 0.2.0 -> 0.3.0 (ALTER EXTENSION dealcards UPDATE TO '0.3.0').
-- Provably fair deals (docs/provably_fair.md), and tables ready for Citus (docs/citus.md).
-- Existing rows are untouched: the new columns are NULL (or '' for client seeds) until a desk is
-- put in provably fair mode.

-- Every key includes the distribution column: a game's key is its desk and its id.
ALTER TABLE @extschema@.game
    DROP CONSTRAINT game_pkey,
    ADD CONSTRAINT game_pkey PRIMARY KEY (desk_id, game_id);

-- A desk's commitment in force, its next nonce and the head of its chain of fair games.
ALTER TABLE @extschema@.desk
    ADD COLUMN fair_round      int,
    ADD COLUMN fair_commitment bytea,
    ADD COLUMN fair_nonce      bigint,
    ADD COLUMN fair_chain_head bytea;

-- The player's own seed for provably fair deals (set_client_seed); '' until set.
ALTER TABLE @extschema@.desk_player ADD COLUMN client_seed text NOT NULL DEFAULT '';

-- Provably fair deals only (NULL otherwise): what verifies the deal, and the desk's chain.
ALTER TABLE @extschema@.game
    ADD COLUMN fair_commitment bytea,
    ADD COLUMN fair_nonce      bigint,
    ADD COLUMN client_seeds    text[],
    ADD COLUMN chain_hash      bytea;
-- A nonce is used once under a commitment; this also finds a desk's fair games in chain order.
CREATE UNIQUE INDEX game_fair_nonce_idx ON @extschema@.game (desk_id, fair_commitment, fair_nonce)
    WHERE fair_commitment IS NOT NULL;

-- The server seeds of a desk's commitments.
-- An unrevealed server seed is the one secret of the protocol. fair_seed has no privileges for
-- any role but its owner (the role that created the extension): the extension's functions read
-- and write it as that owner, for that one statement, and never return an unrevealed seed.
-- Everyone else sees commitments and revealed seeds through the fair_commitment view.
CREATE TABLE @extschema@.fair_seed (
    desk_id      int NOT NULL,
    round        int NOT NULL,
    commitment   bytea NOT NULL,
    server_seed  bytea NOT NULL,
    committed_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    revealed_at  timestamptz,
    PRIMARY KEY (desk_id, round)
);
REVOKE ALL ON @extschema@.fair_seed FROM PUBLIC;

-- Every commitment, with its server seed once revealed (NULL before). The seed column is the
-- view's own expression, so no condition a reader adds can see an unrevealed one.
CREATE VIEW @extschema@.fair_commitment WITH (security_barrier) AS
SELECT desk_id,
       round,
       commitment,
       CASE WHEN revealed_at IS NOT NULL THEN server_seed END AS server_seed,
       committed_at,
       revealed_at
  FROM @extschema@.fair_seed;

-- A database's dump keeps its commitments and seeds (a superuser's dump: no one else can read
-- the table).
SELECT pg_catalog.pg_extension_config_dump('@extschema@.fair_seed', '');

-- The functions of provably fair mode.

CREATE  FUNCTION "fair_mode_on"(
	"desk_id" INT /* i32 */
) RETURNS bytea /* Vec < u8 > */
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'fair_mode_on_wrapper';

CREATE  FUNCTION "fair_mode_off"(
	"desk_id" INT /* i32 */
) RETURNS bytea /* :: std :: option :: Option < Vec < u8 > > */
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'fair_mode_off_wrapper';

CREATE  FUNCTION "fair_reveal"(
	"desk_id" INT /* i32 */
) RETURNS TABLE (
	"server_seed" bytea,  /* Vec < u8 > */
	"commitment" bytea,  /* Vec < u8 > */
	"next_commitment" bytea  /* Vec < u8 > */
)
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'fair_reveal_wrapper';

CREATE  FUNCTION "set_client_seed"(
	"desk_id" INT, /* i32 */
	"seat" INT, /* i32 */
	"seed" TEXT /* TextBytes < '_ > */
) RETURNS void
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'set_client_seed_wrapper';

CREATE  FUNCTION "fair_deal"(
	"server_seed" bytea, /* & [u8] */
	"client_seeds" TEXT[], /* Utf8Texts */
	"nonce" bigint /* i64 */
) RETURNS TABLE (
	"p1_cards" INT[],  /* Vec < i32 > */
	"p2_cards" INT[],  /* Vec < i32 > */
	"p3_cards" INT[],  /* Vec < i32 > */
	"extra_cards" INT[],  /* Vec < i32 > */
	"leader" smallint  /* i16 */
)
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'fair_deal_wrapper';

CREATE  FUNCTION "fair_verify_game"(
	"game_id" bigint /* i64 */
) RETURNS TABLE (
	"game_id" bigint,  /* Option < i64 > */
	"round" INT,  /* Option < i32 > */
	"nonce" bigint,  /* Option < i64 > */
	"verified" bool,  /* Option < bool > */
	"problem" TEXT  /* Option < String > */
)
STRICT STABLE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'fair_verify_game_wrapper';

CREATE  FUNCTION "fair_verify_desk"(
	"desk_id" INT /* i32 */
) RETURNS TABLE (
	"game_id" bigint,  /* Option < i64 > */
	"round" INT,  /* Option < i32 > */
	"nonce" bigint,  /* Option < i64 > */
	"verified" bool,  /* Option < bool > */
	"problem" TEXT  /* Option < String > */
)
STRICT STABLE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'fair_verify_desk_wrapper';

-- Citus: one step that spreads the extension's tables over a Citus cluster (docs/citus.md).
--
-- The desk tables are distributed by desk_id and colocated, the shuffle queue tables by
-- queue_id; the functions that work on one desk or one queue are distributed by their first
-- argument, with force_delegation, so that each call, in a transaction block too, runs whole on
-- the worker that holds that desk's or that queue's shards.
CREATE FUNCTION @extschema@.dealcards_distribute()
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
            (1, 'desk', 'desk_id', NULL),
            (2, 'desk_player', 'desk_id', 'desk'),
            (3, 'game', 'desk_id', 'desk'),
            (4, 'bid_record', 'desk_id', 'desk'),
            (5, 'note', 'desk_id', 'desk'),
            (6, 'fair_seed', 'desk_id', 'desk'),
            (7, 'shuffle_queue', 'queue_id', NULL),
            (8, 'shuffle_queue_track', 'queue_id', 'shuffle_queue')
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
            (2, 'fair_mode_on(integer)', 'desk'),
            (3, 'fair_mode_off(integer)', 'desk'),
            (4, 'fair_reveal(integer)', 'desk'),
            (5, 'set_client_seed(integer, integer, text)', 'desk'),
            (6, 'fair_verify_desk(integer)', 'desk'),
            (7, 'shuffle_queue_next(bigint)', 'shuffle_queue'),
            (8, 'shuffle_queue_prev(bigint)', 'shuffle_queue'),
            (9, 'shuffle_queue_current(bigint)', 'shuffle_queue'),
            (10, 'shuffle_queue_add(bigint, bigint)', 'shuffle_queue'),
            (11, 'shuffle_queue_remove(bigint, bigint)', 'shuffle_queue'),
            (12, 'shuffle_queue_drop(bigint)', 'shuffle_queue')
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
