//! Many connections dealing, changing client seeds and revealing at once never reuse a nonce
//! and leave a history that verifies.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use postgres::error::SqlState;
use postgres::Client;

use crate::desks::{
    all_verified, database_with_extension, deal, mode_on_without_seeds, parse_dealt, seat,
};
use crate::grants::create_game_server_role;
use crate::server;

/// SplitMix64: the tests' seeded choices.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const DEALERS: usize = 8;
const DEALS_EACH: usize = 190;
const DESKS: [i32; 6] = [11, 12, 13, 14, 15, 16];
const DB: &str = "dealcards_fair_concurrency";
const ROLE: &str = "dealcards_fair_game_server_load";

/// A deal as returned: (desk, game, commitment, nonce).
type Dealt = (i32, i64, String, i64);
/// A reveal: (desk, commitment revealed, next commitment).
type Reveal = (i32, Vec<u8>, Vec<u8>);

#[test]
fn concurrent_deals_seeds_and_reveals_keep_every_nonce_once() {
    let mut admin = database_with_extension(DB);
    create_game_server_role(&mut admin, ROLE);
    let mut setup = server::connect_as(DB, ROLE);
    for desk in DESKS {
        seat(&mut setup, desk, &[1, 2, 3]);
        mode_on_without_seeds(&mut setup, desk);
    }

    let started = Instant::now();
    let stop = Arc::new(AtomicBool::new(false));
    let barrier = Arc::new(Barrier::new(DEALERS + 3));
    let dealers = spawn_dealers(&barrier);
    let seed_changers = spawn_seed_changers(&barrier, &stop);
    let revealer = spawn_revealer(&barrier, &stop);

    let mut deals = Vec::new();
    for dealer in dealers {
        deals.extend(dealer.join().expect("a dealer failed"));
    }
    stop.store(true, Ordering::Relaxed);
    let changes: usize = seed_changers
        .into_iter()
        .map(|t| t.join().expect("a seed changer failed"))
        .sum();
    let reveals = revealer.join().expect("the revealer failed");
    let elapsed = started.elapsed();
    assert_eq!(deals.len(), DEALERS * DEALS_EACH);
    assert!(
        changes > 0 && reveals.len() > 1,
        "{changes} {}",
        reveals.len()
    );
    eprintln!(
        "{} deals, {changes} client seed changes, {} reveals in {elapsed:?}",
        deals.len(),
        reveals.len()
    );

    check_each_reveal_puts_a_new_commitment_in_force(&reveals);
    check_the_games_are_the_deals(&mut admin, &deals);
    check_every_desks_history_verifies(&deals);
}

