//! The provably fair statements of the desk store: a desk's rounds (their commitments, rules
//! and reveals), its players' client seeds, and what the verifications and receipts read.

use std::cell::RefCell;

use pgrx::datum::{Interval, TimestampWithTimeZone};
use pgrx::pg_sys;
use pgrx::spi::SpiClient;

use super::{sql, DeskStore};
use crate::fair_unseen::Dealer;
use crate::installed::Tables;
use crate::statements::{Columns, ExtensionSchema};
use crate::PgSqlErrorCode;
use dealcards_core::fair::verify::StoredGame;
use dealcards_core::fair::Hash;

/// A round of a desk while its seed is unrevealed: the seed, the rules fixed with its
/// commitment, and whether this very transaction committed it.
pub struct StoredRound {
    pub server_seed: Vec<u8>,
    pub protocol: i16,
    pub house_seats: Vec<Option<i32>>,
    pub seeds_required: bool,
    /// The round's bound: how many deals it may deal, and when its seed is due (the tables of
    /// releases before 0.7.0 have no bound: `i64::MAX` and none).
    pub max_deals: i64,
    pub reveal_by: Option<pg_sys::TimestampTz>,
    /// `reveal_by` as a span from the round's commitment: what the next round takes by default.
    pub reveal_within: Option<Interval>,
    /// The token of the server it was committed on (none on the tables of releases before
    /// 0.7.0, and for a round stored before the token existed or restored from such a dump).
    pub instance: Option<String>,
    /// The server's timeline when it was committed (none where the instance is).
    pub timeline: Option<i64>,
    /// The place it was committed in ([`current_place`]; none where the instance is, and for a
    /// round committed before the update to 0.7.0).
    pub place: Option<String>,
    pub written_here: bool,
}

/// The server's timeline: the one its WAL is written on. A promoted standby and a point-in-time
/// recovery go on under a new one; a crash recovery keeps it. Asked only where the server
/// writes (a deal or a commitment has refused a hot standby before).
pub fn current_timeline() -> i64 {
    // SAFETY: reads the timeline the server writes WAL under; RecoveryInProgress first brings a
    // backend that started before a promotion up to date (PostgreSQL 14 keeps the timeline in a
    // per-backend variable that it sets).
    let timeline = unsafe {
        #[cfg(feature = "pg14")]
        {
            pg_sys::RecoveryInProgress();
            pg_sys::ThisTimeLineID
        }
        #[cfg(not(feature = "pg14"))]
        {
            pg_sys::GetWALInsertionTimeLine()
        }
    };
    i64::from(timeline)
}

/// Where this backend deals: its database's oid (a `CREATE DATABASE ... TEMPLATE` copy has
/// another) and the identity of the data directory's `global/pg_control` file, its inode number
/// and birth time (inode number and device where the file system keeps no birth time).
/// PostgreSQL rewrites that file in place, so a restart and a crash recovery keep it; a base
/// backup, a copy of the files, a restored archive and pg_upgrade make a new one. A round records
/// the place it was committed in, and a deal refuses a round of another place. Read once per
/// backend: neither can change under a running backend.
pub fn current_place() -> String {
    PLACE.with(|place| place.get_or_init(read_place).clone())
}

/// [`current_place`] as read from the catalog's database oid and the file system.
fn read_place() -> String {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: the backend's database oid and data directory, set before any function runs.
    let (database, data_dir) = unsafe {
        (
            pg_sys::MyDatabaseId,
            std::ffi::CStr::from_ptr(pg_sys::DataDir).to_string_lossy(),
        )
    };
    let path = std::path::Path::new(data_dir.as_ref()).join("global/pg_control");
    let file = std::fs::metadata(&path).unwrap_or_else(|e| {
        pgrx::ereport!(
            ERROR,
            PgSqlErrorCode::ERRCODE_IO_ERROR,
            format!("could not read the identity of \"{}\": {e}", path.display())
        );
    });
    let born = file
        .created()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
    let identity = match born {
        Some(born) => format!(
            "inode {} born {}.{:09}",
            file.ino(),
            born.as_secs(),
            born.subsec_nanos()
        ),
        None => format!("inode {} device {}", file.ino(), file.dev()),
    };
    format!(
        "database {}, global/pg_control {identity}",
        u32::from(database)
    )
}

