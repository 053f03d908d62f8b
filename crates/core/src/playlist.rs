//! Shuffle play and random play for playlists (a music player's circular shuffle queue).
//!
//! A music player keeps a playlist as a circular queue with two pointers: `*`, the newest pick, and
//! `^`, the play position. On *next*, when `^` is at `*`, both advance one place and the track
//! there is swapped with one chosen uniformly among the next `window` places, and that track
//! plays; when `^` is behind `*` (the listener went back), `^` just advances and replays. On
//! *previous*, `^` steps back. A track that just played sits behind `*` and is out of reach of
//! the window until `*` has gone round the circle: it does not come back for `length - window`
//! picks, and the places behind `*` are a history of what played.
//!
//! Here the circle is unrolled onto a tape of positions that only ever grows at its ends, so a
//! track can be added or removed without renumbering the others. The tape holds the queue's
//! tracks at `front .. front + tracks`; its last places are the history, in play order, the
//! newest pick (`*`) at the very end. A pick draws a track from the window at the front, moves
//! it to the end, and moves the front track into the drawn track's place. With `p mod length` as
//! the circle position this is exactly the circular queue: the drawn track's place is
//! swapped with the front place, and the front place, relabelled `front + length`, is where the
//! circle's `*` moves to. Every step touches two positions, whatever the length.
//!
//! *Random* play (with replacement) is the same machine with a different window: it draws from
//! every track except the last `window` played, which are exactly the last places of the tape.
//!
//! The queue state here is plain data; the positions live behind the [`Tape`] trait (a table in
//! SQL, a `VecDeque` in the tests).

use crate::error::{Error, ErrorKind};
use crate::rng::Stream;
use crate::shuffle::fisher_yates;

pub mod ahead;
pub mod groups;
pub mod memory;

/// How a queue chooses its next track.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The circular queue's shuffle: a uniform pick among the next `window` places of the circle.
    Shuffle,
    /// Picks with replacement, never one of the last `window` tracks played.
    Random,
}

impl Mode {
    pub fn parse(name: &str) -> Result<Mode, Error> {
        Mode::parse_bytes(name.as_bytes())
    }

