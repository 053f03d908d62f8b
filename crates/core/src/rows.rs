//! Samples and shuffles of rows: the states of aggregates that see their input one row at a
//! time, in any number of pieces (parallel workers, shards) merged at the end.
//!
//! Every sample here is "the k rows with the smallest random keys". A row of weight w gets the
//! key E / w, E exponential with mean 1 and independent for every row (weight 1 without
//! weights). Then:
//!
//! - without weights, every k-subset of the rows is equally likely, and the k smallest keys in
//!   increasing order are a uniformly random order of it (the keys are i.i.d. and continuous);
//! - with weights, the rows in increasing key order are successive draws each proportional to
//!   weight among the rows not drawn yet (Efraimidis and Spirakis, 2006: min E_i / w_i is row i
//!   with probability w_i / sum w, and the exponential's memorylessness repeats this for the
//!   rest);
//! - two states of the same k merge exactly by keeping the k smallest keys of both: the keys
//!   are the rows' own, so the merged state is what one state would hold after both inputs.
//!   Nothing is ever taken "half from each side".
//!
//! Most rows are never given a key: once k rows are kept, with the largest kept key t, a row of
//! weight w would enter with probability 1 - exp(-t w), independently of the others, so the
//! weight to pass over before the next row that enters is exponential with mean 1 / t (the
//! exponential jumps of Efraimidis and Spirakis' A-ExpJ, which for unit weights is the
//! geometric skip of Vitter's and Li's Algorithm L). The row where the jump lands enters with
//! its key drawn from E / w conditioned on being below t. A row passed over costs a subtraction
//! and a comparison ([`Sample::wants`]); its value is never copied.
//!
//! With replacement ([`Resample`]) is k independent samples of one row each, merged slot by slot.
//! [`ShuffleAll`] keeps every row and orders them with Fisher-Yates at the end.
//!
//! The seeded forms ([`SeededSample`], [`SeededShuffle`]) draw no random numbers: a row's key is
//! the SipHash-2-4 of its value's bytes under a key derived from the seed, so the result depends
//! only on the seed and the multiset of values, never on their order, the plan or how the input
//! was split. docs/rows.md specifies them byte for byte.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use siphasher::sip::SipHasher24;

use crate::error::{Error, ErrorKind};
use crate::rng::{Stream, SEED_LEN};
use crate::scratch::Claim;
use crate::shuffle::{fisher_yates, CHECK_EVERY};

/// The bytes of one value, inline when short (integers, dates, uuids): no allocation for them.
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum Value {
    Short { len: u8, bytes: [u8; Value::INLINE] },
    Long(Box<[u8]>),
}

impl Value {
    /// The longest value kept inline.
    pub const INLINE: usize = 15;

    pub fn new(bytes: &[u8]) -> Self {
        if bytes.len() <= Value::INLINE {
            let mut inline = [0u8; Value::INLINE];
            inline[..bytes.len()].copy_from_slice(bytes);
            Value::Short {
                len: bytes.len() as u8,
                bytes: inline,
            }
        } else {
            Value::Long(bytes.into())
        }
    }

    pub fn bytes(&self) -> &[u8] {
        match self {
            Value::Short { len, bytes } => &bytes[..*len as usize],
            Value::Long(bytes) => bytes,
        }
    }
}

impl AsRef<[u8]> for Value {
    fn as_ref(&self) -> &[u8] {
        self.bytes()
    }
}

impl std::fmt::Debug for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Value({:02x?})", self.bytes())
    }
}

/// Memory a state may count per kept value besides the value itself (its key and bookkeeping).
const ENTRY_OVERHEAD: usize = 16;

/// Checks that a state keeping `k` values of about `value_bytes` each fits in the call's working
/// memory (`dealcards.max_working_memory`), before anything is allocated.
pub fn check_room(k: usize, value_bytes: usize, what: &str) -> Result<(), Error> {
    let per_value = value_bytes.saturating_add(ENTRY_OVERHEAD);
    Claim::new(k.saturating_mul(per_value), what).map(drop)
}

/// Checks a sample size given in SQL.
pub fn sample_size(k: i32) -> Result<usize, Error> {
    usize::try_from(k).map_err(|_| Error::invalid(format!("k must be 0 or more, got {k}")))
}

