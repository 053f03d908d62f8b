//! The staged deal of a key: the deck's whole order is fixed once, as the seeded Fisher-Yates of
//! its canonical order, and each call deals the next stage (or the next draws) from it. A call
//! that fails (past the end of the deck, a stage out of order, a seat that does not exist)
//! changes nothing.

use crate::error::{Error, ErrorKind};
use crate::rng::{Stream, SEED_LEN};
use crate::shuffle::fisher_yates;

use super::plan::{Action, Draws, Kind, Order, Pile, Stage, Step};

/// Where a dealt card went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Destination {
    /// A seat, 1 to the number of seats.
    Seat(usize),
    Pile(Pile),
}

/// One card dealt: its place in the deck's order, the card (its index in the deck's canonical
/// order), where it went and whether face up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dealt {
    pub position: usize,
    pub card: usize,
    pub to: Destination,
    pub up: bool,
}

/// The parts of a hand that a call moves: kept apart so that a call works on a copy and stores
/// it only when everything it deals could be dealt.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Progress {
    /// The next position dealt from the front of the order.
    top: usize,
    /// One past the last position not yet taken from the end (by a dead wall).
    bottom: usize,
    /// How many stages have been dealt (a drawing stage counts from when it opens).
    stages: usize,
    /// Seats (index seat - 1) out of the hand, and those that have drawn in this stage's turn.
    folded: Vec<bool>,
    drawn: Vec<bool>,
}

/// A hand of a kind: the deck's order, the dealer, and how far the deal has gone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hand {
    kind: Kind,
    dealer: usize,
    order: Vec<usize>,
    progress: Progress,
}

impl Hand {
    /// The hand of a 32-byte key: the seeded Fisher-Yates of the deck's canonical order.
    pub fn new(kind: Kind, dealer: usize, key: [u8; SEED_LEN]) -> Result<Self, Error> {
        Hand::shuffled(kind, dealer, key, &mut || {})
    }

    /// [`Hand::new`], calling `check` every [`crate::shuffle::CHECK_EVERY`] swaps, so that
    /// shuffling a large deck of one's own can be cancelled.
    pub fn shuffled(
        kind: Kind,
        dealer: usize,
        key: [u8; SEED_LEN],
        check: &mut dyn FnMut(),
    ) -> Result<Self, Error> {
        let mut order: Vec<usize> = (0..kind.deck().len()).collect();
        fisher_yates(&mut order, &mut Stream::from_seed(key), check);
        Hand::from_order(kind, dealer, order)
    }

    /// The hand of a given order of the deck (each card index exactly once).
    pub fn from_order(kind: Kind, dealer: usize, order: Vec<usize>) -> Result<Self, Error> {
        let seats = kind.seats();
        if !(1..=seats).contains(&dealer) {
            return Err(Error::invalid(format!(
                "the dealer sits in seat 1 to {seats}, got {dealer}"
            )));
        }
        let n = kind.deck().len();
        let mut seen = vec![false; n];
        for &card in &order {
            if card >= n || std::mem::replace(&mut seen[card], true) {
                return Err(Error::invalid(format!(
                    "an order of deck {:?} holds each card 0 to {} once",
                    kind.deck().name(),
                    n - 1
                )));
            }
        }
        if order.len() != n {
            return Err(Error::invalid(format!(
                "an order of deck {:?} holds {n} cards, got {}",
                kind.deck().name(),
                order.len()
            )));
        }
        let progress = Progress {
            top: 0,
            bottom: n,
            stages: 0,
            folded: vec![false; seats],
            drawn: vec![false; seats],
        };
        Ok(Hand {
            kind,
            dealer,
            order,
            progress,
        })
    }

    pub fn kind(&self) -> &Kind {
        &self.kind
    }

    pub fn dealer(&self) -> usize {
        self.dealer
    }

    /// The deck's whole order: the card at each position.
    pub fn order(&self) -> &[usize] {
        &self.order
    }

    /// The next position dealt from the front.
    pub fn position(&self) -> usize {
        self.progress.top
    }

    /// Cards not yet dealt (nor set aside in a dead wall).
    pub fn left(&self) -> usize {
        self.progress.bottom - self.progress.top
    }

    /// How many stages have been dealt or opened.
    pub fn stages_dealt(&self) -> usize {
        self.progress.stages
    }

    /// The stage the next [`Hand::deal_next`] deals, if any is left.
    pub fn next_stage(&self) -> Option<&Stage> {
        self.kind.stages().get(self.progress.stages)
    }

