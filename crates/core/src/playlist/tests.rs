//! Unit tests of `playlist`, in a file of their own: the module reads without them.

use super::memory::MemoryTape;
use super::*;
use std::collections::{HashMap, HashSet, VecDeque};

/// Draws that come from a script, recording every bound asked for.
struct Scripted {
    choices: VecDeque<u64>,
    bounds: Vec<u64>,
}

impl Scripted {
    fn new(choices: &[u64]) -> Self {
        Scripted {
            choices: choices.iter().copied().collect(),
            bounds: Vec::new(),
        }
    }
}

impl Draw for Scripted {
    fn draw(&mut self, bound: u64) -> u64 {
        self.bounds.push(bound);
        let choice = self.choices.pop_front().expect("script ran out");
        assert!(choice < bound, "scripted {choice} outside 0..{bound}");
        choice
    }
}

/// Wraps a draw and records the bounds and results.
struct Recorded<'a> {
    inner: &'a mut dyn Draw,
    log: Vec<(u64, u64)>,
}

impl Draw for Recorded<'_> {
    fn draw(&mut self, bound: u64) -> u64 {
        let value = self.inner.draw(bound);
        self.log.push((bound, value));
        value
    }
}

fn letters(text: &str) -> Vec<i64> {
    text.bytes().map(|b| b as i64).collect()
}

fn text(tracks: &[i64]) -> String {
    tracks.iter().map(|&t| t as u8 as char).collect()
}

/// The circular queue's picture of the circle: position p of the tape is place p mod length.
fn circle(queue: &Queue, tape: &MemoryTape) -> String {
    let n = queue.tracks as usize;
    let mut places = vec![0i64; n];
    for (i, &track) in tape.tracks.iter().enumerate() {
        let position = tape.base + i as i64;
        places[position.rem_euclid(n as i64) as usize] = track;
    }
    text(&places)
}

/// The circular queue's pointer line: `^` and `*` under their circle places (`^` alone when equal).
fn pointers(queue: &Queue) -> String {
    let n = queue.tracks as i64;
    let star = queue.newest().rem_euclid(n) as usize;
    let caret = queue.playing().unwrap().rem_euclid(n) as usize;
    let mut line = vec![b' '; n as usize];
    line[star] = b'*';
    line[caret] = b'^';
    String::from_utf8(line).unwrap().trim_end().to_string()
}

fn seeded(seed: u8) -> Stream {
    Stream::from_seed([seed; 32])
}

fn worked_example_queue() -> (Queue, MemoryTape) {
    let tracks = letters("ABCDEFGHIJKLMN");
    let queue = Queue::new(Mode::Shuffle, tracks.len(), Some(7)).unwrap();
    (queue, MemoryTape::new(&tracks))
}

#[test]
fn the_worked_example_with_its_own_choices() {
    // The circular queue's worked example: 14 tracks ABCDEFGHIJKLMN, window 7 = 14 * 0.5,
    // before any shuffle. The pictures below are copied from the example, and so are its
    // choices: "suppose we choose E" (offset 4 in ABCDEFG), then H (offset 6 in BCDAFGH), then
    // nine picks that leave the circle as it is (offset 0), then H (offset 4 in LMNEHCD).
    let (mut queue, mut tape) = worked_example_queue();
    let mut draws = Scripted::new(&[4, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4]);

    assert_eq!(queue.next(&mut tape, &mut draws), 'E' as i64);
    assert_eq!(circle(&queue, &tape), "EBCDAFGHIJKLMN");
    assert_eq!(pointers(&queue), "^");

    assert_eq!(queue.next(&mut tape, &mut draws), 'H' as i64);
    assert_eq!(circle(&queue, &tape), "EHCDAFGBIJKLMN");
    assert_eq!(pointers(&queue), " ^");

    for expected in "CDAFGBIJK".chars() {
        assert_eq!(queue.next(&mut tape, &mut draws), expected as i64);
    }
    assert_eq!(circle(&queue, &tape), "EHCDAFGBIJKLMN");
    assert_eq!(pointers(&queue), "          ^");
    // The window the example names for the next pick: "LMNEHCD".
    let window: String = (0..queue.eligible() as i64)
        .map(|k| tape.track_at(queue.front + k) as u8 as char)
        .collect();
    assert_eq!(window, "LMNEHCD");

    assert_eq!(queue.next(&mut tape, &mut draws), 'H' as i64);
    assert_eq!(circle(&queue, &tape), "ELCDAFGBIJKHMN");
    assert_eq!(pointers(&queue), "           ^");

    // Previous: only ^ moves, and K (what played before H) plays again.
    assert_eq!(queue.prev(&mut tape), Some('K' as i64));
    assert_eq!(pointers(&queue), "          ^*");
    assert_eq!(queue.prev(&mut tape), Some('J' as i64));
    assert_eq!(pointers(&queue), "         ^ *");
    // Next with ^ behind *: ^ just advances, nothing is drawn, the circle stays.
    assert_eq!(queue.next(&mut tape, &mut draws), 'K' as i64);
    assert_eq!(pointers(&queue), "          ^*");
    assert_eq!(circle(&queue, &tape), "ELCDAFGBIJKHMN");
    // Every draw asked for the queue's window of 7, and the script was used up exactly.
    assert_eq!(draws.bounds, vec![7; 12]);
    assert!(draws.choices.is_empty());
}

#[test]
fn the_worked_example_with_a_fixed_seed() {
    // The same 14 tracks and window 7, the choices now from the seeded ChaCha20 stream. At every
    // pick, checked by hand against the circular queue's rule: the window is the 7 circle places
    // after *, (p1 + 0 .. p1 + 7) mod 14; the drawn track comes from that window; it is swapped
    // with the track at p1, the new play position, and nothing else moves.
    let (mut queue, mut tape) = worked_example_queue();
    let mut stream = seeded(3);
    let mut played = Vec::new();
    for step in 0..40 {
        let before = circle(&queue, &tape);
        let p1 = ((step as i64) % 14) as usize; // ^ and * start at place 14 (index 13).
        let window: Vec<usize> = (0..7).map(|k| (p1 + k) % 14).collect();
        let mut recorded = Recorded {
            inner: &mut stream,
            log: Vec::new(),
        };
        let track = queue.next(&mut tape, &mut recorded);
        assert_eq!(recorded.log.len(), 1, "one draw per pick");
        let (bound, k) = recorded.log[0];
        assert_eq!(bound, 7);
        let drawn_place = window[k as usize];
        let before: Vec<u8> = before.bytes().collect();
        assert_eq!(track, before[drawn_place] as i64, "step {step}");
        let mut expected = before.clone();
        expected.swap(p1, drawn_place);
        assert_eq!(
            circle(&queue, &tape).as_bytes(),
            &expected[..],
            "step {step}"
        );
        assert_eq!(queue.newest().rem_euclid(14) as usize, p1);
        assert_eq!(queue.playing(), Some(queue.newest()));
        played.push(track);
    }
    // The circular queue's promise: nothing comes back within length - window = 7 picks.
    for (i, track) in played.iter().enumerate() {
        let next_time = played[i + 1..].iter().position(|t| t == track);
        if let Some(gap) = next_time {
            assert!(
                gap >= 7,
                "{} came back after {} picks",
                *track as u8 as char,
                gap + 1
            );
        }
    }
}

