#![cfg(feature = "server_tests")]
//! The album order of a queue of whole albums (shuffle_queue_new_albums), over real
//! connections: 2,000 new queues of ten albums by four artists (4, 3, 2 and 1 albums), each
//! played through its first pass, a third of them looked at (`shuffle_queue_upcoming`) before
//! their first Next. docs/playlist.md promises the spread of a queue spread by group with the
//! albums as its tracks: no two albums of one artist in a row when that can be avoided (here it
//! always can: checked on every pass), each album whole and in its order, every album equally
//! likely to open a new queue (no artist holds more than half), and each artist's albums in a
//! uniformly random order. The two distributions go through chi-square tests, each with a
//! negative control through the same statistic: a queue that opens with a uniform artist, then
//! one of its albums; artist A's albums reordered by Sattolo's shuffle (single cycles only).
//!
//! Each statistic passes at the battery's level (1e-4); a failing one takes a second, fresh
//! sample (`twice_if_failing`). The controls' p-values are below 1e-20. Like the other queue
//! statistics, these run on one major (scripts/test.sh says why).
//! Needs DEALCARDS_TEST_DSN.

mod server;

// Every test here is a statistic, named queue_statistics::...: scripts/test.sh runs them on one
// major and leaves them out by that prefix on the others (scripts/test.sh says why).
mod queue_statistics {
    use std::collections::BTreeMap;

    use crate::server::queues::{database, twice_if_failing};
    use dealcards_core::rng::Stream;
    use dealcards_fairness::stats::{self, ChiSquare};
    use dealcards_fairness::{order_index, passes, sattolo};
    use postgres::Client;

    /// Album k's artist (albums 1 to 10).
    const ARTISTS: [&str; 10] = ["A", "A", "A", "A", "B", "B", "B", "C", "C", "D"];
    const QUEUES: usize = 2000;

    /// Album k holds `k % 3 + 1` tracks, k * 10 + 1 and on: 20 tracks in all.
    fn album_tracks(album: usize) -> Vec<i64> {
        (1..=(album % 3 + 1) as i64)
            .map(|i| album as i64 * 10 + i)
            .collect()
    }

    /// The first pass of each of QUEUES new queues, as its albums in the order they played (each
    /// checked whole and in order), the promise of the queues looked at checked too.
    fn first_passes(client: &mut Client) -> Vec<Vec<usize>> {
        let tracks: Vec<i64> = (1..=10).flat_map(album_tracks).collect();
        let album_of = |t: i64| format!("'album {}'", t / 10);
        let artist_of = |t: i64| format!("'{}'", ARTISTS[t as usize / 10 - 1]);
        let list =
            |f: &dyn Fn(i64) -> String| tracks.iter().map(|&t| f(t)).collect::<Vec<_>>().join(", ");
        client
        .batch_execute(&format!(
            "CREATE TEMP TABLE pass (queue int, n int, track bigint, shown bigint);
             DO $$
             DECLARE
               queue bigint;
               shown bigint[];
             BEGIN
               FOR i IN 1..{QUEUES} LOOP
                 queue := shuffle_queue_new_albums(ARRAY[{}]::bigint[], ARRAY[{}], ARRAY[{}]);
                 shown := CASE WHEN i % 3 = 0 THEN ARRAY(
                            SELECT track FROM shuffle_queue_upcoming(queue, 1 + i % 7) ORDER BY place)
                          END;
                 FOR n IN 1..{} LOOP
                   INSERT INTO pass VALUES (i, n, shuffle_queue_next(queue), shown[n]);
                 END LOOP;
               END LOOP;
             END $$;",
            list(&|t| t.to_string()),
            list(&album_of),
            list(&artist_of),
            tracks.len()
        ))
        .unwrap();
        let mut played: BTreeMap<i32, Vec<i64>> = BTreeMap::new();
        for row in client
            .query(
                "SELECT queue, track, shown FROM pass ORDER BY queue, n",
                &[],
            )
            .unwrap()
        {
            let (queue, track, shown): (i32, i64, Option<i64>) =
                (row.get(0), row.get(1), row.get(2));
            if let Some(shown) = shown {
                assert_eq!(
                    track, shown,
                    "queue {queue} played another track than shown"
                );
            }
            played.entry(queue).or_default().push(track);
        }
        assert_eq!(played.len(), QUEUES);
        played.values().map(|pass| albums_of(pass)).collect()
    }

