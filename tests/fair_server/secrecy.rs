//! What the secrecy tests share: a game server's role at two provably fair desks, everything
//! it received, and the server seeds it must not find there.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use postgres::error::SqlState;
use postgres::{Client, NoTls};

use crate::desks::{database_with_extension, deal_receipt, parse_dealt, seat};
use crate::grants::create_game_server_role;
use crate::server;

/// A connection to `db` as `user` that appends every notice it receives (all its fields) to
/// `notices`.
pub fn connect_collecting(db: &str, user: &str, notices: Arc<Mutex<Vec<String>>>) -> Client {
    let mut config: postgres::Config = format!("{} dbname={db} user={user}", server::dsn())
        .parse()
        .unwrap();
    config.notice_callback(move |notice| notices.lock().unwrap().push(format!("{notice:?}")));
    config
        .connect(NoTls)
        .unwrap_or_else(|e| panic!("cannot connect to {db} as {user}: {e}"))
}

/// A server seed as the tests look for it in what a role received: any 8 of its bytes in a
/// row, as hex (either case) or raw, or the whole seed as base64.
pub struct Secret {
    pub what: String,
    pub raw: Vec<u8>,
    pub base64: String,
}

impl Secret {
    /// Where in `text` this seed shows, if it does.
    pub fn found_in(&self, text: &str) -> Option<String> {
        let hex = hex::encode(&self.raw);
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
pub struct Received(Vec<(String, String)>);

impl Received {
    pub fn add(&mut self, source: impl Into<String>, text: impl Into<String>) {
        self.0.push((source.into(), text.into()));
    }

    /// Runs a query, recording every row it returns as text; returns the rows.
    pub fn rows(&mut self, client: &mut Client, sql: &str) -> Vec<String> {
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
    pub fn refused(&mut self, client: &mut Client, sql: &str, code: &SqlState) {
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
    pub fn assert_none_of(&self, secrets: &[Secret]) {
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
pub fn unrevealed_seeds(admin: &mut Client) -> Vec<Secret> {
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
pub fn pg_dump_as(db: &str, user: &str, extra: &[&str]) -> (bool, String, String) {
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

/// A new database `db` with two desks in provably fair mode, set up by a game server's role
/// `role` (holding [`crate::grants::GAME_SERVER_GRANTS`]): it seats three players at each (seat 3
/// of desk 1 the house's), players set client seeds, and it deals six games at desk 1 and four
/// at desk 2 (reading each one's receipt after it committed), a listener of the role
/// hearing both desks' channels. What the role received so far is in `received`; the seeds
/// behind the two commitments, which only the extension's owner can read, in `secrets`.
pub struct FairDesks {
    pub db: &'static str,
    pub role: &'static str,
    /// The superuser's connection.
    pub admin: Client,
    pub game_server: Client,
    pub listener: Client,
    /// Every notice the role's connections received.
    pub notices: Arc<Mutex<Vec<String>>>,
    pub received: Received,
    pub commitments: BTreeMap<i32, Vec<u8>>,
    pub secrets: Vec<Secret>,
    /// (desk, what deal_cards returned), in the order dealt.
    pub dealt: Vec<(i32, String)>,
    /// (desk, the receipt fair_receipt gave once the deal had committed), in the order dealt.
    pub receipts: Vec<(i32, String)>,
    pub next_nonce: BTreeMap<i32, i64>,
}

impl FairDesks {
    pub fn new(db: &'static str, role: &'static str) -> Self {
        let mut admin = database_with_extension(db);
        create_game_server_role(&mut admin, role);
        let notices = Arc::new(Mutex::new(Vec::new()));
        let mut game_server = connect_collecting(db, role, notices.clone());
        let mut listener = connect_collecting(db, role, notices.clone());
        listener
            .batch_execute("LISTEN dealcards_desk_1; LISTEN dealcards_desk_2;")
            .unwrap();
        let mut received = Received::default();

        // The game server seats three players at each of two desks and puts both in provably fair
        // mode: desk 1 with seat 3 the house's and the others' seeds required, desk 2 with no
        // seeds required; players set client seeds; it deals six games at desk 1 and four at
        // desk 2.
        seat(&mut game_server, 1, &[1, 2, 3]);
        seat(&mut game_server, 2, &[1, 2, 3]);
        let mut commitments = BTreeMap::new();
        for (desk, sql) in [
            (1, "SELECT fair_mode_on(1, house_seats => '{3}')"),
            (2, "SELECT fair_mode_on(2, seeds_required => false)"),
        ] {
            let commitment: Vec<u8> = game_server.query_one(sql, &[]).unwrap().get(0);
            received.add(format!("fair_mode_on({desk})"), hex::encode(&commitment));
            commitments.insert(desk, commitment);
        }
        // In the mode already: the same commitment again.
        let again = received.rows(&mut game_server, "SELECT fair_mode_on(1)");
        assert_eq!(
            again,
            [format!("(\"\\\\x{}\")", hex::encode(&commitments[&1]))]
        );

        let secrets = secrets_behind(&mut admin, &commitments);

        for (desk, seat, seed) in [(1, 1, "Zoë"), (1, 2, "牌"), (2, 2, "a'b\"c\\d")] {
            received.rows(
                &mut game_server,
                &format!(
                    "SELECT set_client_seed({desk}, {seat}, '{}')",
                    seed.replace('\'', "''")
                ),
            );
        }
        let (dealt, receipts, next_nonce) =
            deal_ten_games(&mut game_server, &mut received, &commitments);
        FairDesks {
            db,
            role,
            admin,
            game_server,
            listener,
            notices,
            received,
            commitments,
            secrets,
            dealt,
            receipts,
            next_nonce,
        }
    }
}

/// What only the extension's owner can read: the seeds behind the two commitments.
fn secrets_behind(admin: &mut Client, commitments: &BTreeMap<i32, Vec<u8>>) -> Vec<Secret> {
    let secrets = unrevealed_seeds(admin);
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
        .found_in(&format!(
            "x{}y",
            hex::encode(&secrets[0].raw).to_uppercase()
        ))
        .is_some());
    secrets
}

/// (desk, a text of one of its deals), in the order dealt.
type ByDesk = Vec<(i32, String)>;

/// (dealt, receipts, next nonce of each desk) of ten deals at desks 1 and 2, each committed on
/// its own; the game server then reads its receipt to relay.
fn deal_ten_games(
    game_server: &mut Client,
    received: &mut Received,
    commitments: &BTreeMap<i32, Vec<u8>>,
) -> (ByDesk, ByDesk, BTreeMap<i32, i64>) {
    let (mut dealt, mut receipts) = (Vec::new(), Vec::new());
    for desk in [1, 1, 1, 2, 1, 2, 2, 1, 2, 1] {
        let (json, receipt) = deal_receipt(game_server, desk);
        received.add(format!("deal_cards({desk})"), json.clone());
        received.add(
            format!("fair_receipt of a game of desk {desk}"),
            receipt.clone(),
        );
        dealt.push((desk, json));
        receipts.push((desk, receipt));
    }
    let mut next_nonce = BTreeMap::from([(1, 0), (2, 0)]);
    for (desk, json) in &dealt {
        let (d, _, commitment, nonce) = parse_dealt(json);
        assert_eq!(d, *desk);
        assert_eq!(commitment, hex::encode(&commitments[desk]));
        assert_eq!(nonce, next_nonce[desk]);
        *next_nonce.get_mut(desk).unwrap() += 1;
    }
    (dealt, receipts, next_nonce)
}