/// The dealers, each dealing DEALS_EACH times at desks of its seeded choice once all start.
fn spawn_dealers(barrier: &Arc<Barrier>) -> Vec<JoinHandle<Vec<Dealt>>> {
    (0..DEALERS)
        .map(|t| {
            let barrier = barrier.clone();
            thread::spawn(move || {
                let mut client = server::connect_as(DB, ROLE);
                let mut rng = Rng(1000 + t as u64);
                barrier.wait();
                (0..DEALS_EACH)
                    .map(|_| {
                        let desk = DESKS[rng.below(DESKS.len())];
                        let dealt = parse_dealt(&deal(&mut client, desk));
                        assert_eq!(dealt.0, desk);
                        dealt
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect()
}

/// Two threads setting client seeds until `stop`; each gives the seeds it set.
fn spawn_seed_changers(barrier: &Arc<Barrier>, stop: &Arc<AtomicBool>) -> Vec<JoinHandle<usize>> {
    (0..2)
        .map(|t| {
            let (barrier, stop) = (barrier.clone(), stop.clone());
            thread::spawn(move || {
                let mut client = server::connect_as(DB, ROLE);
                let mut rng = Rng(2000 + t);
                let mut changes = 0;
                barrier.wait();
                while !stop.load(Ordering::Relaxed) {
                    let desk = DESKS[rng.below(DESKS.len())];
                    let seat = rng.below(3) as i32 + 1;
                    let seed = match rng.below(4) {
                        0 => "·".to_string(),
                        1 => format!("Zoë {}", rng.next()),
                        2 => format!("牌{}", rng.below(1000)),
                        _ => "x".repeat(1 + rng.below(256)),
                    };
                    // A player sets one seed per round: a second one is refused.
                    match client
                        .execute("SELECT set_client_seed($1, $2, $3)", &[&desk, &seat, &seed])
                    {
                        Ok(_) => changes += 1,
                        Err(e) => assert_eq!(
                            e.code(),
                            Some(&SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE),
                            "{e}"
                        ),
                    }
                }
                changes
            })
        })
        .collect()
}

/// A thread revealing rounds at desks of its seeded choice until `stop`.
fn spawn_revealer(barrier: &Arc<Barrier>, stop: &Arc<AtomicBool>) -> JoinHandle<Vec<Reveal>> {
    let (barrier, stop) = (barrier.clone(), stop.clone());
    thread::spawn(move || {
        let mut client = server::connect_as(DB, ROLE);
        let mut rng = Rng(3000);
        let mut reveals = Vec::new();
        barrier.wait();
        while !stop.load(Ordering::Relaxed) {
            let desk = DESKS[rng.below(DESKS.len())];
            let row = client
                .query_one(
                    "SELECT round, commitment, next_commitment FROM fair_reveal($1)",
                    &[&desk],
                )
                .unwrap();
            let (round, commitment, next): (i32, Vec<u8>, Vec<u8>) =
                (row.get(0), row.get(1), row.get(2));
            // Committed, the reveal shows the seed, and it is the commitment's.
            let digest: Vec<u8> = client
                .query_one(
                    "SELECT sha256(server_seed) FROM fair_commitment
                      WHERE desk_id = $1 AND round = $2",
                    &[&desk, &round],
                )
                .unwrap()
                .get(0);
            assert_eq!(digest, commitment);
            reveals.push((desk, commitment, next));
            thread::sleep(Duration::from_millis(3));
        }
        reveals
    })
}

/// Each reveal puts a new commitment in force.
fn check_each_reveal_puts_a_new_commitment_in_force(reveals: &[Reveal]) {
    let mut every_commitment = BTreeSet::new();
    for (desk, commitment, next) in reveals {
        assert!(
            every_commitment.insert(next.clone()),
            "desk {desk}: a commitment came twice"
        );
        assert_ne!(commitment, next);
    }
}

/// No (commitment, nonce) was dealt twice, and the games are exactly the deals; under each
/// commitment, the nonces are 0..k; each commitment is one of its desk's.
fn check_the_games_are_the_deals(admin: &mut Client, deals: &[Dealt]) {
    let pairs: BTreeSet<(String, i64)> = deals.iter().map(|d| (d.2.clone(), d.3)).collect();
    assert_eq!(
        pairs.len(),
        deals.len(),
        "a (commitment, nonce) was dealt twice"
    );
    let returned: BTreeSet<(i64, i32, String, i64)> =
        deals.iter().map(|d| (d.1, d.0, d.2.clone(), d.3)).collect();
    let stored: BTreeSet<(i64, i32, String, i64)> = admin
        .query(
            "SELECT game_id, desk_id, encode(fair_commitment, 'hex'), fair_nonce FROM game",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
        .collect();
    assert_eq!(stored, returned, "the games are not the deals returned");

    // Under each commitment, the nonces are 0..k; each commitment is one of its desk's.
    let gaps: Vec<(i32, String)> = admin
        .query(
            "SELECT g.desk_id, encode(g.fair_commitment, 'hex') FROM game g
              GROUP BY g.desk_id, g.fair_commitment
             HAVING array_agg(g.fair_nonce ORDER BY g.fair_nonce)
                    <> ARRAY(SELECT generate_series(0, count(g.game_id) - 1))
                 OR NOT EXISTS (SELECT FROM fair_seed s
                                 WHERE s.desk_id = g.desk_id AND s.commitment = g.fair_commitment)",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert!(
        gaps.is_empty(),
        "nonces not 0..k, or a foreign commitment: {gaps:?}"
    );
}

/// Revealed once more, every desk's history verifies, game for game.
fn check_every_desks_history_verifies(deals: &[Dealt]) {
    let mut verifier = server::connect_as(DB, ROLE);
    let mut verified = 0;
    for desk in DESKS {
        verifier
            .batch_execute(&format!("SELECT * FROM fair_reveal({desk})"))
            .unwrap();
        let games = all_verified(&mut verifier, desk);
        let dealt_here = deals.iter().filter(|d| d.0 == desk).count();
        assert_eq!(games.len(), dealt_here, "desk {desk}");
        verified += games.len();
    }
    assert_eq!(verified, deals.len());
}
