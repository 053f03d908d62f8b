//! Deal plans as data: a game's named stages, each dealing a stated number of cards to the
//! seats, the board, a burn pile, a dead wall or a kitty, in a stated order; and the kind of a
//! game (a deck, a table of seats and a plan), checked as a whole before anything is dealt.

use crate::error::Error;

use super::deck::Deck;

/// The most seats at one table.
pub const MAX_SEATS: usize = 64;

/// Where a card goes that goes to no seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pile {
    /// Community cards, face up (Hold'em's flop, turn and river; stud's card on seventh street
    /// when the deck runs short).
    Board,
    /// Cards burned face down before a street.
    Burn,
    /// Mahjong's dead wall: taken from the end of the wall, not the front.
    DeadWall,
    /// Cards set aside for the hand's winner of the bidding (Dou Dizhu's three extra cards).
    Kitty,
}

impl Pile {
    /// The pile's name in the specification: `board`, `burn`, `dead wall`, `kitty`.
    pub fn name(self) -> &'static str {
        match self {
            Pile::Board => "board",
            Pile::Burn => "burn",
            Pile::DeadWall => "dead wall",
            Pile::Kitty => "kitty",
        }
    }
}

/// How the cards of an each-seat step go round the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// One card to each seat in turn, then a second to each, and so on.
    OneAtATime,
    /// Packets of up to k cards to each seat in turn (the last packet holds what is left of the
    /// count: 13 in packets of 4 is 4, 4, 4, 1).
    Packets(usize),
}

/// One step of a stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// `count` cards to every seat still in the hand, going round from the seat `from` places
    /// after the dealer (1: the dealer's left; 0: the dealer), face up or down. With
    /// `short_to_board`, when the deck holds fewer cards than the step needs, `count` cards go
    /// to the board instead, shared by every seat (seven-card stud's seventh street with eight
    /// players).
    EachSeat {
        count: usize,
        order: Order,
        from: usize,
        up: bool,
        short_to_board: bool,
    },
    /// `count` cards to one seat: the seat `offset` places after the dealer (0: the dealer).
    ToSeat {
        offset: usize,
        count: usize,
        up: bool,
    },
    /// `count` cards to a pile.
    ToPile { pile: Pile, count: usize },
}

/// How the draws of a drawing stage are made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Draws {
    /// Any seat draws any number of cards at any time, until the deck runs out (a mahjong live
    /// wall, a blackjack shoe).
    Free,
    /// Each seat still in the hand draws once, 0 to `max` cards, in turn from the dealer's left
    /// (five-card draw's replacements from the stub).
    InTurn { max: usize },
}

/// What a stage does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Deals its steps, in order.
    Deal(Vec<Step>),
    /// Opens draws, made one call at a time until the next stage.
    Draw(Draws),
}

/// A named stage of a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stage {
    pub name: String,
    pub action: Action,
}

impl Stage {
    pub fn deal(name: &str, steps: Vec<Step>) -> Self {
        Stage {
            name: name.to_string(),
            action: Action::Deal(steps),
        }
    }

    pub fn draw(name: &str, draws: Draws) -> Self {
        Stage {
            name: name.to_string(),
            action: Action::Draw(draws),
        }
    }
}

/// A kind of game: a deck, a number of seats and a plan, checked together; with a cut card for
/// a shoe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kind {
    pub(super) name: String,
    pub(super) deck: Deck,
    pub(super) seats: usize,
    pub(super) stages: Vec<Stage>,
    pub(super) cut: Option<usize>,
}

impl Kind {
    /// Checks a kind: 1 to [`MAX_SEATS`] seats; at least one stage, each named once and doing
    /// something; no step of zero cards or packets; no seat past the table; no more cards dealt
    /// by the fixed steps (with every seat in) than the deck holds; no stage after free draws,
    /// which may run to the end of the deck; a cut card inside the deck.
    pub fn new(
        name: impl Into<String>,
        deck: Deck,
        seats: usize,
        stages: Vec<Stage>,
        cut: Option<usize>,
    ) -> Result<Self, Error> {
        let kind = Kind {
            name: name.into(),
            deck,
            seats,
            stages,
            cut,
        };
        kind.check_table()?;
        kind.check_stages()?;
        kind.check_cards()?;
        Ok(kind)
    }

