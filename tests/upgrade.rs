#![cfg(feature = "server_tests")]
//! Upgrades keep every game and queue: from each earlier release whose install script is kept in
//! sql/released/ (dealcards--A.sql), through `ALTER EXTENSION dealcards UPDATE`, on the server under test.
//! The library installed is this release's: it serves a database still on the old SQL before the
//! update as well as after. The updated schema must equal a fresh install's, object for object,
//! and a pg_dump of the updated database must restore with every row.
//! Run by `make test` against its throwaway cluster of each major (needs DEALCARDS_TEST_DSN, and
//! DEALCARDS_PG_BIN for pg_dump and pg_restore).

mod server;

use std::path::Path;

use postgres::Client;

/// The releases a database can be upgraded from: those whose install script sql/released/ keeps.
fn earlier_releases() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("sql/released");
    let mut releases: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().ok()?;
            let version = name.strip_prefix("dealcards--")?.strip_suffix(".sql")?;
            (!version.contains("--")).then(|| version.to_string())
        })
        .collect();
    releases.sort();
    assert!(!releases.is_empty());
    releases
}

/// Every object of the extension as text, one line each, sorted: what a fresh install and an
/// updated one must agree on. Functions with their declarations, tables (with their row
/// security and policies), columns, constraints, indexes, views, sequences, extension
/// membership and what pg_dump is told to keep.
const SCHEMA: &str = r#"
WITH ext AS (SELECT oid, extversion, extrelocatable, extconfig, extcondition
               FROM pg_extension WHERE extname = 'dealcards'),
members AS (
  SELECT d.classid, d.objid, d.objsubid FROM pg_depend d, ext
   WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = ext.oid AND d.deptype = 'e'),
rels AS (SELECT c.* FROM pg_class c JOIN members m ON m.classid = 'pg_class'::regclass AND m.objid = c.oid)
SELECT line FROM (
  SELECT 'extension ' || extversion || ' relocatable ' || extrelocatable FROM ext
  UNION ALL
  SELECT 'member ' || pg_describe_object(classid, objid, objsubid) FROM members
  UNION ALL
  SELECT 'function ' || p.oid::regprocedure || ' (' || pg_get_function_arguments(p.oid)
         || ') returns ' || pg_get_function_result(p.oid) || ' volatile ' || p.provolatile::text
         || ' parallel ' || p.proparallel::text || ' strict ' || p.proisstrict
         || ' security definer ' || p.prosecdef || ' leakproof ' || p.proleakproof
         || ' config ' || coalesce(p.proconfig::text, '-') || ' language ' || l.lanname
         || ' symbol ' || p.prosrc || ' library ' || coalesce(p.probin, '-')
         || ' cost ' || p.procost || ' rows ' || p.prorows || ' acl ' || coalesce(p.proacl::text, '-')
    FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
    JOIN members m ON m.classid = 'pg_proc'::regclass AND m.objid = p.oid
  UNION ALL
  SELECT 'relation ' || relname || ' kind ' || relkind::text || ' options ' || coalesce(reloptions::text, '-')
         || ' persistence ' || relpersistence::text || ' acl ' || coalesce(relacl::text, '-')
         || ' row security ' || relrowsecurity || ' forced ' || relforcerowsecurity
    FROM rels
  UNION ALL
  SELECT 'policy ' || c.relname || ' ' || p.polname || ' ' || p.polcmd::text || ' permissive '
         || p.polpermissive || ' roles ' || p.polroles::text || ' using '
         || coalesce(pg_get_expr(p.polqual, p.polrelid), '-') || ' check '
         || coalesce(pg_get_expr(p.polwithcheck, p.polrelid), '-')
    FROM pg_policy p JOIN rels c ON c.oid = p.polrelid
  UNION ALL
  SELECT 'column ' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
         || ' not null ' || a.attnotnull || ' identity ' || a.attidentity::text
         || ' generated ' || a.attgenerated::text || ' default ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '-')
    FROM pg_attribute a JOIN rels c ON c.oid = a.attrelid
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
   WHERE a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r', 'v', 'p')
  UNION ALL
  SELECT 'constraint ' || c.relname || ' ' || k.conname || ' ' || pg_get_constraintdef(k.oid)
    FROM pg_constraint k JOIN rels c ON c.oid = k.conrelid
  UNION ALL
  SELECT 'index ' || pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN rels c ON c.oid = i.indrelid
  UNION ALL
  SELECT 'trigger ' || pg_get_triggerdef(t.oid) FROM pg_trigger t JOIN rels c ON c.oid = t.tgrelid
   WHERE NOT t.tgisinternal
  UNION ALL
  SELECT 'rule ' || pg_get_ruledef(r.oid) FROM pg_rewrite r JOIN rels c ON c.oid = r.ev_class
   WHERE r.rulename <> '_RETURN'
  UNION ALL
  SELECT 'view ' || relname || ' ' || pg_get_viewdef(oid) FROM rels WHERE relkind = 'v'
  UNION ALL
  SELECT 'sequence ' || c.relname || ' ' || format_type(s.seqtypid, NULL) || ' start ' || s.seqstart
         || ' increment ' || s.seqincrement || ' max ' || s.seqmax || ' min ' || s.seqmin
         || ' cache ' || s.seqcache || ' cycle ' || s.seqcycle
    FROM pg_sequence s JOIN rels c ON c.oid = s.seqrelid
  UNION ALL
  SELECT 'event trigger ' || t.evtname || ' on ' || t.evtevent || ' enabled ' || t.evtenabled::text
         || ' tags ' || coalesce(t.evttags::text, '-') || ' runs ' || t.evtfoid::regprocedure::text
    FROM pg_event_trigger t JOIN members m
      ON m.classid = 'pg_event_trigger'::regclass AND m.objid = t.oid
  UNION ALL
  SELECT 'dumped ' || t.config::regclass::text || ' where ' || coalesce(nullif(t.cond, ''), '-')
    FROM ext, unnest(ext.extconfig, ext.extcondition) AS t(config, cond)
) s(line)
ORDER BY line"#;

