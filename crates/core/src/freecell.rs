//! Microsoft FreeCell's numbered deals, card for card as the game deals them.
//!
//! Jim Horne's published deal: a game number seeds the Microsoft C runtime's `rand()`, and the
//! 52 cards of `cards.dll` (card = rank * 4 + suit, ranks A..K, suits clubs, diamonds, hearts,
//! spades) are drawn from a shrinking deck, `j = rand() % left`, the drawn slot refilled with the
//! deck's last card. Card `i` of the draw goes to column `i % 8`, row `i / 8`.
//!
//! Game numbers are those a player can type: 1..=8,589,934,591 (FreeCell Pro's range, which the
//! solver community and Freecell Solver follow; Windows dealt 1..=32,000 and later
//! 1..=1,000,000), and Windows XP's two hidden, unshuffled deals -1 and -2.

use crate::error::Error;

/// Cards in a deal.
pub const CARDS: usize = 52;
/// Columns of the tableau; columns 1-4 get 7 cards, 5-8 get 6.
pub const COLUMNS: usize = 8;
/// Rows of the longest column.
pub const ROWS: usize = CARDS.div_ceil(COLUMNS);
/// The first shuffled game.
pub const FIRST_GAME: i64 = 1;
/// FreeCell Pro's last game, 2^33 - 1.
pub const LAST_GAME: i64 = (1 << 33) - 1;
/// Length of [`Deal::write_layout`]'s text: 52 two-character cards, 44 spaces between cards of
/// a column, 7 newlines between columns.
pub const LAYOUT_LEN: usize = CARDS * 2 + (CARDS - COLUMNS) + (COLUMNS - 1);

const RANKS: &[u8; 13] = b"A23456789TJQK";

/// The two-character labels of cards 0..51 (`AC`, `AD`, ..., `KS`), for writing a layout
/// without formatting.
const LABELS: [[u8; 2]; CARDS] = {
    let mut labels = [[0u8; 2]; CARDS];
    let mut card = 0;
    while card < CARDS {
        labels[card] = [RANKS[card / 4], b"CDHS"[card % 4]];
        card += 1;
    }
    labels
};

/// The label of a card 0..51: rank then suit letter, ten as `T` (`AC`, `TD`, `KS`).
pub fn label(card: u8) -> &'static str {
    let bytes: &'static [u8; 2] = &LABELS[usize::from(card)];
    // The table holds ASCII only.
    std::str::from_utf8(bytes).expect("card labels are ASCII")
}

/// The Microsoft C runtime's `rand()`: a 32-bit linear congruential state whose bits 16..30
/// are the result. `srand(n)` sets the state to n.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MsRand {
    state: u32,
}

impl MsRand {
    pub fn srand(seed: u32) -> Self {
        MsRand { state: seed }
    }

    fn step(&mut self) -> u32 {
        self.state = self.state.wrapping_mul(214_013).wrapping_add(2_531_011);
        self.state >> 16
    }

    /// The next value, 0..=32767.
    pub fn rand(&mut self) -> u32 {
        self.step() & 0x7fff
    }
}

/// How a game number turns into draws: FreeCell Pro's three ranges. Plain `rand()` never reads
/// bit 31 of its state, so without the changes above 2^31 - 1 game n + 2^31 would repeat game n.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Draws {
    seed: u32,
    /// Bits of `state >> 16` kept: 15 (plain rand) or 16.
    mask: u32,
    /// Set into every draw: 0x8000 for games 2^31..2^32-1.
    high: u32,
    /// Added to every draw: 1 for games from 2^32.
    offset: u32,
}

impl Draws {
    fn of_game(game_no: i64) -> Option<Self> {
        let draws = |seed: i64, mask, high, offset| Draws {
            seed: seed as u32,
            mask,
            high,
            offset,
        };
        match game_no {
            FIRST_GAME..0x8000_0000 => Some(draws(game_no, 0x7fff, 0, 0)),
            0x8000_0000..0x1_0000_0000 => Some(draws(game_no, 0x7fff, 0x8000, 0)),
            0x1_0000_0000..=LAST_GAME => Some(draws(game_no - 0x1_0000_0000, 0xffff, 0, 1)),
            _ => None,
        }
    }
}

/// A dealt board: `cards[i]` is card i of the deal, at column `i % 8`, row `i / 8`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deal {
    cards: [u8; CARDS],
}

/// How [`Deal::board_rows`] draws suits: the deck's own choice of symbols or letters.
pub use crate::cards::Suits;

