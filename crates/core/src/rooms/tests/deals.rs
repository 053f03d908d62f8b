//! Each built-in kind dealt from keys: card counts, every card once, and burns, boards, dead
//! walls and draws at the places the rules give (typed from the rules, not from the code).

use super::*;
use crate::deal::DouDizhuDeal;
use crate::rng::Stream;
use crate::rooms::bridge::{pbn_deal, Board, Vulnerability};
use crate::rooms::kinds::{self, DEAD_WALL_TILES};

#[test]
fn dou_dizhu_as_a_plan_deals_what_deal_rs_deals() {
    for k in 0..200 {
        let key = if k == 0 { COUNTING } else { key(k) };
        let deal = DouDizhuDeal::deal(&mut Stream::from_seed(key));
        let mut hand = Hand::new(kinds::dou_dizhu(), 3, key).unwrap();
        let dealt = hand.deal_next().unwrap();
        let card_numbers =
            |cards: Vec<&Dealt>| -> Vec<i32> { cards.iter().map(|d| d.card as i32 + 1).collect() };
        for seat in 1..=3 {
            assert_eq!(
                card_numbers(to_seat(&dealt, seat)),
                deal.hands[seat - 1],
                "key {k}, seat {seat}"
            );
        }
        assert_eq!(
            card_numbers(to_pile(&dealt, Pile::Kitty)),
            deal.extra,
            "key {k}"
        );
        assert_eq!(hand.left(), 0);
        assert!(hand.next_stage().is_none());
    }
}

/// Hold'em-like hands: `hole` cards each, one at a time from the button's left, then burn and
/// flop, burn and turn, burn and river, at the positions the rules give.
fn check_community(kind: Kind, seats: usize, hole: usize, key: [u8; 32]) -> Vec<Dealt> {
    for button in 1..=seats {
        let mut hand = Hand::new(kind.clone(), button, key).unwrap();
        let dealt = deal_all(&mut hand);
        assert_each_once(&hand, &dealt);
        let n = seats * hole;
        for (p, d) in dealt[..n].iter().enumerate() {
            // Position p goes to the (p mod seats)-th seat after the button, counting from 1.
            assert_eq!(
                d.to,
                Destination::Seat((button - 1 + p % seats + 1) % seats + 1)
            );
            assert!(!d.up);
        }
        let piles: Vec<(usize, Destination, bool)> = dealt[n..]
            .iter()
            .map(|d| (d.position, d.to, d.up))
            .collect();
        let (burn, board) = (
            Destination::Pile(Pile::Burn),
            Destination::Pile(Pile::Board),
        );
        let expected = [
            (0, burn, false),
            (1, board, true),
            (2, board, true),
            (3, board, true),
            (4, burn, false),
            (5, board, true),
            (6, burn, false),
            (7, board, true),
        ];
        assert_eq!(piles, expected.map(|(p, to, up)| (n + p, to, up)));
        assert_eq!(hand.left(), kind.deck().len() - n - 8);
    }
    Hand::new(kind, 1, key)
        .map(|mut h| deal_all(&mut h))
        .unwrap()
}

#[test]
fn holdem_omaha_and_short_deck_deal_hole_cards_then_burn_and_turn() {
    for seats in 2..=10 {
        check_community(kinds::holdem(seats).unwrap(), seats, 2, key(seats as u64));
        check_community(kinds::omaha(seats).unwrap(), seats, 4, key(seats as u64));
        let short = kinds::short_deck_holdem(seats).unwrap();
        let dealt = check_community(short.clone(), seats, 2, key(seats as u64));
        assert!(dealt.iter().all(|d| d.card < 36));
    }
    for seats in [0, 1, 11] {
        let err = kinds::holdem(seats).unwrap_err();
        assert_eq!(
            err.message,
            format!("Texas Hold'em is dealt to 2 to 10 seats, got {seats}")
        );
    }
}