thread_local! {
    /// [`current_place`], read once per backend.
    static PLACE: std::cell::OnceCell<String> = const { std::cell::OnceCell::new() };
    /// This server's token (dealcards_instance), with the oid of the table it was read from: a
    /// restore's CREATE EXTENSION makes the table anew, with another token, so another oid
    /// reads it again. Only the tables' owner can change the row.
    static TOKEN: RefCell<Option<(pg_sys::Oid, String)>> = const { RefCell::new(None) };
}

/// The rules of a new round.
pub struct RoundRules<'r> {
    pub house_seats: &'r [i16],
    pub seeds_required: bool,
    /// The round's bound: at most this many deals (not stored on the tables of releases before
    /// 0.7.0), and its seed due within this span of its commitment (none: no time limit).
    pub max_deals: i64,
    pub reveal_within: Option<Interval>,
}

impl DeskStore<'_, '_> {
    /// Locks a desk's row (see [`DeskStore::lock`]) and returns its commitment in force, if
    /// any, as (round, commitment).
    pub fn lock_commitment(&mut self, desk_id: i32) -> Option<(i32, Vec<u8>)> {
        let desk = self.lock(desk_id, false);
        desk.fair.and_then(|f| Some(f.round).zip(f.commitment))
    }

    /// Stores a desk's next round under `commitment` to `seed` with `rules` (none on the tables
    /// of 0.3.0 and 0.4.0, which have no rules) and returns its number; then puts it in force at
    /// the desk from its first nonce.
    pub fn commit_round(
        &mut self,
        desk_id: i32,
        commitment: &Hash,
        seed: &[u8],
        rules: Option<RoundRules<'_>>,
    ) -> i32 {
        let mut args = vec![
            desk_id.into(),
            commitment.to_vec().into(),
            seed.to_vec().into(),
        ];
        let sql = match rules {
            Some(rules) => {
                args.extend([
                    rules.house_seats.to_vec().into(),
                    rules.seeds_required.into(),
                ]);
                if self.tables == Tables::Current {
                    let token = self.server_token();
                    args.extend([
                        rules.max_deals.into(),
                        rules.reveal_within.into(),
                        token.into(),
                        current_timeline().into(),
                        current_place().into(),
                    ]);
                    sql::ADD_ROUND
                } else {
                    sql::ADD_ROUND_BEFORE_0_7
                }
            }
            None => sql::ADD_ROUND_BEFORE_0_5,
        };
        let round = self.run(sql, &args).first().required::<i32>("round");
        self.run(
            sql::PUT_ROUND,
            &[desk_id.into(), round.into(), commitment.to_vec().into()],
        );
        round
    }

    /// This server's token, which the rounds committed here record ([`StoredRound::instance`]);
    /// none on the tables of releases before 0.7.0. Read once per backend and table.
    pub fn server_token(&mut self) -> Option<String> {
        let relid = self.schema.relation(c"dealcards_instance")?;
        let kept = TOKEN.with_borrow(|t| {
            t.as_ref()
                .filter(|(r, _)| *r == relid)
                .map(|(_, token)| token.clone())
        });
        if kept.is_some() {
            return kept;
        }
        let token: String = self.run(sql::INSTANCE, &[]).first().required("token");
        TOKEN.with_borrow_mut(|t| *t = Some((relid, token.clone())));
        Some(token)
    }

    /// Takes the desk out of provably fair mode.
    pub fn leave_fair_mode(&mut self, desk_id: i32) {
        self.run(sql::LEAVE_FAIR_MODE, &[desk_id.into()]);
    }

    /// Marks a desk's round revealed at `now`; false when the round has no unrevealed seed.
    /// The seed itself is not read: the fair_commitment view shows it once this transaction
    /// has committed.
    pub fn reveal(&mut self, desk_id: i32, round: i32, now: TimestampWithTimeZone) -> bool {
        !self
            .run(sql::REVEAL, &[desk_id.into(), round.into(), now.into()])
            .is_empty()
    }

    /// [`DeskStore::reveal`] as the functions of 0.3.0 and 0.4.0 did it, returning the seed to
    /// the revealing transaction: only for databases still on their SQL.
    pub fn reveal_before_0_5(
        &mut self,
        desk_id: i32,
        round: i32,
        now: TimestampWithTimeZone,
    ) -> Option<Vec<u8>> {
        let revealed = self.run(
            sql::REVEAL_BEFORE_0_5,
            &[desk_id.into(), round.into(), now.into()],
        );
        (!revealed.is_empty()).then(|| revealed.first().required("server_seed"))
    }

