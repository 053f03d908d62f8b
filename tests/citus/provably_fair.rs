//! Provably fair desks on the cluster: commitments, client seeds, reveals and verification on
//! each worker, every stored game recomputing from the revealed seed.

use postgres::Client;

use crate::cluster::{desks_by_holder, distributed, same_topology, Node};
use crate::desks::{deal, fresh_desks, range_of, Dealt};

#[test]
fn provably_fair_desks_verify_on_the_cluster() {
    let (lo, hi) = (7200, 7209);
    let mut c = distributed();
    let _topology = same_topology();
    fresh_desks(&mut c, lo, hi);
    let by_holder = desks_by_holder(&mut c, lo, hi);
    assert!(by_holder.len() >= 2);
    for (node, desks) in &by_holder {
        let desk = desks[0];
        let (commitment, dealt) = deal_three_fair_games(&mut c, desk, node);
        let seed = reveal_and_verify(&mut c, desk, &commitment);
        check_the_publication(&mut c, desk, &seed);
        check_every_game_recomputes(&mut c, desk, &dealt, &seed, &commitment);
    }
}

/// Desk `desk`, held by `node`, in provably fair mode with every seat's seed set, dealt at three
/// times: each result of the round, without the first bidder and chain hash, which the receipt
/// adds as stored. The round's commitment and the deals.
fn deal_three_fair_games(c: &mut Client, desk: i32, node: &Node) -> (Vec<u8>, Vec<Dealt>) {
    let commitment: Vec<u8> = c
        .query_one(&format!("SELECT fair_mode_on({desk})"), &[])
        .unwrap()
        .get(0);
    for seat in 1..=3 {
        c.batch_execute(&format!(
            "SELECT set_client_seed({desk}, {seat}, 'seat {seat} of {desk}')"
        ))
        .unwrap();
    }
    let dealt: Vec<Dealt> = (0..3).map(|_| deal(c, desk)).collect();
    for (n, d) in dealt.iter().enumerate() {
        let value: serde_json::Value = serde_json::from_str(&d.json).unwrap();
        assert_eq!(value["nonce"], n as i64, "{}", d.json);
        assert!(value["commitment"].is_string(), "{}", d.json);
        assert!(value.get("leader").is_none() && value.get("chain_hash").is_none());
        assert_eq!(range_of(d.game), node.group);
        // The committed deal's receipt, read from the desk's worker: the result, and the
        // first bidder and chain hash as stored.
        let whole: bool = c
            .query_one(
                "SELECT r - 'leader' - 'chain_hash' = $2::text::jsonb
                        AND (r ->> 'leader')::int2 = g.leader
                        AND r ->> 'chain_hash' = encode(g.chain_hash, 'hex')
                   FROM fair_receipt($1) r, game g WHERE g.game_id = $1",
                &[&d.game, &d.json],
            )
            .unwrap()
            .get(0);
        assert!(whole, "game {}", d.game);
    }
    (commitment, dealt)
}

/// The reveal returns the round, not its seed; once it has committed, the view shows the
/// seed, on the worker that holds the desk as anywhere.
/// The revealed seed.
fn reveal_and_verify(c: &mut Client, desk: i32, commitment: &[u8]) -> Vec<u8> {
    let row = c
        .query_one(
            &format!("SELECT round, commitment FROM fair_reveal({desk})"),
            &[],
        )
        .unwrap();
    let (round, revealed): (i32, Vec<u8>) = (row.get(0), row.get(1));
    assert_eq!(revealed, commitment);
    let row = c
        .query_one(
            "SELECT server_seed, sha256(server_seed) FROM fair_commitment
              WHERE desk_id = $1 AND round = $2",
            &[&desk, &round],
        )
        .unwrap();
    let (seed, hashed): (Vec<u8>, Vec<u8>) = (row.get(0), row.get(1));
    assert_eq!(
        hashed, commitment,
        "the seed does not hash to its commitment"
    );
    let verified: Vec<(i64, Option<bool>, Option<String>)> = c
        .query(&format!("SELECT * FROM fair_verify_desk({desk})"), &[])
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(3), r.get(4)))
        .collect();
    assert_eq!(verified.len(), 3, "{verified:?}");
    assert!(verified.iter().all(|v| v.1 == Some(true)), "{verified:?}");
    seed
}

