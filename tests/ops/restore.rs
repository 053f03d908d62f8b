//! pg_dump and pg_restore of a database with dealcards, as docs/operations.md says: a serial
//! restore of the custom and the directory format into a new database, a plain-text dump run by
//! psql, 20 parallel restores (`pg_restore -j 4` and `-j 8`, both formats, into new databases
//! and with `--clean --if-exists` over the database the dump came from), and `-j 1`, keep every
//! row and every sequence, exit 0, leave nothing for dealcards_check() to name, and the provably
//! fair desk verifies after each; a dump of the oldest major restores into the newest. No key
//! joins the extension's tables, which is what lets a parallel restore load their rows side by
//! side; a user's own key to `desk` and `game` is restored with them. The user's own index on an
//! extension table, made where allowed, is not in the dump, as the docs say; such objects are
//! refused unless allowed, and those on the user's own tables survive a restore. A backup role
//! that is not the owner dumps every row but the unrevealed seeds, and its dump restores.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use postgres::Client;

use crate::dealing::{deal, game_of, populate, set_seeds, snapshot, verify_desk};
use crate::servers::{bin_dir, rows, run, value, Cluster};

fn create_database(cluster: &Cluster, name: &str) {
    let mut client = cluster.connect("postgres");
    client
        .batch_execute(&format!("DROP DATABASE IF EXISTS {name}"))
        .unwrap();
    client
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .unwrap();
}

/// pg_dump of `dbname` in `format` (c or d) into `path`.
fn dump(bin: &Path, cluster: &Cluster, dbname: &str, format: &str, path: &Path) {
    let mut command = cluster.client_tool(bin, "pg_dump");
    command.args(["-F", format, "-f"]).arg(path).arg(dbname);
    run(command);
}

/// The extension's foreign keys: (table, constraint, referenced table).
fn foreign_keys(client: &mut Client) -> Vec<(String, String, String)> {
    rows(
        client,
        "SELECT c.conrelid::regclass::text, c.conname::text, c.confrelid::regclass::text
           FROM pg_constraint c
           JOIN pg_depend d ON d.objid = c.conrelid AND d.classid = 'pg_class'::regclass
                           AND d.deptype = 'e'
           JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'dealcards'
          WHERE c.contype = 'f'
          ORDER BY 1, 2",
    )
    .into_iter()
    .map(|r| {
        (
            r[0].clone().unwrap(),
            r[1].clone().unwrap(),
            r[2].clone().unwrap(),
        )
    })
    .collect()
}

/// What must be the same after a restore, with the provably fair desk's verification.
type State = (BTreeMap<String, String>, (i64, i64, i64, i64));

fn state(client: &mut Client) -> State {
    let snap = snapshot(client);
    let verified = verify_desk(client, 10);
    (snap, verified)
}

/// Panics naming every table or sequence whose contents differ from `expected`, and the desk's
/// verification if it differs.
fn assert_same(client: &mut Client, expected: &State, what: &str) {
    let now = state(client);
    let differ: Vec<&String> = expected
        .0
        .keys()
        .chain(now.0.keys())
        .filter(|k| expected.0.get(*k) != now.0.get(*k))
        .collect();
    assert!(differ.is_empty(), "{what}: these differ: {differ:?}");
    assert_eq!(now.1, expected.1, "{what}: fair_verify_desk(10)");
}

