-- dealcards_sync_sequences(): after a switch-over to a logical-replication subscriber
-- (docs/operations.md). Logical replication copies rows, not sequences: a promoted subscriber
-- would number its next game, note, queue and hand from where its own writes left its sequences,
-- next to the replicated rows of the same ids. This moves each of the extension's sequences
-- forward past the largest id its tables hold, and never back.
--
-- Every maximum is read and every privilege checked before the first setval (which no
-- rollback undoes), so a caller without the privileges changes nothing. Refused on a hot
-- standby (25006, as every function that writes), and on a Citus cluster, where each node
-- numbers from a range of its own (docs/citus.md).
CREATE FUNCTION @extschema@.dealcards_sync_sequences()
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
