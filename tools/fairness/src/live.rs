//! Samples from a live server: what `shuffle_ints` and `deal_cards` return, through real
//! client connections, checked and counted.

use std::collections::{HashMap, HashSet};
use std::error::Error;
use std::sync::{Arc, Barrier};
use std::thread;

use postgres::{Client, NoTls};

use crate::progress::Progress;
use dealcards_fairness::{
    order_of, CardByPosition, Destinations, Leaders, OrderFrequency, OrderedSamples, PositionPairs,
    SuccessiveDeals, DECK_SIZE, HAND_SIZE, SEATS,
};

/// Shuffles fetched per query.
const SHUFFLE_BATCH: u64 = 5_000;
/// Deals per transaction.
const DEAL_BATCH: u64 = 1_000;
/// Scratch desks the deals rotate over.
const SCRATCH_DESKS: i64 = 64;
/// Scratch desks are looked for from the lowest `int` up: far from the ids people give desks.
pub const FIRST_SCRATCH_DESK: i32 = i32::MIN;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// A connection to a database where dealcards is installed.
pub struct Server {
    client: Client,
    /// The extension's schema, quoted for SQL.
    schema: String,
    description: String,
}

impl Server {
    pub fn connect(dsn: &str) -> Result<Server> {
        let mut client = Client::connect(dsn, NoTls).map_err(|e| {
            let cause = e.source().map(|c| format!(": {c}")).unwrap_or_default();
            format!("cannot connect to {dsn:?}: {e}{cause}")
        })?;
        let extension = client.query_opt(
            "SELECT quote_ident(n.nspname), e.extversion, current_database(), \
                    current_setting('server_version'), current_setting('shared_preload_libraries') \
               FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace \
              WHERE e.extname = 'dealcards'",
            &[],
        )?;
        let row = extension.ok_or(
            "dealcards is not installed in this database: run CREATE EXTENSION dealcards first",
        )?;
        let (schema, version, database, server, preload): (String, String, String, String, String) =
            (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4));
        let description = format!(
            "PostgreSQL {server}, database {database}, dealcards {version} in schema {schema}, \
             shared_preload_libraries = '{preload}'"
        );
        Ok(Server {
            client,
            schema,
            description,
        })
    }

    pub fn description(&self) -> &str {
        &self.description
    }

    /// Calls `shuffle_ints(1, n)` `count` times in this backend, in order, handing each result
    /// (checked to be a permutation) to `each` as an order of 0..n.
    fn shuffles(
        &mut self,
        n: usize,
        count: u64,
        progress: &mut Progress,
        mut each: impl FnMut(&[usize]),
    ) -> Result<()> {
        let sql = format!(
            "SELECT {}.shuffle_ints(1, $1) FROM generate_series(1, $2::bigint)",
            self.schema
        );
        let statement = self.client.prepare(&sql)?;
        let mut done = 0;
        while done < count {
            let batch = SHUFFLE_BATCH.min(count - done);
            for row in self
                .client
                .query(&statement, &[&(n as i32), &(batch as i64)])?
            {
                let cards: Vec<i32> = row.get(0);
                each(&order_of(&cards, 1, n)?);
            }
            done += batch;
            progress.advance(batch);
        }
        Ok(())
    }

    /// Order frequency of `count` shuffles of n cards.
    pub fn orders(&mut self, n: usize, count: u64) -> Result<OrderFrequency> {
        let mut progress = Progress::start(&format!("shuffle_ints(1, {n})"), "shuffles", count);
        let mut frequency = OrderFrequency::new(n);
        self.shuffles(n, count, &mut progress, |order| frequency.record(order))?;
        progress.finish();
        Ok(frequency)
    }

    /// Card by position and successive deals of `count` consecutive 54-card shuffles.
    pub fn decks(&mut self, count: u64) -> Result<(CardByPosition, SuccessiveDeals)> {
        let mut progress =
            Progress::start(&format!("shuffle_ints(1, {DECK_SIZE})"), "decks", count);
        let mut card_by_position = CardByPosition::new(DECK_SIZE);
        let mut successive = SuccessiveDeals::new(DECK_SIZE);
        self.shuffles(DECK_SIZE, count, &mut progress, |deck| {
            card_by_position.record(deck);
            successive.record(deck);
        })?;
        progress.finish();
        Ok((card_by_position, successive))
    }

    /// Whether this database has the row aggregates (dealcards 0.5.0 and later).
    pub fn has_row_aggregates(&mut self) -> Result<bool> {
        let row = self.client.query_one(
            "SELECT to_regprocedure($1 || '.sample_agg(anyelement,integer)') IS NOT NULL",
            &[&self.schema],
        )?;
        Ok(row.get(0))
    }

    /// `count` groups of the rows 0..weights.len() (row `id`, of weight `weight`), each put
    /// through `aggregate` (an expression of id and weight naming the extension's aggregate
    /// as `{s}.`), and each group's result handed to `each` as rows of 0..n.
    fn row_groups(
        &mut self,
        aggregate: &str,
        weights: &[f64],
        count: u64,
        mut each: impl FnMut(&[usize]) -> Result<()>,
    ) -> Result<()> {
        let aggregate = aggregate.replace("{s}", &self.schema);
        let sql = format!(
            "SELECT {aggregate} FROM (SELECT (w.i - 1)::int AS id, w.weight \
                 FROM unnest($1::float8[]) WITH ORDINALITY w(weight, i)) r, \
               generate_series(1, $2::bigint) t GROUP BY t"
        );
        let statement = self.client.prepare(&sql)?;
        let mut progress = Progress::start(&aggregate, "groups", count);
        let mut done = 0;
        while done < count {
            let batch = SHUFFLE_BATCH.min(count - done);
            for row in self
                .client
                .query(&statement, &[&weights, &(batch as i64)])?
            {
                let rows: Vec<i32> = row.get(0);
                let rows: Vec<usize> = rows
                    .iter()
                    .map(|&r| usize::try_from(r).unwrap_or(usize::MAX))
                    .collect();
                each(&rows)?;
            }
            done += batch;
            progress.advance(batch);
        }
        progress.finish();
        Ok(())
    }

    /// `count` samples of each row aggregate: 3 of 5 rows by `sample_agg`, 2 of 5 weighted
    /// 1 : 2 : 3 : 4 : 0 by `sample_agg` with weights, every order of 4 rows by `shuffle_agg`.
    pub fn row_samples(
        &mut self,
        count: u64,
    ) -> Result<(OrderedSamples, OrderedSamples, OrderFrequency)> {
        let mut uniform = OrderedSamples::uniform(5, 3);
        self.row_groups("{s}.sample_agg(id, 3)", &[1.0; 5], count, |s| {
            uniform.record(s);
            Ok(())
        })?;
        let weights = [1.0, 2.0, 3.0, 4.0, 0.0];
        let mut weighted = OrderedSamples::weighted(&weights, 2);
        self.row_groups("{s}.sample_agg(id, 2, weight)", &weights, count, |s| {
            weighted.record(s);
            Ok(())
        })?;
        let mut orders = OrderFrequency::new(4);
        self.row_groups("{s}.shuffle_agg(id)", &[1.0; 4], count, |s| {
            let rows: Vec<i32> = s.iter().map(|&r| r.min(i32::MAX as usize) as i32).collect();
            orders.record(&order_of(&rows, 0, 4)?);
            Ok(())
        })?;
        Ok((uniform, weighted, orders))
    }

    /// Whether this database has the extension's deal_cards(int).
    pub fn has_deal_cards(&mut self) -> Result<bool> {
        let found: bool = self
            .client
            .query_one(
                "SELECT to_regprocedure($1) IS NOT NULL",
                &[&format!("{}.deal_cards(int)", self.schema)],
            )?
            .get(0);
        Ok(found)
    }

    /// The extension's tables, qualified for SQL.
    fn extension_tables(&mut self) -> Result<Vec<String>> {
        let rows = self.client.query(
            "SELECT c.oid::regclass::text FROM pg_depend d JOIN pg_class c ON c.oid = d.objid \
              WHERE d.classid = 'pg_class'::regclass AND d.deptype = 'e' AND c.relkind = 'r' \
                AND d.refclassid = 'pg_extension'::regclass \
                AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'dealcards') \
              ORDER BY 1",
            &[],
        )?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    fn total_rows(&mut self, tables: &[String]) -> Result<i64> {
        let mut total = 0;
        for table in tables {
            let count: i64 = self
                .client
                .query_one(&format!("SELECT count(*) FROM {table}"), &[])?
                .get(0);
            total += count;
        }
        Ok(total)
    }

    /// `count` calls of `deal_cards` on scratch desks, each hand and first bidder counted.
    ///
    /// Each batch runs in one transaction that claims desk ids nobody uses (from
    /// [`FIRST_SCRATCH_DESK`] up; `ON CONFLICT DO NOTHING` skips any that exist), seats three
    /// scratch players at each, deals, reads the games back and rolls back: every row the deals
    /// wrote goes with it, and no notification is ever sent, also if this program is stopped
    /// half way. The row counts of the extension's tables before and after prove it.
    pub fn deals(&mut self, count: u64) -> Result<DealSample> {
        let tables = self.extension_tables()?;
        let rows_before = self.total_rows(&tables)?;
        let s = self.schema.clone();
        let mut progress = Progress::start("deal_cards", "deals", count);
        let mut destinations = Destinations::default();
        let mut leader_counts = Leaders::default();
        let mut scratch_desks = 0;
        let mut done = 0;
        while done < count {
            let batch = DEAL_BATCH.min(count - done);
            let mut transaction = self.client.transaction()?;
            let desks = claim_scratch_desks(&mut transaction, &s)?;
            scratch_desks = desks.len();
            let calls: Vec<i32> = (0..batch as usize)
                .map(|k| desks[k % desks.len()])
                .collect();
            let dealt = transaction.query(
                &format!(
                    "SELECT (r->>'game')::bigint, (r->>'leader')::int \
                       FROM (SELECT {s}.deal_cards(d) AS r FROM unnest($1::int[]) d) t"
                ),
                &[&calls],
            )?;
            let leaders: HashMap<i64, i32> = dealt.iter().map(|r| (r.get(0), r.get(1))).collect();
            let games: Vec<i64> = leaders.keys().copied().collect();
            if games.len() as u64 != batch {
                return Err(
                    format!("{batch} calls of deal_cards returned {} games", games.len()).into(),
                );
            }
            let rows = transaction.query(
                &format!(
                    "SELECT game_id, p1_cards, p2_cards, p3_cards, extra_cards, leader \
                       FROM {s}.game WHERE game_id = ANY($1)"
                ),
                &[&games],
            )?;
            if rows.len() != games.len() {
                return Err(format!(
                    "deal_cards returned {} games but {} game rows exist",
                    games.len(),
                    rows.len()
                )
                .into());
            }
            for row in rows {
                let leader = checked_game(&row, &leaders)?;
                let hands: [Vec<i32>; SEATS + 1] = [row.get(1), row.get(2), row.get(3), row.get(4)];
                destinations.record_deck(&order_of(&hands.concat(), 1, DECK_SIZE)?);
                leader_counts.record(leader as usize - 1);
            }
            transaction.rollback()?;
            done += batch;
            progress.advance(batch);
        }
        progress.finish();
        let rows_left_behind = self.total_rows(&tables)? - rows_before;
        Ok(DealSample {
            destinations,
            leaders: leader_counts,
            scratch_desks,
            rows_left_behind,
        })
    }
}

