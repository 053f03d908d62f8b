//! SQL functions for provably fair deals (docs/provably_fair.md): the house's commitments, the
//! players' client seeds, the pure recomputation and the verification of stored games.
//!
//! The server seeds live in fair_seed, which only its owner (the role that created the
//! extension) can read. The statements on it run as that owner, one statement at a time
//! ([`as_owner`]), and nothing here returns, raises or notifies a seed that is not revealed.
//! A desk can name only an unrevealed round of its own, with that round's commitment (the
//! foreign key desk_fair_round_fkey): so a backend keeps the seed of the round it last dealt
//! under at each desk ([`round_seed`]) and reads it again only when the desk names another.

use pgrx::prelude::*;
use pgrx::spi::SpiClient;
use pgrx::{pg_sys, PgSqlErrorCode};

use crate::deal::Seats;
use crate::statements::{self, ExtensionSchema};
use crate::text::{utf8_of, TextBytes, Utf8Texts};
use crate::{ok_or_raise, raise};
use dealcards_core::deal::{self, DouDizhuDeal, SEATS};
use dealcards_core::error::{Error, ErrorKind};
use dealcards_core::fair::{self, Hash, Recorded, ServerSeed, CHAIN_START};

extension_sql_file!(
    "../sql/fair.sql",
    name = "fair_tables",
    requires = ["dealing_tables"]
);

/// Lower-case hex, as commitments appear in deal results and notifications.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 15)] as char);
    }
    out
}

/// Runs `f` as the owner of fair_seed, then returns to the caller's identity. The switch is the
/// one SECURITY DEFINER functions make (a local user id change, restricted: no SET ROLE, no
/// temporary objects); an error inside is undone with the rest of the (sub)transaction, which
/// restores the caller.
pub fn as_owner<'conn, R>(
    client: &mut SpiClient<'conn>,
    schema: &ExtensionSchema,
    f: impl FnOnce(&mut SpiClient<'conn>) -> R,
) -> R {
    let owner = schema
        .table_owner(c"fair_seed")
        .unwrap_or_else(|| pgrx::error!("dealcards cannot find its fair_seed table"));
    struct Restore(pg_sys::Oid, i32);
    impl Drop for Restore {
        fn drop(&mut self) {
            // SAFETY: puts back the user id and security context read below.
            unsafe { pg_sys::SetUserIdAndSecContext(self.0, self.1) };
        }
    }
    let (mut user, mut context) = (pg_sys::InvalidOid, 0);
    // SAFETY: reads and sets the backend's current user id and security context, as
    // fmgr_security_definer does around a SECURITY DEFINER call.
    let _restore = unsafe {
        pg_sys::GetUserIdAndSecContext(&mut user, &mut context);
        pg_sys::SetUserIdAndSecContext(
            owner,
            context
                | pg_sys::SECURITY_LOCAL_USERID_CHANGE as i32
                | pg_sys::SECURITY_RESTRICTED_OPERATION as i32,
        );
        Restore(user, context)
    };
    f(client)
}

fn not_fair(desk_id: i32, doing: &str) -> ! {
    raise(Error::new(
        ErrorKind::NotReady,
        format!("desk {desk_id} is not in provably fair mode: {doing}"),
    ))
}

/// Locks the desk (as the caller: the house's operations need UPDATE on desk) and returns its
/// commitment in force, if any, as (round, commitment).
fn lock_desk(
    client: &mut SpiClient<'_>,
    schema: &ExtensionSchema,
    desk_id: i32,
) -> Option<(i32, Vec<u8>)> {
    let table = statements::run(
        client,
        schema,
        "SELECT fair_round, fair_commitment FROM @extschema@.desk \
          WHERE desk_id OPERATOR(pg_catalog.=) $1 FOR UPDATE",
        &[desk_id.into()],
    );
    ok_or_raise(deal::check_desk_exists(desk_id, !table.is_empty()));
    let row = table.first();
    let round = row.get::<i32>(1).ok().flatten();
    let commitment = row.get::<Vec<u8>>(2).ok().flatten();
    round.zip(commitment)
}