fn cluster_with_data(bin: &Path, name: &str) -> (Cluster, PathBuf, PathBuf) {
    let mut cluster = Cluster::init(bin, name, &[]);
    cluster.start();
    let mut client = cluster.database_with_dealcards("src");
    populate(&mut client);
    // More desks, so that a parallel restore has rows to race with; each statement commits on
    // its own (a provably fair deal takes only a round committed before it).
    for sql in [
        "INSERT INTO desk (desk_id) SELECT generate_series(100, 399)",
        "INSERT INTO desk_player SELECT d, s, d * 10 + s
           FROM generate_series(100, 399) d, generate_series(1, 3) s",
        "SELECT count(deal_cards(d)) FROM generate_series(100, 399) d",
        "SELECT count(fair_mode_on(d, seeds_required => false)) FROM generate_series(200, 399) d",
        "SELECT count(deal_cards(d)) FROM generate_series(200, 399) d",
        "SET dealcards.allow_own_objects = on",
        "CREATE INDEX users_own_index ON game (dealt_at)",
        "RESET dealcards.allow_own_objects",
        // A table of the user's own with keys to desk and game: a restore must load their rows
        // before it makes the keys.
        "CREATE TABLE table_talk (id int PRIMARY KEY,
                                  desk_id int NOT NULL REFERENCES desk,
                                  game_id bigint,
                                  said text,
                                  FOREIGN KEY (desk_id, game_id) REFERENCES game)",
        "INSERT INTO table_talk SELECT g.game_id, g.desk_id, g.game_id, 'gg' FROM game g",
    ] {
        client.batch_execute(sql).unwrap();
    }
    let custom = cluster.dir.join("src.dump");
    let directory = cluster.dir.join("src.dir");
    dump(bin, &cluster, "src", "c", &custom);
    dump(bin, &cluster, "src", "d", &directory);
    (cluster, custom, directory)
}

/// What a restored database must hold besides the extension's rows: the user's own table with
/// its rows and both of its keys, and nothing for dealcards_check() to name.
fn assert_users_table_and_nothing_to_mend(client: &mut Client, expected_talk: &str, what: &str) {
    assert_eq!(
        value(
            client,
            "SELECT count(*) || ' ' || coalesce(sum(id), 0) FROM table_talk"
        ),
        expected_talk,
        "{what}: the rows of the user's table"
    );
    assert_eq!(
        value(
            client,
            "SELECT count(*) FROM pg_constraint
              WHERE conrelid = 'table_talk'::regclass AND contype = 'f'"
        ),
        "2",
        "{what}: the user's keys to desk and game"
    );
    assert_eq!(
        rows(client, "SELECT * FROM dealcards_check()"),
        Vec::<Vec<Option<String>>>::new(),
        "{what}: dealcards_check()"
    );
}

/// Runs pg_restore with `args` and `archive`, and panics with its output unless it exits 0.
fn restore(bin: &Path, cluster: &Cluster, args: &[&str], archive: &Path) {
    let mut command = cluster.client_tool(bin, "pg_restore");
    command.args(args).arg(archive);
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "pg_restore {args:?} {}: {}\n{}",
        archive.display(),
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn every_restore_serial_or_parallel_keeps_every_row() {
    let bin = bin_dir("DEALCARDS_OPS_PG_BIN");
    let (cluster, custom, directory) = cluster_with_data(&bin, "restore");
    let mut source = cluster.connect("src");
    let expected = state(&mut source);
    assert!(
        expected.1 .1 > 0 && expected.1 .3 == 0,
        "desk 10 before: {:?}",
        expected.1
    );
    let talk = value(
        &mut source,
        "SELECT count(*) || ' ' || coalesce(sum(id), 0) FROM table_talk",
    );
    // The tracks queue 1 promised (a replay, then steps drawn ahead): a restored copy plays them.
    let promised = value(&mut source, PROMISED_SQL);
    // Nothing for a parallel restore to break: no key joins the extension's tables.
    assert_eq!(
        foreign_keys(&mut source),
        Vec::new(),
        "a foreign key between dealcards' tables: pg_restore -j may load its rows first"
    );
    drop(source);

    let dumped = Dumped {
        bin: &bin,
        cluster: &cluster,
        custom: &custom,
        directory: &directory,
        expected: &expected,
        talk: &talk,
    };
    serial_restores(&dumped);
    plain_text_restore(&dumped);
    let parallel = parallel_restores(&dumped, &promised) + clean_restores(&dumped);
    assert_eq!(parallel, 20, "parallel restores");
}

/// The tracks queue 1 will play next.
const PROMISED_SQL: &str = "SELECT string_agg(track::text, ' ' ORDER BY place)
                          FROM shuffle_queue_upcoming(1, 8)";

/// The dumps of database src and what its restores must hold.
struct Dumped<'a> {
    bin: &'a Path,
    cluster: &'a Cluster,
    /// The dump in custom format.
    custom: &'a PathBuf,
    /// The dump in directory format.
    directory: &'a PathBuf,
    expected: &'a State,
    /// The user's own table's rows, as assert_users_table_and_nothing_to_mend takes them.
    talk: &'a str,
}

