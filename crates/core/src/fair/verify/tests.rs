use super::*;
use crate::fair::{chain_hash, commitment, deal, Recorded, Rules};

const DESK: i32 = 7;
const PLAYERS: [i64; 3] = [71, 72, 73];
/// The rules of the round of [`chain`]: seeds required, 1000 deals, due by a time.
const RULES: Rules = Rules {
    house: [false, false, false],
    seeds_required: true,
    max_deals: 1000,
    reveal_by: Some(1_798_761_600_000_000),
};

/// A desk's chain of `n` fair games under one commitment, as deal_cards records them, with the
/// seed revealed or not.
fn chain(n: usize, revealed: bool) -> (Vec<StoredGame>, Option<Vec<u8>>) {
    let seed = [9u8; 32];
    let commit = commitment(&seed);
    let seeds: [&[u8]; 3] = [b"alice", b"", b"carol \xe2\x99\xa0"];
    let mut previous = CHAIN_START;
    let mut games = Vec::new();
    for nonce in 0..n as u64 {
        let dealt = deal(&seed, &seeds, nonce);
        let record = Recorded::of_deal(
            DESK,
            &commit,
            nonce,
            Some(PLAYERS),
            Some(RULES),
            seeds,
            &dealt,
        );
        let hash = chain_hash(&previous, &record).unwrap();
        let hand = |cards: &[i32]| cards.iter().map(|&c| Some(c)).collect::<Vec<_>>();
        games.push(StoredGame {
            game_id: 100 + nonce as i64,
            round: Some(1),
            nonce: Some(nonce as i64),
            commitment: commit.to_vec(),
            protocol: 3,
            house_seats: Vec::new(),
            seeds_required: RULES.seeds_required,
            max_deals: Some(RULES.max_deals),
            reveal_by: RULES.reveal_by,
            players: PLAYERS.map(Some),
            client_seeds: seeds.iter().map(|s| Some(s.to_vec())).collect(),
            hands: [
                hand(&dealt.hands[0]),
                hand(&dealt.hands[1]),
                hand(&dealt.hands[2]),
                hand(&dealt.extra),
            ],
            leader: dealt.leader as i16,
            chain_hash: Some(hash.to_vec()),
            revealed_seed: revealed.then(|| seed.to_vec()),
            dealt_after_reveal: false,
        });
        previous = hash;
    }
    (games, Some(previous.to_vec()))
}

fn verdicts(checked: &[Checked]) -> Vec<Option<bool>> {
    checked.iter().map(|c| c.verified).collect()
}

#[test]
fn an_intact_revealed_chain_verifies_game_by_game() {
    let (games, head) = chain(4, true);
    let checked = check_desk(DESK, head.as_deref(), games, &[]);
    assert_eq!(verdicts(&checked), [Some(true); 4]);
    assert!(checked.iter().all(|c| c.problem.is_none()));
    assert_eq!(checked[3].game_id, Some(103));
    assert_eq!(checked[3].nonce, Some(3));
}

#[test]
fn an_unrevealed_chain_is_linked_but_not_verified_yet() {
    let (games, head) = chain(2, false);
    let checked = check_desk(DESK, head.as_deref(), games, &[]);
    assert_eq!(verdicts(&checked), [None, None]);
    assert!(checked[0]
        .problem
        .as_deref()
        .unwrap()
        .contains("not revealed yet"));
}

#[test]
fn a_changed_card_fails_its_game_only() {
    let (mut games, head) = chain(3, true);
    games[1].hands[0].swap(0, 1);
    let checked = check_desk(DESK, head.as_deref(), games, &[]);
    assert_eq!(verdicts(&checked), [Some(true), Some(false), Some(true)]);
    let problem = checked[1].problem.as_deref().unwrap();
    assert!(problem.contains("the chain is broken here"), "{problem}");
    assert!(
        problem.contains("not the deal the revealed seed"),
        "{problem}"
    );
}

#[test]
fn a_missing_game_shows_as_a_nonce_gap_and_a_broken_link() {
    let (mut games, head) = chain(3, true);
    games.remove(1);
    let checked = check_desk(DESK, head.as_deref(), games, &[]);
    assert_eq!(verdicts(&checked), [Some(true), Some(false)]);
    let problem = checked[1].problem.as_deref().unwrap();
    assert!(
        problem.contains("its nonce is 2 where 1 comes next"),
        "{problem}"
    );
    assert!(problem.contains("the chain is broken here"), "{problem}");
}

#[test]
fn a_deleted_newest_game_leaves_the_head_unmatched() {
    let (mut games, head) = chain(3, true);
    games.pop();
    let checked = check_desk(DESK, head.as_deref(), games, &[]);
    assert_eq!(verdicts(&checked), [Some(true), Some(true), Some(false)]);
    assert_eq!(checked[2].game_id, None);
    assert!(checked[2]
        .problem
        .as_deref()
        .unwrap()
        .contains("chain head"));
}

#[test]
fn unreadable_records_are_reported_not_hashed() {
    let (mut games, head) = chain(4, true);
    games[0].hands[2][5] = None;
    games[1].client_seeds.pop();
    games[2].round = None;
    games[3].dealt_after_reveal = true;
    let checked = check_desk(DESK, head.as_deref(), games, &[]);
    assert_eq!(verdicts(&checked), [Some(false); 4]);
    let problems: Vec<&str> = checked
        .iter()
        .map(|c| c.problem.as_deref().unwrap())
        .collect();
    assert!(problems[0].contains("NULL card"), "{}", problems[0]);
    assert!(
        problems[1].contains("client seeds cannot be read"),
        "{}",
        problems[1]
    );
    assert!(
        problems[2].contains("none of the desk's commitments"),
        "{}",
        problems[2]
    );
    assert!(
        problems[3].contains("dealt after its commitment's server seed was revealed"),
        "{}",
        problems[3]
    );
}

