//! Unit tests of `ahead`: the overlay against the tape it overlays, and steps drawn ahead against
//! the steps played.

use std::collections::HashSet;

use super::*;
use crate::playlist::groups::memory::MemoryGroups;
use crate::playlist::groups::tests::queue_of;
use crate::playlist::groups::{UnitRef, TOP};
use crate::playlist::memory::MemoryTape;
use crate::playlist::{check_playlist, starting_order, Mode};
use crate::rng::Stream;

fn seeded(seed: u8) -> Stream {
    Stream::from_seed([seed; 32])
}

/// A queue over tracks 1..=n in a shuffled order; in random mode with `weighted`, track t weighs
/// 1 + t % 7.
fn queue(mode: Mode, n: usize, window: Option<i64>, weighted: bool) -> (Queue, MemoryTape) {
    let mut tracks: Vec<i64> = (1..=n as i64).collect();
    check_playlist(&mut tracks).unwrap();
    starting_order(&mut tracks, &mut seeded(3), &mut || {});
    let mut tape = MemoryTape::new(&tracks);
    if weighted {
        tape.weights = (1..=n as i64).map(|t| (t, 1 + (t % 7) as u64)).collect();
    }
    (Queue::new(mode, n, window).unwrap(), tape)
}

fn heaviest(tape: &MemoryTape) -> Option<u64> {
    tape.weights.values().max().copied()
}

/// Every position of `queue`'s tape read through both, and every track found by both.
fn same_tape(queue: &Queue, real: &mut MemoryTape, seen: &mut Overlay<'_>, all: &HashSet<i64>) {
    for position in queue.front..queue.front + queue.tracks as i64 {
        assert_eq!(
            seen.track_at(position),
            real.track_at(position),
            "position {position}"
        );
    }
    for &track in all {
        assert_eq!(seen.find(track), real.find(track), "track {track}");
    }
}

/// Every operation of a queue, run on a tape and on an overlay of a copy of it, leaves the two
/// alike; the copy underneath never changes.
#[test]
fn the_overlay_follows_every_operation_of_a_queue() {
    for (mode, window) in [
        (Mode::Shuffle, None),
        (Mode::Shuffle, Some(3)),
        (Mode::Random, Some(4)),
    ] {
        let (start, mut real) = queue(mode, 12, window, false);
        let mut underneath = real.clone();
        let before = underneath.contents();
        let mut seen = Overlay::new(&mut underneath);
        let (mut a, mut b) = (start.clone(), start);
        let (mut draws_a, mut draws_b, mut choose) = (seeded(7), seeded(7), seeded(8));
        let mut all: HashSet<i64> = (1..=12).collect();
        let mut next_track = 100;
        for _ in 0..400 {
            let track = |c: &mut Stream, all: &HashSet<i64>| {
                let mut list: Vec<i64> = all.iter().copied().collect();
                list.sort_unstable();
                list[c.below_u64(list.len() as u64) as usize]
            };
            match choose.below_u64(10) {
                0 => {
                    a.add(&mut real, &mut draws_a, next_track).unwrap();
                    b.add(&mut seen, &mut draws_b, next_track).unwrap();
                    all.insert(next_track);
                    next_track += 1;
                }
                1 if all.len() > 2 => {
                    let t = track(&mut choose, &all);
                    a.remove(&mut real, t).unwrap();
                    b.remove(&mut seen, t).unwrap();
                    all.remove(&t);
                }
                2 | 3 => {
                    let t = track(&mut choose, &all);
                    assert_eq!(a.jump(&mut real, t), b.jump(&mut seen, t));
                }
                4 => assert_eq!(a.prev(&mut real), b.prev(&mut seen)),
                _ => assert_eq!(
                    a.next(&mut real, &mut draws_a),
                    b.next(&mut seen, &mut draws_b)
                ),
            }
            assert_eq!(a, b);
            same_tape(&a, &mut real, &mut seen, &all);
        }
        drop(seen);
        assert_eq!(underneath.contents(), before, "the tape underneath changed");
    }
}