/// Draws a new server seed, stores it as the desk's next round and puts its commitment in force.
fn commit(client: &mut SpiClient<'_>, schema: &ExtensionSchema, desk_id: i32) -> Hash {
    let seed = ok_or_raise(fair::new_server_seed());
    let commitment = fair::commitment(&seed);
    let round = as_owner(client, schema, |client| {
        statements::run(
            client,
            schema,
            "INSERT INTO @extschema@.fair_seed (desk_id, round, commitment, server_seed) \
             SELECT $1, COALESCE(pg_catalog.max(round), 0) OPERATOR(pg_catalog.+) 1, $2, $3 \
               FROM @extschema@.fair_seed WHERE desk_id OPERATOR(pg_catalog.=) $1 \
             RETURNING round",
            &[
                desk_id.into(),
                commitment.to_vec().into(),
                seed.to_vec().into(),
            ],
        )
        .first()
        .get::<i32>(1)
        .ok()
        .flatten()
        .expect("the insert returns the round")
    });
    statements::run(
        client,
        schema,
        "UPDATE @extschema@.desk SET fair_round = $2, fair_commitment = $3, fair_nonce = 0 \
          WHERE desk_id OPERATOR(pg_catalog.=) $1",
        &[desk_id.into(), round.into(), commitment.to_vec().into()],
    );
    commitment
}

/// Takes the desk out of provably fair mode, before its round is revealed: a desk names
/// unrevealed rounds only (desk_fair_round_fkey).
fn leave_fair_mode(client: &mut SpiClient<'_>, schema: &ExtensionSchema, desk_id: i32) {
    statements::run(
        client,
        schema,
        "UPDATE @extschema@.desk SET fair_round = NULL, fair_commitment = NULL, fair_nonce = NULL \
          WHERE desk_id OPERATOR(pg_catalog.=) $1",
        &[desk_id.into()],
    );
}

/// Marks the round revealed and returns its server seed.
fn reveal(
    client: &mut SpiClient<'_>,
    schema: &ExtensionSchema,
    desk_id: i32,
    round: i32,
) -> ServerSeed {
    // The time the reveal holds the desk's lock (clock time, not the transaction's start): a
    // deal dealt later than this waited for the reveal. Passed as a value: Citus routes no
    // UPDATE that calls a volatile function.
    // SAFETY: reads the clock.
    let now = unsafe { pg_sys::GetCurrentTimestamp() };
    let now = pgrx::datum::TimestampWithTimeZone::try_from(now)
        .unwrap_or_else(|e| pgrx::error!("cannot read the clock: {e}"));
    let seed = as_owner(client, schema, |client| {
        let table = statements::run(
            client,
            schema,
            "UPDATE @extschema@.fair_seed SET revealed_at = $3 \
              WHERE desk_id OPERATOR(pg_catalog.=) $1 AND round OPERATOR(pg_catalog.=) $2 \
                AND revealed_at IS NULL \
             RETURNING server_seed",
            &[desk_id.into(), round.into(), now.into()],
        );
        if table.is_empty() {
            None
        } else {
            table.first().get::<Vec<u8>>(1).ok().flatten()
        }
    });
    let seed = seed.unwrap_or_else(|| {
        ereport!(
            ERROR,
            PgSqlErrorCode::ERRCODE_DATA_CORRUPTED,
            format!("desk {desk_id} names round {round} as its commitment, which has no unrevealed server seed"),
            "The desk's fair_round was changed outside dealcards' functions; fair_mode_off and fair_mode_on start a new round."
        );
    });
    ok_or_raise(fair::server_seed(&seed))
}

/// Puts a desk in provably fair mode and returns the commitment in force: a new one, or the
/// current one when the desk is in the mode already.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn fair_mode_on(desk_id: i32, fcinfo: pg_sys::FunctionCallInfo) -> Vec<u8> {
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client| match lock_desk(client, &schema, desk_id) {
        Some((_, commitment)) => commitment,
        None => commit(client, &schema, desk_id).to_vec(),
    })
}

/// Takes a desk out of provably fair mode, revealing the server seed in force; NULL when the
/// desk was not in the mode.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn fair_mode_off(desk_id: i32, fcinfo: pg_sys::FunctionCallInfo) -> Option<Vec<u8>> {
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client| {
        let (round, _) = lock_desk(client, &schema, desk_id)?;
        leave_fair_mode(client, &schema, desk_id);
        Some(reveal(client, &schema, desk_id, round).to_vec())
    })
}