/// Claims desk ids nobody uses for scratch desks, from [`FIRST_SCRATCH_DESK`] up, and seats
/// three scratch players at each (ids from the bottom of bigint, one per seat).
fn claim_scratch_desks(transaction: &mut postgres::Transaction<'_>, s: &str) -> Result<Vec<i32>> {
    let desks: Vec<i32> = transaction
        .query(
            &format!(
                "INSERT INTO {s}.desk (desk_id) \
                 SELECT g FROM generate_series($1::int, $1::int + 100000) g \
                  WHERE NOT EXISTS (SELECT FROM {s}.desk d WHERE d.desk_id = g) \
                  LIMIT $2 \
                 ON CONFLICT (desk_id) DO NOTHING RETURNING desk_id"
            ),
            &[&FIRST_SCRATCH_DESK, &SCRATCH_DESKS],
        )?
        .iter()
        .map(|r| r.get(0))
        .collect();
    if desks.is_empty() {
        return Err("no free desk id for a scratch desk".into());
    }
    // Scratch players get ids from the bottom of bigint, one per seat.
    transaction.execute(
        &format!(
            "INSERT INTO {s}.desk_player (desk_id, player_no, player_id) \
             SELECT d, p, -9223372036854775807 + (d::bigint + 2147483648) * 3 + p \
               FROM unnest($1::int[]) d, generate_series(1, 3) p"
        ),
        &[&desks],
    )?;
    Ok(desks)
}

