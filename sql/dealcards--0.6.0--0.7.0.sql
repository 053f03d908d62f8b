-- dealcards 0.6.0 -> 0.7.0 (ALTER EXTENSION dealcards UPDATE TO '0.7.0').
--
-- Each section below adds what one part of 0.7.0 adds to a fresh install; tests/upgrade.rs
-- compares a database updated through this script with a fresh install, object for object.
\echo Use "ALTER EXTENSION dealcards UPDATE TO '0.7.0'" to load this file. \quit

-- No role but the tables' owner sees a deal before the transaction that dealt commits, nor a
-- seed through a table-wide grant (sql/install/fair_unseen.sql says how). On a Citus cluster the coordinator's statements reach
-- the shards and each worker then runs this script too, skipping what is there already: the
-- changes are statements of a DO block, as in the 0.3.0 -> 0.4.0 update.
DO $$
BEGIN
    ALTER TABLE @extschema@.game ENABLE ROW LEVEL SECURITY;
    ALTER TABLE @extschema@.bid_record ENABLE ROW LEVEL SECURITY;
    ALTER TABLE @extschema@.note ENABLE ROW LEVEL SECURITY;
    ALTER TABLE @extschema@.fair_seed ENABLE ROW LEVEL SECURITY;
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_policy
                    WHERE polrelid = '@extschema@.game'::pg_catalog.regclass
                      AND polname = 'dealcards_deal_unseen') THEN
        CREATE POLICY dealcards_deal_unseen ON @extschema@.game
            USING (fair_commitment IS NULL
                   OR state_no OPERATOR(pg_catalog.<>) 1 OR lord_no OPERATOR(pg_catalog.<>) 0
                   OR CASE WHEN ctid OPERATOR(pg_catalog.=) '(4294967295,0)'::pg_catalog.tid THEN true
                           ELSE NOT @extschema@.dealcards_written_here(xmin) END)
            WITH CHECK (true);
    END IF;
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_policy
                    WHERE polrelid = '@extschema@.bid_record'::pg_catalog.regclass
                      AND polname = 'dealcards_deal_unseen') THEN
        CREATE POLICY dealcards_deal_unseen ON @extschema@.bid_record
            USING (rec_idx OPERATOR(pg_catalog.>) 0 OR rec_idx OPERATOR(pg_catalog.<) -1
                   OR CASE WHEN ctid OPERATOR(pg_catalog.=) '(4294967295,0)'::pg_catalog.tid THEN true
                           ELSE NOT @extschema@.dealcards_written_here(xmin) END)
            WITH CHECK (true);
    END IF;
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_policy
                    WHERE polrelid = '@extschema@.note'::pg_catalog.regclass
                      AND polname = 'dealcards_deal_unseen') THEN
        CREATE POLICY dealcards_deal_unseen ON @extschema@.note
            USING (note_type OPERATOR(pg_catalog.<>) 3 OR flag OPERATOR(pg_catalog.<>) 'y'::pg_catalog.bpchar
                   OR CASE WHEN ctid OPERATOR(pg_catalog.=) '(4294967295,0)'::pg_catalog.tid THEN true
                           ELSE NOT @extschema@.dealcards_written_here(xmin) END)
            WITH CHECK (true);
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