/// Serial restores, custom and directory format, into new databases.
fn serial_restores(d: &Dumped) {
    for (archive, dbname) in [(d.custom, "serial_c"), (d.directory, "serial_d")] {
        create_database(d.cluster, dbname);
        restore(d.bin, d.cluster, &["-d", dbname], archive);
        let mut restored = d.cluster.connect(dbname);
        assert_same(&mut restored, d.expected, dbname);
        assert_users_table_and_nothing_to_mend(&mut restored, d.talk, dbname);
        // The user's own index on an extension table is not in the dump (docs say so).
        assert_eq!(
            value(
                &mut restored,
                "SELECT count(*) FROM pg_indexes WHERE indexname = 'users_own_index'"
            ),
            "0",
            "{dbname}: pg_dump now dumps the user's index on game: docs/operations.md says it does not"
        );
        // The numbering goes on after the restored games.
        let last = value(&mut restored, "SELECT max(game_id) FROM game");
        let next = game_of(&deal(&mut restored, 1));
        assert!(next > last.parse::<i64>().unwrap(), "{dbname}: game {next}");
    }
}

/// A plain-text dump, run by psql.
fn plain_text_restore(d: &Dumped) {
    let plain = d.cluster.dir.join("src.sql");
    dump(d.bin, d.cluster, "src", "p", &plain);
    create_database(d.cluster, "plain_sql");
    let mut command = d.cluster.client_tool(d.bin, "psql");
    command
        .args(["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", "plain_sql", "-f"])
        .arg(&plain);
    run(command);
    let mut restored = d.cluster.connect("plain_sql");
    assert_same(&mut restored, d.expected, "plain_sql");
    assert_users_table_and_nothing_to_mend(&mut restored, d.talk, "plain_sql");
}

/// Parallel restores into new databases: -j 1, then 16 with 4 and 8 jobs, both formats. Each
/// database is dropped once checked, so that the cluster's disk holds two at a time. The
/// restores with more than one job.
fn parallel_restores(d: &Dumped, promised: &str) -> usize {
    let mut parallel = 0;
    let mut runs = vec![("1", d.custom, "c"), ("1", d.directory, "d")];
    for _ in 0..4 {
        for jobs in ["4", "8"] {
            runs.push((jobs, d.custom, "c"));
            runs.push((jobs, d.directory, "d"));
        }
    }
    for (n, (jobs, archive, format)) in runs.into_iter().enumerate() {
        let dbname = format!("parallel_{format}_{jobs}_{n}");
        create_database(d.cluster, &dbname);
        restore(d.bin, d.cluster, &["-j", jobs, "-d", &dbname], archive);
        let mut restored = d.cluster.connect(&dbname);
        assert_same(&mut restored, d.expected, &dbname);
        assert_users_table_and_nothing_to_mend(&mut restored, d.talk, &dbname);
        assert_eq!(value(&mut restored, PROMISED_SQL), promised, "{dbname}");
        let first = value(&mut restored, "SELECT shuffle_queue_next(1)");
        assert_eq!(Some(first.as_str()), promised.split(' ').next(), "{dbname}");
        let last = value(&mut restored, "SELECT max(game_id) FROM game");
        let next = game_of(&deal(&mut restored, 1));
        assert!(next > last.parse::<i64>().unwrap(), "{dbname}: game {next}");
        drop(restored);
        d.cluster
            .connect("postgres")
            .batch_execute(&format!("DROP DATABASE {dbname}"))
            .unwrap();
        if jobs != "1" {
            parallel += 1;
        }
    }
    parallel
}

