//! Unit tests of `bernoulli`: every slot taken with probability p, independently (by slot, and
//! by the size of the sample), with negative controls the same tests must reject; pages in
//! order, offsets within bounds; the edge rates; repeatable keys.

use super::*;
use dealcards_fairness::stats::{self, ChiSquare};

const ALPHA: f64 = 1e-4;

fn passes(result: ChiSquare) -> bool {
    result.p_value >= ALPHA
}

fn stream(seed: u32) -> Stream {
    let mut key = [0u8; SEED_LEN];
    key[..4].copy_from_slice(&seed.to_le_bytes());
    Stream::from_seed(key)
}

/// Every taken slot of a sample over `pages` pages, as the scan asks for them (every page's
/// slots up to `per_page`, none beyond).
fn slots(sample: &mut SlotSample, pages: u32, per_page: u32) -> Vec<u64> {
    let mut taken = Vec::new();
    while let Some(page) = sample.next_page(pages) {
        while let Some(offset) = sample.next_offset(page, per_page as u16) {
            taken.push(page as u64 * per_page as u64 + offset as u64 - 1);
        }
    }
    taken
}

/// A sampler of slots: (pages, slots a page, rate, trial) to the slots taken.
type Sampler = fn(u32, u32, f64, u32) -> Vec<u64>;

fn geometric(pages: u32, per_page: u32, rate: f64, trial: u32) -> Vec<u64> {
    slots(
        &mut SlotSample::new(rate, per_page, stream(trial)),
        pages,
        per_page,
    )
}

/// A negative control: whole pages, each with probability p (TABLESAMPLE SYSTEM). Every slot is
/// in with probability p, but the slots of a page come together.
fn whole_pages(pages: u32, per_page: u32, rate: f64, trial: u32) -> Vec<u64> {
    let mut s = stream(trial);
    let mut taken = Vec::new();
    for page in 0..pages {
        if (s.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64) < rate {
            taken.extend((0..per_page as u64).map(|o| page as u64 * per_page as u64 + o));
        }
    }
    taken
}

/// A negative control: a sampler that never looks past the first half of a page's line
/// pointers, at twice the rate there (the same expected size).
fn first_line_pointers(pages: u32, per_page: u32, rate: f64, trial: u32) -> Vec<u64> {
    let half = per_page / 2;
    let mut sample = SlotSample::new((2.0 * rate).min(1.0), per_page, stream(trial));
    let mut taken = Vec::new();
    while let Some(page) = sample.next_page(pages) {
        while let Some(offset) = sample.next_offset(page, half as u16) {
            taken.push(page as u64 * per_page as u64 + offset as u64 - 1);
        }
    }
    taken
}

/// A negative control: skips one slot too many after every slot taken (the gap counted from the
/// taken slot instead of the one after it).
fn skips_one_more(pages: u32, per_page: u32, rate: f64, trial: u32) -> Vec<u64> {
    let mut taken = geometric(pages, per_page, rate, trial);
    let mut s = stream(trial ^ 0x5555);
    // Each slot right after a taken one is left out: drop it and keep the rate by adding a
    // random other slot, so only the pairs of neighbours show it.
    let all: std::collections::BTreeSet<u64> = taken.iter().copied().collect();
    let total = pages as u64 * per_page as u64;
    let neighbours: Vec<u64> = taken
        .iter()
        .copied()
        .filter(|t| all.contains(&(t + 1)))
        .collect();
    taken.retain(|t| !neighbours.iter().any(|n| *n + 1 == *t));
    for _ in 0..neighbours.len() {
        let extra = s.below_u64(total);
        if !taken.contains(&extra) {
            taken.push(extra);
        }
    }
    taken
}

/// Each slot's inclusion over the trials against p: the sum over slots of (count - N p)^2 /
/// (N p (1 - p)), a chi-square with one degree of freedom a slot (the slots are independent).
fn inclusion(sampler: Sampler, pages: u32, per_page: u32, rate: f64, trials: u32) -> ChiSquare {
    let total = (pages * per_page) as usize;
    let mut counts = vec![0u64; total];
    for trial in 0..trials {
        for slot in sampler(pages, per_page, rate, trial) {
            counts[slot as usize] += 1;
        }
    }
    let n = trials as f64;
    let statistic = counts
        .iter()
        .map(|&c| {
            let d = c as f64 - n * rate;
            d * d / (n * rate * (1.0 - rate))
        })
        .sum();
    ChiSquare {
        statistic,
        df: total as u64,
        p_value: stats::chi_square_sf(statistic, total as f64),
    }
}