/// Checks the tape holds exactly the queue's tracks and the state is consistent.
fn check_invariants(queue: &Queue, tape: &MemoryTape, all: &HashSet<i64>) {
    assert_eq!(tape.base, queue.front);
    assert_eq!(tape.tracks.len() as u64, queue.tracks);
    let on_tape: HashSet<i64> = tape.tracks.iter().copied().collect();
    assert_eq!(&on_tape, all);
    assert!(queue.history <= queue.history_limit());
    assert!(queue.behind < queue.history.max(1));
    assert!(queue.eligible() >= 1 && queue.eligible() <= queue.tracks);
    // The window reaches into the history by at most its oldest track.
    assert!(queue.eligible() <= queue.tracks - queue.history + 1);
    assert_eq!(queue.validate(&tape.contents()), Ok(()));
}

fn new_queue(
    mode: Mode,
    n: usize,
    window: Option<i64>,
    stream: &mut Stream,
) -> (Queue, MemoryTape) {
    let mut tracks: Vec<i64> = (1..=n as i64).collect();
    check_playlist(&mut tracks).unwrap();
    starting_order(&mut tracks, stream, &mut || {});
    (
        Queue::new(mode, n, window).unwrap(),
        MemoryTape::new(&tracks),
    )
}

/// The streams the property tests run on: fixed seeds and one keyed by the OS (properties
/// hold for every stream, so the live one cannot make them flaky).
fn streams() -> Vec<Stream> {
    let mut streams: Vec<Stream> = (20..26).map(seeded).collect();
    streams.push(Stream::from_os().unwrap());
    streams
}

#[test]
fn shuffle_mode_never_repeats_within_length_minus_window() {
    for mut stream in streams() {
        for (n, window) in [
            (14, Some(7)),
            (10, None),
            (2, None),
            (9, Some(1)),
            (9, Some(8)),
            (50, Some(13)),
            (1, None),
        ] {
            let (mut queue, mut tape) = new_queue(Mode::Shuffle, n, window, &mut stream);
            let all: HashSet<i64> = tape.tracks.iter().copied().collect();
            let w = queue.window_size() as usize;
            let mut last_seen: HashMap<i64, usize> = HashMap::new();
            for step in 0..20 * n + 200 {
                let track = queue.next(&mut tape, &mut stream);
                if let Some(&before) = last_seen.get(&track) {
                    // At least length - window other picks in between.
                    assert!(
                        step - before > n - w,
                        "n {n} w {w}: {track} after {}",
                        step - before
                    );
                }
                last_seen.insert(track, step);
                check_invariants(&queue, &tape, &all);
            }
            assert_eq!(last_seen.len(), n, "every track played");
        }
    }
}

#[test]
fn random_mode_never_repeats_one_of_the_last_window_tracks() {
    for mut stream in streams() {
        for (n, window) in [
            (10, None),
            (10, Some(1)),
            (10, Some(9)),
            (2, None),
            (1, None),
            (30, Some(12)),
        ] {
            let (mut queue, mut tape) = new_queue(Mode::Random, n, window, &mut stream);
            let all: HashSet<i64> = tape.tracks.iter().copied().collect();
            let w = queue.window_size() as usize;
            let mut played: Vec<i64> = Vec::new();
            for _ in 0..30 * n + 200 {
                // Before each pick: the eligible tracks are all but the last `window` played.
                let recent: HashSet<i64> = played.iter().rev().take(w).copied().collect();
                let eligible: HashSet<i64> = (0..queue.eligible() as i64)
                    .map(|k| tape.track_at(queue.front + k))
                    .collect();
                let expected: HashSet<i64> = all.difference(&recent).copied().collect();
                assert_eq!(eligible, expected);
                let track = queue.next(&mut tape, &mut stream);
                assert!(!recent.contains(&track), "{track} was one of the last {w}");
                played.push(track);
                check_invariants(&queue, &tape, &all);
            }
            let distinct: HashSet<i64> = played.iter().copied().collect();
            assert_eq!(distinct.len(), n, "every track played");
            if n > 1 {
                assert!(
                    played.windows(2).all(|p| p[0] != p[1]),
                    "a track played twice in a row"
                );
            }
        }
    }
}

/// A listener pressing next and previous at random, against a model of what they must hear:
/// previous walks back through what played (as far as the history reaches), next replays
/// forward, and only at the newest pick draws a new track.
fn walk(mode: Mode, n: usize, window: Option<i64>, stream: &mut Stream, presses: &mut Stream) {
    let (mut queue, mut tape) = new_queue(mode, n, window, stream);
    let depth = queue.history_limit() as usize - 1; // how far back previous can go
    let mut played: Vec<i64> = Vec::new(); // every pick, in order
    let mut at = 0usize; // how far ^ is behind the newest pick
    assert_eq!(queue.prev(&mut tape), None);
    assert_eq!(queue.current(&mut tape), None);
    for _ in 0..3000 {
        if presses.below(5) < 2 {
            let heard = queue.prev(&mut tape);
            if played.is_empty() {
                assert_eq!(heard, None);
                continue;
            }
            at = (at + 1).min(depth).min(played.len() - 1);
            assert_eq!(heard, Some(played[played.len() - 1 - at]));
        } else {
            let heard = queue.next(&mut tape, stream);
            if at > 0 {
                at -= 1;
                assert_eq!(heard, played[played.len() - 1 - at], "a replay");
            } else {
                played.push(heard);
            }
        }
        assert_eq!(
            queue.current(&mut tape),
            Some(played[played.len() - 1 - at])
        );
        assert_eq!(queue.behind as usize, at);
    }
}

#[test]
fn previous_then_next_walk_through_what_played() {
    let mut presses = seeded(99);
    for mut stream in streams() {
        walk(Mode::Shuffle, 14, Some(7), &mut stream, &mut presses);
        walk(Mode::Shuffle, 10, None, &mut stream, &mut presses);
        walk(Mode::Shuffle, 9, Some(1), &mut stream, &mut presses);
        walk(Mode::Shuffle, 1, None, &mut stream, &mut presses);
        walk(Mode::Random, 10, None, &mut stream, &mut presses);
        walk(Mode::Random, 12, Some(3), &mut stream, &mut presses);
        walk(Mode::Random, 2, None, &mut stream, &mut presses);
    }
}