/// --clean --if-exists over the database the dump came from, after changes to it: serially,
/// then with 4 and 8 jobs from both formats. The restores with more than one job.
fn clean_restores(d: &Dumped) -> usize {
    let mut parallel = 0;
    let mut cleans: Vec<(Vec<&str>, &PathBuf)> = vec![(vec![], d.custom)];
    for jobs in ["4", "8"] {
        cleans.push((vec!["-j", jobs], d.custom));
        cleans.push((vec!["-j", jobs], d.directory));
    }
    for (jobs, archive) in cleans {
        let mut source = d.cluster.connect("src");
        for sql in [
            "SELECT count(deal_cards(d)) FROM generate_series(100, 120) d",
            "DELETE FROM table_talk WHERE desk_id BETWEEN 300 AND 310",
            "DELETE FROM desk WHERE desk_id BETWEEN 300 AND 310",
            "SELECT shuffle_queue_next(1)",
            "SELECT fair_reveal(10)",
        ] {
            source.batch_execute(sql).unwrap();
        }
        drop(source);
        let what = format!("--clean --if-exists {jobs:?} {}", archive.display());
        let mut args = vec!["--clean", "--if-exists", "-d", "src"];
        args.extend(jobs.iter());
        restore(d.bin, d.cluster, &args, archive);
        let mut source = d.cluster.connect("src");
        assert_same(&mut source, d.expected, &what);
        assert_users_table_and_nothing_to_mend(&mut source, d.talk, &what);
        if !jobs.is_empty() {
            parallel += 1;
        }
    }
    parallel
}

#[test]
fn a_dump_of_the_oldest_major_restores_into_the_newest() {
    // scripts/test_ops.sh sets the two majors only when it has both, and otherwise leaves this
    // test out by name and says so in make test's summary: run alone, it fails rather than pass.
    let (from, to) = (
        bin_dir("DEALCARDS_UPGRADE_FROM_BIN"),
        bin_dir("DEALCARDS_UPGRADE_TO_BIN"),
    );
    let (old, _, _) = cluster_with_data(&from, "restore-old");
    let expected = state(&mut old.connect("src"));
    // The newer major's pg_dump reads the older server, as PostgreSQL advises.
    let archive = old.dir.join("by-newer.dump");
    dump(&to, &old, "src", "c", &archive);
    let mut new = Cluster::init(&to, "restore-new", &[]);
    new.start();
    create_database(&new, "restored");
    restore(&to, &new, &["-j", "4", "-d", "restored"], &archive);
    let mut restored = new.connect("restored");
    assert_same(&mut restored, &expected, "the newer major");
    assert_eq!(
        rows(&mut restored, "SELECT * FROM dealcards_check()"),
        Vec::<Vec<Option<String>>>::new(),
        "the newer major: dealcards_check()"
    );
    let last = value(&mut restored, "SELECT max(game_id) FROM game");
    let next = game_of(&deal(&mut restored, 1));
    assert!(next > last.parse::<i64>().unwrap(), "game {next}");
}

/// The hex of fair_seed's server seeds, revealed or not, as the owner reads them.
fn seeds(client: &mut Client, revealed: bool) -> Vec<String> {
    let sql = format!(
        "SELECT encode(server_seed, 'hex') FROM fair_seed WHERE (revealed_at IS NOT NULL) = {revealed}"
    );
    rows(client, &sql)
        .into_iter()
        .map(|r| r[0].clone().unwrap())
        .collect()
}

