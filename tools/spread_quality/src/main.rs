//! Spread quality on realistic playlists: how many neighbours share an artist (against the
//! fewest possible), and how evenly each artist's tracks are spaced, for three ways to shuffle:
//!
//! - plain Fisher-Yates (`shuffle_array`);
//! - the 2014 balanced shuffle (Martin Fiedler's, as Spotify adopted it and jwz summarized it):
//!   each artist's songs in random order, given positions spread evenly from 0 to 100% with one
//!   random offset per artist, and all songs ordered by position;
//! - `shuffle_spread` (dealcards_core::spread);
//! - a shuffle queue spread by artist (dealcards_core::playlist::groups, what
//!   `shuffle_queue_new(items, groups => ...)` plays), pass after pass of one queue: each pass
//!   is measured as one order, and the pair across two passes is counted apart.
//!
//!     cargo run --release --manifest-path tools/spread_quality/Cargo.toml [PASSES]
//!
//! prints Markdown tables (BENCHMARKS.md holds them): the three methods on four playlists, then
//! `shuffle_spread` on one level and on two (artist, then album) on a library of albums.

use dealcards_core::playlist::groups::{self, memory::MemoryGroups, SpreadQueue};
use dealcards_core::rng::Stream;
use dealcards_core::shuffle::fisher_yates;
use dealcards_core::spread::{
    fewest_neighbours, number_groups, same_group_neighbours, spread, spread_nested,
};

/// A playlist: the artist (group) of each track.
struct Playlist {
    name: &'static str,
    groups: Vec<u32>,
}

impl Playlist {
    /// Tracks of artists with these counts, the list in the order a library would hold it
    /// (each artist's tracks together, as albums are).
    fn of_sizes(name: &'static str, sizes: &[u32]) -> Playlist {
        let groups = sizes
            .iter()
            .enumerate()
            .flat_map(|(g, &c)| std::iter::repeat_n(g as u32, c as usize))
            .collect();
        Playlist { name, groups }
    }

    fn sizes(&self) -> Vec<u32> {
        let k = self.groups.iter().max().map_or(0, |&g| g as usize + 1);
        let mut sizes = vec![0; k];
        for &g in &self.groups {
            sizes[g as usize] += 1;
        }
        sizes
    }
}

/// `total` tracks over `artists` artists with Zipf-like counts: the artist of rank r has about
/// `1 / r` of the top artist's tracks (at least one), largest remainders rounded up.
fn zipf_sizes(total: u32, artists: usize) -> Vec<u32> {
    let weights: Vec<f64> = (1..=artists).map(|r| 1.0 / r as f64).collect();
    let sum: f64 = weights.iter().sum();
    let exact: Vec<f64> = weights.iter().map(|w| w * total as f64 / sum).collect();
    let mut sizes: Vec<u32> = exact.iter().map(|&e| (e.floor() as u32).max(1)).collect();
    let mut order: Vec<usize> = (0..artists).collect();
    order.sort_by(|&a, &b| (exact[b] - exact[b].floor()).total_cmp(&(exact[a] - exact[a].floor())));
    let mut at = 0;
    while sizes.iter().sum::<u32>() < total {
        sizes[order[at % artists]] += 1;
        at += 1;
    }
    sizes
}

/// The balanced shuffle of 2014: positions `(k + offset) / c` for an artist's k-th (shuffled)
/// song of c, one offset in [0, 1) per artist, all songs ordered by position.
fn balanced_2014(groups: &[u32], sizes: &[u32], stream: &mut Stream) -> Vec<u32> {
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); sizes.len()];
    for (i, &g) in groups.iter().enumerate() {
        members[g as usize].push(i as u32);
    }
    let mut placed: Vec<(f64, u32)> = Vec::with_capacity(groups.len());
    for (g, songs) in members.iter_mut().enumerate() {
        fisher_yates(songs, stream, &mut || {});
        let offset = stream.next_u64() as f64 / 2f64.powi(64);
        for (k, &song) in songs.iter().enumerate() {
            placed.push(((k as f64 + offset) / sizes[g] as f64, song));
        }
    }
    placed.sort_by(|a, b| a.0.total_cmp(&b.0));
    placed.into_iter().map(|(_, song)| song).collect()
}

/// A spread queue over the items of a playlist (track i is item i), in memory.
fn spread_queue(
    numbers: &[u32],
    count: usize,
    subgroups: Option<(&[u32], usize)>,
    stream: &mut Stream,
) -> (SpreadQueue, MemoryGroups) {
    let n = numbers.len();
    let created =
        groups::create(numbers, count, subgroups, &vec![false; n], stream).expect("a spread queue");
    let memory = MemoryGroups::of(&created.units, |k| {
        created.slots[k].iter().map(|&i| i as i64).collect()
    });
    (created.queue, memory)
}

