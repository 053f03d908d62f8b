//! Each kind dealt through the functions, as a game server, against the core's deal of the
//! hand's key: every card, where it went, in the order dealt, and every card once.

use dealcards_core::rooms::bridge::Board;
use dealcards_core::rooms::kinds;

use crate::hands::{
    assert_each_once, core_cards, deal, draw, key_of, room, start, stored_cards, Call,
};

/// A nine-seat Hold'em hand: hole cards, flop, turn and river, each call in its own
/// transaction, then the hand ended.
#[test]
fn a_nine_seat_holdem_hand_deals_the_cards_of_its_key() {
    let (mut admin, mut server) = room("dealcards_rooms_holdem", "dealcards_rooms_holdem_server");
    let hand = start(&mut server, "'holdem', 9, dealer => 4");
    let mut counts = Vec::new();
    for _ in 0..4 {
        counts.push(deal(&mut server, hand, None));
    }
    let expected_counts = [("hole", 18), ("flop", 4), ("turn", 2), ("river", 2)];
    let counts: Vec<(&str, i32)> = counts.iter().map(|(s, n)| (s.as_str(), *n)).collect();
    assert_eq!(counts, expected_counts);
    let stored = stored_cards(&mut server, hand);
    let key = key_of(&mut admin, hand);
    let expected = core_cards(kinds::holdem(9).unwrap(), 4, key, &[Call::Deal; 4]);
    assert_eq!(stored, expected);
    assert_each_once(&stored);
    assert_eq!(stored.iter().filter(|c| c.seat == Some(4)).count(), 2);
    assert_eq!(
        stored
            .iter()
            .filter(|c| c.pile.as_deref() == Some("board"))
            .count(),
        5
    );
    server.execute("SELECT hand_end($1)", &[&hand]).unwrap();
    let row = server
        .query_one(
            "SELECT ended, stage, stages_dealt, cards_dealt, cards_left FROM room_hand WHERE hand_id = $1",
            &[&hand],
        )
        .unwrap();
    assert!(row.get::<_, bool>(0));
    assert_eq!(row.get::<_, String>(1), "river");
    assert_eq!(row.get::<_, i16>(2), 4);
    assert_eq!((row.get::<_, i32>(3), row.get::<_, i32>(4)), (26, 26));
}

/// A bridge board: its number gives the dealer (board 3: South, seat 3), and the 52 cards go
/// 13 to each hand from the dealer's left.
#[test]
fn a_bridge_board_deals_from_its_dealers_left() {
    let (mut admin, mut server) = room("dealcards_rooms_bridge", "dealcards_rooms_bridge_server");
    let hand = start(&mut server, "'bridge', board => 3");
    assert_eq!(deal(&mut server, hand, None), ("deal".to_string(), 52));
    let dealer: i16 = server
        .query_one("SELECT dealer FROM room_hand WHERE hand_id = $1", &[&hand])
        .unwrap()
        .get(0);
    assert_eq!(dealer, 3);
    let stored = stored_cards(&mut server, hand);
    let board = Board::new(3).unwrap();
    let key = key_of(&mut admin, hand);
    assert_eq!(
        stored,
        core_cards(kinds::bridge(), board.dealer, key, &[Call::Deal])
    );
    assert_each_once(&stored);
    assert_eq!(stored[0].seat, Some(4), "the first card goes to West");
    // Its PBN, as written here from the labels the game server reads: board 3 is dealt by
    // South with East-West vulnerable, the hands from South round the table.
    let pbn: String = server
        .query_one("SELECT hand_pbn($1)", &[&hand])
        .unwrap()
        .get(0);
    assert_eq!(pbn, pbn_from_labels(&mut server, hand, "3", 'S', "EW"));
}

