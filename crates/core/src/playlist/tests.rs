//! Unit tests of `playlist`, in a file of their own: the module reads without them.

use super::*;
use std::collections::{HashMap, HashSet, VecDeque};

/// The positions in memory: `tracks[i]` is at position `base + i`.
#[derive(Debug, Clone)]
struct MemoryTape {
    base: i64,
    tracks: VecDeque<i64>,
}

impl MemoryTape {
    fn new(tracks: &[i64]) -> Self {
        MemoryTape {
            base: 0,
            tracks: tracks.iter().copied().collect(),
        }
    }

    fn index(&self, position: i64) -> usize {
        let i = position - self.base;
        assert!(
            (0..self.tracks.len() as i64).contains(&i),
            "position {position} is not on the tape"
        );
        i as usize
    }

    fn last(&self) -> i64 {
        self.base + self.tracks.len() as i64 - 1
    }

    fn contents(&self) -> Vec<i64> {
        self.tracks.iter().copied().collect()
    }
}

impl Tape for MemoryTape {
    fn track_at(&mut self, position: i64) -> i64 {
        self.tracks[self.index(position)]
    }

    fn find(&mut self, track: i64) -> Option<i64> {
        self.tracks
            .iter()
            .position(|&t| t == track)
            .map(|i| self.base + i as i64)
    }

    fn pick(&mut self, front: i64, drawn: i64, end: i64) -> i64 {
        assert_eq!(front, self.base);
        assert_eq!(end, self.last() + 1);
        let d = self.index(drawn);
        self.tracks.swap(0, d);
        let track = self.tracks.pop_front().unwrap();
        self.base += 1;
        self.tracks.push_back(track);
        track
    }

    fn insert_front(&mut self, new_front: i64, target: i64, track: i64) {
        assert_eq!(new_front, self.base - 1);
        self.tracks.push_front(track);
        self.base -= 1;
        let t = self.index(target);
        self.tracks.swap(0, t);
    }

    fn fill_from_front(&mut self, front: i64, hole: i64) {
        assert_eq!(front, self.base);
        let h = self.index(hole);
        self.tracks.swap(0, h);
        self.tracks.pop_front();
        self.base += 1;
    }

    fn close_down(&mut self, hole: i64, last: i64) {
        assert_eq!(last, self.last());
        let h = self.index(hole);
        self.tracks.remove(h);
    }

    fn close_up(&mut self, front: i64, start: i64, hole: i64) {
        assert_eq!(front, self.base);
        let (s, h) = (self.index(start), self.index(hole));
        assert!(s <= h);
        for i in (s..h).rev() {
            self.tracks[i + 1] = self.tracks[i];
        }
        self.fill_from_front(front, start);
    }
}

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
