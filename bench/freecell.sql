-- Microsoft FreeCell's deal written in PL/pgSQL, for comparison with freecell_layout(game_no):
-- the same algorithm (Microsoft rand(), FreeCell Pro's three ranges, draw from a shrinking deck)
-- and the same text. The hidden deals -1 and -2 are left out: they are not shuffled.
CREATE OR REPLACE FUNCTION plpgsql_freecell_layout(game_no bigint) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  deck int[] := ARRAY(SELECT generate_series(0, 51));
  columns text[] := array_fill(''::text, ARRAY[8]);
  state bigint := game_no;
  mask bigint := 32767;
  high bigint := 0;
  offset_ bigint := 0;
  cards_left int := 52;
  j int;
  card int;
BEGIN
  IF game_no < 1 OR game_no > 8589934591 THEN
    RAISE EXCEPTION 'FreeCell game number % does not exist', game_no;
  ELSIF game_no >= 4294967296 THEN
    state := game_no - 4294967296;
    mask := 65535;
    offset_ := 1;
  ELSIF game_no >= 2147483648 THEN
    high := 32768;
  END IF;
  FOR i IN 0..51 LOOP
    state := (state * 214013 + 2531011) % 4294967296;
    j := ((((state >> 16) & mask) | high) + offset_) % cards_left;
    card := deck[j + 1];
    columns[i % 8 + 1] := columns[i % 8 + 1] || CASE WHEN i < 8 THEN '' ELSE ' ' END
      || substr('A23456789TJQK', card / 4 + 1, 1) || substr('CDHS', card % 4 + 1, 1);
    cards_left := cards_left - 1;
    deck[j + 1] := deck[cards_left + 1];
  END LOOP;
  RETURN array_to_string(columns, E'\n');
END $$;
