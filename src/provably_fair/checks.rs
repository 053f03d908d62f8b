//! What anyone can check: the pure recomputation of a deal (fair_deal), the verification of a
//! desk's stored games and one game, a game's receipt and what the house publishes of a desk.

use super::*;

/// The deal a server seed, three client seeds and a nonce give, with no table: the recomputation
/// anyone can run once the server seed is revealed.
// The row type is spelled out: pgrx reads the column names from it.
#[allow(clippy::type_complexity)]
#[pg_extern(immutable, strict, parallel_safe)]
pub(super) fn fair_deal(
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
    let seeds = ok_or_raise(fair::client_seeds(&client_seeds.0));
    let nonce = ok_or_raise(fair::nonce(nonce));
    let deal = fair::deal(&seed, &seeds, nonce);
    TableIterator::once((
        deal.hands[0].to_vec(),
        deal.hands[1].to_vec(),
        deal.hands[2].to_vec(),
        deal.extra.to_vec(),
        deal.leader as i16,
    ))
}

/// A verification's rows: game_id, round, nonce, verified, problem.
pub(super) type Rows = Vec<(
    Option<i64>,
    Option<i32>,
    Option<i64>,
    Option<bool>,
    Option<String>,
)>;

pub(super) fn rows(checked: Vec<Checked>) -> Rows {
    checked
        .into_iter()
        .map(|c| (c.game_id, c.round, c.nonce, c.verified, c.problem))
        .collect()
}

/// Walks a desk's chain of fair games and lists the rounds it left without a reveal
/// ([`verify::check_desk`]).
pub(super) fn check_desk(desks: &mut DeskStore<'_, '_>, desk_id: i32) -> Vec<Checked> {
    let head = desks.chain_head(desk_id);
    let games = desks.fair_games(desk_id);
    let left = desks.rounds_left(desk_id);
    verify::check_desk(desk_id, head.as_deref(), games, &left)
}

/// Verifies a desk's whole provably fair history: one row per fair game in chain order
/// (verified true: recomputed and linked; NULL: linked, seed not revealed yet; false: the
/// problem says what is wrong), and a last row if the chain's head is missing.
// The row type is spelled out: pgrx reads the column names from it.
#[allow(clippy::type_complexity)]
#[pg_extern(stable, strict, parallel_unsafe)]
pub(super) fn fair_verify_desk(
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
    TableIterator::new(rows(with_desks(fcinfo, |desks| check_desk(desks, desk_id))))
}

/// What the house publishes of a desk for its players to check their receipts against: its
/// rounds with their rules and, once revealed, their seeds; its provably fair games in chain
/// order; its chain head (docs/provably_fair.md). A [`Publication`].
#[pg_extern(stable, strict, parallel_unsafe)]
pub(super) fn fair_publication(desk_id: i32, fcinfo: pg_sys::FunctionCallInfo) -> Built<JsonB> {
    let published = with_desks(fcinfo, |desks| desks.publication(desk_id));
    let publication: Publication = documents::read(published.0, "publication")
        .unwrap_or_else(|why| stored_otherwise(format!("desk {desk_id}: {why}")));
    Built::<JsonB>::document(&publication)
}

/// The receipt of a stored provably fair game, as deal_cards notified it: read as the caller,
/// so a game dealt by a transaction that has not committed is not there for a role other than
/// the tables' owner (P0002, as for a game that does not exist). A [`Receipt`].
#[pg_extern(stable, strict, parallel_unsafe)]
pub(super) fn fair_receipt(game_id: i64, fcinfo: pg_sys::FunctionCallInfo) -> Built<JsonB> {
    let (is_fair, stored) =
        with_desks(fcinfo, |desks| desks.receipt(game_id)).unwrap_or_else(|| no_game(game_id));
    if !is_fair {
        raise(Error::invalid(format!(
            "game {game_id} was not dealt in provably fair mode: it has no receipt"
        )));
    }
    let receipt: Receipt = documents::read(stored.0, "receipt")
        .unwrap_or_else(|why| stored_otherwise(format!("game {game_id}: {why}")));
    Built::<JsonB>::document(&receipt)
}

/// A stored game or round whose columns hold what no function of dealcards writes (XX001).
pub(super) fn stored_otherwise(why: String) -> ! {
    changed_outside(
        why,
        "The desk's games or rounds were changed outside dealcards' functions.",
    )
}

pub(super) fn no_game(game_id: i64) -> ! {
    raise(Error::new(
        ErrorKind::NotFound,
        format!("game {game_id} does not exist"),
    ))
}

/// Verifies one stored game: its deal recomputes from the revealed seed, its client seeds and
/// nonce, and its link in the desk's chain holds.
// The row type is spelled out: pgrx reads the column names from it.
#[allow(clippy::type_complexity)]
#[pg_extern(stable, strict, parallel_unsafe)]
pub(super) fn fair_verify_game(
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
    let checked = with_desks(fcinfo, |desks| {
        let (desk_id, is_fair) = desks.game_desk(game_id).unwrap_or_else(|| no_game(game_id));
        if !is_fair {
            raise(Error::invalid(format!(
                "game {game_id} was not dealt in provably fair mode: there is nothing to verify"
            )));
        }
        check_desk(desks, desk_id)
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