/// A backup role that is not the owner, as DBAs make one (LOGIN, pg_read_all_data), dumps the
/// database as docs/operations.md says: with --enable-row-security (without it pg_dump stops at
/// the first table with row security). The dump holds every row of every table of the
/// extension and every sequence, but fair_seed's rounds in force and the hands' keys: the
/// revealed seeds are in it, no unrevealed one is, and no key. Restored by a superuser into a
/// new database: the ordinary desks deal on; the provably fair desk, whose round in force stayed
/// behind, deals nothing (XX001) and dealcards_check() names it, until fair_mode_off (a warning,
/// no reveal) and fair_mode_on give it a new round; its revealed round's games verify, those of
/// the round left behind do not; the hand without its key is named until it is ended.
#[test]
fn a_backup_roles_dump_holds_every_row_but_the_unrevealed_seeds() {
    let bin = bin_dir("DEALCARDS_OPS_PG_BIN");
    let mut cluster = Cluster::init(&bin, "backup-role", &[]);
    cluster.start();
    let mut source = cluster.database_with_dealcards("src");
    populate(&mut source);
    source
        .batch_execute("CREATE ROLE backup LOGIN; GRANT pg_read_all_data TO backup")
        .unwrap();
    let (unrevealed, revealed) = (seeds(&mut source, false), seeds(&mut source, true));
    assert!(!unrevealed.is_empty() && !revealed.is_empty());
    let archive = cluster.dir.join("backup-role.dump");
    dump_as_the_backup_role(&bin, &cluster, &archive, &revealed, &unrevealed);

    // A parallel restore of it holds the same rows as the serial one checked below.
    create_database(&cluster, "from_backup_j4");
    restore(
        &bin,
        &cluster,
        &["-j", "4", "-d", "from_backup_j4"],
        &archive,
    );
    create_database(&cluster, "from_backup");
    restore(&bin, &cluster, &["-d", "from_backup"], &archive);
    let mut restored = cluster.connect("from_backup");
    assert_eq!(
        snapshot(&mut cluster.connect("from_backup_j4")),
        snapshot(&mut restored),
        "pg_restore -j 4 of the backup role's dump"
    );
    let (expected, got) = (snapshot(&mut source), snapshot(&mut restored));
    for (name, rows_there) in &expected {
        let rows_here = got
            .get(name)
            .unwrap_or_else(|| panic!("{name} not restored"));
        if name.ends_with("fair_seed") {
            let revealed_rows = value(
                &mut source,
                "SELECT COALESCE(string_agg(t::text, E'\\n' ORDER BY t::text), '')
                   FROM fair_seed t WHERE revealed_at IS NOT NULL",
            );
            assert_eq!(rows_here, &revealed_rows, "{name}: the revealed rounds");
        } else if name.ends_with("room_hand_key") {
            // Row security shows a hand's key to no role but the owner.
            assert_eq!(rows_here, "", "{name}: no key in the backup role's dump");
        } else {
            assert_eq!(rows_here, rows_there, "{name}");
        }
    }
    // The ordinary desks deal on.
    let last = value(&mut restored, "SELECT max(game_id) FROM game");
    assert!(game_of(&deal(&mut restored, 1)) > last.parse::<i64>().unwrap());
    check_the_fair_desk_is_named_refused_and_mended(&mut restored);
}

/// pg_dump as the backup role: refused without --enable-row-security, and with it an archive
/// that holds the revealed seeds and no unrevealed one.
fn dump_as_the_backup_role(
    bin: &Path,
    cluster: &Cluster,
    archive: &Path,
    revealed: &[String],
    unrevealed: &[String],
) {
    let by_backup = |extra: &[&str]| {
        let mut command = cluster.client_tool(bin, "pg_dump");
        command
            .env("PGUSER", "backup")
            .args(extra)
            .args(["-F", "c", "-f"])
            .arg(archive)
            .arg("src");
        command.output().unwrap()
    };
    let refused = by_backup(&[]);
    assert!(
        !refused.status.success()
            && String::from_utf8_lossy(&refused.stderr).contains("row-level security"),
        "pg_dump as the backup role without --enable-row-security: {refused:?}"
    );
    let dumped = by_backup(&["--enable-row-security"]);
    assert!(dumped.status.success(), "{dumped:?}");
    // What the archive holds, as text: the revealed seeds, no unrevealed one.
    let mut text = cluster.client_tool(bin, "pg_restore");
    text.args(["-f", "-"]).arg(archive);
    let text = String::from_utf8_lossy(&run(text).stdout).into_owned();
    for seed in revealed {
        assert!(
            text.contains(seed.as_str()),
            "a revealed seed is not in the dump"
        );
    }
    for seed in unrevealed {
        assert!(
            !text.contains(seed.as_str()),
            "an unrevealed seed is in the dump"
        );
    }
}

