-- dealcards 0.3.0 -> 0.4.0 (ALTER EXTENSION dealcards UPDATE TO '0.4.0').
-- A desk in provably fair mode can name only an unrevealed round of its own, with that round's
-- commitment (docs/provably_fair.md): what lets deal_cards keep a round's server seed between
-- deals. No row changes.

-- A desk that names anything else had its row changed outside dealcards' functions: the update
-- stops and says which, before any change. (On a Citus worker the coordinator has checked.)
DO $$
DECLARE
    broken text;
BEGIN
    IF to_regproc('pg_catalog.citus_is_coordinator') IS NOT NULL THEN
        IF NOT pg_catalog.citus_is_coordinator() THEN
            RETURN;
        END IF;
    END IF;
    SELECT pg_catalog.string_agg(d.desk_id::text, ', ' ORDER BY d.desk_id) INTO broken
      FROM @extschema@.desk d
     WHERE d.fair_round IS NOT NULL
       AND NOT EXISTS (SELECT FROM @extschema@.fair_seed s
                        WHERE s.desk_id = d.desk_id AND s.round = d.fair_round
                          AND s.commitment = d.fair_commitment AND s.revealed_at IS NULL);
    IF broken IS NOT NULL THEN
        RAISE EXCEPTION 'desks % name a commitment that is not an unrevealed round of their own', broken
            USING ERRCODE = 'data_corrupted',
                  HINT = 'Their provably fair state was changed outside dealcards'' functions: UPDATE desk SET fair_round = NULL, fair_commitment = NULL, fair_nonce = NULL for them, update, then fair_mode_on.';
    END IF;
END
$$;

-- On a Citus cluster whose tables are distributed, the coordinator's changes below reach every
-- node's tables, and each worker then runs this script too: there, what is done already is
-- skipped. The changes are statements of a DO block, so that Citus sends each to the workers
-- on its own (not this whole script), and one change per statement, as Citus applies them to
-- the shards.
DO $$
BEGIN
    -- The round while its seed is unrevealed, NULL once revealed: what a desk may name.
    ALTER TABLE @extschema@.fair_seed
        ADD COLUMN IF NOT EXISTS unrevealed_round int
            GENERATED ALWAYS AS (CASE WHEN revealed_at IS NULL THEN round END) STORED;
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_constraint
                    WHERE conrelid = '@extschema@.fair_seed'::pg_catalog.regclass
                      AND conname = 'fair_seed_unrevealed_key') THEN
        ALTER TABLE @extschema@.fair_seed
            ADD CONSTRAINT fair_seed_unrevealed_key UNIQUE (desk_id, unrevealed_round, commitment);
    END IF;
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_constraint
                    WHERE conrelid = '@extschema@.desk'::pg_catalog.regclass
                      AND conname = 'desk_fair_round_fkey') THEN
        ALTER TABLE @extschema@.desk
            ADD CONSTRAINT desk_fair_round_fkey FOREIGN KEY (desk_id, fair_round, fair_commitment)
                REFERENCES @extschema@.fair_seed (desk_id, unrevealed_round, commitment);
    END IF;
    -- A nonce is used once under a commitment because deal_cards takes the next one with the
    -- desk's lock; desk verification reports a repeated or missing one. The unique index that
    -- also enforced it cost a provably fair deal about a twentieth of its speed.
    DROP INDEX IF EXISTS @extschema@.game_fair_nonce_idx;
END
$$;

-- Citus: fair_seed is distributed first now, as desk refers to it (docs/citus.md).
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