#[test]
fn previous_goes_back_as_far_as_the_history_reaches() {
    // Shuffle, 10 tracks, window 4: the last 10 - 4 = 6 places behind * are history.
    let mut stream = seeded(5);
    let (mut queue, mut tape) = new_queue(Mode::Shuffle, 10, Some(4), &mut stream);
    let picks: Vec<i64> = (0..25)
        .map(|_| queue.next(&mut tape, &mut stream))
        .collect();
    let back: Vec<i64> = (0..8).map(|_| queue.prev(&mut tape).unwrap()).collect();
    let expected: Vec<i64> = picks.iter().rev().skip(1).take(6).copied().collect();
    assert_eq!(&back[..6], &expected[..]);
    assert_eq!(back[6], expected[5], "stays at the oldest");
    assert_eq!(back[7], expected[5]);
    let forward: Vec<i64> = (0..6).map(|_| queue.next(&mut tape, &mut stream)).collect();
    let mut replay: Vec<i64> = expected[..5].iter().rev().copied().collect();
    replay.push(picks[24]);
    assert_eq!(forward, replay);
    // Random, 10 tracks, window 3: three tracks are kept out, so three steps back.
    let (mut queue, mut tape) = new_queue(Mode::Random, 10, Some(3), &mut stream);
    let picks: Vec<i64> = (0..25)
        .map(|_| queue.next(&mut tape, &mut stream))
        .collect();
    let back: Vec<i64> = (0..4).map(|_| queue.prev(&mut tape).unwrap()).collect();
    assert_eq!(back, [picks[23], picks[22], picks[21], picks[21]]);
    // Before any pick: nothing to go back to.
    let (mut queue, mut tape) = new_queue(Mode::Random, 10, Some(3), &mut stream);
    assert_eq!(queue.prev(&mut tape), None);
    assert_eq!(queue.current(&mut tape), None);
    assert_eq!(queue.history, 0);
}

#[test]
fn windows_default_to_half_and_must_fit() {
    let q = |mode, n, w| Queue::new(mode, n, w);
    assert_eq!(q(Mode::Shuffle, 14, None).unwrap().window_size(), 7);
    assert_eq!(q(Mode::Shuffle, 15, None).unwrap().window_size(), 7);
    assert_eq!(q(Mode::Shuffle, 1, None).unwrap().window_size(), 1);
    assert_eq!(q(Mode::Random, 1, None).unwrap().window_size(), 0);
    assert_eq!(q(Mode::Random, 3, None).unwrap().window_size(), 1);
    assert!(q(Mode::Shuffle, 10, Some(9)).is_ok());
    assert!(q(Mode::Random, 10, Some(9)).is_ok());
    assert!(q(Mode::Shuffle, 1, Some(1)).is_ok());
    assert!(q(Mode::Random, 1, Some(0)).is_ok());
    for (mode, n, w, message) in [
        (
            Mode::Shuffle,
            10,
            10,
            "window 10 does not fit a shuffle queue of 10 tracks: it must be between 1 and 9",
        ),
        (
            Mode::Shuffle,
            10,
            0,
            "window 0 does not fit a shuffle queue of 10 tracks: it must be between 1 and 9",
        ),
        (
            Mode::Random,
            10,
            -1,
            "window -1 does not fit a random queue of 10 tracks: it must be between 1 and 9",
        ),
        (
            Mode::Shuffle,
            1,
            2,
            "window 2 does not fit a shuffle queue of 1 track: it must be 1",
        ),
        (
            Mode::Random,
            1,
            1,
            "window 1 does not fit a random queue of 1 track: it must be 0",
        ),
        (
            Mode::Random,
            2,
            2,
            "window 2 does not fit a random queue of 2 tracks: it must be 1",
        ),
    ] {
        let err = q(mode, n, Some(w)).unwrap_err();
        assert_eq!(err.kind, ErrorKind::InvalidParameter);
        assert_eq!(err.message, message);
    }
    assert_eq!(
        q(Mode::Shuffle, 0, None).unwrap_err().kind,
        ErrorKind::InvalidParameter
    );
    let err = Mode::parse("repeat").unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidParameter);
    assert_eq!(
        err.message,
        "unknown shuffle queue mode \"repeat\": expected \"shuffle\" or \"random\""
    );
    assert_eq!(Mode::parse("random"), Ok(Mode::Random));
    assert!(Mode::parse("Shuffle").is_err());
}

#[test]
fn playlists_are_checked_and_shuffled() {
    let mut stream = seeded(1);
    let err = check_playlist(&mut []).unwrap_err();
    assert_eq!(err.message, "a shuffle queue needs at least one track");
    let err = check_playlist(&mut [5, 3, 9, 3]).unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidParameter);
    assert_eq!(
        err.message,
        "track 3 appears more than once in the playlist"
    );
    assert_eq!(check_playlist(&mut [i64::MAX, -1, 0, i64::MIN]), Ok(()));
    let err = check_playlist(&mut [i64::MAX, 1, i64::MAX]).unwrap_err();
    assert_eq!(
        err.message,
        format!("track {} appears more than once in the playlist", i64::MAX)
    );
    let mut tracks: Vec<i64> = (1..=1000).collect();
    starting_order(&mut tracks, &mut stream, &mut || {});
    assert_ne!(
        tracks,
        (1..=1000).collect::<Vec<_>>(),
        "the start is shuffled"
    );
    tracks.sort_unstable();
    assert_eq!(tracks, (1..=1000).collect::<Vec<_>>());
}

