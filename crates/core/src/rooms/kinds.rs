//! The built-in kinds of game: their decks and plans as the rules of each game deal them.

use crate::error::Error;

use super::deck::Deck;
use super::plan::{Draws, Kind, Order, Pile, Stage, Step};

/// Cards a Hold'em seat is dealt face down.
pub const HOLDEM_HOLE_CARDS: usize = 2;
/// Cards an Omaha seat is dealt face down.
pub const OMAHA_HOLE_CARDS: usize = 4;
/// The tiles of riichi mahjong's dead wall.
pub const DEAD_WALL_TILES: usize = 14;
/// Places in the dead wall (0 the first tile after the live wall) of the dora indicators, the
/// first turned at the deal, one more after each kan.
pub const DORA_INDICATORS: [usize; 5] = [8, 6, 4, 2, 0];
/// The places under them: the ura-dora indicators.
pub const URA_DORA_INDICATORS: [usize; 5] = [9, 7, 5, 3, 1];
/// The places of the replacement tiles drawn after a kan, in the order drawn.
pub const KAN_REPLACEMENTS: [usize; 4] = [12, 13, 10, 11];

/// `count` cards to each seat one at a time from the dealer's left.
fn each_seat(count: usize, up: bool) -> Step {
    Step::EachSeat {
        count,
        order: Order::OneAtATime,
        from: 1,
        up,
        short_to_board: false,
    }
}

fn pile(pile: Pile, count: usize) -> Step {
    Step::ToPile { pile, count }
}

fn check_seats(
    game: &str,
    seats: usize,
    range: std::ops::RangeInclusive<usize>,
) -> Result<(), Error> {
    if range.contains(&seats) {
        Ok(())
    } else {
        Err(Error::invalid(format!(
            "{game} is dealt to {} to {} seats, got {seats}",
            range.start(),
            range.end()
        )))
    }
}

/// Hole cards one at a time from the dealer's (the button's) left, then a burn before the
/// flop (3), the turn and the river.
fn community(name: &str, deck: Deck, seats: usize, hole: usize) -> Result<Kind, Error> {
    check_seats(name, seats, 2..=10)?;
    let street = |name: &str, cards: usize| {
        Stage::deal(name, vec![pile(Pile::Burn, 1), pile(Pile::Board, cards)])
    };
    let stages = vec![
        Stage::deal("hole", vec![each_seat(hole, false)]),
        street("flop", 3),
        street("turn", 1),
        street("river", 1),
    ];
    Kind::new(name, deck, seats, stages, None)
}

/// Texas Hold'em, 2 to 10 seats: stages `hole`, `flop`, `turn`, `river`.
pub fn holdem(seats: usize) -> Result<Kind, Error> {
    community("Texas Hold'em", Deck::standard(), seats, HOLDEM_HOLE_CARDS)
}

/// Omaha: Hold'em's stages with four hole cards, 2 to 10 seats.
pub fn omaha(seats: usize) -> Result<Kind, Error> {
    community("Omaha", Deck::standard(), seats, OMAHA_HOLE_CARDS)
}

/// Short-deck Hold'em: Hold'em's stages from the 36-card deck, 2 to 10 seats.
pub fn short_deck_holdem(seats: usize) -> Result<Kind, Error> {
    community(
        "short-deck Hold'em",
        Deck::short(),
        seats,
        HOLDEM_HOLE_CARDS,
    )
}

/// Seven-card stud, 2 to 8 seats, without burns: `third` (two down, one up), `fourth` to
/// `sixth` (one up), `seventh` (one down; one card to the board for all when the deck is short,
/// as with eight seats still in: 48 cards dealt, 4 left).
pub fn seven_card_stud(seats: usize) -> Result<Kind, Error> {
    check_seats("seven-card stud", seats, 2..=8)?;
    let stages = vec![
        Stage::deal("third", vec![each_seat(2, false), each_seat(1, true)]),
        Stage::deal("fourth", vec![each_seat(1, true)]),
        Stage::deal("fifth", vec![each_seat(1, true)]),
        Stage::deal("sixth", vec![each_seat(1, true)]),
        Stage::deal(
            "seventh",
            vec![Step::EachSeat {
                count: 1,
                order: Order::OneAtATime,
                from: 1,
                up: false,
                short_to_board: true,
            }],
        ),
    ];
    Kind::new("seven-card stud", Deck::standard(), seats, stages, None)
}