#[test]
fn holdem_six_seats_by_hand() {
    // Typed from the rules: button on seat 4, so seats 5, 6, 1, 2, 3, 4 get their first cards at
    // positions 0 to 5 and their second at 6 to 11; burns at 12, 16, 18; the board 13-15, 17, 19.
    let mut hand = Hand::new(kinds::holdem(6).unwrap(), 4, COUNTING).unwrap();
    let hole = hand.deal_stage("hole").unwrap();
    let seats: Vec<Destination> = hole.iter().map(|d| d.to).collect();
    assert_eq!(
        seats,
        [5, 6, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4].map(Destination::Seat)
    );
    let flop: Vec<usize> = hand
        .deal_stage("flop")
        .unwrap()
        .iter()
        .map(|d| d.position)
        .collect();
    assert_eq!(flop, [12, 13, 14, 15]);
    let turn: Vec<usize> = hand
        .deal_stage("turn")
        .unwrap()
        .iter()
        .map(|d| d.position)
        .collect();
    assert_eq!(turn, [16, 17]);
    let river: Vec<usize> = hand
        .deal_stage("river")
        .unwrap()
        .iter()
        .map(|d| d.position)
        .collect();
    assert_eq!(river, [18, 19]);
    assert_eq!(hand.position(), 20);
}

#[test]
fn seven_card_stud_deals_up_and_down_and_shares_seventh_when_short() {
    for seats in 2..=8 {
        let mut hand = Hand::new(
            kinds::seven_card_stud(seats).unwrap(),
            1,
            key(40 + seats as u64),
        )
        .unwrap();
        let third = hand.deal_stage("third").unwrap();
        // Two down each, then one up each.
        let up: Vec<bool> = third.iter().map(|d| d.up).collect();
        assert_eq!(up, [vec![false; 2 * seats], vec![true; seats]].concat());
        for street in ["fourth", "fifth", "sixth"] {
            let cards = hand.deal_stage(street).unwrap();
            assert_eq!(cards.len(), seats);
            assert!(cards.iter().all(|d| d.up));
        }
        let seventh = hand.deal_stage("seventh").unwrap();
        if seats == 8 {
            // 48 dealt, 4 left for eight seats: one card to the board, face up.
            assert_eq!(seventh.len(), 1);
            assert_eq!(
                (seventh[0].to, seventh[0].up, seventh[0].position),
                (Destination::Pile(Pile::Board), true, 48)
            );
        } else {
            assert_eq!(seventh.len(), seats);
            assert!(seventh
                .iter()
                .all(|d| !d.up && matches!(d.to, Destination::Seat(_))));
        }
    }
}

#[test]
fn folded_seats_get_no_more_cards() {
    let mut hand = Hand::new(kinds::seven_card_stud(8).unwrap(), 1, key(50)).unwrap();
    hand.deal_stage("third").unwrap();
    hand.fold(3).unwrap();
    hand.fold(6).unwrap();
    let fourth = hand.deal_stage("fourth").unwrap();
    let seats: Vec<Destination> = fourth.iter().map(|d| d.to).collect();
    assert_eq!(seats, [2, 4, 5, 7, 8, 1].map(Destination::Seat));
    hand.deal_stage("fifth").unwrap();
    hand.deal_stage("sixth").unwrap();
    // 24 + 3 * 6 = 42 dealt, 10 left: six seats still in each get their seventh card.
    assert_eq!(hand.deal_stage("seventh").unwrap().len(), 6);
}

#[test]
fn five_card_draw_replaces_from_the_stub_in_seat_order() {
    let mut hand = Hand::new(kinds::five_card_draw(4).unwrap(), 2, key(60)).unwrap();
    assert_eq!(hand.deal_stage("deal").unwrap().len(), 20);
    assert!(hand.deal_stage("draw").unwrap().is_empty());
    hand.fold(4).unwrap();
    // From the dealer's (seat 2's) left: seat 3, (seat 4 folded), seat 1, seat 2.
    let three = hand.draw(3, 2).unwrap();
    assert_eq!(
        three.iter().map(|d| d.position).collect::<Vec<_>>(),
        [20, 21]
    );
    assert!(hand.draw(1, 0).unwrap().is_empty());
    let two = hand.draw(2, 5).unwrap();
    assert_eq!(
        two.iter().map(|d| d.position).collect::<Vec<_>>(),
        [22, 23, 24, 25, 26]
    );
    assert_eq!(to_seat(&two, 2).len(), 5);
    assert_eq!(hand.position(), 27);
}

