//! Bridge boards: the dealer and the vulnerability a board number gives (the Laws of Duplicate
//! Bridge, Law 2), and a bridge deal written as PBN's deal tag.

use crate::error::Error;

use super::hand::{Dealt, Destination};

/// The seats in bridge's order, as PBN names them: seat 1 is North.
pub const SEATS: [char; 4] = ['N', 'E', 'S', 'W'];

/// Who is vulnerable on a board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vulnerability {
    None,
    NorthSouth,
    EastWest,
    Both,
}

impl Vulnerability {
    /// As PBN's Vulnerable tag writes it: `None`, `NS`, `EW`, `All`.
    pub fn pbn(self) -> &'static str {
        match self {
            Vulnerability::None => "None",
            Vulnerability::NorthSouth => "NS",
            Vulnerability::EastWest => "EW",
            Vulnerability::Both => "All",
        }
    }
}

/// A board: its number, its dealer (seat 1 to 4, North first) and its vulnerability.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Board {
    pub number: u32,
    pub dealer: usize,
    pub vulnerability: Vulnerability,
}

impl Board {
    /// Board `number` (1 or more): the dealer goes round N, E, S, W with the board number; the
    /// vulnerability runs a cycle of 16 boards, each group of four shifted one place from the
    /// last (none, NS, EW, both; then NS, EW, both, none; ...).
    pub fn new(number: u32) -> Result<Self, Error> {
        if number == 0 {
            return Err(Error::invalid("bridge boards are numbered from 1"));
        }
        let i = (number - 1) as usize;
        let vulnerability = [
            Vulnerability::None,
            Vulnerability::NorthSouth,
            Vulnerability::EastWest,
            Vulnerability::Both,
        ][(i % 4 + i / 4 % 4) % 4];
        Ok(Board {
            number,
            dealer: i % 4 + 1,
            vulnerability,
        })
    }
}

/// PBN's deal tag value for the four hands of a bridge deal of the 52-card deck: the dealer's
/// letter, a colon, then the hands from the dealer round the table, each `spades.hearts.
/// diamonds.clubs` with ranks `AKQJT98765432`.
pub fn pbn_deal(dealt: &[Dealt], dealer: usize) -> String {
    let hands: Vec<String> = (0..4)
        .map(|k| {
            let seat = (dealer - 1 + k) % 4 + 1;
            let cards: Vec<usize> = dealt
                .iter()
                .filter(|d| d.to == Destination::Seat(seat))
                .map(|d| d.card)
                .collect();
            pbn_hand(&cards)
        })
        .collect();
    format!("{}:{}", SEATS[dealer - 1], hands.join(" "))
}

/// One hand: for spades, hearts, diamonds, clubs, the ranks held, highest first.
fn pbn_hand(cards: &[usize]) -> String {
    const RANKS: &str = "AKQJT98765432";
    let suits = [3, 2, 1, 0].map(|suit| {
        RANKS
            .chars()
            .filter(|&rank| {
                // The 52-card deck's index: rank * 4 + suit, the ace rank 0, the king rank 12.
                let r = "A23456789TJQK".find(rank).expect("a rank");
                cards.contains(&(r * 4 + suit))
            })
            .collect::<String>()
    });
    suits.join(".")
}
