//! What shuffle queues promise, measured on realistic playlists (the core's queues on memory,
//! the same code the SQL functions run on tables):
//!
//! - **Weights in random play**: a playlist of 200 tracks rated 1 to 5 stars (weights 1..5),
//!   random play with a window of 20. From one state, a million next picks (each from a copy of
//!   the state): their counts against the exact probabilities `w / W` over the tracks outside
//!   the window, by chi-square; and the same test on two broken picks that must fail it (the
//!   weights ignored, and a test of `v <= w` instead of `v < w`).
//!
//! - **Fewer repeats across sessions**: a playlist of 120 tracks by 24 artists (15 tracks for
//!   the largest, 2 for the smallest). A listener's last session played its first `h` picks of
//!   a shuffle queue; a new queue is made (plain, or for the listener, who then has those `h`
//!   as recent plays; shuffle, or spread by artist) and plays the whole playlist once. Over
//!   many such pairs: the mean position (1 to 120) of the first replay of each recent track,
//!   how many recent tracks come back within the new session's first `h` and first 20 plays,
//!   and for the spread queues the same-artist neighbours in the 120 plays.
//!
//!     cargo run --release --manifest-path tools/queue_quality/Cargo.toml [PICKS [SESSIONS]]
//!
//! prints Markdown (BENCHMARKS.md holds it).

use std::collections::HashMap;

use dealcards_core::playlist::groups::{self, memory::MemoryGroups};
use dealcards_core::playlist::memory::MemoryTape;
use dealcards_core::playlist::{
    held_back, starting_order, starting_order_holding, Draw, Mode, Queue,
};
use dealcards_core::rng::Stream;
use dealcards_core::spread::{number_groups, same_group_neighbours};
use dealcards_fairness::stats;

/// A pick that takes every try: the weights ignored.
struct TakeEvery<'a>(&'a mut Stream, bool);

impl Draw for TakeEvery<'_> {
    fn draw(&mut self, bound: u64) -> u64 {
        self.1 = !self.1;
        let v = self.0.below_u64(bound);
        if self.1 {
            v
        } else {
            0
        }
    }
}

fn weights_chi_square(picks: u64) {
    let n = 200usize;
    let mut stream = Stream::from_seed([5; 32]);
    // Ratings: most tracks 3 stars, fewer at the ends (1: 10%, 2: 20%, 3: 40%, 4: 20%, 5: 10%).
    let rating = |t: i64| -> u64 {
        match t % 10 {
            0 => 1,
            1 | 2 => 2,
            3..=6 => 3,
            7 | 8 => 4,
            _ => 5,
        }
    };
    let mut tracks: Vec<i64> = (1..=n as i64).collect();
    starting_order(&mut tracks, &mut stream, &mut || {});
    let mut queue = Queue::new(Mode::Random, n, Some(20)).expect("a queue");
    let mut tape = MemoryTape::new(&tracks);
    tape.weights = (1..=n as i64)
        .map(|t| (t, rating(t)))
        .collect::<HashMap<_, _>>();
    for _ in 0..100 {
        queue.next_weighted(&mut tape, &mut stream, 5);
    }
    let recent: Vec<i64> = tape.contents()[n - 20..].to_vec();
    let eligible: Vec<i64> = (1..=n as i64).filter(|t| !recent.contains(t)).collect();
    let expected: Vec<f64> = eligible.iter().map(|&t| rating(t) as f64).collect();
    let total: f64 = expected.iter().sum();
    let run = |pick: &mut dyn FnMut(&mut Queue, &mut MemoryTape) -> i64| {
        let mut counts: HashMap<i64, u64> = HashMap::new();
        for _ in 0..picks {
            let (mut q, mut t) = (queue.clone(), tape.clone());
            *counts.entry(pick(&mut q, &mut t)).or_default() += 1;
        }
        let kept_out: u64 = recent
            .iter()
            .map(|t| counts.get(t).copied().unwrap_or(0))
            .sum();
        let observed: Vec<u64> = eligible
            .iter()
            .map(|t| counts.get(t).copied().unwrap_or(0))
            .collect();
        (stats::chi_square_expected(&observed, &expected), kept_out)
    };
    let mut live = Stream::from_seed([6; 32]);
    let (fair, fair_out) = run(&mut |q, t| q.next_weighted(t, &mut live, 5));
    let mut control = Stream::from_seed([6; 32]);
    let (ignored, ignored_out) =
        run(&mut |q, t| q.next_weighted(t, &mut TakeEvery(&mut control, false), 5));
    let mut off = Stream::from_seed([6; 32]);
    let (off_by_one, off_out) = run(&mut |q, t| {
        // v <= w: the same as every weight one larger, the heaviest too.
        let mut heavier = t.clone();
        heavier.weights.values_mut().for_each(|w| *w += 1);
        let track = q.next_weighted(&mut heavier, &mut off, 6);
        *t = heavier;
        track
    });
    println!("| pick | picks | chi-square (df) | p-value | picks of the 20 tracks in the window |");
    println!("|---|---:|---:|---:|---:|");
    for (name, test, out) in [
        ("next_weighted", fair, fair_out),
        ("negative control: weights ignored", ignored, ignored_out),
        ("negative control: v <= w", off_by_one, off_out),
    ] {
        println!(
            "| {name} | {picks} | {:.1} ({}) | {:.3e} | {out} |",
            test.statistic, test.df, test.p_value
        );
    }
    println!();
    println!(
        "{} tracks outside the window, weights summing to {total}: the heaviest (5 stars) is picked with probability {:.5}, the lightest (1 star) {:.5}.",
        eligible.len(),
        5.0 / total,
        1.0 / total
    );
}

