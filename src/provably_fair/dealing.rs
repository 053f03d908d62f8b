//! A provably fair deal: the round a desk deals under (kept by the backend while its seed is
//! unrevealed), the refusals of whatever the dealing transaction could choose, and the deal and
//! record of the seeds and nonce.

use super::*;

/// A round as a backend keeps it while its seed is unrevealed: the round, its commitment, the
/// seed and the rules fixed with it.
#[derive(Clone)]
pub(super) struct KeptRound {
    pub(super) round: i32,
    pub(super) commitment: Hash,
    pub(super) seed: ServerSeed,
    pub(super) protocol: i16,
    /// Which seats the house plays.
    pub(super) house: [bool; SEATS],
    pub(super) seeds_required: bool,
    /// The round's bound: the deals it may deal, and when its seed is due.
    pub(super) max_deals: i64,
    pub(super) reveal_by: Option<pg_sys::TimestampTz>,
    /// The token of the server it was committed on, its timeline then, and the place (the
    /// database and data directory) it was committed in.
    pub(super) instance: Option<String>,
    pub(super) timeline: Option<i64>,
    pub(super) place: Option<String>,
}

impl KeptRound {
    /// The rules protocol 3 chains.
    fn rules(&self) -> Rules {
        Rules {
            house: self.house,
            seeds_required: self.seeds_required,
            max_deals: self.max_deals,
            // No overflow: kept_round refuses a round whose reveal_by is past LATEST_REVEAL_BY.
            reveal_by: self.reveal_by.map(|by| by + UNIX_TO_POSTGRES_EPOCH_MICROS),
        }
    }
}

thread_local! {
    /// The round each desk (of a schema) was last dealt under in this backend, with its seed
    /// and rules. dealcards' functions point a desk only at an unrevealed round of its own, with
    /// that round's commitment, and a commitment is the SHA-256 of its seed: so a desk naming
    /// the same round and commitment again is under the same seed and rules, and the kept copy
    /// is what a read would give. A desk rewritten by hand back onto a revealed round would name
    /// a kept one too: the statement that records the game checks the round is unrevealed, in
    /// the same snapshot as the desk's lock, and refuses the deal otherwise (XX001). Only rounds committed by an earlier
    /// transaction are kept, so a kept round is never one the current transaction could undo. A
    /// desk with an entry is one this backend last dealt in provably fair mode
    /// ([`dealt_fair`]). Bounded: cleared at 65,536 desks.
    pub(super) static ROUND_SEEDS: RefCell<HashMap<(pg_sys::Oid, i32), KeptRound>> =
        RefCell::new(HashMap::new());
}

/// Whether this backend keeps the seed of a round of the desk: it last dealt the desk in
/// provably fair mode, so deal_cards reads the seats with the desk's lock.
pub fn dealt_fair(schema: &ExtensionSchema, desk_id: i32) -> bool {
    ROUND_SEEDS.with_borrow(|seeds| seeds.contains_key(&(schema.oid(), desk_id)))
}

/// Forgets the desk's kept seed: deal_cards found the desk out of provably fair mode.
pub fn forget(schema: &ExtensionSchema, desk_id: i32) {
    ROUND_SEEDS.with_borrow_mut(|seeds| seeds.remove(&(schema.oid(), desk_id)));
}

/// The round a desk names, with its unrevealed seed and rules: this backend's copy, or read as
/// fair_seed's owner and checked against the commitment. Also whether this very transaction
/// committed the round (never so for a kept copy). On tables whose rounds are not keyed to the
/// desk (0.3.0's) it is read every time.
pub(super) fn kept_round(
    desks: &mut DeskStore<'_, '_>,
    schema: &ExtensionSchema,
    desk_id: i32,
    desk: &FairState,
) -> (bool, KeptRound) {
    let key = (schema.oid(), desk_id);
    let commitment = desk.commitment.as_deref().unwrap_or_default();
    let keep = desks.tables().rounds_are_keyed();
    // A round kept before ALTER EXTENSION UPDATE brought the rounds their server's token is
    // read again.
    let tokens = desks.tables() == Tables::Current;
    if keep {
        let kept = ROUND_SEEDS.with_borrow(|seeds| {
            seeds
                .get(&key)
                .filter(|k| k.round == desk.round && k.commitment[..] == *commitment)
                .filter(|k| k.instance.is_some() || !tokens)
                .cloned()
        });
        if let Some(kept) = kept {
            return (false, kept);
        }
    }
    let stored = desks
        .round(desk_id, desk.round)
        .unwrap_or_else(|| broken(desk_id, "its round has no unrevealed server seed"));
    let seed = fair::server_seed(&stored.server_seed)
        .unwrap_or_else(|_| broken(desk_id, "its round's server seed is not 32 bytes"));
    let hash = fair::commitment(&seed);
    if hash[..] != *commitment {
        broken(desk_id, "its commitment is not the one of its round");
    }
    let house = fair::house_seats(&stored.house_seats)
        .unwrap_or_else(|_| broken(desk_id, "its round's house seats are not seats"));
    if stored.reveal_by.is_some_and(|by| by > LATEST_REVEAL_BY) {
        unverifiable_reveal_by(desk_id, desk.round);
    }
    let round = KeptRound {
        round: desk.round,
        commitment: hash,
        seed,
        protocol: stored.protocol,
        house,
        seeds_required: stored.seeds_required,
        max_deals: stored.max_deals,
        reveal_by: stored.reveal_by,
        instance: stored.instance,
        timeline: stored.timeline,
        place: stored.place,
    };
    if keep && !stored.written_here {
        ROUND_SEEDS.with_borrow_mut(|seeds| {
            if seeds.len() >= 65_536 {
                seeds.clear();
            }
            seeds.insert(key, round.clone());
        });
    }
    (stored.written_here, round)
}

