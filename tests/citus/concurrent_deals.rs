//! Eight sessions dealing at once over fifty desks: every game id once, from the range of the
//! worker holding its desk.

use std::collections::BTreeSet;
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Instant;

use crate::cluster::{connect_to, coordinator_dsn, desks_by_holder, distributed, same_topology};
use crate::desks::{check_records, deal, fresh_desks, range_of};

#[test]
fn eight_sessions_deal_at_once_over_fifty_desks() {
    let (lo, hi) = (7300, 7349);
    let mut c = distributed();
    let _topology = same_topology();
    fresh_desks(&mut c, lo, hi);
    let (sessions, deals) = (8, 100);
    let start = Arc::new(Barrier::new(sessions));
    let started = Instant::now();
    let handles: Vec<_> = (0..sessions)
        .map(|s| {
            let start = Arc::clone(&start);
            thread::spawn(move || {
                let mut c = connect_to(&coordinator_dsn());
                start.wait();
                (0..deals)
                    .map(|i| {
                        let desk = lo + ((s * 37 + i * 11) % 50) as i32;
                        (desk, deal(&mut c, desk).game)
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let dealt: Vec<(i32, i64)> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    eprintln!(
        "{} deals by {sessions} sessions in {:?}",
        dealt.len(),
        started.elapsed()
    );
    assert_eq!(dealt.len(), sessions * deals);
    let ids: BTreeSet<i64> = dealt.iter().map(|d| d.1).collect();
    assert_eq!(ids.len(), dealt.len(), "a game id twice");
    let by_desk = check_records(&mut c, lo, hi);
    let stored: BTreeSet<i64> = by_desk.values().flatten().copied().collect();
    assert_eq!(stored, ids, "the games stored are not the games dealt");
    let by_holder = desks_by_holder(&mut c, lo, hi);
    for (node, desks) in &by_holder {
        for d in desks {
            assert!(
                by_desk[d].iter().all(|&g| range_of(g) == node.group),
                "desk {d}"
            );
        }
    }
}
