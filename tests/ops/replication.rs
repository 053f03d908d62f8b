//! Logical replication of the extension's tables and a switch-over, as docs/operations.md says:
//! a publisher and a subscriber (two clusters of one major), the publication of every table of
//! the extension, deals on the publisher reaching the subscriber (the provably fair ones
//! verifiable there, since fair_seed and the client seeds are published), then the switch-over:
//! the subscription dropped, the sequences set from the data, and deals on the new primary with
//! ids above every id the old one gave, a provably fair round going on across the switch.

use std::time::{Duration, Instant};

use crate::dealing::{
    deal, game_of, member_relations, populate, set_seeds, table_rows, verify_desk,
};
use crate::servers::{bin_dir, rows, value, Cluster};

/// What docs/operations.md runs on a subscriber before it takes writes: each sequence of the
/// extension moved past the largest id its tables hold.
pub const SEQUENCES_FROM_DATA: &str = "SELECT * FROM dealcards_sync_sequences();";

fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// docs/operations.md: its publication statement, and whether it shows SEQUENCES_FROM_DATA.
fn documented() -> (String, bool) {
    let page = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/operations.md"),
    )
    .unwrap();
    let start = page
        .find("CREATE PUBLICATION")
        .expect("docs/operations.md shows no CREATE PUBLICATION");
    let end = start + page[start..].find(';').unwrap();
    (
        words(&page[start..end]),
        words(&page).contains(&words(SEQUENCES_FROM_DATA)),
    )
}

/// The step docs/operations.md gives after a switch-over: a reveal of every round in force.
fn documented_step() -> String {
    let page = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/operations.md"),
    )
    .unwrap();
    let section = &page[page
        .find("### Switching over to the subscriber")
        .expect("docs/operations.md has no switch-over")..];
    let start = section
        .find("SELECT d.desk_id, r.round")
        .expect("docs/operations.md's switch-over reveals no round");
    let end = start + section[start..].find(';').unwrap();
    words(&section[start..end])
}