/// Refuses (22008) a deal under a round whose `reveal_by` is past [`LATEST_REVEAL_BY`]
/// (infinity, or a time a release before this check let a long `reveal_within` give): the
/// chain's rules could not hold it, and no verifier would read it.
pub(super) fn unverifiable_reveal_by(desk_id: i32, round: i32) -> ! {
    pg_sys::panic::ErrorReport::new(
        PgSqlErrorCode::ERRCODE_DATETIME_FIELD_OVERFLOW,
        format!(
            "desk {desk_id} cannot deal under round {round}: its reveal_by is past 9998-12-31 00:00:00+00, a time no verifier reads"
        ),
        pgrx::function_name!(),
    )
    .set_hint("fair_mode_off reveals the round; fair_mode_on then starts one with a shorter reveal_within.")
    .report(pgrx::PgLogLevel::ERROR);
    unreachable!("an ERROR does not return");
}

/// Refuses a provably fair deal that would depend on something its own transaction wrote
/// (55000): that transaction could undo it and deal again with something else in its place.
pub(super) fn refuse_own_input(desk_id: i32, what: String) -> ! {
    pgrx::ereport!(
        ERROR,
        pgrx::PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
        format!("desk {desk_id} cannot deal in provably fair mode: {what} in this transaction"),
        "A provably fair deal uses only a round, seats and client seeds committed before its transaction, so that undoing it and dealing again gives the same deal. Commit, then deal."
    );
}

/// Refuses (55000) a deal past its round's bound: the round has dealt its deals, or its seed is
/// due. The desk deals again once the round is revealed.
pub(super) fn refuse_past_bound(desk_id: i32, desk: &FairState, round: &KeptRound) {
    let why = if desk.nonce >= round.max_deals {
        format!("it has dealt its {} deals", round.max_deals)
    } else if round
        .reveal_by
        // SAFETY: reads the clock.
        .is_some_and(|by| unsafe { pg_sys::GetCurrentTimestamp() } > by)
    {
        "its seed was due (its reveal_by in fair_commitment)".to_string()
    } else {
        return;
    };
    refuse_until_revealed(
        desk_id,
        format!(
            "desk {desk_id} deals nothing more under round {} until the round is revealed: {why}",
            round.round
        ),
        "",
    );
}

/// Raises 55000 for a deal the desk makes again once its round is revealed, the hint naming
/// fair_reveal (`where_` says where the next round is committed, if it matters).
pub(super) fn refuse_until_revealed(desk_id: i32, message: String, where_: &str) -> ! {
    pg_sys::panic::ErrorReport::new(
        PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
        message,
        pgrx::function_name!(),
    )
    .set_hint(format!("SELECT fair_reveal({desk_id}) reveals the round and commits to the next one{where_}, under which the desk deals again (fair_mode_off({desk_id}) leaves the mode)."))
    .report(pgrx::PgLogLevel::ERROR);
    unreachable!("an ERROR does not return");
}

