#![cfg(feature = "server_tests")]
//! Seeded queues of whole albums (shuffle_queue_new_albums with a seed) against golden values:
//! what Next, Previous and Current return, press by press, must be what
//! tests/reference/seeded_albums.py computes from docs/playlist.md ("A seeded queue of albums,
//! byte for byte"), never what the extension printed once. Several libraries (albums of one
//! artist and of several, two artists' albums of one name, albums without an artist, no artists
//! at all, a single album) under two seeds, with Previous across albums, down to the oldest
//! album remembered, and Next replaying forward before drawing again.
//! Run by `make test` against its throwaway cluster (needs DEALCARDS_TEST_DSN).

mod server;

use postgres::Client;
use server::queues::{current, database, new_queue, next, prev, SEED};

/// The other seed of the cases, 32 bytes of 0xff, as SQL.
const FF: &str = "decode(repeat('ff', 32), 'hex')";

/// A library: each track in the order of `items`, with its album and its artist (None: NULL).
type Library = &'static [(i64, &'static str, Option<&'static str>)];

/// docs/playlist.md's example: eleven tracks, eight albums of four artists.
const LIBRARY: Library = &[
    (1, "Arrival", Some("Abba")),
    (2, "Arrival", Some("Abba")),
    (3, "Voulez-Vous", Some("Abba")),
    (4, "Voulez-Vous", Some("Abba")),
    (5, "A Night at the Opera", Some("Queen")),
    (6, "Jazz", Some("Queen")),
    (7, "Jazz", Some("Queen")),
    (8, "Heroes", Some("Bowie")),
    (9, "Low", Some("Bowie")),
    (10, "Purple Rain", Some("Prince")),
    (11, "Gold", Some("Abba")),
];

/// Six albums listed out of order; x and y both have an album "One", and "Five" has no artist.
const ITEMS: Library = &[
    (101, "One", Some("x")),
    (301, "One", Some("y")),
    (102, "One", Some("x")),
    (401, "Three", Some("y")),
    (201, "Two", Some("x")),
    (103, "One", Some("x")),
    (402, "Three", Some("y")),
    (501, "Four", Some("z")),
    (202, "Two", Some("x")),
    (403, "Three", Some("y")),
    (601, "Five", None),
    (502, "Four", Some("z")),
    (404, "Three", Some("y")),
    (602, "Five", None),
];

/// Three albums and no artists at all (`artists` NULL): every album is an artist of its own.
const NO_ARTISTS: Library = &[
    (101, "One", None),
    (301, "One", None),
    (102, "One", None),
    (401, "Three", None),
    (201, "Two", None),
    (103, "One", None),
    (402, "Three", None),
];

/// A single album.
const ONE_ALBUM: Library = &[
    (5, "A", Some("x")),
    (6, "A", Some("x")),
    (7, "A", Some("x")),
];

fn quoted(value: Option<&str>) -> String {
    value.map_or("NULL".into(), |v| format!("'{v}'"))
}

/// The statement making a seeded queue of albums of `library` (`artists` NULL when none has one).
fn albums_queue_sql(library: Library, seed: &str) -> String {
    let items: Vec<String> = library.iter().map(|t| t.0.to_string()).collect();
    let albums: Vec<String> = library.iter().map(|t| quoted(Some(t.1))).collect();
    let artists = if library.iter().all(|t| t.2.is_none()) {
        "NULL".to_string()
    } else {
        let names: Vec<String> = library.iter().map(|t| quoted(t.2)).collect();
        format!("ARRAY[{}]::text[]", names.join(", "))
    };
    format!(
        "SELECT shuffle_queue_new_albums(ARRAY[{}]::bigint[], ARRAY[{}], {artists}, {seed})",
        items.join(", "),
        albums.join(", ")
    )
}

/// Runs presses written as seeded_albums.py takes them (`next`, `prev`, `current`, each
/// possibly `*N`), and returns what each gave, as the reference prints it.
fn press(client: &mut Client, queue: i64, presses: &str) -> String {
    let mut out = Vec::new();
    for word in presses.split_whitespace() {
        let (name, times) = word.split_once('*').unwrap_or((word, "1"));
        for _ in 0..times.parse::<usize>().unwrap() {
            let track = match name {
                "next" => Some(next(client, queue)),
                "prev" => prev(client, queue),
                "current" => current(client, queue),
                _ => panic!("unknown press {word}"),
            };
            out.push(track.map_or("NULL".to_string(), |t| t.to_string()));
        }
    }
    out.join(" ")
}