/// The sample's size against Binomial(slots, p), the tails pooled so that every bin expects at
/// least 20 samples: independent slots give exactly that, slots that come together spread it.
fn sizes(sampler: Sampler, pages: u32, per_page: u32, rate: f64, trials: u32) -> ChiSquare {
    let total = (pages * per_page) as usize;
    let mut binomial = vec![0.0f64; total + 1];
    binomial[0] = (1.0 - rate).powi(total as i32);
    for k in 1..=total {
        binomial[k] = binomial[k - 1] * (total + 1 - k) as f64 / k as f64 * rate / (1.0 - rate);
    }
    let mut counts = vec![0u64; total + 1];
    for trial in 0..trials {
        counts[sampler(pages, per_page, rate, trial).len()] += 1;
    }
    // Pool the low and high tails into their neighbours.
    let enough = 20.0 / trials as f64;
    let (mut bins, mut weights) = (Vec::new(), Vec::new());
    let (mut count, mut weight) = (0u64, 0.0);
    for k in 0..=total {
        count += counts[k];
        weight += binomial[k];
        let rest: f64 = binomial[k + 1..].iter().sum();
        if weight >= enough && rest >= enough {
            bins.push(count);
            weights.push(weight);
            (count, weight) = (0, 0.0);
        }
    }
    bins.push(count);
    weights.push(weight);
    stats::chi_square_expected(&bins, &weights)
}

#[test]
fn every_slot_is_taken_with_probability_p() {
    let result = inclusion(geometric, 6, 12, 0.15, 20_000);
    assert!(passes(result), "{result:?}");
    let sparse = inclusion(geometric, 40, 291, 0.002, 20_000);
    assert!(passes(sparse), "{sparse:?}");
}

#[test]
fn slots_are_taken_independently() {
    let result = sizes(geometric, 6, 12, 0.15, 20_000);
    assert!(passes(result), "{result:?}");
    let sparse = sizes(geometric, 40, 291, 0.002, 20_000);
    assert!(passes(sparse), "{sparse:?}");
}

#[test]
fn the_tests_reject_broken_samplers() {
    // Whole pages: right by slot, wrong by size.
    assert!(passes(inclusion(whole_pages, 6, 12, 0.15, 20_000)));
    assert!(!passes(sizes(whole_pages, 6, 12, 0.15, 20_000)));
    // The first line pointers only: wrong by slot.
    assert!(!passes(inclusion(first_line_pointers, 6, 12, 0.15, 20_000)));
    // A neighbour of a taken slot left out: wrong by size (fewer pairs of neighbours, more
    // spread) or by slot.
    let by_size = sizes(skips_one_more, 6, 12, 0.3, 20_000);
    let by_slot = inclusion(skips_one_more, 6, 12, 0.3, 20_000);
    assert!(
        !passes(by_size) || !passes(by_slot),
        "{by_size:?} {by_slot:?}"
    );
}

#[test]
fn pages_come_in_order_and_offsets_within_bounds() {
    for trial in 0..200 {
        let per_page = 291;
        let mut sample = SlotSample::new(0.01, per_page, stream(trial));
        let mut last_page = None;
        while let Some(page) = sample.next_page(50) {
            assert!(page < 50);
            assert!(
                last_page.is_none_or(|last| page > last),
                "{page} after {last_page:?}"
            );
            last_page = Some(page);
            // A page of 7 line pointers: nothing above 7 is handed out.
            let max_offset = 7;
            let mut last = 0;
            while let Some(offset) = sample.next_offset(page, max_offset) {
                assert!((1..=max_offset).contains(&offset) && offset > last);
                last = offset;
            }
            assert_eq!(sample.next_offset(page, max_offset), None);
        }
        // The end stays the end.
        assert_eq!(sample.next_page(50), None);
    }
}

#[test]
fn a_page_not_asked_about_is_dropped_and_another_page_gets_nothing() {
    let mut sample = SlotSample::new(0.5, 10, stream(3));
    let first = sample.next_page(100).unwrap();
    let second = sample.next_page(100).unwrap();
    assert!(second > first);
    assert_eq!(sample.next_offset(second + 1, 10), None);
    let mut whole = SlotSample::new(0.5, 10, stream(3));
    whole.next_page(100);
    let mut expected = Vec::new();
    whole.next_page(100);
    while let Some(o) = whole.next_offset(second, 10) {
        expected.push(o);
    }
    let mut got = Vec::new();
    let mut again = SlotSample::new(0.5, 10, stream(3));
    again.next_page(100);
    again.next_page(100);
    while let Some(o) = again.next_offset(second, 10) {
        got.push(o);
    }
    assert_eq!(got, expected);
    assert!(!got.is_empty());
}

#[test]
fn rates_zero_and_one_take_nothing_and_everything() {
    let mut none = SlotSample::new(0.0, 291, stream(1));
    assert_eq!(none.next_page(1000), None);
    let mut all = SlotSample::new(1.0, 5, stream(1));
    assert_eq!(slots(&mut all, 4, 5), (0..20).collect::<Vec<u64>>());
    // No pages: nothing, and a table that grew meanwhile does not change what was drawn.
    let mut empty = SlotSample::new(0.5, 5, stream(1));
    assert_eq!(empty.next_page(0), None);
    let grown = slots(&mut empty, 3, 5);
    assert_eq!(grown, slots(&mut SlotSample::new(0.5, 5, stream(1)), 3, 5));
}

