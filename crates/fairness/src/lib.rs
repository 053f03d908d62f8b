//! The fairness battery: chi-square tests over what a dealer deals, and deliberately broken
//! dealers that the battery must reject.
//!
//! Every test here is a function of counts, so one piece of code judges both the server's live
//! shuffles (the `make fairness` report, which feeds it what `shuffle_ints` and `deal_cards`
//! return) and seeded streams (the unit tests below, deterministic for CI). A test passes when
//! its p-value is at least [`ALPHA`]. The sizes that make a fair dealer pass and a broken one
//! fail are those of the project's fairness notes: permutation frequency, card by position
//! (df = (n-1)^2), Dou Dizhu destinations (df 159).

pub mod rooms;
pub mod rows;
pub mod stats;

use dealcards_core::error::Error;
use dealcards_core::rng::Stream;
use dealcards_core::shuffle::fisher_yates;
use stats::ChiSquare;

pub use dealcards_core::cards::DECK_SIZE;
pub use dealcards_core::deal::{EXTRA_CARDS, HAND_SIZE, SEATS};

/// The significance level of every test: a fair dealer fails one test in 10,000 runs.
pub const ALPHA: f64 = 1e-4;
/// The small decks whose every order is counted.
pub const ORDER_SIZES: [usize; 3] = [3, 4, 5];
/// Where a card can go in a deal, in the proportions a fair deal sends it there: p1, p2, p3 and
/// the extra cards, 17 : 17 : 17 : 3.
pub const DESTINATION_WEIGHTS: [f64; SEATS + 1] = [
    HAND_SIZE as f64,
    HAND_SIZE as f64,
    HAND_SIZE as f64,
    EXTRA_CARDS as f64,
];

/// Whether a test's result is consistent with a fair dealer at [`ALPHA`].
pub fn passes(result: &ChiSquare) -> bool {
    result.p_value >= ALPHA
}

/// Reads `cards` as an order of the deck `first, first + 1, ..., first + n - 1`: for each
/// position, the card's index from 0. Anything that is not such a permutation is an error, so a
/// wrong answer from a server is reported, never counted.
pub fn order_of(cards: &[i32], first: i32, n: usize) -> Result<Vec<usize>, Error> {
    let not_a_permutation = || {
        Error::invalid(format!(
            "expected a permutation of {first}..{}, got {cards:?}",
            first as i64 + n as i64 - 1
        ))
    };
    if cards.len() != n {
        return Err(not_a_permutation());
    }
    let mut seen = vec![false; n];
    let mut order = Vec::with_capacity(n);
    for &card in cards {
        let index = usize::try_from(card as i64 - first as i64).map_err(|_| not_a_permutation())?;
        if index >= n || seen[index] {
            return Err(not_a_permutation());
        }
        seen[index] = true;
        order.push(index);
    }
    Ok(order)
}

/// The rank of an order of `0..n` among all n! orders listed lexicographically (its Lehmer
/// code): 0 for the sorted order, n! - 1 for the reversed one.
pub fn order_index(order: &[usize]) -> usize {
    let n = order.len();
    let mut index = 0;
    for i in 0..n {
        let smaller_after = order[i + 1..].iter().filter(|&&x| x < order[i]).count();
        index = index * (n - i) + smaller_after;
    }
    index
}

fn factorial(n: usize) -> usize {
    (1..=n).product()
}

fn ordered_tuples(n: usize, k: usize) -> usize {
    (n - k + 1..=n).product()
}

/// The rank of an ordered tuple of distinct items of 0..n among all n!/(n-k)! of them.
pub fn tuple_index(tuple: &[usize], n: usize) -> usize {
    let mut remaining: Vec<usize> = (0..n).collect();
    let mut index = 0;
    for (t, item) in tuple.iter().enumerate() {
        let at = remaining.iter().position(|r| r == item).unwrap_or(0);
        remaining.remove(at);
        index = index * (n - t) + at;
    }
    index
}

