//! Card rooms: many games dealt in stages from one shuffled deck.
//!
//! A game's kind is data: a deck (`deck`: the faces in a canonical order, with their labels), a
//! table of seats and a plan (`plan`: named stages, each dealing so many cards to the seats,
//! the board, a burn pile, a dead wall or a kitty, in a stated order, or opening draws). The
//! built-in kinds (`kinds`) deal Hold'em, Omaha, short-deck Hold'em, seven-card stud,
//! five-card draw, a blackjack shoe, bridge (with its boards, `bridge`), four hands of 13,
//! Guandan, riichi mahjong and Dou Dizhu. A hand (`hand`) fixes the deck's whole order once,
//! from a 32-byte key by the seeded Fisher-Yates, and deals one stage at a time from it.
//! docs/card_rooms.md specifies every byte, so that anyone can recompute every stage.

pub mod bridge;
pub mod deck;
pub mod hand;
pub mod kinds;
pub mod plan;

pub use deck::Deck;
pub use hand::{Dealt, Destination, Hand};
pub use plan::{Action, Draws, Kind, Order, Pile, Stage, Step};

#[cfg(test)]
mod tests;
