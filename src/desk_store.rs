//! Every statement on the desk tables (desk, desk_player, game, bid_record, note) and the
//! provably fair seeds (fair_seed), behind named functions: the dealing and
//! provably fair code never writes SQL. The statements are the .sql files of src/desk_store/,
//! read at compile time and run the one way of [`crate::statements`] (kept plans, qualified
//! names only), and which of them a database takes is asked of [`crate::installed`]. The
//! provably fair ones are behind the functions of `desk_store/fair.rs`.
//!
//! Who runs them: a function that changes a desk first locks it, which the caller may do if it
//! holds UPDATE on desk (on one column at least: what `SELECT ... FOR UPDATE` asks); from then
//! on the store runs every statement as the tables' owner, the way a SECURITY DEFINER function
//! would. So a game server's role deals, seats seeds, commits and reveals through the functions
//! alone, and needs no privilege to write games, the desk's provably fair columns, the players'
//! seeds or fair_seed (docs/provably_fair.md). Reads that change nothing (the verifications) run
//! as the caller.
//!
//! Two writers record a deal, behind [`DeskStore::record`]: on a plain server one statement
//! writes the game, the desk's pointer, the opening bids and the note; on a Citus node each
//! table is written by a statement of its own (a statement with INSERT CTEs cannot be routed to
//! one shard), with ids from the node's range ([`crate::citus`]).

use pgrx::datum::DatumWithOid;
use pgrx::pg_sys;
use pgrx::spi::{SpiClient, SpiTupleTable};

use crate::installed::Tables;
use crate::statements::{self, Column, Columns, ExtensionSchema};
use crate::{ok_or_raise, PgSqlErrorCode};
use dealcards_core::deal::{self, DouDizhuDeal, SEATS};
use dealcards_core::fair::Hash;

// The provably fair statements: rounds, reveals, client seeds, and what the verifications read.
mod fair;
pub use fair::{current_place, current_timeline, keep_deal_unseen, RoundRules};
// A provably fair deal's seats, read by their key without a statement.
mod seats_by_key;

/// The statements, by name.
mod sql {
    macro_rules! statement {
        ($name:ident, $file:literal) => {
            pub const $name: &str = include_str!(concat!("desk_store/", $file));
        };
    }
    statement!(LOCK, "lock.sql");
    statement!(LOCK_BEFORE_0_3, "lock_before_0_3.sql");
    statement!(LOCK_WITH_SEATS, "lock_with_seats.sql");
    statement!(LOCK_WITH_SEATS_BEFORE_0_5, "lock_with_seats_before_0_5.sql");
    statement!(LOCK_WITH_SEATS_BEFORE_0_7, "lock_with_seats_before_0_7.sql");
    statement!(SEATS, "seats.sql");
    statement!(FAIR_SEATS, "fair_seats.sql");
    statement!(FAIR_SEATS_BEFORE_0_5, "fair_seats_before_0_5.sql");
    statement!(FAIR_SEATS_BEFORE_0_7, "fair_seats_before_0_7.sql");
    statement!(RECORD_DEAL, "record_deal.sql");
    statement!(RECORD_FAIR_DEAL, "record_fair_deal.sql");
    statement!(BY_TABLE_GAME, "by_table_game.sql");
    statement!(BY_TABLE_DESK, "by_table_desk.sql");
    statement!(BY_TABLE_BIDS, "by_table_bids.sql");
    statement!(BY_TABLE_NOTE, "by_table_note.sql");
    statement!(DESK_EXISTS, "desk_exists.sql");
    statement!(DESK_PENDING, "desk_pending.sql");
    statement!(ADD_ROUND, "add_round.sql");
    statement!(ADD_ROUND_BEFORE_0_7, "add_round_before_0_7.sql");
    statement!(ADD_ROUND_BEFORE_0_5, "add_round_before_0_5.sql");
    statement!(PUT_ROUND, "put_round.sql");
    statement!(LEAVE_FAIR_MODE, "leave_fair_mode.sql");
    statement!(REVEAL, "reveal.sql");
    statement!(REVEAL_BEFORE_0_5, "reveal_before_0_5.sql");
    statement!(ROUND, "round.sql");
    statement!(INSTANCE, "instance.sql");
    statement!(ROUND_BEFORE_0_7, "round_before_0_7.sql");
    statement!(ROUND_BEFORE_0_5, "round_before_0_5.sql");
    statement!(SEAT_PLAYER, "seat_player.sql");
    statement!(SET_CLIENT_SEED, "set_client_seed.sql");
    statement!(SET_CLIENT_SEED_BEFORE_0_5, "set_client_seed_before_0_5.sql");
    statement!(SET_CLIENT_SEED_BEFORE_0_7, "set_client_seed_before_0_7.sql");
    statement!(FAIR_GAMES, "fair_games.sql");
    statement!(FAIR_GAMES_BEFORE_0_7, "fair_games_before_0_7.sql");
    statement!(FAIR_GAMES_BEFORE_0_5, "fair_games_before_0_5.sql");
    statement!(ROUNDS_LEFT, "rounds_left.sql");
    statement!(GAME_DESK, "game_desk.sql");
    statement!(SEERS, "seers.sql");
    statement!(PUBLICATION, "publication.sql");
    statement!(RECEIPT, "receipt.sql");
}

