//! A game server listening on every worker hears each committed deal once, on the worker holding
//! the desk, wherever the desk's shard moves; a deal Citus does not delegate is heard on the
//! coordinator.

use std::collections::BTreeMap;
use std::time::Duration;

use postgres::fallible_iterator::FallibleIterator;
use postgres::Client;

use crate::cluster::{
    active_workers, changing_topology, connect_to, distributed, holder, move_shard, node_dsn,
    same_topology,
};
use crate::desks::{check_records, deal, desk_state, fresh_desks, range_of, simple_value};
use crate::server;
use crate::trace::{remote_commands, traced_coordinator};

/// Deals (or runs `sql`) on the coordinator and returns what each listener heard, the
/// listener on `expected` (if any) waited for first.
fn hear(
    listeners: &mut [(i32, Client)],
    expected: Option<i32>,
    run: impl FnOnce(),
) -> BTreeMap<i32, Vec<(String, String)>> {
    run();
    let mut all = BTreeMap::new();
    if let Some(port) = expected {
        let (_, l) = listeners.iter_mut().find(|(p, _)| *p == port).unwrap();
        let first = l
            .notifications()
            .timeout_iter(Duration::from_secs(60))
            .next()
            .unwrap()
            .map(|n| (n.channel().to_string(), n.payload().to_string()));
        let mut got: Vec<_> = first.into_iter().collect();
        got.extend(server::notifications(l, Duration::from_millis(300)));
        all.insert(port, got);
    }
    for (port, l) in listeners.iter_mut() {
        if Some(*port) != expected {
            all.insert(*port, server::notifications(l, Duration::from_millis(400)));
        }
    }
    all
}

#[test]
fn listeners_on_every_worker_hear_each_deal_once_on_the_desks_worker() {
    let (lo, hi) = (6000, 6009);
    let mut c = distributed();
    let _topology = changing_topology();
    fresh_desks(&mut c, lo, hi);
    let desk = lo;
    let channel = format!("dealcards_desk_{desk}");
    let coordinator_port: i32 = c
        .query_one("SELECT inet_server_port()", &[])
        .unwrap()
        .get(0);
    let workers = active_workers(&mut c);
    // A game server: a listener on each worker (and one on the coordinator, which hears
    // nothing).
    let mut listeners: Vec<(i32, Client)> = workers
        .iter()
        .map(|w| w.port)
        .chain([coordinator_port])
        .map(|port| {
            let mut l = connect_to(&node_dsn(port));
            l.batch_execute(&format!("LISTEN {channel}")).unwrap();
            (port, l)
        })
        .collect();
    let expect_once_on = |heard: &BTreeMap<i32, Vec<(String, String)>>, port: i32, json: &str| {
        for (p, got) in heard {
            if *p == port {
                assert_eq!(
                    got,
                    &[(channel.clone(), json.to_string())],
                    "on the desk's worker {p}"
                );
            } else {
                assert!(
                    got.is_empty(),
                    "heard on {p} (the desk is on {port}): {got:?}"
                );
            }
        }
    };

    let on = holder(&mut c, "desk", desk.into());
    let mut dealt = None;
    let got = hear(&mut listeners, Some(on.port), || {
        dealt = Some(deal(&mut c, desk))
    });
    expect_once_on(&got, on.port, &dealt.unwrap().json);

    // In a transaction: heard at the commit, once.
    let mut dealt = None;
    let got = hear(&mut listeners, Some(on.port), || {
        c.batch_execute("BEGIN").unwrap();
        dealt = Some(deal(&mut c, desk));
        c.batch_execute("COMMIT").unwrap();
    });
    expect_once_on(&got, on.port, &dealt.unwrap().json);

    // Rolled back: heard nowhere.
    let got = hear(&mut listeners, None, || {
        c.batch_execute("BEGIN").unwrap();
        deal(&mut c, desk);
        c.batch_execute("ROLLBACK").unwrap();
    });
    assert!(
        got.values().all(Vec::is_empty),
        "a rolled back deal was heard: {got:?}"
    );

    // The desk's shard moves: the same listeners hear the next deal on its new worker.
    let to = *workers.iter().find(|w| **w != on).unwrap();
    move_shard(&mut c, "desk", desk.into(), to);
    let mut dealt = None;
    let got = hear(&mut listeners, Some(to.port), || {
        dealt = Some(deal(&mut c, desk))
    });
    expect_once_on(&got, to.port, &dealt.unwrap().json);
    // Nothing more is pending anywhere.
    let rest = hear(&mut listeners, None, || {});
    assert!(rest.values().all(Vec::is_empty), "{rest:?}");
}

/// A call Citus does not delegate (anything but a bare `SELECT deal_cards(d)` or
/// `SELECT ... FROM deal_cards(d)`: here its result cast to text) runs on the coordinator,
/// which sends each of deal_cards' statements to the desk's worker: still one worker and no
/// two-phase commit, the game id from the coordinator's range (0), and the notification sent on
/// the coordinator: a game server hears such deals only if it listens there too.
#[test]
fn a_deal_citus_does_not_delegate_runs_on_the_coordinator() {
    let (lo, hi) = (6100, 6104);
    let mut c = distributed();
    let _topology = same_topology();
    fresh_desks(&mut c, lo, hi);
    let desk = lo;
    let on = holder(&mut c, "desk", desk.into());
    let coordinator_port: i32 = c
        .query_one("SELECT inet_server_port()", &[])
        .unwrap()
        .get(0);
    let mut listeners: Vec<(i32, Client)> = active_workers(&mut c)
        .iter()
        .map(|w| w.port)
        .chain([coordinator_port])
        .map(|port| {
            let mut l = connect_to(&node_dsn(port));
            l.batch_execute(&format!("LISTEN dealcards_desk_{desk}"))
                .unwrap();
            (port, l)
        })
        .collect();
    let (mut t, notices) = traced_coordinator();
    let mut json = String::new();
    let mut commands = Vec::new();
    let got = hear(&mut listeners, Some(coordinator_port), || {
        commands = remote_commands(&notices, || {
            json = simple_value(&mut t, &format!("SELECT deal_cards({desk})::text"))
                .unwrap()
                .unwrap();
        });
    });
    eprintln!("deal_cards({desk})::text: {commands:#?}");
    assert!(commands.len() > 1, "delegated after all? {commands:?}");
    assert!(
        commands.iter().all(|(cmd, port)| *port == on.port
            && !cmd.contains("PREPARE")
            && !cmd.contains("intermediate_result")),
        "{commands:#?}"
    );
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    let game = value["game"].as_i64().unwrap();
    assert_eq!(range_of(game), 0, "game {game}");
    for (port, heard) in &got {
        if *port == coordinator_port {
            assert_eq!(heard, &[(format!("dealcards_desk_{desk}"), json.clone())]);
        } else {
            assert!(heard.is_empty(), "heard on {port}: {heard:?}");
        }
    }
    assert_eq!(desk_state(&mut c, desk), (1, 2, 1, Some(game)));
    check_records(&mut c, lo, hi);
}
