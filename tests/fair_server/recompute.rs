//! Every stored game recomputes from the revealed seed, and a changed or deleted game fails
//! verification.

use std::collections::{BTreeMap, BTreeSet};

use postgres::Client;

use crate::desks::{
    all_verified, database_with_extension, deal, fair_deal, parse_dealt, seat, Cards, Verified,
};

const DESK: i32 = 7;

/// A game as dealt: (game, commitment, nonce, client seeds).
type Game = (i64, Vec<u8>, i64, Vec<String>);

#[test]
fn every_game_recomputes_and_a_changed_one_fails() {
    let mut client = database_with_extension("dealcards_fair_recompute");
    seat(&mut client, DESK, &[1, 2, 3]);
    let (commitments, games) = deal_three_rounds(&mut client);
    let seeds = reveal_the_last_round(&mut client, &commitments);
    check_every_game_recomputes(&mut client, &games, &seeds);
    let ids: Vec<i64> = games.iter().map(|g| g.0).collect();
    check_changed_games_fail(&mut client, &games, &ids);
    check_deleted_games_fail(&mut client, &games, &ids);
    check_a_single_games_verification(&mut client, games[7].0);
    // Undone, everything verifies again.
    assert_eq!(all_verified(&mut client, DESK), ids);
    check_fair_deal_depends_on_every_input(&mut client, &seeds[&commitments[0]]);
}

/// Three rounds of seven, seven and six deals, each under its own client seeds (a seed counts
/// for the round it was set under): the rounds' commitments and the games.
fn deal_three_rounds(client: &mut Client) -> (Vec<Vec<u8>>, Vec<Game>) {
    let first: Vec<u8> = client
        .query_one("SELECT fair_mode_on($1)", &[&DESK])
        .unwrap()
        .get(0);
    let long = "é".repeat(128); // 256 bytes, the longest
    let round_seeds: [[&str; 3]; 3] = [
        ["Zoë", "牌", "."],
        ["alice", &long, "🂡 and 🃏"],
        ["a'b\"c\\d{},", "  ", "Zoë"],
    ];
    let mut commitments = vec![first];
    let mut games = Vec::new();
    for i in 0..20usize {
        let round = i / 7;
        if i % 7 == 0 {
            if round > 0 {
                let row = client
                    .query_one(
                        "SELECT round, commitment, next_commitment FROM fair_reveal($1)",
                        &[&DESK],
                    )
                    .unwrap();
                assert_eq!(row.get::<_, i32>(0), round as i32);
                assert_eq!(&row.get::<_, Vec<u8>>(1), commitments.last().unwrap());
                commitments.push(row.get(2));
            }
            for (seat, seed) in round_seeds[round].iter().enumerate() {
                client
                    .execute(
                        "SELECT set_client_seed($1, $2, $3)",
                        &[&DESK, &(seat as i32 + 1), seed],
                    )
                    .unwrap();
            }
        }
        let (desk, game, commitment, nonce) = parse_dealt(&deal(client, DESK));
        assert_eq!(desk, DESK);
        assert_eq!(commitment, hex::encode(&commitments[round]));
        assert_eq!(nonce, (i % 7) as i64);
        let seeds_then: Vec<String> = round_seeds[round].iter().map(|s| s.to_string()).collect();
        games.push((game, commitments[round].clone(), nonce, seeds_then));
    }
    (commitments, games)
}