/// Refuses (55000) a deal under a round committed on another server than this one (its token,
/// dealcards_instance, is not this server's): a round in force in a restored dump, or in a
/// logical replica, may have been revealed since where it came from, its seed public. Likewise
/// a round of an earlier timeline (the server was promoted or recovered to a point in time, and
/// a reveal committed after that point may be lost here while its seed is public), and a round
/// committed in another place (a copy of the data directory or of the database: the original
/// may have revealed it since). The desk deals again once the round is revealed here.
pub(super) fn refuse_round_of_another_server(
    desks: &mut DeskStore<'_, '_>,
    desk_id: i32,
    round: &KeptRound,
) {
    let Some(here) = desks.server_token() else {
        return;
    };
    let why = if round.instance.as_deref() != Some(here.as_str()) {
        "it was committed on another server, or before this database was restored (where it came from, its seed may be public)".to_string()
    } else if crate::citus::present() {
        // Each node of a Citus cluster has a timeline and a data directory of its own, and a
        // desk's deals run on whichever node holds it now: the token (the coordinator's, for
        // the whole cluster) is all that is checked there.
        return;
    } else {
        match elsewhere(round) {
            Some(why) => why,
            None => return,
        }
    };
    refuse_until_revealed(
        desk_id,
        format!(
            "desk {desk_id} deals nothing under round {} until the round is revealed: {why}",
            round.round
        ),
        " on this server",
    );
}

/// Why a round of this server's token was committed elsewhere than here, if it was: on an
/// earlier timeline, or in another place ([`current_place`]). A round committed before the
/// update to 0.7.0 records no place, and is not checked for it.
fn elsewhere(round: &KeptRound) -> Option<String> {
    let now = current_timeline();
    if round.timeline != Some(now) {
        return Some(format!(
            "it was committed on timeline {}, and the server is on timeline {now} since a promotion or a point-in-time recovery (a reveal of it may have been committed after the point the server came back to)",
            round.timeline.map_or("unknown".to_string(), |t| t.to_string())
        ));
    }
    let place = round.place.as_deref()?;
    (place != current_place()).then(|| {
        "it was committed in another database or data directory, of which this one is a copy (a base backup, a copy of the files, CREATE DATABASE ... TEMPLATE, pg_upgrade): where it came from, its seed may be public".to_string()
    })
}

/// The provably fair deal at a locked desk with these (checked) seats: the next nonce under its
/// round, from the seated players' client seeds, and what is recorded of it. Refuses (55000)
/// inputs this transaction wrote, and a seat without a seed in a round that requires one.
pub fn deal_at(
    desks: &mut DeskStore<'_, '_>,
    schema: &ExtensionSchema,
    desk_id: i32,
    desk: &FairState,
    seats: &Seats,
) -> (DouDizhuDeal, FairRecord) {
    desks.refuse_caller_who_sees_deals(desk_id);
    let (round_written_here, round) = kept_round(desks, schema, desk_id, desk);
    if round_written_here {
        refuse_own_input(desk_id, format!("its round {} was committed", desk.round));
    }
    refuse_past_bound(desk_id, desk, &round);
    refuse_round_of_another_server(desks, desk_id, &round);
    if let Some(seat) = seats.written_here.iter().position(|&w| w) {
        refuse_own_input(
            desk_id,
            format!("the player or the client seed of seat {} was set", seat + 1),
        );
    }
    let mut given: Vec<Option<Vec<u8>>> = Vec::with_capacity(SEATS);
    for seat in 0..SEATS {
        let seed = if round.house[seat] {
            // A house seat's seed is the empty one, fixed with the commitment.
            Vec::new()
        } else {
            match &seats.client_seeds[seat] {
                Some(seed) => seed.clone(),
                None if round.seeds_required => raise(Error::new(
                    ErrorKind::NotReady,
                    format!(
                        "desk {desk_id} cannot deal: player {} in seat {} has set no client seed under round {}, which requires one from every player",
                        seats.player_ids[seat].unwrap_or_default(),
                        seat + 1,
                        round.round
                    ),
                )),
                None => Vec::new(),
            }
        };
        given.push(Some(seed));
    }
    let seed_refs = ok_or_raise(fair::client_seeds(&given));
    let nonce = ok_or_raise(fair::nonce(desk.nonce));
    let deal = fair::deal(&round.seed, &seed_refs, nonce);
    let previous: Hash = desk
        .chain_head
        .as_deref()
        .and_then(|h| h.try_into().ok())
        .unwrap_or(CHAIN_START);
    // Checked seats are all taken.
    let players = seats.player_ids.map(|p| p.unwrap_or_default());
    let chained = (round.protocol >= 2).then_some(players);
    let rules = (round.protocol >= 3).then(|| round.rules());
    let recorded = Recorded::of_deal(
        desk_id,
        &round.commitment,
        nonce,
        chained,
        rules,
        seed_refs,
        &deal,
    );
    let chain_hash = fair::chain_hash(&previous, &recorded).expect("a fresh deal hashes");
    let record = FairRecord {
        round: round.round,
        commitment: round.commitment,
        nonce: desk.nonce,
        players,
        client_seeds: given.into_iter().flatten().collect(),
        chain_hash,
    };
    (deal, record)
}
