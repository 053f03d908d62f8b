//! What the coordinator sends (citus.log_remote_commands), what the workers log, and the check
//! that a call was one single-shard transaction on one worker.

use std::collections::{BTreeMap, BTreeSet};
use std::str::FromStr;
use std::sync::{Arc, Mutex};

use postgres::{Client, Config, NoTls};

use crate::cluster::{connect_to, coordinator_dsn, node_dsn, Node};
use crate::desks::count;

/// Notices of a session: (message, detail).
pub type Notices = Arc<Mutex<Vec<(String, String)>>>;

/// A coordinator connection that reports each command it sends to a worker
/// (citus.log_remote_commands) and each it runs on its own shards, as notices collected here.
pub fn traced_coordinator() -> (Client, Notices) {
    let notices: Notices = Arc::default();
    let sink = Arc::clone(&notices);
    let mut client = Config::from_str(&coordinator_dsn())
        .unwrap()
        .notice_callback(move |n| {
            sink.lock().unwrap().push((
                n.message().to_string(),
                n.detail().unwrap_or_default().to_string(),
            ))
        })
        .connect(NoTls)
        .unwrap();
    client
        .batch_execute(
            "SET citus.log_remote_commands = on;
             SET citus.log_local_commands = on;
             SET client_min_messages = log;",
        )
        .unwrap();
    (client, notices)
}

/// The commands the traced session sent while `run` ran: (command, port of the node).
pub fn remote_commands(notices: &Notices, run: impl FnOnce()) -> Vec<(String, i32)> {
    notices.lock().unwrap().clear();
    run();
    notices
        .lock()
        .unwrap()
        .iter()
        .filter_map(|(message, detail)| {
            let command = message.strip_prefix("issuing ")?;
            // "on server postgres@127.0.0.1:54601 connectionId: 3"
            let port = detail
                .split_whitespace()
                .find_map(|w| w.rsplit_once(':').and_then(|(_, p)| p.parse().ok()))
                .unwrap_or_else(|| panic!("no port in {detail:?}"));
            Some((command.to_string(), port))
        })
        .collect()
}

/// Two-phase commit records of one coordinator session (its pid is in each gid:
/// citus_<group>_<pid>_<transaction>_<connection>), on the coordinator.
pub fn my_2pc_records(c: &mut Client, pid: i32) -> i64 {
    count(
        c,
        &format!("SELECT count(*) FROM pg_dist_transaction WHERE gid LIKE 'citus\\_0\\_{pid}\\_%'"),
    )
}

/// On a worker: the two-phase commit records it keeps as a coordinator of its own (the gids of
/// pg_dist_transaction), and the gids of its prepared transactions.
pub fn worker_2pc_state(port: i32) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut w = connect_to(&node_dsn(port));
    let gids = |w: &mut Client, sql: &str| -> BTreeSet<String> {
        w.query(sql, &[])
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect()
    };
    (
        gids(&mut w, "SELECT gid FROM pg_dist_transaction"),
        gids(&mut w, "SELECT gid FROM pg_prepared_xacts"),
    )
}

/// The server log of the node listening on `port`: scripts/citus_cluster.sh keeps each node's
/// at DEALCARDS_CITUS_LOGS/<node>/server.log and its port in <node>/port, and
/// scripts/test_citus.sh has every node log every statement it receives.
pub fn server_log(port: i32) -> Vec<u8> {
    let dir = std::env::var("DEALCARDS_CITUS_LOGS")
        .expect("DEALCARDS_CITUS_LOGS: run these tests with scripts/test_citus.sh");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let node = entry.unwrap().path();
        let listens =
            std::fs::read_to_string(node.join("port")).is_ok_and(|p| p.trim() == port.to_string());
        if listens {
            return std::fs::read(node.join("server.log")).unwrap();
        }
    }
    panic!("no node of {dir} listens on {port}")
}

/// What the nodes on `ports` logged while `run` ran.
pub fn logged_during(ports: &[i32], run: impl FnOnce()) -> BTreeMap<i32, String> {
    let sizes: Vec<usize> = ports.iter().map(|&p| server_log(p).len()).collect();
    run();
    ports
        .iter()
        .zip(sizes)
        .map(|(&p, size)| {
            (
                p,
                String::from_utf8_lossy(&server_log(p)[size..]).into_owned(),
            )
        })
        .collect()
}

/// Runs `sql` on the traced coordinator session and checks it was one single-shard transaction
/// on the worker `on`: exactly one remote command, carrying `call`, sent there; no PREPARE
/// TRANSACTION, no COMMIT PREPARED, no intermediate results; no two-phase commit record of
/// this session on the coordinator, and none new on any worker (a worker running the call and
/// spreading it further would be a coordinator of its own). On the workers' side, their logs:
/// the call reached `on` alone, and no worker was asked to prepare a transaction of this
/// session. Returns the commands.
pub fn check_single_shard(
    c: &mut Client,
    notices: &Notices,
    workers: &[Node],
    sql: &str,
    call: &str,
    on: Node,
) -> Vec<(String, i32)> {
    check_single_shard_of(c, notices, workers, sql, call, on, |c| {
        c.batch_execute(sql)
            .unwrap_or_else(|e| panic!("{sql}: {e:?}"));
    })
}