/// Whether a row of this weight can be drawn: false for 0 (never drawn), an error for a weight
/// that is negative, NaN or infinite. (A NULL weight is the SQL layer's: never drawn either.)
pub fn usable_weight(weight: f64) -> Result<bool, Error> {
    if weight.is_finite() && weight >= 0.0 {
        Ok(weight > 0.0)
    } else {
        Err(Error::invalid(format!(
            "weight must be a finite number, 0 or more, got {weight}"
        )))
    }
}

/// A uniform double in (0, 1): 53 random bits, never 0 or 1.
#[inline]
fn open_unit(stream: &mut Stream) -> f64 {
    ((stream.next_u64() >> 11) as f64 + 0.5) * (1.0 / (1u64 << 53) as f64)
}

/// An exponential variate with mean 1.
#[inline]
fn exponential(stream: &mut Stream) -> f64 {
    -open_unit(stream).ln()
}

/// An exponential variate with mean 1 conditioned on being below `limit` (> 0), by inversion:
/// -ln(1 - u (1 - e^-limit)).
#[inline]
fn exponential_below(stream: &mut Stream, limit: f64) -> f64 {
    let mass = -(-limit).exp_m1();
    let e = -(-open_unit(stream) * mass).ln_1p();
    // Rounding can reach the limit itself; the key must stay below it.
    if e < limit {
        e
    } else {
        limit * (1.0 - f64::EPSILON)
    }
}

/// A kept row: its key and its value, ordered by key (keys are never NaN).
#[derive(Clone, Debug)]
struct Keyed<T> {
    key: f64,
    value: T,
}

impl<T> PartialEq for Keyed<T> {
    fn eq(&self, other: &Self) -> bool {
        self.key.total_cmp(&other.key) == Ordering::Equal
    }
}
impl<T> Eq for Keyed<T> {}
impl<T> PartialOrd for Keyed<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Keyed<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key.total_cmp(&other.key)
    }
}

/// A sample of k rows without replacement, uniform or weighted (see the module's notes).
#[derive(Clone, Debug)]
pub struct Sample<T> {
    k: usize,
    /// The kept rows, the largest key on top.
    kept: BinaryHeap<Keyed<T>>,
    /// Rows offered with a usable weight.
    rows: u64,
    /// Once k rows are kept: the weight still to pass over before the next row that enters.
    jump: f64,
}

impl<T> Sample<T> {
    /// An empty sample of `k` rows of about `value_bytes` each, if that fits in the working
    /// memory.
    pub fn new(k: usize, value_bytes: usize) -> Result<Self, Error> {
        check_room(k, value_bytes, &format!("a sample of {k} rows"))?;
        Ok(Sample {
            k,
            kept: BinaryHeap::new(),
            rows: 0,
            jump: 0.0,
        })
    }

    pub fn k(&self) -> usize {
        self.k
    }

    /// Rows offered so far (with a usable weight), merged states included.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// The kept values, in no particular order.
    pub fn values(&self) -> impl Iterator<Item = &T> {
        self.kept.iter().map(|e| &e.value)
    }

    /// The largest kept key, once k rows are kept.
    fn threshold(&self) -> Option<f64> {
        (self.kept.len() == self.k && self.k > 0).then(|| self.kept.peek().unwrap().key)
    }

    /// Counts a row of weight `weight` (> 0, finite) and tells whether it enters the sample: if
    /// so, the caller must [`Sample::admit`] it with the same weight before the next row.
    #[inline]
    pub fn wants(&mut self, weight: f64) -> bool {
        self.rows += 1;
        if self.kept.len() < self.k {
            return true;
        }
        if self.k == 0 {
            return false;
        }
        self.jump -= weight;
        self.jump <= 0.0
    }

    /// Puts in the row that [`Sample::wants`] just accepted.
    pub fn admit(&mut self, weight: f64, value: T, stream: &mut Stream) {
        match self.threshold() {
            None => {
                let key = exponential(stream) / weight;
                self.kept.push(Keyed { key, value });
            }
            Some(t) => {
                let key = exponential_below(stream, t * weight) / weight;
                *self.kept.peek_mut().unwrap() = Keyed { key, value };
            }
        }
        self.draw_jump(stream);
    }

    /// A new jump from the current threshold (memoryless, so one may be drawn at any time).
    fn draw_jump(&mut self, stream: &mut Stream) {
        if let Some(t) = self.threshold() {
            self.jump = exponential(stream) / t;
        }
    }