/// What a statement reads of the seats: who sits where, or that and their client seeds too.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SeatColumns {
    /// seats.sql: player_no, player_id.
    Players,
    /// The provably fair statements of 0.3.0's and 0.4.0's tables: and client_seed (never NULL).
    SeedsBefore0_5,
    /// The provably fair statements: and client_seed (NULL where none was set under the round)
    /// and seat_xmin.
    Seeds,
}

/// A desk's seats: how many are seated, who sits where, and the client seed (UTF-8) each
/// seat's player set under the desk's round.
pub struct Seats {
    pub seated: i64,
    pub player_ids: [Option<i64>; SEATS],
    /// None where the seat's player set no seed under the round (or the seeds were not read).
    pub client_seeds: [Option<Vec<u8>>; SEATS],
    /// The seats whose row (the seating, or its seed) this very transaction wrote.
    pub written_here: [bool; SEATS],
}

impl Seats {
    /// The seats from rows of a seats statement; a row without a seat (of the lock's LEFT JOIN)
    /// is none.
    /// No seat taken: what a read of the seats starts from.
    fn empty() -> Seats {
        Seats {
            seated: 0,
            player_ids: [None; SEATS],
            client_seeds: Default::default(),
            written_here: [false; SEATS],
        }
    }

    fn from_rows(rows: SpiTupleTable<'_>, columns: SeatColumns) -> Seats {
        let mut seats = Seats::empty();
        // Each column's name is resolved once for the three rows.
        let player_no = Column::of(&rows, "player_no");
        let player_id = Column::of(&rows, "player_id");
        let (client_seed, seat_xmin) = match columns {
            SeatColumns::Players => (None, None),
            SeatColumns::SeedsBefore0_5 => (Some(Column::of(&rows, "client_seed")), None),
            SeatColumns::Seeds => (
                Some(Column::of(&rows, "client_seed")),
                Some(Column::of(&rows, "seat_xmin")),
            ),
        };
        for row in rows {
            let Some(seat) = player_no.value::<i16>(&row) else {
                continue;
            };
            seats.seated += 1;
            // player_no is CHECKed to be 1..3.
            let Some(n) = usize::try_from(seat)
                .ok()
                .filter(|s| (1..=SEATS).contains(s))
            else {
                continue;
            };
            seats.player_ids[n - 1] = Some(player_id.required::<i64>(&row));
            if let Some(client_seed) = &client_seed {
                seats.client_seeds[n - 1] = match columns {
                    // Never NULL in the tables of 0.3.0 and 0.4.0.
                    SeatColumns::SeedsBefore0_5 => Some(client_seed.required::<Vec<u8>>(&row)),
                    _ => client_seed.value::<Vec<u8>>(&row),
                };
            }
            if let Some(seat_xmin) = &seat_xmin {
                let xmin = seat_xmin.required::<pg_sys::TransactionId>(&row);
                // SAFETY: reads this backend's transaction state.
                seats.written_here[n - 1] =
                    unsafe { pg_sys::TransactionIdIsCurrentTransactionId(xmin) };
            }
        }
        seats
    }

