#![cfg(feature = "server_tests")]
//! Provably fair desks (docs/provably_fair.md) through real client connections:
//!   - an unrevealed server seed never reaches a game server's role, by any route it has (the
//!     functions' results, errors and notices, notifications, the views, the statistics views,
//!     pg_dump), and once revealed it matches its commitment and recomputes every game;
//!   - every stored game recomputes from the revealed seed, and a changed or deleted game fails
//!     verification;
//!   - each misuse gets its SQLSTATE;
//!   - many connections dealing, changing client seeds and revealing at once never reuse a nonce
//!     and leave a history that verifies;
//!   - a dump and restore keeps the commitment in force, its nonce and its seed.
//!
//! Run by `make test` against its throwaway cluster (needs DEALCARDS_TEST_DSN, and
//! DEALCARDS_PG_BIN for pg_dump and pg_restore).

mod server;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use postgres::error::SqlState;
use postgres::{Client, NoTls};

/// The privileges of a game server's role (`game_server` here), and no more. It seats players
/// at desks and takes them away (desk, desk_player: FOR UPDATE on a desk, which every dealing and
/// provably fair function takes, needs UPDATE), records games, bids and notes (game, bid_record,
/// note, and their identity sequences), and reads the players in a room, every commitment and
/// the revealed server seeds (the views). It calls the extension's functions with the EXECUTE
/// every role has on a function by default. It has no privilege at all on fair_seed, the table
/// of the server seeds: the functions read and write it as its owner, and nothing of theirs
/// returns a seed before it is revealed. The extension is in schema public.
const GAME_SERVER_GRANTS: &str = "\
GRANT USAGE ON SCHEMA public TO game_server;
GRANT SELECT, INSERT, UPDATE, DELETE ON public.desk, public.desk_player TO game_server;
GRANT SELECT, INSERT, UPDATE ON public.game, public.bid_record, public.note TO game_server;
GRANT USAGE ON SEQUENCE public.game_game_id_seq, public.note_note_id_seq TO game_server;
GRANT SELECT ON public.fair_commitment, public.v_player_id_in_room TO game_server;
";

/// Lower-case hex, as deal_cards writes commitments.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A fresh database with the extension, and a superuser's connection to it.
fn database_with_extension(db: &str) -> Client {
    let mut admin = server::fresh_database(db);
    admin.batch_execute("CREATE EXTENSION dealcards").unwrap();
    admin
}

/// `role`, created anew as a plain login role holding exactly [`GAME_SERVER_GRANTS`] in the
/// database `admin` is connected to.
fn create_game_server_role(admin: &mut Client, role: &str) {
    server::fresh_role(
        admin,
        role,
        "LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS",
    );
    admin
        .batch_execute(&GAME_SERVER_GRANTS.replace("game_server", role))
        .unwrap();
}

/// A connection to `db` as `user` that appends every notice it receives (all its fields) to
/// `notices`.
fn connect_collecting(db: &str, user: &str, notices: Arc<Mutex<Vec<String>>>) -> Client {
    let mut config: postgres::Config = format!("{} dbname={db} user={user}", server::dsn())
        .parse()
        .unwrap();
    config.notice_callback(move |notice| notices.lock().unwrap().push(format!("{notice:?}")));
    config
        .connect(NoTls)
        .unwrap_or_else(|e| panic!("cannot connect to {db} as {user}: {e}"))
}

/// Seats players desk * 10 + seat in `seats` of a new desk.
fn seat(client: &mut Client, desk: i32, seats: &[i16]) {
    client
        .execute("INSERT INTO desk (desk_id) VALUES ($1)", &[&desk])
        .unwrap();
    for &seat in seats {
        client
            .execute(
                "INSERT INTO desk_player (desk_id, player_no, player_id) VALUES ($1, $2, $3)",
                &[&desk, &seat, &(desk as i64 * 10 + seat as i64)],
            )
            .unwrap();
    }
}

/// What deal_cards returned at a fair desk: (desk, game, commitment hex, nonce).
fn parse_fair_deal(json: &str) -> (i32, i64, String, i64) {
    let value: serde_json::Value = serde_json::from_str(json).unwrap();
    assert_eq!(
        value.as_object().unwrap().len(),
        5,
        "desk, game, leader, commitment, nonce: {json}"
    );
    (
        value["desk"].as_i64().unwrap() as i32,
        value["game"].as_i64().unwrap(),
        value["commitment"].as_str().unwrap().to_string(),
        value["nonce"].as_i64().unwrap(),
    )
}

fn deal(client: &mut Client, desk: i32) -> String {
    client
        .query_one("SELECT deal_cards($1)::text", &[&desk])
        .unwrap_or_else(|e| panic!("deal_cards({desk}): {e}"))
        .get(0)
}

/// Cards and first bidder: p1, p2, p3, extra, leader.
type Cards = (Vec<i32>, Vec<i32>, Vec<i32>, Vec<i32>, i16);

fn fair_deal(client: &mut Client, seed: &[u8], seeds: &[String], nonce: i64) -> Cards {
    let row = client
        .query_one(
            "SELECT p1_cards, p2_cards, p3_cards, extra_cards, leader FROM fair_deal($1, $2, $3)",
            &[&seed, &seeds, &nonce],
        )
        .unwrap();
    (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4))
}

/// A desk's verification: (game_id, round, nonce, verified, problem) in chain order.
type Verified = Vec<(
    Option<i64>,
    Option<i32>,
    Option<i64>,
    Option<bool>,
    Option<String>,
)>;

fn verify_desk(client: &mut Client, desk: i32) -> Verified {
    client
        .query(
            "SELECT game_id, round, nonce, verified, problem FROM fair_verify_desk($1)",
            &[&desk],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
        .collect()
}

/// Asserts every row of a desk's verification is a game verified true with no problem, and
/// returns the game ids in chain order.
fn all_verified(client: &mut Client, desk: i32) -> Vec<i64> {
    let rows = verify_desk(client, desk);
    for row in &rows {
        assert!(
            row.0.is_some() && row.3 == Some(true) && row.4.is_none(),
            "desk {desk}: not verified: {row:?}"
        );
    }
    rows.iter().map(|r| r.0.unwrap()).collect()
}

/// Asserts every row of a desk's verification is a game, verified true or, under a commitment
/// not revealed yet, linked and waiting for the reveal; returns the game ids in chain order.
fn all_verified_or_pending(client: &mut Client, desk: i32) -> Vec<i64> {
    let rows = verify_desk(client, desk);
    for row in &rows {
        let pending = row.3.is_none()
            && row.4.as_deref() == Some("the server seed of its commitment is not revealed yet");
        assert!(
            row.0.is_some() && (pending || (row.3 == Some(true) && row.4.is_none())),
            "desk {desk}: neither verified nor pending: {row:?}"
        );
    }
    rows.iter().map(|r| r.0.unwrap()).collect()
}

/// The SQLSTATE of a statement that must fail.
fn error_code(client: &mut Client, sql: &str) -> SqlState {
    let err = client
        .batch_execute(sql)
        .expect_err(&format!("{sql} succeeded"));
    err.code()
        .unwrap_or_else(|| panic!("{sql}: not a server error: {err}"))
        .clone()
}

/// A server seed as the tests look for it in what a role received: any 8 of its bytes in a
/// row, as hex (either case) or raw, or the whole seed as base64.
struct Secret {
    what: String,
    raw: Vec<u8>,
    base64: String,
}

impl Secret {
    /// Where in `text` this seed shows, if it does.
    fn found_in(&self, text: &str) -> Option<String> {
        let hex = hex(&self.raw);
        let lower = text.to_ascii_lowercase();
        for start in (0..=hex.len() - 16).step_by(2) {
            if let Some(at) = lower.find(&hex[start..start + 16]) {
                return Some(format!("hex of bytes {}.. at {at}", start / 2));
            }
        }
        for window in self.raw.windows(8) {
            if text.as_bytes().windows(8).any(|w| w == window) {
                return Some("raw bytes".into());
            }
        }
        text.contains(&self.base64).then(|| "base64".into())
    }
}

/// Everything a role received, by where it came from.
#[derive(Default)]
struct Received(Vec<(String, String)>);

impl Received {
    fn add(&mut self, source: impl Into<String>, text: impl Into<String>) {
        self.0.push((source.into(), text.into()));
    }

    /// Runs a query, recording every row it returns as text; returns the rows.
    fn rows(&mut self, client: &mut Client, sql: &str) -> Vec<String> {
        let rows: Vec<String> = client
            .query(&format!("SELECT q::text FROM ({sql}) q"), &[])
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
            .iter()
            .map(|r| r.get(0))
            .collect();
        for row in &rows {
            self.add(sql, row.clone());
        }
        rows
    }

    /// Runs statements that must fail with `code`, recording every field of the error.
    fn refused(&mut self, client: &mut Client, sql: &str, code: &SqlState) {
        let err = client
            .batch_execute(sql)
            .expect_err(&format!("{sql} succeeded"));
        let db = err
            .as_db_error()
            .unwrap_or_else(|| panic!("{sql}: not a server error: {err}"));
        assert_eq!(db.code(), code, "{sql}: {db:?}");
        self.add(format!("error of {sql}"), format!("{db:?}"));
        // Leave any transaction block the statements opened.
        client.batch_execute("ROLLBACK").unwrap();
    }

    /// Asserts none of `secrets` shows in anything received.
    fn assert_none_of(&self, secrets: &[Secret]) {
        for (source, text) in &self.0 {
            for secret in secrets {
                if let Some(how) = secret.found_in(text) {
                    panic!("{} leaked ({how}) through {source}: {text}", secret.what);
                }
            }
        }
    }
}

/// The unrevealed server seeds of a database, read by a superuser.
fn unrevealed_seeds(admin: &mut Client) -> Vec<Secret> {
    admin
        .query(
            "SELECT desk_id, round, server_seed, encode(server_seed, 'base64') FROM fair_seed
              WHERE revealed_at IS NULL ORDER BY desk_id",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| Secret {
            what: format!(
                "the unrevealed server seed of desk {} round {}",
                r.get::<_, i32>(0),
                r.get::<_, i32>(1)
            ),
            raw: r.get(2),
            base64: r.get(3),
        })
        .collect()
}