/// The provably fair desk: named, refused, mended.
fn check_the_fair_desk_is_named_refused_and_mended(restored: &mut Client) {
    let named = rows(
        restored,
        "SELECT table_name, desk_id FROM dealcards_check()",
    );
    // The bridge hand of `populate` lost its key with the dump: it cannot deal on.
    assert_eq!(
        named,
        vec![
            vec![Some("desk".to_string()), Some("10".to_string())],
            vec![Some("room_hand".to_string()), None],
        ]
    );
    let refused = restored.query("SELECT deal_cards(10)", &[]).unwrap_err();
    assert_eq!(
        refused.code(),
        Some(&postgres::error::SqlState::DATA_CORRUPTED)
    );
    let (games, verified, _, failed) = verify_desk(restored, 10);
    assert_eq!((games, verified, failed), (6, 3, 3), "fair_verify_desk(10)");
    assert!(rows(restored, "SELECT * FROM fair_mode_off(10)").is_empty());
    value(restored, "SELECT fair_mode_on(10) IS NOT NULL");
    set_seeds(restored, 10, "after the restore");
    deal(restored, 10);
    value(
        restored,
        "SELECT count(hand_end(hand_id)) FROM room_hand WHERE NOT ended",
    );
    assert!(rows(restored, "SELECT * FROM dealcards_check()").is_empty());
}

/// Every object that hangs off one of the extension's tables: (table, kind, name).
fn objects_on_member_tables(client: &mut Client) -> Vec<Vec<Option<String>>> {
    rows(
        client,
        "WITH members AS (
             SELECT d.objid AS relid FROM pg_depend d
               JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'dealcards'
              WHERE d.classid = 'pg_class'::regclass AND d.deptype = 'e')
         SELECT indrelid::regclass::text, 'index', indexrelid::regclass::text
           FROM pg_index WHERE indrelid IN (SELECT relid FROM members)
         UNION ALL SELECT conrelid::regclass::text, 'constraint', conname::text
           FROM pg_constraint WHERE conrelid IN (SELECT relid FROM members)
         UNION ALL SELECT tgrelid::regclass::text, 'trigger', tgname::text
           FROM pg_trigger WHERE tgrelid IN (SELECT relid FROM members) AND NOT tgisinternal
         UNION ALL SELECT ev_class::regclass::text, 'rule', rulename::text
           FROM pg_rewrite WHERE ev_class IN (SELECT relid FROM members)
         UNION ALL SELECT polrelid::regclass::text, 'policy', polname::text
           FROM pg_policy WHERE polrelid IN (SELECT relid FROM members)
         UNION ALL SELECT stxrelid::regclass::text, 'statistics', stxname::text
           FROM pg_statistic_ext WHERE stxrelid IN (SELECT relid FROM members)
         ORDER BY 1, 2, 3",
    )
}

#[test]
fn objects_of_the_users_own_on_dealcards_tables_are_refused_and_those_on_theirs_survive() {
    let bin = bin_dir("DEALCARDS_OPS_PG_BIN");
    let mut cluster = Cluster::init(&bin, "own-objects", &[]);
    cluster.start();
    let mut client = cluster.database_with_dealcards("own");
    populate(&mut client);
    let shipped = objects_on_member_tables(&mut client);
    client
        .batch_execute(
            "CREATE FUNCTION keep_out() RETURNS trigger LANGUAGE plpgsql
                 AS $$ BEGIN RETURN NULL; END $$",
        )
        .unwrap();

    check_objects_on_extension_tables_are_refused(&mut client, &shipped);
    check_a_concurrent_index_and_an_allowed_one(&mut client);
    make_objects_on_own_tables(&mut client);
    check_a_restore_keeps_the_users_objects(&bin, &cluster, &mut client, &shipped);
}

