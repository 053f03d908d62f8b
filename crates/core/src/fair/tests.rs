use super::*;
use crate::deal::leader;
use dealcards_fairness::{Destinations, Leaders, ALPHA};

const ZEROS: ServerSeed = [0; 32];

#[test]
fn the_message_is_the_documented_bytes() {
    // docs/provably_fair.md: "alice", "", "Zoë", nonce 2.
    let message = deal_message(&["alice".as_bytes(), b"", "Zoë".as_bytes()], 2);
    assert_eq!(
        hex::encode(&message),
        concat!(
            "00000005",
            "616c696365",
            "00000000",
            "00000004",
            "5a6fc3ab",
            "0000000000000002"
        )
    );
    assert_eq!(message.len(), 29);
}

#[test]
fn the_commitment_is_sha256_of_the_seed() {
    // SHA-256 of 32 zero bytes, a well-known value.
    assert_eq!(
        hex::encode(commitment(&ZEROS)),
        "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
    );
}

#[test]
fn the_key_is_hmac_sha256_of_the_message() {
    // RFC 4231 test case 2 ("Jefe", "what do ya want for nothing?") through the same HMAC,
    // so the key derivation uses the standard construction.
    let mut mac = Hmac::<Sha256>::new_from_slice(b"Jefe").unwrap();
    mac.update(b"what do ya want for nothing?");
    assert_eq!(
        hex::encode(mac.finalize().into_bytes()),
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    );
    let seeds: [&[u8]; 3] = [b"a", b"b", b"c"];
    let mut mac = Hmac::<Sha256>::new_from_slice(&ZEROS).unwrap();
    mac.update(&deal_message(&seeds, 7));
    assert_eq!(
        deal_key(&ZEROS, &seeds, 7)[..],
        mac.finalize().into_bytes()[..]
    );
}

#[test]
fn a_fair_deal_is_the_seeded_deal_of_its_key() {
    let seeds: [&[u8]; 3] = [b"x", b"y", b"z"];
    let key = deal_key(&ZEROS, &seeds, 0);
    assert_eq!(
        deal(&ZEROS, &seeds, 0),
        DouDizhuDeal::deal(&mut Stream::from_seed(key))
    );
}

#[test]
fn every_input_changes_the_deal() {
    let seed: ServerSeed = std::array::from_fn(|i| i as u8);
    let seeds: [&[u8]; 3] = [b"alice", b"bob", b"carol"];
    let base = deal(&seed, &seeds, 5);
    assert_ne!(base, deal(&seed, &seeds, 6));
    assert_ne!(base, deal(&seed, &[b"alice", b"bob", b"carol!"], 5));
    assert_ne!(base, deal(&seed, &[b"bob", b"alice", b"carol"], 5));
    // The length prefix keeps seeds apart: moving a byte from one seed to the next differs.
    assert_ne!(base, deal(&seed, &[b"alic", b"ebob", b"carol"], 5));
    let mut other = seed;
    other[31] ^= 1;
    assert_ne!(base, deal(&other, &seeds, 5));
}

#[test]
fn bad_seeds_and_nonces_are_refused() {
    assert_eq!(
        server_seed(&[0; 31]).unwrap_err().message,
        "a server seed is exactly 32 bytes, got 31"
    );
    assert!(server_seed(&[0; 32]).is_ok());
    assert!(check_client_seed(1, &[b'a'; 256]).is_ok());
    assert_eq!(
        check_client_seed(2, &[b'a'; 257]).unwrap_err().message,
        "the client seed of seat 2 is 257 bytes in UTF-8; a client seed is at most 256"
    );
    assert_eq!(
        nonce(-1).unwrap_err().message,
        "a nonce is 0 or more, got -1"
    );
    assert_eq!(nonce(i64::MAX), Ok(i64::MAX as u64));
}

fn record<'a>(deal: &'a DouDizhuDeal, commitment: &'a Hash, nonce: u64) -> Recorded<'a> {
    Recorded::of_deal(
        7,
        commitment,
        nonce,
        None,
        None,
        [b"a", b"", "Zoë".as_bytes()],
        deal,
    )
}

