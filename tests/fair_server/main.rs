#![cfg(feature = "server_tests")]
//! Provably fair desks (docs/provably_fair.md) through real client connections:
//!   - an unrevealed server seed never reaches a game server's role, by any route it has (the
//!     functions' results, errors and notices, notifications, the views, the statistics views,
//!     pg_dump, a reveal it undoes in any way), and once revealed it matches its commitment and
//!     recomputes every game;
//!   - deals cannot be steered (a house seat's seed is fixed with the commitment) or ground
//!     (dealt, undone and dealt again with other inputs), a seed counts for its round, seat and
//!     player only, and history cannot be rewritten by the game server, nor unseen by a
//!     superuser: the players' receipts catch it;
//!   - every stored game recomputes from the revealed seed, and a changed or deleted game fails
//!     verification;
//!   - each misuse gets its SQLSTATE;
//!   - many connections dealing, changing client seeds and revealing at once never reuse a nonce
//!     and leave a history that verifies;
//!   - a dump and restore keeps the commitment in force, its nonce and its seed;
//!   - a copy of the database deals nothing under the round in force when it was copied until
//!     that round is revealed there.
//!
//! Run by `make test` against its throwaway cluster (needs DEALCARDS_TEST_DSN, and
//! DEALCARDS_PG_BIN for pg_dump and pg_restore).
//!
//! One module per concern; the shared helpers are in `desks` (fair desks, deals, verification),
//! `grants` (a game server's role) and `secrecy` (what such a role received, and the seeds it
//! must not find there).

#[path = "../server/mod.rs"]
mod server;

mod desks;
mod grants;
mod secrecy;

mod bound;
mod concurrency;
mod copies;
mod default_deadline;
mod dump_restore;
mod early_end;
mod forked;
mod grinding;
mod history;
mod misuse;
mod owner_objects;
mod preview;
mod recompute;
mod replaced_player;
mod reveal;
mod rewritten_desks;
mod roles;
mod rollback_reveal;
mod secrecy_dump;
mod secrecy_refusals;
mod secrecy_results;
mod secrecy_statistics;
mod shadow_desks;
mod steering;
mod waiting_deals;