/// What a look-ahead shows is what *Next* plays: replays first (not part of it), then the tracks
/// up next, then the shuffle's picks, each step from its recorded values; in two parts, the
/// second going on from the first. The look-ahead changes nothing.
#[test]
fn the_steps_drawn_ahead_are_the_steps_played() {
    let kinds = [
        (Mode::Shuffle, 10, None, false),
        (Mode::Shuffle, 40, Some(5), false),
        (Mode::Random, 20, Some(5), false),
        (Mode::Random, 20, Some(3), true),
    ];
    for (kind, (mode, n, window, weighted)) in kinds.into_iter().enumerate() {
        let (mut q, mut tape) = queue(mode, n, window, weighted);
        let heaviest = heaviest(&tape);
        let mut live = seeded(40 + kind as u8);
        for _ in 0..6 {
            q.step(&mut tape, &mut live, None, heaviest).unwrap();
        }
        q.prev(&mut tape);
        q.prev(&mut tape);
        let up_next = [tape.track_at(q.front), tape.track_at(q.newest())];
        let (before_queue, before_tape) = (q.clone(), tape.contents());
        let mut no_seed = |_: usize| None;
        let mut draws = StepDraws {
            live: &mut live,
            seeded: &mut no_seed,
        };
        let mut ahead = look_ahead(
            &q,
            &mut tape,
            &up_next,
            heaviest,
            &[],
            7,
            &mut draws,
            &mut || {},
        )
        .unwrap();
        let more = look_ahead(
            &q,
            &mut tape,
            &up_next,
            heaviest,
            &ahead,
            13,
            &mut draws,
            &mut || {},
        )
        .unwrap();
        ahead.extend(more);
        assert_eq!((&q, tape.contents()), (&before_queue, before_tape));
        assert_eq!(ahead.len(), 20);
        assert!(ahead[0].up_next && ahead[1].up_next && !ahead[2].up_next);
        assert_eq!([ahead[0].track, ahead[1].track], up_next);

        // Replays first, then the steps drawn ahead, each from its values.
        let mut fresh = seeded(99);
        let replays = q.behind;
        for _ in 0..replays {
            q.step(&mut tape, &mut fresh, None, heaviest).unwrap();
        }
        let mut listener = up_next.iter().copied();
        for (i, step) in ahead.iter().enumerate() {
            let taken = if step.up_next { listener.next() } else { None };
            let mut fallback = seeded(98);
            let mut replay = Replay::new(&step.draws, &mut fallback);
            let track = q.step(&mut tape, &mut replay, taken, heaviest).unwrap();
            assert_eq!(track, step.track, "kind {kind}, step {i}");
            assert!(replay.kept(), "kind {kind}, step {i}");
        }
    }
}

/// A seeded queue plays the same tracks whether or not someone looked ahead: each step drawn
/// ahead draws from the stream of its own operation, as *Next* would.
#[test]
fn a_seeded_queue_plays_the_same_with_or_without_a_look_ahead() {
    let operation = |i: usize| seeded(60 + (i % 50) as u8);
    let (start, start_tape) = queue(Mode::Shuffle, 30, None, false);
    // Without a look-ahead.
    let (mut q, mut tape) = (start.clone(), start_tape.clone());
    let plain: Vec<i64> = (0..40)
        .map(|i| q.step(&mut tape, &mut operation(i), None, None).unwrap())
        .collect();
    // With one, then the steps played from their values.
    let (mut q, mut tape) = (start, start_tape);
    let mut unused = seeded(1);
    let mut by_operation = |i: usize| Some(operation(i));
    let mut draws = StepDraws {
        live: &mut unused,
        seeded: &mut by_operation,
    };
    let ahead = look_ahead(&q, &mut tape, &[], None, &[], 40, &mut draws, &mut || {}).unwrap();
    let shown: Vec<i64> = ahead.iter().map(|s| s.track).collect();
    assert_eq!(shown, plain);
    let mut fallback = seeded(2);
    let played: Vec<i64> = ahead
        .iter()
        .map(|s| {
            q.step(
                &mut tape,
                &mut Replay::new(&s.draws, &mut fallback),
                None,
                None,
            )
            .unwrap()
        })
        .collect();
    assert_eq!(played, plain);
}