/// What the house publishes of the desk, read on its worker: the three games, and the
/// round's seed now that the reveal has committed.
fn check_the_publication(c: &mut Client, desk: i32, seed: &[u8]) {
    let published: String = c
        .query_one(&format!("SELECT fair_publication({desk})::text"), &[])
        .unwrap()
        .get(0);
    let published: serde_json::Value = serde_json::from_str(&published).unwrap();
    assert_eq!(
        published["games"].as_array().unwrap().len(),
        3,
        "{published}"
    );
    assert_eq!(
        published["rounds"][0]["server_seed"].as_str(),
        Some(hex::encode(seed).as_str()),
        "{published}"
    );
}

/// Every stored game recomputes from the revealed seed.
fn check_every_game_recomputes(
    c: &mut Client,
    desk: i32,
    dealt: &[Dealt],
    seed: &[u8],
    commitment: &[u8],
) {
    for d in dealt {
        let game = c
            .query_one(
                &format!(
                    "SELECT p1_cards, p2_cards, p3_cards, extra_cards, leader, client_seeds,
                            fair_nonce, fair_commitment
                       FROM game WHERE desk_id = {desk} AND game_id = {}",
                    d.game
                ),
                &[],
            )
            .unwrap();
        let seeds: Vec<String> = game.get(5);
        assert_eq!(
            seeds,
            (1..=3)
                .map(|s| format!("seat {s} of {desk}"))
                .collect::<Vec<_>>()
        );
        assert_eq!(game.get::<_, Vec<u8>>(7), commitment);
        let nonce: i64 = game.get(6);
        let again = c
            .query_one(
                "SELECT p1_cards, p2_cards, p3_cards, extra_cards, leader FROM fair_deal($1, $2, $3)",
                &[&seed, &seeds, &nonce],
            )
            .unwrap();
        for i in 0..4 {
            assert_eq!(
                game.get::<_, Vec<i32>>(i),
                again.get::<_, Vec<i32>>(i),
                "game {}",
                d.game
            );
        }
        assert_eq!(game.get::<_, i16>(4), again.get::<_, i16>(4));
    }
}

/// On the cluster as on one server: a reveal undone by a rollback or a savepoint shows its
/// seed to nobody and leaves the round in force; a deal undone comes back the same, and one
/// that would use a seed set in its own transaction is refused.
#[test]
fn undone_reveals_and_deals_hold_on_the_cluster() {
    let (lo, hi) = (7300, 7309);
    let mut c = distributed();
    let _topology = same_topology();
    fresh_desks(&mut c, lo, hi);
    let by_holder = desks_by_holder(&mut c, lo, hi);
    assert!(by_holder.len() >= 2);
    for desks in by_holder.values() {
        let desk = desks[0];
        c.batch_execute(&format!(
            "SELECT fair_mode_on({desk}, house_seats => '{{3}}')"
        ))
        .unwrap();
        for seat in 1..=2 {
            c.batch_execute(&format!(
                "SELECT set_client_seed({desk}, {seat}, 's{seat}')"
            ))
            .unwrap();
        }
        let hidden = |c: &mut postgres::Client| -> (bool, i64) {
            let row = c
                .query_one(
                    "SELECT bool_and(server_seed IS NULL), count(*) FROM fair_commitment
                      WHERE desk_id = $1",
                    &[&desk],
                )
                .unwrap();
            (row.get(0), row.get(1))
        };
        for undo in ["ROLLBACK", "ROLLBACK TO SAVEPOINT s; COMMIT"] {
            c.batch_execute("BEGIN; SAVEPOINT s").unwrap();
            c.batch_execute(&format!("SELECT * FROM fair_reveal({desk})"))
                .unwrap();
            let (all_hidden, _) = hidden(&mut c);
            assert!(
                all_hidden,
                "desk {desk}: the revealing transaction reads the seed"
            );
            c.batch_execute(undo).unwrap();
            assert_eq!(hidden(&mut c), (true, 1), "desk {desk} after {undo}");
        }
        // The deal's chain hash, as its receipt gives it to the superuser in the dealing
        // transaction.
        let chain_hash = |c: &mut postgres::Client| -> String {
            let game = deal(c, desk).game;
            c.query_one("SELECT fair_receipt($1) ->> 'chain_hash'", &[&game])
                .unwrap()
                .get(0)
        };
        c.batch_execute("BEGIN").unwrap();
        let first = chain_hash(&mut c);
        c.batch_execute("ROLLBACK").unwrap();
        let kept = chain_hash(&mut c);
        assert_eq!(first, kept, "desk {desk}: an undone deal came back another");
        let refused = c
            .batch_execute(&format!(
                "BEGIN; DELETE FROM desk_player WHERE desk_id = {desk} AND player_no = 3;
                 INSERT INTO desk_player VALUES ({desk}, 3, 99); SELECT deal_cards({desk})"
            ))
            .expect_err("a deal used a seat of its own transaction");
        assert_eq!(
            refused.code().map(|c| c.code()),
            Some("55000"),
            "{refused:?}"
        );
        c.batch_execute("ROLLBACK").unwrap();
    }
}