/// What pg_dump would not keep: refused, 0A000, the object named, nothing left behind.
fn check_objects_on_extension_tables_are_refused(
    client: &mut Client,
    shipped: &[Vec<Option<String>>],
) {
    for (sql, named) in [
        ("CREATE INDEX own_index ON game (dealt_at)", "index own_index on game"),
        ("CREATE UNIQUE INDEX own_unique ON note (note_id)", "index own_unique on note"),
        (
            "ALTER TABLE game ADD CONSTRAINT own_check CHECK (lord_no >= 0)",
            "constraint own_check on game",
        ),
        (
            "ALTER TABLE desk_player ADD CONSTRAINT own_unique_seat UNIQUE (player_id, desk_id)",
            "own_unique_seat on desk_player",
        ),
        (
            "CREATE TRIGGER own_trigger BEFORE INSERT ON game FOR EACH ROW EXECUTE FUNCTION keep_out()",
            "trigger own_trigger on game",
        ),
        (
            "CREATE RULE own_rule AS ON DELETE TO note DO INSTEAD NOTHING",
            "rule own_rule on note",
        ),
        ("CREATE POLICY own_policy ON desk USING (true)", "policy own_policy on desk"),
        (
            "CREATE STATISTICS own_statistics ON p1_id, p2_id FROM game",
            "statistics own_statistics on game",
        ),
        (
            "CREATE INDEX own_queue_index ON shuffle_queue_track (track)",
            "index own_queue_index on shuffle_queue_track",
        ),
    ] {
        let error = client.batch_execute(sql).unwrap_err();
        let db = error
            .as_db_error()
            .unwrap_or_else(|| panic!("{sql}: {error}"));
        assert_eq!(db.code().code(), "0A000", "{sql}: {}", db.message());
        assert!(db.message().contains(named), "{sql}: {}", db.message());
        assert!(
            db.hint().is_some_and(|h| h.contains("dealcards.allow_own_objects")),
            "{sql}: {:?}",
            db.hint()
        );
        assert_eq!(objects_on_member_tables(client), shipped, "{sql} left something");
    }
    // In a DO block that catches the error, too: the object is gone with the subtransaction.
    client
        .batch_execute(
            "DO $$ BEGIN CREATE INDEX own_caught ON game (leader);
                   EXCEPTION WHEN feature_not_supported THEN NULL; END $$",
        )
        .unwrap();
    assert_eq!(
        objects_on_member_tables(client),
        shipped,
        "a caught refusal left it"
    );
}

/// CREATE INDEX CONCURRENTLY has committed its index when the refusal comes: it is left
/// behind, invalid, as the error says, and can be dropped.
fn check_a_concurrent_index_and_an_allowed_one(client: &mut Client) {
    let error = client
        .batch_execute("CREATE INDEX CONCURRENTLY own_concurrent ON game (state_no)")
        .unwrap_err();
    assert_eq!(error.as_db_error().unwrap().code().code(), "0A000");
    assert_eq!(
        value(
            client,
            "SELECT count(*) FILTER (WHERE NOT indisvalid) || '/' || count(*) FROM pg_index
              WHERE indexrelid = to_regclass('own_concurrent')"
        ),
        "1/1"
    );
    client
        .batch_execute("DROP INDEX CONCURRENTLY own_concurrent")
        .unwrap();

    // Allowed by the one who takes the loss on.
    client
        .batch_execute("SET dealcards.allow_own_objects = on")
        .unwrap();
    client
        .batch_execute("CREATE INDEX own_allowed ON game (dealt_at)")
        .unwrap();
    client
        .batch_execute("RESET dealcards.allow_own_objects")
        .unwrap();
}