#[test]
fn a_pick_touches_two_positions_whatever_the_length() {
    // The tape operations of 1000 steps on a 10-track and a 100,000-track queue: one pick
    // per new track, one read per replay, never anything proportional to the length.
    #[derive(Default)]
    struct Counting {
        inner: Option<MemoryTape>,
        reads: usize,
        picks: usize,
    }
    impl Tape for Counting {
        fn track_at(&mut self, p: i64) -> i64 {
            self.reads += 1;
            self.inner.as_mut().unwrap().track_at(p)
        }
        fn find(&mut self, t: i64) -> Option<i64> {
            self.inner.as_mut().unwrap().find(t)
        }
        fn pick(&mut self, f: i64, d: i64, e: i64) -> i64 {
            self.picks += 1;
            self.inner.as_mut().unwrap().pick(f, d, e)
        }
        fn insert_front(&mut self, a: i64, b: i64, c: i64) {
            self.inner.as_mut().unwrap().insert_front(a, b, c)
        }
        fn fill_from_front(&mut self, a: i64, b: i64) {
            self.inner.as_mut().unwrap().fill_from_front(a, b)
        }
        fn close_down(&mut self, a: i64, b: i64) {
            self.inner.as_mut().unwrap().close_down(a, b)
        }
        fn close_up(&mut self, a: i64, b: i64, c: i64) {
            self.inner.as_mut().unwrap().close_up(a, b, c)
        }
        fn swap(&mut self, a: i64, b: i64) {
            self.inner.as_mut().unwrap().swap(a, b)
        }
    }
    for n in [10usize, 100_000] {
        let mut stream = seeded(8);
        let (mut queue, tape) = new_queue(Mode::Shuffle, n, None, &mut stream);
        let mut counting = Counting {
            inner: Some(tape),
            ..Default::default()
        };
        for i in 0..1000 {
            if i % 4 == 3 {
                queue.prev(&mut counting);
            } else {
                queue.next(&mut counting, &mut stream);
            }
        }
        // Presses go next, next, next, previous, then (replay, next, next, previous) * 249.
        assert_eq!(
            (counting.picks, counting.reads),
            (3 + 249 * 2, 1 + 249 * 2),
            "n = {n}"
        );
    }
}

#[test]
fn add_places_the_track_among_those_not_played_and_keeps_the_history() {
    for mut stream in streams() {
        for mode in [Mode::Shuffle, Mode::Random] {
            let (mut queue, mut tape) = new_queue(mode, 12, None, &mut stream);
            let mut all: HashSet<i64> = tape.tracks.iter().copied().collect();
            let mut played = Vec::new();
            for _ in 0..30 {
                played.push(queue.next(&mut tape, &mut stream));
            }
            queue.prev(&mut tape);
            let history_before: Vec<i64> =
                tape.contents()[(queue.tracks - queue.history) as usize..].to_vec();
            let playing = queue.current(&mut tape);
            queue.add(&mut tape, &mut stream, 100).unwrap();
            all.insert(100);
            check_invariants(&queue, &tape, &all);
            let history_after: Vec<i64> =
                tape.contents()[(queue.tracks - queue.history) as usize..].to_vec();
            assert_eq!(history_after, history_before);
            assert_eq!(queue.current(&mut tape), playing);
            let at = tape.find(100).unwrap();
            assert!(at < queue.front + (queue.tracks - queue.history) as i64);
            // Next replays the track after ^, then the added track comes in time.
            assert_eq!(queue.next(&mut tape, &mut stream), played[29]);
            let mut heard = false;
            for _ in 0..200 {
                heard |= queue.next(&mut tape, &mut stream) == 100;
                check_invariants(&queue, &tape, &all);
            }
            assert!(heard, "the added track never played");
            let err = queue.add(&mut tape, &mut stream, 100).unwrap_err();
            assert_eq!(err.kind, ErrorKind::InvalidParameter);
            assert_eq!(err.message, "track 100 is already in the queue");
        }
    }
}

#[test]
fn add_chooses_its_place_uniformly() {
    // Where the added track lands among the places not in the history, over many adds to
    // the same state: chi-square against uniform, and a negative control (a draw that never
    // returns the top of its range) that the same test rejects.
    struct NeverTop<'a>(&'a mut Stream);
    impl Draw for NeverTop<'_> {
        fn draw(&mut self, bound: u64) -> u64 {
            if bound == 1 {
                return 0;
            }
            self.0.draw(bound - 1)
        }
    }
    let mut stream = seeded(31);
    let (mut start, mut start_tape) = new_queue(Mode::Shuffle, 12, Some(4), &mut stream);
    for _ in 0..20 {
        start.next(&mut start_tape, &mut stream);
    }
    let places = (start.tracks + 1 - start.history) as usize;
    assert_eq!(places, 4); // window 4: three places not in the history, plus the new one
    let landing = |draw: &mut dyn Draw| {
        let mut counts = vec![0u64; places];
        for _ in 0..8000 {
            let (mut queue, mut tape) = (start.clone(), start_tape.clone());
            queue.add(&mut tape, draw, 100).unwrap();
            counts[(tape.find(100).unwrap() - queue.front) as usize] += 1;
        }
        dealcards_fairness::stats::chi_square_uniform(&counts)
    };
    let fair = landing(&mut seeded(32));
    assert!(fair.p_value > 1e-4, "{fair:?}");
    let mut control = seeded(32);
    let biased = landing(&mut NeverTop(&mut control));
    assert!(biased.p_value < 1e-4, "{biased:?}");
}

#[test]
fn remove_keeps_the_history_in_order_without_the_track() {
    for mut stream in streams() {
        for mode in [Mode::Shuffle, Mode::Random] {
            for victim_kind in 0..5 {
                let (mut queue, mut tape) = new_queue(mode, 16, None, &mut stream);
                let mut all: HashSet<i64> = tape.tracks.iter().copied().collect();
                for _ in 0..40 {
                    queue.next(&mut tape, &mut stream);
                }
                for _ in 0..3 {
                    queue.prev(&mut tape);
                }
                let contents = tape.contents();
                let split = (queue.tracks - queue.history) as usize;
                let history = contents[split..].to_vec();
                let playing_index = history.len() - 1 - queue.behind as usize;
                let victim = match victim_kind {
                    0 => contents[0],                // not played recently
                    1 => history[0],                 // the oldest remembered
                    2 => *history.last().unwrap(),   // the newest pick
                    3 => history[playing_index],     // the one playing
                    _ => history[history.len() / 2], // in the middle
                };
                let playing = history[playing_index];
                queue.remove(&mut tape, victim).unwrap();
                all.remove(&victim);
                check_invariants(&queue, &tape, &all);
                let expected: Vec<i64> = history.iter().copied().filter(|&t| t != victim).collect();
                let after = tape.contents()[(queue.tracks - queue.history) as usize..].to_vec();
                // In order, without the track; the limit may trim the oldest one.
                assert!(
                    expected.ends_with(&after),
                    "{mode:?} {victim_kind}: {expected:?} / {after:?}"
                );
                assert!(after.len() + 1 >= expected.len());
                let now = queue.current(&mut tape);
                if victim != playing {
                    if after.contains(&playing) {
                        assert_eq!(now, Some(playing));
                    }
                } else if playing_index > 0 && after.contains(&history[playing_index - 1]) {
                    assert_eq!(
                        now,
                        Some(history[playing_index - 1]),
                        "^ moves to the track before"
                    );
                }
                for _ in 0..200 {
                    assert_ne!(queue.next(&mut tape, &mut stream), victim);
                    check_invariants(&queue, &tape, &all);
                }
                let err = queue.remove(&mut tape, victim).unwrap_err();
                assert_eq!(err.kind, ErrorKind::NotFound);
                assert_eq!(err.message, format!("track {victim} is not in the queue"));
            }
        }
    }
}