    /// Refuses a deal at a desk whose seats are not all taken (55000).
    pub fn check(&self, desk_id: i32) {
        ok_or_raise(deal::check_seats_taken(desk_id, self.seated));
    }
}

/// A desk's provably fair state, as its lock read it.
pub struct FairState {
    pub round: i32,
    /// None only in a desk row rewritten by hand.
    pub commitment: Option<Vec<u8>>,
    pub nonce: i64,
    pub chain_head: Option<Vec<u8>>,
}

/// A desk its lock holds: its provably fair state, and its seats when the lock read them and
/// they are the seats as the lock was granted.
pub struct LockedDesk {
    pub desk_id: i32,
    pub fair: Option<FairState>,
    pub seats: Option<Seats>,
}

/// What a provably fair deal records besides the cards: with the deal's result, its players'
/// receipt.
pub struct FairRecord {
    pub round: i32,
    pub commitment: Hash,
    pub nonce: i64,
    /// The players of seats 1 to 3.
    pub players: [i64; SEATS],
    /// The client seeds of seats 1 to 3, in UTF-8.
    pub client_seeds: Vec<Vec<u8>>,
    pub chain_hash: Hash,
}

/// The desk tables of one schema, through one SPI connection.
pub struct DeskStore<'a, 'conn> {
    client: &'a mut SpiClient<'conn>,
    schema: &'a ExtensionSchema,
    tables: Tables,
    /// The tables' owner, once a desk is locked: the statements from then on run as it.
    owner: Option<pg_sys::Oid>,
    /// The role that called, once a desk is locked.
    caller: Option<pg_sys::Oid>,
}

impl<'a, 'conn> DeskStore<'a, 'conn> {
    pub fn new(client: &'a mut SpiClient<'conn>, schema: &'a ExtensionSchema) -> Self {
        let tables = Tables::of(schema);
        DeskStore {
            client,
            schema,
            tables,
            owner: None,
            caller: None,
        }
    }

    /// The tables this database has.
    pub fn tables(&self) -> Tables {
        self.tables
    }

