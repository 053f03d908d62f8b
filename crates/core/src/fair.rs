//! Provably fair deals: a commit-reveal protocol on top of the seeded Dou Dizhu deal.
//!
//! The house commits to a secret 32-byte server seed by publishing its SHA-256; each deal under
//! that commitment is the seeded deal ([`DouDizhuDeal::deal`]) of the key
//! `HMAC-SHA256(server seed, M)`, where `M` encodes the three seats' client seeds and the deal's
//! nonce; the games of a desk form a SHA-256 hash chain. docs/provably_fair.md specifies every
//! byte; this module is that text in code.

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};

use crate::cards::DECK_SIZE;
use crate::deal::{DouDizhuDeal, EXTRA_CARDS, HAND_SIZE, SEATS};
use crate::error::Error;
use crate::rng::{self, Stream, SEED_LEN};

/// A SHA-256 digest: commitments and chain hashes.
pub type Hash = [u8; 32];
/// A server seed: 32 bytes, also the length of a deal key.
pub type ServerSeed = [u8; SEED_LEN];

/// The longest client seed, in bytes of UTF-8.
pub const MAX_CLIENT_SEED_BYTES: usize = 256;
/// The chain hash before a desk's first fair game.
pub const CHAIN_START: Hash = [0; 32];

/// The version of the protocol a round is committed under (docs/provably_fair.md). Version 1
/// (rounds committed before 0.5.0) chains the games without their players; version 2 chains
/// who sits in each seat too; version 3 (rounds committed since 0.7.0) chains the round's rules
/// as well. The deal itself is the same in all three.
pub const PROTOCOL: i16 = 3;

/// Microseconds from 1970-01-01 00:00:00 UTC to 2000-01-01 00:00:00 UTC, PostgreSQL's epoch.
pub const UNIX_TO_POSTGRES_EPOCH_MICROS: i64 = 946_684_800_000_000;

/// A round's rules as protocol 3 chains them: fixed with its commitment, so a rewrite of any of
/// them after the fact breaks the chain of every game of the round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    /// Which seats the house plays (seats 1 to 3).
    pub house: [bool; SEATS],
    pub seeds_required: bool,
    /// The round's bound: the deals it may deal, and when its seed is due (microseconds since
    /// 1970-01-01 00:00:00 UTC; none: no time limit).
    pub max_deals: i64,
    pub reveal_by: Option<i64>,
}

impl Rules {
    /// The 20 bytes protocol 3 puts after the commitment: the protocol, the house seats as bits
    /// (seat 1 the lowest), seeds required (0 or 1), max_deals (8 bytes big-endian), then a byte
    /// 0 and 8 zero bytes for no time limit, or a byte 1 and reveal_by (8 bytes big-endian).
    pub fn encode(&self) -> [u8; 20] {
        let mut out = [0u8; 20];
        out[0] = 3;
        out[1] = self
            .house
            .iter()
            .enumerate()
            .filter(|(_, &h)| h)
            .map(|(seat, _)| 1u8 << seat)
            .sum();
        out[2] = u8::from(self.seeds_required);
        out[3..11].copy_from_slice(&self.max_deals.to_be_bytes());
        if let Some(by) = self.reveal_by {
            out[11] = 1;
            out[12..20].copy_from_slice(&by.to_be_bytes());
        }
        out
    }
}

/// Checks a round's house seats (the seats the house plays, whose seeds are fixed at the
/// commitment): seats 1 to 3, each at most once. Returns which seats they are.
pub fn house_seats(seats: &[Option<i32>]) -> Result<[bool; SEATS], Error> {
    let mut house = [false; SEATS];
    for seat in seats {
        let seat = seat.ok_or_else(|| Error::invalid("a house seat cannot be NULL"))?;
        let index = usize::try_from(seat)
            .ok()
            .filter(|s| (1..=SEATS).contains(s))
            .ok_or_else(|| Error::invalid(format!("a house seat is 1 to {SEATS}, got {seat}")))?;
        if std::mem::replace(&mut house[index - 1], true) {
            return Err(Error::invalid(format!(
                "seat {seat} is named twice as a house seat"
            )));
        }
    }
    if house.iter().all(|&h| h) {
        return Err(Error::invalid(
            "every seat is a house seat: a round has at least one player's seat, whose seed the house cannot choose",
        ));
    }
    Ok(house)
}

/// A fresh server seed from the operating system's entropy.
pub fn new_server_seed() -> Result<ServerSeed, Error> {
    rng::os_seed()
}