    /// A desk's round while its seed is unrevealed, with its rules (protocol 1, no house seats,
    /// no seeds required on the tables of 0.3.0 and 0.4.0).
    pub fn round(&mut self, desk_id: i32, round: i32) -> Option<StoredRound> {
        let args = [desk_id.into(), round.into()];
        if !self.tables.round_rules() {
            let found = self.run(sql::ROUND_BEFORE_0_5, &args);
            return (!found.is_empty()).then(|| StoredRound {
                server_seed: found.first().required("server_seed"),
                protocol: 1,
                house_seats: Vec::new(),
                seeds_required: false,
                max_deals: i64::MAX,
                reveal_by: None,
                reveal_within: None,
                instance: None,
                timeline: None,
                place: None,
                written_here: false,
            });
        }
        let bounded = self.tables == Tables::Current;
        let sql = if bounded {
            sql::ROUND
        } else {
            sql::ROUND_BEFORE_0_7
        };
        let found = self.run(sql, &args);
        if found.is_empty() {
            return None;
        }
        let row = found.first();
        Some(StoredRound {
            max_deals: if bounded {
                row.required("max_deals")
            } else {
                i64::MAX
            },
            reveal_by: if bounded {
                row.value::<TimestampWithTimeZone>("reveal_by")
                    .map(pg_sys::TimestampTz::from)
            } else {
                None
            },
            reveal_within: if bounded {
                row.value("reveal_within")
            } else {
                None
            },
            instance: if bounded { row.value("instance") } else { None },
            timeline: if bounded { row.value("timeline") } else { None },
            place: if bounded { row.value("place") } else { None },
            server_seed: row.required("server_seed"),
            protocol: row.required("protocol"),
            house_seats: row
                .required::<Vec<Option<i16>>>("house_seats")
                .into_iter()
                .map(|s| s.map(i32::from))
                .collect(),
            seeds_required: row.required("seeds_required"),
            written_here: row.required("written_here"),
        })
    }

    /// Sets the client seed (UTF-8) of the player in a seat of a locked desk, under `round`.
    /// On the tables of 0.5.0 a seating sets one seed per round: `Err(player)` when it set it
    /// already. `Ok(None)` when the seat is empty.
    pub fn set_client_seed(
        &mut self,
        desk_id: i32,
        round: i32,
        seat: i16,
        utf8: Vec<u8>,
    ) -> Result<Option<i64>, i64> {
        if !self.tables.round_rules() {
            let set = self.run(
                sql::SET_CLIENT_SEED_BEFORE_0_5,
                &[desk_id.into(), seat.into(), utf8.into()],
            );
            return Ok((!set.is_empty()).then_some(0));
        }
        let sql = if self.tables == Tables::Current {
            sql::SET_CLIENT_SEED
        } else {
            sql::SET_CLIENT_SEED_BEFORE_0_7
        };
        let set = self.run(
            sql,
            &[desk_id.into(), seat.into(), round.into(), utf8.into()],
        );
        if !set.is_empty() {
            return Ok(Some(set.first().required::<i64>("player_id")));
        }
        let player = self.run(sql::SEAT_PLAYER, &[desk_id.into(), seat.into()]);
        if player.is_empty() {
            Ok(None)
        } else {
            Err(player.first().required::<i64>("player_id"))
        }
    }

    /// A desk's chain head. Raises 02000 for a desk that does not exist.
    pub fn chain_head(&mut self, desk_id: i32) -> Option<Vec<u8>> {
        let unseen = self.tables.deals_unseen();
        let sql = if unseen {
            sql::DESK_PENDING
        } else {
            sql::DESK_EXISTS
        };
        let desk = self.read(sql, &[desk_id.into()]);
        Self::check_exists(desk_id, &desk);
        let desk = desk.first();
        if unseen {
            Self::refuse_pending(desk_id, desk.required("pending"));
        }
        desk.value("fair_chain_head")
    }

