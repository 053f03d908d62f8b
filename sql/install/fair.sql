-- Provably fair deals (docs/provably_fair.md): the server seeds of a desk's rounds.
--
-- An unrevealed server seed is the one secret of the protocol. fair_seed has no privileges for
-- any role but its owner (the role that created the extension): the extension's functions read
-- and write it as that owner, for that one statement, and never return a seed. Everyone else
-- sees commitments, and seeds whose reveal has committed, through the fair_commitment view.
CREATE TABLE @extschema@.fair_seed (
    desk_id      int NOT NULL,
    round        int NOT NULL,
    commitment   bytea NOT NULL,
    server_seed  bytea NOT NULL,
    committed_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    revealed_at  timestamptz,
    -- The round while its seed is unrevealed, NULL once revealed: what a desk may name.
    unrevealed_round int GENERATED ALWAYS AS (CASE WHEN revealed_at IS NULL THEN round END) STORED,
    -- The round's rules, fixed with its commitment and published with it: the protocol (1 for
    -- rounds committed before 0.5.0, whose chain does not cover the players; 2 since), the seats
    -- the house plays (their client seed is the empty one, fixed at the commitment), and whether
    -- every other seat's player must set a client seed before a deal.
    protocol       smallint NOT NULL,
    house_seats    smallint[] NOT NULL,
    seeds_required boolean NOT NULL,
    -- The round's bound, fixed with its commitment and published with it: at most max_deals
    -- deals, and its seed due by reveal_by (NULL: no time limit). Past it the desk deals
    -- nothing until the round is revealed.
    max_deals      bigint NOT NULL DEFAULT 1000 CONSTRAINT fair_seed_max_deals_check CHECK (max_deals OPERATOR(pg_catalog.>) 0),
    reveal_by      timestamptz,
    -- The token of the server the round was committed on (dealcards_instance), and the server's
    -- timeline then (a promotion or a point-in-time recovery starts a new one): a deal refuses a
    -- round committed under another token or timeline.
    instance       uuid,
    timeline       bigint,
    -- The place the round was committed in: the database's oid and the identity of the data
    -- directory's global/pg_control file (inode number, birth time). A copy of the data
    -- directory (a base backup, a copy of the files, pg_upgrade) or of the database (CREATE
    -- DATABASE ... TEMPLATE) keeps the token and the timeline but is another place: a deal
    -- refuses a round committed in another place. NULL for a round committed before the
    -- update to 0.7.0, which is not checked for it.
    place          text,
    PRIMARY KEY (desk_id, round),
    CONSTRAINT fair_seed_unrevealed_key UNIQUE (desk_id, unrevealed_round, commitment)
);
REVOKE ALL ON @extschema@.fair_seed FROM PUBLIC;

-- The server this database's rounds are dealt on: a random token that CREATE EXTENSION makes.
-- pg_upgrade, a standby and a point-in-time recovery keep it with the files; pg_dump does not
-- dump it (it is no configuration table), so the CREATE EXTENSION of a restore makes a new one,
-- and so does a logical replica's. A round records the token it was committed under
-- (fair_seed.instance), and a provably fair deal refuses a round of another token (55000): a
-- round in force in a dump may have been revealed since at its source, its seed public. A round
-- also records the server's timeline (fair_seed.timeline): a standby promoted, or a point-in-time
-- recovery, deals nothing under a round of an earlier timeline, whose reveal may have been
-- committed and published after the point the server came back to.
CREATE TABLE @extschema@.dealcards_instance (
    token    uuid NOT NULL DEFAULT pg_catalog.gen_random_uuid(),
    only_row boolean PRIMARY KEY DEFAULT true CONSTRAINT dealcards_instance_one_row CHECK (only_row)
);
INSERT INTO @extschema@.dealcards_instance DEFAULT VALUES;
REVOKE ALL ON @extschema@.dealcards_instance FROM PUBLIC;

-- A desk in provably fair mode names one of its own rounds whose seed is unrevealed, with that
-- round's commitment. No foreign key holds it (pg_restore -j would refuse desks whose round
-- arrives after them, docs/operations.md): only the tables' owner may write those columns, and
-- a provably fair deal records its game only while the desk names such a round (or the
-- transaction fails, XX001), whatever a backend remembers of the round. dealcards_check()
-- names a desk that does not.

-- Every commitment with its rules, and its server seed once revealed: NULL before, and NULL to
-- the transaction that reveals it until that transaction has committed (so no transaction that
-- can still undo a reveal, and with it keep the round in force, ever reads the seed). The seed
-- column is the view's own expression, so no condition a reader adds can see an unrevealed one.
CREATE VIEW @extschema@.fair_commitment WITH (security_barrier) AS
SELECT desk_id,
       round,
       commitment,
       CASE WHEN revealed_at IS NOT NULL AND NOT @extschema@.dealcards_written_here(xmin)
            THEN server_seed END AS server_seed,
       committed_at,
       revealed_at,
       protocol,
       house_seats,
       seeds_required,
       max_deals,
       reveal_by
  FROM @extschema@.fair_seed;

-- A database's dump keeps its commitments and seeds (a superuser's dump: no one else can read
-- fair_seed).
SELECT pg_catalog.pg_extension_config_dump('@extschema@.fair_seed', '');
