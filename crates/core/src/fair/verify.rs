//! The check of a desk's whole provably fair history: its games walked in chain order, each
//! one's hash after the previous, its nonce after the previous one's under the same commitment,
//! and, where the commitment's server seed is revealed, its cards; then the rounds the desk left
//! without revealing them.

use super::{
    chain_hash, check_game, client_seeds, server_seed, Hash, Recorded, Rules, CHAIN_START,
};
use crate::deal::SEATS;
use crate::error::Error;

/// A provably fair game of a desk as stored (so possibly tampered with), with what the desk's
/// commitments say of it.
#[derive(Debug, Clone, Default)]
pub struct StoredGame {
    pub game_id: i64,
    /// The round of the desk's commitment the game names; none when no commitment of the desk
    /// is the game's.
    pub round: Option<i32>,
    pub nonce: Option<i64>,
    pub commitment: Vec<u8>,
    /// The protocol of its round (1 when the game names none of the desk's rounds).
    pub protocol: i16,
    /// Its round's house seats.
    pub house_seats: Vec<i16>,
    /// Its round's other rules, which protocol 3 chains: seeds required, and the bound (none on
    /// the tables of releases before 0.7.0); reveal_by in microseconds since 1970-01-01 UTC.
    pub seeds_required: bool,
    pub max_deals: Option<i64>,
    pub reveal_by: Option<i64>,
    /// The players of seats 1 to 3; a NULL one is none.
    pub players: [Option<i64>; SEATS],
    /// The client seeds in UTF-8, as many as stored; a NULL one is none.
    pub client_seeds: Vec<Option<Vec<u8>>>,
    /// p1, p2, p3 and the extra cards; a NULL card is none, a NULL hand empty.
    pub hands: [Vec<Option<i32>>; 4],
    pub leader: i16,
    pub chain_hash: Option<Vec<u8>>,
    /// The commitment's server seed, once revealed.
    pub revealed_seed: Option<Vec<u8>>,
    /// Whether the game was dealt after its commitment's seed was revealed.
    pub dealt_after_reveal: bool,
}

/// What the check says of one game, or of the desk's chain head (no game).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    pub game_id: Option<i64>,
    pub round: Option<i32>,
    pub nonce: Option<i64>,
    /// True: recomputed and linked; none: linked, the seed is not revealed yet; false: the
    /// problem says what is wrong.
    pub verified: Option<bool>,
    pub problem: Option<String>,
}