#[test]
fn removing_the_track_playing_moves_the_play_position() {
    // Shuffle, 10 tracks, window 4: the history holds 7 tracks, so previous goes 6 back.
    let mut stream = seeded(41);
    let (mut queue, mut tape) = new_queue(Mode::Shuffle, 10, Some(4), &mut stream);
    let picks: Vec<i64> = (0..20)
        .map(|_| queue.next(&mut tape, &mut stream))
        .collect();
    for _ in 0..6 {
        queue.prev(&mut tape);
    }
    assert_eq!(queue.current(&mut tape), Some(picks[13]));
    // The oldest remembered track leaves while playing: ^ moves to the one after it.
    queue.remove(&mut tape, picks[13]).unwrap();
    assert_eq!(queue.current(&mut tape), Some(picks[14]));
    assert_eq!(queue.next(&mut tape, &mut stream), picks[15]);
    // A track in the middle leaves while playing: ^ moves to the one before it.
    queue.remove(&mut tape, picks[15]).unwrap();
    assert_eq!(queue.current(&mut tape), Some(picks[14]));
    let forward: Vec<i64> = (0..4).map(|_| queue.next(&mut tape, &mut stream)).collect();
    assert_eq!(forward, picks[16..20]);
    // The only track in the history leaves: nothing is playing any more.
    let (mut queue, mut tape) = new_queue(Mode::Random, 5, None, &mut stream);
    let first = queue.next(&mut tape, &mut stream);
    queue.remove(&mut tape, first).unwrap();
    assert_eq!(queue.current(&mut tape), None);
    assert_eq!(queue.prev(&mut tape), None);
    assert_ne!(queue.next(&mut tape, &mut stream), first);
}

#[test]
fn a_queue_can_shrink_to_one_track_and_grow_again() {
    let mut stream = seeded(40);
    let (mut queue, mut tape) = new_queue(Mode::Random, 5, Some(3), &mut stream);
    let mut all: HashSet<i64> = (1..=5).collect();
    for victim in [1, 2, 3, 4] {
        queue.next(&mut tape, &mut stream);
        queue.remove(&mut tape, victim).unwrap();
        all.remove(&victim);
        check_invariants(&queue, &tape, &all);
    }
    assert_eq!(queue.window_size(), 0, "the window shrank with the queue");
    assert_eq!(queue.next(&mut tape, &mut stream), 5);
    assert_eq!(queue.next(&mut tape, &mut stream), 5);
    let err = queue.remove(&mut tape, 5).unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidParameter);
    assert_eq!(
        err.message,
        "track 5 is the only one in the queue: drop the queue instead"
    );
    for track in 6..=9 {
        queue.add(&mut tape, &mut stream, track).unwrap();
        all.insert(track);
        check_invariants(&queue, &tape, &all);
    }
    assert_eq!(queue.window_size(), 3, "and came back as it grew");
    let heard: HashSet<i64> = (0..100)
        .map(|_| queue.next(&mut tape, &mut stream))
        .collect();
    assert_eq!(heard, all);
}

#[test]
fn random_picks_are_uniform_over_the_tracks_not_kept_out() {
    // Random mode, 10 tracks, window 3: from a state with a full history, the next pick is
    // uniform over the 7 tracks not among the last 3, and never one of those 3. A draw that
    // never returns the top of its range (the last eligible place) must be rejected.
    let mut stream = seeded(50);
    let (mut start, mut start_tape) = new_queue(Mode::Random, 10, Some(3), &mut stream);
    for _ in 0..20 {
        start.next(&mut start_tape, &mut stream);
    }
    let recent: Vec<i64> = start_tape.contents()[7..].to_vec();
    let counts_of = |draw: &mut dyn Draw| {
        let mut counts = [0u64; 11];
        for _ in 0..14_000 {
            let (mut queue, mut tape) = (start.clone(), start_tape.clone());
            counts[queue.next(&mut tape, draw) as usize] += 1;
        }
        counts
    };
    let counts = counts_of(&mut seeded(51));
    for t in &recent {
        assert_eq!(counts[*t as usize], 0, "{t} is one of the last 3");
    }
    let eligible: Vec<u64> = (1..=10)
        .filter(|t| !recent.contains(t))
        .map(|t| counts[t as usize])
        .collect();
    let fair = dealcards_fairness::stats::chi_square_uniform(&eligible);
    assert_eq!(fair.df, 6);
    assert!(fair.p_value > 1e-4, "{fair:?}");
    struct NeverTop<'a>(&'a mut Stream);
    impl Draw for NeverTop<'_> {
        fn draw(&mut self, bound: u64) -> u64 {
            self.0.draw(bound.saturating_sub(1).max(1))
        }
    }
    let mut control = seeded(51);
    let counts = counts_of(&mut NeverTop(&mut control));
    let biased: Vec<u64> = (1..=10)
        .filter(|t| !recent.contains(t))
        .map(|t| counts[t as usize])
        .collect();
    let biased = dealcards_fairness::stats::chi_square_uniform(&biased);
    assert!(biased.p_value < 1e-4, "{biased:?}");
}

#[test]
fn a_jump_plays_the_track_as_the_newest_pick() {
    for mut stream in streams() {
        for mode in [Mode::Shuffle, Mode::Random] {
            let (mut queue, mut tape) = new_queue(mode, 12, Some(5), &mut stream);
            let all: HashSet<i64> = tape.tracks.iter().copied().collect();
            let played: Vec<i64> = (0..20)
                .map(|_| queue.next(&mut tape, &mut stream))
                .collect();
            // A track not in the history: one swap, the history grows by it.
            let history: Vec<i64> =
                tape.contents()[(queue.tracks - queue.history) as usize..].to_vec();
            let fresh = *all.iter().find(|t| !history.contains(t)).unwrap();
            assert_eq!(queue.jump(&mut tape, fresh), Ok(fresh));
            check_invariants(&queue, &tape, &all);
            assert_eq!(queue.current(&mut tape), Some(fresh));
            assert_eq!(queue.prev(&mut tape), Some(played[19]));
            assert_eq!(
                queue.next(&mut tape, &mut stream),
                fresh,
                "next replays the jump"
            );
            // A track of the history: it leaves its place there and plays as the newest.
            let older = played[17];
            let depth = queue.history as usize;
            assert_eq!(queue.jump(&mut tape, older), Ok(older));
            check_invariants(&queue, &tape, &all);
            let back: Vec<i64> = (0..3).map(|_| queue.prev(&mut tape).unwrap()).collect();
            assert_eq!(
                back,
                [fresh, played[19], played[18]],
                "the old place is gone"
            );
            assert!(queue.history as usize <= depth);
            // From the newest again, next draws on and the jumped track does not come back soon.
            for _ in 0..3 {
                queue.next(&mut tape, &mut stream);
            }
            let w = queue.window_size() as usize;
            let soon = if mode == Mode::Shuffle { 12 - w } else { w };
            let after: Vec<i64> = (0..soon)
                .map(|_| queue.next(&mut tape, &mut stream))
                .collect();
            assert!(!after.contains(&older), "{mode:?}: {after:?}");
            // The newest pick: nothing moves.
            let newest = queue.current(&mut tape).unwrap();
            let before = (queue.clone(), tape.contents());
            assert_eq!(queue.jump(&mut tape, newest), Ok(newest));
            assert_eq!((queue.clone(), tape.contents()), before);
            let err = queue.jump(&mut tape, 999).unwrap_err();
            assert_eq!(err.kind, ErrorKind::NotFound);
        }
    }
    // Before any pick, and in a one-track queue.
    let mut stream = seeded(2);
    let (mut queue, mut tape) = new_queue(Mode::Shuffle, 1, None, &mut stream);
    assert_eq!(queue.jump(&mut tape, 1), Ok(1));
    assert_eq!(queue.jump(&mut tape, 1), Ok(1));
    assert_eq!(queue.current(&mut tape), Some(1));
}

