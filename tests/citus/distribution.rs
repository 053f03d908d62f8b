//! One step distributes everything (dealcards_distribute()), by keys that include the
//! distribution column.

use std::collections::BTreeMap;

use postgres::Client;

use crate::cluster::{changing_topology, distributed};

/// The functions dealcards_distribute() distributes, with the table they are colocated with.
pub const DISTRIBUTED_FUNCTIONS: [(&str, &str); 33] = [
    ("deal_cards(integer)", "desk"),
    (
        "fair_mode_on(integer,integer[],boolean,bigint,interval)",
        "desk",
    ),
    ("fair_mode_off(integer)", "desk"),
    (
        "fair_reveal(integer,integer[],boolean,bigint,interval)",
        "desk",
    ),
    ("set_client_seed(integer,integer,text)", "desk"),
    ("fair_verify_desk(integer)", "desk"),
    ("fair_publication(integer)", "desk"),
    ("shuffle_queue_next(bigint)", "shuffle_queue"),
    ("shuffle_queue_prev(bigint)", "shuffle_queue"),
    ("shuffle_queue_current(bigint)", "shuffle_queue"),
    ("shuffle_queue_add(bigint,bigint)", "shuffle_queue"),
    ("shuffle_queue_remove(bigint,bigint)", "shuffle_queue"),
    ("shuffle_queue_drop(bigint)", "shuffle_queue"),
    (
        "shuffle_queue_add(bigint,bigint,text,text)",
        "shuffle_queue",
    ),
    ("shuffle_queue_play_next(bigint,bigint[])", "shuffle_queue"),
    ("shuffle_queue_play_later(bigint,bigint[])", "shuffle_queue"),
    ("shuffle_queue_up_next(bigint)", "shuffle_queue"),
    ("shuffle_queue_clear_up_next(bigint)", "shuffle_queue"),
    ("shuffle_queue_jump(bigint,bigint)", "shuffle_queue"),
    (
        "shuffle_queue_skip_when_shuffling(bigint,bigint,boolean)",
        "shuffle_queue",
    ),
    ("shuffle_queue_save(bigint)", "shuffle_queue"),
    ("shuffle_queue_add(bigint,bigint,integer)", "shuffle_queue"),
    (
        "shuffle_queue_upcoming(bigint,integer,integer)",
        "shuffle_queue",
    ),
    ("shuffle_queue_skip(bigint)", "shuffle_queue"),
    (
        "shuffle_queue_played(bigint,integer,integer)",
        "shuffle_queue",
    ),
    ("shuffle_queue_now(bigint,integer)", "shuffle_queue"),
    ("shuffle_queue_add_many(bigint,bigint[])", "shuffle_queue"),
    (
        "shuffle_queue_add_many(bigint,bigint[],integer[])",
        "shuffle_queue",
    ),
    (
        "shuffle_queue_remove_many(bigint,bigint[])",
        "shuffle_queue",
    ),
    ("hand_deal(bigint,text)", "room_hand"),
    ("hand_draw(bigint,integer,integer)", "room_hand"),
    ("hand_end(bigint)", "room_hand"),
    ("hand_pbn(bigint)", "room_hand"),
];

/// The tables, with their distribution column and the table they are colocated with.
const DISTRIBUTED_TABLES: [(&str, &str, &str); 19] = [
    ("fair_seed", "desk_id", "fair_seed"),
    ("desk", "desk_id", "fair_seed"),
    ("desk_player", "desk_id", "desk"),
    ("game", "desk_id", "desk"),
    ("bid_record", "desk_id", "desk"),
    ("note", "desk_id", "desk"),
    ("shuffle_queue", "queue_id", "shuffle_queue"),
    ("shuffle_queue_track", "queue_id", "shuffle_queue"),
    ("shuffle_queue_unit", "queue_id", "shuffle_queue"),
    ("shuffle_queue_member", "queue_id", "shuffle_queue"),
    ("shuffle_queue_up_next", "queue_id", "shuffle_queue"),
    ("shuffle_queue_skipped", "queue_id", "shuffle_queue"),
    ("shuffle_queue_weight", "queue_id", "shuffle_queue"),
    ("shuffle_queue_play", "queue_id", "shuffle_queue"),
    ("shuffle_queue_ahead", "queue_id", "shuffle_queue"),
    ("shuffle_queue_album", "queue_id", "shuffle_queue"),
    ("room_hand", "hand_id", "room_hand"),
    ("room_card", "hand_id", "room_hand"),
    ("room_hand_key", "hand_id", "room_hand"),
];

