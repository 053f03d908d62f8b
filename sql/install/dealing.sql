-- Tables of the Dou Dizhu dealing workflow (deal_cards): snake-case ports of the desk,
-- players-in-room view, game, bidRecord and writeNote tables of the SQL Server dealCards procedure.
--
-- Every table carries desk_id, every key and unique constraint includes it, and every statement
-- deal_cards runs names its rows by desk_id, so the tables can be distributed by desk
-- (dealcards_distribute() on a Citus coordinator, sql/citus.sql).
-- Names are qualified with the extension's schema: this script runs with whatever schema
-- CREATE EXTENSION ... SCHEMA chose.

-- A table where three people play; cur_game_id is the newest game dealt at it.
-- In provably fair mode (docs/provably_fair.md) fair_round numbers the commitment in force,
-- fair_commitment is it (SHA-256 of the secret server seed, public), fair_nonce the nonce of
-- the next deal under it, and fair_chain_head the chain hash of the desk's newest fair game.
CREATE TABLE @extschema@.desk (
    desk_id         int PRIMARY KEY,
    cur_game_id     bigint,
    fair_round      int,
    fair_commitment bytea,
    fair_nonce      bigint,
    fair_chain_head bytea
);

-- Who sits in which seat. A player sits at one seat of a desk at most.
--
-- No foreign key joins it to desk: pg_restore -j loads the rows of an extension's tables side by
-- side, and a key would refuse seats that arrive before their desk (docs/operations.md). A seat
-- goes with its desk (the rule below), a deal reads only the seats of the desk it deals at, and
-- dealcards_check() names a seat whose desk is missing.
CREATE TABLE @extschema@.desk_player (
    desk_id   int NOT NULL,
    player_no smallint NOT NULL CHECK (player_no BETWEEN 1 AND 3),
    player_id bigint NOT NULL,
    -- The player's own seed for provably fair deals, the round it answers and the player id
    -- that set it (set_client_seed, as the tables' owner); '' and NULL until set. A seed counts
    -- only while its round is the desk's round in force and its player sits in the seat: a new
    -- seating starts without one, and so does a seat whose player_id is rewritten.
    client_seed text NOT NULL DEFAULT '',
    seed_round  int,
    seed_player bigint,
    PRIMARY KEY (desk_id, player_no),
    UNIQUE (desk_id, player_id)
);

-- Deleting a desk deletes its seats, as the foreign key's ON DELETE CASCADE did. A rule, not a
-- trigger: COPY applies no rule, so a restore loads rows as they were, and Citus plans the
-- rewritten statement like any other (it distributes no table with triggers).
CREATE RULE desk_seats_go_with_desk AS ON DELETE TO @extschema@.desk
    DO ALSO DELETE FROM @extschema@.desk_player p WHERE p.desk_id OPERATOR(pg_catalog.=) OLD.desk_id;

-- The procedure's v_playerIDInRoom: one row per desk, its three players by seat (NULL where a seat
-- is free).
CREATE VIEW @extschema@.v_player_id_in_room AS
SELECT d.desk_id,
       max(p.player_id) FILTER (WHERE p.player_no = 1) AS p1_id,
       max(p.player_id) FILTER (WHERE p.player_no = 2) AS p2_id,
       max(p.player_id) FILTER (WHERE p.player_no = 3) AS p3_id
  FROM @extschema@.desk d
  LEFT JOIN @extschema@.desk_player p ON p.desk_id = d.desk_id
 GROUP BY d.desk_id;

-- One deal: three hands of 17 cards, the 3 extra (landlord) cards, who played it, and the state
-- of its bidding (state_no 1 = bidding, lord_no 0 = no landlord yet; leader = first bidder).
CREATE TABLE @extschema@.game (
    game_id     bigint GENERATED ALWAYS AS IDENTITY,
    desk_id     int NOT NULL,
    p1_cards    int[] NOT NULL CHECK (cardinality(p1_cards) = 17),
    p2_cards    int[] NOT NULL CHECK (cardinality(p2_cards) = 17),
    p3_cards    int[] NOT NULL CHECK (cardinality(p3_cards) = 17),
    extra_cards int[] NOT NULL CHECK (cardinality(extra_cards) = 3),
    state_no    smallint NOT NULL DEFAULT 1,
    lord_no     smallint NOT NULL DEFAULT 0 CHECK (lord_no BETWEEN 0 AND 3),
    p1_id       bigint,
    p2_id       bigint,
    p3_id       bigint,
    leader      smallint CHECK (leader BETWEEN 1 AND 3),
    dealt_at    timestamptz NOT NULL DEFAULT pg_catalog.now(),
    -- Provably fair deals only (NULL otherwise): what verifies the deal, and the desk's chain.
    fair_commitment bytea,
    fair_nonce      bigint,
    client_seeds    text[],
    chain_hash      bytea,
    -- A desk's games. Ids are unique on their own too (each node numbers from its own range,
    -- see dealcards_distribute); the key names the desk so that a cluster can keep a desk's
    -- games on one node.
    PRIMARY KEY (desk_id, game_id)
);
-- A desk's games by time.
CREATE INDEX game_desk_dealt_at_idx ON @extschema@.game (desk_id, dealt_at);
-- A player's games: WHERE $1 IN (p1_id, p2_id, p3_id) reads the three.
CREATE INDEX game_p1_id_idx ON @extschema@.game (p1_id);
CREATE INDEX game_p2_id_idx ON @extschema@.game (p2_id);
CREATE INDEX game_p3_id_idx ON @extschema@.game (p3_id);

-- The bids of a game; deal_cards writes the procedure's two opening records (rec_idx 0 and -1).
CREATE TABLE @extschema@.bid_record (
    desk_id   int NOT NULL,
    game_id   bigint NOT NULL,
    player_no smallint NOT NULL CHECK (player_no BETWEEN 1 AND 3),
    rec_idx   int NOT NULL,
    bid_size  smallint NOT NULL,
    -- A game's bids, in order.
    PRIMARY KEY (desk_id, game_id, rec_idx)
);

-- The procedure's writeNote: messages for the players of a desk, read in note_id order.
CREATE TABLE @extschema@.note (
    note_id    bigint GENERATED ALWAYS AS IDENTITY,
    desk_id    int NOT NULL,
    player_no  smallint NOT NULL,
    note_type  smallint NOT NULL,
    flag       char(1) NOT NULL,
    body       text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    -- A desk's notes, in order.
    PRIMARY KEY (desk_id, note_id)
);

-- Keep the rows through pg_dump, and the identity counters with them: the identity sequences
-- are members of the extension too, and without this a restored database would number its next
-- game 1 again.
SELECT pg_catalog.pg_extension_config_dump('@extschema@.desk', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.desk_player', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.game', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.bid_record', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.note', '');
SELECT pg_catalog.pg_extension_config_dump(
           pg_catalog.pg_get_serial_sequence('@extschema@.game', 'game_id')::regclass, '');
SELECT pg_catalog.pg_extension_config_dump(
           pg_catalog.pg_get_serial_sequence('@extschema@.note', 'note_id')::regclass, '');