    /// [`Mode::parse`] of a name given as bytes in any encoding: an unknown name is shown with
    /// its non-ASCII bytes as `\xNN`, so the message is valid in every encoding.
    pub fn parse_bytes(name: &[u8]) -> Result<Mode, Error> {
        match name {
            b"shuffle" => Ok(Mode::Shuffle),
            b"random" => Ok(Mode::Random),
            _ => Err(Error::invalid(format!(
                "unknown shuffle queue mode \"{}\": expected \"shuffle\" or \"random\"",
                name.escape_ascii()
            ))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Mode::Shuffle => "shuffle",
            Mode::Random => "random",
        }
    }

    /// The window a queue of `tracks` tracks gets when none is given: the queue's length / 2
    /// (at least 1 in shuffle mode, where the window is what a pick draws from).
    fn default_window(self, tracks: u64) -> u64 {
        match self {
            Mode::Shuffle => (tracks / 2).max(1),
            Mode::Random => tracks / 2,
        }
    }

    /// The windows that fit `tracks` tracks. Shuffle: 1 ..= length - 1, so the track that just
    /// played is never drawn again at once. Random: 1 ..= length - 1, so at least one track is
    /// left to draw from. A one-track queue can only repeat its track (window 1 in shuffle
    /// mode, 0 in random mode).
    fn window_range(self, tracks: u64) -> (u64, u64) {
        match self {
            Mode::Shuffle => (1, (tracks - 1).max(1)),
            Mode::Random => ((tracks - 1).min(1), tracks - 1),
        }
    }
}

/// The stream of a seeded queue's `operation`-th operation (0 for its creation, then 1, 2, ...
/// for each call that changes it, docs/playlist.md says which): ChaCha20 keyed with
/// SHA-256(seed ‖ operation as 8 little-endian bytes). Each operation has a stream of its own, so
/// an operation's draws never depend on how many words the ones before it took.
pub fn operation_stream(seed: &[u8; 32], operation: u64) -> Stream {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    hasher.update(seed);
    hasher.update(operation.to_le_bytes());
    Stream::from_seed(hasher.finalize().into())
}

/// Draws a uniform integer in `0..bound` (`bound >= 1`).
pub trait Draw {
    fn draw(&mut self, bound: u64) -> u64;
}

impl Draw for Stream {
    fn draw(&mut self, bound: u64) -> u64 {
        // Equal to Stream::below for every bound below 2^32.
        self.below_u64(bound)
    }
}

/// Where a queue keeps its tracks: one track per position, the positions a contiguous range.
/// Positions are `i64`; the tape grows at the end on every pick and at the front on every add.
/// Every operation touches O(1) positions except the two history shifts used by
/// [`Queue::remove`].
pub trait Tape {
    /// The track at a position of the queue.
    fn track_at(&mut self, position: i64) -> i64;
    /// Where a track is, if the queue holds it.
    fn find(&mut self, track: i64) -> Option<i64>;
    /// A pick: the track at `drawn` moves to the new position `end` (just past the last one)
    /// and the track at `front` takes its place; `front` is then no longer a position. When
    /// `drawn == front`, the front track simply moves to `end`. Returns the drawn track.
    fn pick(&mut self, front: i64, drawn: i64, end: i64) -> i64;
    /// An add: the new position `new_front` (just before the front) takes the track at
    /// `target`, and `target` takes `track`. When `target == new_front`, `track` goes there.
    fn insert_front(&mut self, new_front: i64, target: i64, track: i64);
    /// A removal outside the history: the front track moves into `hole`, whose track leaves
    /// the queue; `front` is then no longer a position. When `hole == front` it just goes.
    fn fill_from_front(&mut self, front: i64, hole: i64);
    /// A removal inside the history, closing the gap from above: the tracks at
    /// `hole + 1 ..= last` each move one position down and `last` is no longer a position.
    fn close_down(&mut self, hole: i64, last: i64);
    /// A removal inside the history, closing the gap from below: the tracks at
    /// `start .. hole` each move one position up; then `start` is filled from the front as in
    /// [`Tape::fill_from_front`].
    fn close_up(&mut self, front: i64, start: i64, hole: i64);
    /// The tracks at positions `a` and `b` change places.
    fn swap(&mut self, a: i64, b: i64);
    /// The weights of the tracks at these positions, in order (a weighted queue's; the tape
    /// of an unweighted queue is never asked).
    fn weights(&mut self, positions: &[i64]) -> Vec<u64> {
        let _ = positions;
        unreachable!("the tape of an unweighted queue is asked for weights")
    }
    /// A weighted pick's tries at once: `tries` are (place, value) in the order drawn; the
    /// first whose value is below its track's weight is picked as [`Tape::pick`] picks `drawn`,
    /// and its track returned; `None`, changing nothing, when every try is refused. A tape that
    /// can do this in one step (one statement) overrides it; the result must be the same.
    fn pick_weighted(&mut self, front: i64, tries: &[(i64, u64)], end: i64) -> Option<i64> {
        let places: Vec<i64> = tries.iter().map(|t| t.0).collect();
        let weights = self.weights(&places);
        let drawn = tries
            .iter()
            .zip(&weights)
            .find(|(t, &w)| t.1 < w)
            .map(|(t, _)| t.0)?;
        Some(self.pick(front, drawn, end))
    }
}

/// How many tries of a weighted pick a tape is asked for at once: the weights of several drawn
/// places read together (each try draws its place and its test whether it is taken or not, so
/// the tries read ahead change nothing drawn).
pub const WEIGHED_AT_ONCE: usize = 4;

/// How deep in a plain queue's history a jump still keeps the history's order exactly, from
/// either end (see [`Queue::jump`]): the shift it costs is at most this many places.
pub const EXACT_JUMP: u64 = 32;

/// The largest weight a track may have: a weighted pick takes `heaviest / mean` tries on
/// average, so weights are bounded.
pub const MAX_WEIGHT: u64 = 1000;

/// The state of one queue: everything but its positions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Queue {
    pub mode: Mode,
    /// The window given at creation, or `None` for the default, which follows the length.
    pub window: Option<u64>,
    /// How many tracks the queue holds.
    pub tracks: u64,
    /// The first position of the tape.
    pub front: i64,
    /// How many of the last positions are history (tracks played, oldest first).
    pub history: u64,
    /// How many places `^` (the play position) is behind `*` (the newest pick).
    pub behind: u64,
}

/// Checks a playlist: at least one track, none twice. Sorts the tracks in place to find
/// duplicates; the queue's order comes from [`starting_order`] afterwards, whatever this one is.
pub fn check_playlist(tracks: &mut [i64]) -> Result<(), Error> {
    if tracks.is_empty() {
        return Err(Error::invalid("a shuffle queue needs at least one track"));
    }
    tracks.sort_unstable();
    if let Some(pair) = tracks.windows(2).find(|pair| pair[0] == pair[1]) {
        return Err(Error::invalid(format!(
            "track {} appears more than once in the playlist",
            pair[0]
        )));
    }
    Ok(())
}

