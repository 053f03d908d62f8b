//! Card rooms' hands (docs/card_rooms.md): for each built-in kind, a fixed sequence of calls
//! (every stage dealt, and a few draws where the kind draws), and the card dealt at each slot of
//! that sequence (the k-th card the hand deals). The plan sends each slot to a fixed seat or
//! pile, so a fair deal gives every card of the deck alike at every slot: one chi-square test a
//! slot (df = deck - 1), each at [`crate::ALPHA`] divided by the slots of the kind, so that a fair
//! kind fails one in 10,000 runs. Two broken dealers must fail at the same sizes: the naive
//! shuffle through the same plan (a biased deck), and a dealer who peeks at the first card of
//! the last stage and, when it is a low card, swaps it with any other card of the deck (a
//! peeked stage).

use dealcards_core::error::Error;
use dealcards_core::rng::Stream;
use dealcards_core::rooms::{kinds, Action, Hand, Kind};
use dealcards_core::shuffle::fisher_yates;

use crate::stats::{chi_square_uniform, ChiSquare};
use crate::ALPHA;

/// A call on a hand, as the game server makes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    /// The next stage (`hand_deal(hand)`).
    Deal,
    /// `count` cards drawn to `seat` (`hand_draw(hand, seat, count)`).
    Draw { seat: usize, count: usize },
}

/// A built-in kind with its dealer and the calls dealt in each hand of the battery.
pub struct RoomKind {
    /// The name `hand_start` takes.
    pub name: &'static str,
    /// `hand_start`'s arguments after the table id, as SQL.
    pub start: &'static str,
    pub kind: Kind,
    pub dealer: usize,
    pub calls: Vec<Call>,
}

fn deals(n: usize) -> Vec<Call> {
    vec![Call::Deal; n]
}

/// Draws of `count` to each seat in turn from `first`, `rounds` times round the table.
fn draws(seats: usize, first: usize, count: usize, rounds: usize) -> Vec<Call> {
    (0..seats * rounds)
        .map(|i| Call::Draw {
            seat: (first - 1 + i) % seats + 1,
            count,
        })
        .collect()
}

/// Every built-in kind of `room_kinds()`, as the battery deals it.
pub fn room_kinds() -> Result<Vec<RoomKind>, Error> {
    let kind = |name, start, kind, dealer, calls| RoomKind {
        name,
        start,
        kind,
        dealer,
        calls,
    };
    let mut five_card_draw = deals(2);
    five_card_draw.extend(draws(4, 2, 2, 1));
    let mut blackjack = deals(2);
    blackjack.extend(draws(3, 1, 1, 3));
    let riichi_calls = || {
        let mut calls = deals(4);
        calls.extend(draws(4, 1, 1, 2));
        calls
    };
    Ok(vec![
        kind("holdem", "'holdem', 6", kinds::holdem(6)?, 1, deals(4)),
        kind("omaha", "'omaha', 6", kinds::omaha(6)?, 1, deals(4)),
        kind(
            "short_deck",
            "'short_deck', 6",
            kinds::short_deck_holdem(6)?,
            1,
            deals(4),
        ),
        kind("stud", "'stud', 8", kinds::seven_card_stud(8)?, 1, deals(5)),
        kind(
            "five_card_draw",
            "'five_card_draw', 4",
            kinds::five_card_draw(4)?,
            1,
            five_card_draw,
        ),
        // One deck, the cut card at 75%: round(0.75 * 52) = 39.
        kind(
            "blackjack",
            "'blackjack', 3, decks => 1",
            kinds::blackjack(1, 39, 3)?,
            1,
            blackjack,
        ),
        kind(
            "bridge",
            "'bridge', board => 1",
            kinds::bridge(),
            1,
            deals(1),
        ),
        kind(
            "four_hands",
            "'four_hands'",
            kinds::four_by_thirteen("four hands of 13"),
            1,
            deals(1),
        ),
        kind("guandan", "'guandan'", kinds::guandan(), 1, deals(1)),
        kind(
            "riichi",
            "'riichi'",
            kinds::riichi(false),
            1,
            riichi_calls(),
        ),
        kind(
            "riichi_red_fives",
            "'riichi_red_fives'",
            kinds::riichi(true),
            1,
            riichi_calls(),
        ),
        kind("dou_dizhu", "'dou_dizhu'", kinds::dou_dizhu(), 3, deals(1)),
    ])
}