/// How often each ordered sample of k of n rows came up, against the probability of each: equal
/// for a uniform sample, that of successive draws proportional to weight for a weighted one.
#[derive(Debug, Clone)]
pub struct OrderedSamples {
    n: usize,
    k: usize,
    counts: Vec<u64>,
    probabilities: Vec<f64>,
    /// Samples that were not k distinct rows of 0..n.
    malformed: u64,
}

impl OrderedSamples {
    pub fn uniform(n: usize, k: usize) -> Self {
        Self::weighted(&vec![1.0; n], k)
    }

    /// Samples of k of the rows 0..n, row i of weight `weights[i]` (n = weights.len()).
    pub fn weighted(weights: &[f64], k: usize) -> Self {
        let n = weights.len();
        assert!(k <= n && n <= 8, "ordered samples are for small inputs");
        let bins = ordered_tuples(n, k);
        let mut probabilities = vec![0.0; bins];
        fn fill(t: usize, tuple: &mut Vec<usize>, weights: &[f64], out: &mut [f64]) {
            if t == tuple.len() {
                let mut left: f64 = weights.iter().sum();
                let mut p = 1.0;
                for &row in tuple.iter() {
                    p *= weights[row] / left;
                    left -= weights[row];
                }
                out[tuple_index(tuple, weights.len())] = p;
                return;
            }
            for row in 0..weights.len() {
                if !tuple[..t].contains(&row) {
                    tuple[t] = row;
                    fill(t + 1, tuple, weights, out);
                }
            }
        }
        fill(0, &mut vec![0; k], weights, &mut probabilities);
        OrderedSamples {
            n,
            k,
            counts: vec![0; bins],
            probabilities,
            malformed: 0,
        }
    }

    /// Counts one sample, given as rows of 0..n in the order returned.
    pub fn record(&mut self, sample: &[usize]) {
        let mut seen = vec![false; self.n];
        let distinct = sample.len() == self.k
            && sample
                .iter()
                .all(|&r| r < self.n && !std::mem::replace(&mut seen[r], true));
        if distinct {
            self.counts[tuple_index(sample, self.n)] += 1;
        } else {
            self.malformed += 1;
        }
    }

    pub fn samples(&self) -> u64 {
        self.counts.iter().sum::<u64>() + self.malformed
    }

    /// Goodness of fit over the possible tuples. A malformed sample, or one of probability 0
    /// (a row of weight 0 drawn), fails the test outright.
    pub fn test(&self) -> ChiSquare {
        let (counts, weights): (Vec<u64>, Vec<f64>) = self
            .counts
            .iter()
            .zip(&self.probabilities)
            .filter(|(_, &p)| p > 0.0)
            .map(|(&c, &p)| (c, p))
            .unzip();
        let impossible = self.samples() - counts.iter().sum::<u64>();
        let result = stats::chi_square_expected(&counts, &weights);
        if impossible > 0 {
            ChiSquare {
                p_value: 0.0,
                ..result
            }
        } else {
            result
        }
    }
}

/// How often each of the n! orders of a small deck came up: all should be equally frequent.
#[derive(Debug, Clone)]
pub struct OrderFrequency {
    n: usize,
    counts: Vec<u64>,
}

impl OrderFrequency {
    /// Counts for decks of `n` cards; n is small (n! bins).
    pub fn new(n: usize) -> Self {
        assert!((1..=8).contains(&n), "order frequency is for small decks");
        OrderFrequency {
            n,
            counts: vec![0; factorial(n)],
        }
    }

    pub fn n(&self) -> usize {
        self.n
    }

    pub fn record(&mut self, order: &[usize]) {
        debug_assert_eq!(order.len(), self.n);
        self.counts[order_index(order)] += 1;
    }

    /// Orders that never came up.
    pub fn unseen(&self) -> usize {
        self.counts.iter().filter(|&&c| c == 0).count()
    }

    /// Goodness of fit to n! equal frequencies; df = n! - 1.
    pub fn test(&self) -> ChiSquare {
        stats::chi_square_uniform(&self.counts)
    }
}

