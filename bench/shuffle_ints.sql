-- What users write today, for comparison with shuffle_ints(lo, hi).

-- (a) The SQL Server `dealCards` procedure's retry loop, ported faithfully: draw 3n values
-- scaled with abs(hash) % n, keep the first occurrence of each value not yet taken, repeat until
-- n distinct.
-- (hashtext is widened to bigint before abs: abs(-2^31) overflows int, the procedure's latent bug.)
CREATE OR REPLACE FUNCTION ported_retry_loop(n int) RETURNS int[] LANGUAGE plpgsql AS $$
DECLARE
  taken int[] := '{}';
BEGIN
  WHILE coalesce(array_length(taken, 1), 0) < n LOOP
    taken := taken || ARRAY(
      SELECT r FROM (
        SELECT min(i) AS idx, r
          FROM (SELECT i, (abs(hashtext(gen_random_uuid()::text)::bigint) % n + 1)::int AS r
                  FROM generate_series(1, 3 * n) i) draws
         GROUP BY r) firsts
       WHERE r NOT IN (SELECT unnest(taken))
       ORDER BY idx);
  END LOOP;
  RETURN taken;
END $$;

-- (c) Fisher-Yates in PL/pgSQL with random().
CREATE OR REPLACE FUNCTION plpgsql_fisher_yates(n int) RETURNS int[] LANGUAGE plpgsql AS $$
DECLARE
  deck int[] := ARRAY(SELECT generate_series(1, n));
  j int;
  card int;
BEGIN
  FOR i IN REVERSE n..2 LOOP
    j := 1 + floor(random() * i)::int;
    card := deck[i];
    deck[i] := deck[j];
    deck[j] := card;
  END LOOP;
  RETURN deck;
END $$;
