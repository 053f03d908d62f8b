//! A Bernoulli sample of a table's slots, for a TABLESAMPLE method that samples rows without
//! reading the pages that hold none of them.
//!
//! A slot is a page and a line pointer number, from 1 to the most line pointers a page can hold
//! (`MaxHeapTuplesPerPage`, 291 for 8 kB pages). Every row version of a heap sits in exactly one
//! slot, so a sample in which every slot is taken with probability p, independently of every
//! other, takes every visible row with probability p, independently of every other row: the
//! sample of `TABLESAMPLE BERNOULLI (100 p)`, whatever the number of rows on each page, the dead
//! rows and the unused line pointers.
//!
//! The slots are numbered page by page (slot = page * per_page + offset - 1) and drawn in
//! increasing order by geometric skips: the number of slots passed over before the next one taken
//! is G = floor(ln U / ln(1 - p)), U uniform in (0, 1], so that P(G >= g) = (1 - p)^g, the chance
//! that g slots in a row are all left out. Only the pages that hold a taken slot are visited,
//! each once and in increasing order: never more than one pass over the table, and for small p
//! about one page per sampled row.

use std::collections::VecDeque;

use sha2::{Digest, Sha256};

use crate::error::Error;
use crate::rng::{Stream, SEED_LEN};

/// The slots of one page taken by the sample, and how many of them were handed out.
#[derive(Debug)]
struct PageSlots {
    page: u32,
    offsets: Vec<u16>,
    handed: usize,
}

/// The sample's slots, page by page, drawn as they are asked for.
pub struct SlotSample {
    /// ln(1 - p); 0 for p = 0 (no slot is ever taken) and -inf for p = 1 (every slot is).
    log_left_out: f64,
    none: bool,
    per_page: u32,
    /// The first slot not yet decided.
    cursor: u64,
    /// A slot taken but beyond the pages handed out so far.
    ahead: Option<u64>,
    /// Pages handed out whose slots the scan has not finished asking for.
    pages: VecDeque<PageSlots>,
    stream: Stream,
}

/// Checks a TABLESAMPLE percentage (0 to 100, as BERNOULLI's) and returns the rate.
pub fn rate_of_percent(percent: f64) -> Result<f64, Error> {
    if !(0.0..=100.0).contains(&percent) {
        return Err(Error::invalid(format!(
            "sample percentage must be between 0 and 100, got {percent}"
        )));
    }
    Ok(percent / 100.0)
}

/// The key of a repeatable sample of one relation: SHA-256 of a label, the REPEATABLE seed
/// (PostgreSQL's 32-bit hash of the REPEATABLE value, little-endian) and the relation's schema
/// and name (each as its length, 4 bytes little-endian, and its bytes). The relation's name is
/// in it so that partitions and Citus shards, which each get the same REPEATABLE value, draw
/// independent samples.
pub fn repeatable_key(seed: u32, schema: &[u8], relation: &[u8]) -> [u8; SEED_LEN] {
    let mut hash = Sha256::new();
    hash.update(b"dealcards tablesample slots\0");
    hash.update(seed.to_le_bytes());
    for name in [schema, relation] {
        hash.update((name.len() as u32).to_le_bytes());
        hash.update(name);
    }
    hash.finalize().into()
}

/// The expected number of pages a sample of rate p visits among `pages`: those with at least one
/// of their `per_page` slots taken.
pub fn expected_pages(pages: f64, rate: f64, per_page: u32) -> f64 {
    pages * (1.0 - (1.0 - rate).powi(per_page as i32))
}

impl SlotSample {
    /// A sample of rate `rate` (0 to 1) over pages of `per_page` slots (1 to 65535), drawn from
    /// `stream`.
    pub fn new(rate: f64, per_page: u32, stream: Stream) -> Self {
        debug_assert!((0.0..=1.0).contains(&rate));
        debug_assert!((1..=u16::MAX as u32).contains(&per_page));
        SlotSample {
            log_left_out: (-rate).ln_1p(),
            none: rate <= 0.0,
            per_page,
            cursor: 0,
            ahead: None,
            pages: VecDeque::new(),
            stream,
        }
    }

