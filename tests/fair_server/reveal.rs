//! A reveal by the game server: once it has committed the seed is public, it is the
//! commitment's, every game recomputes from it, and the reveal shows no other seed.

use crate::desks::{all_verified, assert_games_recompute, shown_seed};
use crate::secrecy::{unrevealed_seeds, FairDesks, Received};

/// Nothing the role received before shows a seed; then the game server reveals desk 1's: the
/// seed is the commitment's, every game recomputes from it, and the reveal shows neither desk
/// 2's seed nor the one now in force at desk 1. fair_mode_off reveals too.
#[test]
fn a_reveal_shows_the_seed_of_its_commitment_and_every_game_recomputes() {
    let mut desks = FairDesks::new("dealcards_fair_reveal", "dealcards_fair_reveal_server");
    let FairDesks {
        notices,
        received,
        secrets,
        ..
    } = &mut desks;
    for notice in notices.lock().unwrap().drain(..) {
        received.add("a notice", notice);
    }
    received.assert_none_of(secrets);

    let (round, commitment, next) = reveal_desk_1(&mut desks);
    check_the_reveal_shows_no_other_seed(&mut desks, round, &commitment, &next);
    check_fair_mode_off_reveals_too(&mut desks);
}

/// The reveal, by the game server: it returns the round and its commitment, not the seed;
/// once it has committed, the seed is public in fair_commitment, it is the commitment's, and
/// every game recomputes from it.
fn reveal_desk_1(desks: &mut FairDesks) -> (i32, Vec<u8>, Vec<u8>) {
    let FairDesks {
        game_server,
        commitments,
        secrets,
        next_nonce,
        ..
    } = desks;
    let row = game_server
        .query_one(
            "SELECT round, commitment, next_commitment FROM fair_reveal(1)",
            &[],
        )
        .unwrap();
    let (round, commitment, next): (i32, Vec<u8>, Vec<u8>) = (row.get(0), row.get(1), row.get(2));
    assert_eq!(round, 1);
    assert_eq!(commitment, commitments[&1]);
    assert_ne!(next, commitment);
    let seed = shown_seed(game_server, 1, 1).expect("the committed reveal shows the seed");
    assert_eq!(seed, secrets[0].raw);
    let digest: Vec<u8> = game_server
        .query_one("SELECT sha256($1)", &[&seed])
        .unwrap()
        .get(0);
    assert_eq!(digest, commitment, "SHA-256 of the revealed seed");
    assert_games_recompute(game_server, 1, &commitment, &seed, next_nonce[&1] as usize);
    for game in all_verified(game_server, 1) {
        let verified: bool = game_server
            .query_one("SELECT verified FROM fair_verify_game($1)", &[&game])
            .unwrap()
            .get(0);
        assert!(verified, "game {game}");
    }
    (round, commitment, next)
}

/// The reveal showed neither desk 2's seed nor the one now in force at desk 1.
fn check_the_reveal_shows_no_other_seed(
    desks: &mut FairDesks,
    round: i32,
    commitment: &[u8],
    next: &[u8],
) {
    let FairDesks {
        admin, game_server, ..
    } = desks;
    let mut after = Received::default();
    after.add(
        "fair_reveal(1)",
        format!("{round} {} {}", hex::encode(commitment), hex::encode(next)),
    );
    after.rows(game_server, "SELECT * FROM fair_commitment");
    after.rows(game_server, "SELECT * FROM fair_verify_desk(1)");
    after.rows(game_server, "SELECT fair_publication(1)");
    let now_secret = unrevealed_seeds(admin);
    assert_eq!(now_secret.len(), 2);
    after.assert_none_of(&now_secret);
}

/// fair_mode_off reveals too, and puts nothing in place.
fn check_fair_mode_off_reveals_too(desks: &mut FairDesks) {
    let FairDesks {
        admin,
        game_server,
        commitments,
        secrets,
        next_nonce,
        ..
    } = desks;
    let row = game_server
        .query_one("SELECT round, commitment FROM fair_mode_off(2)", &[])
        .unwrap();
    assert_eq!(
        (row.get::<_, i32>(0), row.get::<_, Vec<u8>>(1)),
        (1, commitments[&2].clone())
    );
    let seed = shown_seed(game_server, 2, 1).expect("the committed reveal shows the seed");
    assert_eq!(seed, secrets[1].raw);
    assert_games_recompute(
        game_server,
        2,
        &commitments[&2],
        &seed,
        next_nonce[&2] as usize,
    );
    assert_eq!(all_verified(game_server, 2).len(), next_nonce[&2] as usize);
    assert_eq!(unrevealed_seeds(admin).len(), 1);
}
