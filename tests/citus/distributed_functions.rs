//! Read from the catalog: every function of the extension that runs statements is distributed
//! by its desk, queue or hand (but a few, listed with why), and each distributed one is called by a
//! test of this suite.

use std::collections::{BTreeMap, BTreeSet};

use postgres::Client;

use crate::cluster::distributed;
use crate::distribution::DISTRIBUTED_FUNCTIONS;
use crate::server;

/// The extension's functions that run statements on its tables but are distributed by no
/// argument, each with why. Every other function that runs statements must be distributed by
/// its first argument, a desk or a queue.
const NOT_DISTRIBUTED: [(&str, &str); 16] = [
    (
        "hand_start",
        "a new hand has no id to route by: the coordinator sends its inserts to the worker of \
         the hand's new id",
    ),
    (
        "shuffle_queue_create",
        "a new queue has no id to route by: the coordinator sends each insert to the worker of \
         the queue's new id",
    ),
    (
        "shuffle_queue_new",
        "a new queue has no id to route by, as for shuffle_queue_create",
    ),
    (
        "shuffle_queue_new_albums",
        "a new queue of albums has no id to route by, as for shuffle_queue_create",
    ),
    (
        "shuffle_queue_restore",
        "a restored queue is a new queue, with no id to route by, as for shuffle_queue_create",
    ),
    (
        "shuffle_queue_forget",
        "by a listener, who is not a queue: the coordinator deletes the listener's plays from \
         every shard of their queues",
    ),
    (
        "fair_verify_game",
        "by a game id, which does not name the desk: it runs on the coordinator, which asks the \
         desks' shards for the game",
    ),
    (
        "fair_receipt",
        "by a game id, as for fair_verify_game: it runs on the coordinator, which asks the \
         desks' shards for the game",
    ),
    (
        "dealcards_distribute",
        "the coordinator's own step, which distributes the rest",
    ),
    (
        "dealcards_sync_sequences",
        "a single server's step after a switch-over: on a cluster, where each node numbers from \
         a range of its own, it refuses (distribution.rs)",
    ),
    (
        "dealcards_check",
        "by no desk: it looks over every desk and seat, on the coordinator, which asks every \
         shard",
    ),
    (
        "sample_rows",
        "by a table's row type, not by a desk or queue: it samples any table, and Citus pushes its \
         TABLESAMPLE to the table's shards",
    ),
    (
        "dealcards_keep_table_columns",
        "an event trigger, run by ALTER TABLE on whichever node it runs",
    ),
    (
        "dealcards_keep_table_objects",
        "an event trigger, run by ALTER TABLE and CREATE INDEX, TRIGGER, RULE, POLICY and \
         STATISTICS on whichever node it runs",
    ),
    (
        "dealcards_keep_table_settings",
        "an event trigger, run by ALTER TABLE and COMMENT on whichever node it runs",
    ),
    (
        "dealcards_apply_table_setting",
        "the trigger of dealcards_table_setting, a table each node keeps of its own",
    ),
];

/// The table a function is colocated with, by the name of its first argument: the distribution
/// column of the tables of that colocation group.
const KEYED_BY: [(&str, &str); 3] = [
    ("desk_id", "desk"),
    ("queue_id", "shuffle_queue"),
    ("hand_id", "room_hand"),
];

/// The modules that name the distributed functions in lists rather than call them.
const LISTS: [&str; 2] = ["distribution.rs", "distributed_functions.rs"];

/// Whether `source` calls `function` (its name, then an opening parenthesis) on a line that is
/// not a comment.
fn calls(source: &str, function: &str) -> bool {
    let call = format!("{function}(");
    source
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .any(|line| {
            line.match_indices(&call).any(|(at, _)| {
                !line[..at]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            })
        })
}