#[test]
fn dealcards_distribute_distributes_tables_and_functions() {
    let mut c = distributed();
    let _topology = changing_topology();
    // A second call (distributed() made the first) does not fail, and lists what it distributed.
    let listed: Vec<(String, String, Option<String>)> = c
        .query("SELECT * FROM dealcards_distribute()", &[])
        .unwrap_or_else(|e| panic!("dealcards_distribute() again: {e}"))
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    let mut expected: Vec<(String, String, Option<String>)> = DISTRIBUTED_TABLES
        .iter()
        .map(|(t, col, with)| {
            let with = (t != with).then(|| with.to_string());
            (t.to_string(), col.to_string(), with)
        })
        .collect();
    expected.extend(DISTRIBUTED_FUNCTIONS.iter().map(|(f, with)| {
        (
            f.replace(',', ", "),
            "$1".to_string(),
            Some(with.to_string()),
        )
    }));
    assert_eq!(listed, expected, "dealcards_distribute()'s rows");

    // pg_dist_partition: hash-distributed by their column, in two colocation groups.
    let mut colocation = BTreeMap::<&str, i32>::new();
    for (table, column, with) in DISTRIBUTED_TABLES {
        let row = c
            .query_opt(
                "SELECT partmethod::text, column_to_column_name(logicalrelid, partkey), colocationid
                   FROM pg_dist_partition WHERE logicalrelid = $1::text::regclass",
                &[&table],
            )
            .unwrap()
            .unwrap_or_else(|| panic!("{table} is not distributed"));
        assert_eq!(row.get::<_, String>(0), "h", "{table} by hash");
        assert_eq!(
            row.get::<_, String>(1),
            column,
            "{table}'s distribution column"
        );
        let group: i32 = row.get(2);
        assert_eq!(
            *colocation.entry(with).or_insert(group),
            group,
            "{table} is not colocated with {with}"
        );
    }
    assert_eq!(
        colocation["desk"], colocation["fair_seed"],
        "desks and their seeds are not colocated"
    );
    assert_ne!(
        colocation["desk"], colocation["shuffle_queue"],
        "desks and queues share a colocation group"
    );

    check_each_function_is_distributed_by_its_desk_or_queue(&mut c, &colocation);
}

/// pg_dist_object: each function by its first argument, colocated, force_delegation.
fn check_each_function_is_distributed_by_its_desk_or_queue(
    c: &mut Client,
    colocation: &BTreeMap<&str, i32>,
) {
    for (function, with) in DISTRIBUTED_FUNCTIONS {
        let row = c
            .query_opt(
                "SELECT o.distribution_argument_index, o.colocationid, o.force_delegation
                   FROM pg_dist_object o
                  WHERE o.classid = 'pg_proc'::regclass AND o.objid = $1::text::regprocedure",
                &[&function],
            )
            .unwrap()
            .unwrap_or_else(|| panic!("{function} is not distributed"));
        let (index, group, forced): (Option<i32>, Option<i32>, Option<bool>) =
            (row.get(0), row.get(1), row.get(2));
        assert_eq!(index, Some(0), "{function}: distribution argument");
        assert_eq!(
            group,
            Some(colocation[with]),
            "{function}: colocated with {with}"
        );
        assert_eq!(forced, Some(true), "{function}: force_delegation");
    }
}