impl RoomKind {
    /// What each call deals from a hand of this deck order: the cards (their index in the
    /// deck's canonical order), in the order dealt, and whether the call dealt a stage (not a
    /// draw, nor a drawing stage's opening).
    fn deal_by_call(&self, order: Vec<usize>) -> Result<Vec<(bool, Vec<usize>)>, Error> {
        let mut hand = Hand::from_order(self.kind.clone(), self.dealer, order)?;
        let mut dealt = Vec::with_capacity(self.calls.len());
        for call in &self.calls {
            let stage = self.kind.stages().get(hand.stages_dealt());
            let (dealing, cards) = match *call {
                Call::Deal => (
                    matches!(stage.map(|s| &s.action), Some(Action::Deal(_))),
                    hand.deal_next()?,
                ),
                Call::Draw { seat, count } => (false, hand.draw(seat, count)?),
            };
            dealt.push((dealing, cards.iter().map(|d| d.card).collect()));
        }
        Ok(dealt)
    }

    /// The cards a hand of this deck order deals through the calls, in the order dealt.
    pub fn deal(&self, order: Vec<usize>) -> Result<Vec<usize>, Error> {
        Ok(self
            .deal_by_call(order)?
            .into_iter()
            .flat_map(|(_, cards)| cards)
            .collect())
    }

    /// The deck's size.
    pub fn deck(&self) -> usize {
        self.kind.deck().len()
    }

    /// The place in the deck's order each slot deals (the same for every hand: a plan deals by
    /// place, whatever the cards), read by dealing the order that holds card i at place i.
    pub fn places(&self) -> Result<Vec<usize>, Error> {
        self.deal((0..self.deck()).collect())
    }

    /// The place in the deck's order of the card a peeking dealer looks at.
    pub fn peeked_place(&self) -> Result<usize, Error> {
        Ok(self.places()?[self.peeked_slot()?])
    }

    /// The slot a peeking dealer looks at: the first card of the last dealing stage.
    fn peeked_slot(&self) -> Result<usize, Error> {
        let (mut slot, mut peeked) = (0, 0);
        for (dealing, cards) in self.deal_by_call((0..self.deck()).collect())? {
            if dealing && !cards.is_empty() {
                peeked = slot;
            }
            slot += cards.len();
        }
        Ok(peeked)
    }
}

/// How a broken dealer orders the deck.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoomDealer {
    /// Fisher-Yates from the stream, as the extension.
    Fair,
    /// The naive shuffle: each place swapped with any place.
    Naive,
    /// Fisher-Yates, then a look at the first card of the last stage: a low card (among the
    /// first 1/13 of the deck's canonical order) is swapped with any other card of the deck.
    Peeked,
}

impl RoomDealer {
    pub const BROKEN: [RoomDealer; 2] = [RoomDealer::Naive, RoomDealer::Peeked];

    pub fn name(self) -> &'static str {
        match self {
            RoomDealer::Fair => "Fisher-Yates",
            RoomDealer::Naive => "a biased deck (the naive shuffle)",
            RoomDealer::Peeked => "a peeked stage (a low card at the last stage swapped away)",
        }
    }
}

/// The counts of a kind: for each slot, how often each card was dealt there.
pub struct SlotCounts {
    counts: Vec<Vec<u64>>,
    hands: u64,
}

impl SlotCounts {
    pub fn new(room: &RoomKind) -> Result<Self, Error> {
        let slots = room.places()?.len();
        Ok(SlotCounts {
            counts: vec![vec![0; room.deck()]; slots],
            hands: 0,
        })
    }

    /// One hand's cards, in the order dealt.
    pub fn record(&mut self, dealt: &[usize]) -> Result<(), Error> {
        if dealt.len() != self.counts.len() {
            return Err(Error::invalid(format!(
                "a hand dealt {} cards where the calls deal {}",
                dealt.len(),
                self.counts.len()
            )));
        }
        for (slot, &card) in dealt.iter().enumerate() {
            let row = &mut self.counts[slot];
            let cell = row
                .get_mut(card)
                .ok_or_else(|| Error::invalid(format!("card {card} is not a card of the deck")))?;
            *cell += 1;
        }
        self.hands += 1;
        Ok(())
    }

    pub fn hands(&self) -> u64 {
        self.hands
    }