    /// Whether the cut card has come out: the first `cut` cards of the shoe are dealt.
    pub fn cut_card_out(&self) -> bool {
        self.kind.cut().is_some_and(|cut| self.progress.top >= cut)
    }

    /// The label of a dealt card.
    pub fn label(&self, dealt: &Dealt) -> &str {
        &self.kind.deck().labels()[dealt.card]
    }

    /// The seat `offset` places after the dealer.
    fn seat_after_dealer(&self, offset: usize) -> usize {
        (self.dealer - 1 + offset) % self.kind.seats() + 1
    }

    fn check_seat(&self, seat: usize) -> Result<(), Error> {
        let seats = self.kind.seats();
        if !(1..=seats).contains(&seat) {
            return Err(Error::invalid(format!(
                "{} has seats 1 to {seats}, got seat {seat}",
                self.kind.name()
            )));
        }
        Ok(())
    }

    /// Takes a seat out of the hand: each-seat steps and turns of draws pass it from now on.
    pub fn fold(&mut self, seat: usize) -> Result<(), Error> {
        self.check_seat(seat)?;
        self.progress.folded[seat - 1] = true;
        Ok(())
    }

    /// The seats still in the hand, going round from the seat `from` places after the dealer.
    fn seats_in(&self, progress: &Progress, from: usize) -> Vec<usize> {
        (0..self.kind.seats())
            .map(|k| self.seat_after_dealer(from + k))
            .filter(|seat| !progress.folded[seat - 1])
            .collect()
    }

    /// Deals the next stage of the plan; a drawing stage opens and deals nothing.
    pub fn deal_next(&mut self) -> Result<Vec<Dealt>, Error> {
        let k = self.progress.stages;
        let stage = self.kind.stages().get(k).ok_or_else(|| {
            Error::new(
                ErrorKind::NotReady,
                format!("every stage of {} is dealt", self.kind.name()),
            )
        })?;
        let mut progress = self.progress.clone();
        self.close_turns(&progress)?;
        let dealt = match &stage.action {
            Action::Deal(steps) => self.deal_steps(&mut progress, &stage.name, steps)?,
            Action::Draw(_) => Vec::new(),
        };
        progress.stages = k + 1;
        progress.drawn.fill(false);
        self.progress = progress;
        Ok(dealt)
    }

    /// Deals the stage of this name, which must be the next one.
    pub fn deal_stage(&mut self, name: &str) -> Result<Vec<Dealt>, Error> {
        let stages = self.kind.stages();
        let index = stages
            .iter()
            .position(|s| s.name == name)
            .ok_or_else(|| Error::invalid(format!("{} has no stage {name:?}", self.kind.name())))?;
        let dealt = self.progress.stages;
        if index < dealt {
            return Err(Error::new(
                ErrorKind::NotReady,
                format!("stage {name:?} is already dealt"),
            ));
        }
        if index > dealt {
            return Err(Error::new(
                ErrorKind::NotReady,
                format!(
                    "stage {name:?} comes after stage {:?}, which is not dealt yet",
                    stages[dealt].name
                ),
            ));
        }
        self.deal_next()
    }

    /// A stage that follows draws in turn waits until every seat still in has drawn.
    fn close_turns(&self, progress: &Progress) -> Result<(), Error> {
        if let Some(stage) = self.open_draws(progress) {
            if let (Draws::InTurn { .. }, Some(seat)) = (stage.1, self.next_in_turn(progress)) {
                return Err(Error::new(
                    ErrorKind::NotReady,
                    format!("seat {seat} has not drawn yet in stage {:?}", stage.0.name),
                ));
            }
        }
        Ok(())
    }

    /// The stage dealt last, if it is a drawing stage, and its draws.
    fn open_draws(&self, progress: &Progress) -> Option<(&Stage, Draws)> {
        let stage = self.kind.stages().get(progress.stages.checked_sub(1)?)?;
        match stage.action {
            Action::Draw(draws) => Some((stage, draws)),
            Action::Deal(_) => None,
        }
    }

    /// The seat whose turn it is to draw: the first still in, from the dealer's left, that has
    /// not drawn.
    fn next_in_turn(&self, progress: &Progress) -> Option<usize> {
        self.seats_in(progress, 1)
            .into_iter()
            .find(|seat| !progress.drawn[seat - 1])
    }