/// On the cluster too, a game server's role sees nothing of a provably fair deal in the
/// transaction that dealt it (row level security on the shards, where the deal's rows are);
/// the superuser's own preview finds the game, so the check can fail.
#[test]
fn a_game_server_sees_no_deal_before_it_commits_on_the_cluster() {
    let (lo, hi) = (7220, 7221);
    let role = "dealcards_citus_game_server";
    let mut c = distributed();
    let _topology = same_topology();
    fresh_desks(&mut c, lo, hi);
    c.batch_execute(&format!(
        "SET client_min_messages = warning;
         DO $$ BEGIN
           IF EXISTS (SELECT FROM pg_roles WHERE rolname = '{role}') THEN
             EXECUTE 'DROP OWNED BY {role}'; EXECUTE 'DROP ROLE {role}';
           END IF;
         END $$;
         CREATE ROLE {role} LOGIN NOBYPASSRLS;
         GRANT USAGE ON SCHEMA public TO {role};
         GRANT SELECT ON public.desk, public.desk_player, public.game, public.bid_record,
                         public.note, public.fair_commitment TO {role};
         GRANT UPDATE (cur_game_id) ON public.desk TO {role};"
    ))
    .unwrap();
    let count = |client: &mut postgres::Client, table: &str, desk: i32| -> i64 {
        client
            .query_one(
                &format!("SELECT count(*) FROM {table} WHERE desk_id = $1"),
                &[&desk],
            )
            .unwrap()
            .get(0)
    };
    let dsn = crate::cluster::dsn_with(&crate::cluster::coordinator_dsn(), "user", role);
    let mut game_server = crate::cluster::connect_to(&dsn);
    for desk in [lo, hi] {
        c.batch_execute(&format!(
            "SELECT fair_mode_on({desk}, seeds_required => false)"
        ))
        .unwrap();
        // The superuser's preview sees the game, its bids and its note.
        c.batch_execute("BEGIN").unwrap();
        c.batch_execute(&format!("SELECT deal_cards({desk})"))
            .unwrap();
        assert_eq!(
            ["game", "bid_record", "note"].map(|t| count(&mut c, t, desk)),
            [1, 2, 1]
        );
        c.batch_execute("ROLLBACK").unwrap();
        // The game server's sees none of them.
        game_server.batch_execute("BEGIN").unwrap();
        game_server
            .batch_execute(&format!("SELECT deal_cards({desk})"))
            .unwrap();
        assert_eq!(
            ["game", "bid_record", "note"].map(|t| count(&mut game_server, t, desk)),
            [0, 0, 0],
            "desk {desk}"
        );
        game_server.batch_execute("COMMIT").unwrap();
        assert_eq!(count(&mut game_server, "game", desk), 1, "desk {desk}");
    }
}

/// Rounds record the server's token, one for the whole cluster (the coordinator's, a reference
/// table): a round committed by the desk's worker (the call sent on there) or by the coordinator
/// (the call inside an expression, which Citus does not send on) deals on either way, alternately.
#[test]
fn a_round_deals_on_whichever_node_commits_or_deals() {
    let (lo, hi) = (7230, 7231);
    let mut c = distributed();
    let _topology = same_topology();
    fresh_desks(&mut c, lo, hi);
    c.batch_execute(&format!(
        "SELECT fair_mode_on({lo}, seeds_required => false);
         SELECT fair_mode_on({hi}, seeds_required => false) IS NOT NULL;"
    ))
    .unwrap();
    for desk in [lo, hi] {
        for _ in 0..2 {
            // Sent on to the desk's worker, then run by the coordinator itself.
            deal(&mut c, desk);
            let sql = format!("SELECT deal_cards({desk})::text");
            c.batch_execute(&sql)
                .unwrap_or_else(|e| panic!("{sql}: {} {e:?}", crate::desks::sqlstate(&e)));
        }
        let nonce: i64 = c
            .query_one(
                &format!("SELECT fair_nonce FROM desk WHERE desk_id = {desk}"),
                &[],
            )
            .unwrap()
            .get(0);
        assert_eq!(nonce, 4, "desk {desk}");
    }
}
