//! shuffle_ints: a fair permutation of an integer range, live or replayable.

use pgrx::prelude::*;

use crate::results::IntArray;
use crate::{check_for_interrupts, ok_or_raise};
use dealcards_core::rng::Stream;
use dealcards_core::shuffle::{permute_range, range_len};

fn permutation(lo: i32, hi: i32, stream: &mut Stream) -> IntArray<i32> {
    let len = ok_or_raise(range_len(lo, hi));
    ok_or_raise(IntArray::build(len, |out| {
        permute_range(out, lo, stream, &mut check_for_interrupts)
    }))
}

/// A uniformly random permutation of lo..hi from this backend's OS-keyed ChaCha20 stream.
#[pg_extern(volatile, strict, parallel_safe)]
fn shuffle_ints(lo: i32, hi: i32) -> IntArray<i32> {
    // Validate before touching the generator, so bad input never keys one.
    ok_or_raise(range_len(lo, hi));
    ok_or_raise(crate::with_live(|stream| permutation(lo, hi, stream)))
}

/// The replayable permutation of lo..hi for a 32-byte seed (specified in docs/shuffle_ints.md).
#[pg_extern(immutable, strict, parallel_safe, name = "shuffle_ints")]
fn shuffle_ints_seeded(lo: i32, hi: i32, seed: &[u8]) -> IntArray<i32> {
    let mut stream = ok_or_raise(Stream::from_seed_bytes(seed));
    permutation(lo, hi, &mut stream)
}

#[cfg(any(test, feature = "pg_test"))]
#[pg_schema]
mod tests {
    use pgrx::prelude::*;

    fn ints(sql: &str) -> Vec<i32> {
        Spi::get_one::<Vec<i32>>(sql).unwrap().unwrap()
    }

    #[pg_test]
    fn shuffle_ints_is_a_permutation() {
        let mut p = ints("SELECT shuffle_ints(-3, 50)");
        p.sort_unstable();
        assert_eq!(p, (-3..=50).collect::<Vec<_>>());
    }

    #[pg_test]
    fn two_calls_differ() {
        assert_ne!(
            ints("SELECT shuffle_ints(1, 54)"),
            ints("SELECT shuffle_ints(1, 54)")
        );
    }

    #[pg_test]
    fn seeded_replays() {
        let sql = "SELECT shuffle_ints(1, 54, decode(repeat('ab', 32), 'hex'))";
        assert_eq!(ints(sql), ints(sql));
    }

    #[pg_test]
    fn array_is_a_normal_int4_array() {
        let (lower, upper, dims) = Spi::get_three::<i32, i32, String>(
            "SELECT array_lower(a, 1), array_upper(a, 1), array_dims(a) FROM (SELECT shuffle_ints(10, 19) a) t",
        )
        .unwrap();
        assert_eq!(
            (lower, upper, dims.as_deref()),
            (Some(1), Some(10), Some("[1:10]"))
        );
        let sum = Spi::get_one::<i64>("SELECT sum(x) FROM unnest(shuffle_ints(1, 100)) x").unwrap();
        assert_eq!(sum, Some(5050));
    }

    #[pg_test]
    #[should_panic(expected = "lower bound 2 is greater than upper bound 1")]
    fn reversed_bounds_are_rejected() {
        Spi::run("SELECT shuffle_ints(2, 1)").unwrap();
    }

    #[pg_test]
    fn null_in_null_out() {
        let result = Spi::get_one::<Vec<i32>>("SELECT shuffle_ints(NULL, 5)").unwrap();
        assert_eq!(result, None);
    }
}