#[test]
fn a_blackjack_shoe_burns_one_then_draws_past_the_cut_card_to_the_end() {
    // Six decks, the cut card at 75% penetration: after 234 of the 312 cards.
    let mut hand = Hand::new(kinds::blackjack(6, 234, 3).unwrap(), 1, key(70)).unwrap();
    assert_eq!(hand.kind().deck().len(), 312);
    let burn = hand.deal_stage("burn").unwrap();
    assert_eq!(
        (burn.len(), burn[0].to, burn[0].position),
        (1, Destination::Pile(Pile::Burn), 0)
    );
    hand.deal_stage("play").unwrap();
    let mut dealt = burn;
    while !hand.cut_card_out() {
        assert!(hand.position() < 234);
        dealt.extend(hand.draw(hand.position() % 3 + 1, 1).unwrap());
    }
    assert_eq!(
        hand.position(),
        234,
        "the cut card comes out after 234 cards"
    );
    // The round in progress goes on past it; the shoe holds 312 cards and no more.
    dealt.extend(hand.draw(2, 78).unwrap());
    assert_each_once(&hand, &dealt);
    assert_eq!(
        hand.draw(1, 1).unwrap_err().message,
        "stage \"play\" needs 1 more cards, and the deck has 0 left"
    );
    for cut in [0, 313] {
        let err = kinds::blackjack(6, cut, 3).unwrap_err();
        assert_eq!(
            err.message,
            format!("blackjack, 6 decks: the cut card goes after 1 to 312 cards, got {cut}")
        );
    }
    assert_eq!(
        kinds::blackjack(9, 100, 3).unwrap_err().message,
        "a shoe holds 1 to 8 decks, got 9"
    );
}

#[test]
fn bridge_boards_follow_the_laws() {
    // Law 2's table, typed from the Laws of Duplicate Bridge: board, dealer, vulnerable.
    use Vulnerability::{Both, EastWest as EW, None, NorthSouth as NS};
    let laws = [
        (1, 'N', None),
        (2, 'E', NS),
        (3, 'S', EW),
        (4, 'W', Both),
        (5, 'N', NS),
        (6, 'E', EW),
        (7, 'S', Both),
        (8, 'W', None),
        (9, 'N', EW),
        (10, 'E', Both),
        (11, 'S', None),
        (12, 'W', NS),
        (13, 'N', Both),
        (14, 'E', None),
        (15, 'S', NS),
        (16, 'W', EW),
        (17, 'N', None),
        (18, 'E', NS),
        (32, 'W', EW),
        (33, 'N', None),
    ];
    for (number, dealer, vulnerability) in laws {
        let board = Board::new(number).unwrap();
        assert_eq!(
            "NESW".chars().nth(board.dealer - 1),
            Some(dealer),
            "board {number}"
        );
        assert_eq!(board.vulnerability, vulnerability, "board {number}");
    }
    assert_eq!(
        Board::new(0).unwrap_err().message,
        "bridge boards are numbered from 1"
    );
    assert_eq!(
        [None, NS, EW, Both].map(Vulnerability::pbn),
        ["None", "NS", "EW", "All"]
    );
}

#[test]
fn a_bridge_board_deals_13_each_from_the_dealers_left() {
    for number in 1..=16 {
        let board = Board::new(number).unwrap();
        let mut hand = Hand::new(kinds::bridge(), board.dealer, key(80 + number as u64)).unwrap();
        let dealt = deal_all(&mut hand);
        assert_each_once(&hand, &dealt);
        assert_eq!(dealt.len(), 52);
        assert_eq!(
            dealt[0].to,
            Destination::Seat(board.dealer % 4 + 1),
            "board {number}"
        );
        assert_eq!(
            dealt[3].to,
            Destination::Seat(board.dealer),
            "the dealer gets the fourth card"
        );
        let pbn = pbn_deal(&dealt, board.dealer);
        assert!(pbn.starts_with(&format!("{}:", "NESW".as_bytes()[board.dealer - 1] as char)));
        // 4 hands of 4 suits, 13 cards each.
        let hands: Vec<&str> = pbn[2..].split(' ').collect();
        assert_eq!(hands.len(), 4);
        assert!(hands
            .iter()
            .all(|h| h.split('.').count() == 4 && h.len() == 13 + 3));
    }
}