/// [`check_single_shard`] of what `run` does on the traced session (`sql` names it).
pub fn check_single_shard_of(
    c: &mut Client,
    notices: &Notices,
    workers: &[Node],
    sql: &str,
    call: &str,
    on: Node,
    run: impl FnOnce(&mut Client),
) -> Vec<(String, i32)> {
    let pid: i32 = c.query_one("SELECT pg_backend_pid()", &[]).unwrap().get(0);
    let before: Vec<_> = workers.iter().map(|w| worker_2pc_state(w.port)).collect();
    let ports: Vec<i32> = workers.iter().map(|w| w.port).collect();
    let mut commands = Vec::new();
    let logs = logged_during(&ports, || {
        commands = remote_commands(notices, || run(c));
    });
    let carrying: Vec<_> = commands
        .iter()
        .filter(|(cmd, _)| cmd.contains(call))
        .collect();
    assert_eq!(
        carrying.len(),
        1,
        "{sql}: one remote command carrying {call}, got {commands:#?}"
    );
    assert_eq!(
        carrying[0].1, on.port,
        "{sql}: sent to the wrong worker: {commands:#?}"
    );
    for (cmd, port) in &commands {
        assert_eq!(
            *port, on.port,
            "{sql}: another node contacted: {commands:#?}"
        );
        for word in [
            "PREPARE TRANSACTION",
            "COMMIT PREPARED",
            "intermediate_result",
        ] {
            assert!(!cmd.contains(word), "{sql}: {word} in {commands:#?}");
        }
    }
    if sql.trim_start().starts_with("SELECT") {
        assert_eq!(commands.len(), 1, "{sql}: {commands:#?}");
    }
    assert_eq!(
        my_2pc_records(c, pid),
        0,
        "{sql}: a two-phase commit recorded"
    );
    for (worker, (records, _)) in workers.iter().zip(before) {
        let (after, prepared) = worker_2pc_state(worker.port);
        assert!(
            after.is_subset(&records),
            "{sql}: new two-phase commit records on {worker:?}: {after:?}"
        );
        let mine: Vec<_> = prepared
            .iter()
            .filter(|g| g.starts_with(&format!("citus_0_{pid}_")))
            .collect();
        assert!(mine.is_empty(), "{sql}: prepared on {worker:?}: {mine:?}");
        let log = &logs[&worker.port];
        assert_eq!(
            log.contains(&carrying[0].0),
            *worker == on,
            "{sql}: {worker:?} logged:\n{log}"
        );
        assert!(
            !log.contains(&format!("PREPARE TRANSACTION 'citus_0_{pid}_")),
            "{sql}: {worker:?} prepared a transaction:\n{log}"
        );
        if *worker == on {
            check_one_shard_each(sql, worker, log, &carrying[0].0);
        }
    }
    commands
}

/// On the worker that ran `call`: what its backend ran named one shard of each table.
fn check_one_shard_each(sql: &str, worker: &Node, log: &str, call: &str) {
    let spread = shards_touched(log, call);
    assert!(
        spread.values().all(|shards| shards.len() == 1),
        "{sql}: the call read or wrote more than one shard of a table on {worker:?} \
         (a statement without its distribution key): {spread:?}\n{log}"
    );
}

/// The shards (table name to shard ids) named by what the backend that ran `call` logged in
/// `log`: a call routed to one shard group names one shard of each table; a statement inside it
/// that lacks the distribution key is sent to every shard of its table.
fn shards_touched(log: &str, call: &str) -> BTreeMap<String, BTreeSet<String>> {
    // Lines start "<date> <time> UTC [<pid>] <db> ..."; a statement's further lines have no prefix.
    let pid_of = |line: &str| -> Option<String> {
        let open = line.find(" [")?;
        let close = line[open..].find("] ")? + open;
        let pid = &line[open + 2..close];
        (line.starts_with("20") && pid.chars().all(|c| c.is_ascii_digit())).then(|| pid.to_string())
    };
    let mut current = None;
    let mut by_pid: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for line in log.lines() {
        if let Some(pid) = pid_of(line) {
            current = Some(pid);
        }
        if let Some(pid) = &current {
            by_pid.entry(pid.clone()).or_default().push(line);
        }
    }
    let mut touched: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for lines in by_pid.values() {
        if !lines.iter().any(|l| l.contains(call)) {
            continue;
        }
        for line in lines {
            for name in line.split("public.").skip(1) {
                let name: String = name
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if let Some((table, shard)) = name.rsplit_once('_') {
                    if shard.len() >= 4 && shard.chars().all(|c| c.is_ascii_digit()) {
                        touched
                            .entry(table.to_string())
                            .or_default()
                            .insert(shard.to_string());
                    }
                }
            }
        }
    }
    assert!(
        !touched.is_empty() || !log.contains(call),
        "no shard named in the log of the backend that ran {call}:\n{log}"
    );
    touched
}