    /// Refuses (42501) a provably fair deal to a session that could see it before it commits,
    /// where row level security hides it from everyone else (0.7.0's tables). Who could see it
    /// is every role the session can act as: the current user, the session user, and every role
    /// either is a member of, with or without inheritance (SET ROLE, and SET SESSION
    /// AUTHORIZATION where the login is a superuser); a role switch before or after the deal
    /// opens nothing. Such a role with BYPASSRLS skips the policies, with REPLICATION streams
    /// the deal's rows from the WAL, pg_read_server_files and pg_execute_server_program read the
    /// WAL and data files, and before PostgreSQL 16 CREATEROLE grants itself those. A session
    /// that can act as the tables' owner or a superuser is the house, which reads the seeds
    /// anyway, and deals as before. Any other session is let deal with the deal's tables marked
    /// unseen for the rest of the transaction ([`crate::fair_unseen`]). The answer is kept
    /// until a role or a membership changes. Called with the desk locked.
    pub fn refuse_caller_who_sees_deals(&self, desk_id: i32) {
        let (Some(caller), Some(owner)) = (self.caller, self.owner) else {
            return;
        };
        if !self.tables.deals_unseen() {
            return;
        }
        keep_deal_unseen(
            &*self.client,
            self.schema,
            (caller, owner),
            self.deal_tables(),
            |role, what| refuse_seer(desk_id, role, what),
        );
    }

    /// The tables a deal writes: game, bid_record and note.
    fn deal_tables(&self) -> Vec<pg_sys::Oid> {
        [c"game", c"bid_record", c"note"]
            .iter()
            .filter_map(|t| self.schema.relation(t))
            .collect()
    }

    /// Refuses to read a desk's provably fair record where its newest game is a deal of the
    /// caller's own transaction that the caller cannot see before the commit: the record would
    /// lack that game and name its chain hash as the head.
    fn refuse_pending(desk_id: i32, pending: bool) {
        if pending {
            pgrx::ereport!(
                ERROR,
                PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
                format!("desk {desk_id} has a deal of this transaction, which no role but the tables' owner sees before it commits"),
                "Commit, then read the desk's provably fair record."
            );
        }
    }

    /// A desk's provably fair games as stored, in chain order.
    pub fn fair_games(&mut self, desk_id: i32) -> Vec<StoredGame> {
        let sql = match self.tables {
            Tables::Current => sql::FAIR_GAMES,
            t if t.round_rules() => sql::FAIR_GAMES_BEFORE_0_7,
            _ => sql::FAIR_GAMES_BEFORE_0_5,
        };
        let games = self.read(sql, &[desk_id.into()]);
        games
            .map(|row| {
                let seed_count = row.value::<i32>("seed_count").unwrap_or(0).max(0) as usize;
                let client_seeds = ["seed1", "seed2", "seed3"]
                    .iter()
                    .map(|name| row.value::<Vec<u8>>(name))
                    .chain(std::iter::repeat(None))
                    .take(seed_count)
                    .collect();
                let hand = |name: &str| row.value::<Vec<Option<i32>>>(name).unwrap_or_default();
                StoredGame {
                    game_id: row.required("game_id"),
                    round: row.value("round"),
                    nonce: row.value("fair_nonce"),
                    commitment: row.value("fair_commitment").unwrap_or_default(),
                    protocol: row.required("protocol"),
                    house_seats: row
                        .required::<Vec<Option<i16>>>("house_seats")
                        .into_iter()
                        .flatten()
                        .collect(),
                    seeds_required: row.required("seeds_required"),
                    max_deals: row.value("max_deals"),
                    reveal_by: row.value("reveal_by_micros"),
                    players: [row.value("p1_id"), row.value("p2_id"), row.value("p3_id")],
                    client_seeds,
                    hands: [
                        hand("p1_cards"),
                        hand("p2_cards"),
                        hand("p3_cards"),
                        hand("extra_cards"),
                    ],
                    leader: row.value("leader").unwrap_or(0),
                    chain_hash: row.value("chain_hash"),
                    revealed_seed: row.value("server_seed"),
                    dealt_after_reveal: row.value::<bool>("dealt_after_reveal") == Some(true),
                }
            })
            .collect()
    }

    /// A desk's rounds left without a reveal: unrevealed, and not the desk's round.
    pub fn rounds_left(&mut self, desk_id: i32) -> Vec<i32> {
        self.read(sql::ROUNDS_LEFT, &[desk_id.into()])
            .map(|row| row.required::<i32>("round"))
            .collect()
    }