/// How often each card lands at each position of the deck: every cell should be equally
/// frequent.
#[derive(Debug, Clone)]
pub struct CardByPosition {
    /// `counts[card][position]`.
    counts: Vec<Vec<u64>>,
    decks: u64,
}

impl CardByPosition {
    pub fn new(n: usize) -> Self {
        CardByPosition {
            counts: vec![vec![0; n]; n],
            decks: 0,
        }
    }

    /// Counts one shuffled deck, `deck[position] = card`.
    pub fn record(&mut self, deck: &[usize]) {
        for (position, &card) in deck.iter().enumerate() {
            self.counts[card][position] += 1;
        }
        self.decks += 1;
    }

    /// `counts()[card][position]`.
    pub fn counts(&self) -> &[Vec<u64>] {
        &self.counts
    }

    pub fn decks(&self) -> u64 {
        self.decks
    }

    /// Pearson's chi-square over the n x n matrix; df = (n - 1)^2.
    pub fn test(&self) -> ChiSquare {
        stats::chi_square_matrix_uniform(&self.counts)
    }
}

/// The position of each card in one deck (row) against its position in another deck (column).
///
/// When the second deck is a uniform shuffle independent of the first, the card at position i
/// of the first is at a uniformly random position of the second, so the matrix is the
/// card-by-position matrix of a uniform shuffle and has the same chi-square test. A second deck
/// that depends on the first (a repeated stream, a deck barely reshuffled) shows. It sees where
/// each card goes, not which cards travel together: a deck only cut between two deals moves
/// every card by the same uniform amount and passes (the order-frequency tests catch that).
#[derive(Debug, Clone)]
pub struct PositionPairs {
    counts: Vec<Vec<u64>>,
    pairs: u64,
}

impl PositionPairs {
    pub fn new(n: usize) -> Self {
        PositionPairs {
            counts: vec![vec![0; n]; n],
            pairs: 0,
        }
    }

    pub fn record(&mut self, first: &[usize], second: &[usize]) {
        let mut position_in_second = vec![0; second.len()];
        for (position, &card) in second.iter().enumerate() {
            position_in_second[card] = position;
        }
        for (position, &card) in first.iter().enumerate() {
            self.counts[position][position_in_second[card]] += 1;
        }
        self.pairs += 1;
    }

    pub fn pairs(&self) -> u64 {
        self.pairs
    }

    /// Pearson's chi-square over the n x n matrix; df = (n - 1)^2.
    pub fn test(&self) -> ChiSquare {
        stats::chi_square_matrix_uniform(&self.counts)
    }
}

/// Each deal against the next one of the same dealer (or the same backend's stream).
#[derive(Debug, Clone)]
pub struct SuccessiveDeals {
    previous: Option<Vec<usize>>,
    pairs: PositionPairs,
}

impl SuccessiveDeals {
    pub fn new(n: usize) -> Self {
        SuccessiveDeals {
            previous: None,
            pairs: PositionPairs::new(n),
        }
    }

    /// Counts `deck` against the deck recorded before it.
    pub fn record(&mut self, deck: &[usize]) {
        if let Some(previous) = &self.previous {
            self.pairs.record(previous, deck);
        }
        self.previous = Some(deck.to_vec());
    }

    /// The next deck starts a new sequence (another stream): it is not paired with the last.
    pub fn start_sequence(&mut self) {
        self.previous = None;
    }

    pub fn pairs(&self) -> u64 {
        self.pairs.pairs()
    }

    pub fn test(&self) -> ChiSquare {
        self.pairs.test()
    }
}

/// Where each card of a Dou Dizhu deal goes: p1, p2, p3 or the extra cards.
#[derive(Debug, Clone)]
pub struct Destinations {
    /// `counts[card][destination]`, destination 0..3 the seats and 3 the extra cards.
    counts: Vec<Vec<u64>>,
    deals: u64,
}

impl Default for Destinations {
    fn default() -> Self {
        Destinations {
            counts: vec![vec![0; SEATS + 1]; DECK_SIZE],
            deals: 0,
        }
    }
}