    /// Runs `sql`: as the tables' owner once a desk is locked, as the caller before.
    fn run(&mut self, sql: &'static str, args: &[DatumWithOid]) -> SpiTupleTable<'conn> {
        match self.owner {
            None => statements::run(self.client, self.schema, sql, args),
            Some(owner) => {
                let (client, schema) = (&mut *self.client, self.schema);
                as_user(owner, || statements::run(client, schema, sql, args))
            }
        }
    }

    /// Runs `sql`, which only reads, as the caller and read-only (no transaction id: it runs
    /// on a hot standby and in a READ ONLY transaction).
    fn read(&self, sql: &'static str, args: &[DatumWithOid]) -> SpiTupleTable<'conn> {
        statements::read(self.client, self.schema, sql, args)
    }

    /// Refuses a caller that may not lock the desk table's rows (42501), and a hot standby
    /// (25006: nothing can be written there), and from then on runs the statements as the
    /// tables' owner.
    fn become_owner(&mut self) {
        if self.owner.is_some() {
            return;
        }
        crate::refuse_on_standby("change a desk");
        let desk = self
            .schema
            .relation(c"desk")
            .unwrap_or_else(|| pgrx::error!("dealcards cannot find its desk table"));
        if !may_lock_rows(desk) {
            pgrx::ereport!(
                ERROR,
                PgSqlErrorCode::ERRCODE_INSUFFICIENT_PRIVILEGE,
                "permission denied for table desk",
                "Dealing and the provably fair functions lock the desk's row: they need UPDATE on desk, on one column at least (GRANT UPDATE (cur_game_id) ON desk is enough)."
            );
        }
        // SAFETY: reads the current user id, as above.
        self.caller = Some(unsafe { pg_sys::GetUserId() });
        self.owner = Some(
            statements::relation_owner(desk)
                .unwrap_or_else(|| pgrx::error!("dealcards cannot find its desk table")),
        );
    }

    /// Raises 02000 for a desk that does not exist.
    fn check_exists(desk_id: i32, found: &SpiTupleTable<'_>) {
        ok_or_raise(deal::check_desk_exists(desk_id, !found.is_empty()));
    }

    // --- dealing ---

    /// Locks a desk's row and reads its provably fair state; with `with_seats`, its seats and
    /// their client seeds too, in the same statement (a provably fair deal's cards come from the
    /// seats' client seeds). Refuses a caller without UPDATE on desk (42501); every statement of
    /// the store runs as the tables' owner from here on.
    pub fn lock(&mut self, desk_id: i32, with_seats: bool) -> LockedDesk {
        self.become_owner();
        let with_seats = with_seats && self.tables.fair_columns();
        // On a plain server with the current tables the seats are read by their key once the
        // lock is held, cheaper than the lock's join (seats_by_key.rs).
        let by_key = with_seats && self.tables == Tables::Current && !crate::citus::present();
        let with_seats = with_seats && !by_key;
        let (sql, columns) = match (self.tables, with_seats) {
            (Tables::Before0_3, _) => (sql::LOCK_BEFORE_0_3, SeatColumns::Players),
            (_, false) => (sql::LOCK, SeatColumns::Players),
            (Tables::Current, true) => (sql::LOCK_WITH_SEATS, SeatColumns::Seeds),
            (tables, true) if tables.round_rules() => {
                (sql::LOCK_WITH_SEATS_BEFORE_0_7, SeatColumns::Seeds)
            }
            (_, true) => (sql::LOCK_WITH_SEATS_BEFORE_0_5, SeatColumns::SeedsBefore0_5),
        };
        let locked = self.run(sql, &[desk_id.into()]);
        Self::check_exists(desk_id, &locked);
        let desk = locked.first();
        let fair = if self.tables.fair_columns() {
            let round = desk.value::<i32>("fair_round");
            let commitment = desk.value::<Vec<u8>>("fair_commitment");
            if round.is_none() && commitment.is_some() {
                // A desk out of the mode with a commitment set would deal ordinary games under
                // a commitment its players rely on.
                crate::changed_outside(
                    format!("desk {desk_id} has a commitment but no round: its provably fair state was changed outside dealcards' functions"),
                    "fair_mode_on puts the desk under a new commitment once its fair columns are all NULL again.",
                );
            }
            round.map(|round| FairState {
                round,
                commitment,
                nonce: desk.value("fair_nonce").unwrap_or(0),
                chain_head: desk.value("fair_chain_head"),
            })
        } else {
            None
        };
        let fresh = with_seats && desk.value::<bool>("fresh") == Some(true);
        let seats = if by_key {
            fair.as_ref()
                .and_then(|f| seats_by_key::read(self.schema, desk_id, f.round))
        } else {
            fresh.then(|| Seats::from_rows(desk.rewind(), columns))
        };
        LockedDesk {
            desk_id,
            fair,
            seats,
        }
    }

    /// A desk's seats as they are now: who sits where.
    pub fn seats(&mut self, desk_id: i32) -> Seats {
        Seats::from_rows(
            self.run(sql::SEATS, &[desk_id.into()]),
            SeatColumns::Players,
        )
    }

    /// A desk's seats as they are now, with the client seeds their players set under `round`.
    pub fn fair_seats(&mut self, desk_id: i32, round: i32) -> Seats {
        if self.tables.round_rules() {
            let sql = if self.tables == Tables::Current {
                sql::FAIR_SEATS
            } else {
                sql::FAIR_SEATS_BEFORE_0_7
            };
            let rows = self.run(sql, &[desk_id.into(), round.into()]);
            Seats::from_rows(rows, SeatColumns::Seeds)
        } else {
            let rows = self.run(sql::FAIR_SEATS_BEFORE_0_5, &[desk_id.into()]);
            Seats::from_rows(rows, SeatColumns::SeedsBefore0_5)
        }
    }

    /// Whether [`DeskStore::record`] needs the seats read first: where each table is written on
    /// its own (Citus), or for a provably fair deal. Elsewhere an ordinary deal's record counts
    /// the seats itself, as the desk's lock left them.
    pub fn records_given_seats(&self, fair: bool) -> bool {
        fair || self.by_table()
    }

    fn by_table(&self) -> bool {
        self.tables.fair_columns() && crate::citus::present()
    }

    /// Records a deal at a locked desk: the game, the desk's pointer to it (and, for a provably
    /// fair deal, its nonce and chain head), the two opening bids and the note. `seats` are the
    /// players, read before (see [`DeskStore::records_given_seats`]). Returns the game's id.
    pub fn record(
        &mut self,
        desk_id: i32,
        seats: Option<&Seats>,
        deal: &DouDizhuDeal,
        fair: Option<&FairRecord>,
    ) -> i64 {
        let [p1, p2, p3] = deal.hands.map(|h| h.to_vec());
        let leader = deal.leader as i16;
        let bid_seat = deal.opening_bid_seat() as i16;
        let extra = deal.extra.to_vec();
        if self.by_table() {
            let seats = seats.expect("the seats are read before a deal is recorded table by table");
            return self.record_by_table(
                desk_id,
                seats,
                [p1, p2, p3, extra],
                leader,
                bid_seat,
                fair,
            );
        }
        let mut args = vec![
            desk_id.into(),
            p1.into(),
            p2.into(),
            p3.into(),
            extra.into(),
            leader.into(),
            bid_seat.into(),
        ];
        let game_id = match fair {
            None => {
                let recorded = self.run(sql::RECORD_DEAL, &args).first();
                // Nothing was written unless all three seats were taken.
                ok_or_raise(deal::check_seats_taken(
                    desk_id,
                    recorded.required::<i64>("seated"),
                ));
                recorded.value::<i64>("game_id")
            }
            Some(fair) => {
                let [p1_id, p2_id, p3_id] = seats
                    .expect("a provably fair deal's seats are read before its cards")
                    .player_ids;
                args.extend([
                    p1_id.into(),
                    p2_id.into(),
                    p3_id.into(),
                    fair.commitment.to_vec().into(),
                    fair.nonce.into(),
                    fair.client_seeds.clone().into(),
                    fair.chain_hash.to_vec().into(),
                    fair.round.into(),
                ]);
                let recorded = self.run(sql::RECORD_FAIR_DEAL, &args);
                (!recorded.is_empty()).then(|| {
                    let row = recorded.first();
                    if row.required::<i64>("in_force") == 0 {
                        not_in_force(desk_id);
                    }
                    row.required::<i64>("game_id")
                })
            }
        };
        // The statement inserts a game whenever three are seated.
        game_id.unwrap_or_else(|| suppressed(desk_id))
    }

    /// [`DeskStore::record`] one table at a time, each statement naming the desk.
    fn record_by_table(
        &mut self,
        desk_id: i32,
        seats: &Seats,
        [p1, p2, p3, extra]: [Vec<i32>; 4],
        leader: i16,
        bid_seat: i16,
        fair: Option<&FairRecord>,
    ) -> i64 {
        let [p1_id, p2_id, p3_id] = seats.player_ids;
        let base = crate::citus::id_base(self.client, self.schema);
        let commitment = fair.map(|f| f.commitment.to_vec());
        let nonce = fair.map(|f| f.nonce);
        let chain_hash = fair.map(|f| f.chain_hash.to_vec());
        let inserted = self.run(
            sql::BY_TABLE_GAME,
            &[
                desk_id.into(),
                p1.into(),
                p2.into(),
                p3.into(),
                extra.into(),
                leader.into(),
                p1_id.into(),
                p2_id.into(),
                p3_id.into(),
                base.into(),
                commitment.clone().into(),
                nonce.into(),
                fair.map(|f| f.client_seeds.clone()).into(),
                chain_hash.clone().into(),
            ],
        );
        let game_id = if inserted.is_empty() {
            suppressed(desk_id)
        } else {
            inserted.first().required::<i64>("game_id")
        };
        let moved = self.run(
            sql::BY_TABLE_DESK,
            &[
                desk_id.into(),
                game_id.into(),
                commitment.into(),
                nonce.into(),
                chain_hash.into(),
            ],
        );
        if moved.is_empty() {
            not_in_force(desk_id);
        }
        self.run(
            sql::BY_TABLE_BIDS,
            &[desk_id.into(), game_id.into(), bid_seat.into()],
        );
        self.run(
            sql::BY_TABLE_NOTE,
            &[desk_id.into(), game_id.into(), leader.into(), base.into()],
        );
        game_id
    }
}

/// Whether the current user may lock rows of the table `relid` (SELECT ... FOR UPDATE): it
/// holds UPDATE on the table, or on one column of it at least.
pub fn may_lock_rows(relid: pg_sys::Oid) -> bool {
    // SAFETY: privilege checks of the current user on an existing relation, as the executor
    // makes them for SELECT ... FOR UPDATE.
    unsafe {
        let user = pg_sys::GetUserId();
        let update = pg_sys::AclMode::from(pg_sys::ACL_UPDATE);
        pg_sys::pg_class_aclcheck(relid, user, update) == pg_sys::AclResult::ACLCHECK_OK
            || pg_sys::pg_attribute_aclcheck_all(
                relid,
                user,
                update,
                pg_sys::AclMaskHow::ACLMASK_ANY,
            ) == pg_sys::AclResult::ACLCHECK_OK
    }
}

/// Runs `f` as `user`, then returns to the caller's identity. The switch is the one SECURITY
/// DEFINER functions make (a local user id change, restricted: no SET ROLE, no temporary
/// objects); an error inside is undone with the rest of the (sub)transaction, which restores
/// the caller.
pub fn as_user<R>(user: pg_sys::Oid, f: impl FnOnce() -> R) -> R {
    struct Restore(pg_sys::Oid, i32);
    impl Drop for Restore {
        fn drop(&mut self) {
            // SAFETY: puts back the user id and security context read below.
            unsafe { pg_sys::SetUserIdAndSecContext(self.0, self.1) };
        }
    }
    let (mut caller, mut context) = (pg_sys::InvalidOid, 0);
    // SAFETY: reads and sets the backend's current user id and security context, as
    // fmgr_security_definer does around a SECURITY DEFINER call.
    let _restore = unsafe {
        pg_sys::GetUserIdAndSecContext(&mut caller, &mut context);
        pg_sys::SetUserIdAndSecContext(
            user,
            context
                | pg_sys::SECURITY_LOCAL_USERID_CHANGE as i32
                | pg_sys::SECURITY_RESTRICTED_OPERATION as i32,
        );
        Restore(caller, context)
    };
    f()
}

/// Refuses (XX001) to record a provably fair game at a desk that no longer names, with the
/// deal's commitment, an unrevealed round of its own: its fair columns were written by hand.
/// The error undoes the game.
fn not_in_force(desk_id: i32) -> ! {
    crate::changed_outside(
        format!("desk {desk_id} does not name an unrevealed round of its own with the commitment it dealt under"),
        "The desk's fair_round or fair_commitment was changed outside dealcards' functions: dealcards_check() names such desks; fair_mode_off and fair_mode_on start a new round.",
    );
}

/// The game no statement wrote: something of the user's (a trigger, a rule) kept the row out.
fn suppressed(desk_id: i32) -> ! {
    pgrx::ereport!(
        ERROR,
        pgrx::PgSqlErrorCode::ERRCODE_TRIGGERED_DATA_CHANGE_VIOLATION,
        format!("no game was recorded for desk {desk_id}: a trigger or rule on game suppressed the insert"),
        "deal_cards writes nothing unless the game row is written; remove what keeps it out."
    );
}