/// The PBN tags of a bridge board from its cards' labels (`Qh`, `Ts`): each hand spades,
/// hearts, diamonds, clubs, the ranks from the ace down, the hands from the dealer round the
/// table (seat 1 North).
fn pbn_from_labels(
    client: &mut postgres::Client,
    hand: i64,
    board: &str,
    dealer: char,
    vulnerable: &str,
) -> String {
    let cards: Vec<(i16, String)> = client
        .query(
            "SELECT seat, label FROM room_card WHERE hand_id = $1 ORDER BY dealt_no",
            &[&hand],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let seats = "NESW";
    let first = seats.find(dealer).unwrap();
    let hands: Vec<String> = (0..4)
        .map(|k| {
            let seat = ((first + k) % 4 + 1) as i16;
            "shdc"
                .chars()
                .map(|suit| {
                    "AKQJT98765432"
                        .chars()
                        .filter(|&rank| {
                            cards
                                .iter()
                                .any(|(s, l)| *s == seat && *l == format!("{rank}{suit}"))
                        })
                        .collect::<String>()
                })
                .collect::<Vec<_>>()
                .join(".")
        })
        .collect();
    format!(
        "[Board \"{board}\"]\n[Dealer \"{dealer}\"]\n[Vulnerable \"{vulnerable}\"]\n[Deal \"{dealer}:{}\"]",
        hands.join(" ")
    )
}

/// A blackjack shoe of two decks, its cut card after 75% (78 cards): a burn, then rounds of one
/// card to each of three hands until the cut card has come out; the round in progress is
/// finished. The result says when the cut card is out, and the cards are the key's.
#[test]
fn a_blackjack_shoe_deals_to_its_cut_card() {
    let (mut admin, mut server) = room("dealcards_rooms_shoe", "dealcards_rooms_shoe_server");
    let hand = start(
        &mut server,
        "'blackjack', 3, decks => 2, penetration => 0.75",
    );
    assert_eq!(deal(&mut server, hand, None), ("burn".to_string(), 1));
    assert_eq!(deal(&mut server, hand, None), ("play".to_string(), 0));
    let mut calls = vec![Call::Deal, Call::Deal];
    let (mut dealt, mut out) = (1, false);
    while !out {
        for seat in 1..=3 {
            let (cards, left, cut_out) = draw(&mut server, hand, seat, 1);
            calls.push(Call::Draw(seat as usize, 1));
            dealt += cards;
            assert_eq!(left, 104 - dealt);
            assert_eq!(cut_out, Some(dealt >= 78), "after {dealt} cards");
            out |= dealt >= 78;
        }
    }
    assert_eq!(dealt, 79, "the burn and 26 rounds of three");
    let stored = stored_cards(&mut server, hand);
    let key = key_of(&mut admin, hand);
    let kind = kinds::blackjack(2, 78, 3).unwrap();
    assert_eq!(stored, core_cards(kind, 1, key, &calls));
    assert_each_once(&stored);
}

/// Riichi mahjong with red fives, the dealer in seat 2: the dead wall first (the last 14 tiles),
/// the deal in packets of four from the dealer, the dealer's 14th tile, then draws from the live
/// wall.
#[test]
fn a_riichi_deal_sets_the_dead_wall_aside() {
    let (mut admin, mut server) = room("dealcards_rooms_riichi", "dealcards_rooms_riichi_server");
    let hand = start(&mut server, "'riichi_red_fives', dealer => 2");
    let stages: Vec<(String, i32)> = (0..4).map(|_| deal(&mut server, hand, None)).collect();
    let names: Vec<(&str, i32)> = stages.iter().map(|(s, n)| (s.as_str(), *n)).collect();
    assert_eq!(
        names,
        [("dead wall", 14), ("deal", 52), ("dealer", 1), ("draws", 0)]
    );
    let mut calls = vec![Call::Deal; 4];
    for seat in [3, 4, 1] {
        assert_eq!(draw(&mut server, hand, seat, 1).0, 1);
        calls.push(Call::Draw(seat as usize, 1));
    }
    let stored = stored_cards(&mut server, hand);
    let key = key_of(&mut admin, hand);
    assert_eq!(stored, core_cards(kinds::riichi(true), 2, key, &calls));
    assert_each_once(&stored);
    let wall: Vec<i32> = stored
        .iter()
        .filter(|c| c.pile.as_deref() == Some("dead wall"))
        .map(|c| c.position)
        .collect();
    assert_eq!(wall, (122..136).collect::<Vec<_>>());
    let left: i32 = server
        .query_one(
            "SELECT cards_left FROM room_hand WHERE hand_id = $1",
            &[&hand],
        )
        .unwrap()
        .get(0);
    assert_eq!(left, 69 - 3);
}

/// Five-card draw for three, the dealer in seat 1: the deal, then one draw each in turn from
/// the dealer's left, seat 3's of no card. Each call is replayed from the stored draws by the
/// next: a draw out of turn is refused, and the cards are the key's.
#[test]
fn five_card_draw_draws_in_turn() {
    let (mut admin, mut server) = room("dealcards_rooms_draw", "dealcards_rooms_draw_server");
    let hand = start(&mut server, "'five_card_draw', 3");
    assert_eq!(deal(&mut server, hand, None), ("deal".to_string(), 15));
    assert_eq!(deal(&mut server, hand, None), ("draw".to_string(), 0));
    assert_eq!(draw(&mut server, hand, 2, 3).0, 3);
    assert_eq!(draw(&mut server, hand, 3, 0).0, 0);
    let err = server
        .query("SELECT * FROM hand_draw($1, 3, 1)", &[&hand])
        .expect_err("seat 3 drew twice");
    assert_eq!(
        err.as_db_error().unwrap().message(),
        "it is seat 1's turn to draw in stage \"draw\", not seat 3's"
    );
    assert_eq!(draw(&mut server, hand, 1, 5).0, 5);
    let calls = [
        Call::Deal,
        Call::Deal,
        Call::Draw(2, 3),
        Call::Draw(3, 0),
        Call::Draw(1, 5),
    ];
    let stored = stored_cards(&mut server, hand);
    let key = key_of(&mut admin, hand);
    assert_eq!(
        stored,
        core_cards(kinds::five_card_draw(3).unwrap(), 1, key, &calls)
    );
    assert_each_once(&stored);
}