    /// Offers a row of weight 1.
    pub fn offer(&mut self, value: T, stream: &mut Stream) {
        if self.wants(1.0) {
            self.admit(1.0, value, stream);
        }
    }

    /// Offers a weighted row: an error for a weight [`usable_weight`] refuses, nothing for 0.
    pub fn offer_weighted(
        &mut self,
        weight: f64,
        value: T,
        stream: &mut Stream,
    ) -> Result<(), Error> {
        if usable_weight(weight)? && self.wants(weight) {
            self.admit(weight, value, stream);
        }
        Ok(())
    }

    /// Takes in a sample of the same k over other rows: the k smallest keys of both.
    pub fn merge(&mut self, other: Sample<T>, stream: &mut Stream) -> Result<(), Error> {
        if other.k != self.k {
            return Err(Error::invalid(format!(
                "cannot merge a sample of {} rows into one of {}",
                other.k, self.k
            )));
        }
        self.rows += other.rows;
        for entry in other.kept {
            if self.kept.len() < self.k {
                self.kept.push(entry);
            } else if let Some(mut top) = self.kept.peek_mut() {
                if entry.key < top.key {
                    *top = entry;
                }
            }
        }
        self.draw_jump(stream);
        Ok(())
    }

    /// The sample, in increasing key order: a uniformly random order (without weights), the
    /// order of successive weighted draws (with).
    pub fn finish(self) -> Vec<T> {
        self.kept
            .into_sorted_vec()
            .into_iter()
            .map(|e| e.value)
            .collect()
    }
}

/// k independent draws of one row each (with replacement), uniform or weighted: slot i holds
/// the row with the smallest key E_i / w among the rows, each slot with keys of its own. The
/// next row each slot will take is found by an exponential jump, as in [`Sample`], so a row no
/// slot takes costs an addition and a comparison.
#[derive(Clone, Debug)]
pub struct Resample<T> {
    /// Per slot: its key and row; empty until the first row.
    slots: Vec<Keyed<T>>,
    k: usize,
    /// The total weight offered so far.
    mass: f64,
    /// Per slot, the total weight at which its next row lands, the nearest on top.
    events: BinaryHeap<Event>,
    rows: u64,
}

#[derive(Clone, Copy, Debug)]
struct Event {
    at: f64,
    slot: usize,
}

impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Event {
    /// Reversed: the heap's top is the nearest event.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .at
            .total_cmp(&self.at)
            .then(other.slot.cmp(&self.slot))
    }
}

impl<T: Clone> Resample<T> {
    pub fn new(k: usize, value_bytes: usize) -> Result<Self, Error> {
        check_room(
            k,
            value_bytes.saturating_add(ENTRY_OVERHEAD),
            &format!("a resample of {k} rows"),
        )?;
        Ok(Resample {
            slots: Vec::new(),
            k,
            mass: 0.0,
            events: BinaryHeap::new(),
            rows: 0,
        })
    }

    pub fn k(&self) -> usize {
        self.k
    }

    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// The values the slots hold, in slot order.
    pub fn values(&self) -> impl Iterator<Item = &T> {
        self.slots.iter().map(|e| &e.value)
    }

    /// Counts a row of weight `weight` (> 0, finite); true if some slot takes it, and then the
    /// caller must [`Resample::admit`] it before the next row.
    #[inline]
    pub fn wants(&mut self, weight: f64) -> bool {
        self.rows += 1;
        self.mass += weight;
        if self.k == 0 {
            return false;
        }
        match self.events.peek() {
            None => true,
            Some(event) => event.at <= self.mass,
        }
    }

    pub fn admit(&mut self, weight: f64, value: T, stream: &mut Stream) {
        if self.slots.is_empty() {
            for slot in 0..self.k {
                let key = exponential(stream) / weight;
                self.slots.push(Keyed {
                    key,
                    value: value.clone(),
                });
                let at = self.mass + exponential(stream) / key;
                self.events.push(Event { at, slot });
            }
            return;
        }
        while let Some(mut event) = self.events.peek_mut() {
            if event.at > self.mass {
                break;
            }
            let slot = &mut self.slots[event.slot];
            let key = exponential_below(stream, slot.key * weight) / weight;
            *slot = Keyed {
                key,
                value: value.clone(),
            };
            event.at = self.mass + exponential(stream) / key;
        }
    }