/// Reveals the server seed in force at a desk and puts a new commitment in its place.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn fair_reveal(
    desk_id: i32,
    fcinfo: pg_sys::FunctionCallInfo,
) -> TableIterator<
    'static,
    (
        name!(server_seed, Vec<u8>),
        name!(commitment, Vec<u8>),
        name!(next_commitment, Vec<u8>),
    ),
> {
    let schema = ExtensionSchema::of(fcinfo);
    let row = Spi::connect_mut(|client| {
        let (round, commitment) = lock_desk(client, &schema, desk_id)
            .unwrap_or_else(|| not_fair(desk_id, "there is no commitment to reveal"));
        // The desk moves to its next round first: a revealed round is one no desk names.
        let next = commit(client, &schema, desk_id);
        let seed = reveal(client, &schema, desk_id, round);
        (seed.to_vec(), commitment, next.to_vec())
    });
    TableIterator::once(row)
}

/// Sets the client seed of the player in a seat (1..3) of a desk, for the following deals.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn set_client_seed(desk_id: i32, seat: i32, seed: TextBytes<'_>, fcinfo: pg_sys::FunctionCallInfo) {
    let schema = ExtensionSchema::of(fcinfo);
    if !(1..=SEATS as i32).contains(&seat) {
        raise(Error::invalid(format!(
            "seat must be 1 to {SEATS}, got {seat}"
        )));
    }
    let utf8 = utf8_of(seed.0);
    ok_or_raise(fair::check_client_seed(seat as usize, &utf8));
    Spi::connect_mut(|client| {
        let set = statements::run(
            client,
            &schema,
            "UPDATE @extschema@.desk_player SET client_seed = pg_catalog.convert_from($3, 'UTF8') \
              WHERE desk_id OPERATOR(pg_catalog.=) $1 AND player_no OPERATOR(pg_catalog.=) $2 \
             RETURNING player_no",
            &[desk_id.into(), (seat as i16).into(), utf8.into()],
        );
        if set.is_empty() {
            let desk = statements::run(
                client,
                &schema,
                "SELECT FROM @extschema@.desk WHERE desk_id OPERATOR(pg_catalog.=) $1",
                &[desk_id.into()],
            );
            ok_or_raise(deal::check_desk_exists(desk_id, !desk.is_empty()));
            raise(Error::new(
                ErrorKind::NotFound,
                format!("seat {seat} of desk {desk_id} is empty: a client seed belongs to a seated player"),
            ));
        }
    });
}

/// The client seeds as the protocol takes them: three, none NULL, each at most 256 bytes.
fn client_seeds(seeds: &[Option<Vec<u8>>]) -> Result<[&[u8]; SEATS], Error> {
    if seeds.len() != SEATS {
        return Err(Error::invalid(format!(
            "a deal takes {SEATS} client seeds (seats 1 to {SEATS}), got {}",
            seeds.len()
        )));
    }
    let mut out: [&[u8]; SEATS] = [&[]; SEATS];
    for (seat, (slot, seed)) in out.iter_mut().zip(seeds).enumerate() {
        let seed = seed.as_deref().ok_or_else(|| {
            Error::invalid(format!(
                "the client seed of seat {} is NULL: a seat without a seed uses ''",
                seat + 1
            ))
        })?;
        fair::check_client_seed(seat + 1, seed)?;
        *slot = seed;
    }
    Ok(out)
}

/// The deal a server seed, three client seeds and a nonce give, with no table: the recomputation
/// anyone can run once the server seed is revealed.
// The row type is spelled out: pgrx reads the column names from it.
#[allow(clippy::type_complexity)]
#[pg_extern(immutable, strict, parallel_safe)]
fn fair_deal(
    server_seed: &[u8],
    client_seeds: Utf8Texts,
    nonce: i64,
) -> TableIterator<
    'static,
    (
        name!(p1_cards, Vec<i32>),
        name!(p2_cards, Vec<i32>),
        name!(p3_cards, Vec<i32>),
        name!(extra_cards, Vec<i32>),
        name!(leader, i16),
    ),
