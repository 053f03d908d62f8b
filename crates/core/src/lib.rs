//! dealcards-core: the algorithms of dealcards, in plain Rust, with no PostgreSQL in sight.
//!
//! The ChaCha20 stream and its exact bounded draws (`rng`), Fisher-Yates (`shuffle`), sampling
//! integer ranges (`sample`), samples and shuffles of rows (`rows`), a table's rows sampled
//! slot by slot (`bernoulli`) and moving array items
//! (`items`), cards and the Dou Dizhu deal (`cards`, `deal`), provably fair deals (`fair`),
//! Microsoft FreeCell's deals (`freecell`), shuffle queues (`playlist`), orders spread by group
//! so neighbours differ (`spread`), card rooms' decks, deal plans and staged deals (`rooms`),
//! scratch buffers (`scratch`) and the errors they report (`error`). The extension crate turns
//! these into SQL functions; `cargo test` here needs no server.

pub mod bernoulli;
pub mod cards;
pub mod deal;
pub mod error;
pub mod fair;
pub mod freecell;
pub mod items;
pub mod playlist;
pub mod rng;
pub mod rooms;
pub mod rows;
pub mod sample;
pub mod scratch;
pub mod shuffle;
pub mod spread;

/// The broken shuffles of the fairness battery, which the unit tests use as negative controls,
/// drawing from this crate's own `Stream`.
#[cfg(test)]
impl dealcards_fairness::Draws for rng::Stream {
    fn below(&mut self, bound: u32) -> u32 {
        rng::Stream::below(self, bound)
    }

    fn next_u32(&mut self) -> u32 {
        rng::Stream::next_u32(self)
    }
}