    pub fn offer(&mut self, value: T, stream: &mut Stream) {
        if self.wants(1.0) {
            self.admit(1.0, value, stream);
        }
    }

    pub fn offer_weighted(
        &mut self,
        weight: f64,
        value: T,
        stream: &mut Stream,
    ) -> Result<(), Error> {
        if usable_weight(weight)? && self.wants(weight) {
            self.admit(weight, value, stream);
        }
        Ok(())
    }

    /// Takes in draws of the same k over other rows: each slot keeps the smaller key.
    pub fn merge(&mut self, other: Resample<T>, stream: &mut Stream) -> Result<(), Error> {
        if other.k != self.k {
            return Err(Error::invalid(format!(
                "cannot merge a resample of {} rows into one of {}",
                other.k, self.k
            )));
        }
        self.rows += other.rows;
        self.mass += other.mass;
        if other.slots.is_empty() {
        } else if self.slots.is_empty() {
            self.slots = other.slots;
        } else {
            for (mine, theirs) in self.slots.iter_mut().zip(other.slots) {
                if theirs.key < mine.key {
                    *mine = theirs;
                }
            }
        }
        // Memoryless: fresh jumps from the merged keys.
        self.events.clear();
        for (slot, entry) in self.slots.iter().enumerate() {
            let at = self.mass + exponential(stream) / entry.key;
            self.events.push(Event { at, slot });
        }
        Ok(())
    }

    /// The k draws, in slot order (each independent of the others); empty without rows.
    pub fn finish(self) -> Vec<T> {
        self.slots.into_iter().map(|e| e.value).collect()
    }
}

/// Every row, to be returned in a uniformly random order: what `array_agg(v ORDER BY random())`
/// means, without a sort. Merging is appending; the order is drawn once, at the end.
#[derive(Clone, Debug, Default)]
pub struct ShuffleAll<T> {
    rows: Vec<T>,
    /// Bytes of the rows' values, counted against the working memory as they come.
    bytes: usize,
    /// What has been checked against the working memory so far.
    checked: usize,
}

impl<T> ShuffleAll<T> {
    pub fn new() -> Self {
        ShuffleAll {
            rows: Vec::new(),
            bytes: 0,
            checked: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Adds a row whose value holds `value_bytes`: TooLarge (nothing added) once the rows would
    /// pass the working memory. Checked each time the total doubles, so the check costs nothing
    /// per row.
    pub fn push(&mut self, value: T, value_bytes: usize) -> Result<(), Error> {
        let bytes = self
            .bytes
            .saturating_add(value_bytes)
            .saturating_add(size_of::<T>());
        if bytes > self.checked {
            let next = bytes.saturating_mul(2).max(1 << 16);
            check_room(
                1,
                next,
                &format!("a shuffle of {} rows", self.rows.len() + 1),
            )?;
            self.checked = next;
        }
        self.bytes = bytes;
        self.rows.push(value);
        Ok(())
    }

    pub fn merge(&mut self, mut other: ShuffleAll<T>) -> Result<(), Error> {
        let bytes = self.bytes.saturating_add(other.bytes);
        check_room(
            1,
            bytes,
            &format!("a shuffle of {} rows", self.rows.len() + other.rows.len()),
        )?;
        self.bytes = bytes;
        self.checked = self.checked.max(bytes);
        self.rows.append(&mut other.rows);
        Ok(())
    }

    /// The rows in a uniformly random order (Fisher-Yates), calling `check` now and then.
    pub fn finish(mut self, stream: &mut Stream, check: &mut dyn FnMut()) -> Vec<T> {
        fisher_yates(&mut self.rows, stream, check);
        self.rows
    }

    /// The rows as they came.
    pub fn rows(&self) -> &[T] {
        &self.rows
    }

    /// A uniformly random order of the rows, as indexes into [`ShuffleAll::rows`] (Fisher-Yates
    /// on the indexes): what [`ShuffleAll::finish`] gives, without moving or copying the rows.
    pub fn order(&self, stream: &mut Stream, check: &mut dyn FnMut()) -> Result<Vec<u32>, Error> {
        let n = u32::try_from(self.rows.len())
            .map_err(|_| Error::new(ErrorKind::TooLarge, "a shuffle of more than 2^32 rows"))?;
        check_room(
            n as usize,
            size_of::<u32>(),
            &format!("a shuffle of {n} rows"),
        )?;
        let mut order: Vec<u32> = (0..n).collect();
        fisher_yates(&mut order, stream, check);
        Ok(order)
    }
}

// ---------------------------------------------------------------------------------------------
// Seeded forms.

/// The SipHash key of a seed: the first 16 bytes of the seed's ChaCha20 stream (the stream of
/// every seeded function here), read as two little-endian 64-bit words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowKey {
    k0: u64,
    k1: u64,
}

impl RowKey {
    pub fn from_seed(seed: [u8; SEED_LEN]) -> Self {
        let mut stream = Stream::from_seed(seed);
        let k0 = stream.next_u64();
        let k1 = stream.next_u64();
        RowKey { k0, k1 }
    }