#[test]
fn a_jump_deep_into_a_long_history_costs_two_swaps_and_moves_the_oldest_play_into_its_place() {
    // 300 tracks: a history of up to 151 plays in shuffle mode (window 150), 101 in random
    // mode (window 100). A jump to a track played 60 plays ago (more than EXACT_JUMP from
    // either end of the history) is a swap and a pick, nothing shifts; the oldest play
    // remembered takes its place in the history.
    #[derive(Default)]
    struct Moves {
        inner: Option<MemoryTape>,
        shifts: usize,
        swaps: usize,
    }
    impl Tape for Moves {
        fn track_at(&mut self, p: i64) -> i64 {
            self.inner.as_mut().unwrap().track_at(p)
        }
        fn find(&mut self, t: i64) -> Option<i64> {
            self.inner.as_mut().unwrap().find(t)
        }
        fn pick(&mut self, f: i64, d: i64, e: i64) -> i64 {
            self.inner.as_mut().unwrap().pick(f, d, e)
        }
        fn insert_front(&mut self, a: i64, b: i64, c: i64) {
            self.inner.as_mut().unwrap().insert_front(a, b, c)
        }
        fn fill_from_front(&mut self, a: i64, b: i64) {
            self.inner.as_mut().unwrap().fill_from_front(a, b)
        }
        fn close_down(&mut self, a: i64, b: i64) {
            self.shifts += (b - a) as usize;
            self.inner.as_mut().unwrap().close_down(a, b)
        }
        fn close_up(&mut self, a: i64, b: i64, c: i64) {
            self.shifts += (c - b) as usize;
            self.inner.as_mut().unwrap().close_up(a, b, c)
        }
        fn swap(&mut self, a: i64, b: i64) {
            self.swaps += 1;
            self.inner.as_mut().unwrap().swap(a, b)
        }
    }
    for mut stream in streams() {
        for (mode, window) in [(Mode::Shuffle, 150u64), (Mode::Random, 100)] {
            let (mut queue, tape) = new_queue(mode, 300, None, &mut stream);
            let all: HashSet<i64> = tape.tracks.iter().copied().collect();
            let mut tape = Moves {
                inner: Some(tape),
                ..Default::default()
            };
            let played: Vec<i64> = (0..400)
                .map(|_| queue.next(&mut tape, &mut stream))
                .collect();
            let limit = queue.history_limit() as usize;
            assert_eq!(queue.history as usize, limit);
            let remembered = |queue: &Queue, tape: &Moves| -> Vec<i64> {
                tape.inner.as_ref().unwrap().contents()[(queue.tracks - queue.history) as usize..]
                    .to_vec()
            };
            assert_eq!(remembered(&queue, &tape), played[400 - limit..]);
            // Played 60 plays ago, so not among the last 59 plays: deep on both sides.
            let tapped = played[339];
            assert!(!played[340..].contains(&tapped));
            assert_eq!(queue.jump(&mut tape, tapped), Ok(tapped));
            assert_eq!((tape.shifts, tape.swaps), (0, 1), "{mode:?}");
            check_invariants(&queue, tape.inner.as_ref().unwrap(), &all);
            // The history: what played, the oldest dropped, the oldest in the tapped track's
            // old place, the tapped track the newest.
            let mut expected = played[400 - limit + 1..].to_vec();
            expected[339 - (400 - limit + 1)] = played[400 - limit];
            expected.push(tapped);
            assert_eq!(remembered(&queue, &tape), expected, "{mode:?}");
            // Previous walks back through it.
            let back: Vec<i64> = (0..3).map(|_| queue.prev(&mut tape).unwrap()).collect();
            assert_eq!(back, [played[399], played[398], played[397]]);
            for _ in 0..3 {
                queue.next(&mut tape, &mut stream);
            }
            // The tapped track does not come back soon.
            let soon = if mode == Mode::Shuffle {
                300 - window
            } else {
                window
            } as usize;
            let after: Vec<i64> = (0..soon - 60)
                .map(|_| queue.next(&mut tape, &mut stream))
                .collect();
            assert!(!after.contains(&tapped), "{mode:?}");
            // A jump near either end of the history keeps its order exactly, with a shift of
            // at most EXACT_JUMP places.
            let now = remembered(&queue, &tape);
            let shifts = tape.shifts;
            let near = now[now.len() - 1 - EXACT_JUMP as usize];
            queue.jump(&mut tape, near).unwrap();
            assert!(tape.shifts - shifts <= EXACT_JUMP as usize);
            let mut expected: Vec<i64> = now.iter().copied().filter(|&t| t != near).collect();
            expected.push(near);
            let got = remembered(&queue, &tape);
            assert_eq!(got, expected[expected.len() - got.len()..], "{mode:?}");
        }
    }
}

#[test]
fn a_saved_tape_that_no_queue_reaches_is_refused() {
    let mut stream = seeded(14);
    let (mut queue, mut tape) = new_queue(Mode::Shuffle, 8, Some(3), &mut stream);
    for _ in 0..10 {
        queue.next(&mut tape, &mut stream);
    }
    let contents = tape.contents();
    assert_eq!(queue.validate(&contents), Ok(()));
    assert!(queue.validate(&contents[1..]).is_err());
    let mut twice = contents.clone();
    twice[0] = twice[1];
    assert!(queue.validate(&twice).is_err());
    let mut q = queue.clone();
    q.history = 7;
    assert!(q.validate(&contents).is_err());
    let mut q = queue.clone();
    q.behind = q.history;
    assert!(q.validate(&contents).is_err());
    let mut q = queue.clone();
    q.front = i64::MAX - 3;
    assert!(q.validate(&contents).is_err());
}

