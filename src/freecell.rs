//! SQL functions for FreeCell deals: freecell_layout, freecell_cards, freecell_board.

use pgrx::prelude::*;

use crate::ok_or_raise;
use crate::results::Built;
use dealcards_core::freecell::{label, Deal, COLUMNS, LAYOUT_LEN};

/// A layout as a text built in place: the core writes the final bytes, no Rust String between.
fn layout_text(deal: &Deal) -> Built<String> {
    ok_or_raise(Built::<String>::text(LAYOUT_LEN, |data| {
        deal.write_layout(data.try_into().expect("LAYOUT_LEN bytes"))
    }))
}

/// Microsoft FreeCell's game `game_no` in Freecell Solver's text format: one line per column.
#[pg_extern(immutable, strict, parallel_safe)]
fn freecell_layout(game_no: i64) -> Built<String> {
    layout_text(&ok_or_raise(Deal::of_game(game_no)))
}

/// The same deal as rows: column 1..8 (left to right, as in the game), row 0.. (0 furthest from
/// the player), card 0..51 (rank * 4 + suit, suits C D H S) and its label.
#[pg_extern(immutable, strict, parallel_safe)]
fn freecell_cards(
    game_no: i64,
) -> TableIterator<
    'static,
    (
        name!(col, i32),
        name!(row, i32),
        name!(card, i32),
        name!(label, &'static str),
    ),
> {
    let deal = ok_or_raise(Deal::of_game(game_no));
    let rows: Vec<_> = (0..COLUMNS)
        .flat_map(|column| {
            deal.column(column).enumerate().map(move |(row, card)| {
                (column as i32 + 1, row as i32, i32::from(card), label(card))
            })
        })
        .collect();
    TableIterator::new(rows)
}

/// The board as the game shows it, one text per row, for reading in psql. Suits are symbols in
/// a UTF8 database and letters in any other, whose encoding may not have the symbols.
#[pg_extern(immutable, strict, parallel_safe)]
fn freecell_board(game_no: i64) -> SetOfIterator<'static, String> {
    let deal = ok_or_raise(Deal::of_game(game_no));
    SetOfIterator::new(deal.board_rows(crate::database_suits()))
}

#[cfg(any(test, feature = "pg_test"))]
#[pg_schema]
mod tests {
    use pgrx::prelude::*;

    fn text(sql: &str) -> String {
        Spi::get_one::<String>(sql).unwrap().unwrap()
    }

    #[pg_test]
    fn freecell_layout_of_game_1() {
        // Rosetta Code, "Deal cards for FreeCell", game #1.
        assert_eq!(
            text("SELECT freecell_layout(1)"),
            "JD KD 2S 4C 3S 6D 6S\n2D KC KS 5C TD 8S 9C\n9H 9S 9D TS 4S 8D 2H\n\
             JC 5S QD QH TH QS 6H\n5D AD JS 4H 8H 6C\n7H QC AS AC 2C 3D\n\
             7C KH AH 4D JH 8C\n5H 3H 3C 7S 7D TC"
        );
    }

    #[pg_test]
    fn freecell_int_argument_needs_no_cast() {
        let bigint = text("SELECT freecell_layout(617::bigint)");
        assert_eq!(text("SELECT freecell_layout(617)"), bigint);
        assert_eq!(text("SELECT freecell_layout(617::int)"), bigint);
        assert_eq!(text("SELECT freecell_layout(617::smallint)"), bigint);
    }

    #[pg_test]
    fn freecell_cards_agree_with_the_layout() {
        let agree = Spi::get_one::<bool>(
            "SELECT string_agg(col_text, E'\\n' ORDER BY col) = freecell_layout(24)
               FROM (SELECT col, string_agg(label, ' ' ORDER BY row) AS col_text
                       FROM freecell_cards(24) GROUP BY col) c",
        )
        .unwrap();
        assert_eq!(agree, Some(true));
        let (n, distinct) = Spi::get_two::<i64, i64>(
            "SELECT count(*), count(DISTINCT card) FROM freecell_cards(6687921694)",
        )
        .unwrap();
        assert_eq!((n, distinct), (Some(52), Some(52)));
    }

    #[pg_test]
    fn freecell_board_has_seven_rows() {
        let rows = Spi::get_one::<i64>("SELECT count(*) FROM freecell_board(-1)").unwrap();
        assert_eq!(rows, Some(7));
    }

    #[pg_test]
    #[should_panic(
        expected = "FreeCell game number 0 does not exist: games are 1 to 8589934591, and the hidden deals -1 and -2"
    )]
    fn freecell_game_0_is_rejected() {
        Spi::run("SELECT freecell_layout(0)").unwrap();
    }

    #[pg_test]
    fn freecell_null_in_null_out() {
        assert_eq!(
            Spi::get_one::<String>("SELECT freecell_layout(NULL)").unwrap(),
            None
        );
    }
}