/// On tables of the user's own anything goes, foreign keys to the extension's tables too.
fn make_objects_on_own_tables(client: &mut Client) {
    for sql in [
        "CREATE TABLE game_result (desk_id int, game_id bigint, winner smallint,
                                   PRIMARY KEY (desk_id, game_id),
                                   FOREIGN KEY (desk_id, game_id) REFERENCES game ON DELETE CASCADE)",
        "CREATE INDEX game_result_winner ON game_result (winner)",
        "ALTER TABLE game_result ADD CONSTRAINT winner_is_a_seat CHECK (winner BETWEEN 1 AND 3)",
        "CREATE TABLE seat_remark (desk_id int REFERENCES desk ON DELETE CASCADE, remark text)",
        "CREATE TRIGGER seat_remark_kept BEFORE INSERT ON seat_remark
             FOR EACH ROW WHEN (NEW.remark = '') EXECUTE FUNCTION keep_out()",
        "CREATE VIEW my_games AS SELECT game_id FROM game WHERE 101 IN (p1_id, p2_id, p3_id)",
        "INSERT INTO game_result SELECT desk_id, game_id, leader FROM game",
        "INSERT INTO seat_remark VALUES (1, 'by the window'), (1, '')",
    ] {
        client
            .batch_execute(sql)
            .unwrap_or_else(|e| panic!("{sql}: {}", crate::servers::error_text(&e)));
    }

    // A player's games read the shipped indexes.
    client.batch_execute("SET enable_seqscan = off").unwrap();
    let plan: String = rows(
        client,
        "EXPLAIN (COSTS OFF) SELECT game_id FROM game WHERE 101 IN (p1_id, p2_id, p3_id)",
    )
    .into_iter()
    .map(|r| r[0].clone().unwrap())
    .collect::<Vec<_>>()
    .join("\n");
    for index in ["game_p1_id_idx", "game_p2_id_idx", "game_p3_id_idx"] {
        assert!(plan.contains(index), "{index} not in\n{plan}");
    }
}

/// A dump and a restore keep the user's objects on their own tables, not the one allowed on
/// an extension table.
fn check_a_restore_keeps_the_users_objects(
    bin: &Path,
    cluster: &Cluster,
    client: &mut Client,
    shipped: &[Vec<Option<String>>],
) {
    let archive = cluster.dir.join("own.dump");
    dump(bin, cluster, "own", "c", &archive);
    create_database(cluster, "own_restored");
    let mut command = cluster.client_tool(bin, "pg_restore");
    command.args(["-d", "own_restored"]).arg(&archive);
    run(command);
    let mut restored = cluster.connect("own_restored");
    assert_eq!(objects_on_member_tables(&mut restored), shipped);
    for (sql, expected) in [
        (
            "SELECT count(*) FROM game_result r JOIN game g USING (desk_id, game_id)
              WHERE r.winner = g.leader",
            value(client, "SELECT count(*) FROM game"),
        ),
        (
            "SELECT string_agg(remark, ',') FROM seat_remark",
            "by the window".to_string(),
        ),
        (
            "SELECT count(*) FROM my_games",
            value(client, "SELECT count(*) FROM my_games"),
        ),
        (
            "SELECT string_agg(conname, ',' ORDER BY conname) FROM pg_constraint
              WHERE conrelid IN ('game_result'::regclass, 'seat_remark'::regclass)",
            value(
                client,
                "SELECT string_agg(conname, ',' ORDER BY conname) FROM pg_constraint
                  WHERE conrelid IN ('game_result'::regclass, 'seat_remark'::regclass)",
            ),
        ),
        (
            "SELECT count(*) FROM pg_indexes WHERE indexname = 'game_result_winner'",
            "1".to_string(),
        ),
        (
            "SELECT count(*) FROM pg_trigger WHERE tgname = 'seat_remark_kept'",
            "1".to_string(),
        ),
    ] {
        assert_eq!(value(&mut restored, sql), expected, "{sql}");
    }
}
