//! Unit tests of `freecell`, in a file of their own: the module reads without them.

use super::*;

fn layout(game_no: i64) -> String {
    Deal::of_game(game_no).unwrap().layout()
}

/// A board given as its columns, one string per column.
fn columns(columns: [&str; 8]) -> String {
    columns.join("\n")
}

/// A board as published in a Freecell Solver `.board` file: one line per column, each line
/// ending in a newline.
fn board_file(text: &str) -> String {
    text.strip_suffix('\n').unwrap().to_string()
}

fn assert_permutation(deal: &Deal) {
    let mut cards = deal.cards().to_vec();
    cards.sort_unstable();
    assert_eq!(cards, (0..52).collect::<Vec<u8>>());
}

#[test]
fn rand_after_srand_1() {
    // Microsoft C's rand() after srand(1), as given for FreeCell's deal algorithm.
    let mut rand = MsRand::srand(1);
    let values: Vec<u32> = (0..6).map(|_| rand.rand()).collect();
    assert_eq!(values, [41, 18467, 6334, 26500, 19169, 15724]);
}

#[test]
fn rand_by_hand() {
    // srand(0): state 0 * 214013 + 2531011 = 2531011 = 0x0026_9EC3, >> 16 = 0x26 = 38.
    // Next: 2531011 * 214013 + 2531011 = 2531011 * 214014 = 541,671,788,154;
    // mod 2^32 = 541,671,788,154 - 126 * 4,294,967,296 = 505,908,858 = 0x1E27_8E7A;
    // >> 16 = 0x1E27 = 7719.
    let mut rand = MsRand::srand(0);
    assert_eq!(rand.rand(), 38);
    assert_eq!(rand.rand(), 7719);
}

#[test]
fn game_1() {
    // Rosetta Code, "Deal cards for FreeCell" (game #1).
    assert_eq!(
        layout(1),
        columns([
            "JD KD 2S 4C 3S 6D 6S",
            "2D KC KS 5C TD 8S 9C",
            "9H 9S 9D TS 4S 8D 2H",
            "JC 5S QD QH TH QS 6H",
            "5D AD JS 4H 8H 6C",
            "7H QC AS AC 2C 3D",
            "7C KH AH 4D JH 8C",
            "5H 3H 3C 7S 7D TC",
        ])
    );
}

#[test]
fn game_617() {
    // Rosetta Code, "Deal cards for FreeCell" (game #617).
    assert_eq!(
        layout(617),
        columns([
            "7D TD TH KD 4C 4S JD",
            "AD 7S QC 5H QS TS KS",
            "5C QD 3H 9S 9C 2H KC",
            "3S AC 9D 3C 9H 5D 4H",
            "5S 6D 6S 8S 7C JC",
            "8C 8H 8D 7H 6H 6C",
            "2D AS 3D 4D 2C JH",
            "AH KH TC JS 2S QH",
        ])
    );
}

#[test]
fn game_24() {
    // Freecell Solver's test suite: shlomif/fc-solve, fc-solve/source/t/t/board-gen.t
    // ("Testing for Freecell", deal 24) and t/t/board-gen-lib.py ("Board 24").
    assert_eq!(
        layout(24),
        columns([
            "4C 2C 9C 8C QS 4S 2H",
            "5H QH 3C AC 3H 4H QD",
            "QC 9S 6H 9H 3S KS 3D",
            "5D 2S JC 5C JH 6D AS",
            "2D KD TH TC TD 8D",
            "7H JS KH TS KC 7C",
            "AH 5S 6S AD 8H JD",
            "7S 6C 7D 4D 8S 9D",
        ])
    );
}

#[test]
fn game_100000() {
    // Freecell Solver's test suite: shlomif/fc-solve, fc-solve/source/t/t/board-gen.t
    // ("make_pysol --ms -t 100000").
    assert_eq!(
        layout(100_000),
        columns([
            "5C 6S JC 2D 2C 8S 3C",
            "QS 7S 9C QD JD 9D AS",
            "8C TH 3H 4C TS 2H QC",
            "AD 7C JS QH 5D 6D 4H",
            "7D 4S KD 7H 5S 3D",
            "TD 4D TC 6H 8D 2S",
            "KC AH JH 8H KH 6C",
            "3S AC 9H KS 5H 9S",
        ])
    );
}

