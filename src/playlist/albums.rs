//! A queue of whole albums: the albums play in an order spread by artist (a spread queue whose
//! tracks are album numbers), each album's tracks in the order given, one after the other. Next
//! and Previous step through the tracks; a new album is drawn only when Next leaves the last
//! track of one, so looking ahead is the spread queue's, album by album.

use std::collections::HashMap;

use pgrx::prelude::*;

use crate::statements::ExtensionSchema;
use crate::{check_for_interrupts, ok_or_raise, raise};
use dealcards_core::error::Error;
use dealcards_core::playlist::groups;
use dealcards_core::playlist::operation_stream;
use dealcards_core::scratch::Scratch;
use dealcards_core::spread::number_groups;

use super::create::{checked_items, insert_spread, items_or_raise, same_length, seed_of, GroupKey};
use super::press::{next_of, upcoming};
use super::store::{live, QueueStore, State};
use super::texts::TextArray;

/// A new queue of whole albums: `items` are the tracks, `albums[i]` names track i's album and
/// `artists[i]` its artist (an album is its artist and its name: two artists' "Greatest Hits"
/// are two albums). Each album plays its tracks in the order of `items`; the albums play in
/// passes spread by artist, as a queue spread by group plays tracks. Returns the queue's id.
#[pg_extern(volatile, parallel_unsafe)]
fn shuffle_queue_new_albums(
    items: Option<Array<i64>>,
    albums: Option<TextArray>,
    artists: default!(Option<TextArray>, "NULL"),
    seed: default!(Option<&[u8]>, "NULL"),
    fcinfo: pg_sys::FunctionCallInfo,
) -> i64 {
    crate::refuse_on_standby("change a shuffle queue");
    crate::limit_working_memory();
    let seed = seed_of(seed);
    let items = items_or_raise(items);
    let Some(albums) = albums else {
        raise(Error::invalid("albums must not be NULL"));
    };
    let n = items.len();
    if n == 0 {
        raise(Error::invalid("a shuffle queue needs at least one track"));
    }
    same_length(n, &albums, "albums");
    if let Some(artists) = &artists {
        same_length(n, artists, "artists");
    }
    if let Some(i) = (0..n).find(|&i| albums.get(i).is_none()) {
        raise(Error::invalid(format!(
            "albums must not contain NULL (element {} is NULL)",
            i + 1
        )));
    }
    let mut tracks = ok_or_raise(Scratch::from_fn(n, |_| 0i64));
    ok_or_raise(checked_items(&mut tracks, &items));
    let artist_of = |i: usize| artists.as_ref().and_then(|a| a.get(i));
    let check = &mut check_for_interrupts;
    let (album_of, album_count) =
        ok_or_raise(number_groups(n, |i| (artist_of(i), albums.get(i)), check));
    // Each album's first track (for its artist) and each track's place in its album.
    let mut first = vec![usize::MAX; album_count];
    let mut length = vec![0i32; album_count];
    let mut places = Vec::with_capacity(n);
    for (i, &album) in album_of.iter().enumerate() {
        let album = album as usize;
        if first[album] == usize::MAX {
            first[album] = i;
        }
        places.push(length[album]);
        length[album] += 1;
    }
    // The albums' artists are the spread's groups; an album without an artist is one alone.
    let (group, count) = ok_or_raise(number_groups(
        album_count,
        |a| match artist_of(first[a]) {
            Some(bytes) => GroupKey::Value(bytes),
            None => GroupKey::Null(a),
        },
        check,
    ));
    let held = vec![false; album_count];
    let create = |stream: &mut dealcards_core::rng::Stream| {
        groups::create(&group, count, None, &held, stream)
    };
    let created = ok_or_raise(match seed.as_ref() {
        Some(seed) => create(&mut operation_stream(seed, 0)),
        None => live(create),
    });
    let names = (created.first_item.iter())
        .map(|&a| artist_of(first[a]).map(<[u8]>::to_vec))
        .collect();
    let numbers: Vec<i64> = (1..=album_count as i64).collect();
    let schema = ExtensionSchema::of(fcinfo);
    let queue_id = insert_spread(&schema, &created, &numbers, names, seed.as_ref(), None);
    let album_numbers = album_of.iter().map(|&a| a as i64 + 1).collect();
    Spi::connect_mut(|client| {
        let mut store = QueueStore::new(client, &schema, queue_id);
        store.insert_albums(album_numbers, places, tracks.to_vec());
    });
    queue_id
}