/// A pg_dump of `db` as `user` (plain format): its exit status, output and errors.
fn pg_dump_as(db: &str, user: &str, extra: &[&str]) -> (bool, String, String) {
    let out = std::process::Command::new(server::pg_program("pg_dump"))
        .args([
            format!("--host={}", server::dsn_setting("host")),
            format!("--port={}", server::dsn_setting("port")),
            format!("--username={user}"),
            format!("--dbname={db}"),
            "--no-password".to_string(),
        ])
        .args(extra)
        .output()
        .expect("pg_dump runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every stored game of a desk under `commitment`, as (game_id, client seeds, nonce, cards).
fn games_under(
    client: &mut Client,
    desk: i32,
    commitment: &[u8],
) -> Vec<(i64, Vec<String>, i64, Cards)> {
    client
        .query(
            "SELECT game_id, client_seeds, fair_nonce, p1_cards, p2_cards, p3_cards, extra_cards, leader
               FROM game WHERE desk_id = $1 AND fair_commitment = $2 ORDER BY fair_nonce",
            &[&desk, &commitment],
        )
        .unwrap()
        .iter()
        .map(|r| {
            (
                r.get(0),
                r.get(1),
                r.get(2),
                (r.get(3), r.get(4), r.get(5), r.get(6), r.get(7)),
            )
        })
        .collect()
}

/// Asserts every game of a desk under `commitment` is `fair_deal(seed, its client seeds, its
/// nonce)`, `count` of them with nonces 0..count, computed through `client`.
fn assert_games_recompute(
    client: &mut Client,
    desk: i32,
    commitment: &[u8],
    seed: &[u8],
    count: usize,
) {
    let games = games_under(client, desk, commitment);
    assert_eq!(
        games.len(),
        count,
        "games of desk {desk} under its commitment"
    );
    for (i, (game, seeds, nonce, cards)) in games.into_iter().enumerate() {
        assert_eq!(nonce, i as i64, "game {game}");
        assert_eq!(
            fair_deal(client, seed, &seeds, nonce),
            cards,
            "game {game} is not fair_deal(its revealed seed, {seeds:?}, {nonce})"
        );
    }
}

#[test]
fn an_unrevealed_server_seed_never_reaches_the_game_server() {
    let db = "dealcards_fair_secrecy";
    let role = "dealcards_fair_game_server";
    let superuser = server::dsn_setting("user");
    let mut admin = database_with_extension(db);
    create_game_server_role(&mut admin, role);
    for privilege in [
        "SELECT",
        "INSERT",
        "UPDATE",
        "DELETE",
        "TRUNCATE",
        "REFERENCES",
        "TRIGGER",
    ] {
        let has: bool = admin
            .query_one(
                "SELECT has_table_privilege($1, 'public.fair_seed', $2)
                     OR coalesce(CASE WHEN $2 IN ('SELECT', 'INSERT', 'UPDATE', 'REFERENCES')
                                      THEN has_any_column_privilege($1, 'public.fair_seed', $2)
                                 END, false)",
                &[&role, &privilege],
            )
            .unwrap()
            .get(0);
        assert!(!has, "{role} has {privilege} on fair_seed");
    }

    let notices = Arc::new(Mutex::new(Vec::new()));
    let mut game_server = connect_collecting(db, role, notices.clone());
    let mut listener = connect_collecting(db, role, notices.clone());
    listener
        .batch_execute("LISTEN dealcards_desk_1; LISTEN dealcards_desk_2;")
        .unwrap();
    let mut received = Received::default();

    // The game server seats three players at each of two desks and puts both in provably fair
    // mode; players set client seeds; it deals six games at desk 1 and four at desk 2.
    seat(&mut game_server, 1, &[1, 2, 3]);
    seat(&mut game_server, 2, &[1, 2, 3]);
    let mut commitments = BTreeMap::new();
    for desk in [1, 2] {
        let commitment: Vec<u8> = game_server
            .query_one("SELECT fair_mode_on($1)", &[&desk])
            .unwrap()
            .get(0);
        received.add(format!("fair_mode_on({desk})"), hex(&commitment));
        commitments.insert(desk, commitment);
    }
    // In the mode already: the same commitment again.
    let again = received.rows(&mut game_server, "SELECT fair_mode_on(1)");
    assert_eq!(again, [format!("(\"\\\\x{}\")", hex(&commitments[&1]))]);

    // What only the extension's owner can read: the seeds behind the two commitments.
    let secrets = unrevealed_seeds(&mut admin);
    assert_eq!(secrets.len(), 2);
    for (secret, desk) in secrets.iter().zip([1, 2]) {
        let digest: Vec<u8> = admin
            .query_one("SELECT sha256($1)", &[&secret.raw])
            .unwrap()
            .get(0);
        assert_eq!(digest, commitments[&desk], "{}", secret.what);
    }
    // The check can fail: it finds a seed in a text that holds one.
    assert!(secrets[0]
        .found_in(&format!("x{}y", hex(&secrets[0].raw).to_uppercase()))
        .is_some());

    for (desk, seat, seed) in [
        (1, 1, "Zoë"),
        (1, 2, "牌"),
        (1, 3, "alice"),
        (2, 2, "a'b\"c\\d"),
    ] {
        received.rows(
            &mut game_server,
            &format!(
                "SELECT set_client_seed({desk}, {seat}, '{}')",
                seed.replace('\'', "''")
            ),
        );
    }
    let mut dealt = Vec::new();
    for desk in [1, 1, 1, 2, 1, 2, 2, 1, 2, 1] {
        if desk == 1 && dealt.len() == 4 {
            game_server
                .execute("SELECT set_client_seed(1, 3, '')", &[])
                .unwrap();
        }
        let json = deal(&mut game_server, desk);
        received.add(format!("deal_cards({desk})"), json.clone());
        dealt.push((desk, json));
    }
    let mut next_nonce = BTreeMap::from([(1, 0), (2, 0)]);
    for (desk, json) in &dealt {
        let (d, _, commitment, nonce) = parse_fair_deal(json);
        assert_eq!(d, *desk);
        assert_eq!(commitment, hex(&commitments[desk]));
        assert_eq!(nonce, next_nonce[desk]);
        *next_nonce.get_mut(desk).unwrap() += 1;
    }

    // Every deal notified its desk's channel with its result, which names the commitment.
    let mut notes = Vec::new();
    let started = Instant::now();
    while notes.len() < dealt.len() && started.elapsed() < Duration::from_secs(10) {
        notes.extend(server::notifications(
            &mut listener,
            Duration::from_millis(200),
        ));
    }
    notes.extend(server::notifications(
        &mut listener,
        Duration::from_millis(200),
    ));
    let expected: Vec<(String, String)> = dealt
        .iter()
        .map(|(desk, json)| (format!("dealcards_desk_{desk}"), json.clone()))
        .collect();
    assert_eq!(notes, expected, "one notification per deal, its result");
    for (channel, payload) in &notes {
        let (desk, ..) = parse_fair_deal(payload);
        assert!(payload.contains(&hex(&commitments[&desk])), "{payload}");
        received.add(format!("NOTIFY {channel}"), payload.clone());
    }

    // Everything the role may read.
    for relation in [
        "desk",
        "desk_player",
        "game",
        "bid_record",
        "note",
        "fair_commitment",
        "v_player_id_in_room",
    ] {
        let rows = received.rows(&mut game_server, &format!("SELECT * FROM {relation}"));
        assert!(!rows.is_empty(), "{relation} is empty");
    }
    let (rounds, shown): (i64, i64) = {
        let row = game_server
            .query_one(
                "SELECT count(*), count(server_seed) FROM fair_commitment WHERE revealed_at IS NULL",
                &[],
            )
            .unwrap();
        (row.get(0), row.get(1))
    };
    assert_eq!(
        (rounds, shown),
        (2, 0),
        "fair_commitment shows an unrevealed seed"
    );

    // Verification before the reveal: linked, not verified yet; a single game cannot be.
    for desk in [1, 2] {
        let rows = verify_desk(&mut game_server, desk);
        assert_eq!(rows.len(), next_nonce[&desk] as usize);
        for row in &rows {
            assert!(row.0.is_some() && row.3.is_none(), "{row:?}");
        }
        received.rows(
            &mut game_server,
            &format!("SELECT * FROM fair_verify_desk({desk})"),
        );
    }
    let first_game = parse_fair_deal(&dealt[0].1).1;
    received.refused(
        &mut game_server,
        &format!("SELECT * FROM fair_verify_game({first_game})"),
        &SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE,
    );

    // Reading the seeds directly, or becoming someone who may.
    let denied = SqlState::INSUFFICIENT_PRIVILEGE;
    for sql in [
        "SELECT * FROM fair_seed".to_string(),
        "SELECT server_seed FROM fair_seed WHERE desk_id = 1".to_string(),
        "SELECT count(*) FROM fair_seed".to_string(),
        "TABLE fair_seed".to_string(),
        "BEGIN; LOCK TABLE fair_seed IN ACCESS SHARE MODE".to_string(),
        "UPDATE fair_seed SET revealed_at = now()".to_string(),
        "GRANT SELECT ON fair_seed TO PUBLIC".to_string(),
        "ALTER VIEW fair_commitment RESET (security_barrier)".to_string(),
        "SELECT * FROM pg_statistic".to_string(),
        format!("SET ROLE {superuser}"),
        format!("SET SESSION AUTHORIZATION {superuser}"),
    ] {
        received.refused(&mut game_server, &sql, &denied);
    }
    // A view of the role's own over the table reads it with the role's privileges: none. (A
    // temporary one, as any role may create; before PostgreSQL 15 public would do as well.)
    game_server
        .batch_execute("CREATE VIEW pg_temp.seeds AS SELECT * FROM fair_seed")
        .unwrap();
    received.refused(&mut game_server, "SELECT * FROM pg_temp.seeds", &denied);
    let copy = game_server.copy_out("COPY fair_seed TO STDOUT");
    let err = copy.err().expect("COPY fair_seed succeeded");
    assert_eq!(err.code(), Some(&denied), "{err}");
    received.add(
        "COPY fair_seed TO STDOUT",
        format!("{:?}", err.as_db_error()),
    );

    // Bad calls, and rewrites of a desk's fair state (the role may update desk), refused by the
    // foreign key that keeps a desk on an unrevealed round of its own: their errors carry no
    // seed, whether the backend keeps the seed or not.
    let invalid = SqlState::INVALID_PARAMETER_VALUE;
    let not_found = SqlState::NO_DATA_FOUND;
    let corrupted = SqlState::DATA_CORRUPTED;
    let refused_key = SqlState::FOREIGN_KEY_VIOLATION;
    let mut fresh = connect_collecting(db, role, notices.clone());
    for client in [&mut game_server, &mut fresh] {
        for (sql, code) in [
            ("SELECT fair_mode_on(99)", &not_found),
            ("SELECT * FROM fair_reveal(99)", &not_found),
            ("SELECT fair_mode_off(99)", &not_found),
            ("SELECT * FROM fair_verify_desk(99)", &not_found),
            ("SELECT * FROM fair_verify_game(0)", &not_found),
            ("SELECT deal_cards(99)", &not_found),
            ("SELECT set_client_seed(1, 4, 'x')", &invalid),
            ("SELECT set_client_seed(1, 1, repeat('x', 257))", &invalid),
            (
                "SELECT * FROM fair_deal('\\x00', ARRAY['', '', ''], 0)",
                &invalid,
            ),
            (
                "SELECT * FROM fair_deal(sha256(''), ARRAY['', ''], 0)",
                &invalid,
            ),
            (
                "SELECT * FROM fair_deal(sha256(''), ARRAY['', '', ''], -1)",
                &invalid,
            ),
            (
                "BEGIN; UPDATE desk SET fair_commitment = '\\x00' WHERE desk_id = 1;
                 SELECT deal_cards(1)",
                &refused_key,
            ),
            (
                "BEGIN; UPDATE desk SET fair_commitment = sha256('x') WHERE desk_id = 1;
                 SELECT deal_cards(1)",
                &refused_key,
            ),
            (
                "BEGIN; UPDATE desk SET fair_round = fair_round + 5 WHERE desk_id = 1;
                 SELECT * FROM fair_reveal(1)",
                &refused_key,
            ),
            (
                "BEGIN; UPDATE desk SET fair_round = fair_round + 5 WHERE desk_id = 1;
                 SELECT fair_mode_off(1)",
                &refused_key,
            ),
            // A round without its commitment escapes the key (a key with a NULL is not
            // checked); the deal refuses it.
            (
                "BEGIN; UPDATE desk SET fair_commitment = NULL WHERE desk_id = 1;
                 SELECT deal_cards(1)",
                &corrupted,
            ),
        ] {
            received.refused(client, sql, code);
        }
    }
    // Desk 1's commitment at desk 2 (the same round number): refused, and without the seed
    // (more: a_desk_names_only_an_unrevealed_round_of_its_own).
    received.refused(
        &mut fresh,
        &format!(
            "BEGIN; UPDATE desk SET fair_commitment = '\\x{}' WHERE desk_id = 2;
             SELECT deal_cards(2)",
            hex(&commitments[&1])
        ),
        &refused_key,
    );

    // Statistics: once a superuser analyzed the tables, pg_stats holds the seeds, for those who
    // may read the column only.
    admin
        .batch_execute("ANALYZE fair_seed, desk, desk_player, game, bid_record, note")
        .unwrap();
    let superuser_stats: String = admin
        .query_one(
            "SELECT string_agg(s::text, ' ') FROM pg_stats s WHERE tablename = 'fair_seed'",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(
        secrets
            .iter()
            .any(|s| s.found_in(&superuser_stats).is_some()),
        "the statistics hold no seed: the check below would prove nothing"
    );
    assert!(received
        .rows(
            &mut game_server,
            "SELECT * FROM pg_stats WHERE tablename = 'fair_seed'"
        )
        .is_empty());
    assert!(!received
        .rows(
            &mut game_server,
            "SELECT * FROM pg_stats WHERE tablename = 'game'"
        )
        .is_empty());
    for view in [
        "pg_stats",
        "pg_stat_activity",
        "pg_stat_user_tables",
        "pg_statio_user_tables",
        "pg_stat_user_indexes",
        "pg_stat_database",
        "pg_locks",
    ] {
        received.rows(&mut game_server, &format!("SELECT * FROM {view}"));
    }

    // Conditions of the role's own on the view: a function that reports every value it sees.
    game_server
        .batch_execute(
            "CREATE FUNCTION pg_temp.leak(b bytea) RETURNS boolean LANGUAGE plpgsql COST 0.0001 AS
             $$BEGIN RAISE NOTICE 'leak: %', encode(b, 'hex'); RETURN true; END$$",
        )
        .unwrap();
    for notice in notices.lock().unwrap().drain(..) {
        received.add("a notice", notice);
    }
    for sql in [
        "SELECT * FROM fair_commitment WHERE pg_temp.leak(server_seed)",
        "SELECT * FROM fair_commitment WHERE pg_temp.leak(commitment) AND server_seed IS NULL",
        "SELECT * FROM fair_commitment WHERE server_seed IS NULL AND pg_temp.leak(commitment)",
        "SELECT * FROM fair_commitment WHERE revealed_at IS NULL AND pg_temp.leak(server_seed)",
        "SELECT * FROM fair_commitment WHERE pg_temp.leak(server_seed) OR pg_temp.leak(commitment)",
        "SELECT * FROM fair_commitment WHERE pg_temp.leak(coalesce(server_seed, commitment))",
        "SELECT * FROM fair_commitment WHERE desk_id = 1 AND round = 1 AND pg_temp.leak(server_seed)",
        "SELECT pg_temp.leak(server_seed), pg_temp.leak(commitment) FROM fair_commitment",
        "SELECT * FROM (SELECT * FROM fair_commitment OFFSET 0) c WHERE pg_temp.leak(c.server_seed)",
        "SELECT * FROM fair_commitment c JOIN desk d ON d.desk_id = c.desk_id
          WHERE pg_temp.leak(c.server_seed) AND pg_temp.leak(d.fair_commitment)",
        "SELECT * FROM fair_commitment c WHERE EXISTS (SELECT FROM game g
          WHERE g.fair_commitment = c.commitment AND pg_temp.leak(c.server_seed))",
        "SELECT * FROM fair_commitment ORDER BY pg_temp.leak(server_seed)",
        "SELECT * FROM fair_commitment WHERE server_seed IS NOT NULL OR pg_temp.leak(commitment)",
    ] {
        received.rows(&mut game_server, sql);
    }
    let leaked: Vec<String> = notices.lock().unwrap().drain(..).collect();
    assert!(
        leaked.iter().any(|n| n.contains(&hex(&commitments[&1]))),
        "the leaky function never ran on a commitment: the check would prove nothing: {leaked:?}"
    );
    for notice in leaked {
        received.add("a notice", notice);
    }

    // pg_dump as the role: it may fail, but must not print a seed, in its output or its errors.
    // Without its sequences (the role has USAGE on them, not SELECT) a dump is refused
    // fair_seed, whose rows come before the desks that refer to them; without fair_seed too it
    // copies the desks, with their commitments.
    let mut reached_commitments = false;
    for extra in [
        &[][..],
        &["--exclude-table=*_seq"],
        &["--exclude-table=*_seq", "--data-only"],
        &["--exclude-table=*_seq", "--exclude-table=fair_seed"],
        &["--table=fair_seed"],
        &["--table=fair_commitment"],
    ] {
        let (ok, out, err) = pg_dump_as(db, role, extra);
        if extra.contains(&"--table=fair_seed") {
            assert!(
                !ok && err.contains("permission denied for table fair_seed"),
                "{err}"
            );
        }
        reached_commitments |= out.contains(&hex(&commitments[&1]));
        received.add(format!("pg_dump {extra:?} (succeeded: {ok})"), out);
        received.add(format!("pg_dump {extra:?} errors"), err);
    }
    assert!(
        reached_commitments,
        "no dump as the role got to the tables' data: the check would prove little"
    );

    for notice in notices.lock().unwrap().drain(..) {
        received.add("a notice", notice);
    }
    received.assert_none_of(&secrets);

    // The reveal, by the game server: now the seed is public, it is the commitment's, and every
    // game recomputes from it.
    let row = game_server
        .query_one(
            "SELECT server_seed, commitment, next_commitment, sha256(server_seed) FROM fair_reveal(1)",
            &[],
        )
        .unwrap();
    let (seed, commitment, next, digest): (Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>) =
        (row.get(0), row.get(1), row.get(2), row.get(3));
    assert_eq!(seed, secrets[0].raw);
    assert_eq!(commitment, commitments[&1]);
    assert_eq!(digest, commitment, "SHA-256 of the revealed seed");
    assert_ne!(next, commitment);
    let shown: Option<Vec<u8>> = game_server
        .query_one(
            "SELECT server_seed FROM fair_commitment WHERE desk_id = 1 AND commitment = $1",
            &[&commitment],
        )
        .unwrap()
        .get(0);
    assert_eq!(shown.as_ref(), Some(&seed));
    assert_games_recompute(
        &mut game_server,
        1,
        &commitment,
        &seed,
        next_nonce[&1] as usize,
    );
    for game in all_verified(&mut game_server, 1) {
        let verified: bool = game_server
            .query_one("SELECT verified FROM fair_verify_game($1)", &[&game])
            .unwrap()
            .get(0);
        assert!(verified, "game {game}");
    }

    // The reveal showed neither desk 2's seed nor the one now in force at desk 1.
    let mut after = Received::default();
    after.add(
        "fair_reveal(1)",
        format!("{} {}", hex(&commitment), hex(&next)),
    );
    after.rows(&mut game_server, "SELECT * FROM fair_commitment");
    after.rows(&mut game_server, "SELECT * FROM fair_verify_desk(1)");
    let now_secret = unrevealed_seeds(&mut admin);
    assert_eq!(now_secret.len(), 2);
    after.assert_none_of(&now_secret);

    // fair_mode_off reveals too, and puts nothing in place.
    let seed: Vec<u8> = game_server
        .query_one("SELECT fair_mode_off(2)", &[])
        .unwrap()
        .get(0);
    assert_eq!(seed, secrets[1].raw);
    assert_games_recompute(
        &mut game_server,
        2,
        &commitments[&2],
        &seed,
        next_nonce[&2] as usize,
    );
    assert_eq!(
        all_verified(&mut game_server, 2).len(),
        next_nonce[&2] as usize
    );
    assert_eq!(unrevealed_seeds(&mut admin).len(), 1);
}

#[test]
fn every_game_recomputes_and_a_changed_one_fails() {
    const DESK: i32 = 7;
    let mut client = database_with_extension("dealcards_fair_recompute");
    seat(&mut client, DESK, &[1, 2, 3]);
    let first: Vec<u8> = client
        .query_one("SELECT fair_mode_on($1)", &[&DESK])
        .unwrap()
        .get(0);
    let client_seeds = [
        "Zoë",
        "牌",
        "",
        "alice",
        &"é".repeat(128), // 256 bytes, the longest
        "🂡 and 🃏",
        "a'b\"c\\d{},",
        "  ",
    ];
    let mut current = vec![String::new(); 3];
    let mut games = Vec::new(); // (game, commitment, nonce, client seeds)
    let mut second = Vec::new();
    for i in 0..20usize {
        if i == 12 {
            let row = client
                .query_one(
                    "SELECT server_seed, commitment, next_commitment FROM fair_reveal($1)",
                    &[&DESK],
                )
                .unwrap();
            assert_eq!(row.get::<_, Vec<u8>>(1), first);
            second = row.get(2);
        }
        let seat = i % 3;
        current[seat] = client_seeds[(i * 5) % client_seeds.len()].to_string();
        client
            .execute(
                "SELECT set_client_seed($1, $2, $3)",
                &[&DESK, &(seat as i32 + 1), &current[seat]],
            )
            .unwrap();
        let (desk, game, commitment, nonce) = parse_fair_deal(&deal(&mut client, DESK));
        assert_eq!(desk, DESK);
        let (under, want) = if i < 12 {
            (&first, i)
        } else {
            (&second, i - 12)
        };
        assert_eq!(commitment, hex(under));
        assert_eq!(nonce, want as i64);
        games.push((game, under.clone(), nonce, current.clone()));
    }
    let row = client
        .query_one(
            "SELECT server_seed, commitment FROM fair_reveal($1)",
            &[&DESK],
        )
        .unwrap();
    assert_eq!(row.get::<_, Vec<u8>>(1), second);
    let seeds: BTreeMap<Vec<u8>, Vec<u8>> = client
        .query(
            "SELECT commitment, server_seed FROM fair_commitment WHERE desk_id = $1 AND server_seed IS NOT NULL",
            &[&DESK],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(seeds.len(), 2);
    assert_eq!(seeds[&second], row.get::<_, Vec<u8>>(0));

    // Each stored game holds the client seeds in force when it was dealt, and is fair_deal of
    // the revealed seed, its client seeds and its nonce.
    for (game, commitment, nonce, seeds_then) in &games {
        let row = client
            .query_one(
                "SELECT client_seeds, fair_commitment, fair_nonce, p1_cards, p2_cards, p3_cards,
                        extra_cards, leader
                   FROM game WHERE game_id = $1",
                &[game],
            )
            .unwrap();
        let stored_seeds: Vec<String> = row.get(0);
        assert_eq!(&stored_seeds, seeds_then, "game {game}");
        assert_eq!(&row.get::<_, Vec<u8>>(1), commitment);
        assert_eq!(&row.get::<_, i64>(2), nonce);
        let cards: Cards = (row.get(3), row.get(4), row.get(5), row.get(6), row.get(7));
        let mut deck: Vec<i32> = [&cards.0, &cards.1, &cards.2, &cards.3]
            .into_iter()
            .flatten()
            .copied()
            .collect();
        deck.sort();
        assert_eq!(deck, (1..=54).collect::<Vec<i32>>(), "game {game}");
        assert_eq!(
            fair_deal(&mut client, &seeds[commitment], seeds_then, *nonce),
            cards,
            "game {game}"
        );
    }
    let ids: Vec<i64> = games.iter().map(|g| g.0).collect();
    assert_eq!(all_verified(&mut client, DESK), ids);
    let some_differ: BTreeSet<Cards> = games
        .iter()
        .map(|(_, c, n, s)| fair_deal(&mut client, &seeds[c], s, *n))
        .collect();
    assert_eq!(some_differ.len(), games.len(), "two games dealt alike");

    // Tampering, each undone before the next: only what was changed fails, and says why.
    let tampered = |client: &mut Client, change: &str, game: i64| -> Verified {
        let mut tx = client.transaction().unwrap();
        let changed = tx.execute(change, &[&game]).unwrap();
        assert_eq!(changed, 1, "{change}");
        let rows = tx
            .query(
                "SELECT game_id, round, nonce, verified, problem FROM fair_verify_desk($1)",
                &[&DESK],
            )
            .unwrap()
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
            .collect();
        tx.rollback().unwrap();
        rows
    };
    // Only `bad` fails (with a problem mentioning `why`), every other listed game verifies.
    let only_fails = |rows: &Verified, bad: Option<i64>, why: &str, listed: &[i64]| {
        assert_eq!(
            rows.iter().map(|r| r.0).collect::<Vec<_>>(),
            listed
                .iter()
                .map(|&g| Some(g))
                .chain(bad.is_none().then_some(None))
                .collect::<Vec<_>>(),
            "{rows:?}"
        );
        for row in rows {
            if row.0 == bad {
                assert_eq!(row.3, Some(false), "{row:?}");
                let problem = row.4.as_deref().unwrap_or_default();
                assert!(problem.contains(why), "{row:?}");
            } else {
                assert_eq!((row.3, &row.4), (Some(true), &None), "{row:?}");
            }
        }
    };
    let middle = games[7].0;
    // A card moved from one hand to another (still a whole deck).
    let rows = tampered(
        &mut client,
        "UPDATE game SET p1_cards[5] = p2_cards[1], p2_cards[1] = p1_cards[5] WHERE game_id = $1",
        middle,
    );
    only_fails(&rows, Some(middle), "", &ids);
    // The other hand's card, and the leader, and the client seeds.
    for change in [
        "UPDATE game SET extra_cards[3] = p3_cards[17], p3_cards[17] = extra_cards[3] WHERE game_id = $1",
        "UPDATE game SET leader = leader % 3 + 1 WHERE game_id = $1",
        "UPDATE game SET client_seeds[2] = client_seeds[2] || 'x' WHERE game_id = $1",
        "UPDATE game SET client_seeds = ARRAY[client_seeds[2], client_seeds[1], client_seeds[3]]
          WHERE game_id = $1 AND client_seeds[1] <> client_seeds[2]",
    ] {
        let rows = tampered(&mut client, change, middle);
        only_fails(&rows, Some(middle), "", &ids);
    }
    // A changed chain hash breaks the link of the next game too.
    let rows = tampered(
        &mut client,
        "UPDATE game SET chain_hash = sha256(chain_hash) WHERE game_id = $1",
        middle,
    );
    for row in &rows {
        let broken = row.0 == Some(middle) || row.0 == Some(games[8].0);
        assert_eq!(row.3, Some(!broken), "{row:?}");
    }
    // A deleted game in the middle of a commitment: the next one's nonce does not follow.
    let deleted = games[5].0;
    let rows = tampered(&mut client, "DELETE FROM game WHERE game_id = $1", deleted);
    let rest: Vec<i64> = ids.iter().copied().filter(|&g| g != deleted).collect();
    only_fails(&rows, Some(games[6].0), "nonce", &rest);
    // The last game of the first commitment: the first of the next one's link breaks.
    let deleted = games[11].0;
    let rows = tampered(&mut client, "DELETE FROM game WHERE game_id = $1", deleted);
    let rest: Vec<i64> = ids.iter().copied().filter(|&g| g != deleted).collect();
    only_fails(&rows, Some(games[12].0), "", &rest);
    // The newest game: the desk's chain head names a game that is gone.
    let newest = games[19].0;
    let rows = tampered(&mut client, "DELETE FROM game WHERE game_id = $1", newest);
    only_fails(&rows, None, "", &ids[..19]);
    let head = rows.last().unwrap();
    assert_eq!(
        (head.0, head.1, head.2, head.3),
        (None, None, None, Some(false)),
        "{head:?}"
    );
    assert!(
        head.4.as_deref().unwrap().contains("chain head"),
        "{head:?}"
    );
    // A single game's verification sees a change to it.
    let mut tx = client.transaction().unwrap();
    tx.execute(
        "UPDATE game SET p1_cards[1] = p3_cards[1], p3_cards[1] = p1_cards[1] WHERE game_id = $1",
        &[&middle],
    )
    .unwrap();
    let verified: bool = tx
        .query_one("SELECT verified FROM fair_verify_game($1)", &[&middle])
        .unwrap()
        .get(0);
    assert!(!verified);
    tx.rollback().unwrap();
    // Undone, everything verifies again.
    assert_eq!(all_verified(&mut client, DESK), ids);

    // fair_deal depends on each of its inputs.
    let seed = &seeds[&first];
    let base = ["Zoë".to_string(), "牌".to_string(), String::new()];
    let dealt = fair_deal(&mut client, seed, &base, 3);
    assert_eq!(
        fair_deal(&mut client, seed, &base, 3),
        dealt,
        "not repeatable"
    );
    for seat in 0..3 {
        let mut changed = base.clone();
        changed[seat].push('!');
        assert_ne!(
            fair_deal(&mut client, seed, &changed, 3),
            dealt,
            "client seed {seat}"
        );
    }
    let swapped = [base[1].clone(), base[0].clone(), base[2].clone()];
    assert_ne!(
        fair_deal(&mut client, seed, &swapped, 3),
        dealt,
        "seats swapped"
    );
    assert_ne!(fair_deal(&mut client, seed, &base, 4), dealt, "nonce");
    let mut other_seed = seed.clone();
    other_seed[31] ^= 1;
    assert_ne!(
        fair_deal(&mut client, &other_seed, &base, 3),
        dealt,
        "server seed"
    );
}

/// What a deal writes at desk 2: its nonce, current game and chain head, and its games, bids
/// and notes.
type DeskWrites = (Option<i64>, Option<i64>, Option<Vec<u8>>, i64, i64, i64);

#[test]
fn misuse_gets_its_sqlstate() {
    let mut client = database_with_extension("dealcards_fair_errors");
    seat(&mut client, 1, &[1, 2, 3]);
    seat(&mut client, 2, &[1, 3]);
    seat(&mut client, 3, &[1, 2, 3]);
    client.batch_execute("SELECT fair_mode_on(1)").unwrap();
    let not_found = SqlState::NO_DATA_FOUND;
    let invalid = SqlState::INVALID_PARAMETER_VALUE;
    let not_ready = SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE;
    for (sql, code) in [
        ("SELECT fair_mode_on(99)", &not_found),
        ("SELECT * FROM fair_reveal(99)", &not_found),
        ("SELECT fair_mode_off(99)", &not_found),
        ("SELECT * FROM fair_verify_desk(99)", &not_found),
        ("SELECT * FROM fair_reveal(3)", &not_ready),
        ("SELECT set_client_seed(2, 2, 'x')", &not_found),
        ("SELECT set_client_seed(99, 1, 'x')", &not_found),
        ("SELECT set_client_seed(1, 4, 'x')", &invalid),
        ("SELECT set_client_seed(1, 0, 'x')", &invalid),
        ("SELECT set_client_seed(1, 1, repeat('x', 257))", &invalid),
        ("SELECT set_client_seed(1, 1, repeat('é', 129))", &invalid),
        (
            "SELECT * FROM fair_deal(decode(repeat('ab', 31), 'hex'), ARRAY['', '', ''], 0)",
            &invalid,
        ),
        (
            "SELECT * FROM fair_deal(decode(repeat('ab', 33), 'hex'), ARRAY['', '', ''], 0)",
            &invalid,
        ),
        (
            "SELECT * FROM fair_deal(sha256(''), ARRAY['a', 'b'], 0)",
            &invalid,
        ),
        (
            "SELECT * FROM fair_deal(sha256(''), ARRAY['a', 'b', 'c', 'd'], 0)",
            &invalid,
        ),
        (
            "SELECT * FROM fair_deal(sha256(''), ARRAY['a', NULL, 'c'], 0)",
            &invalid,
        ),
        (
            "SELECT * FROM fair_deal(sha256(''), ARRAY['a', repeat('x', 257), 'c'], 0)",
            &invalid,
        ),
        (
            "SELECT * FROM fair_deal(sha256(''), ARRAY['', '', ''], -1)",
            &invalid,
        ),
        ("SELECT * FROM fair_verify_game(12345)", &not_found),
    ] {
        assert_eq!(&error_code(&mut client, sql), code, "{sql}");
    }
    // The limits themselves are fine.
    client
        .batch_execute(
            "SELECT set_client_seed(1, 1, repeat('é', 128));
             SELECT * FROM fair_deal(sha256(''), ARRAY[repeat('x', 256), '', ''], 9223372036854775807);",
        )
        .unwrap();

    // A game dealt outside the mode has nothing to verify; one not revealed yet cannot be.
    let outside: serde_json::Value = serde_json::from_str(&deal(&mut client, 3)).unwrap();
    assert!(
        outside.get("commitment").is_none() && outside.get("nonce").is_none(),
        "{outside}"
    );
    let plain = outside["game"].as_i64().unwrap();
    assert_eq!(
        error_code(
            &mut client,
            &format!("SELECT * FROM fair_verify_game({plain})")
        ),
        invalid
    );
    let (_, fair, _, _) = parse_fair_deal(&deal(&mut client, 1));
    assert_eq!(
        error_code(
            &mut client,
            &format!("SELECT * FROM fair_verify_game({fair})")
        ),
        not_ready
    );

    // Two players at a fair desk: refused, and nothing written, the nonce unchanged.
    client.batch_execute("SELECT fair_mode_on(2)").unwrap();
    let state = |client: &mut Client| -> DeskWrites {
        let row = client
            .query_one(
                "SELECT d.fair_nonce, d.cur_game_id, d.fair_chain_head,
                        (SELECT count(*) FROM game WHERE desk_id = 2),
                        (SELECT count(*) FROM bid_record WHERE desk_id = 2),
                        (SELECT count(*) FROM note WHERE desk_id = 2)
                   FROM desk d WHERE desk_id = 2",
                &[],
            )
            .unwrap();
        (
            row.get(0),
            row.get(1),
            row.get(2),
            row.get(3),
            row.get(4),
            row.get(5),
        )
    };
    let before = state(&mut client);
    assert_eq!(before, (Some(0), None, None, 0, 0, 0));
    assert_eq!(error_code(&mut client, "SELECT deal_cards(2)"), not_ready);
    assert_eq!(state(&mut client), before);
    // Once the third player sits down, the first deal is nonce 0.
    client
        .batch_execute("INSERT INTO desk_player VALUES (2, 2, 22)")
        .unwrap();
    assert_eq!(parse_fair_deal(&deal(&mut client, 2)).3, 0);
}

/// SplitMix64: the tests' seeded choices.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn concurrent_deals_seeds_and_reveals_keep_every_nonce_once() {
    const DEALERS: usize = 8;
    const DEALS_EACH: usize = 190;
    const DESKS: [i32; 6] = [11, 12, 13, 14, 15, 16];
    let db = "dealcards_fair_concurrency";
    let role = "dealcards_fair_game_server_load";
    let mut admin = database_with_extension(db);
    create_game_server_role(&mut admin, role);
    let mut setup = server::connect_as(db, role);
    for desk in DESKS {
        seat(&mut setup, desk, &[1, 2, 3]);
        setup
            .batch_execute(&format!("SELECT fair_mode_on({desk})"))
            .unwrap();
    }

    let started = Instant::now();
    let stop = Arc::new(AtomicBool::new(false));
    let barrier = Arc::new(Barrier::new(DEALERS + 3));
    let dealers: Vec<_> = (0..DEALERS)
        .map(|t| {
            let barrier = barrier.clone();
            thread::spawn(move || {
                let mut client = server::connect_as(db, role);
                let mut rng = Rng(1000 + t as u64);
                barrier.wait();
                (0..DEALS_EACH)
                    .map(|_| {
                        let desk = DESKS[rng.below(DESKS.len())];
                        let dealt = parse_fair_deal(&deal(&mut client, desk));
                        assert_eq!(dealt.0, desk);
                        dealt
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let seed_changers: Vec<_> = (0..2)
        .map(|t| {
            let (barrier, stop) = (barrier.clone(), stop.clone());
            thread::spawn(move || {
                let mut client = server::connect_as(db, role);
                let mut rng = Rng(2000 + t);
                let mut changes = 0;
                barrier.wait();
                while !stop.load(Ordering::Relaxed) {
                    let desk = DESKS[rng.below(DESKS.len())];
                    let seat = rng.below(3) as i32 + 1;
                    let seed = match rng.below(4) {
                        0 => String::new(),
                        1 => format!("Zoë {}", rng.next()),
                        2 => format!("牌{}", rng.below(1000)),
                        _ => "x".repeat(rng.below(257)),
                    };
                    client
                        .execute("SELECT set_client_seed($1, $2, $3)", &[&desk, &seat, &seed])
                        .unwrap();
                    changes += 1;
                }
                changes
            })
        })
        .collect();
    let revealer = {
        let (barrier, stop) = (barrier.clone(), stop.clone());
        thread::spawn(move || {
            let mut client = server::connect_as(db, role);
            let mut rng = Rng(3000);
            let mut reveals = Vec::new();
            barrier.wait();
            while !stop.load(Ordering::Relaxed) {
                let desk = DESKS[rng.below(DESKS.len())];
                let row = client
                    .query_one(
                        "SELECT server_seed, commitment, next_commitment, sha256(server_seed)
                           FROM fair_reveal($1)",
                        &[&desk],
                    )
                    .unwrap();
                let (seed, commitment, next, digest): (Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>) =
                    (row.get(0), row.get(1), row.get(2), row.get(3));
                assert_eq!(digest, commitment);
                assert_eq!(seed.len(), 32);
                reveals.push((desk, commitment, next));
                thread::sleep(Duration::from_millis(3));
            }
            reveals
        })
    };

    let mut deals = Vec::new();
    for dealer in dealers {
        deals.extend(dealer.join().expect("a dealer failed"));
    }
    stop.store(true, Ordering::Relaxed);
    let changes: usize = seed_changers
        .into_iter()
        .map(|t| t.join().expect("a seed changer failed"))
        .sum();
    let reveals = revealer.join().expect("the revealer failed");
    let elapsed = started.elapsed();
    assert_eq!(deals.len(), DEALERS * DEALS_EACH);
    assert!(
        changes > 0 && reveals.len() > 1,
        "{changes} {}",
        reveals.len()
    );
    eprintln!(
        "{} deals, {changes} client seed changes, {} reveals in {elapsed:?}",
        deals.len(),
        reveals.len()
    );

    // Each reveal puts a new commitment in force.
    let mut every_commitment = BTreeSet::new();
    for (desk, commitment, next) in &reveals {
        assert!(
            every_commitment.insert(next.clone()),
            "desk {desk}: a commitment came twice"
        );
        assert_ne!(commitment, next);
    }

    // No (commitment, nonce) was dealt twice, and the games are exactly the deals.
    let pairs: BTreeSet<(String, i64)> = deals.iter().map(|d| (d.2.clone(), d.3)).collect();
    assert_eq!(
        pairs.len(),
        deals.len(),
        "a (commitment, nonce) was dealt twice"
    );
    let returned: BTreeSet<(i64, i32, String, i64)> =
        deals.iter().map(|d| (d.1, d.0, d.2.clone(), d.3)).collect();
    let stored: BTreeSet<(i64, i32, String, i64)> = admin
        .query(
            "SELECT game_id, desk_id, encode(fair_commitment, 'hex'), fair_nonce FROM game",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
        .collect();
    assert_eq!(stored, returned, "the games are not the deals returned");

    // Under each commitment, the nonces are 0..k; each commitment is one of its desk's.
    let gaps: Vec<(i32, String)> = admin
        .query(
            "SELECT g.desk_id, encode(g.fair_commitment, 'hex') FROM game g
              GROUP BY g.desk_id, g.fair_commitment
             HAVING array_agg(g.fair_nonce ORDER BY g.fair_nonce)
                    <> ARRAY(SELECT generate_series(0, count(g.game_id) - 1))
                 OR NOT EXISTS (SELECT FROM fair_seed s
                                 WHERE s.desk_id = g.desk_id AND s.commitment = g.fair_commitment)",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert!(
        gaps.is_empty(),
        "nonces not 0..k, or a foreign commitment: {gaps:?}"
    );

    // Revealed once more, every desk's history verifies, game for game.
    let mut verifier = server::connect_as(db, role);
    let mut verified = 0;
    for desk in DESKS {
        verifier
            .batch_execute(&format!("SELECT * FROM fair_reveal({desk})"))
            .unwrap();
        let games = all_verified(&mut verifier, desk);
        let dealt_here = deals.iter().filter(|d| d.0 == desk).count();
        assert_eq!(games.len(), dealt_here, "desk {desk}");
        verified += games.len();
    }
    assert_eq!(verified, deals.len());
}

#[test]
fn dump_and_restore_keep_the_commitment_its_nonce_and_its_seed() {
    const DESK: i32 = 5;
    let from = "dealcards_fair_dumped";
    let into = "dealcards_fair_restored";
    let mut original = database_with_extension(from);
    seat(&mut original, DESK, &[1, 2, 3]);
    original
        .batch_execute(&format!(
            "SELECT fair_mode_on({DESK});
             SELECT set_client_seed({DESK}, 1, 'Zoë');
             SELECT deal_cards({DESK}); SELECT deal_cards({DESK}); SELECT deal_cards({DESK});
             SELECT * FROM fair_reveal({DESK});
             SELECT set_client_seed({DESK}, 2, '牌');
             SELECT deal_cards({DESK}); SELECT deal_cards({DESK});"
        ))
        .unwrap();
    let in_force: Vec<u8> = original
        .query_one(
            "SELECT fair_commitment FROM desk WHERE desk_id = $1",
            &[&DESK],
        )
        .unwrap()
        .get(0);
    let secret: Vec<u8> = original
        .query_one(
            "SELECT server_seed FROM fair_seed WHERE commitment = $1 AND revealed_at IS NULL",
            &[&in_force],
        )
        .unwrap()
        .get(0);
    let acl = "SELECT relacl::text FROM pg_class WHERE oid = 'public.fair_seed'::regclass";
    let original_acl: Option<String> = original.query_one(acl, &[]).unwrap().get(0);
    let before = all_verified_or_pending(&mut original, DESK);
    assert_eq!(before.len(), 5);

    server::fresh_database(into);
    server::dump_and_restore(from, into);
    let mut copy = server::connect_as(into, &server::dsn_setting("user"));
    // The seeds stay the owner's only.
    let copy_acl: Option<String> = copy.query_one(acl, &[]).unwrap().get(0);
    assert_eq!(copy_acl, original_acl);
    let public_may: bool = copy
        .query_one(
            "SELECT has_table_privilege('public', 'public.fair_seed', 'SELECT')",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(!public_may);
    assert_eq!(all_verified_or_pending(&mut copy, DESK), before);

    // Dealing goes on under the same commitment with the next nonce, and the reveal shows the
    // same seed.
    let (_, game, commitment, nonce) = parse_fair_deal(&deal(&mut copy, DESK));
    assert_eq!(commitment, hex(&in_force));
    assert_eq!(nonce, 2);
    assert!(
        game > *before.iter().max().unwrap(),
        "game numbering restarted"
    );
    let row = copy
        .query_one(
            "SELECT server_seed, commitment, sha256(server_seed) FROM fair_reveal($1)",
            &[&DESK],
        )
        .unwrap();
    assert_eq!(row.get::<_, Vec<u8>>(0), secret);
    assert_eq!(row.get::<_, Vec<u8>>(1), in_force);
    assert_eq!(row.get::<_, Vec<u8>>(2), in_force);
    assert_games_recompute(&mut copy, DESK, &in_force, &secret, 3);
    let mut all = before.clone();
    all.push(game);
    assert_eq!(all_verified(&mut copy, DESK), all);
    // The next commitment starts at nonce 0.
    assert_eq!(parse_fair_deal(&deal(&mut copy, DESK)).3, 0);
    drop(copy);
    original
        .batch_execute(&format!("DROP DATABASE {into} WITH (FORCE)"))
        .unwrap();
}

/// A backend keeps the seed of the round it last dealt under at each desk. That is safe only
/// because no role that may deal (and so may update desk) can point a desk at a revealed round,
/// a rolled-back one or another desk's: not in a statement of its own, not in the statement
/// that deals, in a connection that has dealt under that round or not. Nothing is dealt.
#[test]
fn a_desk_names_only_an_unrevealed_round_of_its_own() {
    let db = "dealcards_fair_cache";
    let mut admin = database_with_extension(db);
    seat(&mut admin, 1, &[1, 2, 3]);
    seat(&mut admin, 2, &[1, 2, 3]);
    admin
        .batch_execute("SELECT fair_mode_on(1); SELECT fair_mode_on(2);")
        .unwrap();
    let user = server::dsn_setting("user");
    // This connection keeps both desks' round 1 seeds, and the seed of a round 2 of desk 2's
    // that was rolled back.
    let mut cached = server::connect_as(db, &user);
    parse_fair_deal(&deal(&mut cached, 1));
    parse_fair_deal(&deal(&mut cached, 2));
    cached.batch_execute("BEGIN").unwrap();
    let rolled_back: Vec<u8> = cached
        .query_one("SELECT next_commitment FROM fair_reveal(2)", &[])
        .unwrap()
        .get(0);
    parse_fair_deal(&deal(&mut cached, 2));
    cached.batch_execute("ROLLBACK").unwrap();
    let desk_1: Vec<u8> = admin
        .query_one("SELECT fair_commitment FROM desk WHERE desk_id = 1", &[])
        .unwrap()
        .get(0);
    let revealed: Vec<u8> = admin
        .query_one("SELECT commitment FROM fair_reveal(1)", &[])
        .unwrap()
        .get(0);
    assert_eq!(revealed, desk_1);
    let games = |c: &mut Client| -> i64 {
        c.query_one("SELECT count(*) FROM game", &[])
            .unwrap()
            .get(0)
    };
    let before = games(&mut admin);

    let rewrites = [
        // Desk 1's round 1 (now revealed) at desk 2, whose round 1 it is not.
        (
            2,
            format!(
                "UPDATE desk SET fair_round = 1, fair_commitment = '\\x{}' WHERE desk_id = 2",
                hex(&desk_1)
            ),
        ),
        // Desk 1 back on its revealed round.
        (
            1,
            format!(
                "UPDATE desk SET fair_round = 1, fair_commitment = '\\x{}', fair_nonce = 5 WHERE desk_id = 1",
                hex(&revealed)
            ),
        ),
        // Desk 2 on the round that was rolled back.
        (
            2,
            format!(
                "UPDATE desk SET fair_round = 2, fair_commitment = '\\x{}' WHERE desk_id = 2",
                hex(&rolled_back)
            ),
        ),
    ];
    let fk = SqlState::FOREIGN_KEY_VIOLATION;
    let mut fresh = server::connect_as(db, &user);
    for (desk, rewrite) in &rewrites {
        for client in [&mut cached, &mut fresh] {
            let separate = format!("BEGIN; {rewrite}; SELECT deal_cards({desk})");
            assert_eq!(error_code(client, &separate), fk, "{separate}");
            client.batch_execute("ROLLBACK").unwrap();
            // In the statement that deals: the rewrite runs first and the deal sees it. A
            // backend that keeps the round's seed deals, and the key, checked at the
            // statement's end, undoes both; one that must read the seed finds none.
            let same_statement = format!(
                "WITH moved AS ({rewrite} RETURNING 1)
                 SELECT (SELECT count(*) FROM moved), deal_cards({desk})"
            );
            let code = error_code(client, &same_statement);
            assert!(
                code == fk || code == SqlState::DATA_CORRUPTED,
                "{same_statement}: {code:?}"
            );
        }
    }
    assert_eq!(games(&mut admin), before, "a rewritten desk was dealt at");
    // The desks deal on, each under its own unrevealed round, and every game verifies.
    for desk in [1, 2] {
        parse_fair_deal(&deal(&mut cached, desk));
    }
    let failed: i64 = admin
        .query_one(
            "SELECT count(*) FROM desk d, fair_verify_desk(d.desk_id) v WHERE v.verified = false",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(failed, 0, "a game does not verify");
}

/// Desk 1 of a new database `db` in provably fair mode, seats 1 and 2 taken, and seat 3 too
/// if `third`; connection B, which has dealt there (so that its next deal reads the seats
/// with the desk's lock, in one statement), deals while another transaction holds the desk: it
/// runs `hold` (which must make B wait), then `change`, then commits. Returns B's deal and the
/// superuser's connection.
fn deal_that_waited(
    db: &str,
    third: bool,
    hold: &str,
    change: &str,
) -> ((i32, i64, String, i64), Client) {
    let mut admin = database_with_extension(db);
    seat(&mut admin, 1, &[1, 2, 3]);
    admin.batch_execute("SELECT fair_mode_on(1)").unwrap();
    let user = server::dsn_setting("user");
    let mut a = server::connect_as(db, &user);
    let mut b = server::connect_as(db, &user);
    assert_eq!(parse_fair_deal(&deal(&mut b, 1)).3, 0);
    if !third {
        admin
            .execute(
                "DELETE FROM desk_player WHERE desk_id = 1 AND player_no = 3",
                &[],
            )
            .unwrap();
    }
    let b_pid: i32 = b.query_one("SELECT pg_backend_pid()", &[]).unwrap().get(0);

    let mut tx = a.transaction().unwrap();
    tx.batch_execute(hold).unwrap();
    let (sender, receiver) = std::sync::mpsc::channel();
    let waiting = thread::spawn(move || {
        sender.send(deal(&mut b, 1)).unwrap();
    });
    let mut observer = server::connect_as(db, &user);
    let blocked = server::waits_for_a_lock(&mut observer, b_pid);
    assert!(blocked, "{hold}: the deal did not wait for the desk");
    tx.batch_execute(change).unwrap();
    tx.commit().unwrap();
    let dealt = parse_fair_deal(
        &receiver
            .recv_timeout(Duration::from_secs(30))
            .expect("the deal that waited never finished"),
    );
    waiting.join().unwrap();
    (dealt, admin)
}

/// The third seat's player and client seed as `game` recorded them, and whether desk 1's games
/// all verify after a reveal.
fn third_seat_and_verified(admin: &mut Client, game: i64) -> (Option<i64>, Option<String>, bool) {
    let row = admin
        .query_one(
            "SELECT p3_id, client_seeds[3] FROM game WHERE game_id = $1",
            &[&game],
        )
        .unwrap();
    admin.batch_execute("SELECT fair_reveal(1)").unwrap();
    let verified: bool = admin
        .query_one(
            "SELECT bool_and(verified) AND count(*) = (SELECT count(*) FROM game)
               FROM fair_verify_desk(1)",
            &[],
        )
        .unwrap()
        .get(0);
    (row.get(0), row.get(1), verified)
}

/// A deal that waited for its desk's lock takes the seats as they are once it holds it, although
/// the statement that waited read the seats before the wait: here it waited for another deal,
/// whose transaction then gave seat 3 to another player with a seed of their own.
#[test]
fn a_deal_that_waited_for_its_desk_deals_to_the_seats_as_they_are_then() {
    let (second, mut admin) = deal_that_waited(
        "dealcards_fair_wait",
        true,
        "SELECT deal_cards(1)",
        "UPDATE desk_player SET player_id = 99, client_seed = 'sat down meanwhile'
          WHERE desk_id = 1 AND player_no = 3",
    );
    assert_eq!(second.3, 2, "the nonce after the other deal's");
    assert_eq!(
        third_seat_and_verified(&mut admin, second.1),
        (Some(99), Some("sat down meanwhile".to_string()), true)
    );
}

/// The same when the deal waited for a player sitting down: the insert into desk_player locks
/// the desk row (its foreign key) without changing it.
#[test]
fn a_deal_that_waited_for_a_player_sitting_down_deals_to_them() {
    let (dealt, mut admin) = deal_that_waited(
        "dealcards_fair_wait_sit",
        false,
        "INSERT INTO desk_player (desk_id, player_no, player_id, client_seed)
         VALUES (1, 3, 77, 'sat down meanwhile')",
        "",
    );
    assert_eq!(dealt.3, 1, "the nonce after the first deal's");
    assert_eq!(
        third_seat_and_verified(&mut admin, dealt.1),
        (Some(77), Some("sat down meanwhile".to_string()), true)
    );
}

/// The same when the deal waited for a transaction that locked the desk without changing it and
/// gave seat 3 to another player.
#[test]
fn a_deal_that_waited_for_a_lock_on_its_desk_deals_to_the_seats_as_they_are_then() {
    let (dealt, mut admin) = deal_that_waited(
        "dealcards_fair_wait_lock",
        true,
        "SELECT FROM desk WHERE desk_id = 1 FOR UPDATE",
        "UPDATE desk_player SET player_id = 88, client_seed = 'took the seat meanwhile'
          WHERE desk_id = 1 AND player_no = 3",
    );
    assert_eq!(dealt.3, 1, "the nonce after the first deal's");
    assert_eq!(
        third_seat_and_verified(&mut admin, dealt.1),
        (Some(88), Some("took the seat meanwhile".to_string()), true)
    );
}
