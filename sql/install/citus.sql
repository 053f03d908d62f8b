-- Citus: one step that spreads the extension's tables over a Citus cluster (docs/citus.md).
--
-- The desk tables are distributed by desk_id and colocated, the shuffle queue tables by
-- queue_id, the card rooms' hand tables by hand_id; the functions that work on one desk, one
-- queue or one hand are distributed by their first argument, with force_delegation, so that each
-- call, in a transaction block too, runs whole on the worker that holds its shards.
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