    pub fn from_seed_bytes(seed: &[u8]) -> Result<Self, Error> {
        let seed: [u8; SEED_LEN] = seed.try_into().map_err(|_| {
            Error::invalid(format!(
                "seed must be exactly {SEED_LEN} bytes, got {}",
                seed.len()
            ))
        })?;
        Ok(RowKey::from_seed(seed))
    }

    /// The key of a row whose value has these bytes.
    #[inline]
    pub fn of(&self, bytes: &[u8]) -> u64 {
        siphash24(self.k0, self.k1, bytes)
    }

    /// `shuffle_key(seed, key)`: the key of the bytes with its top bit flipped, read as a signed
    /// number. Flipping the top bit maps the unsigned order onto the signed one, so ordering by
    /// the result (a bigint) is ordering by the key: the order of the seeded shuffle.
    #[inline]
    pub fn order_key(&self, bytes: &[u8]) -> i64 {
        (self.of(bytes) ^ (1 << 63)) as i64
    }

    /// [`RowKey::order_key`] of a bigint: its 8 little-endian bytes, as the seeded aggregates
    /// key a bigint value.
    #[inline]
    pub fn order_key_of_int(&self, key: i64) -> i64 {
        self.order_key(&key.to_le_bytes())
    }
}

/// SipHash-2-4 (Aumasson and Bernstein, 2012) of `message` under the key (k0, k1), the key's
/// bytes 0..8 and 8..16 as little-endian words.
#[inline]
pub fn siphash24(k0: u64, k1: u64, message: &[u8]) -> u64 {
    SipHasher24::new_with_keys(k0, k1).hash(message)
}

/// A value with its seeded key, ordered by (key, bytes): the order of a seeded shuffle.
#[derive(Clone, Debug, PartialEq, Eq)]
struct SeededRow<T> {
    key: u64,
    value: T,
}

impl<T: AsRef<[u8]> + Eq> PartialOrd for SeededRow<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<T: AsRef<[u8]> + Eq> Ord for SeededRow<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key
            .cmp(&other.key)
            .then_with(|| self.value.as_ref().cmp(other.value.as_ref()))
    }
}

/// The k values with the smallest (key, bytes), in that order: a function of the seed and the
/// multiset of values alone. Equal values have equal keys and come out together.
#[derive(Clone, Debug)]
pub struct SeededSample<T> {
    k: usize,
    row_key: RowKey,
    kept: BinaryHeap<SeededRow<T>>,
    rows: u64,
}

impl<T: AsRef<[u8]> + Eq> SeededSample<T> {
    pub fn new(k: usize, value_bytes: usize, row_key: RowKey) -> Result<Self, Error> {
        check_room(k, value_bytes, &format!("a sample of {k} rows"))?;
        Ok(SeededSample {
            k,
            row_key,
            kept: BinaryHeap::new(),
            rows: 0,
        })
    }

    pub fn rows(&self) -> u64 {
        self.rows
    }

    pub fn k(&self) -> usize {
        self.k
    }

    pub fn row_key(&self) -> RowKey {
        self.row_key
    }

    /// The kept values, in no particular order.
    pub fn values(&self) -> impl Iterator<Item = &T> {
        self.kept.iter().map(|r| &r.value)
    }