/// Walks a desk's fair games, given in chain order (round, nonce, game id), against the desk's
/// chain head: one [`Checked`] per game, one when the head is not the newest game's stored
/// hash, and one per round in `left_unrevealed` (rounds whose seed is still secret although the
/// desk no longer deals under them: their games can never be checked).
pub fn check_desk(
    desk_id: i32,
    head: Option<&[u8]>,
    games: impl IntoIterator<Item = StoredGame>,
    left_unrevealed: &[i32],
) -> Vec<Checked> {
    let mut walk = Walk {
        desk_id,
        previous: CHAIN_START,
        last_stored: None,
        expected: None,
    };
    let mut checked: Vec<Checked> = games.into_iter().map(|game| walk.game(game)).collect();
    if head != walk.last_stored.as_deref() {
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
    checked.extend(left_unrevealed.iter().map(|&round| Checked {
        game_id: None,
        round: Some(round),
        nonce: None,
        verified: Some(false),
        problem: Some(format!(
            "round {round} was left without a reveal: the desk deals under it no more, yet its server seed is secret, so its games can never be checked"
        )),
    }));
    checked
}

/// Where the walk along a desk's chain stands between two games.
struct Walk {
    desk_id: i32,
    /// The hash the next game must follow.
    previous: Hash,
    /// The stored hash of the last game walked, which the desk's chain head must be.
    last_stored: Option<Vec<u8>>,
    /// The round and nonce the next game must have.
    expected: Option<(i32, i64)>,
}

impl Walk {
    /// Checks one game and moves past it. Its problems are listed in a fixed order: the time of
    /// its deal, its round and nonce, its seats, then its record against the chain and seed.
    fn game(&mut self, game: StoredGame) -> Checked {
        let mut problems = Vec::new();
        if game.dealt_after_reveal {
            // The reveal records the time it held the desk's lock; a deal that started later
            // waited for it and got the next commitment, unless the desk's row was rewritten.
            problems.push(
                "it was dealt after its commitment's server seed was revealed, when anyone could know the deal in advance".to_string(),
            );
        }
        self.nonce(&game, &mut problems);
        let seeds = seeds_as_read(&game);
        let seeds = client_seeds(&seeds);
        let players = players(&game, &mut problems);
        let rules = rules(&game, &mut problems);
        if let Ok(seeds) = &seeds {
            house_seeds(&game, seeds, &mut problems);
        }
        self.record(&game, (players, rules), seeds, &mut problems);
        self.last_stored = game.chain_hash.clone();
        verdict(&game, problems)
    }

    /// The game's nonce must follow the previous game's under the same commitment (0 under a
    /// new one).
    fn nonce(&mut self, game: &StoredGame, problems: &mut Vec<String>) {
        match (game.round, game.nonce) {
            (None, _) => {
                problems.push("its commitment is none of the desk's commitments".to_string())
            }
            (Some(r), Some(n)) => {
                let want = match self.expected {
                    Some((er, en)) if er == r => en,
                    _ => 0,
                };
                if n != want {
                    problems.push(format!(
                        "its nonce is {n} where {want} comes next under its commitment: a game is missing or was changed"
                    ));
                }
                self.expected = Some((r, n + 1));
            }
            (Some(_), None) => problems.push("it has no nonce".into()),
        }
    }

    /// The game's record against the chain (its hash after the previous game's) and, where its
    /// commitment's seed is revealed, against the deal that seed gives; then the link the next
    /// game must follow.
    fn record(
        &mut self,
        game: &StoredGame,
        (players, rules): (Option<[i64; SEATS]>, Option<Rules>),
        seeds: Result<[&[u8]; SEATS], Error>,
        problems: &mut Vec<String>,
    ) {
        let cards: Option<Vec<Vec<i32>>> = game
            .hands
            .iter()
            .map(|h| h.iter().copied().collect::<Option<Vec<i32>>>())
            .collect();
        let stored = game.chain_hash.as_deref();
        match (cards, seeds) {
            (None, _) => problems.push("it holds a NULL card".into()),
            (_, Err(e)) => problems.push(format!("its client seeds cannot be read: {}", e.message)),
            (Some(cards), Ok(seeds)) => {
                let record = Recorded {
                    desk_id: self.desk_id,
                    commitment: &game.commitment,
                    nonce: game.nonce.unwrap_or(-1),
                    players,
                    rules,
                    client_seeds: seeds,
                    hands: [&cards[0], &cards[1], &cards[2], &cards[3]],
                    leader: game.leader,
                };
                let seed = match game.revealed_seed.as_deref().map(server_seed) {
                    Some(Ok(seed)) => Some(seed),
                    Some(Err(e)) => {
                        problems.push(format!("its revealed server seed is broken: {}", e.message));
                        None
                    }
                    None => None,
                };
                problems.extend(check_game(&record, &self.previous, stored, seed.as_ref()));
                // Where the stored hash is missing or malformed (reported above), the next game
                // links to the hash this record gives.
                if stored.and_then(|s| Hash::try_from(s).ok()).is_none() {
                    self.previous = chain_hash(&self.previous, &record).unwrap_or(self.previous);
                }
            }
        }
        // The next game links to this one's stored hash, whether or not this record could be
        // read: one broken record is reported once.
        if let Some(hash) = stored.and_then(|s| Hash::try_from(s).ok()) {
            self.previous = hash;
        }
    }
}

/// The game's client seeds as the check reads them: three are read; a record with another
/// count is one a check must refuse, so it gets a missing fourth.
fn seeds_as_read(game: &StoredGame) -> Vec<Option<Vec<u8>>> {
    let mut seeds: Vec<Option<Vec<u8>>> = game.client_seeds.iter().take(3).cloned().collect();
    if game.client_seeds.len() != 3 {
        seeds.push(None);
    }
    seeds
}

/// The rules the record chains: protocol 3 chains its round's. Rules that are not a round's
/// (a house seat outside 1 to 3, no bound) cannot be chained.
fn rules(game: &StoredGame, problems: &mut Vec<String>) -> Option<Rules> {
    if game.protocol < 3 {
        return None;
    }
    let mut house = [false; SEATS];
    for &seat in &game.house_seats {
        match usize::try_from(seat - 1).ok().filter(|&i| i < SEATS) {
            Some(i) => house[i] = true,
            None => problems.push(format!("its round's house seat {seat} is not a seat")),
        }
    }
    let Some(max_deals) = game.max_deals else {
        problems.push("its round has no bound, which protocol 3 chains".into());
        return None;
    };
    Some(Rules {
        house,
        seeds_required: game.seeds_required,
        max_deals,
        reveal_by: game.reveal_by,
    })
}

/// The players the record chains: protocol 2 chains them, and each seat must have one.
fn players(game: &StoredGame, problems: &mut Vec<String>) -> Option<[i64; SEATS]> {
    if game.protocol < 2 {
        return None;
    }
    if let Some(seat) = game.players.iter().position(Option::is_none) {
        problems.push(format!("it has no player in seat {}", seat + 1));
    }
    Some(game.players.map(|p| p.unwrap_or(0)))
}

/// A house seat's client seed is fixed (empty).
fn house_seeds(game: &StoredGame, seeds: &[&[u8]; SEATS], problems: &mut Vec<String>) {
    for &seat in &game.house_seats {
        let index = usize::try_from(seat - 1).ok().filter(|&i| i < SEATS);
        if index.is_some_and(|i| !seeds[i].is_empty()) {
            problems.push(format!(
                "seat {seat} is a house seat of its round, yet its client seed is not empty"
            ));
        }
    }
}

/// What the check says of a game with these problems: false with them all, else true where its
/// seed is revealed, else none yet.
fn verdict(game: &StoredGame, problems: Vec<String>) -> Checked {
    let revealed = game.revealed_seed.is_some();
    let verified = if !problems.is_empty() {
        Some(false)
    } else if revealed {
        Some(true)
    } else {
        None
    };
    let problem = if problems.is_empty() {
        (!revealed).then(|| "the server seed of its commitment is not revealed yet".to_string())
    } else {
        Some(problems.join("; "))
    };
    Checked {
        game_id: Some(game.game_id),
        round: game.round,
        nonce: game.nonce,
        verified,
        problem,
    }
}

#[cfg(test)]
mod tests;