/// Checks a server seed given as bytes: exactly 32 of them.
pub fn server_seed(bytes: &[u8]) -> Result<ServerSeed, Error> {
    bytes.try_into().map_err(|_| {
        Error::invalid(format!(
            "a server seed is exactly {SEED_LEN} bytes, got {}",
            bytes.len()
        ))
    })
}

/// Checks a client seed (its UTF-8 bytes) for seat 1..3: at most 256 bytes.
pub fn check_client_seed(seat: usize, seed: &[u8]) -> Result<(), Error> {
    if seed.len() > MAX_CLIENT_SEED_BYTES {
        return Err(Error::invalid(format!(
            "the client seed of seat {seat} is {} bytes in UTF-8; a client seed is at most {MAX_CLIENT_SEED_BYTES}",
            seed.len()
        )));
    }
    Ok(())
}

/// Checks a seed a player gives for their seat: not empty ('' is the seed of a seat whose player
/// gave none, so it cannot count as one where a round requires seeds), at most 256 bytes.
pub fn check_given_client_seed(seat: usize, seed: &[u8]) -> Result<(), Error> {
    if seed.is_empty() {
        return Err(Error::invalid(format!(
            "the client seed of seat {seat} is empty: '' is the seed of a seat whose player gave none"
        )));
    }
    check_client_seed(seat, seed)
}

/// The client seeds as the protocol takes them: three, none NULL, each at most 256 bytes.
pub fn client_seeds(seeds: &[Option<Vec<u8>>]) -> Result<[&[u8]; SEATS], Error> {
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
        check_client_seed(seat + 1, seed)?;
        *slot = seed;
    }
    Ok(out)
}

/// Checks a nonce: 0 or more.
pub fn nonce(nonce: i64) -> Result<u64, Error> {
    u64::try_from(nonce).map_err(|_| Error::invalid(format!("a nonce is 0 or more, got {nonce}")))
}

/// The commitment to a server seed: its SHA-256.
pub fn commitment(server_seed: &ServerSeed) -> Hash {
    Sha256::digest(server_seed).into()
}

/// Appends a client seed as the protocol encodes it: 4-byte big-endian length, then the bytes.
fn put_seed(out: &mut Vec<u8>, seed: &[u8]) {
    let len = u32::try_from(seed.len()).expect("client seeds are checked to be short");
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(seed);
}

/// `M`: the client seeds of seats 1, 2, 3, each length-prefixed, then the nonce (8 bytes,
/// big-endian).
pub fn deal_message(client_seeds: &[&[u8]; SEATS], nonce: u64) -> Vec<u8> {
    let mut message =
        Vec::with_capacity(client_seeds.iter().map(|s| 4 + s.len()).sum::<usize>() + 8);
    for seed in client_seeds {
        put_seed(&mut message, seed);
    }
    message.extend_from_slice(&nonce.to_be_bytes());
    message
}

/// The deal's key: HMAC-SHA256 keyed with the server seed over `M`.
pub fn deal_key(
    server_seed: &ServerSeed,
    client_seeds: &[&[u8]; SEATS],
    nonce: u64,
) -> [u8; SEED_LEN] {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(server_seed).expect("HMAC takes a key of any length");
    mac.update(&deal_message(client_seeds, nonce));
    mac.finalize().into_bytes().into()
}

/// The deal of a server seed, the client seeds and a nonce: the seeded Dou Dizhu deal of its key.
pub fn deal(server_seed: &ServerSeed, client_seeds: &[&[u8]; SEATS], nonce: u64) -> DouDizhuDeal {
    DouDizhuDeal::deal(&mut Stream::from_seed(deal_key(
        server_seed,
        client_seeds,
        nonce,
    )))
}