#[test]
fn four_by_thirteen_and_guandan_deal_everything() {
    let mut hand = Hand::new(kinds::four_by_thirteen("spades"), 4, key(90)).unwrap();
    let dealt = deal_all(&mut hand);
    assert_each_once(&hand, &dealt);
    assert!((1..=4).all(|seat| to_seat(&dealt, seat).len() == 13));
    let mut hand = Hand::new(kinds::guandan(), 1, key(91)).unwrap();
    let dealt = deal_all(&mut hand);
    assert_each_once(&hand, &dealt);
    assert_eq!(dealt.len(), 108);
    assert!((1..=4).all(|seat| to_seat(&dealt, seat).len() == 27));
    assert_eq!(hand.left(), 0);
}

#[test]
fn riichi_sets_the_dead_wall_aside_deals_in_packets_and_draws_the_live_wall() {
    for dealer in 1..=4 {
        let mut hand = Hand::new(kinds::riichi(false), dealer, key(100 + dealer as u64)).unwrap();
        let dead = hand.deal_stage("dead wall").unwrap();
        // The last 14 tiles of the wall, in the wall's order.
        assert_eq!(
            dead.iter().map(|d| d.position).collect::<Vec<_>>(),
            (122..136).collect::<Vec<_>>()
        );
        let deal = hand.deal_stage("deal").unwrap();
        assert_eq!(deal.len(), 52);
        // Packets of four from the dealer round the table, three times, then one each.
        let first: Vec<Destination> = deal.iter().step_by(4).take(4).map(|d| d.to).collect();
        let order: Vec<usize> = (0..4).map(|k| (dealer - 1 + k) % 4 + 1).collect();
        assert_eq!(
            first,
            order
                .iter()
                .map(|&s| Destination::Seat(s))
                .collect::<Vec<_>>()
        );
        assert_eq!(
            deal[4..8].iter().map(|d| d.to).collect::<Vec<_>>(),
            [Destination::Seat(order[1]); 4]
        );
        assert_eq!(
            deal[48..].iter().map(|d| d.to).collect::<Vec<_>>(),
            order
                .iter()
                .map(|&s| Destination::Seat(s))
                .collect::<Vec<_>>()
        );
        let fourteenth = hand.deal_stage("dealer").unwrap();
        assert_eq!(
            (fourteenth[0].to, fourteenth[0].position),
            (Destination::Seat(dealer), 52)
        );
        hand.deal_stage("draws").unwrap();
        // The live wall: 136 - 14 - 53 = 69 draws, then the dead wall is not drawn.
        let mut drawn = [dead, deal, fourteenth].concat();
        for turn in 0..69 {
            drawn.extend(hand.draw((dealer + turn) % 4 + 1, 1).unwrap());
        }
        assert_each_once(&hand, &drawn);
        assert_eq!(drawn.len(), DEAD_WALL_TILES + 53 + 69);
        let err = hand.draw(1, 1).unwrap_err();
        assert_eq!(
            err.message,
            "stage \"draws\" needs 1 more cards, and the deck has 0 left"
        );
        assert!(ends_in_draws(hand.kind()));
    }
}

#[test]
fn the_order_of_a_key_is_the_seeded_permutation_of_the_indexes() {
    // shuffle.rs pins permute_range(1, 54) of the counting key to this start, computed by
    // tests/reference/seeded_shuffle.py: the 54-card order is it minus one.
    let hand = Hand::new(kinds::dou_dizhu(), 3, COUNTING).unwrap();
    assert_eq!(hand.order()[..8], [8, 28, 15, 42, 31, 48, 0, 23]);
    for (kind, k) in [
        (kinds::riichi(true), 1),
        (kinds::blackjack(8, 300, 2).unwrap(), 2),
        (kinds::guandan(), 3),
    ] {
        let n = kind.deck().len();
        let mut expected = vec![0i32; n];
        crate::shuffle::permute_range(&mut expected, 0, &mut Stream::from_seed(key(k)), &mut || {});
        let hand = Hand::new(kind, 1, key(k)).unwrap();
        assert_eq!(
            hand.order().iter().map(|&c| c as i32).collect::<Vec<_>>(),
            expected
        );
    }
}