#[test]
fn the_chain_hash_covers_every_recorded_field() {
    let seed: ServerSeed = [9; 32];
    let c = commitment(&seed);
    let seeds: [&[u8]; 3] = [b"a", b"", "Zoë".as_bytes()];
    let dealt = deal(&seed, &seeds, 0);
    let game = record(&dealt, &c, 0);
    let hash = chain_hash(&CHAIN_START, &game).unwrap();
    // Recomputed by hand from the documented layout.
    let mut bytes = CHAIN_START.to_vec();
    bytes.extend(7i32.to_be_bytes());
    bytes.extend(c);
    bytes.extend(0i64.to_be_bytes());
    bytes.extend(
        deal_message(&seeds, 0)
            .split_at(deal_message(&seeds, 0).len() - 8)
            .0,
    );
    for hand in game.hands {
        bytes.extend(hand.iter().map(|&c| c as u8));
    }
    bytes.push(dealt.leader);
    assert_eq!(hash[..], Sha256::digest(&bytes)[..]);

    assert_ne!(hash, chain_hash(&[1; 32], &game).unwrap());
    let mut other = game;
    other.desk_id = 8;
    assert_ne!(hash, chain_hash(&CHAIN_START, &other).unwrap());
    let mut other = game;
    other.nonce = 1;
    assert_ne!(hash, chain_hash(&CHAIN_START, &other).unwrap());
    let mut other = game;
    other.leader = dealt.leader as i16 % 3 + 1;
    assert_ne!(hash, chain_hash(&CHAIN_START, &other).unwrap());
    let mut swapped = dealt.hands[0];
    swapped.swap(0, 1);
    let mut other = game;
    other.hands[0] = &swapped;
    assert_ne!(hash, chain_hash(&CHAIN_START, &other).unwrap());

    let short = &dealt.hands[0][..16];
    let mut other = game;
    other.hands[0] = short;
    assert_eq!(
        chain_hash(&CHAIN_START, &other).unwrap_err(),
        "it holds a hand of 16 cards"
    );
    let mut bad = dealt.hands[1];
    bad[3] = 55;
    let mut other = game;
    other.hands[1] = &bad;
    assert_eq!(
        chain_hash(&CHAIN_START, &other).unwrap_err(),
        "it holds 55, which is not a card"
    );
}

#[test]
fn check_game_finds_each_kind_of_tampering() {
    let seed: ServerSeed = [3; 32];
    let c = commitment(&seed);
    let dealt = deal(&seed, &[b"a", b"", "Zoë".as_bytes()], 4);
    let game = record(&dealt, &c, 4);
    let hash = chain_hash(&CHAIN_START, &game).unwrap();
    assert!(check_game(&game, &CHAIN_START, Some(&hash), Some(&seed)).is_empty());
    assert!(check_game(&game, &CHAIN_START, Some(&hash), None).is_empty());

    // Another deal under the same nonce, with its hash recomputed to match: the chain holds,
    // the revealed seed does not.
    let forged = DouDizhuDeal::deal(&mut Stream::from_seed([1; 32]));
    let rewritten = record(&forged, &c, 4);
    let rehashed = chain_hash(&CHAIN_START, &rewritten).unwrap();
    assert!(check_game(&rewritten, &CHAIN_START, Some(&rehashed), None).is_empty());
    let problems = check_game(&rewritten, &CHAIN_START, Some(&rehashed), Some(&seed));
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].starts_with("the recorded cards or first bidder"),
        "{problems:?}"
    );

    // The same record after a different predecessor: the link is broken.
    let problems = check_game(&game, &[5; 32], Some(&hash), Some(&seed));
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].starts_with("the chain is broken here"),
        "{problems:?}"
    );

    // A revealed seed that is not the committed one.
    let problems = check_game(&game, &CHAIN_START, Some(&hash), Some(&[4; 32]));
    assert_eq!(
        problems,
        ["the revealed server seed does not match the recorded commitment"]
    );
}

/// Fair deals as a card room makes them: a new server seed every 100 deals, the three client
/// seeds changing now and then, nonces counting up; everything drawn from a seeded stream.
fn room_deals(count: usize, seed: u8, mut each: impl FnMut(&ServerSeed, [&[u8]; 3], u64)) {
    let mut stream = Stream::from_seed([seed; 32]);
    let mut server: ServerSeed = [0; 32];
    let mut clients = [String::new(), String::new(), String::new()];
    for n in 0..count {
        if n % 100 == 0 {
            server = std::array::from_fn(|_| stream.next_u32() as u8);
        }
        if n % 7 == 0 {
            clients[stream.below(3) as usize] = format!("player seed {}", stream.next_u32());
        }
        let seeds = [
            clients[0].as_bytes(),
            clients[1].as_bytes(),
            clients[2].as_bytes(),
        ];
        each(&server, seeds, (n % 100) as u64);
    }
}

fn cards_from_zero(hand: &[i32]) -> Vec<usize> {
    hand.iter().map(|&c| c as usize - 1).collect()
}