    /// Offers a value, made by `make` only if it enters.
    #[inline]
    pub fn offer_with(&mut self, bytes: &[u8], make: impl FnOnce() -> T) {
        self.rows += 1;
        if self.k == 0 {
            return;
        }
        let key = self.row_key.of(bytes);
        if self.kept.len() < self.k {
            self.kept.push(SeededRow { key, value: make() });
            return;
        }
        let mut top = self.kept.peek_mut().unwrap();
        let below = match key.cmp(&top.key) {
            Ordering::Less => true,
            Ordering::Greater => false,
            Ordering::Equal => bytes < top.value.as_ref(),
        };
        if below {
            *top = SeededRow { key, value: make() };
        }
    }

    pub fn offer(&mut self, value: T) {
        let bytes = value.as_ref().to_vec();
        self.offer_with(&bytes, || value);
    }

    pub fn merge(&mut self, other: SeededSample<T>) -> Result<(), Error> {
        if other.k != self.k || other.row_key != self.row_key {
            return Err(Error::invalid(
                "cannot merge seeded samples of another size or seed",
            ));
        }
        self.rows += other.rows;
        for row in other.kept {
            if self.kept.len() < self.k {
                self.kept.push(row);
            } else if let Some(mut top) = self.kept.peek_mut() {
                if row < *top {
                    *top = row;
                }
            }
        }
        Ok(())
    }

    pub fn finish(self) -> Vec<T> {
        self.kept
            .into_sorted_vec()
            .into_iter()
            .map(|r| r.value)
            .collect()
    }
}

/// Every value, ordered by (key, bytes): the seeded sample of all of them.
#[derive(Clone, Debug)]
pub struct SeededShuffle<T> {
    row_key: RowKey,
    rows: ShuffleAll<SeededRow<T>>,
}

impl<T: AsRef<[u8]> + Eq> SeededShuffle<T> {
    pub fn new(row_key: RowKey) -> Self {
        SeededShuffle {
            row_key,
            rows: ShuffleAll::new(),
        }
    }

    pub fn row_key(&self) -> RowKey {
        self.row_key
    }

    pub fn push(&mut self, value: T) -> Result<(), Error> {
        let bytes = value.as_ref();
        let (key, len) = (self.row_key.of(bytes), bytes.len());
        self.rows.push(SeededRow { key, value }, len)
    }

    pub fn merge(&mut self, other: SeededShuffle<T>) -> Result<(), Error> {
        if other.row_key != self.row_key {
            return Err(Error::invalid(
                "cannot merge seeded shuffles of another seed",
            ));
        }
        self.rows.merge(other.rows)
    }

    /// The values as they came.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The value at `index`, in the order the values came.
    pub fn value(&self, index: usize) -> &T {
        &self.rows.rows[index].value
    }

    /// The (key, bytes) order as indexes (see [`SeededShuffle::value`]): what
    /// [`SeededShuffle::finish`] gives, without moving or copying the values.
    pub fn order(&self, check: &mut dyn FnMut()) -> Result<Vec<u32>, Error> {
        let rows = &self.rows.rows;
        let n = u32::try_from(rows.len())
            .map_err(|_| Error::new(ErrorKind::TooLarge, "a shuffle of more than 2^32 rows"))?;
        check_room(
            n as usize,
            size_of::<u32>(),
            &format!("a shuffle of {n} rows"),
        )?;
        let mut order: Vec<u32> = (0..n).collect();
        if rows.len() > CHECK_EVERY {
            check();
        }
        order.sort_unstable_by(|&a, &b| rows[a as usize].cmp(&rows[b as usize]));
        if rows.len() > CHECK_EVERY {
            check();
        }
        Ok(order)
    }

    /// The values in (key, bytes) order; `check` is called now and then while sorting.
    pub fn finish(self, check: &mut dyn FnMut()) -> Vec<T> {
        let mut rows = self.rows.rows;
        if rows.len() > CHECK_EVERY {
            check();
        }
        rows.sort_unstable();
        if rows.len() > CHECK_EVERY {
            check();
        }
        rows.into_iter().map(|r| r.value).collect()
    }
}

// ---------------------------------------------------------------------------------------------
// Serialized states, for parallel workers: little-endian fields, each value as its length
// (u32) and bytes.

/// Reads a serialized state, refusing anything malformed.
struct Reader<'a> {
    bytes: &'a [u8],
}

