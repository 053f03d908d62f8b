//! Unit tests of `ahead`: the overlay against the tape it overlays, and steps drawn ahead against
//! the steps played.

use std::collections::HashSet;

use super::*;
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
