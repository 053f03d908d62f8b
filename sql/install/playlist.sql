-- Shuffle queues (crates/core/src/playlist.rs): one row per queue holding its pointers, one row per position
-- of its tape. A step of a queue reads its queue row and touches two tape rows, whatever the
-- length. The rows are written only by the shuffle_queue_* functions.
-- Names are qualified with the extension's schema, as in dealing.sql: this script runs with
-- whatever schema CREATE EXTENSION ... SCHEMA chose.

CREATE SEQUENCE @extschema@.shuffle_queue_id_seq;

CREATE TABLE @extschema@.shuffle_queue (
    queue_id    bigint PRIMARY KEY DEFAULT pg_catalog.nextval('@extschema@.shuffle_queue_id_seq'),
    mode        text NOT NULL CHECK (mode IN ('shuffle', 'random', 'spread')),
    -- The window given at creation; NULL: half the length, following the length as it changes.
    window_size integer CHECK (window_size >= 0),
    tracks      bigint NOT NULL CHECK (tracks >= 1),
    -- The tape holds positions front .. front + tracks - 1; the last `history` of them are the
    -- tracks played, oldest first, the newest pick (*) at the end; the play position (^) is
    -- `behind` places before the newest pick.
    front       bigint NOT NULL,
    history     bigint NOT NULL CHECK (history >= 0 AND history <= tracks),
    behind      bigint NOT NULL CHECK (behind >= 0 AND (behind < history OR behind = 0)),
    -- A queue spread by group (mode 'spread', crates/core/src/playlist/groups.rs); NULL for the
    -- others. Its history is its rows of shuffle_queue_track (positions front .. front + history
    -- - 1), its tracks are in shuffle_queue_member. levels: 1 (groups) or 2 (groups and
    -- subgroups); the pass, the tracks left in it, the group placed last (0: none yet), the id of
    -- the next unit made.
    levels      smallint CHECK (levels IN (1, 2)),
    pass        bigint,
    pass_left   bigint CHECK (pass_left >= 1),
    last_group  bigint,
    next_unit   bigint,
    -- The lookahead of the groups (playlist/groups.rs, Lookahead): the first groups by target
    -- and by tracks left in the pass, so that a step reads the unit indexes only now and then.
    ahead_target bigint[],
    ahead_left   bigint[],
    -- How many tracks are up next (rows of shuffle_queue_up_next); NULL: none.
    up_next     integer CHECK (up_next >= 1),
    -- A seeded queue (docs/playlist.md, "A seeded queue"): its seed, and how many operations
    -- have drawn from it; NULL for a queue of the live generator.
    seed        bytea CHECK (octet_length(seed) = 32),
    draws       bigint CHECK (draws >= 0),
    -- A weighted queue (random play with weights): its heaviest weight; NULL for the others.
    weight_max  integer CHECK (weight_max BETWEEN 1 AND 1000),
    -- A queue played for a listener (fewer repeats across sessions): the listener, and how many
    -- plays it has recorded for them in shuffle_queue_play; NULL for the others.
    listener    bigint,
    plays       bigint CHECK (plays >= 0),
    -- How many steps of Next are drawn ahead (rows of shuffle_queue_ahead); NULL: none.
    ahead_steps integer CHECK (ahead_steps >= 1),
    -- How a seeded queue numbers its operations (docs/playlist.md, "A seeded queue, byte for
    -- byte"): 2, a Next that replays is not an operation (queues made from 0.7.0 on); NULL,
    -- rule 1, every Next is one (queues made before, and those restored from their states).
    seed_rule   smallint DEFAULT 2 CHECK (seed_rule = 2),
    -- A queue of whole albums (shuffle_queue_new_albums): the place in the album playing of
    -- the track playing (0 before the first Next); NULL for the other queues. Its spread queue's
    -- tracks are album numbers, whose tracks are in shuffle_queue_album.
    album_place integer CONSTRAINT shuffle_queue_album_place_check CHECK (album_place >= 0),
    CONSTRAINT shuffle_queue_listener_plays_check CHECK ((listener IS NULL) = (plays IS NULL)),
    CONSTRAINT shuffle_queue_seed_draws_check CHECK ((seed IS NULL) = (draws IS NULL))
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

-- For add (is the track there already?) and remove (where is it?). Every secondary index of the
-- queue tables leads with queue_id, inside one key: an array that begins with it. So a statement
-- reaches rows through such an index only by naming that array (ARRAY[queue_id, track] = ...),
-- and always within one queue; a statement on the columns themselves (queue_id = $1 AND
-- position = $2) can use the primary key alone. No statistics, stale or taken among dead rows,
-- leave the planner a second index to read a whole queue, or every queue, through
-- (docs/playlist.md, "Where the state lives").
CREATE INDEX shuffle_queue_track_track ON @extschema@.shuffle_queue_track ((ARRAY[queue_id, track]));

-- A spread queue's units: its groups (parent 0) and, with two levels, the subgroups of each
-- (parent: the group's unit_id). Each holds its spread over the passes: its tracks in the
-- shuffle (size), those not yet placed in its pass (to_place), those placed (placed), its pass,
-- the pass's random offset (shift) and the target of its next track; last_child is, for a group
-- with subgroups, the subgroup placed last, and ahead_target, ahead_left the lookahead of its
-- subgroups. name is the group's value (NULL: a track without a group, a unit of its own),
-- compared byte for byte.
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

-- The next unit: the earliest target under a parent, the most tracks left in a pass, and a
-- group by its name (for an added track). Each leads with an array of queue_id and the parent
-- (see shuffle_queue_track_track).
CREATE INDEX shuffle_queue_unit_target ON @extschema@.shuffle_queue_unit ((ARRAY[queue_id, parent, target, unit_id]));
CREATE INDEX shuffle_queue_unit_left ON @extschema@.shuffle_queue_unit ((ARRAY[queue_id, parent, pass, to_place, unit_id]));
CREATE INDEX shuffle_queue_unit_name ON @extschema@.shuffle_queue_unit ((ARRAY[queue_id, parent]), name);

-- A spread queue's tracks, in the slots of their unit of the last level: slots 0 .. to_place - 1
-- hold the tracks not yet placed in the unit's pass.
CREATE TABLE @extschema@.shuffle_queue_member (
    queue_id bigint NOT NULL,
    unit_id  bigint NOT NULL,
    slot     bigint NOT NULL,
    track    bigint NOT NULL,
    PRIMARY KEY (queue_id, unit_id, slot)
);

-- Where a track is (for add, remove and jump), as shuffle_queue_track_track.
CREATE INDEX shuffle_queue_member_track ON @extschema@.shuffle_queue_member ((ARRAY[queue_id, track]));

-- Tracks put up next (shuffle_queue_play_next, shuffle_queue_play_later, or start_with): they
-- play in seq order before the shuffle goes on.
CREATE TABLE @extschema@.shuffle_queue_up_next (
    queue_id bigint NOT NULL,
    seq      bigint NOT NULL,
    track    bigint NOT NULL,
    PRIMARY KEY (queue_id, seq)
);
-- A removed or skipped track leaves the list (an index as shuffle_queue_track_track).
CREATE INDEX shuffle_queue_up_next_track ON @extschema@.shuffle_queue_up_next ((ARRAY[queue_id, track]));

-- Tracks skipped when shuffling: in the queue, out of the shuffle (off the tape, or out of their
-- group's slots) until the flag is cleared. unit_id: the group of the last level a track of a
-- queue spread by group goes back to.
CREATE TABLE @extschema@.shuffle_queue_skipped (
    queue_id bigint NOT NULL,
    track    bigint NOT NULL,
    unit_id  bigint,
    PRIMARY KEY (queue_id, track)
);

-- A weighted queue's weights: one per track, in the shuffle or skipped.
CREATE TABLE @extschema@.shuffle_queue_weight (
    queue_id bigint NOT NULL,
    track    bigint NOT NULL,
    weight   integer NOT NULL CHECK (weight BETWEEN 1 AND 1000),
    PRIMARY KEY (queue_id, track)
);

-- Steps of Next drawn ahead (shuffle_queue_upcoming): the track each plays, whether it is the
-- listener's track up next, and the values its draws returned, which the Next that plays it
-- draws again (crates/core/src/playlist/ahead.rs). Next plays the lowest step and deletes it;
-- any other change to the queue deletes them all.
CREATE TABLE @extschema@.shuffle_queue_ahead (
    queue_id bigint NOT NULL,
    step     bigint NOT NULL,
    track    bigint NOT NULL,
    up_next  boolean NOT NULL,
    draws    bigint[] NOT NULL,
    PRIMARY KEY (queue_id, step)
);

-- A queue of whole albums: each album's tracks, in the order they play (place 0 first).
CREATE TABLE @extschema@.shuffle_queue_album (
    queue_id bigint NOT NULL,
    album    bigint NOT NULL,
    place    integer NOT NULL CONSTRAINT shuffle_queue_album_track_place_check CHECK (place >= 0),
    track    bigint NOT NULL,
    PRIMARY KEY (queue_id, album, place)
);

-- What queues played for their listeners: a ring of 1000 slots per queue, kept when the queue
-- is dropped (a listener's recent plays, across all of their queues), trimmed to a listener's
-- 1000 most recent when a queue is made for them, and forgotten by shuffle_queue_forget.
CREATE TABLE @extschema@.shuffle_queue_play (
    queue_id  bigint NOT NULL,
    slot      bigint NOT NULL,
    listener  bigint NOT NULL,
    track     bigint NOT NULL,
    played_at timestamptz NOT NULL,
    PRIMARY KEY (queue_id, slot)
);
CREATE INDEX shuffle_queue_play_listener ON @extschema@.shuffle_queue_play (listener, played_at);

-- pg_dump keeps the queues and their positions, and the sequence's value.
SELECT pg_catalog.pg_extension_config_dump('@extschema@.shuffle_queue', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.shuffle_queue_track', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.shuffle_queue_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.shuffle_queue_unit', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.shuffle_queue_member', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.shuffle_queue_up_next', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.shuffle_queue_skipped', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.shuffle_queue_weight', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.shuffle_queue_ahead', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.shuffle_queue_album', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.shuffle_queue_play', '');
