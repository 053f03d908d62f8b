//! The random stream under every shuffle: the ChaCha20 key stream of RFC 8439.
//!
//! The stream is the RFC 8439 block function with the 32-byte key, an all-zero 96-bit nonce and
//! the block counter starting at 0, read as consecutive little-endian 32-bit words. Everything
//! above the stream (bounded draws, Fisher-Yates) is our own code, so a seeded result never
//! changes when a dependency changes how it shuffles.
//!
//! Live (unseeded) streams are keyed with 256 bits from the operating system, lazily, inside the
//! backend that uses them, and are re-keyed when the process id changes: a stream made in the
//! postmaster (with `shared_preload_libraries`) would otherwise be copied into every forked
//! backend byte for byte.

use std::cell::RefCell;

use rand::rngs::SysRng;
use rand::TryRng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

use crate::error::{Error, ErrorKind};

/// Length of a seed: a ChaCha20 key.
pub const SEED_LEN: usize = 32;

/// 32 bytes from the operating system's entropy source.
pub fn os_seed() -> Result<[u8; SEED_LEN], Error> {
    let mut key = [0u8; SEED_LEN];
    SysRng.try_fill_bytes(&mut key).map_err(|e| {
        Error::new(
            ErrorKind::Entropy,
            format!("could not read entropy from the operating system: {e}"),
        )
    })?;
    Ok(key)
}

/// A ChaCha20 key stream with exact, unbiased bounded draws on top.
pub struct Stream {
    chacha: ChaCha20Rng,
}

impl Stream {
    /// The replayable stream of a 32-byte seed.
    pub fn from_seed(seed: [u8; SEED_LEN]) -> Self {
        Stream {
            chacha: ChaCha20Rng::from_seed(seed),
        }
    }

    /// Checks a seed given as bytes and makes its stream.
    pub fn from_seed_bytes(seed: &[u8]) -> Result<Self, Error> {
        let key: [u8; SEED_LEN] = seed.try_into().map_err(|_| {
            Error::invalid(format!(
                "seed must be exactly {SEED_LEN} bytes, got {}",
                seed.len()
            ))
        })?;
        Ok(Stream::from_seed(key))
    }

    /// A stream keyed with 256 bits from the operating system.
    pub fn from_os() -> Result<Self, Error> {
        Ok(Stream::from_seed(os_seed()?))
    }

    /// The next 32-bit word of the key stream.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        self.chacha.next_u32()
    }

    /// The next 64-bit value: two words, the first one the low half. (rand_chacha reads the
    /// pair from its buffer at once; `next_u64_is_low_word_first` pins that it is exactly
    /// this, as do the golden outputs.)
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.chacha.next_u64()
    }

    /// A uniform integer in `0..bound` (`bound >= 1`), without modulo bias.
    ///
    /// Lemire's multiply-and-reject (ACM TOMACS 2019): the 64-bit product of a word and `bound`
    /// has its high half in `0..bound`; products whose low half falls below
    /// `2^32 mod bound` are the surplus that makes plain scaling biased, and are drawn again.
    /// Every result then stands for exactly `floor(2^32 / bound)` words.
    #[inline]
    pub fn below(&mut self, bound: u32) -> u32 {
        debug_assert!(bound >= 1);
        let mut product = self.next_u32() as u64 * bound as u64;
        let mut low = product as u32;
        if low < bound {
            let threshold = bound.wrapping_neg() % bound;
            while low < threshold {
                product = self.next_u32() as u64 * bound as u64;
                low = product as u32;
            }
        }
        (product >> 32) as u32
    }

    /// A uniform integer in `0..bound` (`bound >= 1`) for 64-bit bounds. Bounds that fit in 32
    /// bits use [`Stream::below`], so the two agree there; larger ones use the same method on
    /// 64-bit values from [`Stream::next_u64`] with a 128-bit product.
    #[inline(always)]
    pub fn below_u64(&mut self, bound: u64) -> u64 {
        debug_assert!(bound >= 1);
        if let Ok(small) = u32::try_from(bound) {
            return self.below(small) as u64;
        }
        let mut product = self.next_u64() as u128 * bound as u128;
        let mut low = product as u64;
        if low < bound {
            let threshold = bound.wrapping_neg() % bound;
            while low < threshold {
                product = self.next_u64() as u128 * bound as u128;
                low = product as u64;
            }
        }
        (product >> 64) as u64
    }
}

thread_local! {
    /// This backend's live stream and the process id it was keyed in.
    static LIVE: RefCell<Option<(u32, Stream)>> = const { RefCell::new(None) };
}

/// Runs `f` with this process's live, OS-keyed stream, keying it on first use.
///
/// The stream is taken out of its slot while `f` runs, so a call made from inside `f` (a trigger
/// that runs dealcards SQL in the middle of a queue step) finds the slot empty and keys a stream
/// of its own, instead of meeting a borrow. A stream whose call was cut short by an error is
/// dropped, and the next call keys a fresh one.
pub fn with_live<R>(f: impl FnOnce(&mut Stream) -> R) -> Result<R, Error> {
    with_live_in(std::process::id(), f)
}