#[test]
fn game_7239_by_rows() {
    // spinnytea/freecell, src/game/move/juice.canFlourish.test.ts ("Game #7239"), which
    // prints the board by rows, as the game shows it.
    let rows = [
        "5H 7S 8D 5S KH JS QC 4S",
        "4C AD JC 2C 6S 2D AS KC",
        "5D 2S 8H 9S 7D TD AH TS",
        "8C QS 9C 8S 6D 7H AC KD",
        "4D 6C 9H 3C TH 3D JH 7C",
        "3S 6H 3H TC QD KS QH 9D",
        "4H 2H 5C JD",
    ];
    let deal = Deal::of_game(7239).unwrap();
    let got: Vec<String> = deal
        .cards()
        .chunks(COLUMNS)
        .map(|row| row.iter().map(|&c| label(c)).collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(got, rows);
}

/// Boards of the FreeCell Pro range, published in shlomif/freecell-pro-intractable-deals,
/// deals/<game>.board, generated there by Freecell Solver's
/// `pi-make-microsoft-freecell-board -t <game>`.
const FREECELL_PRO_BOARDS: [(i64, &str); 9] = [
    (
        219_837_216,
        "8S JD 6C 5S TC 2C KC\n2S 3D 3S AH TS KS 4S\n6S 7C QS 9H AS JS KH\n\
         AC 5D AD 5H 9C 4C TD\n3H 7D TH JC QD QH\n9D 3C 5C 7S 2D 2H\n\
         9S 4H 8C JH 6D KD\n4D 8H 8D 7H QC 6H\n",
    ),
    (
        1_252_215_044,
        "6D 3S AS 8D 5S 3H KS\nQS QH 4C 4S 3C QC 7H\n5C AC 8S KC TC 6H TH\n\
         TS AD AH TD 7C KH KD\n6S 4H 6C 4D 8H 5D\n2S 7D JC JS JD JH\n\
         8C QD 2C 9H 9D 2D\n9S 3D 5H 9C 7S 2H\n",
    ),
    (
        2_255_988_055,
        "TS JS 7H 5C 4C 4D JD\nAS 6H 6D 2C TH TD JH\nAH QS JC 9S 7C KC 7S\n\
         QC QD 8S 6S QH 9H 4S\nAD 5D TC 8C 5H 9D\n3H 6C 3D KH 5S 2H\n\
         8H 2D 9C KS 7D KD\n2S 4H AC 8D 3C 3S\n",
    ),
    (
        2_901_685_480,
        "5S 6D 9S 5H 5D 9C QH\n4D AD 5C KC 7H 8C 3H\nAC QC 7D 6H JS TS QD\n\
         AH JH 4C 4H KS TD TC\nQS 4S 2D 2H 7C 3S\n2C AS 8D 6C 8S 6S\n\
         KH 7S 9H KD JC 3D\n8H 9D TH 2S JD 3C\n",
    ),
    (
        2_902_413_565,
        "8H 9H 8S 8D KH 6D 4H\nTD 2D JH TH QC 4S 4D\n6H 3S 7S 4C JD 5D 2C\n\
         AS AC 3H KS 7C QD AD\n9D 6S 2H KD 8C 3D\n9C 5C 3C TC 9S TS\n\
         7D AH 5H 7H 5S QH\nJS JC 6C KC QS 2S\n",
    ),
    (
        4_260_084_873,
        "8H 2H 8D KD AS 9D TH\n9S JS AC 9H JD 3S 2S\n8S 6S AD AH 6C 4D QD\n\
         TS 7C 7H QS 7D 2C 3H\n4C 3C KC QC KH 9C\n5S 6H 5C 7S 2D 6D\n\
         TC 4H JC 3D 5H QH\nKS 5D 4S 8C JH TD\n",
    ),
    (
        6_687_921_694,
        "4C 8S AH 8H KH 7S KS\n8C 2D 6S 5C 5S 4D 3C\nAD 6D 6H KC 4H 5H JS\n\
         7C JH QS AC 3S 7H 9D\nQC JC TC 6C JD 3D\nQD AS QH 9C 9H 2C\n\
         TS 5D 2H 4S 8D 3H\n7D 9S TH TD 2S KD\n",
    ),
    (
        6_825_625_742,
        "5H 5D 2H AS QD QS 2C\nAH JS QC AD 7C 7S KH\nJC 4D 6S 6C 3C 9H TC\n\
         KD 3D QH 3S 9S 5C 4S\nTH 7D 8D 3H 8H TD\nJH 8C JD AC KS KC\n\
         4C 9C 9D 7H 4H 6H\n2S 5S 8S 6D TS 2D\n",
    ),
    (
        7_489_392_343,
        "JC 3H JH 5C 8H 4C 6H\n5H JD 2H 5D 8D 3D KC\nTD 7C 7S AC KH 9C 4H\n\
         QD 2D 9S AH 2C QH TS\n8S 4S 8C JS TC 9D\n6S QS 5S TH 6C 6D\n\
         9H 3C AS QC 7D KD\n4D 7H 3S 2S KS AD\n",
    ),
];

#[test]
fn freecell_pro_range() {
    // Two games below 2^31, four in 2^31..2^32 (rand | 0x8000), three from 2^32 (16-bit
    // rand + 1, seeded with n - 2^32).
    for (game_no, board) in FREECELL_PRO_BOARDS {
        assert_eq!(layout(game_no), board_file(board), "game {game_no}");
    }
}

#[test]
fn hidden_deal_minus_one() {
    // Windows XP's hidden game -1, as this extension specifies it.
    assert_eq!(
        layout(-1),
        columns([
            "AC 3C 5C 7C 9C JC KC",
            "AD 3D 5D 7D 9D JD KD",
            "AH 3H 5H 7H 9H JH KH",
            "AS 3S 5S 7S 9S JS KS",
            "QC TC 8C 6C 4C 2C",
            "QD TD 8D 6D 4D 2D",
            "QH TH 8H 6H 4H 2H",
            "QS TS 8S 6S 4S 2S",
        ])
    );
}

#[test]
fn hidden_deal_minus_two() {
    // Windows XP's hidden game -2, as this extension specifies it.
    assert_eq!(
        layout(-2),
        columns([
            "AS KS QS JS TS 9S 8S",
            "AH KH QH JH TH 9H 8H",
            "AD KD QD JD TD 9D 8D",
            "AC KC QC JC TC 9C 8C",
            "7S 6S 5S 4S 3S 2S",
            "7H 6H 5H 4H 3H 2H",
            "7D 6D 5D 4D 3D 2D",
            "7C 6C 5C 4C 3C 2C",
        ])
    );
}

#[test]
fn every_board_is_a_permutation() {
    let edges = [
        -2,
        -1,
        1,
        2,
        32_000,
        1_000_000,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
        0x1_0000_0000,
        LAST_GAME,
    ];
    for game_no in edges.into_iter().chain(1..=20_000) {
        assert_permutation(&Deal::of_game(game_no).unwrap());
    }
}

#[test]
fn the_three_ranges_differ() {
    // Without FreeCell Pro's changes, n, n + 2^31 and n + 2^32 would share a seed's draws.
    for n in [1, 617, 11_982] {
        let low = layout(n);
        assert_ne!(low, layout(n + 0x8000_0000));
        assert_ne!(low, layout(n + 0x1_0000_0000));
        assert_ne!(layout(n + 0x8000_0000), layout(n + 0x1_0000_0000));
    }
}

#[test]
fn other_numbers_are_rejected() {
    for game_no in [0, -3, -1_000, LAST_GAME + 1, i64::MIN, i64::MAX] {
        let err = Deal::of_game(game_no).unwrap_err();
        assert_eq!(err.kind, crate::error::ErrorKind::InvalidParameter);
        assert_eq!(
            err.message,
            format!(
                "FreeCell game number {game_no} does not exist: games are 1 to 8589934591, \
                 and the hidden deals -1 and -2"
            )
        );
    }
}

#[test]
fn labels() {
    assert_eq!(label(0), "AC");
    assert_eq!(label(1), "AD");
    assert_eq!(label(2), "AH");
    assert_eq!(label(3), "AS");
    assert_eq!(label(36), "TC");
    assert_eq!(label(51), "KS");
    let all: std::collections::HashSet<_> = (0..52).map(label).collect();
    assert_eq!(all.len(), 52);
}

#[test]
fn layout_has_its_fixed_length() {
    assert_eq!(LAYOUT_LEN, 155);
    assert_eq!(layout(1).len(), LAYOUT_LEN);
}

#[test]
fn board_rows_of_game_1() {
    // Game 1's columns (Rosetta Code) read across, with the game's ten and suit symbols.
    let rows = Deal::of_game(1).unwrap().board_rows(Suits::Symbols);
    assert_eq!(
        rows,
        [
            " J♦  2♦  9♥  J♣  5♦  7♥  7♣  5♥",
            " K♦  K♣  9♠  5♠  A♦  Q♣  K♥  3♥",
            " 2♠  K♠  9♦  Q♦  J♠  A♠  A♥  3♣",
            " 4♣  5♣ 10♠  Q♥  4♥  A♣  4♦  7♠",
            " 3♠ 10♦  4♠ 10♥  8♥  2♣  J♥  7♦",
            " 6♦  8♠  8♦  Q♠  6♣  3♦  8♣ 10♣",
            " 6♠  9♣  2♥  6♥",
        ]
    );
    let letters = Deal::of_game(1).unwrap().board_rows(Suits::Letters);
    assert_eq!(letters[3], " 4C  5C 10S  QH  4H  AC  4D  7S");
}