/// Which of the extension's functions are distributed, read from the catalog (pg_proc, the
/// extension's membership in pg_depend, pg_dist_object): every function that runs statements
/// (all but server::catalog::PURE_FUNCTIONS) is distributed by its first argument, a desk or a
/// queue, with force_delegation, colocated with the table that argument keys; but those of
/// [`NOT_DISTRIBUTED`], which are not. No pure function is distributed; the distributed ones
/// are [`DISTRIBUTED_FUNCTIONS`]; and each is called by a test of this suite (a module other
/// than those of [`LISTS`]). A new function that runs statements fails here until
/// sql/install/citus.sql distributes it (or it is listed above, with why) and a test calls it
/// on the cluster.
#[test]
fn every_function_on_a_desk_a_queue_or_a_hand_is_distributed_by_it_and_tested_here() {
    let mut c = distributed();
    let running = server::catalog::statement_running_functions(&mut c);
    let (wrong, distributed_functions) = distribution_of_each_function(&mut c, &running);
    for (function, why) in NOT_DISTRIBUTED {
        assert!(
            running.contains(function),
            "{function} ({why}) is not a statement-running function of the extension"
        );
    }
    assert!(
        wrong.is_empty(),
        "functions that run statements must be distributed by their desk, queue or hand \
         (sql/install/citus.sql), or listed in NOT_DISTRIBUTED with why:\n{}",
        wrong.join("\n")
    );
    let listed: BTreeSet<String> = DISTRIBUTED_FUNCTIONS
        .iter()
        .map(|(f, _)| f.to_string())
        .collect();
    assert_eq!(
        distributed_functions, listed,
        "the distributed functions are not DISTRIBUTED_FUNCTIONS"
    );

    check_each_is_called_by_a_test(&distributed_functions);
}

/// What is wrong with the distribution of each of the extension's functions that runs
/// statements (`running`), and the signatures of the distributed ones.
fn distribution_of_each_function(
    c: &mut Client,
    running: &BTreeSet<String>,
) -> (Vec<String>, BTreeSet<String>) {
    let groups: BTreeMap<String, i32> = c
        .query(
            "SELECT logicalrelid::regclass::text, colocationid FROM pg_dist_partition",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let functions = c
        .query(
            "SELECT p.proname::text, p.oid::regprocedure::text, p.proargnames[1]::text,
                    o.distribution_argument_index, o.colocationid, o.force_delegation
               FROM pg_proc p
               JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
                AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
               JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'dealcards'
               LEFT JOIN pg_dist_object o ON o.classid = 'pg_proc'::regclass AND o.objid = p.oid
              ORDER BY 2",
            &[],
        )
        .unwrap();
    let not_distributed: BTreeMap<&str, &str> = NOT_DISTRIBUTED.into_iter().collect();
    let keyed_by: BTreeMap<&str, &str> = KEYED_BY.into_iter().collect();
    let mut wrong = Vec::new();
    let mut distributed_functions = BTreeSet::new();
    for row in &functions {
        let (name, signature, first_argument): (String, String, Option<String>) =
            (row.get(0), row.get(1), row.get(2));
        let (index, group, forced): (Option<i32>, Option<i32>, Option<bool>) =
            (row.get(3), row.get(4), row.get(5));
        if index.is_some() {
            distributed_functions.insert(signature.clone());
        }
        if !running.contains(&name) {
            if index.is_some() {
                wrong.push(format!("{signature} runs no statements but is distributed"));
            }
            continue;
        }
        if let Some(why) = not_distributed.get(name.as_str()) {
            if index.is_some() {
                wrong.push(format!(
                    "{signature} is distributed, yet listed as not ({why})"
                ));
            }
            continue;
        }
        let with = first_argument
            .as_deref()
            .and_then(|a| keyed_by.get(a))
            .map(|t| groups[*t]);
        if index != Some(0) || forced != Some(true) || with.is_none() || group != with {
            wrong.push(format!(
                "{signature} (first argument {first_argument:?}): distribution argument \
                 {index:?}, colocation group {group:?} (expected {with:?}), force_delegation \
                 {forced:?}"
            ));
        }
    }
    (wrong, distributed_functions)
}

/// Each distributed function is called by a test of this suite: the sources of its other
/// modules.
fn check_each_is_called_by_a_test(distributed_functions: &BTreeSet<String>) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/citus");
    let sources: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            let name = path.file_name().unwrap().to_string_lossy();
            name.ends_with(".rs") && !LISTS.contains(&name.as_ref())
        })
        .map(|path| std::fs::read_to_string(path).unwrap())
        .collect();
    assert!(
        sources.len() > 5,
        "the suite's sources in {}",
        dir.display()
    );
    let untested: Vec<&String> = distributed_functions
        .iter()
        .filter(|signature| {
            let name = signature.split('(').next().unwrap();
            !sources.iter().any(|source| calls(source, name))
        })
        .collect();
    assert!(
        untested.is_empty(),
        "distributed functions no test of tests/citus calls: {untested:?}"
    );
}