#[test]
fn a_wrong_revealed_seed_does_not_match_the_commitment() {
    let (mut games, head) = chain(1, true);
    games[0].revealed_seed = Some(vec![1; 32]);
    let checked = check_desk(DESK, head.as_deref(), games, &[]);
    assert_eq!(verdicts(&checked), [Some(false)]);
    assert!(checked[0]
        .problem
        .as_deref()
        .unwrap()
        .contains("does not match the recorded commitment"));
}

#[test]
fn a_game_given_to_other_players_breaks_the_chain_from_protocol_2_on() {
    // The same cards, seat 1 and seat 2 swapped between players.
    let (mut games, head) = chain(2, true);
    games[0].players.swap(0, 1);
    let checked = check_desk(DESK, head.as_deref(), games, &[]);
    assert_eq!(verdicts(&checked), [Some(false), Some(true)]);
    assert!(checked[0]
        .problem
        .as_deref()
        .unwrap()
        .contains("the chain is broken here"));

    // Under protocol 1 the players are not chained: the same swap goes unseen there, which is
    // why protocols 2 and 3 chain them.
    let (mut games, _) = chain(1, true);
    games[0].protocol = 1;
    let seeds: Vec<Vec<u8>> = games[0].client_seeds.iter().flatten().cloned().collect();
    let cards: Vec<Vec<i32>> = games[0]
        .hands
        .iter()
        .map(|h| h.iter().flatten().copied().collect())
        .collect();
    let v1 = chain_hash(
        &CHAIN_START,
        &Recorded {
            desk_id: DESK,
            commitment: &games[0].commitment,
            nonce: 0,
            players: None,
            rules: None,
            client_seeds: [&seeds[0], &seeds[1], &seeds[2]],
            hands: [&cards[0], &cards[1], &cards[2], &cards[3]],
            leader: games[0].leader,
        },
    )
    .unwrap();
    games[0].chain_hash = Some(v1.to_vec());
    games[0].players.swap(0, 1);
    let checked = check_desk(DESK, Some(&v1), games, &[]);
    assert_eq!(verdicts(&checked), [Some(true)]);
}

#[test]
fn a_missing_player_and_a_seeded_house_seat_are_reported() {
    let (mut games, head) = chain(2, false);
    games[0].players[2] = None;
    games[1].house_seats = vec![1];
    let checked = check_desk(DESK, head.as_deref(), games, &[]);
    assert_eq!(verdicts(&checked), [Some(false), Some(false)]);
    assert!(checked[0]
        .problem
        .as_deref()
        .unwrap()
        .contains("it has no player in seat 3"));
    assert!(checked[1]
        .problem
        .as_deref()
        .unwrap()
        .contains("seat 1 is a house seat of its round, yet its client seed is not empty"));
}

#[test]
fn a_round_left_without_a_reveal_is_reported_after_the_games() {
    let (games, head) = chain(1, true);
    let checked = check_desk(DESK, head.as_deref(), games, &[4, 6]);
    assert_eq!(verdicts(&checked), [Some(true), Some(false), Some(false)]);
    assert_eq!(
        checked[1..].iter().map(|c| c.round).collect::<Vec<_>>(),
        [Some(4), Some(6)]
    );
    assert!(checked[1..].iter().all(|c| c.game_id.is_none()
        && c.problem
            .as_deref()
            .unwrap()
            .contains("left without a reveal")));
}

#[test]
fn an_unreadable_record_breaks_its_own_link_only() {
    let (mut games, head) = chain(3, true);
    games[1].client_seeds[0] = Some(vec![b'x'; 257]);
    let checked = check_desk(DESK, head.as_deref(), games, &[]);
    assert_eq!(verdicts(&checked), [Some(true), Some(false), Some(true)]);
}

/// A rewrite of a stored game's round's rules, named.
type Rewrite = (&'static str, fn(&mut StoredGame));

#[test]
fn rules_rewritten_after_the_commitment_break_every_game_of_the_round() {
    let rewrites: [Rewrite; 5] = [
        ("a house seat declared", |g| g.house_seats = vec![2]),
        ("seeds no longer required", |g| g.seeds_required = false),
        ("another bound", |g| g.max_deals = Some(5000)),
        ("another time", |g| g.reveal_by = Some(0)),
        ("no time limit", |g| g.reveal_by = None),
    ];
    for (what, rewrite) in rewrites {
        let (mut games, head) = chain(3, true);
        games.iter_mut().for_each(rewrite);
        let checked = check_desk(DESK, head.as_deref(), games, &[]);
        assert_eq!(verdicts(&checked), [Some(false); 3], "{what}");
        for c in &checked {
            assert!(
                c.problem
                    .as_deref()
                    .unwrap()
                    .contains("its round's rules were changed"),
                "{what}: {c:?}"
            );
        }
    }
    // Untouched, the same chain verifies.
    let (games, head) = chain(3, true);
    assert_eq!(
        verdicts(&check_desk(DESK, head.as_deref(), games, &[])),
        [Some(true); 3]
    );
}