/// Values that do not fit the state are noticed: one outside its bound, one too few, and a step
/// drawn ahead that no longer plays its track.
#[test]
fn values_that_do_not_fit_are_noticed() {
    let mut fallback = seeded(5);
    let mut replay = Replay::new(&[3], &mut fallback);
    assert!(replay.draw(2) < 2);
    assert!(!replay.kept());
    let mut replay = Replay::new(&[1, 1], &mut fallback);
    replay.draw(2);
    assert!(!replay.kept());

    let (q, mut tape) = queue(Mode::Shuffle, 8, None, false);
    let mut live = seeded(6);
    let mut no_seed = |_: usize| None;
    let mut draws = StepDraws {
        live: &mut live,
        seeded: &mut no_seed,
    };
    let mut ahead = look_ahead(&q, &mut tape, &[], None, &[], 3, &mut draws, &mut || {}).unwrap();
    ahead[1].track = 1000;
    let error =
        look_ahead(&q, &mut tape, &[], None, &ahead, 1, &mut draws, &mut || {}).unwrap_err();
    assert_eq!(error.kind, ErrorKind::NotReady);
    assert!(error
        .message
        .starts_with("step 2 drawn ahead no longer plays track 1000"));
}

/// Everything a spread queue's store says, read through both: each unit, each track's slot and
/// each remembered play.
fn same_groups(
    real: &mut MemoryGroups,
    seen: &mut GroupsOverlay<'_>,
    queue: &SpreadQueue,
    tracks: &HashSet<i64>,
) {
    let ids: Vec<i64> = real.units.keys().copied().collect();
    for &id in &ids {
        assert_eq!(seen.unit(id), real.unit(id), "unit {id}");
    }
    assert_eq!(seen.units(&ids), real.units(&ids));
    for &track in tracks {
        assert_eq!(seen.find(track), real.find(track), "track {track}");
    }
    for position in queue.front..queue.front + queue.history as i64 {
        assert_eq!(
            seen.played(position),
            real.played(position),
            "play {position}"
        );
    }
    // Each order from its start and from after its first key, a few at a time: fewer than the
    // units the overlay changed, too.
    for parent in std::iter::once(TOP).chain(ids.iter().copied()) {
        for limit in [1, 2, 5] {
            let mut after = (i64::MIN, i64::MIN);
            for _ in 0..2 {
                let keys = real.upcoming(parent, after, limit);
                assert_eq!(seen.upcoming(parent, after, limit), keys, "parent {parent}");
                after = keys.first().copied().unwrap_or(after);
            }
            let mut before = (i64::MAX, i64::MAX);
            for _ in 0..2 {
                let keys = real.biggest(parent, queue.pass, before, limit);
                let shown = seen.biggest(parent, queue.pass, before, limit);
                assert_eq!(shown, keys, "parent {parent}");
                before = keys.first().copied().unwrap_or(before);
            }
        }
    }
}