> {
    let seed = ok_or_raise(fair::server_seed(server_seed));
    let seeds = ok_or_raise(self::client_seeds(&client_seeds.0));
    let nonce = ok_or_raise(fair::nonce(nonce));
    let deal = fair::deal(&seed, &seeds, nonce);
    TableIterator::once((
        deal.hands[0].to_vec(),
        deal.hands[1].to_vec(),
        deal.hands[2].to_vec(),
        deal.extra.to_vec(),
        deal.first_bidder as i16,
    ))
}

/// A desk's provably fair state as deal_cards reads it with the desk's lock.
pub struct FairDesk {
    pub round: i32,
    pub commitment: Vec<u8>,
    pub nonce: i64,
    pub chain_head: Option<Vec<u8>>,
    /// The seats as the lock's statement read them, if it did and they are current.
    pub seats: Option<Seats>,
}

/// What deal_cards records of a fair deal besides the cards.
pub struct FairRecord {
    pub commitment: Hash,
    pub nonce: i64,
    pub player_ids: [Option<i64>; SEATS],
    pub client_seeds: Vec<Vec<u8>>,
    pub chain_hash: Hash,
}

/// The unrevealed server seed of a desk's round, if the round has one. Run as fair_seed's owner.
const ROUND_SEED: &str = "SELECT server_seed FROM @extschema@.fair_seed
      WHERE desk_id OPERATOR(pg_catalog.=) $1 AND round OPERATOR(pg_catalog.=) $2
        AND revealed_at IS NULL";

/// A round's unrevealed server seed as a backend keeps it: the round, its commitment, the seed.
type KeptSeed = (i32, Hash, ServerSeed);