#[test]
fn fair_deals_send_each_card_everywhere_17_17_17_3_and_a_modulo_protocol_is_caught() {
    let deals = 20_000;
    let mut fair = Destinations::default();
    room_deals(deals, 31, |server, seeds, nonce| {
        let d = deal(server, &seeds, nonce);
        let [p1, p2, p3] = d.hands.map(|h| cards_from_zero(&h));
        fair.record_hands([&p1, &p2, &p3, &cards_from_zero(&d.extra)]);
    });
    let test = fair.test();
    assert_eq!(test.df, 159);
    assert!(test.p_value > ALPHA, "fair deals rejected: {test:?}");

    // The same keys scaled the way many published protocols do: one byte of the stream `% (i+1)`
    // per Fisher-Yates step. Its modulo bias must show.
    let mut modulo = Destinations::default();
    room_deals(deals, 31, |server, seeds, nonce| {
        let mut stream = Stream::from_seed(deal_key(server, &seeds, nonce));
        let mut deck: Vec<usize> = (0..DECK_SIZE).collect();
        dealcards_fairness::byte_modulo_fisher_yates(&mut deck, &mut stream);
        modulo.record_deck(&deck);
    });
    let test = modulo.test();
    assert!(
        test.p_value < ALPHA,
        "modulo-scaled deals not caught: {test:?}"
    );
}

#[test]
fn fair_leaders_are_uniform_and_a_hex_digit_modulo_draw_is_caught() {
    let deals = 60_000;
    let mut fair = Leaders::default();
    room_deals(deals, 32, |server, seeds, nonce| {
        fair.record(deal(server, &seeds, nonce).leader as usize - 1);
    });
    let test = fair.test();
    assert_eq!(test.df, 2);
    assert!(
        test.p_value > ALPHA,
        "fair first bidders rejected: {test:?}"
    );
    // The first bidder as the key's first hex digit % 3: seat 1 gets 6 digits in 16, the others
    // 5. Over 60,000 deals the expected chi-square is about 470 (df 2; p = 1e-4 needs 18.4).
    let mut biased = Leaders::default();
    room_deals(deals, 32, |server, seeds, nonce| {
        biased.record((deal_key(server, &seeds, nonce)[0] >> 4) as usize % 3);
    });
    let test = biased.test();
    assert!(
        test.p_value < ALPHA,
        "hex digit modulo not caught: {test:?}"
    );
    // The fair first bidder is the draw after the 53 shuffle draws on the key's stream.
    room_deals(10, 33, |server, seeds, nonce| {
        let mut stream = Stream::from_seed(deal_key(server, &seeds, nonce));
        let mut deck = crate::cards::new_deck();
        crate::shuffle::fisher_yates(&mut deck, &mut stream, &mut || {});
        assert_eq!(deal(server, &seeds, nonce).leader, leader(&mut stream));
    });
}

fn bytes_of_hex(text: &str) -> Vec<u8> {
    hex::decode(text).unwrap()
}

/// Deals and chain hashes computed by tools/verify_deal.py, a separate implementation of
/// docs/provably_fair.md that shares no code with this crate.
const GOLDEN: &str = include_str!("../../../../tests/reference/fair_golden.json");

/// tests/reference/fair_golden.json, as tests/reference/fair_golden.py writes it: any other
/// field is refused, so that none goes unchecked.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Golden {
    #[allow(dead_code)]
    about: String,
    deals: Vec<GoldenDeal>,
    chain: Vec<GoldenLink>,
}

/// A deal: its inputs, the commitment, deal message and key, and what it deals.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct GoldenDeal {
    name: String,
    server_seed: String,
    commitment: String,
    client_seeds: [String; 3],
    nonce: u64,
    message: String,
    key: String,
    p1_cards: Vec<i32>,
    p2_cards: Vec<i32>,
    p3_cards: Vec<i32>,
    extra_cards: Vec<i32>,
    leader: i64,
}

/// A link of a desk's chain: a recorded game (with its players from protocol 2 on), the hash
/// before it and its own.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct GoldenLink {
    name: String,
    prev_hash: String,
    desk: i32,
    commitment: String,
    nonce: i64,
    players: Option<[i64; 3]>,
    rules: Option<GoldenRules>,
    client_seeds: [String; 3],
    p1_cards: Vec<i32>,
    p2_cards: Vec<i32>,
    p3_cards: Vec<i32>,
    extra_cards: Vec<i32>,
    leader: i16,
    chain_hash: String,
}

