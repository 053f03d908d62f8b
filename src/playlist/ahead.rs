//! Looking ahead: the tracks the next presses of Next will play, drawn ahead and kept until
//! they play (press.rs draws them with `dealcards_core::playlist::ahead`; the store keeps them).

use pgrx::prelude::*;

use crate::raise;
use crate::statements::ExtensionSchema;
use dealcards_core::error::{Error, ErrorKind};

use super::albums::album_upcoming;
use super::press::{upcoming, MAX_AHEAD};
use super::store::{Layout, QueueStore};

/// The next `n` tracks Next will play, from place `after + 1`: the tracks a listener who went
/// back replays (`replay`), then the tracks up next (`up next`), then the shuffle's (`shuffle`).
/// Those not drawn yet are drawn now and kept: Next plays exactly them, in this order, until
/// the queue changes otherwise than by Next and Previous (docs/playlist.md).
#[pg_extern(volatile, strict, parallel_unsafe)]
fn shuffle_queue_upcoming(
    queue_id: i64,
    n: default!(i32, 10),
    after: default!(i32, 0),
    fcinfo: pg_sys::FunctionCallInfo,
) -> TableIterator<'static, (name!(place, i64), name!(track, i64), name!(source, String))> {
    let wanted = check_page(n, after, "ahead");
    crate::refuse_on_standby("draw a shuffle queue's tracks ahead");
    let schema = ExtensionSchema::of(fcinfo);
    let tracks = Spi::connect_mut(|client| {
        let mut store = ahead_store(client, &schema, queue_id);
        let mut state = store.load(true);
        store.keeps_ahead = true;
        if store.extra.album_place.is_some() {
            return album_upcoming(&mut store, &mut state, after as usize, wanted as usize);
        }
        upcoming(&mut store, &state, after as usize, wanted as usize)
    });
    let rows: Vec<_> = tracks
        .into_iter()
        .enumerate()
        .map(|(i, (track, source))| (after as i64 + i as i64 + 1, track, source.to_string()))
        .collect();
    TableIterator::new(rows)
}

/// Refuses a page `after + 1 ..= after + n` of the tracks `direction` (ahead, or back): 22023
/// for a negative count, 54000 beyond `MAX_AHEAD`. Returns `after + n`.
pub(super) fn check_page(n: i32, after: i32, direction: &str) -> i64 {
    if n < 0 || after < 0 {
        raise(Error::invalid(format!(
            "n and after must be 0 or more (n is {n}, after {after})"
        )));
    }
    let wanted = n as i64 + after as i64;
    if wanted > MAX_AHEAD {
        raise(Error::new(
            ErrorKind::TooLarge,
            format!("a queue looks at most {MAX_AHEAD} tracks {direction} (after + n is {wanted})"),
        ));
    }
    wanted
}

/// The queue's store for a look ahead, queues of albums included: refuses (55000) the tables of
/// a release before the one that keeps the tracks drawn ahead.
pub(super) fn ahead_store<'a, 'conn>(
    client: &'a mut pgrx::spi::SpiClient<'conn>,
    schema: &'a ExtensionSchema,
    queue_id: i64,
) -> QueueStore<'a, 'conn> {
    let mut store = QueueStore::new(client, schema, queue_id);
    if store.layout != Layout::Current {
        raise(Error::new(
            ErrorKind::NotReady,
            "the queue tables are those of an earlier release: ALTER EXTENSION dealcards \
             UPDATE adds the table that keeps the tracks drawn ahead",
        ));
    }
    store.albums = true;
    store
}