thread_local! {
    /// The server seed of the round each desk (of a schema) was last dealt under in this
    /// backend, with the round and its commitment. A desk can only name an unrevealed round of
    /// its own, with that round's commitment (desk_fair_round_fkey), and a commitment is the
    /// SHA-256 of its seed: so a desk naming the same round and commitment again is under the
    /// same unrevealed seed, and the kept copy is the seed a read would give. A desk with an
    /// entry is one this backend last dealt in provably fair mode ([`dealt_fair`]).
    static ROUND_SEEDS: std::cell::RefCell<std::collections::HashMap<(pg_sys::Oid, i32), KeptSeed>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// Whether this backend keeps the seed of a round of the desk: it last dealt the desk in
/// provably fair mode, so deal_cards reads the seats with the desk's lock. (Not on release
/// 0.3.0's tables, where no seed is kept.)
pub fn dealt_fair(schema: &ExtensionSchema, desk_id: i32) -> bool {
    ROUND_SEEDS.with_borrow(|seeds| seeds.contains_key(&(schema.oid(), desk_id)))
}

/// Forgets the desk's kept seed: deal_cards found the desk out of provably fair mode.
pub fn forget(schema: &ExtensionSchema, desk_id: i32) {
    ROUND_SEEDS.with_borrow_mut(|seeds| seeds.remove(&(schema.oid(), desk_id)));
}

/// A desk whose provably fair state no function of dealcards could have left.
fn broken(desk_id: i32, why: &str) -> ! {
    ereport!(
        ERROR,
        PgSqlErrorCode::ERRCODE_DATA_CORRUPTED,
        format!(
            "desk {desk_id}'s provably fair state was changed outside dealcards' functions: {why}"
        ),
        "fair_mode_off and fair_mode_on put the desk under a new commitment."
    );
}

/// The unrevealed server seed of the round a desk names with `commitment`, and the commitment:
/// this backend's copy, or read as fair_seed's owner and checked against the commitment. A database whose tables
/// predate desk_fair_round_fkey (release 0.3.0, before ALTER EXTENSION UPDATE) reads it every
/// time.
fn round_seed(
    client: &mut SpiClient<'_>,
    schema: &ExtensionSchema,
    desk_id: i32,
    round: i32,
    commitment: &[u8],
) -> (Hash, ServerSeed) {
    let key = (schema.oid(), desk_id);
    let keep = schema.has_column(c"fair_seed", c"unrevealed_round");
    if keep {
        let kept = ROUND_SEEDS.with_borrow(|seeds| {
            seeds
                .get(&key)
                .filter(|(r, c, _)| *r == round && c[..] == *commitment)
                .map(|(_, c, seed)| (*c, *seed))
        });
        if let Some(kept) = kept {
            return kept;
        }
    }
    let read = as_owner(client, schema, |client| {
        let table = statements::run(client, schema, ROUND_SEED, &[desk_id.into(), round.into()]);
        if table.is_empty() {
            None
        } else {
            table.first().get::<Vec<u8>>(1).ok().flatten()
        }
    });
    let seed = read
        .as_deref()
        .and_then(|s| fair::server_seed(s).ok())
        .unwrap_or_else(|| broken(desk_id, "its round has no unrevealed server seed"));
    let hash = fair::commitment(&seed);
    if hash[..] != *commitment {
        broken(desk_id, "its commitment is not the one of its round");
    }
    if keep {
        ROUND_SEEDS.with_borrow_mut(|seeds| {
            if seeds.len() >= 65_536 {
                seeds.clear();
            }
            seeds.insert(key, (round, hash, seed));
        });
    }
    (hash, seed)
}

/// The provably fair deal at a locked desk: the next nonce under its commitment, from the
/// seated players' client seeds; `check_seats` raises when the seats are not all taken.
pub fn deal_at(
    client: &mut SpiClient<'_>,
    schema: &ExtensionSchema,
    desk_id: i32,
    desk: FairDesk,
    check_seats: impl FnOnce(i64),
) -> (DouDizhuDeal, FairRecord) {
    let seats = desk
        .seats
        .unwrap_or_else(|| Seats::read(client, schema, desk_id));
    check_seats(seats.seated);
    let (commitment, server_seed) =
        round_seed(client, schema, desk_id, desk.round, &desk.commitment);
    // A seat's seed is never NULL (desk_player.client_seed NOT NULL); a missing one is '', as
    // fair_deal takes it.
    let given = seats.client_seeds.map(|s| Some(s.unwrap_or_default()));
    let seed_refs = ok_or_raise(client_seeds(&given));
    let nonce = ok_or_raise(fair::nonce(desk.nonce));
    let deal = fair::deal(&server_seed, &seed_refs, nonce);
    let previous: Hash = desk
        .chain_head
        .as_deref()
        .and_then(|h| h.try_into().ok())
        .unwrap_or(CHAIN_START);
    let recorded = Recorded::of_deal(desk_id, &commitment, nonce, seed_refs, &deal);
    let chain_hash = fair::chain_hash(&previous, &recorded).expect("a fresh deal hashes");
    let record = FairRecord {
        commitment,
        nonce: desk.nonce,
        player_ids: seats.player_ids,
        client_seeds: given.into_iter().flatten().collect(),
        chain_hash,
    };
    (deal, record)
}

/// One verified (or not) game of a desk's chain.
struct Checked {
    game_id: Option<i64>,
    round: Option<i32>,
    nonce: Option<i64>,
    verified: Option<bool>,
    problem: Option<String>,
}

/// A desk's fair games in chain order, with the revealed seed of each one's commitment.
const DESK_FAIR_GAMES: &str = "SELECT g.game_id, c.round, g.fair_nonce, g.fair_commitment,
            pg_catalog.cardinality(g.client_seeds),
            pg_catalog.convert_to(g.client_seeds[1], 'UTF8'),
            pg_catalog.convert_to(g.client_seeds[2], 'UTF8'),
            pg_catalog.convert_to(g.client_seeds[3], 'UTF8'),
            g.p1_cards, g.p2_cards, g.p3_cards, g.extra_cards, g.leader, g.chain_hash,
            c.server_seed, g.dealt_at OPERATOR(pg_catalog.>) c.revealed_at
       FROM @extschema@.game g
       LEFT JOIN @extschema@.fair_commitment c
              ON c.desk_id OPERATOR(pg_catalog.=) g.desk_id
             AND c.commitment OPERATOR(pg_catalog.=) g.fair_commitment
      WHERE g.desk_id OPERATOR(pg_catalog.=) $1 AND g.fair_commitment IS NOT NULL
      ORDER BY c.round, g.fair_nonce, g.game_id";

/// Walks a desk's chain of fair games: each one's hash after the previous, its nonce after the
/// previous one's under the same commitment, and, where the seed is revealed, its cards.
fn check_desk(client: &mut SpiClient<'_>, schema: &ExtensionSchema, desk_id: i32) -> Vec<Checked> {
    let desk = statements::run(
        client,
        schema,
        "SELECT fair_chain_head FROM @extschema@.desk WHERE desk_id OPERATOR(pg_catalog.=) $1",
        &[desk_id.into()],
    );
    ok_or_raise(deal::check_desk_exists(desk_id, !desk.is_empty()));
    let head = desk.first().get::<Vec<u8>>(1).ok().flatten();
    let games = statements::run(client, schema, DESK_FAIR_GAMES, &[desk_id.into()]);
    let mut checked = Vec::new();
    let mut previous = CHAIN_START;
    let mut last_stored: Option<Vec<u8>> = None;
    let mut expected: Option<(i32, i64)> = None;
    for row in games {
        let game_id = row.get::<i64>(1).ok().flatten();
        let round = row.get::<i32>(2).ok().flatten();
        let nonce = row.get::<i64>(3).ok().flatten();
        let commitment = row.get::<Vec<u8>>(4).ok().flatten().unwrap_or_default();
        let seed_count = row.get::<i32>(5).ok().flatten().unwrap_or(0);
        let seeds: Vec<Option<Vec<u8>>> = (6..=8)
            .take(seed_count.clamp(0, SEATS as i32) as usize)
            .map(|n| row.get::<Vec<u8>>(n).ok().flatten())
            .chain((seed_count != SEATS as i32).then_some(None))
            .collect();
        let hands: Vec<Vec<Option<i32>>> = (9..=12)
            .map(|n| {
                row.get::<Vec<Option<i32>>>(n)
                    .ok()
                    .flatten()
                    .unwrap_or_default()
            })
            .collect();
        let leader = row.get::<i16>(13).ok().flatten().unwrap_or(0);
        let stored = row.get::<Vec<u8>>(14).ok().flatten();
        let revealed = row.get::<Vec<u8>>(15).ok().flatten();
        let dealt_after_reveal = row.get::<bool>(16).ok().flatten() == Some(true);

        let mut problems = Vec::new();
        if dealt_after_reveal {
            // The reveal records the time it held the desk's lock; a deal that started later
            // waited for it and got the next commitment, unless the desk's row was rewritten.
            problems.push(
                "it was dealt after its commitment's server seed was revealed, when anyone could know the deal in advance".to_string(),
            );
        }
        match (round, nonce) {
            (None, _) => {
                problems.push("its commitment is none of the desk's commitments".to_string())
            }
            (Some(r), Some(n)) => {
                let want = match expected {
                    Some((er, en)) if er == r => en,
                    _ => 0,
                };
                if n != want {
                    problems.push(format!(
                        "its nonce is {n} where {want} comes next under its commitment: a game is missing or was changed"
                    ));
                }
                expected = Some((r, n + 1));
            }
            (Some(_), None) => problems.push("it has no nonce".into()),
        }
        let cards: Option<Vec<Vec<i32>>> = hands
            .iter()
            .map(|h| h.iter().copied().collect::<Option<Vec<i32>>>())
            .collect();
        let seeds = client_seeds(&seeds);
        let revealed_seed = revealed.as_deref().map(fair::server_seed);
        match (cards, seeds) {
            (None, _) => problems.push("it holds a NULL card".into()),
            (_, Err(e)) => problems.push(format!("its client seeds cannot be read: {}", e.message)),
            (Some(cards), Ok(seeds)) => {
                let game = Recorded {
                    desk_id,
                    commitment: &commitment,
                    nonce: nonce.unwrap_or(-1),
                    client_seeds: seeds,
                    hands: [&cards[0], &cards[1], &cards[2], &cards[3]],
                    leader,
                };
                let seed = match &revealed_seed {
                    Some(Ok(seed)) => Some(seed),
                    Some(Err(e)) => {
                        problems.push(format!("its revealed server seed is broken: {}", e.message));
                        None
                    }
                    None => None,
                };
                problems.extend(fair::check_game(&game, &previous, stored.as_deref(), seed));
                // The next game links to this one's stored hash; where that is missing or
                // malformed (reported above), to the hash its record gives.
                previous = match stored.as_deref().and_then(|s| Hash::try_from(s).ok()) {
                    Some(hash) => hash,
                    None => fair::chain_hash(&previous, &game).unwrap_or(previous),
                };
            }
        }
        last_stored = stored.clone();
        let verified = if !problems.is_empty() {
            Some(false)
        } else if revealed.is_some() {
            Some(true)
        } else {
            None
        };
        let problem = if problems.is_empty() {
            revealed
                .is_none()
                .then(|| "the server seed of its commitment is not revealed yet".to_string())
        } else {
            Some(problems.join("; "))
        };
        checked.push(Checked {
            game_id,
            round,
            nonce,
            verified,
            problem,
        });
    }
    if head != last_stored {
        checked.push(Checked {
            game_id: None,
            round: None,
            nonce: None,
            verified: Some(false),
            problem: Some(
                "the desk's chain head is not the hash of its last fair game: its newest games were deleted or changed".into(),
            ),
        });
    }
    checked
}

/// A verification's rows: game_id, round, nonce, verified, problem.
type Rows = Vec<(
    Option<i64>,
    Option<i32>,
    Option<i64>,
    Option<bool>,
    Option<String>,
)>;

fn rows(checked: Vec<Checked>) -> Rows {
    checked
        .into_iter()
        .map(|c| (c.game_id, c.round, c.nonce, c.verified, c.problem))
        .collect()
}

/// Verifies a desk's whole provably fair history: one row per fair game in chain order
/// (verified true: recomputed and linked; NULL: linked, seed not revealed yet; false: the
/// problem says what is wrong), and a last row if the chain's head is missing.
// The row type is spelled out: pgrx reads the column names from it.
#[allow(clippy::type_complexity)]
#[pg_extern(stable, strict, parallel_unsafe)]
fn fair_verify_desk(
    desk_id: i32,
    fcinfo: pg_sys::FunctionCallInfo,
) -> TableIterator<
    'static,
    (
        name!(game_id, Option<i64>),
        name!(round, Option<i32>),
        name!(nonce, Option<i64>),
        name!(verified, Option<bool>),
        name!(problem, Option<String>),
    ),
> {
    let schema = ExtensionSchema::of(fcinfo);
    TableIterator::new(rows(Spi::connect_mut(|client| {
        check_desk(client, &schema, desk_id)
    })))
}

/// Verifies one stored game: its deal recomputes from the revealed seed, its client seeds and
/// nonce, and its link in the desk's chain holds.
// The row type is spelled out: pgrx reads the column names from it.
#[allow(clippy::type_complexity)]
#[pg_extern(stable, strict, parallel_unsafe)]
fn fair_verify_game(
    game_id: i64,
    fcinfo: pg_sys::FunctionCallInfo,
) -> TableIterator<
    'static,
    (
        name!(game_id, Option<i64>),
        name!(round, Option<i32>),
        name!(nonce, Option<i64>),
        name!(verified, Option<bool>),
        name!(problem, Option<String>),
    ),
> {
    let schema = ExtensionSchema::of(fcinfo);
    let checked = Spi::connect_mut(|client| {
        let game = statements::run(
            client,
            &schema,
            "SELECT desk_id, fair_commitment IS NOT NULL FROM @extschema@.game \
              WHERE game_id OPERATOR(pg_catalog.=) $1",
            &[game_id.into()],
        );
        if game.is_empty() {
            raise(Error::new(
                ErrorKind::NotFound,
                format!("game {game_id} does not exist"),
            ));
        }
        let row = game.first();
        let desk_id = row
            .get::<i32>(1)
            .ok()
            .flatten()
            .expect("desk_id is NOT NULL");
        if row.get::<bool>(2).ok().flatten() != Some(true) {
            raise(Error::invalid(format!(
                "game {game_id} was not dealt in provably fair mode: there is nothing to verify"
            )));
        }
        check_desk(client, &schema, desk_id)
    });
    let mine = checked
        .into_iter()
        .find(|c| c.game_id == Some(game_id))
        .expect("the desk's walk includes each of its fair games");
    if mine.verified.is_none() {
        raise(Error::new(
            ErrorKind::NotReady,
            format!("game {game_id} cannot be verified yet: the server seed of its commitment is not revealed"),
        ));
    }
    TableIterator::new(rows(vec![mine]))
}
