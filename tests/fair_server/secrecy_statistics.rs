//! The statistics views, and conditions of the role's own on the view of the commitments, show
//! no unrevealed server seed.

use crate::secrecy::FairDesks;

/// Once a superuser analyzed the tables, pg_stats holds the seeds, but not for the role; the
/// other statistics views show none either.
#[test]
fn the_statistics_views_show_no_unrevealed_seed() {
    let FairDesks {
        mut admin,
        mut game_server,
        notices,
        mut received,
        secrets,
        ..
    } = FairDesks::new(
        "dealcards_fair_statistics",
        "dealcards_fair_statistics_server",
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
    // game has row security (a deal's rows are hidden until it commits): pg_stats shows the
    // role none of its statistics, while the superuser sees them.
    assert!(received
        .rows(
            &mut game_server,
            "SELECT * FROM pg_stats WHERE tablename = 'game'"
        )
        .is_empty());
    assert!(!admin
        .query(
            "SELECT * FROM pg_stats WHERE tablename = 'game' AND schemaname = 'public'",
            &[]
        )
        .unwrap()
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

    for notice in notices.lock().unwrap().drain(..) {
        received.add("a notice", notice);
    }
    received.assert_none_of(&secrets);
}

/// A function of the role's own that reports every value it sees, in conditions on the view of
/// the commitments, sees commitments but no unrevealed seed.
#[test]
fn conditions_of_the_roles_own_on_the_view_see_no_unrevealed_seed() {
    let FairDesks {
        mut game_server,
        notices,
        mut received,
        commitments,
        secrets,
        ..
    } = FairDesks::new(
        "dealcards_fair_conditions",
        "dealcards_fair_conditions_server",
    );
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
        leaked
            .iter()
            .any(|n| n.contains(&hex::encode(&commitments[&1]))),
        "the leaky function never ran on a commitment: the check would prove nothing: {leaked:?}"
    );
    for notice in leaked {
        received.add("a notice", notice);
    }

    for notice in notices.lock().unwrap().drain(..) {
        received.add("a notice", notice);
    }
    received.assert_none_of(&secrets);
}
