-- Card rooms (docs/card_rooms.md): hands dealt in stages from a deck whose order no one holds.
--
-- A hand's 32-byte key is drawn from the operating system's entropy source when the hand
-- starts, and the deck's order is the seeded Fisher-Yates of that key, recomputed at each call
-- and never stored. The functions write these tables as their owner; a game server reads
-- room_hand and room_card with the SELECT it is granted, never room_hand_key.

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