#[test]
fn every_key_includes_the_distribution_column() {
    let mut c = distributed();
    // Every table of the extension, its distribution column, and each unique index (primary
    // keys and unique constraints included) that lacks it.
    let tables: BTreeMap<String, Option<String>> = c
        .query(
            "SELECT c.relname::text, column_to_column_name(p.logicalrelid, p.partkey)
               FROM pg_depend d
               JOIN pg_class c ON d.classid = 'pg_class'::regclass AND c.oid = d.objid
               JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'dealcards'
               LEFT JOIN pg_dist_partition p ON p.logicalrelid = c.oid
              WHERE d.deptype = 'e' AND c.relkind IN ('r', 'p')",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let mut expected: BTreeMap<String, Option<String>> = DISTRIBUTED_TABLES
        .iter()
        .map(|(t, col, _)| (t.to_string(), Some(col.to_string())))
        .collect();
    // What ALTER TABLE set on the node's tables (docs/operations.md): each node keeps its own;
    // and the server's token that rounds record, a reference table of the coordinator's row.
    let own = ["dealcards_table_setting", "dealcards_instance"];
    for table in own {
        expected.insert(table.into(), None);
    }
    assert_eq!(
        tables, expected,
        "the extension's tables and their distribution"
    );
    for table in own {
        expected.remove(table);
    }
    let unique = c
        .query(
            "SELECT c.relname::text, i.indexrelid::regclass::text, a.attname::text,
                    a.attnum = ANY (string_to_array(i.indkey::text, ' ')::int2[])
               FROM pg_dist_partition p
               JOIN pg_class c ON c.oid = p.logicalrelid
               JOIN pg_attribute a ON a.attrelid = c.oid
                AND a.attname = column_to_column_name(p.logicalrelid, p.partkey)
               JOIN pg_index i ON i.indrelid = c.oid AND i.indisunique
              WHERE c.relname = ANY ($1)",
            &[&expected.keys().collect::<Vec<_>>()],
        )
        .unwrap();
    let lacking: Vec<String> = unique
        .iter()
        .filter(|r| !r.get::<_, bool>(3))
        .map(|r| {
            format!(
                "{} ({} lacks {})",
                r.get::<_, String>(0),
                r.get::<_, String>(1),
                r.get::<_, String>(2)
            )
        })
        .collect();
    assert!(
        lacking.is_empty(),
        "unique indexes without the distribution column: {lacking:?}"
    );
    // desk, desk_player (2), game, bid_record, note, fair_seed (2), shuffle_queue, its tracks.
    assert!(unique.len() >= 10, "only {} unique indexes", unique.len());
    check_the_constraints_say_the_same(&mut c, &expected);
}

/// The primary key and unique constraints of the distributed tables (`expected`) each hold the
/// distribution column.
fn check_the_constraints_say_the_same(c: &mut Client, expected: &BTreeMap<String, Option<String>>) {
    let constraints = c
        .query(
            "SELECT c.relname::text, k.conname::text
               FROM pg_constraint k
               JOIN pg_class c ON c.oid = k.conrelid
               JOIN pg_dist_partition p ON p.logicalrelid = c.oid
               JOIN pg_attribute a ON a.attrelid = c.oid
                AND a.attname = column_to_column_name(p.logicalrelid, p.partkey)
              WHERE k.contype IN ('p', 'u') AND c.relname = ANY ($1)
                AND NOT a.attnum = ANY (k.conkey)",
            &[&expected.keys().collect::<Vec<_>>()],
        )
        .unwrap();
    assert!(
        constraints.is_empty(),
        "constraints without the distribution column: {:?}",
        constraints
            .iter()
            .map(|r| r.get::<_, String>(1))
            .collect::<Vec<_>>()
    );
}

/// dealcards_sync_sequences() sets a single server's sequences from its tables: on a cluster,
/// where each node numbers its games and queues from a range of its own, it refuses (0A000)
/// before it reads or sets anything.
#[test]
fn syncing_the_sequences_is_refused_on_a_cluster() {
    let mut c = distributed();
    let e = c
        .query("SELECT * FROM dealcards_sync_sequences()", &[])
        .expect_err("dealcards_sync_sequences() ran on a distributed cluster");
    let db = e.as_db_error().unwrap_or_else(|| panic!("{e}"));
    assert_eq!(db.code().code(), "0A000", "{}", db.message());
    assert!(db.message().contains("distributed"), "{}", db.message());
}
