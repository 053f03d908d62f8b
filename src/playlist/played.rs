//! What played and what plays now: the history behind the play position, newest first, and
//! now playing with its pass, its place in the pass and the tracks Next plays after it, read
//! under the queue's lock.

use pgrx::prelude::*;

use crate::raise;
use crate::statements::ExtensionSchema;
use dealcards_core::error::{Error, ErrorKind};

use super::ahead::{ahead_store, check_page};
use super::albums::{album_current, album_upcoming};
use super::press::{upcoming, MAX_AHEAD};
use super::store::{HistoryPage, QueueStore, State};

/// Refuses a count of tracks ahead as shuffle_queue_upcoming does: 22023 for a negative one,
/// 54000 beyond `MAX_AHEAD`.
fn check_ahead(n: i32) {
    if n < 0 {
        raise(Error::invalid(format!("n must be 0 or more (n is {n})")));
    }
    if n as i64 > MAX_AHEAD {
        raise(Error::new(
            ErrorKind::TooLarge,
            format!("a queue looks at most {MAX_AHEAD} tracks ahead (n is {n})"),
        ));
    }
}

/// The counts a play's pass and place follow from.
struct Counts {
    spread: bool,
    tracks: i64,
    front: i64,
    pass: i64,
    pass_left: i64,
}

impl Counts {
    /// The plays of a queue numbered from 0, M = `tracks` a pass: the number of the newest.
    /// A plain queue's newest pick is tape position `front + tracks - 1`, its circle's place
    /// `(front - 1) mod tracks` of turn `(front - 1) div tracks` (front counts the picks of a
    /// queue never edited). A spread queue has placed `tracks - pass_left` tracks of pass
    /// `pass` (from 0).
    fn newest(&self) -> i64 {
        if self.spread {
            let done = self.tracks.saturating_sub(self.pass_left);
            self.pass
                .saturating_mul(self.tracks)
                .saturating_add(done)
                .saturating_sub(1)
        } else {
            self.front.saturating_sub(1)
        }
    }

    /// The pass (from 1) and place in it (from 1) of the play `back` plays before the newest.
    fn pass_place(&self, back: i64) -> (i64, i64) {
        let number = self.newest().saturating_sub(back);
        let m = self.tracks.max(1);
        (
            number.div_euclid(m).saturating_add(1),
            number.rem_euclid(m) + 1,
        )
    }

    fn of_page(page: &HistoryPage) -> Counts {
        Counts {
            spread: page.spread,
            tracks: page.tracks,
            front: page.front,
            pass: page.pass,
            pass_left: page.pass_left,
        }
    }

    fn of_state(state: &State) -> (Counts, i64) {
        match state {
            State::Tape(q) => {
                let counts = Counts {
                    spread: false,
                    tracks: q.tracks as i64,
                    front: q.front,
                    pass: 0,
                    pass_left: 0,
                };
                (counts, q.behind as i64)
            }
            State::Spread(q) => {
                let counts = Counts {
                    spread: true,
                    tracks: q.tracks as i64,
                    front: q.front,
                    pass: q.pass,
                    pass_left: q.pass_left as i64,
                };
                (counts, q.behind as i64)
            }
        }
    }
}

/// The tracks played before the track playing, newest first, from the `after + 1`-th back:
/// `ago` k is what k presses of Previous play, with its pass and place in the pass. A read:
/// no lock, nothing written.
// VOLATILE: another session's next changes the answer while a statement runs.
#[pg_extern(volatile, strict, parallel_restricted)]
fn shuffle_queue_played(
    queue_id: i64,
    n: default!(i32, 50),
    after: default!(i32, 0),
    fcinfo: pg_sys::FunctionCallInfo,
) -> TableIterator<
    'static,
    (
        name!(ago, i32),
        name!(track, i64),
        name!(pass, i64),
        name!(place, i64),
    ),
> {
    check_page(n, after, "back");
    let schema = ExtensionSchema::of(fcinfo);
    let page = Spi::connect_mut(|client| {
        let mut store = QueueStore::new(client, &schema, queue_id);
        // Refuses an unknown queue (P0002) and a queue of albums (0A000).
        store.load(false);
        store.history_page(after as i64, n as i64)
    });
    let counts = Counts::of_page(&page);
    let rows: Vec<_> = (page.played.iter().enumerate())
        .map(|(i, &track)| {
            let ago = after + i as i32 + 1;
            let (pass, place) = counts.pass_place(page.behind + ago as i64);
            (ago, track, pass, place)
        })
        .collect();
    TableIterator::new(rows)
}

/// What a now-playing screen shows, read under the queue's lock.
struct Now {
    playing: Option<i64>,
    pass_place: Option<(i64, i64)>,
    tracks: Option<i64>,
    next: Vec<(i64, &'static str)>,
}

/// Now playing and the next `n` tracks of a locked queue; the pass and place of a queue of
/// tracks (a queue of albums has none).
fn now_of(store: &mut QueueStore, n: usize) -> Now {
    let mut state = store.load(true);
    store.keeps_ahead = true;
    if store.extra.album_place.is_some() {
        let playing = album_current(store, &mut state);
        let next = album_upcoming(store, &mut state, 0, n);
        return Now {
            playing,
            pass_place: None,
            tracks: None,
            next,
        };
    }
    let playing = match &state {
        State::Tape(queue) => queue.current(store),
        State::Spread(queue) => queue.current(store),
    };
    let (counts, behind) = Counts::of_state(&state);
    Now {
        playing,
        pass_place: playing.map(|_| counts.pass_place(behind)),
        tracks: Some(counts.tracks),
        next: upcoming(store, &state, 0, n),
    }
}

/// The track playing (NULL before the first Next), its pass and place in the pass of `tracks`,
/// and the next `n` tracks Next will play with their sources, as shuffle_queue_upcoming gives
/// them (drawn ahead and kept). One call holds the queue's lock throughout: a Next of another
/// session waits for it, or it for the Next, so the answer is one state of the queue.
// The row's columns are spelled out in the signature: pgrx reads them from it.
#[allow(clippy::type_complexity)]
#[pg_extern(volatile, strict, parallel_unsafe)]
fn shuffle_queue_now(
    queue_id: i64,
    n: default!(i32, 10),
    fcinfo: pg_sys::FunctionCallInfo,
) -> TableIterator<
    'static,
    (
        name!(playing, Option<i64>),
        name!(pass, Option<i64>),
        name!(place, Option<i64>),
        name!(tracks, Option<i64>),
        name!(upcoming, Vec<i64>),
        name!(sources, Vec<String>),
    ),
> {
    check_ahead(n);
    crate::refuse_on_standby("draw a shuffle queue's tracks ahead");
    let schema = ExtensionSchema::of(fcinfo);
    let now = Spi::connect_mut(|client| {
        let mut store = ahead_store(client, &schema, queue_id);
        now_of(&mut store, n as usize)
    });
    let (tracks, sources): (Vec<i64>, Vec<String>) = (now.next.into_iter())
        .map(|(track, source)| (track, source.to_string()))
        .unzip();
    TableIterator::once((
        now.playing,
        now.pass_place.map(|p| p.0),
        now.pass_place.map(|p| p.1),
        now.tracks,
        tracks,
        sources,
    ))
}