/// Every operation of a spread queue, one level and two, run on its store and on an overlay of
/// a copy of it, leaves the two alike; the copy underneath never changes.
#[test]
fn the_groups_overlay_follows_every_operation_of_a_spread_queue() {
    let groups = [1, 1, 1, 1, 2, 2, 2, 3, 3, 4, 5, 5];
    let subs = [1, 1, 2, 2, 1, 2, 1, 1, 1, 1, 1, 2];
    for levels in [1, 2] {
        let (start, mut real) = queue_of(
            &groups,
            (levels == 2).then_some(&subs[..]),
            &[false; 12],
            &mut seeded(11),
        );
        let mut underneath = real.clone();
        let (units_before, slots_before, log_before) = (
            underneath.units.clone(),
            underneath.slots.clone(),
            underneath.log.clone(),
        );
        let mut seen = GroupsOverlay::new(&mut underneath);
        let (mut a, mut b) = (start.clone(), start);
        let (mut draws_a, mut draws_b, mut choose) = (seeded(12), seeded(12), seeded(13));
        let mut tracks: HashSet<i64> = (1..=12).collect();
        let mut left: Vec<(i64, i64)> = Vec::new();
        let mut next_track = 100;
        for _ in 0..300 {
            let mut sorted: Vec<i64> = tracks.iter().copied().collect();
            sorted.sort_unstable();
            let pick = sorted[choose.below_u64(sorted.len() as u64) as usize];
            match choose.below_u64(12) {
                0 => {
                    let group = match choose.below_u64(3) {
                        0 => UnitRef::New,
                        g => UnitRef::Existing(g as i64),
                    };
                    let sub = (levels == 2).then_some(UnitRef::New);
                    let added_a = a.add(&mut real, &mut draws_a, next_track, group, sub);
                    let added_b = b.add(&mut seen, &mut draws_b, next_track, group, sub);
                    assert_eq!(added_a, added_b);
                    tracks.insert(next_track);
                    next_track += 1;
                }
                1 if tracks.len() > 3 => {
                    let leaf_a = a.leave(&mut real, &mut draws_a, pick);
                    assert_eq!(leaf_a, b.leave(&mut seen, &mut draws_b, pick));
                    tracks.remove(&pick);
                    left.push((pick, leaf_a.unwrap()));
                }
                2 if !left.is_empty() => {
                    let (track, leaf) = left.remove(0);
                    let back_a = a.rejoin(&mut real, &mut draws_a, track, leaf);
                    assert_eq!(back_a, b.rejoin(&mut seen, &mut draws_b, track, leaf));
                    tracks.insert(track);
                }
                3 | 4 => assert_eq!(
                    a.step(&mut real, &mut draws_a, Some(pick)),
                    b.step(&mut seen, &mut draws_b, Some(pick))
                ),
                5 => assert_eq!(a.prev(&mut real), b.prev(&mut seen)),
                _ => assert_eq!(
                    a.step(&mut real, &mut draws_a, None),
                    b.step(&mut seen, &mut draws_b, None)
                ),
            }
            assert_eq!(a, b);
            same_groups(&mut real, &mut seen, &a, &tracks);
        }
        drop(seen);
        assert_eq!(
            underneath.units, units_before,
            "the units underneath changed"
        );
        assert_eq!(
            underneath.slots, slots_before,
            "the slots underneath changed"
        );
        assert_eq!(underneath.log, log_before, "the history underneath changed");
    }
}

/// What a look-ahead shows on a spread queue is what *Next* plays, tracks up next included, and a
/// seeded one plays the same with or without it.
#[test]
fn a_spread_queue_plays_the_steps_drawn_ahead() {
    let groups = [1, 1, 1, 2, 2, 3, 3, 3, 4, 5];
    let (start, start_store) = queue_of(&groups, None, &[false; 10], &mut seeded(21));
    let operation = |i: usize| seeded(80 + (i % 40) as u8);
    let (mut q, mut store) = (start.clone(), start_store.clone());
    let plain: Vec<i64> = (0..25)
        .map(|i| q.step(&mut store, &mut operation(i), None).unwrap())
        .collect();

    let (mut q, mut store) = (start, start_store);
    for i in 0..3 {
        q.step(&mut store, &mut operation(i), None).unwrap();
    }
    q.prev(&mut store);
    let up_next = [7];
    let (before_queue, before_units) = (q.clone(), store.units.clone());
    let mut live = seeded(22);
    let mut no_seed = |_: usize| None;
    let mut draws = StepDraws {
        live: &mut live,
        seeded: &mut no_seed,
    };
    let mut ahead =
        look_ahead_spread(&q, &mut store, &up_next, &[], 6, &mut draws, &mut || {}).unwrap();
    ahead.extend(
        look_ahead_spread(&q, &mut store, &up_next, &ahead, 14, &mut draws, &mut || {}).unwrap(),
    );
    assert_eq!((&q, &store.units), (&before_queue, &before_units));
    assert!(ahead[0].up_next && ahead[0].track == 7 && !ahead[1].up_next);
    q.step(&mut store, &mut seeded(1), None).unwrap();
    let mut fallback = seeded(2);
    for (i, step) in ahead.iter().enumerate() {
        let taken = step.up_next.then_some(7);
        let mut replay = Replay::new(&step.draws, &mut fallback);
        assert_eq!(
            q.step(&mut store, &mut replay, taken).unwrap(),
            step.track,
            "step {i}"
        );
        assert!(replay.kept(), "step {i}");
    }
    // Seeded: the steps drawn ahead are the steps a queue plays without a look-ahead.
    let (start, start_store) = queue_of(&groups, None, &[false; 10], &mut seeded(21));
    let mut unused = seeded(3);
    let mut by_operation = |i: usize| Some(operation(i));
    let mut draws = StepDraws {
        live: &mut unused,
        seeded: &mut by_operation,
    };
    let mut store = start_store;
    let ahead =
        look_ahead_spread(&start, &mut store, &[], &[], 25, &mut draws, &mut || {}).unwrap();
    let shown: Vec<i64> = ahead.iter().map(|s| s.track).collect();
    assert_eq!(shown, plain);
}

