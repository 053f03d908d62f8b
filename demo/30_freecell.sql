CREATE EXTENSION IF NOT EXISTS dealcards;
-- Microsoft FreeCell's game 1, as Freecell Solver reads it: one line per column.
SELECT freecell_layout(1);
-- Game 617, column by column.
SELECT freecell_layout(617);
-- The same deal as rows, for storing boards relationally (column 1 of game 1).
SELECT * FROM freecell_cards(1) WHERE col = 1;
-- Game 1 as the game shows it.
SELECT * FROM freecell_board(1);