/// Runs operations on a seeded plain queue over tracks 1..=n as the SQL functions do: the
/// queue's creation draws from stream 0, each next, add, remove and jump from the next stream.
/// Returns what next, prev and jump give (None for none).
fn seeded_plain(
    mode: Mode,
    n: usize,
    window: Option<i64>,
    operations: &[&str],
) -> Vec<Option<i64>> {
    seeded_weighted(mode, n, window, None, operations)
}

/// The listener's recent plays of a first operation `recent:T,T,...` (most recent first), and
/// the operations after it.
pub(crate) fn recent_plays<'a>(operations: &'a [&'a str]) -> (Vec<i64>, &'a [&'a str]) {
    match operations.first().and_then(|op| op.strip_prefix("recent:")) {
        Some(list) => (
            list.split(',').map(|t| t.parse().unwrap()).collect(),
            &operations[1..],
        ),
        None => (Vec::new(), operations),
    }
}

/// [`seeded_plain`] with weights (random play): track i + 1 weighs `weights[i]`; `add:T:W` adds
/// a track of weight W, `skip:T` and `unskip:T` take a track out of the shuffle and put it back
/// (a removal and an add, as the SQL functions do).
fn seeded_weighted(
    mode: Mode,
    n: usize,
    window: Option<i64>,
    weights: Option<&[u64]>,
    operations: &[&str],
) -> Vec<Option<i64>> {
    let seed: [u8; 32] = std::array::from_fn(|i| i as u8);
    let mut tracks: Vec<i64> = (1..=n as i64).collect();
    // A first operation recent:T,T,... gives the listener's recent plays, most recent first.
    let (recent, operations) = recent_plays(operations);
    let held = held_back(&recent, &tracks);
    starting_order_holding(
        &mut tracks,
        &held,
        &mut operation_stream(&seed, 0),
        &mut || {},
    );
    let mut queue = Queue::new(mode, n, window).unwrap();
    let mut tape = MemoryTape::new(&tracks);
    if let Some(weights) = weights {
        tape.weights = weights
            .iter()
            .enumerate()
            .map(|(i, &w)| (i as i64 + 1, w))
            .collect();
    }
    let mut heaviest = weights.and_then(|w| w.iter().max().copied());
    let mut draws = 0;
    let mut out = Vec::new();
    for op in operations {
        let mut parts = op.split(':');
        let name = parts.next().unwrap();
        let arg = parts.next().unwrap_or("");
        if name == "prev" {
            out.push(queue.prev(&mut tape));
            continue;
        }
        draws += 1;
        let mut stream = operation_stream(&seed, draws);
        let track: i64 = arg.parse().unwrap_or(0);
        match name {
            "next" => out.push(Some(match heaviest {
                Some(h) if queue.behind == 0 => queue.next_weighted(&mut tape, &mut stream, h),
                _ => queue.next(&mut tape, &mut stream),
            })),
            "jump" => out.push(Some(queue.jump(&mut tape, track).unwrap())),
            "add" => {
                if let Some(w) = parts.next() {
                    let w: u64 = w.parse().unwrap();
                    tape.weights.insert(track, w);
                    heaviest = heaviest.map(|h| h.max(w));
                }
                queue.add(&mut tape, &mut stream, track).unwrap()
            }
            "unskip" => queue.add(&mut tape, &mut stream, track).unwrap(),
            "remove" | "skip" => queue.remove(&mut tape, track).unwrap(),
            _ => panic!("{op}"),
        }
    }
    out
}

fn values(text: &str) -> Vec<Option<i64>> {
    text.split(' ').map(|v| v.parse().ok()).collect()
}

#[test]
fn seeded_queues_give_the_golden_tracks() {
    // From tests/reference/seeded_queue.py (an implementation of the specification in
    // docs/playlist.md), seed 000102...1f:
    //   seeded_queue.py SEED shuffle:10 next*12 add:11 next*6 prev prev next jump:3 remove:5 next*5
    let mut ops = vec!["next"; 12];
    ops.push("add:11");
    ops.extend(["next"; 6]);
    ops.extend(["prev", "prev", "next", "jump:3", "remove:5"]);
    ops.extend(["next"; 5]);
    assert_eq!(
        seeded_plain(Mode::Shuffle, 10, None, &ops),
        values("4 6 3 9 1 5 8 7 4 6 1 2 11 3 10 4 5 8 5 4 5 3 6 11 1 10 8")
    );
    //   seeded_queue.py SEED random:8:3 next*10 add:9 next*4 jump:1 next*2 remove:2 next*6
    let mut ops = vec!["next"; 10];
    ops.push("add:9");
    ops.extend(["next"; 4]);
    ops.push("jump:1");
    ops.extend(["next"; 2]);
    ops.push("remove:2");
    ops.extend(["next"; 6]);
    assert_eq!(
        seeded_plain(Mode::Random, 8, Some(3), &ops),
        values("8 6 4 7 2 1 6 8 4 7 1 5 3 9 1 5 8 3 7 9 6 3 1")
    );
    //   seeded_queue.py SEED weighted:5,1,1,2,3,1,4,1:3 next*12 add:9:5 next*6 prev next jump:2
    //     next next skip:1 next*4 unskip:1 next*4 remove:4 next*3
    let mut ops = vec!["next"; 12];
    ops.push("add:9:5");
    ops.extend(["next"; 6]);
    ops.extend(["prev", "next", "jump:2", "next", "next", "skip:1"]);
    ops.extend(["next"; 4]);
    ops.push("unskip:1");
    ops.extend(["next"; 4]);
    ops.push("remove:4");
    ops.extend(["next"; 3]);
    assert_eq!(
        seeded_weighted(
            Mode::Random,
            8,
            Some(3),
            Some(&[5, 1, 1, 2, 3, 1, 4, 1]),
            &ops
        ),
        values("5 6 1 7 5 4 1 7 3 8 1 7 9 4 2 7 6 1 6 1 2 9 4 5 7 9 8 5 1 7 4 9 6 1")
    );
    //   seeded_queue.py SEED shuffle:200 next*150 jump:52 prev prev prev next*6 (52 played
    //   50 plays before the jump: deep in the history)
    let mut ops = vec!["next"; 150];
    ops.extend(["jump:52", "prev", "prev", "prev"]);
    ops.extend(["next"; 6]);
    let out = seeded_plain(Mode::Shuffle, 200, None, &ops);
    assert_eq!(out[150..], values("52 113 5 22 5 113 52 145 23 164"));
    //   ... jump:52 prev*100: back to the oldest play remembered, 38 (the 51st), then there
    let mut ops = vec!["next"; 150];
    ops.push("jump:52");
    ops.extend(["prev"; 100]);
    let out = seeded_plain(Mode::Shuffle, 200, None, &ops);
    assert_eq!(out[out.len() - 4..], values("64 87 182 38"));
    //   seeded_queue.py SEED shuffle:12:4 recent:3,11,7,40,1,11,9,2 next*12
    let mut ops = vec!["recent:3,11,7,40,1,11,9,2"];
    ops.extend(["next"; 12]);
    assert_eq!(
        seeded_plain(Mode::Shuffle, 12, Some(4), &ops),
        values("6 12 8 2 10 4 7 1 11 3 12 5")
    );
}

#[test]
fn weighted_picks_follow_the_weights_of_the_tracks_not_kept_out() {
    // Random mode, 10 tracks of weights 1..=10, window 3: from a state with a full history,
    // the next pick is track t with probability w(t) / (sum of the weights of the 7 tracks not
    // among the last 3), and never one of those 3. Chi-square against those probabilities; a
    // pick that takes every try (the weights ignored) must be rejected by the same test, and
    // so must one that takes a try when v <= w instead of v < w.
    let mut stream = seeded(60);
    let (mut start, mut start_tape) = new_queue(Mode::Random, 10, Some(3), &mut stream);
    start_tape.weights = (1..=10).map(|t| (t, t as u64)).collect();
    for _ in 0..20 {
        start.next_weighted(&mut start_tape, &mut stream, 10);
    }
    let recent: Vec<i64> = start_tape.contents()[7..].to_vec();
    let eligible: Vec<i64> = (1..=10).filter(|t| !recent.contains(t)).collect();
    let total: u64 = eligible.iter().map(|&t| t as u64).sum();
    let expected: Vec<f64> = eligible.iter().map(|&t| t as f64 / total as f64).collect();
    let counts_of = |draw: &mut dyn Draw, heaviest: u64| {
        let mut counts = [0u64; 11];
        for _ in 0..20_000 {
            let (mut queue, mut tape) = (start.clone(), start_tape.clone());
            counts[queue.next_weighted(&mut tape, draw, heaviest) as usize] += 1;
        }
        counts
    };
    let counts = counts_of(&mut seeded(61), 10);
    for t in &recent {
        assert_eq!(counts[*t as usize], 0, "{t} is one of the last 3");
    }
    let observed: Vec<u64> = eligible.iter().map(|&t| counts[t as usize]).collect();
    let fair = dealcards_fairness::stats::chi_square_expected(&observed, &expected);
    assert_eq!(fair.df, 6);
    assert!(fair.p_value > 1e-4, "{fair:?} {observed:?}");
    // Negative controls: weights ignored (every try taken), and an off-by-one test.
    struct TakeEvery<'a>(&'a mut Stream, bool);
    impl Draw for TakeEvery<'_> {
        fn draw(&mut self, bound: u64) -> u64 {
            self.1 = !self.1;
            let v = self.0.draw(bound);
            if self.1 {
                v
            } else {
                0
            }
        }
    }
    let mut control = seeded(61);
    let counts = counts_of(&mut TakeEvery(&mut control, false), 10);
    let observed: Vec<u64> = eligible.iter().map(|&t| counts[t as usize]).collect();
    let ignored = dealcards_fairness::stats::chi_square_expected(&observed, &expected);
    assert!(ignored.p_value < 1e-4, "{ignored:?}");
    // v <= w is v < w + 1: the same as every weight one larger.
    let mut heavier = start_tape.clone();
    heavier.weights = (1..=10).map(|t| (t, t as u64 + 1)).collect();
    let mut counts = [0u64; 11];
    let mut control = seeded(61);
    for _ in 0..20_000 {
        let (mut queue, mut tape) = (start.clone(), heavier.clone());
        counts[queue.next_weighted(&mut tape, &mut control, 11) as usize] += 1;
    }
    let observed: Vec<u64> = eligible.iter().map(|&t| counts[t as usize]).collect();
    let off_by_one = dealcards_fairness::stats::chi_square_expected(&observed, &expected);
    assert!(off_by_one.p_value < 1e-4, "{off_by_one:?}");
}

