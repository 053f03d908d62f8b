#![cfg(feature = "server_tests")]
//! Card rooms' hands (docs/card_rooms.md) through real client connections, as a game server's
//! role with exactly the grants the docs give:
//!   - each stage and draw deals the cards the core's `Hand` deals for the hand's key (read here
//!     as the tables' owner), every card once: a nine-seat Hold'em hand, a bridge board, a
//!     blackjack shoe to its cut card, a riichi deal with its dead wall;
//!   - the game server sees no card before the call's transaction commits (tables, a view of
//!     its own, results, errors), never reads a key, and a rollback deals the same cards again;
//!   - two sessions dealing one hand take turns, and a stage is dealt once;
//!   - each bad call gets its SQLSTATE and changes nothing;
//!   - a dump keeps the hands, their cards and keys.
//!
//! Run by `make test` against its throwaway cluster (needs DEALCARDS_TEST_DSN).

#[path = "../server/mod.rs"]
mod server;

mod hands;

mod concurrency;
mod deals;
mod errors;
mod plans;
mod restore;
mod unseen;