    /// What the house publishes of a desk (publication.sql). Raises 02000 for a desk that does
    /// not exist.
    pub fn publication(&mut self, desk_id: i32) -> pgrx::JsonB {
        let published = self.read(sql::PUBLICATION, &[desk_id.into()]);
        Self::check_exists(desk_id, &published);
        let published = published.first();
        Self::refuse_pending(desk_id, published.required("pending"));
        published.required("publication")
    }

    /// A game's receipt as stored (receipt.sql), with whether it was dealt in provably fair
    /// mode; none for a game the caller cannot see.
    pub fn receipt(&mut self, game_id: i64) -> Option<(bool, pgrx::JsonB)> {
        let game = self.read(sql::RECEIPT, &[game_id.into()]);
        if game.is_empty() {
            return None;
        }
        let row = game.first();
        Some((row.required("fair"), row.required("receipt")))
    }

    /// A game's desk and whether it was dealt in provably fair mode; none for no such game.
    pub fn game_desk(&mut self, game_id: i64) -> Option<(i32, bool)> {
        let game = self.read(sql::GAME_DESK, &[game_id.into()]);
        if game.is_empty() {
            return None;
        }
        let row = game.first();
        Some((row.required("desk_id"), row.required("fair")))
    }
}

/// Keeps a deal written to `tables` unseen by the session that deals it as the role `caller`,
/// the tables' owner being `owner` ([`DeskStore::refuse_caller_who_sees_deals`] says who could
/// see it): calls `refuse` (which raises) for a session that could see it before it commits;
/// does nothing for one that can act as the tables' owner or a superuser (the house); and for
/// any other session marks `tables` unseen for the rest of the transaction
/// ([`crate::fair_unseen`]). The answer is kept until a role or a membership changes.
pub fn keep_deal_unseen(
    client: &SpiClient<'_>,
    schema: &ExtensionSchema,
    (caller, owner): (pg_sys::Oid, pg_sys::Oid),
    tables: Vec<pg_sys::Oid>,
    refuse: impl FnOnce(&str, &str),
) {
    // SAFETY: reads the backend's session and login user ids, and role attributes from the
    // catalog caches.
    let (session, login_superuser) = unsafe {
        (
            pg_sys::GetSessionUserId(),
            pg_sys::superuser_arg(pg_sys::GetAuthenticatedUserId()),
        )
    };
    if login_superuser {
        return;
    }
    let dealer = crate::fair_unseen::dealer((session, caller, owner), || {
        find_dealer(client, schema, session, caller, owner)
    });
    match dealer {
        Dealer::House => {}
        Dealer::Sees { role, what } => refuse(&role, &what),
        Dealer::Unseen => crate::fair_unseen::dealt_unseen(tables),
    }
}

/// What a session is to a deal kept unseen, from the roles its session user and current user
/// can act as.
fn find_dealer(
    client: &SpiClient<'_>,
    schema: &ExtensionSchema,
    session: pg_sys::Oid,
    caller: pg_sys::Oid,
    owner: pg_sys::Oid,
) -> Dealer {
    let createrole_grants_all = cfg!(any(feature = "pg14", feature = "pg15"));
    let seers = crate::statements::read(
        client,
        schema,
        sql::SEERS,
        &[
            session.into(),
            caller.into(),
            owner.into(),
            createrole_grants_all.into(),
        ],
    );
    if seers.is_empty() {
        return Dealer::Unseen;
    }
    let row = seers.first();
    if row.required::<bool>("house") {
        Dealer::House
    } else {
        Dealer::Sees {
            role: row.required("role"),
            what: row.required("sees"),
        }
    }
}

/// Refuses (42501) a provably fair deal to a session that can act as `role`, which has `what`.
fn refuse_seer(desk_id: i32, role: &str, what: &str) -> ! {
    pgrx::ereport!(
        ERROR,
        PgSqlErrorCode::ERRCODE_INSUFFICIENT_PRIVILEGE,
        format!("desk {desk_id} is in provably fair mode, and this session can act as role \"{role}\", which has {what}: it could see the deal before it commits"),
        "A session that deals provably fair must not be able to act as a role with BYPASSRLS or REPLICATION (or CREATEROLE before PostgreSQL 16), nor as pg_read_server_files or pg_execute_server_program, by inheritance or SET ROLE: ALTER ROLE ... NOBYPASSRLS NOREPLICATION, or REVOKE the membership; or deal as the extension's owner."
    );
}