    /// The albums a pass played, each checked whole and in order, every album once.
    fn albums_of(pass: &[i64]) -> Vec<usize> {
        let mut albums = Vec::new();
        let mut i = 0;
        while i < pass.len() {
            let album = pass[i] as usize / 10;
            let tracks = album_tracks(album);
            assert_eq!(
                pass[i..(i + tracks.len()).min(pass.len())],
                tracks[..],
                "album {album} not whole and in order: {pass:?}"
            );
            albums.push(album);
            i += tracks.len();
        }
        let mut sorted = albums.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (1..=10).collect::<Vec<_>>(), "{pass:?}");
        albums
    }

    /// The order of artist A's albums (1 to 4) in each pass, ranked among the 24 orders.
    fn orders_of_a(passes: &[Vec<usize>]) -> ChiSquare {
        let mut counts = [0u64; 24];
        for pass in passes {
            let order: Vec<usize> = pass.iter().filter(|&&a| a <= 4).map(|a| a - 1).collect();
            counts[order_index(&order)] += 1;
        }
        stats::chi_square_uniform(&counts)
    }

    /// Every pass without two albums of one artist in a row; the album opening each queue equally
    /// often; A's albums in each of their 24 orders equally often.
    #[test]
    fn albums_open_uniformly_and_each_artists_albums_play_in_a_uniform_order() {
        twice_if_failing(|| {
            let mut client = database("dealcards_albums_stats");
            let played = first_passes(&mut client);
            for pass in &played {
                assert!(
                    pass.windows(2)
                        .all(|w| ARTISTS[w[0] - 1] != ARTISTS[w[1] - 1]),
                    "two albums of one artist in a row: {pass:?}"
                );
            }
            let mut opening = vec![0u64; 10];
            for pass in &played {
                opening[pass[0] - 1] += 1;
            }
            let opens = stats::chi_square_uniform(&opening);
            let orders = orders_of_a(&played);
            // Controls: a uniform artist then one of its albums; A's albums by Sattolo's shuffle.
            let mut stream = Stream::from_seed([9; 32]);
            let mut bad_opening = vec![0u64; 10];
            for _ in 0..QUEUES {
                let artist = ["A", "B", "C", "D"][stream.below(4) as usize];
                let albums: Vec<usize> = (0..10).filter(|&a| ARTISTS[a] == artist).collect();
                bad_opening[albums[stream.below(albums.len() as u32) as usize]] += 1;
            }
            let bad_opens = stats::chi_square_uniform(&bad_opening);
            assert!(!passes(&bad_opens), "{bad_opens:?} {bad_opening:?}");
            let reordered: Vec<Vec<usize>> = played
                .iter()
                .map(|pass| {
                    let mut a: Vec<usize> = vec![1, 2, 3, 4];
                    sattolo(&mut a, &mut stream);
                    let mut next_a = a.into_iter();
                    pass.iter()
                        .map(|&album| {
                            if album <= 4 {
                                next_a.next().unwrap()
                            } else {
                                album
                            }
                        })
                        .collect()
                })
                .collect();
            let bad_orders = orders_of_a(&reordered);
            assert!(!passes(&bad_orders), "{bad_orders:?}");
            eprintln!(
            "opening: {opens:?}, control {bad_opens:?}; orders of A: {orders:?}, control {bad_orders:?}"
        );
            // Both must pass: the worse of the two decides whether a second sample is taken.
            if opens.p_value < orders.p_value {
                opens
            } else {
                orders
            }
        });
    }
}