/// [`with_live`] for a caller that knows its process id without asking the kernel (a Postgres
/// backend has it in MyProcPid): `pid` must be the id of the calling process.
pub fn with_live_in<R>(pid: u32, f: impl FnOnce(&mut Stream) -> R) -> Result<R, Error> {
    let mut stream = match LIVE.with_borrow_mut(Option::take) {
        Some((owner, stream)) if owner == pid => stream,
        _ => Stream::from_os()?,
    };
    let result = f(&mut stream);
    LIVE.with_borrow_mut(|slot| *slot = Some((pid, stream)));
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words_as_bytes(stream: &mut Stream, words: usize) -> Vec<u8> {
        (0..words)
            .flat_map(|_| stream.next_u32().to_le_bytes())
            .collect()
    }

    #[test]
    fn stream_is_rfc8439_block_function_with_zero_nonce() {
        // RFC 8439 appendix A.1, test vector #1: key 0, nonce 0, block counter 0.
        let mut stream = Stream::from_seed([0; 32]);
        assert_eq!(
            hex::encode(words_as_bytes(&mut stream, 16)),
            "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7\
             da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586"
        );
        // Test vector #2: the same key and nonce, block counter 1, is the next block.
        assert_eq!(
            hex::encode(words_as_bytes(&mut stream, 16)),
            "9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed\
             29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f"
        );
    }

    #[test]
    fn next_u64_is_low_word_first() {
        // Pairs starting at even and odd words, across many refills of the generator's buffer
        // (where a pair may straddle two blocks).
        for skip in [0, 1] {
            let mut words = Stream::from_seed([7; 32]);
            let mut pairs = Stream::from_seed([7; 32]);
            for _ in 0..skip {
                assert_eq!(pairs.next_u32(), words.next_u32());
            }
            for _ in 0..1000 {
                let (low, high) = (words.next_u32() as u64, words.next_u32() as u64);
                assert_eq!(pairs.next_u64(), low | high << 32);
            }
        }
    }

    #[test]
    fn below_stays_in_bounds_and_reaches_every_value() {
        let mut stream = Stream::from_seed([1; 32]);
        for bound in [1u32, 2, 3, 7, 54, 1000] {
            let mut seen = vec![false; bound as usize];
            for _ in 0..(bound * 50) {
                let v = stream.below(bound);
                assert!(v < bound);
                seen[v as usize] = true;
            }
            assert!(seen.iter().all(|s| *s), "bound {bound} missed a value");
        }
        for _ in 0..1000 {
            assert!(stream.below(u32::MAX) < u32::MAX);
        }
    }

    #[test]
    fn below_rejects_exactly_the_surplus_words() {
        // With bound 2^31 + 1 almost half of all words are surplus: 2^32 mod bound = 2^31 - 1.
        // A draw that accepted them would return 0 for about half the words; count how often the
        // first word of a stream would have been scaled to a value whose low half is in the
        // surplus, and check the drawn value never comes from such a word.
        let bound = (1u32 << 31) + 1;
        let threshold = bound.wrapping_neg() % bound;
        assert_eq!(threshold, (1u32 << 31) - 1);
        for seed in 0..200u8 {
            let mut peek = Stream::from_seed([seed; 32]);
            let mut draw = Stream::from_seed([seed; 32]);
            let mut expected = None;
            while expected.is_none() {
                let product = peek.next_u32() as u64 * bound as u64;
                if (product as u32) >= threshold {
                    expected = Some((product >> 32) as u32);
                }
            }
            assert_eq!(draw.below(bound), expected.unwrap());
        }
    }

    #[test]
    fn below_u64_agrees_with_below_on_small_bounds() {
        let mut a = Stream::from_seed([3; 32]);
        let mut b = Stream::from_seed([3; 32]);
        for bound in [1u32, 5, 54, u32::MAX] {
            assert_eq!(a.below_u64(bound as u64), b.below(bound) as u64);
        }
        let big = (1u64 << 40) + 17;
        for _ in 0..1000 {
            assert!(a.below_u64(big) < big);
        }
        assert!(a.below_u64(u64::MAX) < u64::MAX);
    }

    #[test]
    fn seed_must_be_32_bytes() {
        assert!(Stream::from_seed_bytes(&[0; 32]).is_ok());
        let err = Stream::from_seed_bytes(&[0; 31]).err().unwrap();
        assert_eq!(err.kind, ErrorKind::InvalidParameter);
        assert_eq!(err.message, "seed must be exactly 32 bytes, got 31");
    }

    #[test]
    fn live_streams_differ_from_each_other() {
        let mut a = Stream::from_os().unwrap();
        let mut b = Stream::from_os().unwrap();
        let first: Vec<u32> = (0..8).map(|_| a.next_u32()).collect();
        let second: Vec<u32> = (0..8).map(|_| b.next_u32()).collect();
        assert_ne!(first, second);
        let one = with_live(|s| s.next_u64()).unwrap();
        let two = with_live(|s| s.next_u64()).unwrap();
        assert_ne!(one, two);
    }

    #[test]
    fn a_call_from_inside_a_call_gets_a_stream_of_its_own() {
        let (outer, inner) = with_live(|outer| {
            let inner = with_live(|inner| (0..4).map(|_| inner.next_u64()).collect::<Vec<_>>());
            ((0..4).map(|_| outer.next_u64()).collect::<Vec<_>>(), inner)
        })
        .unwrap();
        assert_ne!(outer, inner.unwrap());
        assert!(
            LIVE.with_borrow(|slot| slot.is_some()),
            "the stream is back in its slot"
        );
    }
}
