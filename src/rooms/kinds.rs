//! The kinds a hand can be started as, by name, with the options each takes: what
//! `room_kinds()` lists and `hand_start` checks, and how a stored hand's kind is built again.

use dealcards_core::error::Error;
use dealcards_core::rooms::bridge::Board;
use dealcards_core::rooms::{kinds, Kind};

/// Decks in a blackjack shoe when none is given.
pub const DEFAULT_SHOE_DECKS: usize = 6;
/// The share of a blackjack shoe dealt before the cut card when none is given.
pub const DEFAULT_PENETRATION: f64 = 0.75;

/// A kind by name: the seats it takes, its default dealer, and the options it takes.
pub struct Spec {
    pub name: &'static str,
    pub seats: (usize, usize),
    pub dealer: usize,
    pub options: &'static str,
}

const fn spec(name: &'static str, seats: (usize, usize), options: &'static str) -> Spec {
    Spec {
        name,
        seats,
        dealer: 1,
        options,
    }
}

/// Every kind, in the order `room_kinds()` lists them.
pub const SPECS: [Spec; 12] = [
    spec("holdem", (2, 10), ""),
    spec("omaha", (2, 10), ""),
    spec("short_deck", (2, 10), ""),
    spec("stud", (2, 8), ""),
    spec("five_card_draw", (2, 6), ""),
    spec(
        "blackjack",
        (1, 8),
        "decks (1 to 8, default 6), penetration (0 to 1, default 0.75)",
    ),
    spec("bridge", (4, 4), "board (1 or more, required)"),
    spec("four_hands", (4, 4), ""),
    spec("guandan", (4, 4), ""),
    spec("riichi", (4, 4), ""),
    spec("riichi_red_fives", (4, 4), ""),
    Spec {
        name: "dou_dizhu",
        seats: (3, 3),
        dealer: 3,
        options: "",
    },
];

/// The kind of this name, or a 22023 error naming the function that lists them.
pub fn spec_of(name: &str) -> Result<&'static Spec, Error> {
    SPECS.iter().find(|s| s.name == name).ok_or_else(|| {
        let shown: String = name.chars().take(40).collect();
        let more = if shown.len() < name.len() { "..." } else { "" };
        Error::invalid(format!(
            "there is no kind of hand {shown:?}{more}: room_kinds() lists them"
        ))
    })
}

/// The kind `name` for `seats`, with `decks` in a shoe and the cut card after `cut` cards.
pub fn build(name: &str, seats: usize, decks: usize, cut: usize) -> Result<Kind, Error> {
    let spec = spec_of(name)?;
    let (low, high) = spec.seats;
    if !(low..=high).contains(&seats) {
        let range = if low == high {
            low.to_string()
        } else {
            format!("{low} to {high}")
        };
        return Err(Error::invalid(format!(
            "{name} is dealt to {range} seats, got {seats}"
        )));
    }
    match name {
        "holdem" => kinds::holdem(seats),
        "omaha" => kinds::omaha(seats),
        "short_deck" => kinds::short_deck_holdem(seats),
        "stud" => kinds::seven_card_stud(seats),
        "five_card_draw" => kinds::five_card_draw(seats),
        "blackjack" => kinds::blackjack(decks, cut, seats),
        "bridge" => Ok(kinds::bridge()),
        "four_hands" => Ok(kinds::four_by_thirteen("four hands of 13")),
        "guandan" => Ok(kinds::guandan()),
        "riichi" => Ok(kinds::riichi(false)),
        "riichi_red_fives" => Ok(kinds::riichi(true)),
        _ => Ok(kinds::dou_dizhu()),
    }
}

/// What `hand_start` was given, before it is checked.
pub struct Asked<'a> {
    pub kind: &'a str,
    pub seats: Option<i32>,
    pub dealer: Option<i32>,
    pub board: Option<i32>,
    pub decks: Option<i32>,
    pub penetration: Option<f64>,
}

/// A hand's setup, checked: what its row stores, from which its kind is built again.
#[derive(Debug, Clone, PartialEq)]
pub struct Setup {
    pub kind: String,
    pub seats: usize,
    pub dealer: usize,
    pub board: Option<u32>,
    pub decks: Option<usize>,
    pub cut: Option<usize>,
}

/// A count given in SQL, which must not be negative.
fn count(what: &str, value: i32) -> Result<usize, Error> {
    usize::try_from(value).map_err(|_| Error::invalid(format!("{what} cannot be {value}")))
}

/// Refuses an option the kind does not take.
fn refuse_option(kind: &str, option: &str, given: bool, taker: &str) -> Result<(), Error> {
    if given {
        return Err(Error::invalid(format!(
            "{kind} takes no {option}: only {taker} does"
        )));
    }
    Ok(())
}

/// Checks what `hand_start` was given and builds the hand's kind.
pub fn setup(asked: &Asked<'_>) -> Result<(Setup, Kind), Error> {
    let spec = spec_of(asked.kind)?;
    let name = spec.name;
    let seats = match asked.seats {
        Some(seats) => count("a number of seats", seats)?,
        None if spec.seats.0 == spec.seats.1 => spec.seats.0,
        None => {
            return Err(Error::invalid(format!(
                "{name} needs its number of seats, {} to {}",
                spec.seats.0, spec.seats.1
            )))
        }
    };
    let shoe = name == "blackjack";
    refuse_option(name, "decks", !shoe && asked.decks.is_some(), "blackjack")?;
    refuse_option(
        name,
        "penetration",
        !shoe && asked.penetration.is_some(),
        "blackjack",
    )?;
    refuse_option(
        name,
        "board number",
        name != "bridge" && asked.board.is_some(),
        "bridge",
    )?;
    let (board, dealer) = if name == "bridge" {
        let number = asked
            .board
            .ok_or_else(|| Error::invalid("bridge needs its board number"))?;
        let board = Board::new(u32::try_from(number).unwrap_or(0))?;
        if asked.dealer.is_some_and(|d| d != board.dealer as i32) {
            return Err(Error::invalid(format!(
                "the dealer of bridge board {number} is seat {}: leave the dealer out",
                board.dealer
            )));
        }
        (Some(board.number), board.dealer)
    } else {
        let dealer = asked.dealer.unwrap_or(spec.dealer as i32);
        (None, count("the dealer's seat", dealer).unwrap_or(0))
    };
    let (decks, cut) = if shoe {
        let decks = count(
            "a number of decks",
            asked.decks.unwrap_or(DEFAULT_SHOE_DECKS as i32),
        )?;
        let penetration = asked.penetration.unwrap_or(DEFAULT_PENETRATION);
        if !(penetration > 0.0 && penetration <= 1.0) {
            return Err(Error::invalid(format!(
                "a shoe's penetration is more than 0 and at most 1, got {penetration}"
            )));
        }
        let cards = 52 * decks;
        let cut = ((penetration * cards as f64).round() as usize).max(1);
        (Some(decks), Some(cut))
    } else {
        (None, None)
    };
    let kind = build(name, seats, decks.unwrap_or(1), cut.unwrap_or(1))?;
    let setup = Setup {
        kind: name.to_string(),
        seats,
        dealer,
        board,
        decks,
        cut,
    };
    Ok((setup, kind))
}