/// Five-card draw, 2 to 6 seats: `deal` (five each), then `draw`, where each seat still in
/// replaces 0 to 5 cards from the stub, in turn from the dealer's left.
pub fn five_card_draw(seats: usize) -> Result<Kind, Error> {
    check_seats("five-card draw", seats, 2..=6)?;
    let stages = vec![
        Stage::deal("deal", vec![each_seat(5, false)]),
        Stage::draw("draw", Draws::InTurn { max: 5 }),
    ];
    Kind::new("five-card draw", Deck::standard(), seats, stages, None)
}

/// A blackjack shoe of 1 to 8 decks for 1 to 8 hands (the house's among them, as the game
/// numbers them), the cut card after `cut` cards: `burn` (one card), then `play`, free draws to
/// any hand until the game ends the shoe (after the round in which the cut card comes out).
pub fn blackjack(decks: usize, cut: usize, seats: usize) -> Result<Kind, Error> {
    check_seats("a blackjack shoe", seats, 1..=8)?;
    let stages = vec![
        Stage::deal("burn", vec![pile(Pile::Burn, 1)]),
        Stage::draw("play", Draws::Free),
    ];
    Kind::new(
        format!("blackjack, {decks} decks"),
        Deck::shoe(decks)?,
        seats,
        stages,
        Some(cut),
    )
}

/// Bridge: 13 cards to each of North (1), East (2), South (3) and West (4), one at a time from
/// the dealer's left; the dealer and the vulnerability come from the board number
/// ([`super::bridge::Board`]).
pub fn bridge() -> Kind {
    four_by_thirteen("bridge")
}

/// A game of four hands of 13 (spades, hearts): bridge's plan.
pub fn four_by_thirteen(name: &str) -> Kind {
    let stages = vec![Stage::deal("deal", vec![each_seat(13, false)])];
    Kind::new(name, Deck::standard(), 4, stages, None).expect("four hands of 13 are the deck")
}

/// Guandan: two decks of 54, 27 cards to each of four seats, one at a time from the dealer's
/// left.
pub fn guandan() -> Kind {
    let stages = vec![Stage::deal("deal", vec![each_seat(27, false)])];
    Kind::new("Guandan", Deck::double_with_jokers(), 4, stages, None)
        .expect("four hands of 27 are the two decks")
}

/// Riichi mahjong for four: `dead wall` (the last 14 tiles of the wall, the dora indicator at
/// [`DORA_INDICATORS`]\[0\]), `deal` (13 tiles each in packets of 4, 4, 4, 1 from the dealer),
/// `dealer` (the dealer's 14th), then `draws`, free draws from the live wall.
pub fn riichi(red_fives: bool) -> Kind {
    let stages = vec![
        Stage::deal("dead wall", vec![pile(Pile::DeadWall, DEAD_WALL_TILES)]),
        Stage::deal(
            "deal",
            vec![Step::EachSeat {
                count: 13,
                order: Order::Packets(4),
                from: 0,
                up: false,
                short_to_board: false,
            }],
        ),
        Stage::deal(
            "dealer",
            vec![Step::ToSeat {
                offset: 0,
                count: 1,
                up: false,
            }],
        ),
        Stage::draw("draws", Draws::Free),
    ];
    Kind::new("riichi mahjong", Deck::riichi(red_fives), 4, stages, None)
        .expect("the deal fits in the wall")
}

/// Dou Dizhu as a plan: 17 cards to each of three seats in packets of 17 from seat 1 (the
/// dealer is seat 3), then 3 to the kitty: exactly the split of `deal`.
pub fn dou_dizhu() -> Kind {
    let stages = vec![Stage::deal(
        "deal",
        vec![
            Step::EachSeat {
                count: 17,
                order: Order::Packets(17),
                from: 1,
                up: false,
                short_to_board: false,
            },
            pile(Pile::Kitty, 3),
        ],
    )];
    Kind::new("Dou Dizhu", Deck::with_jokers(), 3, stages, None).expect("the deck is dealt whole")
}
