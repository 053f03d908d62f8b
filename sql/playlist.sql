-- Shuffle queues (crates/core/src/playlist.rs): one row per queue holding its pointers, one row per position
-- of its tape. A step of a queue reads its queue row and touches two tape rows, whatever the
-- length. The rows are written only by the shuffle_queue_* functions.
-- Names are qualified with the extension's schema, as in dealing.sql: this script runs with
-- whatever schema CREATE EXTENSION ... SCHEMA chose.

CREATE SEQUENCE @extschema@.shuffle_queue_id_seq;

CREATE TABLE @extschema@.shuffle_queue (
    queue_id    bigint PRIMARY KEY DEFAULT pg_catalog.nextval('@extschema@.shuffle_queue_id_seq'),
    mode        text NOT NULL CHECK (mode IN ('shuffle', 'random')),
    -- The window given at creation; NULL: half the length, following the length as it changes.
    window_size integer CHECK (window_size >= 0),
    tracks      bigint NOT NULL CHECK (tracks >= 1),
    -- The tape holds positions front .. front + tracks - 1; the last `history` of them are the
    -- tracks played, oldest first, the newest pick (*) at the end; the play position (^) is
    -- `behind` places before the newest pick.
    front       bigint NOT NULL,
    history     bigint NOT NULL CHECK (history >= 0 AND history <= tracks),
    behind      bigint NOT NULL CHECK (behind >= 0 AND (behind < history OR behind = 0))
) WITH (fillfactor = 50); -- room for the update of every step to stay on its page (HOT)

ALTER SEQUENCE @extschema@.shuffle_queue_id_seq OWNED BY @extschema@.shuffle_queue.queue_id;

CREATE TABLE @extschema@.shuffle_queue_track (
    queue_id bigint NOT NULL,
    position bigint NOT NULL,
    track    bigint NOT NULL,
    PRIMARY KEY (queue_id, position)
);

-- No foreign key to shuffle_queue: creating a queue of a million tracks would check it row by
-- row. shuffle_queue_drop deletes both.

-- For add (is the track there already?) and remove (where is it?).
CREATE INDEX shuffle_queue_track_track ON @extschema@.shuffle_queue_track (queue_id, track);

-- pg_dump keeps the queues and their positions, and the sequence's value.
SELECT pg_catalog.pg_extension_config_dump('@extschema@.shuffle_queue', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.shuffle_queue_track', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.shuffle_queue_id_seq', '');