impl Destinations {
    /// Counts a deal given as its four hands (cards 0..54): p1, p2, p3, extra.
    pub fn record_hands(&mut self, hands: [&[usize]; SEATS + 1]) {
        for (destination, hand) in hands.iter().enumerate() {
            for &card in *hand {
                self.counts[card][destination] += 1;
            }
        }
        self.deals += 1;
    }

    /// Counts a shuffled deck dealt the way `deal_cards` deals it: the first 17 cards to p1, the
    /// next 17 to p2, the next 17 to p3, the last 3 extra.
    pub fn record_deck(&mut self, deck: &[usize]) {
        debug_assert_eq!(deck.len(), DECK_SIZE);
        let (p1, rest) = deck.split_at(HAND_SIZE);
        let (p2, rest) = rest.split_at(HAND_SIZE);
        let (p3, extra) = rest.split_at(HAND_SIZE);
        self.record_hands([p1, p2, p3, extra]);
    }

    pub fn deals(&self) -> u64 {
        self.deals
    }

    /// Pearson's chi-square over the 54 x 4 matrix, expected 17 : 17 : 17 : 3; df 159.
    pub fn test(&self) -> ChiSquare {
        stats::chi_square_matrix(&self.counts, &DESTINATION_WEIGHTS)
    }
}

/// Which seat bids first: each of the three equally often.
#[derive(Debug, Clone, Default)]
pub struct Leaders {
    counts: [u64; SEATS],
}

impl Leaders {
    /// Counts one first bidder, seat 0, 1 or 2.
    pub fn record(&mut self, seat: usize) {
        self.counts[seat] += 1;
    }

    pub fn counts(&self) -> [u64; SEATS] {
        self.counts
    }

    /// Goodness of fit to three equal frequencies; df 2.
    pub fn test(&self) -> ChiSquare {
        stats::chi_square_uniform(&self.counts)
    }
}

/// The tests of the battery, by what they look at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Test {
    /// Frequency of every order of a deck of this many cards.
    Orders(usize),
    /// The 54 x 54 card-by-position matrix.
    CardByPosition,
    /// The 54 x 4 card-by-destination matrix of Dou Dizhu deals.
    Destinations,
    /// The three seats' first-bidder counts.
    Leader,
    /// Each card's position in deal k against deal k + 1.
    SuccessiveDeals,
    /// Each card's position in one backend's deck against another backend's, both started
    /// together.
    Backends,
    /// Ordered samples of k of n rows (`sample_agg`): every ordered k-tuple equally likely.
    RowSamples { n: usize, k: usize },
    /// Ordered weighted samples of k of n rows (`sample_agg` with weights): each tuple with
    /// the probability of successive draws proportional to weight.
    WeightedRowSamples { n: usize, k: usize },
    /// Every order of n rows from `shuffle_agg`.
    RowShuffles(usize),
}

impl Test {
    pub fn name(&self) -> String {
        match self {
            Test::Orders(n) => format!("permutation frequency, n = {n} ({} bins)", factorial(*n)),
            Test::CardByPosition => "card by position (54 x 54)".into(),
            Test::Destinations => "card by destination (54 x 4)".into(),
            Test::Leader => "first bidder (3 seats)".into(),
            Test::SuccessiveDeals => "deal k against deal k+1 (54 x 54)".into(),
            Test::Backends => "backend against backend (54 x 54)".into(),
            Test::RowSamples { n, k } => format!(
                "sample_agg, {k} of {n} rows in order ({} bins)",
                ordered_tuples(*n, *k)
            ),
            Test::WeightedRowSamples { n, k } => {
                format!("weighted sample_agg, {k} of {n} in order")
            }
            Test::RowShuffles(n) => {
                format!("shuffle_agg, orders of {n} rows ({} bins)", factorial(*n))
            }
        }
    }
}

/// One test's result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    pub test: Test,
    pub result: ChiSquare,
}

impl Outcome {
    pub fn passes(&self) -> bool {
        passes(&self.result)
    }
}