/// The leader of a game row (game_id, p1_cards, p2_cards, p3_cards, extra_cards, leader),
/// once its hands are of the right size and its leader is the one `deal_cards` returned.
fn checked_game(row: &postgres::Row, leaders: &HashMap<i64, i32>) -> Result<i16> {
    let game: i64 = row.get(0);
    let hands: [Vec<i32>; SEATS + 1] = [row.get(1), row.get(2), row.get(3), row.get(4)];
    let leader: i16 = row.get(5);
    let sizes: Vec<usize> = hands.iter().map(Vec::len).collect();
    if sizes[..SEATS].iter().any(|&n| n != HAND_SIZE) {
        return Err(format!("game {game} has hands of {sizes:?} cards").into());
    }
    let returned = leaders[&game];
    if !(1..=SEATS as i16).contains(&leader) || returned != leader as i32 {
        return Err(format!("game {game}: leader {leader} in the row, {returned} returned").into());
    }
    Ok(leader)
}

pub struct DealSample {
    pub destinations: Destinations,
    pub leaders: Leaders,
    pub scratch_desks: usize,
    /// Rows in the extension's tables after the deals less before: 0.
    pub rows_left_behind: i64,
}

pub struct BackendSample {
    /// Deck i of each backend against deck i of the next.
    pub pairs: PositionPairs,
    pub backends: usize,
    pub distinct_pids: usize,
    pub decks_each: u64,
    /// Decks that came up more than once across all backends (a shared stream repeats them).
    pub repeated_decks: u64,
}