/// Over many passes of one method on one playlist.
#[derive(Default)]
struct Quality {
    passes: u64,
    neighbours: u64,
    worst_neighbours: usize,
    at_fewest: u64,
    /// Sum over passes of the smallest gap between two tracks of one artist.
    smallest_gap: u64,
    worst_gap: usize,
    /// Sum over passes of the mean gap between successive tracks of one artist.
    mean_gap: f64,
    /// Sum over passes of the smallest gap of the top artist over its even spacing n / c.
    top_gap_ratio: f64,
}

impl Quality {
    fn record(&mut self, order: &[u32], list: &Playlist, sizes: &[u32]) {
        let n = order.len();
        let neighbours = same_group_neighbours(order, &list.groups);
        self.passes += 1;
        self.neighbours += neighbours as u64;
        self.worst_neighbours = self.worst_neighbours.max(neighbours);
        self.at_fewest += u64::from(neighbours == fewest_neighbours(sizes));
        let mut last = vec![usize::MAX; sizes.len()];
        let mut smallest = vec![usize::MAX; sizes.len()];
        let (mut gaps, mut gap_sum) = (0u64, 0u64);
        for (place, &item) in order.iter().enumerate() {
            let g = list.groups[item as usize] as usize;
            if last[g] != usize::MAX {
                let gap = place - last[g];
                smallest[g] = smallest[g].min(gap);
                gaps += 1;
                gap_sum += gap as u64;
            }
            last[g] = place;
        }
        let pass_smallest = smallest.iter().copied().min().unwrap_or(0);
        self.smallest_gap += pass_smallest as u64;
        self.worst_gap = if self.passes == 1 {
            pass_smallest
        } else {
            self.worst_gap.min(pass_smallest)
        };
        self.mean_gap += gap_sum as f64 / gaps.max(1) as f64;
        let top = (0..sizes.len()).max_by_key(|&g| sizes[g]).unwrap();
        self.top_gap_ratio += smallest[top] as f64 * sizes[top] as f64 / n as f64;
    }
}

/// Same-album neighbours within each artist's own sequence of tracks, and the fewest possible,
/// summed over the artists.
fn album_neighbours(
    order: &[u32],
    artists: &[u32],
    albums: &[u32],
    artist_count: usize,
) -> (usize, usize) {
    let (mut found, mut fewest) = (0, 0);
    for a in 0..artist_count as u32 {
        let own: Vec<u32> = order
            .iter()
            .copied()
            .filter(|&i| artists[i as usize] == a)
            .collect();
        let own_albums: Vec<u32> = own.iter().map(|&i| albums[i as usize]).collect();
        let places: Vec<u32> = (0..own.len() as u32).collect();
        found += same_group_neighbours(&places, &own_albums);
        let mut sizes = std::collections::HashMap::new();
        for &album in &own_albums {
            *sizes.entry(album).or_insert(0u32) += 1;
        }
        fewest += fewest_neighbours(&sizes.into_values().collect::<Vec<_>>());
    }
    (found, fewest)
}

/// A library of 8 artists with 2 to 4 albums of 3 to 8 tracks each: spread by artist alone, and
/// by artist then album.
fn two_levels(passes: u64, stream: &mut Stream) {
    let (mut artists, mut albums) = (Vec::new(), Vec::new());
    let mut album_id = 0;
    for artist in 0..8u32 {
        for _ in 0..2 + stream.below(3) {
            for _ in 0..3 + stream.below(6) {
                artists.push(artist);
                albums.push(album_id);
            }
            album_id += 1;
        }
    }
    let n = artists.len();
    let (numbers, count) = number_groups(n, |i| artists[i], &mut || {}).expect("memory");
    println!();
    println!(
        "| {n} tracks, 8 artists, {album_id} albums | same-artist neighbours per pass (fewest possible) | same-album neighbours within an artist per pass: mean / max (fewest possible) |"
    );
    println!("|---|---|---|");
    let (pairs, pair_count) =
        number_groups(n, |i| (artists[i], albums[i]), &mut || {}).expect("memory");
    for method in 0..4 {
        let nested = method % 2 == 1;
        let mut queue = (method >= 2).then(|| {
            let sub = nested.then_some((&pairs[..], pair_count));
            spread_queue(&numbers, count, sub, stream)
        });
        let (mut artist_total, mut album_total, mut album_worst, mut album_fewest) = (0, 0, 0, 0);
        for _ in 0..passes {
            let order = match queue.as_mut() {
                Some((queue, memory)) => {
                    (0..n).map(|_| queue.next(memory, stream) as u32).collect()
                }
                None if nested => spread_nested(&numbers, count, &albums, stream, &mut || {})
                    .expect("memory for the spread")
                    .to_vec(),
                None => spread(&numbers, count, stream, &mut || {})
                    .expect("memory for the spread")
                    .to_vec(),
            };
            artist_total += same_group_neighbours(&order, &artists);
            let (found, fewest) = album_neighbours(&order, &artists, &albums, count);
            album_total += found;
            album_worst = album_worst.max(found);
            album_fewest = fewest;
        }
        let fewest_artists = fewest_neighbours(
            &Playlist {
                name: "",
                groups: artists.clone(),
            }
            .sizes(),
        );
        println!(
            "| {} | {:.2} ({fewest_artists}) | {:.2} / {album_worst} ({album_fewest}) |",
            [
                "shuffle_spread(items, artists)",
                "shuffle_spread(items, artists, albums)",
                "shuffle queue, groups => artists (pass after pass)",
                "shuffle queue, groups => artists, subgroups => albums (pass after pass)",
            ][method],
            artist_total as f64 / passes as f64,
            album_total as f64 / passes as f64,
        );
    }
}