/// Shuffles a checked playlist (Fisher-Yates), as the circular queue suggests, so the queue starts
/// in a random order: the tape's initial content, positions 0, 1, ...
pub fn starting_order(tracks: &mut [i64], stream: &mut Stream, check: &mut dyn FnMut()) {
    fisher_yates(tracks, stream, check);
}

/// How many of a listener's recent plays a new queue can hold back: the most recent `recent`
/// tracks of the playlist, at most half of it (so a queue always has most of its tracks to
/// start with). `recent` lists tracks most recent first; the result keeps that order.
pub fn held_back(recent: &[i64], playlist: &[i64]) -> Vec<i64> {
    let in_playlist: std::collections::HashSet<i64> = playlist.iter().copied().collect();
    let mut seen = std::collections::HashSet::new();
    recent
        .iter()
        .copied()
        .filter(|t| in_playlist.contains(t) && seen.insert(*t))
        .take(playlist.len() / 2)
        .collect()
}

/// [`starting_order`] for a listener who played `held` recently (most recent first, from
/// [`held_back`]): the other tracks, in the order given, shuffled (Fisher-Yates) at the front
/// of the tape, then the held tracks, least recent first, so that the most recent is the last
/// the window reaches. Nothing is drawn for the held tracks.
pub fn starting_order_holding(
    tracks: &mut [i64],
    held: &[i64],
    stream: &mut Stream,
    check: &mut dyn FnMut(),
) {
    if held.is_empty() {
        return starting_order(tracks, stream, check);
    }
    let held_set: std::collections::HashSet<i64> = held.iter().copied().collect();
    let others: Vec<i64> = tracks
        .iter()
        .copied()
        .filter(|t| !held_set.contains(t))
        .collect();
    let split = others.len();
    tracks[..split].copy_from_slice(&others);
    for (slot, &t) in tracks[split..].iter_mut().zip(held.iter().rev()) {
        *slot = t;
    }
    fisher_yates(&mut tracks[..split], stream, check);
}

impl Queue {
    /// A new queue over `tracks` tracks at positions `0 .. tracks`, nothing played yet.
    pub fn new(mode: Mode, tracks: usize, window: Option<i64>) -> Result<Queue, Error> {
        if tracks == 0 {
            return Err(Error::invalid("a shuffle queue needs at least one track"));
        }
        let tracks = tracks as u64;
        let window = match window {
            None => None,
            Some(w) => {
                let (low, high) = mode.window_range(tracks);
                match u64::try_from(w) {
                    Ok(w) if (low..=high).contains(&w) => Some(w),
                    _ => {
                        return Err(Error::invalid(format!(
                            "window {w} does not fit a {} queue of {tracks} track{}: it must be {}",
                            mode.name(),
                            if tracks == 1 { "" } else { "s" },
                            if low == high {
                                format!("{low}")
                            } else {
                                format!("between {low} and {high}")
                            }
                        )))
                    }
                }
            }
        };
        Ok(Queue {
            mode,
            window,
            tracks,
            front: 0,
            history: 0,
            behind: 0,
        })
    }

    /// The window in force: the default for the current length, or the one given, brought
    /// into range if removals have since made the queue too short for it.
    pub fn window_size(&self) -> u64 {
        match self.window {
            None => self.mode.default_window(self.tracks),
            Some(w) => {
                let (low, high) = self.mode.window_range(self.tracks);
                w.clamp(low, high)
            }
        }
    }

    /// How many tracks the history can hold, the newest pick included. Shuffle: the places the
    /// window cannot reach (length - window) plus the oldest, which the window reaches next.
    /// Random: the `window` tracks kept out of the draw, plus the one that just came back in.
    pub fn history_limit(&self) -> u64 {
        match self.mode {
            Mode::Shuffle => self.tracks - self.window_size() + 1,
            Mode::Random => self.window_size() + 1,
        }
    }

    /// How many places, from the front, the next pick draws from.
    pub fn eligible(&self) -> u64 {
        match self.mode {
            Mode::Shuffle => self.window_size(),
            Mode::Random => self.tracks - self.history.min(self.window_size()),
        }
    }

    /// The position of `*`, the newest pick (the last position of the tape).
    pub fn newest(&self) -> i64 {
        self.front + self.tracks as i64 - 1
    }

    /// The position of `^`, the track playing, or `None` before the first pick.
    pub fn playing(&self) -> Option<i64> {
        (self.history > 0).then(|| self.newest() - self.behind as i64)
    }

