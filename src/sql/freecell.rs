//! SQL functions for FreeCell deals: freecell_layout, freecell_cards, freecell_board.

use pgrx::callconv::{BoxRet, FcInfo};
use pgrx::datum::Datum;
use pgrx::pg_sys;
use pgrx::pgrx_sql_entity_graph::metadata::{
    ArgumentError, ReturnsError, ReturnsRef, SqlMappingRef, SqlTranslatable, TypeOrigin,
};
use pgrx::prelude::*;
use pgrx::IntoDatum;

use super::ok_or_raise;
use crate::freecell::{label, Deal, Suits, COLUMNS, LAYOUT_LEN};

/// A layout as a ready `text` Datum: one palloc of the final varlena, which the core writes
/// into directly (no Rust String, no copy).
struct LayoutText(pg_sys::Datum);

impl LayoutText {
    fn of(deal: &Deal) -> Self {
        let size = pg_sys::VARHDRSZ + LAYOUT_LEN;
        // SAFETY: palloc returns `size` bytes or raises an ERROR; the first VARHDRSZ bytes are the
        // 4-byte varlena header set here, and the array view covers exactly the LAYOUT_LEN bytes
        // after it, which write_layout fills completely.
        unsafe {
            let text = pg_sys::palloc(size) as *mut pg_sys::varlena;
            pgrx::set_varsize_4b(text, size as i32);
            let data = &mut *((text as *mut u8).add(pg_sys::VARHDRSZ) as *mut [u8; LAYOUT_LEN]);
            deal.write_layout(data);
            LayoutText(pg_sys::Datum::from(text))
        }
    }
}

impl IntoDatum for LayoutText {
    fn into_datum(self) -> Option<pg_sys::Datum> {
        Some(self.0)
    }

    fn type_oid() -> pg_sys::Oid {
        pg_sys::TEXTOID
    }
}

unsafe impl BoxRet for LayoutText {
    unsafe fn box_into<'fcx>(self, fcinfo: &mut FcInfo<'fcx>) -> Datum<'fcx> {
        unsafe { fcinfo.return_raw_datum(self.0) }
    }
}

unsafe impl SqlTranslatable for LayoutText {
    const TYPE_IDENT: &'static str = <String as SqlTranslatable>::TYPE_IDENT;
    const TYPE_ORIGIN: TypeOrigin = <String as SqlTranslatable>::TYPE_ORIGIN;
    const ARGUMENT_SQL: Result<SqlMappingRef, ArgumentError> =
        <String as SqlTranslatable>::ARGUMENT_SQL;
    const RETURN_SQL: Result<ReturnsRef, ReturnsError> = <String as SqlTranslatable>::RETURN_SQL;
}

/// Microsoft FreeCell's game `game_no` in Freecell Solver's text format: one line per column.
#[pg_extern(immutable, strict, parallel_safe)]
fn freecell_layout(game_no: i64) -> LayoutText {
    LayoutText::of(&ok_or_raise(Deal::of_game(game_no)))
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
    // SAFETY: reads the backend's database encoding, set once at connection start.
    let utf8 = unsafe { pg_sys::GetDatabaseEncoding() } == pg_sys::pg_enc::PG_UTF8 as i32;
    let suits = if utf8 { Suits::Symbols } else { Suits::Letters };
    SetOfIterator::new(deal.board_rows(suits))
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