/// The cases: a library, a seed (as SQL), the presses and what they return, as printed by
/// `tests/reference/seeded_albums.py SEED_HEX LIBRARY PRESSES...` (SEED is 000102...1f, FF is
/// ff...ff, LIBRARY written as [`reference_items`] writes it).
const CASES: [(Library, &str, &str, &str); 9] = [
    // seeded_albums.py SEED LIBRARY \
    //   prev current next*5 prev*8 current next*17
    (
        LIBRARY,
        SEED,
        "prev current next*5 prev*8 current next*17",
        concat!(
            "NULL NULL 10 6 7 9 11 9 7 6 10 10 10 10 10 10 6 7 9 11 5 1 2 8 3 4 9 11 6 7 3 4 ",
            "10",
        ),
    ),
    // seeded_albums.py FF LIBRARY \
    //   next*24 prev*16 current next*20
    (
        LIBRARY,
        FF,
        "next*24 prev*16 current next*20",
        concat!(
            "8 1 2 5 10 11 9 6 7 3 4 10 1 2 9 6 7 3 4 5 8 11 6 7 6 11 8 5 4 3 3 3 3 3 3 3 3 3 ",
            "3 3 3 4 5 8 11 6 7 9 1 2 5 3 4 10 8 11 5 1 2 8 3",
        ),
    ),
    // seeded_albums.py SEED ITEMS \
    //   prev current next*5 prev*8 current next*17
    (
        ITEMS,
        SEED,
        "prev current next*5 prev*8 current next*17",
        concat!(
            "NULL NULL 501 502 401 402 403 402 401 502 501 501 501 501 501 501 502 401 402 ",
            "403 404 201 202 601 602 301 101 102 103 401 402 403 404",
        ),
    ),
    // seeded_albums.py FF ITEMS \
    //   prev current next*5 prev*8 current next*17
    (
        ITEMS,
        FF,
        "prev current next*5 prev*8 current next*17",
        concat!(
            "NULL NULL 101 102 103 301 601 301 103 102 101 101 101 101 101 101 102 103 301 ",
            "601 602 501 502 401 402 403 404 201 202 401 402 403 404",
        ),
    ),
    // seeded_albums.py SEED ITEMS \
    //   next*24 prev*16 current next*20
    (
        ITEMS,
        SEED,
        "next*24 prev*16 current next*20",
        concat!(
            "501 502 401 402 403 404 201 202 601 602 301 101 102 103 401 402 403 404 101 102 ",
            "103 601 602 501 602 601 103 102 101 404 403 402 401 401 401 401 401 401 401 401 ",
            "401 402 403 404 101 102 103 601 602 501 502 201 202 301 501 502 301 601 602 201 ",
            "202",
        ),
    ),
    // seeded_albums.py FF ITEMS \
    //   next*24 prev*16 current next*20
    (
        ITEMS,
        FF,
        "next*24 prev*16 current next*20",
        concat!(
            "101 102 103 301 601 602 501 502 401 402 403 404 201 202 401 402 403 404 501 502 ",
            "101 102 103 301 103 102 101 502 501 404 403 402 401 401 401 401 401 401 401 401 ",
            "401 402 403 404 501 502 101 102 103 301 201 202 601 602 301 201 202 501 502 601 ",
            "602",
        ),
    ),
    // seeded_albums.py FF NO_ARTISTS \
    //   prev current next*5 prev*8 current next*17
    (
        NO_ARTISTS,
        FF,
        "prev current next*5 prev*8 current next*17",
        concat!(
            "NULL NULL 401 402 101 301 102 301 101 402 401 401 401 401 401 401 402 101 301 ",
            "102 103 201 401 402 101 301 102 103 201 101 301 102 103",
        ),
    ),
    // seeded_albums.py SEED NO_ARTISTS \
    //   next*24 prev*16 current next*20
    (
        NO_ARTISTS,
        SEED,
        "next*24 prev*16 current next*20",
        concat!(
            "201 401 402 101 301 102 103 401 402 101 301 102 103 201 101 301 102 103 201 401 ",
            "402 101 301 102 301 101 402 401 201 201 201 201 201 201 201 201 201 201 201 201 ",
            "201 401 402 101 301 102 103 401 402 201 101 301 102 103 201 401 402 201 101 301 ",
            "102",
        ),
    ),
    // seeded_albums.py SEED ONE_ALBUM \
    //   next*4 prev*4 current next*2
    (
        ONE_ALBUM,
        SEED,
        "next*4 prev*4 current next*2",
        "5 6 7 5 5 5 5 5 5 6 7",
    ),
];

/// Every case plays what the reference computes, press by press.
#[test]
fn seeded_queues_of_albums_play_the_golden_tracks() {
    let mut client = database("dealcards_queue_albums_golden");
    for (library, seed, presses, golden) in CASES {
        let queue = new_queue(&mut client, &albums_queue_sql(library, seed));
        assert_eq!(
            press(&mut client, queue, presses),
            golden,
            "{presses} on {library:?} with {seed}"
        );
    }
}

/// A library as seeded_albums.py takes it: TRACK:ALBUM:ARTIST (\N for NULL), or TRACK:ALBUM
/// where no track has an artist.
fn reference_items(library: Library) -> String {
    let no_artists = library.iter().all(|t| t.2.is_none());
    let items: Vec<String> = (library.iter())
        .map(|(t, album, artist)| match (no_artists, artist) {
            (true, _) => format!("{t}:{album}"),
            (false, Some(artist)) => format!("{t}:{album}:{artist}"),
            (false, None) => format!("{t}:{album}:\\N"),
        })
        .collect();
    items.join(",")
}

/// The golden values are the reference's: it runs here and prints each case's (so that a
/// golden value cannot be changed to follow the extension without the reference).
#[test]
fn the_golden_values_are_the_references() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (library, seed, presses, golden) in CASES {
        let seed_hex = if seed == SEED {
            "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f".to_string()
        } else {
            assert_eq!(seed, FF);
            "ff".repeat(32)
        };
        let out = std::process::Command::new("python3")
            .arg(root.join("tests/reference/seeded_albums.py"))
            .arg(&seed_hex)
            .arg(reference_items(library))
            .args(presses.split_whitespace())
            .output()
            .expect("python3 runs tests/reference/seeded_albums.py");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim_end(),
            golden,
            "{presses}"
        );
    }
}
