//! Grinding leaves nothing to choose from: dealing and undoing in a DO loop of subtransactions,
//! with any input the game server or the house can touch varied between tries, gives the same
//! deal every time, or is refused.

use std::sync::{Arc, Mutex};

use postgres::Client;

use crate::desks::{database_with_extension, deal_receipt, seat, set_seeds};
use crate::grants::create_game_server_role;
use crate::secrecy::connect_collecting;
use crate::server;

const TRIES: usize = 12;

/// Runs a DO block of TRIES tries at desk `desk`, each in a subtransaction that is undone: the
/// try's `vary` (with `i` the try's number), then a deal whose chain hash, as the caller can
/// read it from the game's row, it raises as a notice (`<NULL>` where the row is hidden from
/// the caller); a refused deal raises its SQLSTATE instead. Returns the notices, one per try.
fn grind(
    client: &mut Client,
    notices: &Arc<Mutex<Vec<String>>>,
    desk: i32,
    vary: &str,
) -> Vec<String> {
    notices.lock().unwrap().clear();
    client
        .batch_execute(&format!(
            "DO $$
             DECLARE r jsonb;
             BEGIN
               FOR i IN 1..{TRIES} LOOP
                 BEGIN
                   {vary}
                   r := deal_cards({desk});
                   RAISE NOTICE 'dealt %', (SELECT encode(chain_hash, 'hex') FROM game
                                             WHERE game_id = (r->>'game')::bigint);
                   RAISE EXCEPTION 'undo' USING ERRCODE = 'P0001';
                 EXCEPTION
                   WHEN raise_exception THEN NULL;
                   WHEN OTHERS THEN RAISE NOTICE 'refused %', SQLSTATE;
                 END;
               END LOOP;
             END $$"
        ))
        .unwrap_or_else(|e| panic!("grinding with {vary:?}: {e}"));
    let seen: Vec<String> = notices
        .lock()
        .unwrap()
        .drain(..)
        .filter_map(|n| {
            let at = n.find("message: \"")? + 10;
            let message = &n[at..];
            Some(message[..message.find('"')?].to_string())
        })
        .collect();
    assert_eq!(seen.len(), TRIES, "one outcome per try: {seen:?}");
    seen
}

#[test]
fn deals_undone_in_a_loop_come_back_the_same_or_are_refused() {
    let db = "dealcards_fair_grinding";
    let role = "dealcards_fair_grinding_server";
    let mut admin = database_with_extension(db);
    create_game_server_role(&mut admin, role);
    let notices = Arc::new(Mutex::new(Vec::new()));
    let mut game_server = connect_collecting(db, role, notices.clone());
    let superuser = server::dsn_setting("user");
    let mut house = connect_collecting(db, &superuser, notices.clone());
    // Desk 1: every seat's seed required (the default), all set. Desk 2: none required, seat 2
    // without one, and a free player 99 waiting to sit down.
    seat(&mut game_server, 1, &[1, 2, 3]);
    seat(&mut game_server, 2, &[1, 2, 3]);
    game_server.batch_execute("SELECT fair_mode_on(1)").unwrap();
    game_server
        .batch_execute("SELECT fair_mode_on(2, seeds_required => false)")
        .unwrap();
    set_seeds(&mut game_server, 1, &[(1, "a"), (2, "b"), (3, "c")]);
    set_seeds(&mut game_server, 2, &[(1, "a"), (3, "c")]);

    // The game server's role cannot see a deal before its transaction commits: in its loop every
    // try deals, and the game's row is not there for it. The house (a superuser) sees it.
    for (client, sees) in [(&mut game_server, false), (&mut house, true)] {
        check_unvaried_tries_deal_the_same(client, &notices, sees);
        check_varied_tries_are_refused(client, &notices);
    }
    // The house may write the seats' seeds itself: a seed it adds or changes in the loop is
    // one of that transaction's, and refused the same way.
    for (desk, vary) in [
        (
            2,
            "UPDATE desk_player p SET client_seed = 'try ' || i, seed_round = d.fair_round
               FROM desk d WHERE d.desk_id = 2 AND p.desk_id = 2 AND p.player_no = 2;",
        ),
        (
            1,
            "UPDATE desk_player SET client_seed = 'try ' || i WHERE desk_id = 1 AND player_no = 2;",
        ),
    ] {
        let seen = grind(&mut house, &notices, desk, vary);
        assert!(
            seen.iter().all(|s| s == "refused 55000"),
            "{vary}: {seen:?}"
        );
    }
    // The check can fail: a deal whose inputs were committed before deals in the loop.
    let seen = grind(&mut house, &notices, 1, "PERFORM 1;");
    assert!(seen.iter().all(|s| s.starts_with("dealt ")), "{seen:?}");
}

/// Nothing varied: the same deal every try, and the one dealt for good after it; its chain
/// hash seen in the loop only when the caller `sees` the game's row.
fn check_unvaried_tries_deal_the_same(
    client: &mut Client,
    notices: &Arc<Mutex<Vec<String>>>,
    sees: bool,
) {
    for desk in [1, 2] {
        let seen = grind(client, notices, desk, "");
        assert!(
            seen.iter()
                .all(|s| *s == seen[0] && s.starts_with("dealt ")),
            "{seen:?}"
        );
        assert_eq!(seen[0] == "dealt <NULL>", !sees, "{seen:?}");
        let (_, receipt) = deal_receipt(client, desk);
        let receipt: serde_json::Value = serde_json::from_str(&receipt).unwrap();
        if sees {
            assert_eq!(
                format!("dealt {}", receipt["chain_hash"].as_str().unwrap()),
                seen[0]
            );
        }
    }
}

/// Varied: a seat's seed (set for the first time, or again), a fresh commitment, the
/// round's rules, who sits where: refused every time, with 55000.
fn check_varied_tries_are_refused(client: &mut Client, notices: &Arc<Mutex<Vec<String>>>) {
    for (desk, vary) in [
        (2, "PERFORM set_client_seed(2, 2, 'try ' || i);"),
        (1, "PERFORM set_client_seed(1, 2, 'try ' || i);"),
        (1, "PERFORM fair_reveal(1);"),
        (2, "PERFORM fair_reveal(2, seeds_required => false);"),
        (2, "PERFORM fair_mode_off(2); PERFORM fair_mode_on(2, seeds_required => false);"),
        (
            2,
            "DELETE FROM desk_player WHERE desk_id = 2 AND player_no = 2;
             INSERT INTO desk_player (desk_id, player_no, player_id) VALUES (2, 2, 90 + i);",
        ),
        (
            1,
            "DELETE FROM desk_player WHERE desk_id = 1 AND player_no IN (1, 2);
             INSERT INTO desk_player (desk_id, player_no, player_id) VALUES (1, 1, 12), (1, 2, 11);",
        ),
    ] {
        let seen = grind(client, notices, desk, vary);
        // A try may fail before its deal for a reason of its own (a seed set twice); none
        // deals.
        assert!(
            seen.iter().all(|s| s == "refused 55000"),
            "{vary}: {seen:?}"
        );
    }
}
