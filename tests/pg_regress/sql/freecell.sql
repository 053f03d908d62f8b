-- Microsoft FreeCell's numbered deals: freecell_layout, freecell_cards, freecell_board.
\set SHOW_CONTEXT never

-- Game 1, and its text checked against Rosetta Code's "Deal cards for FreeCell" (game #1).
SELECT freecell_layout(1);
SELECT freecell_layout(1) = 'JD KD 2S 4C 3S 6D 6S
2D KC KS 5C TD 8S 9C
9H 9S 9D TS 4S 8D 2H
JC 5S QD QH TH QS 6H
5D AD JS 4H 8H 6C
7H QC AS AC 2C 3D
7C KH AH 4D JH 8C
5H 3H 3C 7S 7D TC' AS rosetta_code_game_1;

-- Game 617, against Rosetta Code's "Deal cards for FreeCell" (game #617).
SELECT freecell_layout(617) = '7D TD TH KD 4C 4S JD
AD 7S QC 5H QS TS KS
5C QD 3H 9S 9C 2H KC
3S AC 9D 3C 9H 5D 4H
5S 6D 6S 8S 7C JC
8C 8H 8D 7H 6H 6C
2D AS 3D 4D 2C JH
AH KH TC JS 2S QH' AS rosetta_code_game_617;

-- Game 24, against Freecell Solver's test suite (shlomif/fc-solve,
-- fc-solve/source/t/t/board-gen.t, "Testing for Freecell").
SELECT freecell_layout(24) = '4C 2C 9C 8C QS 4S 2H
5H QH 3C AC 3H 4H QD
QC 9S 6H 9H 3S KS 3D
5D 2S JC 5C JH 6D AS
2D KD TH TC TD 8D
7H JS KH TS KC 7C
AH 5S 6S AD 8H JD
7S 6C 7D 4D 8S 9D' AS fc_solve_game_24;