/// Reveals the round in force: the server seed of each commitment, all three revealed.
fn reveal_the_last_round(
    client: &mut Client,
    commitments: &[Vec<u8>],
) -> BTreeMap<Vec<u8>, Vec<u8>> {
    let row = client
        .query_one("SELECT commitment FROM fair_reveal($1)", &[&DESK])
        .unwrap();
    assert_eq!(&row.get::<_, Vec<u8>>(0), commitments.last().unwrap());
    let seeds: BTreeMap<Vec<u8>, Vec<u8>> = client
        .query(
            "SELECT commitment, server_seed FROM fair_commitment WHERE desk_id = $1 AND server_seed IS NOT NULL",
            &[&DESK],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(seeds.len(), 3);
    seeds
}

/// Each stored game holds the client seeds in force when it was dealt, and is fair_deal of the
/// revealed seed, its client seeds and its nonce.
fn check_every_game_recomputes(
    client: &mut Client,
    games: &[Game],
    seeds: &BTreeMap<Vec<u8>, Vec<u8>>,
) {
    for (game, commitment, nonce, seeds_then) in games {
        let row = client
            .query_one(
                "SELECT client_seeds, fair_commitment, fair_nonce, p1_cards, p2_cards, p3_cards,
                        extra_cards, leader
                   FROM game WHERE game_id = $1",
                &[game],
            )
            .unwrap();
        let stored_seeds: Vec<String> = row.get(0);
        assert_eq!(&stored_seeds, seeds_then, "game {game}");
        assert_eq!(&row.get::<_, Vec<u8>>(1), commitment);
        assert_eq!(&row.get::<_, i64>(2), nonce);
        let cards: Cards = (row.get(3), row.get(4), row.get(5), row.get(6), row.get(7));
        let mut deck: Vec<i32> = [&cards.0, &cards.1, &cards.2, &cards.3]
            .into_iter()
            .flatten()
            .copied()
            .collect();
        deck.sort();
        assert_eq!(deck, (1..=54).collect::<Vec<i32>>(), "game {game}");
        assert_eq!(
            fair_deal(client, &seeds[commitment], seeds_then, *nonce),
            cards,
            "game {game}"
        );
    }
    let ids: Vec<i64> = games.iter().map(|g| g.0).collect();
    assert_eq!(all_verified(client, DESK), ids);
    let some_differ: BTreeSet<Cards> = games
        .iter()
        .map(|(_, c, n, s)| fair_deal(client, &seeds[c], s, *n))
        .collect();
    assert_eq!(some_differ.len(), games.len(), "two games dealt alike");
}

/// fair_verify_desk after `change` (of `game`), in a transaction rolled back: tampering, each
/// undone before the next.
fn tampered(client: &mut Client, change: &str, game: i64) -> Verified {
    let mut tx = client.transaction().unwrap();
    let changed = tx.execute(change, &[&game]).unwrap();
    assert_eq!(changed, 1, "{change}");
    let rows = tx
        .query(
            "SELECT game_id, round, nonce, verified, problem FROM fair_verify_desk($1)",
            &[&DESK],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
        .collect();
    tx.rollback().unwrap();
    rows
}

/// Only `bad` fails (with a problem mentioning `why`), every other listed game verifies.
fn only_fails(rows: &Verified, bad: Option<i64>, why: &str, listed: &[i64]) {
    assert_eq!(
        rows.iter().map(|r| r.0).collect::<Vec<_>>(),
        listed
            .iter()
            .map(|&g| Some(g))
            .chain(bad.is_none().then_some(None))
            .collect::<Vec<_>>(),
        "{rows:?}"
    );
    for row in rows {
        if row.0 == bad {
            assert_eq!(row.3, Some(false), "{row:?}");
            let problem = row.4.as_deref().unwrap_or_default();
            assert!(problem.contains(why), "{row:?}");
        } else {
            assert_eq!((row.3, &row.4), (Some(true), &None), "{row:?}");
        }
    }
}

/// Tampering with a game in the middle: only what was changed fails, and says why.
fn check_changed_games_fail(client: &mut Client, games: &[Game], ids: &[i64]) {
    let middle = games[7].0;
    // A card moved from one hand to another (still a whole deck).
    let rows = tampered(
        client,
        "UPDATE game SET p1_cards[5] = p2_cards[1], p2_cards[1] = p1_cards[5] WHERE game_id = $1",
        middle,
    );
    only_fails(&rows, Some(middle), "", ids);
    // The other hand's card, and the leader, and the client seeds.
    for change in [
        "UPDATE game SET extra_cards[3] = p3_cards[17], p3_cards[17] = extra_cards[3] WHERE game_id = $1",
        "UPDATE game SET leader = leader % 3 + 1 WHERE game_id = $1",
        "UPDATE game SET client_seeds[2] = client_seeds[2] || 'x' WHERE game_id = $1",
        "UPDATE game SET client_seeds = ARRAY[client_seeds[2], client_seeds[1], client_seeds[3]]
          WHERE game_id = $1 AND client_seeds[1] <> client_seeds[2]",
        // The same cards given to other players (the chain covers who sat where).
        "UPDATE game SET p1_id = p2_id, p2_id = p1_id WHERE game_id = $1",
        "UPDATE game SET p3_id = 999 WHERE game_id = $1",
    ] {
        let rows = tampered(client, change, middle);
        only_fails(&rows, Some(middle), "", ids);
    }
    // A changed chain hash breaks the link of the next game too.
    let rows = tampered(
        client,
        "UPDATE game SET chain_hash = sha256(chain_hash) WHERE game_id = $1",
        middle,
    );
    for row in &rows {
        let broken = row.0 == Some(middle) || row.0 == Some(games[8].0);
        assert_eq!(row.3, Some(!broken), "{row:?}");
    }
}

/// Deleted games: the game after one fails, and the desk's chain head names a game that is
/// gone when the newest is.
fn check_deleted_games_fail(client: &mut Client, games: &[Game], ids: &[i64]) {
    // A deleted game in the middle of a commitment: the next one's nonce does not follow.
    let deleted = games[5].0;
    let rows = tampered(client, "DELETE FROM game WHERE game_id = $1", deleted);
    let rest: Vec<i64> = ids.iter().copied().filter(|&g| g != deleted).collect();
    only_fails(&rows, Some(games[6].0), "nonce", &rest);
    // The last game of the first commitment: the first of the next one's link breaks.
    let deleted = games[6].0;
    let rows = tampered(client, "DELETE FROM game WHERE game_id = $1", deleted);
    let rest: Vec<i64> = ids.iter().copied().filter(|&g| g != deleted).collect();
    only_fails(&rows, Some(games[7].0), "", &rest);
    // The newest game: the desk's chain head names a game that is gone.
    let newest = games[19].0;
    let rows = tampered(client, "DELETE FROM game WHERE game_id = $1", newest);
    only_fails(&rows, None, "", &ids[..19]);
    let head = rows.last().unwrap();
    assert_eq!(
        (head.0, head.1, head.2, head.3),
        (None, None, None, Some(false)),
        "{head:?}"
    );
    assert!(
        head.4.as_deref().unwrap().contains("chain head"),
        "{head:?}"
    );
}

/// A single game's verification sees a change to it.
fn check_a_single_games_verification(client: &mut Client, middle: i64) {
    let mut tx = client.transaction().unwrap();
    tx.execute(
        "UPDATE game SET p1_cards[1] = p3_cards[1], p3_cards[1] = p1_cards[1] WHERE game_id = $1",
        &[&middle],
    )
    .unwrap();
    let verified: bool = tx
        .query_one("SELECT verified FROM fair_verify_game($1)", &[&middle])
        .unwrap()
        .get(0);
    assert!(!verified);
    tx.rollback().unwrap();
}

/// fair_deal depends on each of its inputs.
fn check_fair_deal_depends_on_every_input(client: &mut Client, seed: &[u8]) {
    let base = ["Zoë".to_string(), "牌".to_string(), String::new()];
    let dealt = fair_deal(client, seed, &base, 3);
    assert_eq!(fair_deal(client, seed, &base, 3), dealt, "not repeatable");
    for seat in 0..3 {
        let mut changed = base.clone();
        changed[seat].push('!');
        assert_ne!(
            fair_deal(client, seed, &changed, 3),
            dealt,
            "client seed {seat}"
        );
    }
    let swapped = [base[1].clone(), base[0].clone(), base[2].clone()];
    assert_ne!(fair_deal(client, seed, &swapped, 3), dealt, "seats swapped");
    assert_ne!(fair_deal(client, seed, &base, 4), dealt, "nonce");
    let mut other_seed = seed.to_vec();
    other_seed[31] ^= 1;
    assert_ne!(
        fair_deal(client, &other_seed, &base, 3),
        dealt,
        "server seed"
    );
}