/// A way of shuffling the deck it holds and of choosing who bids first.
pub trait Dealer {
    /// Shuffles `deck` in place.
    fn shuffle(&mut self, deck: &mut [usize]);
    /// The seat (0, 1 or 2) that bids first.
    fn leader(&mut self) -> usize;
}

/// The product's dealer: Fisher-Yates and exact draws on a ChaCha20 stream.
pub struct FairDealer {
    pub stream: Stream,
}

impl Dealer for FairDealer {
    fn shuffle(&mut self, deck: &mut [usize]) {
        fisher_yates(deck, &mut self.stream, &mut || {});
    }

    fn leader(&mut self) -> usize {
        self.stream.below(SEATS as u32) as usize
    }
}

/// What a broken shuffle draws from: bounded draws and raw words, as [`Stream`] gives them.
/// A crate with its own build of the core (the core's unit tests, which use these shuffles as
/// negative controls) implements it for that build's `Stream`.
pub trait Draws {
    /// A uniform integer in `0..bound`.
    fn below(&mut self, bound: u32) -> u32;
    /// The next 32-bit word of the stream.
    fn next_u32(&mut self) -> u32;
}

impl Draws for Stream {
    fn below(&mut self, bound: u32) -> u32 {
        Stream::below(self, bound)
    }

    fn next_u32(&mut self) -> u32 {
        Stream::next_u32(self)
    }
}

/// The naive shuffle: every position swapped with one drawn from the whole deck. Its n^n
/// equally likely draw sequences cannot fall evenly on n! orders, so some orders are favoured.
pub fn naive_swap<T>(items: &mut [T], stream: &mut impl Draws) {
    let n = items.len() as u32;
    for i in 0..items.len() {
        let j = stream.below(n) as usize;
        items.swap(i, j);
    }
}

/// Sattolo's algorithm: Fisher-Yates with j drawn from 0..i instead of 0..=i. It yields only the
/// (n-1)! single-cycle orders, so no card ever stays where it was.
pub fn sattolo<T>(items: &mut [T], stream: &mut impl Draws) {
    for i in (1..items.len()).rev() {
        let j = stream.below(i as u32) as usize;
        items.swap(i, j);
    }
}

/// Fisher-Yates whose draws are one random byte `% (i + 1)`: 256 is not a multiple of most
/// bounds, so small j come up more often (for a bound of 54, j < 40 five times in 256 and the
/// others four).
pub fn byte_modulo_fisher_yates<T>(items: &mut [T], stream: &mut impl Draws) {
    for i in (1..items.len()).rev() {
        let byte = stream.next_u32() as u8 as usize;
        items.swap(i, byte % (i + 1));
    }
}

/// The deliberately broken dealers the battery must reject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BrokenShuffle {
    NaiveSwap,
    Sattolo,
    ByteModulo,
}

impl BrokenShuffle {
    pub const ALL: [BrokenShuffle; 3] = [
        BrokenShuffle::NaiveSwap,
        BrokenShuffle::Sattolo,
        BrokenShuffle::ByteModulo,
    ];

    pub fn name(self) -> &'static str {
        match self {
            BrokenShuffle::NaiveSwap => "naive swap-with-any",
            BrokenShuffle::Sattolo => "Sattolo's algorithm",
            BrokenShuffle::ByteModulo => "Fisher-Yates, random byte % n",
        }
    }

    /// What it does wrong, in one line.
    pub fn fault(self) -> &'static str {
        match self {
            BrokenShuffle::NaiveSwap => {
                "swaps each position with any position: n^n paths onto n! orders"
            }
            BrokenShuffle::Sattolo => {
                "draws j from 0..i instead of 0..=i: single-cycle orders only"
            }
            BrokenShuffle::ByteModulo => {
                "scales one random byte with % n, and two random bits % 3 for the first bidder"
            }
        }
    }

    pub fn dealer(self, stream: Stream) -> BrokenDealer {
        BrokenDealer {
            shuffle: self,
            stream,
        }
    }
}

/// A dealer with a broken shuffle. Its first bidder is a fair draw, except for the modulo
/// dealer, which makes the same mistake there with the fewest bits that cover three seats.
pub struct BrokenDealer {
    shuffle: BrokenShuffle,
    stream: Stream,
}