-- FreeCell Pro's extended range, against shlomif/freecell-pro-intractable-deals,
-- deals/<game>.board (made by Freecell Solver's pi-make-microsoft-freecell-board -t <game>):
-- one game below 2^31, one in 2^31..2^32-1, one from 2^32.
SELECT freecell_layout(1252215044) = '6D 3S AS 8D 5S 3H KS
QS QH 4C 4S 3C QC 7H
5C AC 8S KC TC 6H TH
TS AD AH TD 7C KH KD
6S 4H 6C 4D 8H 5D
2S 7D JC JS JD JH
8C QD 2C 9H 9D 2D
9S 3D 5H 9C 7S 2H' AS game_1252215044,
       freecell_layout(4260084873) = '8H 2H 8D KD AS 9D TH
9S JS AC 9H JD 3S 2S
8S 6S AD AH 6C 4D QD
TS 7C 7H QS 7D 2C 3H
4C 3C KC QC KH 9C
5S 6H 5C 7S 2D 6D
TC 4H JC 3D 5H QH
KS 5D 4S 8C JH TD' AS game_4260084873,
       freecell_layout(7489392343) = 'JC 3H JH 5C 8H 4C 6H
5H JD 2H 5D 8D 3D KC
TD 7C 7S AC KH 9C 4H
QD 2D 9S AH 2C QH TS
8S 4S 8C JS TC 9D
6S QS 5S TH 6C 6D
9H 3C AS QC 7D KD
4D 7H 3S 2S KS AD' AS game_7489392343;

-- Windows XP's hidden deals, against their columns as this extension specifies them.
SELECT freecell_layout(-1);
SELECT freecell_layout(-1) = 'AC 3C 5C 7C 9C JC KC
AD 3D 5D 7D 9D JD KD
AH 3H 5H 7H 9H JH KH
AS 3S 5S 7S 9S JS KS
QC TC 8C 6C 4C 2C
QD TD 8D 6D 4D 2D
QH TH 8H 6H 4H 2H
QS TS 8S 6S 4S 2S' AS hidden_minus_1,
       freecell_layout(-2) = 'AS KS QS JS TS 9S 8S
AH KH QH JH TH 9H 8H
AD KD QD JD TD 9D 8D
AC KC QC JC TC 9C 8C
7S 6S 5S 4S 3S 2S
7H 6H 5H 4H 3H 2H
7D 6D 5D 4D 3D 2D
7C 6C 5C 4C 3C 2C' AS hidden_minus_2;

-- An int argument needs no cast; a layout is always 155 bytes.
SELECT freecell_layout(617) = freecell_layout(617::bigint) AS int_literal,
       freecell_layout(617::smallint) = freecell_layout(617::bigint) AS smallint,
       octet_length(freecell_layout(8589934591)) AS last_game_bytes;
SELECT g, split_part(freecell_layout(g), E'\n', 1) AS first_column
  FROM generate_series(1, 3) g;

-- freecell_cards: the deal as rows; column 1 of game 1, then the whole board's shape.
SELECT * FROM freecell_cards(1) WHERE col = 1;
SELECT col, count(*) AS cards, min(row) AS first_row, max(row) AS last_row
  FROM freecell_cards(617) GROUP BY col ORDER BY col;
-- Card numbers are FreeCell's: rank * 4 + suit, suits C D H S.
SELECT bool_and(label = substr('A23456789TJQK', card / 4 + 1, 1) || substr('CDHS', card % 4 + 1, 1))
         AS labels_match_card_numbers
  FROM freecell_cards(1);
-- The rows spell the layout.
SELECT string_agg(col_text, E'\n' ORDER BY col) = freecell_layout(7489392343) AS cards_spell_layout
  FROM (SELECT col, string_agg(label, ' ' ORDER BY row) AS col_text
          FROM freecell_cards(7489392343) GROUP BY col) c;

-- Every board is a permutation of the 52 cards: games 1..2000, the edges of each range and the
-- hidden deals.
SELECT count(*) AS games, count(*) FILTER (WHERE is_permutation) AS permutations
  FROM (SELECT g, (SELECT array_agg(card ORDER BY card) FROM freecell_cards(g))
                  = (SELECT array_agg(c) FROM generate_series(0, 51) c) AS is_permutation
          FROM (SELECT generate_series(1, 2000)::bigint AS g
                UNION ALL
                SELECT unnest(ARRAY[-2, -1, 32000, 1000000, 2147483647, 2147483648,
                                    4294967295, 4294967296, 8589934591]::bigint[])) games) t;
-- FreeCell Pro's ranges give different games for n, n + 2^31 and n + 2^32.
SELECT count(DISTINCT freecell_layout(n)) AS distinct_layouts
  FROM unnest(ARRAY[11982, 11982 + 2147483648, 11982 + 4294967296]::bigint[]) n;

-- freecell_board: the board as the game shows it. In a UTF8 database, with suit symbols.
\set regress_db :DBNAME
CREATE DATABASE dealcards_freecell_utf8 TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C';
\c dealcards_freecell_utf8
CREATE EXTENSION dealcards;
SELECT * FROM freecell_board(1);
SELECT * FROM freecell_board(-2);
-- In a database whose encoding may lack the symbols, with suit letters.
CREATE DATABASE dealcards_freecell_ascii TEMPLATE template0 ENCODING 'SQL_ASCII' LOCALE 'C';
\c dealcards_freecell_ascii
CREATE EXTENSION dealcards;
SELECT * FROM freecell_board(1);
\c :regress_db
DROP DATABASE dealcards_freecell_utf8;
DROP DATABASE dealcards_freecell_ascii;

-- NULL in, NULL out.
SELECT freecell_layout(NULL) IS NULL AS layout,
       (SELECT count(*) FROM freecell_cards(NULL)) AS cards,
       (SELECT count(*) FROM freecell_board(NULL)) AS board_rows;
-- How Postgres sees the functions.
SELECT p.oid::regprocedure AS function, p.provolatile AS volatility, p.proparallel AS parallel,
       p.proisstrict AS strict, pg_get_function_result(p.oid) AS result
  FROM pg_proc p WHERE p.proname LIKE 'freecell\_%' ORDER BY p.oid::regprocedure::text;

-- Errors: every number that is not a game.
SELECT freecell_layout(0);
\echo :LAST_ERROR_SQLSTATE
SELECT freecell_layout(-3);
\echo :LAST_ERROR_SQLSTATE
SELECT freecell_layout(8589934592);
\echo :LAST_ERROR_SQLSTATE
SELECT freecell_layout(-9223372036854775808);
\echo :LAST_ERROR_SQLSTATE
SELECT freecell_layout(9223372036854775807);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM freecell_cards(0);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM freecell_cards(8589934592);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM freecell_board(-3);
\echo :LAST_ERROR_SQLSTATE
