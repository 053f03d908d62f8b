//! The extension's functions as the catalog lists them (pg_proc, and the extension's membership
//! in pg_depend), and which of them run no statements: what tests that must cover every
//! statement-running function derive their lists from, so that a new function fails them until
//! it is covered or listed here.

use std::collections::BTreeSet;

use postgres::Client;

/// The extension's functions that run no statements: they compute their result from their
/// arguments alone (in src/ none takes `fcinfo` to find the extension's schema, none uses
/// crate::statements or Spi), so no name in them resolves through a search_path and none touches
/// the extension's tables. Every overload of a name is meant (shuffle_ints with and without a
/// seed, ...).
pub const PURE_FUNCTIONS: [&str; 40] = [
    "card_label",
    "dealcards_written_here",
    "deal_hands",
    "fair_deal",
    "freecell_board",
    "freecell_cards",
    "freecell_layout",
    "hand_labels",
    "sample_array",
    "sample_ints",
    "shuffle_array",
    "shuffle_ints",
    "shuffle_spread",
    "sort_hand",
    // The row aggregates and their support functions (docs/rows.md).
    "resample_agg",
    "resample_agg_step",
    "rows_agg_combine",
    "rows_agg_deserialize",
    "rows_agg_final",
    "rows_agg_final_int2",
    "rows_agg_final_int4",
    "rows_agg_final_int8",
    "rows_agg_final_text",
    "rows_agg_final_uuid",
    "rows_agg_serialize",
    "rows_agg_state_in",
    "rows_agg_state_out",
    "rows_agg_state_recv",
    "rows_agg_state_send",
    "sample_agg",
    "sample_agg_seeded",
    "sample_agg_seeded_step",
    "sample_agg_step",
    "shuffle_agg",
    "shuffle_agg_seeded",
    "shuffle_agg_seeded_step",
    "shuffle_agg_step",
    // The seeded order key (docs/rows.md): it takes `fcinfo` only to keep its seed's key.
    "shuffle_key",
    // The handler of TABLESAMPLE sparse_bernoulli: it reads the sampled table through the scan
    // PostgreSQL runs, no statements.
    "sparse_bernoulli",
    // The kinds of hand a card room deals (docs/card_rooms.md): built from the core, no tables.
    "room_kinds",
];

/// The members of the extension that are functions, as (name, `name(argument types)`), from
/// pg_proc joined with pg_depend where the function depends on the dealcards extension by
/// membership (deptype 'e'), in the database `client` is connected to.
pub fn extension_functions(client: &mut Client) -> Vec<(String, String)> {
    client
        .query(
            "SELECT p.proname::text, p.oid::regprocedure::text
               FROM pg_catalog.pg_proc p
               JOIN pg_catalog.pg_depend d
                 ON d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND d.objid = p.oid
                AND d.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass
                AND d.refobjid = (SELECT oid FROM pg_catalog.pg_extension WHERE extname = 'dealcards')
                AND d.deptype = 'e'
              ORDER BY 2",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect()
}

/// The names of the extension's functions that run statements: every function of the
/// extension whose name is not in [`PURE_FUNCTIONS`]. Panics when a name listed there is no
/// longer a function of the extension (the list must not keep stale names).
pub fn statement_running_functions(client: &mut Client) -> BTreeSet<String> {
    let names: BTreeSet<String> = extension_functions(client)
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    assert!(!names.is_empty(), "the extension has no functions here");
    let stale: Vec<&str> = PURE_FUNCTIONS
        .iter()
        .copied()
        .filter(|f| !names.contains(*f))
        .collect();
    assert!(
        stale.is_empty(),
        "PURE_FUNCTIONS names what is not a function of the extension: {stale:?}"
    );
    names
        .into_iter()
        .filter(|n| !PURE_FUNCTIONS.contains(&n.as_str()))
        .collect()
}

/// The functions one calls by name (aggregates included), of the extension in the database
/// `client` is connected to: not the support functions of its aggregates and types, nor its
/// triggers' and event triggers'. What the tests that call every function of the extension
/// list (tests/ops/standby.rs, tests/ops/pg_upgrade.rs), so that a new function fails them until
/// they call it.
pub fn callable_functions(client: &mut Client) -> BTreeSet<String> {
    client
        .query(
            "SELECT DISTINCT p.proname::text
               FROM pg_catalog.pg_depend d
               JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid AND e.extname = 'dealcards'
               JOIN pg_catalog.pg_proc p ON p.oid = d.objid
              WHERE d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND d.deptype = 'e'
                AND p.prorettype NOT IN ('pg_catalog.event_trigger'::pg_catalog.regtype,
                                         'pg_catalog.trigger'::pg_catalog.regtype)
                AND NOT EXISTS (SELECT FROM pg_catalog.pg_aggregate a
                                 WHERE p.oid IN (a.aggtransfn, a.aggfinalfn, a.aggcombinefn,
                                                 a.aggserialfn, a.aggdeserialfn))
                AND NOT EXISTS (SELECT FROM pg_catalog.pg_type t
                                 WHERE p.oid IN (t.typinput, t.typoutput, t.typreceive,
                                                 t.typsend))",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect()
}