/// A round's rules (protocol 3), reveal_by as published and in microseconds since 1970.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct GoldenRules {
    house_seats: Vec<i32>,
    seeds_required: bool,
    max_deals: i64,
    #[allow(dead_code)]
    reveal_by: Option<String>,
    reveal_by_micros: Option<i64>,
}

fn golden() -> Golden {
    serde_json::from_str(GOLDEN).unwrap()
}

#[test]
fn golden_deals_of_the_independent_implementation() {
    let deals = golden().deals;
    assert!(deals.len() >= 5);
    for case in deals {
        let name = &case.name;
        let seed = server_seed(&bytes_of_hex(&case.server_seed)).unwrap();
        let clients = case.client_seeds.each_ref().map(|s| s.as_bytes());
        let nonce = case.nonce;
        assert_eq!(hex::encode(commitment(&seed)), case.commitment, "{name}");
        assert_eq!(
            hex::encode(deal_message(&clients, nonce)),
            case.message,
            "{name}"
        );
        assert_eq!(
            hex::encode(deal_key(&seed, &clients, nonce)),
            case.key,
            "{name}"
        );
        let dealt = deal(&seed, &clients, nonce);
        assert_eq!(dealt.hands[0].to_vec(), case.p1_cards, "{name}");
        assert_eq!(dealt.hands[1].to_vec(), case.p2_cards, "{name}");
        assert_eq!(dealt.hands[2].to_vec(), case.p3_cards, "{name}");
        assert_eq!(dealt.extra.to_vec(), case.extra_cards, "{name}");
        assert_eq!(i64::from(dealt.leader), case.leader, "{name}");
    }
}

#[test]
fn golden_chain_hashes_of_the_independent_implementation() {
    let links = golden().chain;
    assert!(!links.is_empty());
    assert!(links.iter().any(|l| l.players.is_some()));
    assert!(links.iter().any(|l| l.players.is_none()));
    assert!(links.iter().any(|l| l.rules.is_some()));
    for case in links {
        let name = &case.name;
        let rules = case.rules.as_ref().map(|r| Rules {
            house: house_seats(&r.house_seats.iter().map(|&s| Some(s)).collect::<Vec<_>>())
                .unwrap(),
            seeds_required: r.seeds_required,
            max_deals: r.max_deals,
            reveal_by: r.reveal_by_micros,
        });
        let previous: Hash = bytes_of_hex(&case.prev_hash).try_into().unwrap();
        let commitment = bytes_of_hex(&case.commitment);
        let game = Recorded {
            desk_id: case.desk,
            commitment: &commitment,
            nonce: case.nonce,
            players: case.players,
            rules,
            client_seeds: case.client_seeds.each_ref().map(|s| s.as_bytes()),
            hands: [
                &case.p1_cards,
                &case.p2_cards,
                &case.p3_cards,
                &case.extra_cards,
            ],
            leader: case.leader,
        };
        assert_eq!(
            hex::encode(chain_hash(&previous, &game).unwrap()),
            case.chain_hash,
            "{name}"
        );
    }
}

#[test]
fn house_seats_are_seats_named_once() {
    assert_eq!(house_seats(&[]).unwrap(), [false; 3]);
    assert_eq!(
        house_seats(&[Some(3), Some(1)]).unwrap(),
        [true, false, true]
    );
    for (seats, error) in [
        (vec![Some(0)], "a house seat is 1 to 3, got 0"),
        (vec![Some(4)], "a house seat is 1 to 3, got 4"),
        (
            vec![Some(2), Some(2)],
            "seat 2 is named twice as a house seat",
        ),
        (vec![None], "a house seat cannot be NULL"),
    ] {
        assert_eq!(house_seats(&seats).unwrap_err().message, error);
    }
}

/// The end of the documented chain layout from protocol 2 on, written by hand: each seat's
/// player and length-prefixed seed, the 54 cards, the first bidder.
fn seats_cards_and_leader(
    bytes: &mut Vec<u8>,
    players: &[i64; 3],
    seeds: &[&[u8]; 3],
    game: &Recorded,
) {
    for (player, seed) in players.iter().zip(seeds) {
        bytes.extend(player.to_be_bytes());
        bytes.extend((seed.len() as u32).to_be_bytes());
        bytes.extend(*seed);
    }
    for hand in game.hands {
        bytes.extend(hand.iter().map(|&c| c as u8));
    }
    bytes.push(game.leader as u8);
}