    /// The next slot taken, from the cursor on; u64::MAX when there is none within reach.
    fn draw(&mut self) -> u64 {
        if self.none || self.cursor == u64::MAX {
            self.cursor = u64::MAX;
            return u64::MAX;
        }
        // U in (0, 1]: 53 random bits, plus one.
        let unit = ((self.stream.next_u64() >> 11) + 1) as f64 * (1.0 / (1u64 << 53) as f64);
        // ln U <= 0 and ln(1 - p) < 0: the gap is 0 or more; -0.0 and NaN never arise (U = 1
        // gives 0 / negative = -0.0, whose floor casts to 0; p = 1 gives ln U / -inf = -0.0).
        let gap = (unit.ln() / self.log_left_out).floor();
        // A float beyond u64's range casts to u64::MAX.
        let slot = self.cursor.saturating_add(gap as u64);
        self.cursor = slot.saturating_add(1);
        slot
    }

    /// The next page holding a taken slot, below `pages`, or None when there is none: pages come
    /// in increasing order, each once.
    pub fn next_page(&mut self, pages: u32) -> Option<u32> {
        let end = pages as u64 * self.per_page as u64;
        let first = match self.ahead.take() {
            Some(slot) => slot,
            None => self.draw(),
        };
        if first >= end {
            self.ahead = Some(first);
            return None;
        }
        let per_page = self.per_page as u64;
        let page = first / per_page;
        let mut offsets = vec![(first % per_page + 1) as u16];
        loop {
            let slot = self.draw();
            if slot / per_page != page {
                self.ahead = Some(slot);
                break;
            }
            offsets.push((slot % per_page + 1) as u16);
        }
        self.pages.push_back(PageSlots {
            page: page as u32,
            offsets,
            handed: 0,
        });
        Some(page as u32)
    }

    /// The next taken line pointer of `page` that is at most `max_offset` (the page's last line
    /// pointer), in increasing order, or None when the page has no more. Slots above
    /// `max_offset` hold no row and are passed over. Pages handed out before `page` and not
    /// asked about are dropped: a scan visits pages in the order they are handed out.
    pub fn next_offset(&mut self, page: u32, max_offset: u16) -> Option<u16> {
        while self.pages.front().is_some_and(|p| p.page != page) {
            self.pages.pop_front();
        }
        let current = self.pages.front_mut()?;
        while let Some(&offset) = current.offsets.get(current.handed) {
            current.handed += 1;
            if offset <= max_offset {
                return Some(offset);
            }
        }
        self.pages.pop_front();
        None
    }
}

/// The rows a try of an exact sample of k rows aims at: k + 2 sqrt(k) + 3, so that a try at a
/// rate giving that many rows in expectation comes back with fewer than k about once in fifty
/// tries (a Poisson count 2 standard deviations and 3 rows under its mean), where one more row
/// of margin costs about one more page read in every try.
pub fn exact_try_rows(k: u64) -> f64 {
    let k = k as f64;
    k + 2.0 * k.sqrt() + 3.0
}

/// The rate of the try after one at `rate` that came back with `got` rows, fewer than the
/// `target` it aimed at: the rate at which `got / rate` rows would give `target`, between twice
/// and sixteen times `rate` (sixteen times when none came back), at most 1. The rows a try
/// brings depend on its rate and on fresh randomness alone, so a rate chosen from the earlier
/// tries' sizes keeps the last try a uniform sample of its size.
pub fn next_try_rate(rate: f64, got: u64, target: f64) -> f64 {
    let factor = if got == 0 {
        16.0
    } else {
        (target / got as f64).clamp(2.0, 16.0)
    };
    (rate * factor).min(1.0)
}

/// Whether a try at `rate` should read the whole table instead: where the pages it is expected
/// to visit (each at most once, in order) reach a quarter of the table's `pages`, a scan costs
/// about as much and brings every row. Tries grow at least twofold, so all the sampled tries
/// before a scan read under half of the table together.
pub fn scan_is_cheaper(pages: f64, rate: f64, per_page: u32) -> bool {
    rate >= 1.0 || (pages > 0.0 && expected_pages(pages, rate, per_page) >= pages / 4.0)
}

/// The key of try `index` of a seeded exact sample, SHA-256(seed || index as 4 bytes
/// big-endian), and its REPEATABLE value: the key's first 52 bits as a number (exact in a
/// float8).
pub fn seeded_try(seed: &[u8], index: u32) -> ([u8; SEED_LEN], f64) {
    let mut hash = Sha256::new();
    hash.update(seed);
    hash.update(index.to_be_bytes());
    let key: [u8; SEED_LEN] = hash.finalize().into();
    let top = u64::from_be_bytes(key[..8].try_into().expect("8 bytes")) >> 12;
    (key, top as f64)
}

#[cfg(test)]
mod tests;