/// One row of the table: a playlist, a method and its quality over the passes.
fn print_row(list: &Playlist, largest: u32, method: &str, fewest: usize, quality: &Quality) {
    let p = quality.passes as f64;
    println!(
        "| {} ({largest}) | {method} | {:.2} / {} ({fewest}) | {:.1}% | {:.2} / {} | {:.2} | {:.2} |",
        list.name,
        quality.neighbours as f64 / p,
        quality.worst_neighbours,
        100.0 * quality.at_fewest as f64 / p,
        quality.smallest_gap as f64 / p,
        quality.worst_gap,
        quality.mean_gap / p,
        quality.top_gap_ratio / p,
    );
}

fn main() {
    let passes: u64 = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("PASSES is a number"))
        .unwrap_or(2000);
    let lists = [
        Playlist::of_sizes("500 tracks, 40 artists (Zipf)", &zipf_sizes(500, 40)),
        Playlist::of_sizes("30 tracks, album-heavy", &[12, 8, 4, 2, 1, 1, 1, 1]),
        Playlist::of_sizes("30 tracks, one artist 18", &[18, 4, 3, 2, 2, 1]),
        Playlist::of_sizes("60 tracks, 6 artists of 10", &[10; 6]),
    ];
    println!(
        "| playlist (largest artist) | method | same-artist neighbours per pass: mean / max (fewest possible) | passes at the fewest | smallest gap: mean / worst | mean gap | top artist's smallest gap / even spacing |"
    );
    println!("|---|---|---|---|---|---|---|");
    let mut stream = Stream::from_seed([42; 32]);
    let mut across = Vec::new();
    for list in &lists {
        let sizes = list.sizes();
        let fewest = fewest_neighbours(&sizes);
        let largest = sizes.iter().max().unwrap();
        let (numbers, count) = number_groups(list.groups.len(), |i| list.groups[i], &mut || {})
            .expect("memory for the groups");
        for method in [
            "Fisher-Yates",
            "balanced shuffle (2014)",
            "shuffle_spread",
            "shuffle queue spread by artist",
        ] {
            let mut quality = Quality::default();
            let mut queue = (method == "shuffle queue spread by artist")
                .then(|| spread_queue(&numbers, count, None, &mut stream));
            let (mut boundaries, mut last_artist) = (0u64, None);
            for _ in 0..passes {
                let order: Vec<u32> = match method {
                    "shuffle queue spread by artist" => {
                        let (queue, memory) = queue.as_mut().expect("the queue");
                        let order: Vec<u32> = (0..list.groups.len())
                            .map(|_| queue.next(memory, &mut stream) as u32)
                            .collect();
                        let first = list.groups[order[0] as usize];
                        boundaries += u64::from(last_artist == Some(first));
                        last_artist = Some(list.groups[*order.last().unwrap() as usize]);
                        order
                    }
                    "Fisher-Yates" => {
                        let mut order: Vec<u32> = (0..list.groups.len() as u32).collect();
                        fisher_yates(&mut order, &mut stream, &mut || {});
                        order
                    }
                    "shuffle_spread" => spread(&numbers, count, &mut stream, &mut || {})
                        .expect("memory for the spread")
                        .to_vec(),
                    _ => balanced_2014(&list.groups, &sizes, &mut stream),
                };
                quality.record(&order, list, &sizes);
            }
            if queue.is_some() {
                across.push(format!(
                    "{}: {boundaries} of {} pass boundaries",
                    list.name,
                    passes - 1
                ));
            }
            print_row(list, *largest, method, fewest, &quality);
        }
    }
    println!();
    println!(
        "The queue's same-artist pairs across two passes (the last track of one, the first of the next): {}.",
        across.join("; ")
    );
    two_levels(passes, &mut stream);
}
