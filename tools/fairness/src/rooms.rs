//! Card rooms' hands: every built-in kind dealt by the live server (`hand_start`, then the
//! kind's calls of crates/fairness rooms.rs: every stage, and draws where it draws), the card at
//! each slot of the deal counted and tested (one chi-square a slot, held to ALPHA / slots); then
//! the broken dealers (a biased deck, a peeked stage) at the same number of hands, on OS-keyed
//! streams through the same plans, which must fail every kind.

use std::error::Error;

use postgres::{Client, NoTls};

use dealcards_core::rng::Stream;
use dealcards_fairness::rooms::{room_kinds, run, Call, RoomDealer, RoomKind, SlotCounts};

use crate::report;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// What the card rooms part of the report found.
pub struct RoomReport {
    /// Every kind the server dealt passed.
    pub live_ok: bool,
    /// (broken dealer, kinds that rejected it, kinds).
    pub broken: Vec<(String, usize, usize)>,
}

/// Deals one hand of the calls given and returns its cards (their index in the deck's canonical
/// order) in the order dealt; the hand's rows go again, so that the tables stay small. As the
/// tables' owner, who may read what its own transaction dealt.
const DEAL_HAND: &str = "
CREATE FUNCTION pg_temp.fairness_hand(start text, calls text[]) RETURNS int[]
LANGUAGE plpgsql AS $$
DECLARE
    h bigint;
    c text;
    dealt int[];
BEGIN
    EXECUTE format('SELECT hand_start(1, %s)', start) INTO h;
    FOREACH c IN ARRAY calls LOOP
        IF c = 'deal' THEN
            PERFORM * FROM hand_deal(h);
        ELSE
            PERFORM * FROM hand_draw(h, split_part(c, ':', 2)::int, split_part(c, ':', 3)::int);
        END IF;
    END LOOP;
    dealt := ARRAY(SELECT card FROM room_card WHERE hand_id = h ORDER BY dealt_no);
    DELETE FROM room_card WHERE hand_id = h;
    DELETE FROM room_hand_key WHERE hand_id = h;
    DELETE FROM room_hand WHERE hand_id = h;
    RETURN dealt;
END
$$";

fn calls_sql(room: &RoomKind) -> Vec<String> {
    room.calls
        .iter()
        .map(|call| match *call {
            Call::Deal => "deal".to_string(),
            Call::Draw { seat, count } => format!("draw:{seat}:{count}"),
        })
        .collect()
}

/// `hands` hands of `room` dealt by the server, counted; in batches of 1,000, one statement each.
fn live(client: &mut Client, room: &RoomKind, hands: u64) -> Result<SlotCounts> {
    let mut counts = SlotCounts::new(room)?;
    let calls = calls_sql(room);
    let statement =
        client.prepare("SELECT pg_temp.fairness_hand($1, $2) FROM generate_series(1, $3::int)")?;
    let mut left = hands;
    while left > 0 {
        let batch = left.min(1_000);
        for row in client.query(&statement, &[&room.start, &calls, &(batch as i32)])? {
            let dealt: Vec<i32> = row.get(0);
            let dealt: Vec<usize> = dealt.iter().map(|&c| c as usize).collect();
            counts.record(&dealt)?;
        }
        left -= batch;
    }
    Ok(counts)
}

fn line(name: &str, who: &str, counts: &SlotCounts) -> bool {
    let verdict = counts.test();
    println!(
        "| {name} | {who} | {} | {} | {} (slot {}, chi2 {:.1}, df {}) | {:.1e} | {} |",
        report::count(counts.hands()),
        verdict.slots,
        report::p_value(verdict.worst.p_value),
        verdict.worst_slot + 1,
        verdict.worst.statistic,
        verdict.worst.df,
        verdict.level(),
        if verdict.passes() { "pass" } else { "FAIL" }
    );
    verdict.passes()
}

/// The card rooms section: each kind live, then each broken dealer on each kind.
pub fn run_report(dsn: &str, hands: u64) -> Result<RoomReport> {
    let mut client = Client::connect(dsn, NoTls)?;
    client.batch_execute(DEAL_HAND)?;
    let rooms = room_kinds()?;
    report::section("card rooms: the card at each slot of a hand, every built-in kind");
    println!(
        "Each kind's calls (every stage, and draws where it draws) dealt {} times; one \
         chi-square test per slot (the k-th card dealt: the plan sends it to a fixed seat or \
         pile), each held to alpha / slots. The broken dealers deal the same plans from \
         OS-keyed streams and must fail.",
        report::count(hands)
    );
    println!();
    println!("| kind | dealer | hands | slots | least p-value | level | verdict |");
    println!("|---|---|---:|---:|---|---:|---|");
    let mut live_ok = true;
    for room in &rooms {
        eprintln!("dealing {} hands of {} on the server", hands, room.name);
        let counts = live(&mut client, room, hands)?;
        live_ok &= line(room.name, "the server", &counts);
    }
    let mut broken = Vec::new();
    for dealer in RoomDealer::BROKEN {
        let mut caught = 0;
        for room in &rooms {
            let counts = run(room, dealer, &mut Stream::from_os()?, hands)?;
            caught += usize::from(!line(room.name, dealer.name(), &counts));
        }
        broken.push((dealer.name().to_string(), caught, rooms.len()));
    }
    println!();
    Ok(RoomReport { live_ok, broken })
}
