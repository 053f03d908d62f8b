//! A reveal by the game server: once it has committed the seed is public, it is the
//! commitment's, every game recomputes from it, and the reveal shows no other seed.

use crate::desks::{all_verified, assert_games_recompute, hex, shown_seed};
use crate::secrecy::{unrevealed_seeds, FairDesks, Received};

/// Nothing the role received before shows a seed; then the game server reveals desk 1's: the
/// seed is the commitment's, every game recomputes from it, and the reveal shows neither desk
/// 2's seed nor the one now in force at desk 1. fair_mode_off reveals too.
#[test]
fn a_reveal_shows_the_seed_of_its_commitment_and_every_game_recomputes() {
    let FairDesks {
        mut admin,
        mut game_server,
        notices,
        mut received,
        commitments,
        secrets,
        next_nonce,
        ..
    } = FairDesks::new("dealcards_fair_reveal", "dealcards_fair_reveal_server");
    for notice in notices.lock().unwrap().drain(..) {
        received.add("a notice", notice);
    }
    received.assert_none_of(&secrets);

    // The reveal, by the game server: it returns the round and its commitment, not the seed;
    // once it has committed, the seed is public in fair_commitment, it is the commitment's, and
    // every game recomputes from it.
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
    let seed = shown_seed(&mut game_server, 1, 1).expect("the committed reveal shows the seed");
    assert_eq!(seed, secrets[0].raw);
    let digest: Vec<u8> = game_server
        .query_one("SELECT sha256($1)", &[&seed])
        .unwrap()
        .get(0);
    assert_eq!(digest, commitment, "SHA-256 of the revealed seed");
    assert_games_recompute(
        &mut game_server,
        1,
        &commitment,
        &seed,
        next_nonce[&1] as usize,
    );
    for game in all_verified(&mut game_server, 1) {
        let verified: bool = game_server
            .query_one("SELECT verified FROM fair_verify_game($1)", &[&game])
            .unwrap()
            .get(0);
        assert!(verified, "game {game}");
    }

    // The reveal showed neither desk 2's seed nor the one now in force at desk 1.
    let mut after = Received::default();
    after.add(
        "fair_reveal(1)",
        format!("{round} {} {}", hex(&commitment), hex(&next)),
    );
    after.rows(&mut game_server, "SELECT * FROM fair_commitment");
    after.rows(&mut game_server, "SELECT * FROM fair_verify_desk(1)");
    after.rows(&mut game_server, "SELECT fair_publication(1)");
    let now_secret = unrevealed_seeds(&mut admin);
    assert_eq!(now_secret.len(), 2);
    after.assert_none_of(&now_secret);

    // fair_mode_off reveals too, and puts nothing in place.
    let row = game_server
        .query_one("SELECT round, commitment FROM fair_mode_off(2)", &[])
        .unwrap();
    assert_eq!(
        (row.get::<_, i32>(0), row.get::<_, Vec<u8>>(1)),
        (1, commitments[&2].clone())
    );
    let seed = shown_seed(&mut game_server, 2, 1).expect("the committed reveal shows the seed");
    assert_eq!(seed, secrets[1].raw);
    assert_games_recompute(
        &mut game_server,
        2,
        &commitments[&2],
        &seed,
        next_nonce[&2] as usize,
    );
    assert_eq!(
        all_verified(&mut game_server, 2).len(),
        next_nonce[&2] as usize
    );
    assert_eq!(unrevealed_seeds(&mut admin).len(), 1);
}