impl Deal {
    /// The deal of a game number, or an InvalidParameter error naming the valid numbers.
    pub fn of_game(game_no: i64) -> Result<Self, Error> {
        match game_no {
            -1 => Ok(Deal::hidden_minus_one()),
            -2 => Ok(Deal::hidden_minus_two()),
            _ => match Draws::of_game(game_no) {
                Some(draws) => Ok(Deal::shuffled(draws)),
                None => Err(Error::invalid(format!(
                    "FreeCell game number {game_no} does not exist: games are {FIRST_GAME} to \
                     {LAST_GAME}, and the hidden deals -1 and -2"
                ))),
            },
        }
    }

    fn shuffled(draws: Draws) -> Self {
        let mut deck: [u8; CARDS] = std::array::from_fn(|card| card as u8);
        let mut cards = [0u8; CARDS];
        let mut rand = MsRand::srand(draws.seed);
        let mut left = CARDS;
        for card in cards.iter_mut() {
            let r = ((rand.step() & draws.mask) | draws.high) + draws.offset;
            let j = r as usize % left;
            *card = deck[j];
            left -= 1;
            deck[j] = deck[left];
        }
        Deal { cards }
    }

    /// Windows XP's game -1, unshuffled: columns 1-4 hold the odd ranks of clubs, diamonds,
    /// hearts, spades upwards from the ace; columns 5-8 the even ranks of the same suits
    /// downwards from the queen.
    fn hidden_minus_one() -> Self {
        Deal::from_fn(|column, row| {
            let (rank, suit) = if column < 4 {
                (2 * row, column)
            } else {
                (11 - 2 * row, column - 4)
            };
            rank * 4 + suit
        })
    }

    /// Windows XP's game -2, unshuffled: columns 1-4 are spades, hearts, diamonds, clubs, each
    /// the ace then king down to eight; columns 5-8 the same suits from seven down to two.
    fn hidden_minus_two() -> Self {
        Deal::from_fn(|column, row| {
            let (rank, suit) = match (column < 4, row) {
                (true, 0) => (0, 3 - column),
                (true, _) => (13 - row, 3 - column),
                (false, _) => (6 - row, 7 - column),
            };
            rank * 4 + suit
        })
    }

    /// A deal from the card at each (column 0..8, row) position.
    fn from_fn(card_at: impl Fn(usize, usize) -> usize) -> Self {
        Deal {
            cards: std::array::from_fn(|i| card_at(i % COLUMNS, i / COLUMNS) as u8),
        }
    }

    /// The cards in the order they were dealt.
    pub fn cards(&self) -> &[u8; CARDS] {
        &self.cards
    }

    /// The cards of column 0..8, the one furthest from the player first.
    pub fn column(&self, column: usize) -> impl Iterator<Item = u8> + '_ {
        self.cards.iter().skip(column).step_by(COLUMNS).copied()
    }

    /// Writes the layout Freecell Solver reads: one line per column, cards furthest from the
    /// player first, separated by single spaces, lines separated by newlines (none after the
    /// last). No allocation: the SQL layer hands over the text's own buffer.
    pub fn write_layout(&self, out: &mut [u8; LAYOUT_LEN]) {
        let mut at = 0;
        for column in 0..COLUMNS {
            if column > 0 {
                out[at] = b'\n';
                at += 1;
            }
            for (row, card) in self.column(column).enumerate() {
                if row > 0 {
                    out[at] = b' ';
                    at += 1;
                }
                out[at..at + 2].copy_from_slice(&LABELS[usize::from(card)]);
                at += 2;
            }
        }
        debug_assert_eq!(at, LAYOUT_LEN);
    }

    /// [`Deal::write_layout`] as a String.
    pub fn layout(&self) -> String {
        let mut out = [0u8; LAYOUT_LEN];
        self.write_layout(&mut out);
        String::from_utf8(out.to_vec()).expect("layouts are ASCII")
    }

    /// The board as the game shows it, one string per row: columns side by side, each card its
    /// rank (ten as `10`) right-aligned in two places and its suit, cards one space apart.
    pub fn board_rows(&self, suits: Suits) -> Vec<String> {
        self.cards
            .chunks(COLUMNS)
            .map(|row| {
                let cells: Vec<String> = row
                    .iter()
                    .map(|&card| {
                        let rank = usize::from(card / 4);
                        let rank = if rank == 9 {
                            "10".to_string()
                        } else {
                            format!(" {}", char::from(RANKS[rank]))
                        };
                        format!("{rank}{}", suits.of(usize::from(card % 4)))
                    })
                    .collect();
                cells.join(" ")
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