/// The artist of each track of the 120-track playlist: 24 artists of 15 down to 2 tracks, each
/// artist's tracks together, as a library sorted by artist lists them.
fn artists_of_120() -> Vec<u32> {
    let sizes = [
        15, 12, 10, 8, 8, 7, 6, 6, 5, 5, 4, 4, 4, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2,
    ];
    let mut artists: Vec<u32> = Vec::new();
    for (a, &size) in sizes.iter().enumerate() {
        artists.extend(std::iter::repeat_n(a as u32, size));
    }
    artists
}

/// A new session over tracks 0..n, the listener's recent plays `recent` (most recent first)
/// held back when `hold`, spread by `artists` when given: the position (from 1) of the first
/// play of each track of `recent` (the queue plays on until every one of them came back); for
/// a spread queue also (under key -1) its same-group neighbours in its first `n` plays.
fn new_session(
    n: usize,
    artists: Option<&[u32]>,
    recent: &[i64],
    hold: bool,
    stream: &mut Stream,
) -> HashMap<i64, usize> {
    let tracks: Vec<i64> = (0..n as i64).collect();
    let held = if hold {
        held_back(recent, &tracks)
    } else {
        Vec::new()
    };
    let mut first: HashMap<i64, usize> = recent.iter().map(|&t| (t, 0)).collect();
    let mut left = first.len();
    let mut note = |play: i64, at: usize| {
        if let Some(slot) = first.get_mut(&play).filter(|s| **s == 0) {
            *slot = at;
            left -= 1;
        }
        left > 0
    };
    match artists {
        None => {
            let mut tape_tracks = tracks.clone();
            starting_order_holding(&mut tape_tracks, &held, stream, &mut || {});
            let mut queue = Queue::new(Mode::Shuffle, n, None).expect("a queue");
            let mut tape = MemoryTape::new(&tape_tracks);
            let mut at = 1;
            while note(queue.next(&mut tape, stream), at) {
                at += 1;
            }
        }
        Some(artists) => {
            let (numbers, count) = number_groups(n, |i| artists[i], &mut || {}).expect("memory");
            let flags: Vec<bool> = tracks.iter().map(|t| held.contains(t)).collect();
            let created =
                groups::create(&numbers, count, None, &flags, stream).expect("a spread queue");
            let mut memory = MemoryGroups::of(&created.units, |k| {
                created.slots[k].iter().map(|&i| i as i64).collect()
            });
            let mut queue = created.queue;
            let mut order: Vec<u32> = Vec::new();
            let mut at = 1;
            loop {
                let play = queue.next(&mut memory, stream);
                if at <= n {
                    order.push(play as u32);
                }
                if !note(play, at) && at >= n {
                    break;
                }
                at += 1;
            }
            first.insert(-1, same_group_neighbours(&order, artists));
        }
    }
    first
}

fn fewer_repeats(sessions: u64) {
    let n = 120usize;
    let artists = artists_of_120();
    let mut stream = Stream::from_seed([7; 32]);
    println!(
        "| new queue | last session's plays (held back) | mean position of their first replay | of them among the first h plays | among the first 20 plays | same-artist neighbours in {n} plays |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    for h in [10usize, 30, 60, 90] {
        for (name, spread, hold) in [
            ("shuffle", false, false),
            ("shuffle, for the listener", false, true),
            ("spread by artist", true, false),
            ("spread by artist, for the listener", true, true),
        ] {
            let (mut position, mut within_h, mut within_20, mut neighbours) =
                (0u64, 0u64, 0u64, 0u64);
            let (mut held_count, mut recent) = (0, 0u64);
            for _ in 0..sessions {
                // The last session: the first h picks of a plain shuffle queue.
                let mut last = (0..n as i64).collect::<Vec<_>>();
                starting_order(&mut last, &mut stream, &mut || {});
                let mut queue = Queue::new(Mode::Shuffle, n, None).expect("a queue");
                let mut tape = MemoryTape::new(&last);
                let mut played: Vec<i64> =
                    (0..h).map(|_| queue.next(&mut tape, &mut stream)).collect();
                played.reverse();
                held_count = if hold {
                    held_back(&played, &(0..n as i64).collect::<Vec<_>>()).len()
                } else {
                    0
                };
                let mut first = new_session(
                    n,
                    spread.then_some(&artists[..]),
                    &played,
                    hold,
                    &mut stream,
                );
                neighbours += first.remove(&-1).unwrap_or(0) as u64;
                for &at in first.values() {
                    position += at as u64;
                    within_h += u64::from(at <= h);
                    within_20 += u64::from(at <= 20);
                }
                let distinct = first.len();
                recent += distinct as u64;
            }
            let spread_column = if spread {
                format!("{:.2}", neighbours as f64 / sessions as f64)
            } else {
                "".to_string()
            };
            println!(
                "| {name} | {h} ({held_count}) | {:.1} | {:.2} | {:.2} | {spread_column} |",
                position as f64 / recent as f64,
                within_h as f64 / sessions as f64,
                within_20 as f64 / sessions as f64,
            );
        }
    }
    println!();
    println!(
        "{sessions} pairs of sessions per row. The last session's plays are its distinct tracks (a track may play twice in 90 picks); the new queue plays on until all of them came back."
    );
}

fn main() {
    let mut args = std::env::args().skip(1);
    let picks: u64 = args
        .next()
        .map(|a| a.parse().expect("PICKS is a number"))
        .unwrap_or(1_000_000);
    let sessions: u64 = args
        .next()
        .map(|a| a.parse().expect("SESSIONS is a number"))
        .unwrap_or(20_000);
    weights_chi_square(picks);
    println!();
    fewer_repeats(sessions);
}