/// What a game row records of a fair deal, as stored (so possibly tampered with).
#[derive(Debug, Clone, Copy)]
pub struct Recorded<'a> {
    pub desk_id: i32,
    pub commitment: &'a [u8],
    pub nonce: i64,
    /// The players of seats 1 to 3, which protocols 2 and 3 chain; none under protocol 1.
    pub players: Option<[i64; SEATS]>,
    /// The round's rules, which protocol 3 chains; none under protocols 1 and 2.
    pub rules: Option<Rules>,
    pub client_seeds: [&'a [u8]; SEATS],
    /// p1, p2, p3 and the extra cards.
    pub hands: [&'a [i32]; SEATS + 1],
    pub leader: i16,
}

impl<'a> Recorded<'a> {
    /// The record of a deal just made.
    pub fn of_deal(
        desk_id: i32,
        commitment: &'a Hash,
        nonce: u64,
        players: Option<[i64; SEATS]>,
        rules: Option<Rules>,
        client_seeds: [&'a [u8]; SEATS],
        deal: &'a DouDizhuDeal,
    ) -> Self {
        Recorded {
            desk_id,
            commitment,
            nonce: nonce as i64,
            players,
            rules,
            client_seeds,
            hands: [&deal.hands[0], &deal.hands[1], &deal.hands[2], &deal.extra],
            leader: deal.leader as i16,
        }
    }

    /// Whether this record holds exactly `deal`.
    pub fn holds(&self, deal: &DouDizhuDeal) -> bool {
        self.hands
            == [
                &deal.hands[0][..],
                &deal.hands[1],
                &deal.hands[2],
                &deal.extra,
            ]
            && self.leader == deal.leader as i16
    }
}

/// The chain hash of a recorded game after `previous`: SHA-256 over the previous hash, the desk
/// id, the commitment, the round's rules (protocol 3 only, [`Rules::encode`]), the nonce, each
/// seat's player (protocols 2 and 3, 8 bytes big-endian) and client seed, the 54 cards (a byte each) and the first bidder. A record that cannot be
/// encoded (a card outside 1..54, a hand of the wrong size, a commitment of the wrong length)
/// is an error naming what is wrong.
pub fn chain_hash(previous: &Hash, game: &Recorded) -> Result<Hash, String> {
    if game.commitment.len() != 32 {
        return Err(format!(
            "its commitment is {} bytes, not 32",
            game.commitment.len()
        ));
    }
    let sizes = [HAND_SIZE, HAND_SIZE, HAND_SIZE, EXTRA_CARDS];
    let mut hasher = Sha256::new();
    hasher.update(previous);
    hasher.update(game.desk_id.to_be_bytes());
    hasher.update(game.commitment);
    if let Some(rules) = &game.rules {
        hasher.update(rules.encode());
    }
    hasher.update(game.nonce.to_be_bytes());
    let mut seats = Vec::new();
    for (seat, seed) in game.client_seeds.iter().enumerate() {
        if let Some(players) = game.players {
            seats.extend_from_slice(&players[seat].to_be_bytes());
        }
        put_seed(&mut seats, seed);
    }
    hasher.update(&seats);
    let mut cards = Vec::with_capacity(DECK_SIZE);
    for (hand, size) in game.hands.iter().zip(sizes) {
        if hand.len() != size {
            return Err(format!("it holds a hand of {} cards", hand.len()));
        }
        for &card in *hand {
            if !(1..=DECK_SIZE as i32).contains(&card) {
                return Err(format!("it holds {card}, which is not a card"));
            }
            cards.push(card as u8);
        }
    }
    hasher.update(&cards);
    let leader = u8::try_from(game.leader)
        .ok()
        .filter(|l| (1..=SEATS as u8).contains(l))
        .ok_or_else(|| format!("its first bidder is seat {}", game.leader))?;
    hasher.update([leader]);
    Ok(hasher.finalize().into())
}

/// Checks one recorded game: its chain hash after `previous` must be `stored_hash`, and, when
/// its commitment's server seed is revealed, the seed must match the commitment and the deal it
/// derives must be the one recorded. Returns what is wrong, nothing when all holds. The hash the
/// next game must follow is the stored one (so one broken link is reported once).
pub fn check_game(
    game: &Recorded,
    previous: &Hash,
    stored_hash: Option<&[u8]>,
    revealed: Option<&ServerSeed>,
) -> Vec<String> {
    let mut problems = Vec::new();
    match chain_hash(previous, game) {
        Err(why) => problems.push(format!("the record cannot be hashed: {why}")),
        Ok(hash) if Some(&hash[..]) != stored_hash => problems.push(
            "the chain is broken here: the game's hash is not SHA-256 over the previous game's \
             hash and this record (the record or its round's rules were changed, or a game \
             before it is missing)"
                .into(),
        ),
        Ok(_) => {}
    }
    if let Some(seed) = revealed {
        if commitment(seed)[..] != *game.commitment {
            problems.push("the revealed server seed does not match the recorded commitment".into());
        } else {
            match nonce(game.nonce) {
                Err(e) => problems.push(e.message),
                Ok(n) => {
                    if !game.holds(&deal(seed, &game.client_seeds, n)) {
                        problems.push(
                            "the recorded cards or first bidder are not the deal the revealed \
                             seed, the client seeds and the nonce give"
                                .into(),
                        );
                    }
                }
            }
        }
    }
    problems
}

pub mod verify;

#[cfg(test)]
mod tests;