fn malformed() -> Error {
    Error::invalid("malformed serialized sample state")
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        if self.bytes.len() < n {
            return Err(malformed());
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }
    fn u64(&mut self) -> Result<u64, Error> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
    fn f64(&mut self) -> Result<f64, Error> {
        Ok(f64::from_bits(self.u64()?))
    }
    fn value(&mut self) -> Result<Value, Error> {
        let len = u32::from_le_bytes(self.take(4)?.try_into().unwrap()) as usize;
        Ok(Value::new(self.take(len)?))
    }
    /// A count of entries of at least `entry_bytes` each: a corrupt count cannot make us
    /// allocate more than the bytes that are there.
    fn count(&mut self, at_most: usize, entry_bytes: usize) -> Result<usize, Error> {
        let n = usize::try_from(self.u64()?).map_err(|_| malformed())?;
        if n > at_most || n > self.bytes.len() / entry_bytes {
            return Err(malformed());
        }
        Ok(n)
    }
    fn end(&self) -> Result<(), Error> {
        if self.bytes.is_empty() {
            Ok(())
        } else {
            Err(malformed())
        }
    }
}

fn put_value(out: &mut Vec<u8>, value: &Value) {
    let bytes = value.bytes();
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(bytes);
}

/// Which state a serialized form holds, its first byte.
const SAMPLE_TAG: u8 = 1;
const RESAMPLE_TAG: u8 = 2;
const SHUFFLE_TAG: u8 = 3;
const SEEDED_SAMPLE_TAG: u8 = 4;
const SEEDED_SHUFFLE_TAG: u8 = 5;

fn expect_tag(reader: &mut Reader<'_>, tag: u8) -> Result<(), Error> {
    if reader.take(1)? == [tag] {
        Ok(())
    } else {
        Err(malformed())
    }
}

impl Sample<Value> {
    pub fn serialize(&self, out: &mut Vec<u8>) {
        out.push(SAMPLE_TAG);
        for word in [
            self.k as u64,
            self.rows,
            self.jump.to_bits(),
            self.kept.len() as u64,
        ] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        for entry in self.kept.iter() {
            out.extend_from_slice(&entry.key.to_bits().to_le_bytes());
            put_value(out, &entry.value);
        }
    }

    pub fn deserialize(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = Reader { bytes };
        expect_tag(&mut r, SAMPLE_TAG)?;
        let k = usize::try_from(r.u64()?).map_err(|_| malformed())?;
        let (rows, jump) = (r.u64()?, r.f64()?);
        let n = r.count(k, 12)?;
        let mut kept = BinaryHeap::with_capacity(n);
        for _ in 0..n {
            let key = r.f64()?;
            if key.is_nan() {
                return Err(malformed());
            }
            kept.push(Keyed {
                key,
                value: r.value()?,
            });
        }
        r.end()?;
        Ok(Sample {
            k,
            kept,
            rows,
            jump,
        })
    }
}

impl Resample<Value> {
    pub fn serialize(&self, out: &mut Vec<u8>) {
        out.push(RESAMPLE_TAG);
        for word in [
            self.k as u64,
            self.rows,
            self.mass.to_bits(),
            self.slots.len() as u64,
        ] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        for entry in &self.slots {
            out.extend_from_slice(&entry.key.to_bits().to_le_bytes());
            put_value(out, &entry.value);
        }
    }

    /// The state, with fresh jumps for its slots (drawn from `stream`).
    pub fn deserialize(bytes: &[u8], stream: &mut Stream) -> Result<Self, Error> {
        let mut r = Reader { bytes };
        expect_tag(&mut r, RESAMPLE_TAG)?;
        let k = usize::try_from(r.u64()?).map_err(|_| malformed())?;
        // The first row fills every slot: a state from elsewhere must not claim more slots than
        // the working memory holds.
        check_room(k, ENTRY_OVERHEAD, &format!("a resample of {k} rows"))?;
        let (rows, mass) = (r.u64()?, r.f64()?);
        let n = r.count(k, 12)?;
        if n != 0 && n != k {
            return Err(malformed());
        }
        let mut slots = Vec::with_capacity(n);
        for _ in 0..n {
            let key = r.f64()?;
            if key.is_nan() {
                return Err(malformed());
            }
            slots.push(Keyed {
                key,
                value: r.value()?,
            });
        }
        r.end()?;
        let mut state = Resample {
            slots: Vec::new(),
            k,
            mass: 0.0,
            events: BinaryHeap::new(),
            rows: 0,
        };
        state.merge(
            Resample {
                slots,
                k,
                mass,
                events: BinaryHeap::new(),
                rows,
            },
            stream,
        )?;
        Ok(state)
    }
}