    fn check_table(&self) -> Result<(), Error> {
        if !(1..=MAX_SEATS).contains(&self.seats) {
            return Err(Error::invalid(format!(
                "{}: a table has 1 to {MAX_SEATS} seats, got {}",
                self.name, self.seats
            )));
        }
        if let Some(cut) = self.cut {
            if !(1..=self.deck.len()).contains(&cut) {
                return Err(Error::invalid(format!(
                    "{}: the cut card goes after 1 to {} cards, got {cut}",
                    self.name,
                    self.deck.len()
                )));
            }
        }
        if self.stages.is_empty() {
            return Err(Error::invalid(format!(
                "{}: a plan has no stage",
                self.name
            )));
        }
        Ok(())
    }

    fn check_stages(&self) -> Result<(), Error> {
        for (k, stage) in self.stages.iter().enumerate() {
            let named = |what: &str| {
                Error::invalid(format!("{}: stage {:?} {what}", self.name, stage.name))
            };
            if stage.name.is_empty() {
                return Err(Error::invalid(format!(
                    "{}: stage {} has no name",
                    self.name,
                    k + 1
                )));
            }
            if self.stages[..k].iter().any(|s| s.name == stage.name) {
                return Err(named("is named twice"));
            }
            if k > 0 && self.stages[k - 1].action == Action::Draw(Draws::Free) {
                return Err(named(&format!(
                    "comes after stage {:?}, whose draws run to the end of the deck",
                    self.stages[k - 1].name
                )));
            }
            match &stage.action {
                Action::Deal(steps) if steps.is_empty() => return Err(named("deals nothing")),
                Action::Deal(steps) => steps
                    .iter()
                    .try_for_each(|s| self.check_step(s).map_err(|e| named(&e)))?,
                Action::Draw(Draws::InTurn { max: 0 }) => {
                    return Err(named("draws at most 0 cards"))
                }
                Action::Draw(_) => {}
            }
        }
        Ok(())
    }

    fn check_step(&self, step: &Step) -> Result<(), String> {
        let seats = self.seats;
        let count = match step {
            Step::EachSeat {
                order: Order::Packets(0),
                ..
            } => return Err("deals packets of 0 cards".into()),
            Step::EachSeat { from, .. } if *from >= seats => {
                return Err(format!(
                    "starts {from} seats after the dealer, at a table of {seats} seats"
                ))
            }
            Step::ToSeat { offset, .. } if *offset >= seats => {
                return Err(format!(
                    "deals to the seat {offset} after the dealer, at a table of {seats} seats"
                ))
            }
            Step::EachSeat { count, .. }
            | Step::ToSeat { count, .. }
            | Step::ToPile { count, .. } => *count,
        };
        if count == 0 {
            return Err("has a step of 0 cards".into());
        }
        Ok(())
    }

    /// How many cards the fixed steps deal with every seat in (a step that goes to the board
    /// when short of cards counts as its board cards: the least it takes).
    pub fn fixed_cards(&self) -> usize {
        let steps = self.stages.iter().filter_map(|s| match &s.action {
            Action::Deal(steps) => Some(steps),
            Action::Draw(_) => None,
        });
        steps
            .flatten()
            .map(|step| match step {
                Step::EachSeat {
                    count,
                    short_to_board: true,
                    ..
                } => *count,
                Step::EachSeat { count, .. } => count.saturating_mul(self.seats),
                Step::ToSeat { count, .. } | Step::ToPile { count, .. } => *count,
            })
            .fold(0, usize::saturating_add)
    }

    fn check_cards(&self) -> Result<(), Error> {
        let needed = self.fixed_cards();
        if needed > self.deck.len() {
            return Err(Error::invalid(format!(
                "{}: the plan deals {needed} cards to {} seats, more than the {} in deck {:?}",
                self.name,
                self.seats,
                self.deck.len(),
                self.deck.name()
            )));
        }
        Ok(())
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn deck(&self) -> &Deck {
        &self.deck
    }

    pub fn seats(&self) -> usize {
        self.seats
    }

    pub fn stages(&self) -> &[Stage] {
        &self.stages
    }

    /// The cards before the cut card, for a shoe.
    pub fn cut(&self) -> Option<usize> {
        self.cut
    }
}