/// The first three tracks a queue plays, as one number, with steps drawn ahead between the
/// presses: before each press a look-ahead adds 0 to 2 steps to those kept, and the press plays
/// the first kept step from its values (or draws, when none is kept). `lookahead_stream` gives
/// the live draws of each look-ahead call.
fn three_plays(
    mut q: Queue,
    mut tape: MemoryTape,
    live: &mut Stream,
    choose: &mut Stream,
    lookahead_stream: &mut dyn FnMut(&mut Stream) -> Stream,
) -> usize {
    let mut kept: Vec<Ahead> = Vec::new();
    let mut outcome = 0;
    for _ in 0..3 {
        let more = choose.below_u64(3) as usize;
        let mut stream = lookahead_stream(live);
        let mut no_seed = |_: usize| None;
        let mut draws = StepDraws {
            live: &mut stream,
            seeded: &mut no_seed,
        };
        let added = look_ahead(
            &q,
            &mut tape,
            &[],
            None,
            &kept,
            more,
            &mut draws,
            &mut || {},
        );
        kept.extend(added.unwrap());
        let track = if kept.is_empty() {
            q.step(&mut tape, live, None, None).unwrap()
        } else {
            let step = kept.remove(0);
            let mut fallback = seeded(0);
            let mut replay = Replay::new(&step.draws, &mut fallback);
            q.step(&mut tape, &mut replay, None, None).unwrap()
        };
        outcome = outcome * 8 + track as usize;
    }
    outcome
}

/// Drawing ahead between the presses leaves what plays as it is without: the first three
/// tracks of a shuffle queue and of a random one (4 tracks each) have one distribution with
/// and without look-aheads (fixed streams: the test gives the same answer every run). Negative
/// control: a look-ahead that starts its live stream anew on every call (the same values each
/// time) is caught.
#[test]
fn steps_drawn_ahead_keep_the_distribution_of_what_plays() {
    const ALPHA: f64 = 1e-4;
    let runs = 10_000;
    for (mode, window) in [(Mode::Shuffle, None), (Mode::Random, Some(1))] {
        let start = || {
            (
                Queue::new(mode, 4, window).unwrap(),
                MemoryTape::new(&[1, 2, 3, 4]),
            )
        };
        let count = |live: &mut Stream, make: &mut dyn FnMut(&mut Stream) -> Stream| {
            let mut counts = vec![0u64; 8 * 8 * 8 * 8];
            let mut choose = seeded(50);
            for _ in 0..runs {
                let (q, tape) = start();
                counts[three_plays(q, tape, live, &mut choose, make)] += 1;
            }
            counts
        };
        // Without a look-ahead: every press draws at once.
        let mut direct = vec![0u64; 8 * 8 * 8 * 8];
        let mut live = seeded(51);
        for _ in 0..runs {
            let (mut q, mut tape) = start();
            let mut outcome = 0;
            for _ in 0..3 {
                outcome = outcome * 8 + q.step(&mut tape, &mut live, None, None).unwrap() as usize;
            }
            direct[outcome] += 1;
        }
        let ahead = count(&mut seeded(52), &mut |live| {
            let mut key = [0u8; 32];
            for byte in &mut key {
                *byte = live.below_u64(256) as u8;
            }
            Stream::from_seed(key)
        });
        let fair = dealcards_fairness::stats::chi_square_two_samples(&direct, &ahead);
        assert!(fair.p_value > ALPHA, "{mode:?}: {fair:?}");
        let broken = count(&mut seeded(53), &mut |_| seeded(54));
        let caught = dealcards_fairness::stats::chi_square_two_samples(&direct, &broken);
        assert!(caught.p_value < ALPHA, "{mode:?}: {caught:?}");
    }
}
