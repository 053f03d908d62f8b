-- dealcards 0.2.0 -> 0.3.0 (ALTER EXTENSION dealcards UPDATE TO '0.3.0').
-- Provably fair deals (docs/provably_fair.md). Existing rows are untouched: the new columns are
-- NULL (or '' for client seeds) until a desk is put in provably fair mode.

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