impl ShuffleAll<Value> {
    pub fn serialize(&self, out: &mut Vec<u8>) {
        out.push(SHUFFLE_TAG);
        out.extend_from_slice(&(self.rows.len() as u64).to_le_bytes());
        for value in &self.rows {
            put_value(out, value);
        }
    }

    pub fn deserialize(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = Reader { bytes };
        expect_tag(&mut r, SHUFFLE_TAG)?;
        let n = r.count(usize::MAX, 4)?;
        let mut state = ShuffleAll::new();
        for _ in 0..n {
            let value = r.value()?;
            let len = value.bytes().len();
            state.push(value, len)?;
        }
        r.end()?;
        Ok(state)
    }
}

/// A shuffle of values that fit a word (a by-value type's datums): serialized in the form of
/// [`ShuffleAll<Value>`], each word as its `width` low bytes, little-endian.
impl ShuffleAll<u64> {
    pub fn serialize_words(&self, width: usize, out: &mut Vec<u8>) {
        out.push(SHUFFLE_TAG);
        out.extend_from_slice(&(self.rows.len() as u64).to_le_bytes());
        for word in &self.rows {
            out.extend_from_slice(&(width as u32).to_le_bytes());
            out.extend_from_slice(&word.to_le_bytes()[..width]);
        }
    }
}

impl ShuffleAll<Value> {
    /// The same rows as words, each value `width` (at most 8) bytes long: malformed otherwise.
    pub fn into_words(self, width: usize) -> Result<ShuffleAll<u64>, Error> {
        if width > 8 {
            return Err(malformed());
        }
        let mut rows = Vec::with_capacity(self.rows.len());
        for value in &self.rows {
            let bytes = value.bytes();
            if bytes.len() != width {
                return Err(malformed());
            }
            let mut word = [0u8; 8];
            word[..width].copy_from_slice(bytes);
            rows.push(u64::from_le_bytes(word));
        }
        let bytes = rows.len() * size_of::<u64>();
        Ok(ShuffleAll {
            rows,
            bytes,
            checked: bytes,
        })
    }
}

impl SeededSample<Value> {
    pub fn serialize(&self, out: &mut Vec<u8>) {
        out.push(SEEDED_SAMPLE_TAG);
        for word in [
            self.k as u64,
            self.rows,
            self.row_key.k0,
            self.row_key.k1,
            self.kept.len() as u64,
        ] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        for row in self.kept.iter() {
            put_value(out, &row.value);
        }
    }

    pub fn deserialize(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = Reader { bytes };
        expect_tag(&mut r, SEEDED_SAMPLE_TAG)?;
        let k = usize::try_from(r.u64()?).map_err(|_| malformed())?;
        let rows = r.u64()?;
        let row_key = RowKey {
            k0: r.u64()?,
            k1: r.u64()?,
        };
        let n = r.count(k, 4)?;
        let mut kept = BinaryHeap::with_capacity(n);
        for _ in 0..n {
            let value = r.value()?;
            kept.push(SeededRow {
                key: row_key.of(value.bytes()),
                value,
            });
        }
        r.end()?;
        Ok(SeededSample {
            k,
            row_key,
            kept,
            rows,
        })
    }
}

impl SeededShuffle<Value> {
    pub fn serialize(&self, out: &mut Vec<u8>) {
        out.push(SEEDED_SHUFFLE_TAG);
        for word in [self.row_key.k0, self.row_key.k1, self.rows.len() as u64] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        for row in &self.rows.rows {
            put_value(out, &row.value);
        }
    }

    pub fn deserialize(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = Reader { bytes };
        expect_tag(&mut r, SEEDED_SHUFFLE_TAG)?;
        let row_key = RowKey {
            k0: r.u64()?,
            k1: r.u64()?,
        };
        let n = r.count(usize::MAX, 4)?;
        let mut state = SeededShuffle::new(row_key);
        for _ in 0..n {
            state.push(r.value()?)?;
        }
        r.end()?;
        Ok(state)
    }
}

/// The kind of error a malformed serialized state is, for callers that want to tell.
pub fn is_malformed(error: &Error) -> bool {
    error.kind == ErrorKind::InvalidParameter && error.message == malformed().message
}

#[cfg(test)]
mod tests;