#[test]
fn a_huge_table_at_a_tiny_rate_ends() {
    let mut sample = SlotSample::new(1e-300, 291, stream(9));
    assert_eq!(sample.next_page(u32::MAX), None);
    let mut some = SlotSample::new(1e-9, 291, stream(9));
    let mut pages = 0;
    while some.next_page(u32::MAX).is_some() {
        pages += 1;
    }
    // About 4.3e9 * 291 * 1e-9 = 1250 slots.
    assert!((1000..1500).contains(&pages), "{pages}");
}

#[test]
fn percentages_are_checked() {
    assert_eq!(rate_of_percent(0.0), Ok(0.0));
    assert_eq!(rate_of_percent(100.0), Ok(1.0));
    assert_eq!(rate_of_percent(12.5), Ok(0.125));
    for bad in [-0.001, 100.001, f64::NAN, f64::INFINITY] {
        let err = rate_of_percent(bad).unwrap_err();
        assert_eq!(err.kind, crate::error::ErrorKind::InvalidParameter);
        assert!(err
            .message
            .starts_with("sample percentage must be between 0 and 100"));
    }
}

#[test]
fn repeatable_keys_separate_relations_and_seeds() {
    let key = repeatable_key(7, b"public", b"events");
    assert_eq!(key, repeatable_key(7, b"public", b"events"));
    assert_ne!(key, repeatable_key(8, b"public", b"events"));
    assert_ne!(key, repeatable_key(7, b"public", b"events_102008"));
    // The lengths keep the names apart: ("ab", "c") is not ("a", "bc").
    assert_ne!(
        repeatable_key(7, b"ab", b"c"),
        repeatable_key(7, b"a", b"bc")
    );
    let first = |key| {
        slots(
            &mut SlotSample::new(0.01, 291, Stream::from_seed(key)),
            100,
            291,
        )
    };
    assert_eq!(first(key), first(key));
    assert_ne!(first(key), first(repeatable_key(7, b"public", b"events_1")));
}

#[test]
fn expected_pages_match_the_draws() {
    // 1 - (1 - p)^per_page of the pages.
    assert!((expected_pages(1000.0, 1.0, 291) - 1000.0).abs() < 1e-9);
    assert_eq!(expected_pages(1000.0, 0.0, 291), 0.0);
    let expected = expected_pages(2000.0, 0.001, 291);
    let mut visited = 0u64;
    for trial in 0..50 {
        let mut sample = SlotSample::new(0.001, 291, stream(trial));
        while sample.next_page(2000).is_some() {
            visited += 1;
        }
    }
    let mean = visited as f64 / 50.0;
    assert!(
        (mean - expected).abs() < 0.05 * expected,
        "{mean} vs {expected}"
    );
}

#[test]
fn seeded_tries_are_sha256_of_the_seed_and_the_index() {
    // Golden values from Python: hashlib.sha256(bytes(32) + i.to_bytes(4, 'big')), and its
    // first 8 bytes big-endian shifted right by 12.
    let (key, repeatable) = seeded_try(&[0u8; 32], 0);
    assert_eq!(
        key[..4],
        [0x6d, 0xb6, 0x5f, 0xd5],
        "sha256(0^32 || 00000000)"
    );
    assert_eq!(repeatable, 1930080948976949.0);
    let (key, repeatable) = seeded_try(&[0u8; 32], 1);
    assert_eq!(key[..4], [0x21, 0x58, 0xa8, 0x90]);
    assert_eq!(repeatable, 586634702018018.0);
}

#[test]
fn exact_tries_aim_above_k_and_grow() {
    assert_eq!(exact_try_rows(0), 3.0);
    assert!((exact_try_rows(100) - 123.0).abs() < 1e-9);
    // Short by a little: about target / got; none back: sixteen times; never past 1.
    assert!((next_try_rate(0.001, 10, 30.0) - 0.003).abs() < 1e-12);
    assert_eq!(next_try_rate(0.001, 29, 30.0), 0.002);
    assert_eq!(next_try_rate(0.001, 0, 30.0), 0.016);
    assert_eq!(next_try_rate(0.5, 0, 30.0), 1.0);
    // A scan once a quarter of the pages would be visited; never for a table of no pages (a
    // Citus table's coordinator) below a rate of 1.
    assert!(!scan_is_cheaper(93_458.0, 2e-6, 291));
    assert!(scan_is_cheaper(93_458.0, 0.001, 291));
    assert!(!scan_is_cheaper(0.0, 0.5, 291));
    assert!(scan_is_cheaper(0.0, 1.0, 291));
}