/// `backends` connections opened at the same moment, each dealing `decks` 54-card decks from
/// the start of its own stream.
pub fn backends(dsn: &str, backends: usize, decks: u64) -> Result<BackendSample> {
    let mut progress = Progress::start("backends started together", "backends", backends as u64);
    let start = Arc::new(Barrier::new(backends));
    let threads: Vec<_> = (0..backends)
        .map(|_| {
            let (dsn, start) = (dsn.to_string(), Arc::clone(&start));
            thread::spawn(move || -> std::result::Result<(i32, Vec<Vec<i32>>), String> {
                start.wait();
                let connected = Client::connect(&dsn, NoTls);
                // Every backend exists before any deals.
                start.wait();
                let mut client = connected.map_err(|e| e.to_string())?;
                let pid: i32 = client
                    .query_one("SELECT pg_backend_pid()", &[])
                    .map_err(|e| e.to_string())?
                    .get(0);
                let schema: String = client
                    .query_one(
                        "SELECT quote_ident(extnamespace::regnamespace::text) \
                           FROM pg_extension WHERE extname = 'dealcards'",
                        &[],
                    )
                    .map_err(|e| e.to_string())?
                    .get(0);
                let rows = client
                    .query(
                        &format!(
                            "SELECT {schema}.shuffle_ints(1, 54) FROM generate_series(1, $1::bigint)"
                        ),
                        &[&(decks as i64)],
                    )
                    .map_err(|e| e.to_string())?;
                Ok((pid, rows.iter().map(|r| r.get(0)).collect()))
            })
        })
        .collect();
    let mut pids = HashSet::new();
    let mut dealt: Vec<Vec<Vec<usize>>> = Vec::new();
    for thread in threads {
        let (pid, decks) = thread.join().map_err(|_| "a backend thread panicked")??;
        pids.insert(pid);
        let orders = decks
            .iter()
            .map(|cards| order_of(cards, 1, DECK_SIZE))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        dealt.push(orders);
        progress.advance(1);
    }
    progress.finish();

    let mut pairs = PositionPairs::new(DECK_SIZE);
    for (first, second) in dealt.iter().zip(&dealt[1..]) {
        for (a, b) in first.iter().zip(second) {
            pairs.record(a, b);
        }
    }
    let mut seen = HashSet::new();
    let repeated_decks = dealt
        .iter()
        .flatten()
        .filter(|deck| !seen.insert(deck.as_slice()))
        .count() as u64;
    Ok(BackendSample {
        pairs,
        backends,
        distinct_pids: pids.len(),
        decks_each: decks,
        repeated_decks,
    })
}
