//! Which release's tables a database has: the one place that knows.
//!
//! The library of a release serves a database still on the tables of an earlier release until
//! `ALTER EXTENSION dealcards UPDATE` (the old functions call the new library). Only the desk
//! and provably fair tables changed in ways the statements must follow; feature code asks
//! [`Tables::of`] and runs the statements those tables take. The queue tables are the same in
//! every release.

use crate::statements::{relation_row_security, ExtensionSchema};

/// The desk tables a database has, by the release that introduced them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tables {
    /// 0.1.0 and 0.2.0: no provably fair columns on desk and game, no fair_seed.
    Before0_3,
    /// 0.3.0: provably fair columns; a desk's round is not tied to an unrevealed fair_seed row,
    /// so a backend cannot keep a round's seed between deals.
    Before0_4,
    /// 0.4.0: desk_fair_round_fkey ties a desk to an unrevealed round of its own; client seeds
    /// are kept in desk_player, and rounds have no rules.
    Before0_5,
    /// 0.5.0 and 0.6.0: rounds have their rules (protocol, house seats, seeds required), and a
    /// seat's client seed names the round it answers (desk_player.seed_round).
    Before0_7,
    /// 0.7.0 and later: row level security on game, bid_record and note hides a deal's rows
    /// from every role but the tables' owner until the dealing transaction commits.
    Current,
}

impl Tables {
    /// The tables of `schema`'s extension, from the catalog caches: three lookups for current
    /// tables (the common case, asked on every deal), more for older ones.
    pub fn of(schema: &ExtensionSchema) -> Tables {
        if schema.has_column(c"fair_seed", c"protocol") {
            match schema.relation(c"game") {
                Some(game) if relation_row_security(game) => Tables::Current,
                _ => Tables::Before0_7,
            }
        } else if schema.has_column(c"fair_seed", c"unrevealed_round") {
            Tables::Before0_5
        } else if schema.has_column(c"desk", c"fair_round") {
            Tables::Before0_4
        } else {
            Tables::Before0_3
        }
    }

    /// Whether desk and game have the provably fair columns.
    pub fn fair_columns(self) -> bool {
        self >= Tables::Before0_4
    }

    /// Whether a desk can name only an unrevealed round of its own, with that round's
    /// commitment: what lets a backend keep a round's seed.
    pub fn rounds_are_keyed(self) -> bool {
        self >= Tables::Before0_5
    }

    /// Whether rounds have their rules and seats' client seeds name their round (0.5.0 on).
    pub fn round_rules(self) -> bool {
        self >= Tables::Before0_7
    }

    /// Whether a provably fair deal's rows are hidden from every role but the tables' owner
    /// until its transaction commits, so that what the deal returns must not show them either.
    pub fn deals_unseen(self) -> bool {
        self >= Tables::Current
    }
}