    fn deal_steps(
        &self,
        progress: &mut Progress,
        stage: &str,
        steps: &[Step],
    ) -> Result<Vec<Dealt>, Error> {
        let mut dealt = Vec::new();
        for step in steps {
            match *step {
                Step::EachSeat {
                    count,
                    order,
                    from,
                    up,
                    short_to_board,
                } => {
                    let seats = self.seats_in(progress, from);
                    let needed = count * seats.len();
                    if short_to_board && needed > progress.bottom - progress.top {
                        let board = Destination::Pile(Pile::Board);
                        self.take(progress, stage, board, count, true, &mut dealt)?;
                    } else {
                        for (seat, n) in rounds(&seats, count, order) {
                            self.take(progress, stage, Destination::Seat(seat), n, up, &mut dealt)?;
                        }
                    }
                }
                Step::ToSeat { offset, count, up } => {
                    let seat = Destination::Seat(self.seat_after_dealer(offset));
                    self.take(progress, stage, seat, count, up, &mut dealt)?;
                }
                Step::ToPile { pile, count } => {
                    self.take(
                        progress,
                        stage,
                        Destination::Pile(pile),
                        count,
                        pile == Pile::Board,
                        &mut dealt,
                    )?;
                }
            }
        }
        Ok(dealt)
    }

    /// Takes `count` cards for `to`: from the front of the order, or for a dead wall the last
    /// `count` not yet taken, in the order's own order.
    fn take(
        &self,
        progress: &mut Progress,
        stage: &str,
        to: Destination,
        count: usize,
        up: bool,
        out: &mut Vec<Dealt>,
    ) -> Result<(), Error> {
        let left = progress.bottom - progress.top;
        if count > left {
            return Err(Error::new(
                ErrorKind::NotReady,
                format!("stage {stage:?} needs {count} more cards, and the deck has {left} left"),
            ));
        }
        let positions = if to == Destination::Pile(Pile::DeadWall) {
            progress.bottom -= count;
            progress.bottom..progress.bottom + count
        } else {
            progress.top += count;
            progress.top - count..progress.top
        };
        out.extend(positions.map(|position| Dealt {
            position,
            card: self.order[position],
            to,
            up,
        }));
        Ok(())
    }

    /// Draws `count` cards from the front to a seat, in the drawing stage that is open: any seat
    /// any time in free draws; in draws in turn, the seat whose turn it is, 0 to the stage's
    /// most.
    pub fn draw(&mut self, seat: usize, count: usize) -> Result<Vec<Dealt>, Error> {
        self.check_seat(seat)?;
        let (stage, draws) = self.open_draws(&self.progress).ok_or_else(|| {
            Error::new(
                ErrorKind::NotReady,
                format!("{} has no drawing stage open", self.kind.name()),
            )
        })?;
        if self.progress.folded[seat - 1] {
            return Err(Error::new(
                ErrorKind::NotReady,
                format!("seat {seat} is out of the hand"),
            ));
        }
        self.check_draw(stage, draws, seat, count)?;
        let mut progress = self.progress.clone();
        let mut dealt = Vec::new();
        let name = stage.name.clone();
        self.take(
            &mut progress,
            &name,
            Destination::Seat(seat),
            count,
            false,
            &mut dealt,
        )?;
        progress.drawn[seat - 1] = true;
        self.progress = progress;
        Ok(dealt)
    }

    fn check_draw(
        &self,
        stage: &Stage,
        draws: Draws,
        seat: usize,
        count: usize,
    ) -> Result<(), Error> {
        match draws {
            Draws::Free if count == 0 => Err(Error::invalid(format!(
                "a draw in stage {:?} takes at least 1 card",
                stage.name
            ))),
            Draws::Free => Ok(()),
            Draws::InTurn { max } if count > max => Err(Error::invalid(format!(
                "a draw in stage {:?} takes 0 to {max} cards, got {count}",
                stage.name
            ))),
            Draws::InTurn { .. } => match self.next_in_turn(&self.progress) {
                Some(turn) if turn == seat => Ok(()),
                Some(turn) => Err(Error::new(
                    ErrorKind::NotReady,
                    format!(
                        "it is seat {turn}'s turn to draw in stage {:?}, not seat {seat}'s",
                        stage.name
                    ),
                )),
                None => Err(Error::new(
                    ErrorKind::NotReady,
                    format!("every seat has drawn in stage {:?}", stage.name),
                )),
            },
        }
    }
}

/// The packets of an each-seat step: (seat, cards) in the order dealt.
fn rounds(seats: &[usize], count: usize, order: Order) -> Vec<(usize, usize)> {
    let packet = match order {
        Order::OneAtATime => 1,
        Order::Packets(k) => k,
    };
    let mut out = Vec::new();
    let mut given = 0;
    while given < count {
        let n = packet.min(count - given);
        out.extend(seats.iter().map(|&seat| (seat, n)));
        given += n;
    }
    out
}