    /// Each slot's test; the kind passes when every slot's p-value is at least ALPHA / slots.
    pub fn test(&self) -> SlotVerdict {
        let tests: Vec<ChiSquare> = self.counts.iter().map(|c| chi_square_uniform(c)).collect();
        let (worst_slot, worst) = tests
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.p_value.total_cmp(&b.1.p_value))
            .map(|(i, t)| (i, *t))
            .expect("a kind deals at least one card");
        SlotVerdict {
            slots: tests.len(),
            worst_slot,
            worst,
        }
    }
}

/// A kind's verdict: its slots, and the slot whose test gave the least p-value.
#[derive(Debug, Clone)]
pub struct SlotVerdict {
    pub slots: usize,
    pub worst_slot: usize,
    pub worst: ChiSquare,
}

impl SlotVerdict {
    /// The level each slot's test is held to.
    pub fn level(&self) -> f64 {
        ALPHA / self.slots as f64
    }

    pub fn passes(&self) -> bool {
        self.worst.p_value >= self.level()
    }
}

/// The deck order a dealer gives for `room` from `stream`; `peeked` is the place of the card
/// a peeking dealer looks at ([`RoomKind::peeked_place`]).
pub fn order(
    room: &RoomKind,
    dealer: RoomDealer,
    stream: &mut Stream,
    peeked: usize,
) -> Result<Vec<usize>, Error> {
    let n = room.deck();
    let mut order: Vec<usize> = (0..n).collect();
    match dealer {
        RoomDealer::Fair | RoomDealer::Peeked => fisher_yates(&mut order, stream, &mut || {}),
        RoomDealer::Naive => {
            for i in 0..n {
                let j = stream.below(n as u32) as usize;
                order.swap(i, j);
            }
        }
    }
    if dealer == RoomDealer::Peeked && order[peeked] < n.div_ceil(13) {
        let other = (peeked + 1 + stream.below(n as u32 - 1) as usize) % n;
        order.swap(peeked, other);
    }
    Ok(order)
}

/// `hands` hands of `room` from `dealer` on `stream`, counted.
pub fn run(
    room: &RoomKind,
    dealer: RoomDealer,
    stream: &mut Stream,
    hands: u64,
) -> Result<SlotCounts, Error> {
    let mut counts = SlotCounts::new(room)?;
    let peeked = room.peeked_place()?;
    for _ in 0..hands {
        let dealt = room.deal(order(room, dealer, stream, peeked)?)?;
        counts.record(&dealt)?;
    }
    Ok(counts)
}

/// How many hands of each kind the report deals by default.
pub const DEFAULT_HANDS: u64 = 10_000;

#[cfg(test)]
mod tests {
    use super::*;

    /// Fixed streams, so that CI runs the same hands every time: every kind dealt fairly passes,
    /// and both broken dealers fail every kind, at the report's default size.
    #[test]
    fn fair_kinds_pass_and_broken_dealers_fail() {
        for (k, room) in room_kinds().unwrap().iter().enumerate() {
            let seed = |d: u8| {
                let mut seed = [d; 32];
                seed[0] = k as u8;
                Stream::from_seed(seed)
            };
            let fair = run(room, RoomDealer::Fair, &mut seed(1), HANDS)
                .unwrap()
                .test();
            assert!(fair.passes(), "{}: {fair:?}", room.name);
            for (d, dealer) in RoomDealer::BROKEN.into_iter().enumerate() {
                let broken = run(room, dealer, &mut seed(2 + d as u8), HANDS)
                    .unwrap()
                    .test();
                assert!(
                    !broken.passes(),
                    "{} with {}: {broken:?}",
                    room.name,
                    dealer.name()
                );
            }
        }
    }

    /// The report's default number of hands of each kind.
    const HANDS: u64 = super::DEFAULT_HANDS;

    /// The slots deal each place once, and the peeked slot is the first of the last stage.
    #[test]
    fn slots_and_the_peeked_slot() {
        let rooms = room_kinds().unwrap();
        let holdem = &rooms[0];
        let places = holdem.places().unwrap();
        assert_eq!(places.len(), 6 * 2 + 8);
        assert_eq!(holdem.peeked_slot().unwrap(), 12 + 4 + 2);
        let riichi = rooms.iter().find(|r| r.name == "riichi").unwrap();
        // dead wall 14, deal 52, dealer 1, then draws: the last dealing stage is the dealer's.
        assert_eq!(riichi.peeked_slot().unwrap(), 14 + 52);
    }
}