    /// The first position of the history.
    fn history_start(&self) -> i64 {
        self.front + (self.tracks - self.history) as i64
    }

    /// The track playing, or `None` before the first pick.
    pub fn current(&self, tape: &mut dyn Tape) -> Option<i64> {
        self.playing().map(|position| tape.track_at(position))
    }

    /// Whether *Next* replays: `^` is behind `*`. Then no track up next plays and nothing is
    /// drawn.
    pub fn replaying(&self) -> bool {
        self.behind > 0
    }

    /// One press of *Next*: a replay when `^` is behind `*`; else `up_next` (the listener's
    /// first track up next, taken from the list only when not replaying) played as a jump; else
    /// a pick, weighted by the tracks' weights when `heaviest` is given.
    pub fn step(
        &mut self,
        tape: &mut dyn Tape,
        draw: &mut dyn Draw,
        up_next: Option<i64>,
        heaviest: Option<u64>,
    ) -> Result<i64, Error> {
        match up_next {
            Some(track) if !self.replaying() => self.jump(tape, track),
            _ => Ok(match heaviest {
                Some(heaviest) => self.next_weighted(tape, draw, heaviest),
                None => self.next(tape, draw),
            }),
        }
    }

    /// The next track: a replay when `^` is behind `*`, else a new pick.
    pub fn next(&mut self, tape: &mut dyn Tape, draw: &mut dyn Draw) -> i64 {
        if self.behind > 0 {
            self.behind -= 1;
            return tape.track_at(self.newest() - self.behind as i64);
        }
        let drawn = self.front + draw.draw(self.eligible()) as i64;
        let end = self.front + self.tracks as i64;
        let track = tape.pick(self.front, drawn, end);
        self.front += 1;
        self.history = (self.history + 1).min(self.history_limit());
        track
    }

    /// Random play with weights: a new pick whose probability is the track's weight over the
    /// sum of the weights of the tracks not among the last `window` played (a replay when `^`
    /// is behind `*`). Each try draws a place `i` among those eligible and `v` below
    /// `heaviest` (at least every weight the queue holds), and takes the place when `v` is
    /// below its track's weight: rejection sampling, exact, `heaviest / mean` tries on
    /// average.
    pub fn next_weighted(
        &mut self,
        tape: &mut dyn Tape,
        draw: &mut dyn Draw,
        heaviest: u64,
    ) -> i64 {
        debug_assert_eq!(self.mode, Mode::Random);
        if self.behind > 0 {
            return self.next(tape, draw);
        }
        let eligible = self.eligible();
        loop {
            let tries: Vec<(i64, u64)> = (0..WEIGHED_AT_ONCE)
                .map(|_| {
                    let place = self.front + draw.draw(eligible) as i64;
                    (place, draw.draw(heaviest))
                })
                .collect();
            let end = self.front + self.tracks as i64;
            if let Some(track) = tape.pick_weighted(self.front, &tries, end) {
                self.front += 1;
                self.history = (self.history + 1).min(self.history_limit());
                return track;
            }
        }
    }

    /// The previous track: `^` steps back through the history. At the oldest track remembered,
    /// `^` stays and that track plays again; before the first pick there is none.
    pub fn prev(&mut self, tape: &mut dyn Tape) -> Option<i64> {
        if self.history == 0 {
            return None;
        }
        self.behind = (self.behind + 1).min(self.history - 1);
        self.current(tape)
    }

    /// The track plays now (the listener tapped it), and the shuffle goes on from it: it becomes
    /// the newest pick, where a pick would have put it, so it does not come back for as long as
    /// any pick does. A track the window would not have reached moves to the end of the tape as
    /// a pick does (one swap). A track in the history plays again as the newest: if it played
    /// within the last [`EXACT_JUMP`] plays or among the oldest [`EXACT_JUMP`] remembered, it
    /// leaves its place there as a removed track does (what played keeps its order without it;
    /// the shorter side of the history, at most [`EXACT_JUMP`] places, shifts by one place);
    /// deeper in the history, the oldest play remembered moves into its place (walking back,
    /// previous hears it there, and the walk ends one play later), which costs two swaps
    /// whatever the length. A replay in progress is left: the play
    /// position moves to the new pick. Nothing is drawn.
    pub fn jump(&mut self, tape: &mut dyn Tape, track: i64) -> Result<i64, Error> {
        let Some(at) = tape.find(track) else {
            return Err(Error::new(
                ErrorKind::NotFound,
                format!("track {track} is not in the queue"),
            ));
        };
        self.behind = 0;
        if self.history > 0 && at == self.newest() {
            return Ok(track);
        }
        let start = self.history_start();
        let newer = (self.newest() - at) as u64;
        if at >= start && newer > EXACT_JUMP && at - start > EXACT_JUMP as i64 {
            // Deep in the history: it changes places with the oldest play remembered, whose
            // place then leaves the history, and is picked from there like any track out of
            // the history.
            tape.swap(at, start);
            self.history -= 1;
            return self.jump(tape, track);
        }
        if at >= start {
            // Out of the history, then back at the front, from where the pick below takes it.
            self.remove(tape, track)?;
            let new_front = self.front - 1;
            tape.insert_front(new_front, new_front, track);
            self.front = new_front;
            self.tracks += 1;
            self.fit_history();
            self.behind = 0;
            return self.jump(tape, track);
        }
        let end = self.front + self.tracks as i64;
        let played = tape.pick(self.front, at, end);
        self.front += 1;
        self.history = (self.history + 1).min(self.history_limit());
        Ok(played)
    }