/// The one text column of every row `sql` returns.
fn lines(client: &mut Client, sql: &str) -> Vec<String> {
    client
        .query(sql, &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect()
}

fn schema(client: &mut Client) -> Vec<String> {
    lines(client, SCHEMA)
}

/// Lines of one schema missing from the other, both ways: empty when they agree.
fn differences(updated: &[String], fresh: &[String]) -> Vec<String> {
    let only_updated = updated.iter().filter(|l| !fresh.contains(l));
    let only_fresh = fresh.iter().filter(|l| !updated.contains(l));
    only_updated
        .map(|l| format!("only after the update: {l}"))
        .chain(only_fresh.map(|l| format!("only in a fresh install: {l}")))
        .collect()
}

/// Every row of the extension's tables and the state of its sequences, as text.
const DATA: &str = r#"
SELECT 'desk ' || row_to_json(t)::text FROM (SELECT * FROM desk ORDER BY desk_id) t
UNION ALL SELECT 'desk_player ' || row_to_json(t)::text FROM (SELECT * FROM desk_player ORDER BY 1, 2) t
UNION ALL SELECT 'game ' || row_to_json(t)::text FROM (SELECT * FROM game ORDER BY game_id) t
UNION ALL SELECT 'bid ' || row_to_json(t)::text FROM (SELECT * FROM bid_record ORDER BY 1, 2, 4) t
UNION ALL SELECT 'note ' || row_to_json(t)::text FROM (SELECT * FROM note ORDER BY note_id) t
UNION ALL SELECT 'queue ' || row_to_json(t)::text FROM (SELECT * FROM shuffle_queue ORDER BY queue_id) t
UNION ALL SELECT 'track ' || row_to_json(t)::text FROM (SELECT * FROM shuffle_queue_track ORDER BY 1, 2) t
UNION ALL SELECT 'game ids ' || last_value || ' ' || is_called FROM game_game_id_seq
UNION ALL SELECT 'note ids ' || last_value || ' ' || is_called FROM note_note_id_seq
UNION ALL SELECT 'queue ids ' || last_value || ' ' || is_called FROM shuffle_queue_id_seq"#;

fn data(client: &mut Client) -> Vec<String> {
    lines(client, DATA)
}

/// The rows after an update are the rows before, column for column; a column the update added
/// holds its default (NULL, or '' for a client seed) on every row that was there, but
/// desk_player.seed_round, which [`fair_seats_seeds`] checks.
fn same_rows(after: &[String], before: &[String], release: &str) {
    assert_eq!(
        after.len(),
        before.len(),
        "the update changed the rows (from {release})"
    );
    for (a, b) in after.iter().zip(before) {
        let split = |line: &str| -> (String, serde_json::Value) {
            match line.split_once(" {") {
                Some((kind, json)) => (
                    kind.to_string(),
                    serde_json::from_str(&format!("{{{json}")).unwrap(),
                ),
                None => (line.to_string(), serde_json::Value::Null),
            }
        };
        let ((kind_a, row_a), (kind_b, row_b)) = (split(a), split(b));
        assert_eq!(kind_a, kind_b, "from {release}");
        let (Some(row_a), Some(row_b)) = (row_a.as_object(), row_b.as_object()) else {
            assert_eq!(a, b, "the update changed a line (from {release})");
            continue;
        };
        for (column, value) in row_a {
            match row_b.get(column) {
                Some(old) => assert_eq!(
                    value, old,
                    "{kind_a}.{column} changed (from {release}): {b}"
                ),
                // desk_player.seed_round (0.5.0) names the round of a seed set at a desk in
                // provably fair mode: checked by fair_seats_seeds.
                None if kind_a == "desk_player" && column == "seed_round" => {}
                // desk_player.seed_player (0.7.0): a seed set before belongs to the player who
                // sits in its seat.
                None if kind_a == "desk_player" && column == "seed_player" => {
                    let seeded = !row_a["seed_round"].is_null();
                    let player = if seeded {
                        &row_a["player_id"]
                    } else {
                        &serde_json::Value::Null
                    };
                    assert_eq!(value, player, "{kind_a}.{column} (from {release}): {a}");
                }
                None => assert!(
                    value.is_null() || value == "",
                    "{kind_a}.{column} is new but not empty (from {release}): {a}"
                ),
            }
        }
        assert!(
            row_b.keys().all(|k| row_a.contains_key(k)),
            "the update dropped a column of {kind_a} (from {release})"
        );
    }
}

/// The client seeds of the seats of desks in provably fair mode, as (desk, round, seat, player,
/// seed): the seats' seeds under their desk's round before 0.5.0, the seeds that answer a round
/// since (desk_player.seed_round).
fn fair_seats_seeds(client: &mut Client) -> Vec<String> {
    let answered = one::<bool>(
        client,
        "SELECT count(*) = 1 FROM pg_attribute
          WHERE attrelid = 'desk_player'::regclass AND attname = 'seed_round'",
    );
    lines(
        client,
        if answered {
            "SELECT concat_ws(' ', p.desk_id, p.seed_round, p.player_no, p.player_id, p.client_seed)
               FROM desk_player p WHERE p.seed_round IS NOT NULL ORDER BY 1"
        } else {
            "SELECT concat_ws(' ', p.desk_id, d.fair_round, p.player_no, p.player_id, p.client_seed)
               FROM desk_player p JOIN desk d USING (desk_id)
              WHERE d.fair_round IS NOT NULL AND p.client_seed <> '' ORDER BY 1"
        },
    )
}

fn one<T: for<'a> postgres::types::FromSql<'a>>(client: &mut Client, sql: &str) -> T {
    client
        .query_one(sql, &[])
        .unwrap_or_else(|e| {
            panic!(
                "{sql}: {}",
                e.as_db_error().map_or(e.to_string(), |d| format!("{d:?}"))
            )
        })
        .get(0)
}

/// Games at several desks and queues stepped back and forth: the state an upgrade must keep.
fn play(client: &mut Client) -> Vec<i64> {
    client
        .batch_execute(
            "INSERT INTO desk (desk_id) SELECT generate_series(1, 4);
             INSERT INTO desk_player SELECT d, s, d * 10 + s FROM generate_series(1, 4) d, generate_series(1, 3) s;",
        )
        .unwrap();
    for round in 0..3 {
        for desk in 1..=4 {
            if (desk + round) % 3 != 0 {
                client.execute("SELECT deal_cards($1)", &[&desk]).unwrap();
            }
        }
    }
    let queues: Vec<i64> = ["'shuffle'", "'random', 3"]
        .iter()
        .map(|args| {
            one(
                client,
                &format!("SELECT shuffle_queue_create(ARRAY(SELECT generate_series(1, 20)::bigint), {args})"),
            )
        })
        .collect();
    for &q in &queues {
        for step in ["next", "next", "next", "prev", "next", "next", "prev"] {
            client
                .execute(&format!("SELECT shuffle_queue_{step}($1)"), &[&q])
                .unwrap();
        }
    }
    queues
}

/// The names of the extension's functions (but its event trigger's).
fn functions_of(client: &mut Client) -> Vec<String> {
    client
        .query(
            "SELECT DISTINCT p.proname::text FROM pg_proc p
               JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
               JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'dealcards'
              WHERE p.prorettype <> 'event_trigger'::regtype",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect()
}

/// A shuffle state of one int4, 7, in the bytes of rows_agg_state (docs/rows.md).
const STATE_OF_SEVEN: &[u8] = &[
    0x17, 0, 0, 0, 3, 1, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 7, 0, 0, 0,
];

/// Bytes sent as a binary parameter of whatever type the statement gives it.
#[derive(Debug)]
struct StateBytes(&'static [u8]);

impl postgres::types::ToSql for StateBytes {
    fn to_sql(
        &self,
        _: &postgres::types::Type,
        out: &mut postgres::types::private::BytesMut,
    ) -> Result<postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>> {
        out.extend_from_slice(self.0);
        Ok(postgres::types::IsNull::No)
    }

    fn accepts(_: &postgres::types::Type) -> bool {
        true
    }

    postgres::types::to_sql_checked!();
}

/// The queue functions of 0.5.0, called after those of every_function_works on queues of their
/// own; each listed under shuffle_queue_new, so that none runs on an earlier release's SQL.
const QUEUE_CALLS_0_5: [(&str, &str); 14] = [
    (
        "shuffle_queue_new",
        "SELECT shuffle_queue_new(ARRAY[1, 2, 3]::bigint[], groups => '{a,a,b}', start_with => 3) > 0",
    ),
    (
        "shuffle_queue_new",
        "SELECT shuffle_queue_add(max(queue_id), 4, 'c') = 4 FROM shuffle_queue WHERE mode = 'spread'",
    ),
    (
        "shuffle_queue_play_next",
        "SELECT shuffle_queue_play_next(max(queue_id), ARRAY[1, 2]) = 3 FROM shuffle_queue WHERE mode = 'spread'",
    ),
    (
        "shuffle_queue_play_later",
        "SELECT shuffle_queue_play_later(max(queue_id), ARRAY[4]) = 4 FROM shuffle_queue WHERE mode = 'spread'",
    ),
    (
        "shuffle_queue_up_next",
        "SELECT shuffle_queue_up_next(max(queue_id)) = ARRAY[1, 2, 3, 4]::bigint[] FROM shuffle_queue WHERE mode = 'spread'",
    ),
    (
        "shuffle_queue_clear_up_next",
        "SELECT shuffle_queue_clear_up_next(max(queue_id)) = 4 FROM shuffle_queue WHERE mode = 'spread'",
    ),
    (
        "shuffle_queue_jump",
        "SELECT shuffle_queue_jump(max(queue_id), 2) = 2 FROM shuffle_queue WHERE mode = 'spread'",
    ),
    (
        "shuffle_queue_skip_when_shuffling",
        "SELECT shuffle_queue_skip_when_shuffling(max(queue_id), 2) = 3 FROM shuffle_queue WHERE mode = 'spread'",
    ),
    (
        "shuffle_queue_new",
        "SELECT shuffle_queue_new(ARRAY[1, 2, 3]::bigint[], 'random', 1, weights => '{1,2,3}') > 0",
    ),
    (
        "shuffle_queue_new",
        "SELECT shuffle_queue_add(max(queue_id), 4, 5) = 4 FROM shuffle_queue WHERE weight_max IS NOT NULL",
    ),
    (
        "shuffle_queue_save",
        "SELECT shuffle_queue_save(max(queue_id)) ->> 'mode' = 'spread' FROM shuffle_queue WHERE mode = 'spread'",
    ),
    (
        "shuffle_queue_restore",
        "SELECT shuffle_queue_save(shuffle_queue_restore(shuffle_queue_save(q))) = shuffle_queue_save(q)
           FROM (SELECT shuffle_queue_new(ARRAY[1, 2, 3]::bigint[], seed => sha256('x')) AS q) s",
    ),
    (
        "shuffle_queue_new",
        "SELECT shuffle_queue_next(shuffle_queue_new(ARRAY[1, 2, 3]::bigint[], listener => 5)) > 0",
    ),
    (
        "shuffle_queue_forget",
        "SELECT shuffle_queue_forget(5) = 1",
    ),
];

/// The calls of the functions every release has, each with a query that must give true.
const PLAIN_CALLS: [(&str, &str); 26] = [
    ("card_label", "SELECT card_label(53) = 'BJ'"),
    ("deal_cards", "SELECT (deal_cards(1) ->> 'desk')::int = 1"),
    ("deal_hands", "SELECT count(*) = 4 FROM deal_hands()"),
    ("freecell_board", "SELECT count(*) = 7 FROM freecell_board(1)"),
    ("freecell_cards", "SELECT count(*) = 52 FROM freecell_cards(1)"),
    ("freecell_layout", "SELECT freecell_layout(1) LIKE 'JD KD 2S 4C%'"),
    ("hand_labels", "SELECT hand_labels(ARRAY[54, 53]) = 'BJ RJ'"),
    ("sample_array", "SELECT cardinality(sample_array(ARRAY[1, 2, 3], 2)) = 2"),
    ("sample_array", "SELECT sample_array(ARRAY[1, 2, 3], 3, '\\x0000000000000000000000000000000000000000000000000000000000000000'::bytea) @> ARRAY[1, 2, 3]"),
    ("sample_ints", "SELECT cardinality(sample_ints(1, 1000000000000, 5)) = 5"),
    ("sample_ints", "SELECT cardinality(sample_ints(1, 10, 10, '\\x0000000000000000000000000000000000000000000000000000000000000000'::bytea)) = 10"),
    ("shuffle_array", "SELECT shuffle_array(ARRAY['a', 'b']) @> ARRAY['a', 'b']"),
    ("shuffle_array", "SELECT shuffle_array(ARRAY['a', 'b'], '\\x0000000000000000000000000000000000000000000000000000000000000000'::bytea) @> ARRAY['a', 'b']"),
    ("shuffle_ints", "SELECT cardinality(shuffle_ints(1, 54)) = 54"),
    ("shuffle_ints", "SELECT cardinality(shuffle_ints(1, 54, '\\x0000000000000000000000000000000000000000000000000000000000000000'::bytea)) = 54"),
    // Since 0.5.0: spread by group.
    ("shuffle_spread", "SELECT (shuffle_spread(ARRAY[1, 2, 3], ARRAY['a', 'a', 'b']))[2] = 3"),
    ("shuffle_spread", "SELECT shuffle_spread(ARRAY[1, 2, 3], ARRAY['a', 'a', 'b'], '\\x0000000000000000000000000000000000000000000000000000000000000000'::bytea) @> ARRAY[1, 2, 3]"),
    ("shuffle_spread", "SELECT (shuffle_spread(ARRAY[1, 2, 3], ARRAY['a', 'a', 'b'], ARRAY['x', 'y', 'z']))[2] = 3"),
    ("shuffle_queue_add", "SELECT shuffle_queue_add($1, 100) = 21"),
    ("shuffle_queue_remove", "SELECT shuffle_queue_remove($1, 100) = 20"),
    ("shuffle_queue_next", "SELECT shuffle_queue_next($1) BETWEEN 1 AND 20"),
    ("shuffle_queue_prev", "SELECT shuffle_queue_prev($1) BETWEEN 1 AND 20"),
    ("shuffle_queue_current", "SELECT shuffle_queue_current($1) BETWEEN 1 AND 20"),
    ("shuffle_queue_create", "SELECT shuffle_queue_create(ARRAY[1, 2]::bigint[]) > 0"),
    (
        "shuffle_queue_drop",
        "SELECT shuffle_queue_drop(max(queue_id))::text = '' FROM shuffle_queue",
    ),
    ("sort_hand", "SELECT sort_hand(ARRAY[54, 1]) = ARRAY[1, 54]"),
];

/// The calls of the provably fair functions (since 0.3.0), as each release's SQL takes them.
fn fair_calls(client: &mut Client) -> [(&'static str, &'static str); 9] {
    let current = functions_of(client).iter().any(|f| f == "fair_publication");
    let (fair_mode_on, fair_reveal, fair_mode_off) = if current {
        (
            "SELECT octet_length(fair_mode_on(3, seeds_required => false)) = 32",
            "SELECT commitment <> next_commitment FROM fair_reveal(3)",
            "SELECT count(*) = 1 FROM fair_mode_off(3)",
        )
    } else {
        (
            "SELECT octet_length(fair_mode_on(3)) = 32",
            "SELECT sha256(server_seed) = commitment FROM fair_reveal(3)",
            "SELECT fair_mode_off(3) IS NOT NULL",
        )
    };
    [
        // Since 0.3.0: provably fair deals, at desk 3, from commitment to verification (0.5.0
        // changed the arguments and results of three of them: the calls for each are below).
        ("fair_mode_on", fair_mode_on),
        ("set_client_seed", "SELECT count(*) = 1 FROM set_client_seed(3, 1, 'Zoë')"),
        // deal_cards in the mode: present with fair_mode_on.
        ("fair_mode_on", "SELECT deal_cards(3) ? 'commitment'"),
        ("fair_reveal", fair_reveal),
        ("fair_verify_desk", "SELECT bool_and(verified) FROM fair_verify_desk(3)"),
        (
            "fair_verify_game",
            "SELECT verified FROM fair_verify_game((SELECT max(game_id) FROM game WHERE chain_hash IS NOT NULL))",
        ),
        // Since 0.7.0: a stored game's receipt, with what deal_cards no longer returns.
        (
            "fair_receipt",
            "SELECT fair_receipt((SELECT max(game_id) FROM game WHERE chain_hash IS NOT NULL)) ?& ARRAY['leader', 'chain_hash']",
        ),
        ("fair_mode_off", fair_mode_off),
        ("fair_deal", "SELECT leader BETWEEN 1 AND 3 FROM fair_deal(sha256('x'), '{a,b,c}', 0)"),
    ]
}

/// The calls of the functions of later releases.
const LATER_CALLS: [(&str, &str); 51] = [
    // Since 0.5.0: what the house publishes, and what hides a reveal from its own
    // transaction.
    ("fair_publication", "SELECT jsonb_array_length(fair_publication(3)->'games') > 0"),
    ("dealcards_written_here", "SELECT NOT dealcards_written_here('3'::xid)"),
    // Since 0.5.0: the row aggregates, and through them their support functions.
    ("sample_agg", "SELECT cardinality(sample_agg(i, 2)) = 2 FROM generate_series(1, 5) i"),
    ("sample_agg_step", "SELECT sample_agg(i, 2, (i = 3)::int) = ARRAY[3] FROM generate_series(1, 5) i"),
    ("resample_agg", "SELECT resample_agg(i, 3) = ARRAY[7, 7, 7] FROM generate_series(7, 7) i"),
    ("resample_agg_step", "SELECT resample_agg(i, 2, 1.5) = ARRAY[7, 7] FROM generate_series(7, 7) i"),
    ("shuffle_agg", "SELECT shuffle_agg(i) @> ARRAY[1, 2, 3] FROM generate_series(1, 3) i"),
    ("shuffle_agg_step", "SELECT cardinality(shuffle_agg(i)) = 3 FROM generate_series(1, 3) i"),
    ("sample_agg_seeded", "SELECT sample_agg_seeded(i, 3, '\\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f'::bytea) = ARRAY[6, 8, 9] FROM generate_series(1, 10) i"),
    ("sample_agg_seeded_step", "SELECT cardinality(sample_agg_seeded(i, 3, '\\x0000000000000000000000000000000000000000000000000000000000000000'::bytea)) = 3 FROM generate_series(1, 10) i"),
    ("shuffle_agg_seeded", "SELECT shuffle_agg_seeded(i, '\\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f'::bytea) = ARRAY[6, 8, 9, 10, 4, 1, 7, 5, 3, 2] FROM generate_series(1, 10) i"),
    ("shuffle_agg_seeded_step", "SELECT cardinality(shuffle_agg_seeded(i, '\\x0000000000000000000000000000000000000000000000000000000000000000'::bytea)) = 2 FROM generate_series(1, 2) i"),
    ("rows_agg_final", "SELECT sample_agg(i, 0) = '{}' FROM generate_series(1, 2) i"),
    // The typed forms (and their state type's input and output).
    ("rows_agg_final_int2", "SELECT sample_agg(i::int2, 3) <@ '{1, 2, 3}'::int2[] FROM generate_series(1, 3) i"),
    ("rows_agg_final_int4", "SELECT pg_typeof(sample_agg(i, 1)) = 'integer[]'::regtype FROM generate_series(1, 3) i"),
    ("rows_agg_final_int8", "SELECT resample_agg(i::int8, 2) = '{7, 7}' FROM generate_series(7, 7) i"),
    ("rows_agg_final_text", "SELECT shuffle_agg(i::text) @> '{1, 2}' FROM generate_series(1, 2) i"),
    ("rows_agg_final_uuid", "SELECT cardinality(sample_agg(gen_random_uuid(), 2)) = 2 FROM generate_series(1, 3)"),
    ("rows_agg_state_in", "SELECT rows_agg_final_int4('\\x170000000301000000000000000400000007000000') = '{7}'"),
    ("rows_agg_state_out", "SELECT '\\x170000000301000000000000000400000007000000'::rows_agg_state::text = '\\x170000000301000000000000000400000007000000'"),
    ("rows_agg_state_send", "SELECT rows_agg_state_send('\\x170000000301000000000000000400000007000000') = '\\x170000000301000000000000000400000007000000'::bytea"),
    // Binary input: the state's bytes sent as a binary parameter.
    ("rows_agg_state_recv", "SELECT rows_agg_final_int4($1::rows_agg_state) = '{7}'"),
    // A forced parallel plan: partial states serialized in the workers, combined in the leader.
    (
        "rows_agg_serialize",
        "SELECT set_config('parallel_setup_cost', '0', false) || set_config('parallel_tuple_cost', '0', false)
             || set_config('min_parallel_table_scan_size', '0', false) || set_config((CASE WHEN current_setting('server_version_num')::int >= 160000 THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END), 'on', false) <> ''",
    ),
    ("rows_agg_deserialize", "SELECT cardinality(sample_agg(game_id, 1)) = 1 FROM game"),
    (
        "rows_agg_combine",
        "SELECT cardinality(shuffle_agg(game_id)) = count(*) AND set_config((CASE WHEN current_setting('server_version_num')::int >= 160000 THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END), 'off', false) = 'off' FROM game",
    ),
    // Without Citus, a clear refusal.
    (
        "dealcards_distribute",
        "SELECT pg_temp.raises('SELECT * FROM dealcards_distribute()', '55000')",
    ),
    // Since 0.6.0: the sequences set from the tables (each past its largest id already).
    (
        "dealcards_sync_sequences",
        "SELECT count(*) = CASE WHEN to_regclass('room_hand') IS NULL THEN 3 ELSE 4 END AND bool_and(next_id > coalesce(largest_id, 0)) FROM dealcards_sync_sequences()",
    ),
    // Since 0.7.0: the seeded order key, for bigint and text keys.
    ("shuffle_key", "SELECT shuffle_key('\\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f'::bytea, 1) = -3812923498326249669"),
    ("shuffle_key", "SELECT shuffle_key('\\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f'::bytea, 'ace') = -5894646678025663226"),
    // Since 0.7.0: the TABLESAMPLE method, through its handler.
    ("sparse_bernoulli", "SELECT count(*) = (SELECT count(*) FROM game) FROM game TABLESAMPLE sparse_bernoulli(100)"),
    ("sparse_bernoulli", "SELECT count(*) = 0 FROM game TABLESAMPLE sparse_bernoulli(0) REPEATABLE (1)"),
    // Since 0.7.0: a table's storage parameters, applied from dealcards_table_setting.
    ("dealcards_apply_table_setting", "WITH s AS (INSERT INTO dealcards_table_setting VALUES ('note', '{fillfactor=90}', '{}') ON CONFLICT (table_name) DO UPDATE SET options = excluded.options RETURNING 1) SELECT count(*) = 1 FROM s"),
    // Since 0.7.0: k random rows of a table.
    ("sample_rows", "SELECT count(*) = least(2, (SELECT count(*) FROM game)) FROM sample_rows(NULL::game, 2)"),
    ("sample_rows", "SELECT count(DISTINCT game_id) = least(3, (SELECT count(*) FROM game)) FROM sample_rows(NULL::game, 3, sha256('x'))"),
    // Since 0.7.0: what no key holds between the tables, nothing in a database only
    // dealcards' functions wrote.
    ("dealcards_check", "SELECT count(*) = 0 FROM dealcards_check()"),
    // Since 0.7.0: the tracks Next will play, drawn ahead; the next Next plays the first.
    ("shuffle_queue_upcoming", "SELECT (SELECT track FROM shuffle_queue_upcoming($1, 3) WHERE place = 1) = shuffle_queue_next($1)"),
    // Since 0.7.0: a skip that does not count: the next track plays.
    ("shuffle_queue_skip", "SELECT shuffle_queue_skip($1) IS NOT NULL"),
    // Since 0.7.0: now playing with the next tracks, and what played, newest first.
    ("shuffle_queue_now", "SELECT upcoming[1] = shuffle_queue_next($1) FROM shuffle_queue_now($1, 2)"),
    ("shuffle_queue_played", "SELECT coalesce((SELECT track FROM shuffle_queue_played($1, 1)) = shuffle_queue_prev($1), false)"),
    // Since 0.7.0: a queue of whole albums: its first album's tracks play in their order.
    ("shuffle_queue_new_albums", "SELECT played IN ('{1,2,3}', '{3,1,2}') FROM (SELECT array_agg(shuffle_queue_next(id) ORDER BY g) AS played FROM (SELECT shuffle_queue_new_albums('{1,2,3}', '{a,a,b}', '{x,x,y}') AS id) q, generate_series(1, 3) g) s"),
    // Since 0.7.0: many tracks added and removed in one call.
    ("shuffle_queue_add_many", "SELECT shuffle_queue_add_many($1, ARRAY[9001, 9002]::bigint[]) >= 3"),
    ("shuffle_queue_remove_many", "SELECT shuffle_queue_remove_many($1, ARRAY[9002, 9001]::bigint[]) >= 1"),
    // Since 0.7.0: card rooms, a blackjack shoe of one deck burned, opened and drawn from, then
    // ended.
    ("room_kinds", "SELECT count(*) = 12 AND bool_and(cardinality(stages) >= 1) FROM room_kinds()"),
    ("hand_start", "SELECT hand_start(3, 'blackjack', 2, decks => 1) > 0"),
    ("hand_deal", "SELECT dealt_stage = 'burn' AND cards = 1 FROM hand_deal((SELECT max(hand_id) FROM room_hand))"),
    ("hand_deal", "SELECT dealt_stage = 'play' AND cards = 0 FROM hand_deal((SELECT max(hand_id) FROM room_hand))"),
    ("hand_draw", "SELECT cards = 2 AND cards_left = 49 FROM hand_draw((SELECT max(hand_id) FROM room_hand), 1, 2)"),
    ("hand_end", "SELECT pg_typeof(hand_end((SELECT max(hand_id) FROM room_hand)))::text = 'void'"),
    // A bridge board, dealt in one stage and written as PBN.
    ("hand_start", "SELECT hand_start(4, 'bridge', board => 7) > 0"),
    ("hand_deal", "SELECT dealt_stage = 'deal' AND cards = 52 FROM hand_deal((SELECT max(hand_id) FROM room_hand))"),
    ("hand_pbn", "SELECT hand_pbn((SELECT max(hand_id) FROM room_hand)) LIKE E'[Board \"7\"]\\n[Dealer \"S\"]\\n[Vulnerable \"All\"]\\n[Deal \"S:%'"),
];

/// Calls every function of the extension once and checks each answer; fails if the extension
/// has a function this list does not call.
fn every_function_works(client: &mut Client, queue: i64) {
    // Whether a statement fails with the SQLSTATE given.
    client
        .batch_execute(
            "CREATE OR REPLACE FUNCTION pg_temp.raises(sql text, state text) RETURNS boolean
             LANGUAGE plpgsql AS $$
             BEGIN
               EXECUTE sql;
               RETURN false;
             EXCEPTION WHEN OTHERS THEN
               RETURN SQLSTATE = state;
             END $$",
        )
        .unwrap();
    let fair_calls = fair_calls(client);
    let functions = functions_of(client);
    // An earlier release's SQL has only some of these functions.
    let calls = PLAIN_CALLS
        .iter()
        .chain(fair_calls.iter())
        .chain(LATER_CALLS.iter())
        .chain(QUEUE_CALLS_0_5.iter())
        .filter(|(function, _)| functions.iter().any(|f| f == function));
    for &(function, sql) in calls.clone() {
        let ok: bool = if function == "rows_agg_state_recv" {
            client
                .query_one(sql, &[&StateBytes(STATE_OF_SEVEN)])
                .map(|r| r.get(0))
        } else if sql.contains("$1") {
            client.query_one(sql, &[&queue]).map(|r| r.get(0))
        } else {
            client.query_one(sql, &[]).map(|r| r.get(0))
        }
        .unwrap_or_else(|e| panic!("{function}: {sql}: {e:?}"));
        assert!(ok, "{function}: {sql}");
    }
    let called: Vec<&str> = calls.map(|c| c.0).collect();
    for f in functions
        .iter()
        .filter(|f| f.as_str() != "shuffle_queue_drop")
    {
        assert!(
            called.contains(&f.as_str()),
            "{f} is not called by this test"
        );
    }
}

#[test]
fn an_update_keeps_every_game_and_queue_and_equals_a_fresh_install() {
    let current = env!("CARGO_PKG_VERSION");
    let mut fresh = server::fresh_database("dealcards_upgrade_fresh");
    fresh.batch_execute("CREATE EXTENSION dealcards").unwrap();
    let fresh_schema = schema(&mut fresh);
    assert!(fresh_schema
        .iter()
        .any(|l| l.starts_with(&format!("extension {current} "))));

    for release in earlier_releases() {
        let db = "dealcards_upgrade";
        let mut client = server::fresh_database(db);
        client
            .batch_execute(&format!("CREATE EXTENSION dealcards VERSION '{release}'"))
            .unwrap();
        // The old SQL, served by this release's library.
        let queues = play(&mut client);
        every_function_works(&mut client, queues[0]);
        // A release with provably fair deals: desk 4 is updated in the middle of a commitment.
        let fair = one::<bool>(&mut client, "SELECT to_regclass('fair_seed') IS NOT NULL");
        if fair {
            deal_at_desk_4(&mut client, &release);
        }
        let last_game: i64 = one(&mut client, "SELECT max(game_id) FROM game");
        update_and_compare(&mut client, &release, fair, &fresh_schema);

        // Everything works on, and the numbering goes on where it was.
        let next_game: i64 = one(&mut client, "SELECT (deal_cards(2) ->> 'game')::bigint");
        assert_eq!(next_game, last_game + 1);
        every_function_works(&mut client, queues[1]);
        if fair {
            check_desk_4_deals_on(&mut client, &release);
        }
        for q in &queues {
            let tracks: i64 = one(
                &mut client,
                &format!(
                    "SELECT count(DISTINCT track) FROM shuffle_queue_track WHERE queue_id = {q}"
                ),
            );
            assert_eq!(tracks, 20);
        }
        check_a_dump_restores(&mut client, db, &release);
    }
}

/// Desk 4 in provably fair mode with a deal under its commitment. Each in a transaction of its
/// own: since 0.5.0 a provably fair deal refuses a round committed in its own transaction, and
/// by default requires every player's seed.
fn deal_at_desk_4(client: &mut Client, release: &str) {
    let since_0_5 = functions_of(client).iter().any(|f| f == "fair_publication");
    for call in [
        if since_0_5 {
            "SELECT fair_mode_on(4, seeds_required => false)"
        } else {
            "SELECT fair_mode_on(4)"
        },
        "SELECT set_client_seed(4, 2, 'Zoë')",
        "SELECT deal_cards(4)",
    ] {
        client
            .batch_execute(call)
            .unwrap_or_else(|e| panic!("{call} (from {release}): {e:?}"));
    }
    // On the tables of a release before 0.7.0, whose rows a deal's own transaction
    // reads, the result is the whole receipt.
    let whole: bool = one(
        client,
        "SELECT deal_cards(4) ?& ARRAY['leader', 'chain_hash']",
    );
    assert!(whole, "from {release}");
}

/// The seeds of fair_seed, as JSON lines (none before provably fair deals).
fn fair_seeds(client: &mut Client, fair: bool) -> Vec<String> {
    if fair {
        lines(
            client,
            "SELECT row_to_json(t)::text FROM (SELECT desk_id, round, commitment, server_seed,
                    committed_at, revealed_at FROM fair_seed ORDER BY 1, 2) t",
        )
    } else {
        Vec::new()
    }
}

/// ALTER EXTENSION ... UPDATE: every row and seed kept, the schema that of a fresh install,
/// the guard against column changes there.
fn update_and_compare(client: &mut Client, release: &str, fair: bool, fresh_schema: &[String]) {
    let current = env!("CARGO_PKG_VERSION");
    let seeds_before = fair_seeds(client, fair);
    let seats_seeds_before = if fair {
        fair_seats_seeds(client)
    } else {
        Vec::new()
    };
    let before = data(client);

    client
        .batch_execute("ALTER EXTENSION dealcards UPDATE")
        .unwrap();
    let version: String = one(
        client,
        "SELECT extversion FROM pg_extension WHERE extname = 'dealcards'",
    );
    assert_eq!(version, current, "from {release}");
    same_rows(&data(client), &before, release);
    assert_eq!(
        fair_seeds(client, fair),
        seeds_before,
        "fair_seed changed (from {release})"
    );
    if fair {
        // The seeds of the seats of desks in the mode answer their desks' rounds; desk 4's
        // is there.
        let moved = fair_seats_seeds(client);
        assert_eq!(moved, seats_seeds_before, "client seeds (from {release})");
        assert!(moved.iter().any(|l| l.starts_with("4 ")), "{moved:?}");
    }
    let diff = differences(&schema(client), fresh_schema);
    assert!(diff.is_empty(), "from {release}:\n{}", diff.join("\n"));

    // The guard against column changes is there after the update, as in a fresh install.
    let error = client
        .batch_execute("ALTER TABLE game ADD COLUMN winner smallint")
        .unwrap_err();
    assert_eq!(error.code().map(|c| c.code()), Some("0A000"), "{error:?}");
}

/// Desk 4 deals on under the commitment it had, with the seeds it had, and every game of it
/// verifies.
fn check_desk_4_deals_on(client: &mut Client, release: &str) {
    // Updated, it returns what does not depend on the shuffle; the receipt, once the
    // deal has committed, adds the first bidder and the chain hash.
    let dealt: String = one(client, "SELECT deal_cards(4)::text");
    let value: serde_json::Value = serde_json::from_str(&dealt).unwrap();
    assert_eq!(value["nonce"], 2, "from {release}: {dealt}");
    assert!(
        value.get("leader").is_none() && value.get("chain_hash").is_none(),
        "from {release}: {dealt}"
    );
    let receipt_adds: bool = one(
        client,
        &format!(
            "SELECT r - 'leader' - 'chain_hash' = '{dealt}'::jsonb AND r ?& ARRAY['leader', 'chain_hash']
               FROM fair_receipt({}) r",
            value["game"]
        ),
    );
    assert!(receipt_adds, "from {release}: {dealt}");
    let seeds: String = one(
        client,
        "SELECT client_seeds::text FROM game WHERE desk_id = 4 ORDER BY game_id DESC LIMIT 1",
    );
    assert_eq!(seeds, "{\"\",Zoë,\"\"}", "from {release}");
    client.batch_execute("SELECT fair_reveal(4)").unwrap();
    // The next round is of this release's protocol (3: its rules in the chain), the
    // stored ones keep theirs, and the desk's chain runs on across them.
    let protocols: String = one(
        client,
        "SELECT string_agg(protocol::text, ' ' ORDER BY round) FROM fair_commitment
          WHERE desk_id = 4",
    );
    assert!(
        protocols.ends_with(" 3") && !protocols[..protocols.len() - 2].contains('3'),
        "from {release}: {protocols}"
    );
    // The rounds from before the update record no place (they dealt on above) and have no time
    // limit; the next round records this one and is due a day after its commitment, the
    // default, where no limit was asked for.
    let rounds: String = one(
        client,
        "SELECT string_agg((place IS NOT NULL)::text || ' '
                           || COALESCE((reveal_by - committed_at)::text, 'none'), ', ' ORDER BY round)
           FROM fair_seed WHERE desk_id = 4",
    );
    let (before, next) = rounds.rsplit_once(", ").unwrap();
    assert_eq!(next, "true 1 day", "from {release}: {rounds}");
    assert!(
        before.split(", ").all(|r| r == "false none"),
        "from {release}: {rounds}"
    );
    client
        .batch_execute("SELECT set_client_seed(4, 2, 'Zoë again')")
        .unwrap();
    client.batch_execute("SELECT deal_cards(4)").unwrap();
    client.batch_execute("SELECT fair_reveal(4)").unwrap();
    let verified: bool = one(
        client,
        "SELECT count(*) = 4 AND bool_and(verified) FROM fair_verify_desk(4)",
    );
    assert!(verified, "desk 4's games do not verify (from {release})");
}

/// A dump of the updated database restores with every row and the numbering.
fn check_a_dump_restores(client: &mut Client, db: &str, release: &str) {
    let after = data(client);
    let last_game: i64 = one(client, "SELECT max(game_id) FROM game");
    let mut restored = server::fresh_database("dealcards_upgrade_restored");
    server::dump_and_restore(db, "dealcards_upgrade_restored");
    assert_eq!(
        data(&mut restored),
        after,
        "pg_dump and pg_restore lost rows (from {release})"
    );
    let restored_next: i64 = one(&mut restored, "SELECT (deal_cards(3) ->> 'game')::bigint");
    assert_eq!(
        restored_next,
        last_game + 1,
        "the restored numbering goes on"
    );
}

/// The comparison catches an update script that misses one change: each mutation below undoes
/// one kind of change an update script makes, on an updated database, and must show.
/// An update to 0.4.0 refuses a database where a desk names a commitment that is not an
/// unrevealed round of its own (its row was rewritten), says which, and changes nothing; once
/// the desk is taken out of the mode as the error says, it goes through.
#[test]
fn the_update_to_0_4_0_refuses_a_rewritten_desk() {
    let db = "dealcards_upgrade_rewritten";
    let mut client = server::fresh_database(db);
    client
        .batch_execute(
            "CREATE EXTENSION dealcards VERSION '0.3.0';
             INSERT INTO desk (desk_id) VALUES (5), (6);
             INSERT INTO desk_player SELECT d, s, s FROM generate_series(5, 6) d, generate_series(1, 3) s;
             SELECT fair_mode_on(5), fair_mode_on(6);
             SELECT deal_cards(5), deal_cards(6);
             UPDATE desk SET fair_commitment = sha256('not a seed') WHERE desk_id = 6;",
        )
        .unwrap();
    let before = data(&mut client);
    let error = client
        .batch_execute("ALTER EXTENSION dealcards UPDATE TO '0.4.0'")
        .unwrap_err();
    let db_error = error.as_db_error().expect("a server error");
    assert_eq!(db_error.code().code(), "XX001", "{db_error:?}");
    assert!(
        db_error.message().contains("desks 6 name a commitment"),
        "{db_error:?}"
    );
    let version: String = one(
        &mut client,
        "SELECT extversion FROM pg_extension WHERE extname = 'dealcards'",
    );
    assert_eq!(version, "0.3.0");
    assert_eq!(data(&mut client), before);
    client
        .batch_execute(
            "UPDATE desk SET fair_round = NULL, fair_commitment = NULL, fair_nonce = NULL WHERE desk_id = 6;
             ALTER EXTENSION dealcards UPDATE TO '0.4.0';",
        )
        .unwrap();
    let dealt: bool = one(
        &mut client,
        "SELECT deal_cards(5) ? 'commitment' AND fair_mode_on(6) IS NOT NULL",
    );
    assert!(dealt);
}

#[test]
fn the_schema_comparison_catches_a_missing_change() {
    let mut fresh = server::fresh_database("dealcards_upgrade_mutated");
    fresh.batch_execute("CREATE EXTENSION dealcards").unwrap();
    let reference = schema(&mut fresh);
    for mutation in [
        "ALTER FUNCTION shuffle_queue_current(bigint) STABLE",
        "ALTER FUNCTION shuffle_queue_next(bigint) SET search_path = public, pg_temp",
        "ALTER FUNCTION deal_hands(integer, integer, integer) PARALLEL UNSAFE",
        // The guard refuses this one; with it off, the comparison must still see the column.
        "ALTER EVENT TRIGGER dealcards_keep_table_columns_end DISABLE;
         ALTER TABLE game ADD COLUMN winner smallint",
        "ALTER EVENT TRIGGER dealcards_keep_table_columns_start DISABLE",
        // Refused too (a dump would drop it), but for who takes the loss knowingly.
        "SET LOCAL dealcards.allow_own_objects = on;
         ALTER TABLE note ALTER COLUMN flag DROP NOT NULL",
        "DROP INDEX shuffle_queue_track_track",
        "ALTER TABLE desk_player DROP CONSTRAINT desk_player_player_no_check",
        "CREATE TABLE extra (x int); ALTER EXTENSION dealcards ADD TABLE extra",
        "ALTER EXTENSION dealcards DROP VIEW v_player_id_in_room",
        "ALTER SEQUENCE shuffle_queue_id_seq INCREMENT BY 2",
        // The secret table's privileges, the view that hides its seeds, and what takes a desk's
        // seats with it.
        "GRANT SELECT ON fair_seed TO PUBLIC",
        "ALTER VIEW fair_commitment RESET (security_barrier)",
        "DROP RULE desk_seats_go_with_desk ON desk",
    ] {
        fresh.batch_execute("BEGIN").unwrap();
        fresh.batch_execute(mutation).unwrap();
        let diff = differences(&schema(&mut fresh), &reference);
        fresh.batch_execute("ROLLBACK").unwrap();
        assert!(!diff.is_empty(), "not caught: {mutation}");
    }
    assert!(differences(&schema(&mut fresh), &reference).is_empty());
}

/// A column of the user's own in an extension table would be lost with every row on restore, so
/// it is refused; the way the refusal points to, a table of the user's own keyed by game_id,
/// dumps and restores with the games.
#[test]
fn user_columns_are_refused_and_a_side_table_restores() {
    let db = "dealcards_side_table";
    let mut client = server::fresh_database(db);
    client
        .batch_execute(
            "CREATE EXTENSION dealcards;
             INSERT INTO desk VALUES (1);
             INSERT INTO desk_player VALUES (1, 1, 11), (1, 2, 12), (1, 3, 13);
             SELECT deal_cards(1) FROM generate_series(1, 3);",
        )
        .unwrap();
    let error = client
        .batch_execute("ALTER TABLE game ADD COLUMN winner smallint")
        .unwrap_err();
    let error = error.as_db_error().expect("an error from the server");
    assert_eq!(error.code().code(), "0A000", "{}", error.message());
    assert!(error
        .hint()
        .is_some_and(|h| h.contains("table of your own")));
    client
        .batch_execute(
            "CREATE TABLE game_result (game_id bigint PRIMARY KEY, winner smallint);
             INSERT INTO game_result SELECT game_id, leader FROM game;",
        )
        .unwrap();
    let before = data(&mut client);
    let results: i64 = one(&mut client, "SELECT count(*) FROM game_result");
    assert_eq!(results, 3);

    let restored = "dealcards_side_table_restored";
    let mut copy = server::fresh_database(restored);
    server::dump_and_restore(db, restored);
    assert_eq!(data(&mut copy), before);
    let joined: i64 = one(
        &mut copy,
        "SELECT count(*) FROM game g JOIN game_result r USING (game_id) WHERE r.winner = g.leader",
    );
    assert_eq!(joined, 3);
}

/// A state as shuffle_queue_save printed it in the releases 0.5.0 and 0.6.0 (their pg_regress
/// outputs, `playlist_seeded`): a seeded queue two steps in, with a track up next.
const SAVED_BY_0_5_AND_0_6: &str = r#"{"mode": "shuffle", "seed": "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", "tape": [30, 10, 20], "draws": 2, "front": 2, "plays": null, "behind": 0, "format": 1, "spread": null, "tracks": 3, "window": null, "history": 2, "skipped": [], "up_next": [30], "weights": null, "listener": null}"#;

/// Queues of every kind, each with a track to skip when shuffling and one to put up next: the
/// states saved on a database of an earlier release.
const QUEUES_TO_SAVE: [(&str, i64, i64); 5] = [
    (
        "SELECT shuffle_queue_new(ARRAY[1, 2, 3, 4, 5, 6]::bigint[], 'shuffle', 2, seed => sha256('a'))",
        6,
        1,
    ),
    (
        "SELECT shuffle_queue_new(ARRAY[1, 2, 3, 4]::bigint[], 'random', seed => sha256('b'),
                                  weights => '{1, 2, 3, 4}')",
        4,
        1,
    ),
    (
        "SELECT shuffle_queue_new(ARRAY[1, 2, 3, 4, 5, 6]::bigint[], groups => '{a, a, b, b, c, c}',
                                  subgroups => '{x, y, x, y, x, y}', seed => sha256('c'))",
        6,
        1,
    ),
    (
        "SELECT shuffle_queue_new(ARRAY[1, 2, 3, 4, 5]::bigint[],
                                  groups => ARRAY['Zoë', 'Zoë', 'b', NULL, 'c'], listener => 7)",
        5,
        1,
    ),
    ("SELECT shuffle_queue_create(ARRAY[10, 20, 30]::bigint[])", 30, 10),
];