fn spread(state: &mut State) -> &mut groups::SpreadQueue {
    match state {
        State::Spread(queue) => queue,
        State::Tape(_) => unreachable!("a queue of albums is a spread queue"),
    }
}

fn place_of(store: &QueueStore) -> i32 {
    store.extra.album_place.expect("a queue of albums")
}

/// Next on a queue of albums: the album's next track, or the first of the album the spread
/// queue plays next (a replay after Previous, a step drawn ahead, or a new draw).
pub(super) fn album_next(store: &mut QueueStore, state: &mut State) -> i64 {
    let place = place_of(store);
    if let Some(album) = spread(state).current(store) {
        if let Some(track) = store.album_track(album, place + 1) {
            store.extra.album_place = Some(place + 1);
            store.keeps_ahead = true;
            return track;
        }
    }
    // Set first: the statement of the spread queue's step writes it with the row.
    store.extra.album_place = Some(0);
    let album = next_of(store, state);
    store.album_track_at(album, 0)
}

/// Previous on a queue of albums: the album's track before, or the last track of the album
/// that played before it; at the first track of the oldest album remembered, that track again.
pub(super) fn album_prev(store: &mut QueueStore, state: &mut State) -> Option<i64> {
    store.keeps_ahead = true;
    let place = place_of(store);
    let queue = spread(state);
    let album = queue.current(store)?;
    if place > 0 {
        store.extra.album_place = Some(place - 1);
        return Some(store.album_track_at(album, place - 1));
    }
    let before = queue.behind;
    let earlier = queue.prev(store)?;
    if queue.behind == before {
        return Some(store.album_track_at(album, 0));
    }
    let (last, track) = store.album_last(earlier);
    store.extra.album_place = Some(last);
    Some(track)
}

/// The track playing on a queue of albums; NULL before the first Next.
pub(super) fn album_current(store: &mut QueueStore, state: &mut State) -> Option<i64> {
    let place = place_of(store);
    let album = spread(state).current(store)?;
    Some(store.album_track_at(album, place))
}

/// The tracks Next will play at places `offset + 1 ..= wanted` of a queue of albums: the rest
/// of the album playing (`album`), then the albums the spread queue plays next, whole, each
/// with its source (`replay` or `shuffle`). Albums are drawn ahead (and kept) until their
/// tracks reach `wanted`.
pub(super) fn album_upcoming(
    store: &mut QueueStore,
    state: &mut State,
    offset: usize,
    wanted: usize,
) -> Vec<(i64, &'static str)> {
    let place = place_of(store) as usize;
    let mut known: HashMap<i64, Vec<i64>> = HashMap::new();
    let mut tracks: Vec<(i64, &'static str)> = Vec::new();
    if let Some(album) = spread(state).current(store) {
        known = store.albums_tracks(&[album]);
        let rest = known[&album].iter().skip(place + 1).take(wanted);
        tracks.extend(rest.map(|&t| (t, "album")));
    }
    let need = wanted - tracks.len();
    // Albums hold about ten tracks: ask for a tenth as many albums as tracks, then twice as
    // many until they hold enough (`need` albums hold at least `need` tracks).
    let mut asked = need.div_ceil(10).min(need);
    while asked > 0 {
        check_for_interrupts();
        let albums = upcoming(store, state, 0, asked);
        let new: Vec<i64> = (albums.iter().map(|&(a, _)| a))
            .filter(|a| !known.contains_key(a))
            .collect::<std::collections::BTreeSet<i64>>()
            .into_iter()
            .collect();
        if !new.is_empty() {
            known.extend(store.albums_tracks(&new));
        }
        let held: usize = albums.iter().map(|(a, _)| known[a].len()).sum();
        if held >= need || asked >= need {
            for (album, source) in albums {
                tracks.extend(known[&album].iter().map(|&t| (t, source)));
            }
            break;
        }
        asked = (asked * 2).min(need);
    }
    tracks.truncate(wanted);
    tracks.drain(..offset.min(tracks.len()));
    tracks
}