    /// Adds a track at a uniformly random place among those not in the history.
    pub fn add(
        &mut self,
        tape: &mut dyn Tape,
        draw: &mut dyn Draw,
        track: i64,
    ) -> Result<(), Error> {
        if tape.find(track).is_some() {
            return Err(Error::invalid(format!(
                "track {track} is already in the queue"
            )));
        }
        let new_front = self.front - 1;
        let places = self.tracks + 1 - self.history;
        let target = new_front + draw.draw(places) as i64;
        tape.insert_front(new_front, target, track);
        self.front = new_front;
        self.tracks += 1;
        self.fit_history();
        Ok(())
    }

    /// Takes a track out. The history keeps its order without it; if it was the track playing,
    /// `^` moves to the track played before it (or, at the oldest, after it).
    pub fn remove(&mut self, tape: &mut dyn Tape, track: i64) -> Result<(), Error> {
        let Some(hole) = tape.find(track) else {
            return Err(Error::new(
                ErrorKind::NotFound,
                format!("track {track} is not in the queue"),
            ));
        };
        if self.tracks == 1 {
            return Err(Error::invalid(format!(
                "track {track} is the only one in the queue: drop the queue instead"
            )));
        }
        let start = self.history_start();
        if hole < start {
            tape.fill_from_front(self.front, hole);
            self.front += 1;
        } else {
            let last = self.newest();
            let newer = (last - hole) as u64;
            let older = self.history - 1 - newer;
            // ^ keeps its track, or if that is the one leaving, takes the one played before
            // it (fit_history below moves it to the next one when it was the oldest).
            if newer < self.behind {
                self.behind -= 1;
            }
            if newer <= older {
                tape.close_down(hole, last);
            } else {
                tape.close_up(self.front, start, hole);
                self.front += 1;
            }
            self.history -= 1;
        }
        self.tracks -= 1;
        self.fit_history();
        Ok(())
    }

    /// Checks a state saved elsewhere (shuffle_queue_restore) before it becomes a queue: the
    /// tracks on its tape, in position order from `front`, and the counts that must fit them.
    /// Says what is wrong.
    pub fn validate(&self, tape: &[i64]) -> Result<(), String> {
        if self.tracks == 0 || tape.len() as u64 != self.tracks {
            return Err(format!(
                "it has {} tracks on its tape for {} tracks",
                tape.len(),
                self.tracks
            ));
        }
        if self.front.checked_add(self.tracks as i64).is_none() {
            return Err("its positions do not fit in a bigint".into());
        }
        if let Some(w) = self.window {
            if w > i32::MAX as u64 || (self.mode == Mode::Shuffle && w == 0) {
                return Err(format!(
                    "window {w} is not a window of a {} queue",
                    self.mode.name()
                ));
            }
        }
        if self.history > self.history_limit() {
            return Err(format!(
                "it remembers {} plays where its length and window allow {}",
                self.history,
                self.history_limit()
            ));
        }
        if self.behind > 0 && self.behind >= self.history {
            return Err(format!(
                "its play position is {} plays back in a history of {}",
                self.behind, self.history
            ));
        }
        let mut sorted = tape.to_vec();
        check_playlist(&mut sorted).map_err(|e| e.message)?;
        Ok(())
    }

    /// Trims the history to its limit after the length or window changed.
    fn fit_history(&mut self) {
        self.history = self.history.min(self.history_limit());
        self.behind = self.behind.min(self.history.saturating_sub(1));
    }
}

#[cfg(test)]
mod tests;