#[test]
fn a_weighted_queue_never_repeats_one_of_the_last_window_tracks() {
    let mut stream = seeded(62);
    let (mut queue, mut tape) = new_queue(Mode::Random, 12, Some(5), &mut stream);
    tape.weights = (1..=12)
        .map(|t| (t, if t == 1 { 1000 } else { 1 }))
        .collect();
    let all: HashSet<i64> = tape.tracks.iter().copied().collect();
    let mut played = Vec::new();
    for _ in 0..600 {
        let t = queue.next_weighted(&mut tape, &mut stream, 1000);
        assert!(
            !played.iter().rev().take(5).any(|&p| p == t),
            "{t} again within 5"
        );
        played.push(t);
        check_invariants(&queue, &tape, &all);
    }
    // Track 1 weighs 1000 against 1: it plays as soon as it may, every sixth pick.
    let ones = played.iter().filter(|&&t| t == 1).count();
    assert!(ones >= 95, "{ones}");
}

#[test]
fn recent_plays_are_held_back_to_the_end_of_the_tape() {
    let playlist: Vec<i64> = (1..=10).collect();
    // Most recent first; 42 is not in the playlist, 3 appears twice; at most half are held.
    let held = held_back(&[7, 42, 3, 9, 3, 1, 2, 5, 8], &playlist);
    assert_eq!(held, [7, 3, 9, 1, 2]);
    let mut tracks = playlist.clone();
    starting_order_holding(&mut tracks, &held, &mut seeded(3), &mut || {});
    assert_eq!(
        &tracks[5..],
        [2, 1, 9, 3, 7],
        "least recent first, the most recent last"
    );
    let mut front = tracks[..5].to_vec();
    front.sort_unstable();
    assert_eq!(front, [4, 5, 6, 8, 10]);
    // With a window of 5, the most recent (at place 9) is not among the first 5 picks, and
    // none of the held tracks is the first pick.
    let mut queue = Queue::new(Mode::Shuffle, 10, Some(5)).unwrap();
    let mut tape = MemoryTape::new(&tracks);
    let mut stream = seeded(4);
    let first: Vec<i64> = (0..5).map(|_| queue.next(&mut tape, &mut stream)).collect();
    assert!(!first.contains(&7), "{first:?}");
    assert!(!held.contains(&first[0]));
    assert_eq!(held_back(&[], &playlist), Vec::<i64>::new());
    assert_eq!(
        held_back(&[1], &[1]),
        Vec::<i64>::new(),
        "never the whole playlist"
    );
}