impl Dealer for BrokenDealer {
    fn shuffle(&mut self, deck: &mut [usize]) {
        let stream = &mut self.stream;
        match self.shuffle {
            BrokenShuffle::NaiveSwap => naive_swap(deck, stream),
            BrokenShuffle::Sattolo => sattolo(deck, stream),
            BrokenShuffle::ByteModulo => byte_modulo_fisher_yates(deck, stream),
        }
    }

    fn leader(&mut self) -> usize {
        match self.shuffle {
            BrokenShuffle::ByteModulo => (self.stream.next_u32() & 3) as usize % SEATS,
            _ => self.stream.below(SEATS as u32) as usize,
        }
    }
}

/// How much each test of a battery looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizes {
    /// Shuffled decks for each of the order-frequency tests.
    pub orders: u64,
    /// Shuffled 54-card decks for card by position and for successive deals.
    pub decks: u64,
    /// Dou Dizhu deals for card by destination and first bidder.
    pub deals: u64,
}

/// The counts of a whole battery, for one dealer.
#[derive(Debug, Clone)]
pub struct Battery {
    pub orders: Vec<OrderFrequency>,
    pub card_by_position: CardByPosition,
    pub destinations: Destinations,
    pub leaders: Leaders,
    pub successive_deals: SuccessiveDeals,
}

impl Battery {
    /// Runs every test on `dealer`. Order frequency, card by position and destinations shuffle
    /// a fresh sorted deck each time, as `shuffle_ints` and `deal_cards` do. Successive deals
    /// follow a dealer who shuffles the deck it holds: deal k + 1 is the shuffle of deal k (for
    /// a fair shuffle, the same as shuffling a fresh deck).
    pub fn run(dealer: &mut dyn Dealer, sizes: &Sizes) -> Battery {
        let mut orders: Vec<OrderFrequency> = ORDER_SIZES
            .iter()
            .map(|&n| OrderFrequency::new(n))
            .collect();
        for frequency in &mut orders {
            for _ in 0..sizes.orders {
                let mut deck: Vec<usize> = (0..frequency.n()).collect();
                dealer.shuffle(&mut deck);
                frequency.record(&deck);
            }
        }

        let mut card_by_position = CardByPosition::new(DECK_SIZE);
        for _ in 0..sizes.decks {
            let mut deck: Vec<usize> = (0..DECK_SIZE).collect();
            dealer.shuffle(&mut deck);
            card_by_position.record(&deck);
        }

        let mut successive_deals = SuccessiveDeals::new(DECK_SIZE);
        let mut held: Vec<usize> = (0..DECK_SIZE).collect();
        for _ in 0..sizes.decks {
            dealer.shuffle(&mut held);
            successive_deals.record(&held);
        }

        let mut destinations = Destinations::default();
        let mut leaders = Leaders::default();
        for _ in 0..sizes.deals {
            let mut deck: Vec<usize> = (0..DECK_SIZE).collect();
            dealer.shuffle(&mut deck);
            destinations.record_deck(&deck);
            leaders.record(dealer.leader());
        }

        Battery {
            orders,
            card_by_position,
            destinations,
            leaders,
            successive_deals,
        }
    }

    /// Every test's result, in the report's order.
    pub fn outcomes(&self) -> Vec<Outcome> {
        let mut outcomes: Vec<Outcome> = self
            .orders
            .iter()
            .map(|frequency| Outcome {
                test: Test::Orders(frequency.n()),
                result: frequency.test(),
            })
            .collect();
        outcomes.extend([
            Outcome {
                test: Test::CardByPosition,
                result: self.card_by_position.test(),
            },
            Outcome {
                test: Test::Destinations,
                result: self.destinations.test(),
            },
            Outcome {
                test: Test::Leader,
                result: self.leaders.test(),
            },
            Outcome {
                test: Test::SuccessiveDeals,
                result: self.successive_deals.test(),
            },
        ]);
        outcomes
    }
}

#[cfg(test)]
mod tests;