/// Waits until the subscriber's tables hold what the publisher's do.
fn wait_for_subscriber(publisher: &mut postgres::Client, subscriber: &mut postgres::Client) {
    let expected = table_rows(publisher);
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let now = table_rows(subscriber);
        if now == expected {
            return;
        }
        if Instant::now() > deadline {
            let differ: Vec<&String> = expected
                .keys()
                .filter(|k| now.get(*k) != expected.get(*k))
                .collect();
            panic!("the subscriber still differs after 60 s in {differ:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn max_game(client: &mut postgres::Client) -> i64 {
    value(client, "SELECT max(game_id) FROM game")
        .parse()
        .unwrap()
}

#[test]
fn a_subscriber_verifies_takes_over_and_deals_on_with_new_ids() {
    let bin = bin_dir("DEALCARDS_OPS_PG_BIN");
    let mut old_primary = Cluster::init(&bin, "replication-publisher", &["-c wal_level=logical"]);
    old_primary.start();
    let mut standby = Cluster::init(&bin, "replication-subscriber", &["-c wal_level=logical"]);
    standby.start();

    let mut publisher = old_primary.database_with_dealcards("shop");
    populate(&mut publisher);

    publish_as_documented(&mut publisher);

    // The subscriber: the extension created, its tables filled by the subscription.
    let mut subscriber = standby.database_with_dealcards("shop");
    subscriber
        .batch_execute(&format!(
            "CREATE SUBSCRIPTION dealcards CONNECTION '{}' PUBLICATION dealcards",
            old_primary.dsn("shop")
        ))
        .unwrap();
    // Changes after the initial copy stream over too.
    for desk in 1..=3 {
        deal(&mut publisher, desk);
    }
    deal(&mut publisher, 10);
    wait_for_subscriber(&mut publisher, &mut subscriber);

    // The subscriber verifies the provably fair desk: 3 games of the revealed round, 4 of the
    // round in force (not revealed yet).
    assert_eq!(verify_desk(&mut subscriber, 10), (7, 3, 4, 0));

    // Its sequences did not follow: a deal there now would take an id the old primary gave.
    let old_max = max_game(&mut publisher);
    assert_eq!(
        value(
            &mut subscriber,
            "SELECT last_value || ' ' || is_called FROM game_game_id_seq"
        ),
        "1 false",
        "the subscriber's game sequence moved: this test no longer shows why the switch-over sets it"
    );
    assert!(old_max > 1);

    // The switch-over: writes on the old primary have stopped and reached the subscriber; the
    // subscription goes (with its slot on the old primary), the sequences are set from the data.
    subscriber
        .batch_execute("DROP SUBSCRIPTION dealcards")
        .unwrap();
    drop(publisher);
    old_primary.stop();
    check_the_sequences_are_set_from_the_data(&mut subscriber, old_max);

    deal_on_the_new_primary(&mut subscriber, old_max);
}

/// Every table of the extension, as the docs' publication names them, but what each server
/// keeps of its own: the settings its ALTER TABLEs set (dealcards_table_setting), and its
/// token (dealcards_instance), which its rounds record. The docs' statement itself names no
/// table the extension lacks.
fn publish_as_documented(publisher: &mut postgres::Client) {
    let own = ["dealcards_table_setting", "dealcards_instance"];
    let tables: Vec<String> = member_relations(publisher)
        .into_iter()
        .filter(|(name, kind)| kind == "r" && !own.iter().any(|o| name.ends_with(o)))
        .map(|(name, _)| name)
        .collect();
    let (documented_publication, shows_sequences) = documented();
    for table in own {
        assert!(
            !documented_publication.contains(table),
            "docs/operations.md publishes {table}"
        );
    }
    for table in &tables {
        let bare = table.rsplit('.').next().unwrap();
        assert!(
            documented_publication
                .split([' ', ','])
                .any(|word| word == bare),
            "docs/operations.md does not publish {bare}: {documented_publication}"
        );
    }
    assert!(
        shows_sequences,
        "docs/operations.md does not show SEQUENCES_FROM_DATA"
    );
    publisher
        .batch_execute(&documented_publication)
        .unwrap_or_else(|e| panic!("docs/operations.md's publication: {e}"));
}

/// The sequences set from the data, each past the largest id the old primary gave; run again,
/// it changes nothing.
fn check_the_sequences_are_set_from_the_data(subscriber: &mut postgres::Client, old_max: i64) {
    let set = rows(
        subscriber,
        "SELECT sequence::text, largest_id::text, next_id::text FROM dealcards_sync_sequences()",
    );
    assert_eq!(set.len(), 4, "{set:?}");
    assert_eq!(
        set[0],
        vec![
            Some("game_game_id_seq".to_string()),
            Some(old_max.to_string()),
            Some((old_max + 1).to_string())
        ],
        "{set:?}"
    );
    // Run again, it changes nothing.
    assert_eq!(
        rows(
            subscriber,
            "SELECT sequence::text, largest_id::text, next_id::text FROM dealcards_sync_sequences()"
        ),
        set
    );
}

/// Deals on the new primary: new ids, above the old primary's, unique.
fn deal_on_the_new_primary(new_primary: &mut postgres::Client, old_max: i64) {
    let mut games = Vec::new();
    for desk in 1..=3 {
        games.push(game_of(&deal(new_primary, desk)));
    }
    // The provably fair round the old primary committed deals nothing here until it is
    // revealed here (where it came from, its seed may be public): the docs' step reveals every
    // round in force, every game of the desk verifies, and the desk deals under its new round.
    let refused = new_primary.query("SELECT deal_cards(10)", &[]).unwrap_err();
    assert_eq!(
        refused.code().map(|c| c.code()),
        Some("55000"),
        "{refused:?}"
    );
    let step = documented_step();
    assert_eq!(rows(new_primary, &step).len(), 1, "{step}");
    assert_eq!(verify_desk(new_primary, 10), (7, 7, 0, 0));
    set_seeds(new_primary, 10, "after the switch-over");
    games.push(game_of(&deal(new_primary, 10)));
    assert_eq!(verify_desk(new_primary, 10), (8, 7, 1, 0));
    assert!(
        games.iter().all(|&g| g > old_max),
        "new games {games:?} reuse ids up to {old_max}"
    );
    assert_eq!(
        value(
            new_primary,
            "SELECT count(*) - count(DISTINCT game_id) FROM game"
        ),
        "0"
    );
    // Notes and queues number on too; the old queue plays on.
    assert_eq!(
        value(
            new_primary,
            "SELECT count(*) - count(DISTINCT note_id) FROM note"
        ),
        "0"
    );
    assert_eq!(
        value(
            new_primary,
            "SELECT shuffle_queue_create(ARRAY[1, 2, 3]::bigint[])"
        ),
        "6"
    );
    let next: i64 = value(new_primary, "SELECT shuffle_queue_next(1)")
        .parse()
        .unwrap();
    assert!((1..=40).contains(&next));
    // The queue spread by artist too, from its replicated groups, up next first.
    assert_eq!(value(new_primary, "SELECT shuffle_queue_next(3)"), "12");
    let next: i64 = value(new_primary, "SELECT shuffle_queue_next(3)")
        .parse()
        .unwrap();
    assert!((1..=10).contains(&next), "{next}");
}