/// States saved by 0.5.0 and 0.6.0 (the releases with shuffle_queue_save) restore on this
/// release: each a copy that saves as the same state and, seeded, goes on with the same tracks.
#[test]
fn states_saved_by_earlier_releases_restore() {
    let db = "dealcards_saved_states";
    for release in ["0.5.0", "0.6.0"] {
        let mut client = server::fresh_database(db);
        client
            .batch_execute(&format!("CREATE EXTENSION dealcards VERSION '{release}'"))
            .unwrap();
        let mut queues = Vec::new();
        for (sql, skip, up_next) in QUEUES_TO_SAVE {
            let q: i64 = one(&mut client, sql);
            client
                .batch_execute(&format!(
                    "SELECT shuffle_queue_next({q}), shuffle_queue_next({q}), shuffle_queue_prev({q});
                     SELECT shuffle_queue_skip_when_shuffling({q}, {skip});
                     SELECT shuffle_queue_play_later({q}, ARRAY[{up_next}]::bigint[])"
                ))
                .unwrap_or_else(|e| panic!("{sql} (on {release}): {e:?}"));
            let saved: String = one(
                &mut client,
                &format!("SELECT shuffle_queue_save({q})::text"),
            );
            queues.push((q, saved));
        }
        client
            .batch_execute("ALTER EXTENSION dealcards UPDATE")
            .unwrap();
        let mut states: Vec<(Option<i64>, String)> = queues
            .into_iter()
            .map(|(q, saved)| (Some(q), saved))
            .collect();
        states.push((None, SAVED_BY_0_5_AND_0_6.to_string()));
        for (original, saved) in states {
            let copy: i64 = client
                .query_one("SELECT shuffle_queue_restore($1::text::jsonb)", &[&saved])
                .unwrap_or_else(|e| panic!("restoring {saved} (saved on {release}): {e:?}"))
                .get(0);
            let same: bool = client
                .query_one(
                    "SELECT shuffle_queue_save($1) = $2::text::jsonb",
                    &[&copy, &saved],
                )
                .unwrap()
                .get(0);
            assert!(
                same,
                "{saved} (saved on {release}) restores as another state"
            );
            let seeded = saved.contains("\"seed\": \"");
            if let (Some(q), true) = (original, seeded) {
                let steps = "SELECT array_agg(shuffle_queue_next($1)) FROM generate_series(1, 12)";
                let ahead: Vec<i64> = client.query_one(steps, &[&q]).unwrap().get(0);
                let copied: Vec<i64> = client.query_one(steps, &[&copy]).unwrap().get(0);
                assert_eq!(
                    copied, ahead,
                    "{saved} (saved on {release}) goes on otherwise"
                );
            }
        }
        drop(client);
    }
}