#[test]
fn protocol_2_chains_each_seats_player_before_its_seed() {
    let seed: ServerSeed = [9; 32];
    let c = commitment(&seed);
    let seeds: [&[u8]; 3] = [b"a", b"", "Zoë".as_bytes()];
    let dealt = deal(&seed, &seeds, 0);
    let players = [101i64, -2, i64::MAX];
    let game = Recorded::of_deal(7, &c, 0, Some(players), None, seeds, &dealt);
    // Recomputed by hand from the documented layout.
    let mut bytes = CHAIN_START.to_vec();
    bytes.extend(7i32.to_be_bytes());
    bytes.extend(c);
    bytes.extend(0i64.to_be_bytes());
    seats_cards_and_leader(&mut bytes, &players, &seeds, &game);
    let hash = chain_hash(&CHAIN_START, &game).unwrap();
    assert_eq!(hash[..], Sha256::digest(&bytes)[..]);
    // Each player counts, and so does where each one sits.
    for changed in [[102, -2, i64::MAX], [-2, 101, i64::MAX]] {
        let mut other = game;
        other.players = Some(changed);
        assert_ne!(hash, chain_hash(&CHAIN_START, &other).unwrap());
    }
    // Protocol 1 hashes the same record without them.
    let mut v1 = game;
    v1.players = None;
    assert_ne!(hash, chain_hash(&CHAIN_START, &v1).unwrap());
}

#[test]
fn protocol_3_chains_the_rules_after_the_commitment() {
    let seed: ServerSeed = [9; 32];
    let c = commitment(&seed);
    let seeds: [&[u8]; 3] = [b"a", b"b", b""];
    let dealt = deal(&seed, &seeds, 5);
    let players = [101i64, -2, i64::MAX];
    let rules = Rules {
        house: [false, false, true],
        seeds_required: true,
        max_deals: 1000,
        reveal_by: Some(-1),
    };
    let game = Recorded::of_deal(7, &c, 5, Some(players), Some(rules), seeds, &dealt);
    // Recomputed by hand from the documented layout.
    let mut bytes = CHAIN_START.to_vec();
    bytes.extend(7i32.to_be_bytes());
    bytes.extend(c);
    bytes.extend([3, 4, 1]);
    bytes.extend(1000i64.to_be_bytes());
    bytes.push(1);
    bytes.extend([0xff; 8]);
    bytes.extend(5i64.to_be_bytes());
    seats_cards_and_leader(&mut bytes, &players, &seeds, &game);
    let hash = chain_hash(&CHAIN_START, &game).unwrap();
    assert_eq!(hash[..], Sha256::digest(&bytes)[..]);
    // Every rule counts: a rewrite of any one of them gives another hash.
    let rewritten = [
        Rules {
            house: [true, false, true],
            ..rules
        },
        Rules {
            house: [false, false, false],
            ..rules
        },
        Rules {
            seeds_required: false,
            ..rules
        },
        Rules {
            max_deals: 1001,
            ..rules
        },
        Rules {
            reveal_by: None,
            ..rules
        },
        Rules {
            reveal_by: Some(0),
            ..rules
        },
    ];
    for other_rules in rewritten {
        let mut other = game;
        other.rules = Some(other_rules);
        assert_ne!(
            hash,
            chain_hash(&CHAIN_START, &other).unwrap(),
            "{other_rules:?}"
        );
    }
    // No time limit is a zero byte and eight zero bytes, not the time 0.
    let none = Rules {
        reveal_by: None,
        ..rules
    };
    assert_eq!(none.encode()[11..], [0; 9]);
    // Protocol 2 hashes the same record without them.
    let mut v2 = game;
    v2.rules = None;
    assert_ne!(hash, chain_hash(&CHAIN_START, &v2).unwrap());
}

#[test]
fn a_given_client_seed_is_not_empty() {
    assert!(check_given_client_seed(1, b"a").is_ok());
    assert_eq!(
        check_given_client_seed(2, b"").unwrap_err().message,
        "the client seed of seat 2 is empty: '' is the seed of a seat whose player gave none"
    );
    assert!(check_given_client_seed(3, &[b'a'; 257]).is_err());
    // The recomputation still takes the empty seed of a seat without one.
    assert!(check_client_seed(1, b"").is_ok());
}

#[test]
fn a_round_has_a_players_seat() {
    assert!(house_seats(&[Some(1), Some(2)]).is_ok());
    assert_eq!(
        house_seats(&[Some(1), Some(2), Some(3)]).unwrap_err().message,
        "every seat is a house seat: a round has at least one player's seat, whose seed the house cannot choose"
    );
}
