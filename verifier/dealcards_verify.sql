-- dealcards_verify.sql: a verifier of dealcards' provably fair deals for any PostgreSQL 14 or
-- later, managed ones included, with no dealcards library: plain SQL and PL/pgSQL over pgcrypto
-- (a trusted extension every provider offers). It recomputes deals and checks a desk's chain
-- from what the house publishes, as docs/provably_fair.md specifies them byte for byte
-- (protocols 1 to 3), and gives what dealcards' own fair_deal and fair_verify_desk give; and it
-- checks a player's receipts as tools/verify_deal.py receipts does.
--
--   CREATE EXTENSION IF NOT EXISTS pgcrypto;
--   \i dealcards_verify.sql
--   SELECT * FROM dealcards_verify_deal(server_seed, ARRAY['alice', '', 'Zoë'], 2);
--   SELECT * FROM dealcards_verify_publication(publication_jsonb);
--   SELECT * FROM dealcards_verify_receipts(publication_jsonb, receipts_jsonb_array,
--                                           player_id, ARRAY['ROUND:HEX', ...]);
--
-- The functions are created in the first schema of the search_path and keep the search_path
-- they were created with (where pgcrypto's hmac and digest were found). The file holds SQL
-- statements only, no psql commands. Errors: 22023 for an argument that is not what the
-- protocol takes (which argument, and why), never a wrong "verified".

-- The 16 little-endian 32-bit words of ChaCha20 block `counter` (RFC 8439, 2.3) under the
-- 32-byte key, with the cipher's 96-bit nonce all zero bytes: dealcards' stream.
CREATE OR REPLACE FUNCTION dealcards_verify_chacha20_block(key bytea, counter bigint)
RETURNS bigint[]
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path FROM CURRENT
AS $$
DECLARE
    init bigint[] := ARRAY[1634760805, 857760878, 2036477234, 1797285236];  -- "expand 32-byte k"
    x bigint[];
    q int[] := ARRAY[1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 4, 8, 12, 16,
                     1, 6, 11, 16, 2, 7, 12, 13, 3, 8, 9, 14, 4, 5, 10, 15];
    a int; b int; c int; d int;
    m constant bigint := 4294967295;
BEGIN
    FOR i IN 0..7 LOOP
        -- (PostgreSQL's | and << bind alike, left to right: every shift in parentheses.)
        init := init || (get_byte(key, 4 * i)::bigint
                         | (get_byte(key, 4 * i + 1)::bigint << 8)
                         | (get_byte(key, 4 * i + 2)::bigint << 16)
                         | (get_byte(key, 4 * i + 3)::bigint << 24));
    END LOOP;
    init := init || (counter & m) || 0::bigint || 0::bigint || 0::bigint;
    x := init;
    FOR round IN 1..10 LOOP
        FOR g IN 0..7 LOOP
            a := q[4 * g + 1]; b := q[4 * g + 2]; c := q[4 * g + 3]; d := q[4 * g + 4];
            x[a] := (x[a] + x[b]) & m; x[d] := x[d] # x[a]; x[d] := ((x[d] << 16) | (x[d] >> 16)) & m;
            x[c] := (x[c] + x[d]) & m; x[b] := x[b] # x[c]; x[b] := ((x[b] << 12) | (x[b] >> 20)) & m;
            x[a] := (x[a] + x[b]) & m; x[d] := x[d] # x[a]; x[d] := ((x[d] << 8) | (x[d] >> 24)) & m;
            x[c] := (x[c] + x[d]) & m; x[b] := x[b] # x[c]; x[b] := ((x[b] << 7) | (x[b] >> 25)) & m;
        END LOOP;
    END LOOP;
    FOR i IN 1..16 LOOP
        x[i] := (x[i] + init[i]) & m;
    END LOOP;
    RETURN x;
END
$$;

-- The deal's key: HMAC-SHA256 under the server seed of M (each seat's client seed as UTF-8
-- after its length as 4 bytes big-endian, then the nonce as 8 bytes big-endian).
CREATE OR REPLACE FUNCTION dealcards_verify_key(server_seed bytea, client_seeds text[], nonce bigint)
RETURNS bytea
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path FROM CURRENT
AS $$
DECLARE
    message bytea := '\x';
    seed bytea;
BEGIN
    IF server_seed IS NULL OR octet_length(server_seed) <> 32 THEN
        RAISE EXCEPTION 'server_seed must be 32 bytes, not %', coalesce(octet_length(server_seed)::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF client_seeds IS NULL OR array_ndims(client_seeds) IS DISTINCT FROM 1
       OR cardinality(client_seeds) <> 3 OR array_lower(client_seeds, 1) <> 1 THEN
        RAISE EXCEPTION 'client_seeds must be an array of 3 seeds, one per seat, from index 1'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF nonce IS NULL OR nonce < 0 THEN
        RAISE EXCEPTION 'nonce must be 0 or more, not %', coalesce(nonce::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    FOR seat IN 1..3 LOOP
        IF client_seeds[seat] IS NULL THEN
            RAISE EXCEPTION 'the client seed of seat % is NULL', seat
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        seed := convert_to(client_seeds[seat], 'UTF8');
        IF octet_length(seed) > 256 THEN
            RAISE EXCEPTION 'the client seed of seat % is % bytes, over 256', seat, octet_length(seed)
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        message := message || int4send(octet_length(seed)) || seed;
    END LOOP;
    RETURN hmac(message || int8send(nonce), server_seed, 'sha256');
END
$$;

-- What dealcards' fair_deal(server_seed, client_seeds, nonce) gives: the seeded Dou Dizhu deal
-- of the deal's key (Fisher-Yates of 1..54 with exact multiply-and-reject draws from the
-- ChaCha20 stream, then the first bidder from the same stream).
CREATE OR REPLACE FUNCTION dealcards_verify_deal(server_seed bytea, client_seeds text[], nonce bigint,
    OUT p1_cards int[], OUT p2_cards int[], OUT p3_cards int[], OUT extra_cards int[],
    OUT leader smallint)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path FROM CURRENT
AS $$
DECLARE
    key bytea := dealcards_verify_key(server_seed, client_seeds, nonce);
    block bigint[];
    counter bigint := 0;
    used int := 16;
    deck int[] := ARRAY(SELECT generate_series(1, 54));
    bound bigint;
    word bigint;
    product bigint;
    threshold bigint;
    j int;
    card int;
BEGIN
    -- below(bound) for bound = 54 .. 2, then 3: Lemire's draw, exact.
    FOR i IN REVERSE 54..1 LOOP
        bound := CASE WHEN i = 1 THEN 3 ELSE i END;
        LOOP
            IF used = 16 THEN
                block := dealcards_verify_chacha20_block(key, counter);
                counter := counter + 1;
                used := 0;
            END IF;
            used := used + 1;
            word := block[used];
            product := word * bound;
            IF (product & 4294967295) >= bound THEN
                EXIT;
            END IF;
            threshold := (4294967296 - bound) % bound;
            EXIT WHEN (product & 4294967295) >= threshold;
        END LOOP;
        j := (product >> 32)::int;
        IF i = 1 THEN
            leader := j + 1;
        ELSE
            card := deck[i];
            deck[i] := deck[j + 1];
            deck[j + 1] := card;
        END IF;
    END LOOP;
    p1_cards := deck[1:17];
    p2_cards := deck[18:34];
    p3_cards := deck[35:51];
    extra_cards := deck[52:54];
END
$$;

-- A published byte string (lowercase hex) as bytes, or 22023 naming what it was.
CREATE OR REPLACE FUNCTION dealcards_verify_hex(value jsonb, what text, bytes int DEFAULT NULL)
RETURNS bytea
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path FROM CURRENT
AS $$
DECLARE
    decoded bytea;
BEGIN
    IF jsonb_typeof(value) IS DISTINCT FROM 'string' OR value #>> '{}' !~ '^([0-9a-f]{2})*$' THEN
        RAISE EXCEPTION '% is not a string of lowercase hex: %', what, coalesce(value::text, 'missing')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    decoded := decode(value #>> '{}', 'hex');
    IF bytes IS NOT NULL AND octet_length(decoded) <> bytes THEN
        RAISE EXCEPTION '% must be % bytes, not %', what, bytes, octet_length(decoded)
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN decoded;
END
$$;

-- A published whole number, or 22023 naming what it was.
CREATE OR REPLACE FUNCTION dealcards_verify_int(value jsonb, what text)
RETURNS bigint
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path FROM CURRENT
AS $$
BEGIN
    IF jsonb_typeof(value) IS DISTINCT FROM 'number' OR value #>> '{}' !~ '^-?[0-9]{1,19}$' THEN
        RAISE EXCEPTION '% is not a whole number: %', what, coalesce(value::text, 'missing')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN (value #>> '{}')::bigint;
END
$$;

-- A published time (jsonb's text of a timestamptz: ISO 8601 with its offset, as
-- 2026-12-31T20:59:59.999999-03:00) as the microseconds since 1970-01-01 00:00:00 UTC, exactly,
-- or 22023 naming what it was (UTC written Z or +00:00). The offset is required and the form is ISO 8601's, so the
-- instant read is the same whatever TimeZone and DateStyle are set to.
CREATE OR REPLACE FUNCTION dealcards_verify_time(value jsonb, what text)
RETURNS bigint
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path FROM CURRENT
AS $$
DECLARE
    micros numeric;
BEGIN
    IF jsonb_typeof(value) IS DISTINCT FROM 'string'
       OR value #>> '{}' !~ '^[0-9]{4,6}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?([+-][0-9]{2}:[0-9]{2}(:[0-9]{2})?|Z)( BC)?$' THEN
        RAISE EXCEPTION '% is not a time with its offset, as 2026-01-31T12:00:00+00:00: %', what, coalesce(value::text, 'missing')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    BEGIN
        -- numeric on PostgreSQL 14 and later: exact.
        micros := extract(epoch FROM (value #>> '{}')::timestamptz) * 1000000;
    EXCEPTION WHEN data_exception THEN
        micros := NULL;
    END;
    IF micros IS NULL OR micros NOT BETWEEN -9223372036854775808 AND 9223372036854775807 THEN
        RAISE EXCEPTION '% is not a time a round can have: %', what, value::text
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN micros::bigint;
END
$$;

-- What dealcards' fair_verify_desk gives, row for row and word for word, from the desk's
-- publication (fair_publication(desk), as the house publishes it): every game in chain order,
-- verified true (it recomputes from its revealed seed and links into the chain), NULL (it links;
-- its seed is not revealed yet) or false with the problems; then a row with no game when the
-- chain head is not the newest game's chain hash, and one per round left without a reveal (a
-- round before the newest with no seed). A document that is not a publication is refused with
-- 22023, saying what is wrong.
CREATE OR REPLACE FUNCTION dealcards_verify_publication(publication jsonb,
    OUT game_id bigint, OUT round int, OUT nonce bigint, OUT verified boolean, OUT problem text)
RETURNS SETOF record
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path FROM CURRENT
AS $$
DECLARE
    desk int;
    rounds jsonb := '{}';
    r jsonb;
    g jsonb;
    info jsonb;
    previous bytea := '\x' || repeat('00', 32);
    chain bytea;
    hashed bytea;
    commitment bytea;
    seeds text[];
    seed bytea;
    cards int[];
    players bigint[];
    leader int;
    protocol int;
    problems text[];
    dealt record;
    newest int;
    seat int;
    seen int := 0;
    rules bytea;
    rule_problems text[];
    house int;
    house_seat bigint;
    max_deals bigint;
BEGIN
    IF jsonb_typeof(publication) IS DISTINCT FROM 'object'
       OR jsonb_typeof(publication -> 'games') IS DISTINCT FROM 'array'
       OR jsonb_typeof(publication -> 'rounds') IS DISTINCT FROM 'array' THEN
        RAISE EXCEPTION 'not a publication: an object with the arrays "rounds" and "games" is expected'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    desk := dealcards_verify_int(publication -> 'desk', 'desk');
    -- The rounds by commitment.
    FOR r IN SELECT value FROM jsonb_array_elements(publication -> 'rounds') LOOP
        round := dealcards_verify_int(r -> 'round', 'a round''s number');
        protocol := dealcards_verify_int(r -> 'protocol', format('round %s''s protocol', round));
        IF protocol NOT BETWEEN 1 AND 3 THEN
            RAISE EXCEPTION 'round % is of protocol %, which this verifier does not know', round, protocol
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'Use the verifier of the dealcards release that dealt it.';
        END IF;
        commitment := dealcards_verify_hex(r -> 'commitment', format('round %s''s commitment', round), 32);
        IF r -> 'server_seed' IS NOT NULL AND r -> 'server_seed' <> 'null' THEN
            PERFORM dealcards_verify_hex(r -> 'server_seed', format('round %s''s server_seed', round), 32);
        END IF;
        IF r -> 'house_seats' IS NOT NULL AND jsonb_typeof(r -> 'house_seats') <> 'array' THEN
            RAISE EXCEPTION 'round %''s house_seats is not an array', round
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        -- Its house seats are whole numbers (a null one is none, as fair_verify_desk reads it).
        PERFORM dealcards_verify_int(value, format('a house seat of round %s', round))
           FROM jsonb_array_elements(coalesce(r -> 'house_seats', '[]')) WHERE value <> 'null';
        -- The rules protocol 3 chains (20 bytes, as docs/provably_fair.md gives them): the
        -- protocol, the house seats as bits (seat 1 the lowest; a house seat that is not a seat
        -- is left out, and said), seeds required, max_deals, then reveal_by (none: 9 zero
        -- bytes). A round with no bound has no rules to chain: its games are hashed without.
        rules := NULL;
        rule_problems := '{}';
        IF protocol = 3 THEN
            house := 0;
            FOR house_seat IN SELECT value::bigint FROM jsonb_array_elements(coalesce(r -> 'house_seats', '[]'))
                               WHERE value <> 'null' LOOP
                IF house_seat BETWEEN 1 AND 3 THEN
                    house := house | (1 << (house_seat::int - 1));
                ELSE
                    rule_problems := rule_problems || format('its round''s house seat %s is not a seat', house_seat);
                END IF;
            END LOOP;
            IF coalesce(r -> 'seeds_required', 'null') <> 'null' AND jsonb_typeof(r -> 'seeds_required') <> 'boolean' THEN
                RAISE EXCEPTION 'round %''s seeds_required is not true or false: %', round, r -> 'seeds_required'
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
            IF coalesce(r -> 'max_deals', 'null') = 'null' THEN
                rule_problems := rule_problems || 'its round has no bound, which protocol 3 chains'::text;
            ELSE
                max_deals := dealcards_verify_int(r -> 'max_deals', format('round %s''s max_deals', round));
                rules := '\x03'::bytea || set_byte('\x00'::bytea, 0, house)
                         || CASE WHEN r -> 'seeds_required' = 'true' THEN '\x01'::bytea ELSE '\x00'::bytea END
                         || int8send(max_deals);
            END IF;
            IF coalesce(r -> 'reveal_by', 'null') = 'null' THEN
                rules := rules || ('\x' || repeat('00', 9))::bytea;
            ELSE
                rules := rules || '\x01'::bytea
                         || int8send(dealcards_verify_time(r -> 'reveal_by', format('round %s''s reveal_by', round)));
            END IF;
        END IF;
        rounds := rounds || jsonb_build_object(encode(commitment, 'hex'), jsonb_build_object(
            'round', round, 'protocol', protocol, 'server_seed', r -> 'server_seed',
            'house_seats', coalesce(r -> 'house_seats', '[]'),
            'rules', encode(rules, 'hex'), 'rule_problems', to_jsonb(rule_problems)));
        newest := greatest(newest, round);
    END LOOP;
    FOR g IN SELECT value FROM jsonb_array_elements(publication -> 'games') LOOP
        seen := seen + 1;
        game_id := dealcards_verify_int(g -> 'game', format('game %s''s id', seen));
        round := dealcards_verify_int(g -> 'round', format('game %s''s round', game_id));
        nonce := dealcards_verify_int(g -> 'nonce', format('game %s''s nonce', game_id));
        commitment := dealcards_verify_hex(g -> 'commitment', format('game %s''s commitment', game_id), 32);
        chain := dealcards_verify_hex(g -> 'chain_hash', format('game %s''s chain_hash', game_id), 32);
        IF jsonb_typeof(g -> 'client_seeds') IS DISTINCT FROM 'array' OR jsonb_array_length(g -> 'client_seeds') <> 3
           OR jsonb_typeof(g -> 'players') IS DISTINCT FROM 'array' OR jsonb_array_length(g -> 'players') <> 3
           OR jsonb_typeof(g -> 'cards') IS DISTINCT FROM 'array' OR jsonb_array_length(g -> 'cards') <> 4 THEN
            RAISE EXCEPTION 'game % must have 3 client_seeds, 3 players and 4 arrays of cards', game_id
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        seeds := ARRAY(SELECT convert_from(dealcards_verify_hex(s, format('a client seed of game %s', game_id)), 'UTF8')
                         FROM jsonb_array_elements(g -> 'client_seeds') s);
        players := ARRAY(SELECT dealcards_verify_int(p, format('a player of game %s', game_id))
                           FROM jsonb_array_elements(g -> 'players') p);
        cards := ARRAY(SELECT dealcards_verify_int(c, format('a card of game %s', game_id))
                         FROM jsonb_array_elements(g -> 'cards') hand, jsonb_array_elements(hand) c);
        IF cardinality(cards) <> 54 OR EXISTS (SELECT FROM unnest(cards) c WHERE c NOT BETWEEN 1 AND 54) THEN
            RAISE EXCEPTION 'game % must have 54 cards numbered 1 to 54', game_id
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        leader := dealcards_verify_int(g -> 'leader', format('game %s''s leader', game_id));
        IF leader NOT BETWEEN 1 AND 3 THEN
            RAISE EXCEPTION 'game %''s leader must be a seat 1 to 3, not %', game_id, leader
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        problems := '{}';
        info := rounds -> encode(commitment, 'hex');
        IF info IS NULL THEN
            RAISE EXCEPTION 'game %''s commitment is not one of the published rounds''', game_id
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        protocol := (info ->> 'protocol')::int;
        problems := problems || ARRAY(SELECT jsonb_array_elements_text(info -> 'rule_problems'));
        IF protocol >= 2 THEN
            FOR house_seat IN SELECT value::bigint FROM jsonb_array_elements_text(info -> 'house_seats') LOOP
                IF house_seat BETWEEN 1 AND 3 THEN
                    IF seeds[house_seat::int] <> '' THEN
                        problems := problems || format('seat %s is a house seat of its round, yet its client seed is not empty', house_seat);
                    END IF;
                END IF;
            END LOOP;
        END IF;
        -- The chain hash, as docs/provably_fair.md gives it: the round's rules under protocol 3,
        -- the players under protocols 2 and 3.
        hashed := previous || int4send(desk) || commitment || coalesce(decode(info ->> 'rules', 'hex'), '\x')
                  || int8send(nonce);
        FOR seat IN 1..3 LOOP
            seed := convert_to(seeds[seat], 'UTF8');
            IF protocol >= 2 THEN
                hashed := hashed || int8send(players[seat]);
            END IF;
            hashed := hashed || int4send(octet_length(seed)) || seed;
        END LOOP;
        FOR i IN 1..54 LOOP
            hashed := hashed || set_byte('\x00'::bytea, 0, cards[i]);
        END LOOP;
        hashed := hashed || set_byte('\x00'::bytea, 0, leader);
        IF digest(hashed, 'sha256') <> chain THEN
            problems := problems || 'the chain is broken here: the game''s hash is not SHA-256 over the previous game''s hash and this record (the record or its round''s rules were changed, or a game before it is missing)'::text;
        END IF;
        IF info -> 'server_seed' <> 'null' THEN
            IF digest(decode(info ->> 'server_seed', 'hex'), 'sha256') <> commitment THEN
                problems := problems || 'the revealed server seed does not match the recorded commitment'::text;
            ELSE
                dealt := dealcards_verify_deal(decode(info ->> 'server_seed', 'hex'), seeds, nonce);
                IF dealt.p1_cards || dealt.p2_cards || dealt.p3_cards || dealt.extra_cards <> cards
                   OR dealt.leader <> leader THEN
                    problems := problems || 'the recorded cards or first bidder are not the deal the revealed seed, the client seeds and the nonce give'::text;
                END IF;
            END IF;
        END IF;
        IF cardinality(problems) > 0 THEN
            verified := false;
            problem := array_to_string(problems, '; ');
        ELSIF info -> 'server_seed' <> 'null' THEN
            verified := true;
            problem := NULL;
        ELSE
            verified := NULL;
            problem := 'the server seed of its commitment is not revealed yet';
        END IF;
        RETURN NEXT;
        previous := chain;
    END LOOP;
    game_id := NULL; nonce := NULL; verified := false;
    info := CASE WHEN seen = 0 THEN 'null'::jsonb ELSE to_jsonb(encode(previous, 'hex')) END;
    IF publication -> 'chain_head' IS DISTINCT FROM info THEN
        round := NULL;
        problem := 'the desk''s chain head is not the hash of its last fair game: its newest games were deleted or changed';
        RETURN NEXT;
    END IF;
    FOR round IN SELECT (value ->> 'round')::int FROM jsonb_each(rounds)
                  WHERE value -> 'server_seed' = 'null' AND (value ->> 'round')::int < newest
                  ORDER BY 1 LOOP
        problem := format('round %s was left without a reveal: the desk deals under it no more, yet its server seed is secret, so its games can never be checked', round);
        RETURN NEXT;
    END LOOP;
END
$$;

-- The commitments a player was shown before they gave their seed, as they type them to
-- verify_deal.py's --commitment: each ROUND:HEX (the one shown for that round) or HEX (the one
-- shown for every round not named), the hex with \x or 0x or neither, in either case. A jsonb
-- object from the round's number (as text) or "*" to the lowercase hex; 22023 for one that is
-- not so, or for a round (or "*") named twice with two commitments.
CREATE OR REPLACE FUNCTION dealcards_verify_shown(shown text[])
RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path FROM CURRENT
AS $$
DECLARE
    out jsonb := '{}';
    item text;
    head text;
    hex text;
    k text;
BEGIN
    FOREACH item IN ARRAY coalesce(shown, '{}') LOOP
        IF item IS NULL THEN
            RAISE EXCEPTION 'a commitment shown is NULL' USING ERRCODE = 'invalid_parameter_value';
        END IF;
        item := btrim(item);
        IF position(':' IN item) > 0 THEN
            head := btrim(split_part(item, ':', 1));
            hex := substr(item, position(':' IN item) + 1);
            IF head !~ '^-?[0-9]{1,10}$' OR head::bigint NOT BETWEEN -2147483648 AND 2147483647 THEN
                RAISE EXCEPTION 'a commitment shown is ROUND:HEX or HEX, and "%" is no round number', head
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
            k := head::int::text;
        ELSE
            k := '*';
            hex := item;
        END IF;
        hex := regexp_replace(btrim(hex), '^(\\x|0x|0X)', '');
        IF hex !~ '^[0-9a-fA-F]{64}$' THEN
            RAISE EXCEPTION 'the commitment you were shown% is 64 hex digits (32 bytes), not "%"',
                CASE WHEN k = '*' THEN '' ELSE ' for round ' || k END, item
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        hex := lower(hex);
        IF out ? k AND out ->> k <> hex THEN
            RAISE EXCEPTION 'the commitments shown name % twice, with two commitments',
                CASE WHEN k = '*' THEN 'every round' ELSE 'round ' || k END
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        out := out || jsonb_build_object(k, hex);
    END LOOP;
    RETURN out;
END
$$;

-- One receipt's checks against a publication (dealcards_verify_receipts gives its arguments):
-- (result, check, why) of the first check that fails, as verify_deal.py receipts makes them in
-- order (desk, game, record, shown commitment, house seats, chain, nonce, commitment, deal);
-- else overdue, incomplete ("shown commitment" not made: no commitment shown), not revealed
-- yet or verified. broken: the positions (1 = the first published game) whose link of the
-- chain is broken.
CREATE OR REPLACE FUNCTION dealcards_verify_receipt(publication jsonb, r jsonb, player bigint,
    shown jsonb, broken int[], OUT result text, OUT "check" text, OUT why text)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path FROM CURRENT
AS $$
DECLARE
    games jsonb := publication -> 'games';
    g jsonb;
    rnd jsonb;
    at int[];
    i int;
    f text;
    want text;
    s int;
    seeds text[];
    seed bytea;
    dealt record;
    late text;
    unshown boolean := false;
BEGIN
    result := 'failed';
    IF r -> 'desk' <> publication -> 'desk' THEN
        "check" := 'desk'; why := format('the receipt is of desk %s, the publication of desk %s', r -> 'desk', publication -> 'desk');
        RETURN;
    END IF;
    at := ARRAY(SELECT n::int FROM jsonb_array_elements(games) WITH ORDINALITY x(v, n) WHERE v -> 'game' = r -> 'game');
    IF cardinality(at) <> 1 THEN
        "check" := 'game';
        why := CASE WHEN cardinality(at) = 0 THEN format('game %s is not in the publication: it was removed, or never recorded', r -> 'game')
                    ELSE format('game %s is in the publication %s times', r -> 'game', cardinality(at)) END;
        RETURN;
    END IF;
    i := at[1];
    g := games -> (i - 1);
    FOREACH f IN ARRAY ARRAY['round', 'commitment', 'nonce', 'players', 'client_seeds', 'leader'] LOOP
        IF r -> f IS DISTINCT FROM g -> f THEN
            "check" := 'record';
            why := format('the receipt''s %s is %s, the published game''s is %s', replace(f, '_', ' '), r -> f, g -> f);
            RETURN;
        END IF;
    END LOOP;
    -- shown commitment: a receipt of a round the player was shown no commitment for fails
    -- too (a house that deals the same seeds at desks the player never saw would relay only
    -- the best deal).
    want := coalesce(shown ->> (r ->> 'round'), shown ->> '*');
    IF want IS NULL AND shown <> '{}' THEN
        "check" := 'shown commitment';
        why := format('you were shown no commitment for round %s, so this receipt''s commitment %s is not one you gave your seed under',
                      r -> 'round', r ->> 'commitment');
        RETURN;
    ELSIF want IS NULL THEN
        unshown := true;
    ELSIF want <> r ->> 'commitment' THEN
        "check" := 'shown commitment';
        why := format('the receipt''s commitment for round %s is %s, but you were shown %s before you gave your seed',
                      r -> 'round', r ->> 'commitment', want);
        RETURN;
    END IF;
    SELECT v INTO rnd FROM jsonb_array_elements(publication -> 'rounds') v WHERE v -> 'round' = r -> 'round';
    "check" := 'house seats';
    IF rnd IS NULL THEN
        why := format('round %s is not in the publication, so its rules (house seats, chain protocol) are not known', r -> 'round');
        RETURN;
    END IF;
    FOR s IN SELECT value::int FROM jsonb_array_elements(coalesce(rnd -> 'house_seats', '[]'))
              WHERE value <> 'null' AND value::numeric BETWEEN 1 AND 3 LOOP
        IF r -> 'client_seeds' ->> (s - 1) <> '' THEN
            why := format('seat %s is a house seat of round %s, yet its client seed is not empty', s, r -> 'round');
            RETURN;
        END IF;
        IF player IS NOT NULL AND (r -> 'players' ->> (s - 1))::bigint = player THEN
            why := format('YOUR SEAT %s IS A HOUSE SEAT of round %s: the house declared your own seat its own, so your seed counted for nothing and the house alone chose this deal', s, r -> 'round');
            RETURN;
        END IF;
    END LOOP;
    "check" := 'chain';
    IF EXISTS (SELECT FROM unnest(broken) b WHERE b <= i) THEN
        why := format('the chain is broken at game number %s of the publication, at or before this game', (SELECT min(b) FROM unnest(broken) b));
        RETURN;
    END IF;
    IF g -> 'chain_hash' <> r -> 'chain_hash' THEN
        why := format('the receipt''s chain_hash is %s, but the published games recompute to %s for game %s: this game or one before it is not what was dealt',
                      r ->> 'chain_hash', g ->> 'chain_hash', g -> 'game');
        RETURN;
    END IF;
    "check" := 'nonce';
    IF (SELECT count(*) <> (r ->> 'nonce')::bigint OR count(DISTINCT (v ->> 'nonce')::bigint) FILTER (WHERE (v ->> 'nonce')::bigint < (r ->> 'nonce')::bigint) <> (r ->> 'nonce')::bigint
          FROM jsonb_array_elements(games) WITH ORDINALITY x(v, n) WHERE n < i AND v -> 'round' = r -> 'round') THEN
        why := format('before nonce %s, round %s''s games are not nonces 0 to %s, each once', r -> 'nonce', r -> 'round', (r ->> 'nonce')::bigint - 1);
        RETURN;
    END IF;
    "check" := 'commitment';
    IF rnd -> 'commitment' <> r -> 'commitment' THEN
        why := format('round %s is published with commitment %s, not the receipt''s %s', r -> 'round', rnd ->> 'commitment', r ->> 'commitment');
        RETURN;
    END IF;
    IF coalesce(rnd -> 'server_seed', 'null') = 'null' THEN
        IF EXISTS (SELECT FROM jsonb_array_elements(publication -> 'rounds') v WHERE (v ->> 'round')::int > (r ->> 'round')::int) THEN
            why := format('round %s was left without a reveal: a later round was committed, yet its server seed is not published, so this game can never be checked', r -> 'round');
            RETURN;
        END IF;
        IF coalesce(rnd -> 'max_deals', 'null') <> 'null'
           AND (SELECT count(*) FROM jsonb_array_elements(games) v WHERE v -> 'round' = r -> 'round') >= (rnd ->> 'max_deals')::bigint THEN
            late := format('round %s has dealt the %s deals of its bound, yet its server seed is not published: the house owes its reveal', r -> 'round', rnd -> 'max_deals');
        ELSIF coalesce(rnd -> 'reveal_by', 'null') <> 'null'
              AND dealcards_verify_time(rnd -> 'reveal_by', 'reveal_by') < extract(epoch FROM clock_timestamp()) * 1000000 THEN
            late := format('round %s''s server seed was due by %s, yet it is not published: the house owes its reveal', r -> 'round', rnd ->> 'reveal_by');
        END IF;
        IF late IS NOT NULL THEN
            result := 'overdue'; why := late;
        ELSIF unshown THEN
            result := 'incomplete'; "check" := 'shown commitment'; why := 'not made: give the commitments you were shown';
        ELSE
            result := 'not revealed yet'; "check" := NULL; why := NULL;
        END IF;
        RETURN;
    END IF;
    seed := decode(rnd ->> 'server_seed', 'hex');
    IF digest(seed, 'sha256') <> decode(rnd ->> 'commitment', 'hex') THEN
        why := format('SHA-256 of round %s''s published server seed is %s, not its commitment %s', r -> 'round', encode(digest(seed, 'sha256'), 'hex'), rnd ->> 'commitment');
        RETURN;
    END IF;
    seeds := ARRAY(SELECT convert_from(decode(v, 'hex'), 'UTF8') FROM jsonb_array_elements_text(r -> 'client_seeds') v);
    dealt := dealcards_verify_deal(seed, seeds, (r ->> 'nonce')::bigint);
    IF jsonb_build_array(to_jsonb(dealt.p1_cards), to_jsonb(dealt.p2_cards), to_jsonb(dealt.p3_cards),
                         to_jsonb(dealt.extra_cards)) <> g -> 'cards'
       OR dealt.leader <> (g ->> 'leader')::int THEN
        "check" := 'deal';
        why := 'the published cards or first bidder are not the deal the seeds and nonce give';
        RETURN;
    END IF;
    IF unshown THEN
        result := 'incomplete'; "check" := 'shown commitment'; why := 'not made: give the commitments you were shown';
    ELSE
        result := 'verified'; "check" := NULL; why := NULL;
    END IF;
END
$$;

-- The rounds a player seeded (those of their receipts at the publication's desk, those they
-- name a commitment shown for, and those published with the commitment shown for every round
-- not named) that ended early: the round's server seed is published (revealed, or left by
-- fair_mode_off) with fewer games than its max_deals, and it has no reveal_by or was revealed
-- before it by the house's clock (revealed_at; none published counts as before). Per round:
-- its number of games (the nonce of the deal it avoided), and why, with both times and the
-- deal it avoided from its revealed seed and its last game's client seeds (none without a game).
CREATE OR REPLACE FUNCTION dealcards_verify_ended_early(publication jsonb, receipts jsonb,
    shown_by jsonb, OUT round int, OUT games bigint, OUT why text)
RETURNS SETOF record
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path FROM CURRENT
AS $$
DECLARE
    rnd jsonb;
    final_game jsonb;
    seed bytea;
    d record;
    hands text;
BEGIN
    FOR rnd IN
        SELECT x FROM jsonb_array_elements(publication -> 'rounds') x
         WHERE coalesce(x -> 'server_seed', 'null') <> 'null' AND coalesce(x -> 'max_deals', 'null') <> 'null'
           AND (EXISTS (SELECT FROM jsonb_array_elements(receipts) r
                         WHERE r -> 'desk' = publication -> 'desk' AND r -> 'round' = x -> 'round')
                OR shown_by ? (x ->> 'round') OR shown_by ->> '*' = x ->> 'commitment')
         ORDER BY (x ->> 'round')::int LOOP
        round := (rnd ->> 'round')::int;
        SELECT count(*) INTO games FROM jsonb_array_elements(publication -> 'games') g WHERE g -> 'round' = rnd -> 'round';
        CONTINUE WHEN games >= dealcards_verify_int(rnd -> 'max_deals', 'max_deals');
        CONTINUE WHEN coalesce(rnd -> 'reveal_by', 'null') <> 'null' AND coalesce(rnd -> 'revealed_at', 'null') <> 'null'
            AND dealcards_verify_time(rnd -> 'revealed_at', 'revealed_at') >= dealcards_verify_time(rnd -> 'reveal_by', 'reveal_by');
        why := format('round %s (commitment %s) was revealed at %s (the house''s clock) %s, after %s of its %s deals',
                      round, rnd ->> 'commitment', coalesce(rnd ->> 'revealed_at', 'a time not published'),
                      CASE WHEN coalesce(rnd -> 'reveal_by', 'null') = 'null' THEN 'with no reveal_by'
                           ELSE 'before its reveal_by ' || (rnd ->> 'reveal_by') END,
                      games, rnd ->> 'max_deals');
        SELECT g INTO final_game FROM jsonb_array_elements(publication -> 'games') g
         WHERE g -> 'round' = rnd -> 'round' ORDER BY (g ->> 'nonce')::bigint DESC LIMIT 1;
        seed := dealcards_verify_hex(rnd -> 'server_seed', 'server_seed', 32);
        IF final_game IS NULL OR sha256(seed) <> dealcards_verify_hex(rnd -> 'commitment', 'commitment', 32) THEN
            why := why || '; no game was dealt under it, so the deal it avoided cannot be shown';
        ELSE
            SELECT * INTO d FROM dealcards_verify_deal(seed,
                ARRAY(SELECT convert_from(decode(s, 'hex'), 'UTF8') FROM jsonb_array_elements_text(final_game -> 'client_seeds') WITH ORDINALITY c(s, n) ORDER BY n),
                games) x;
            hands := format('seat 1 (player %s): %s; seat 2 (player %s): %s; seat 3 (player %s): %s; extra: %s; first bidder seat %s',
                            final_game -> 'players' -> 0, d.p1_cards, final_game -> 'players' -> 1, d.p2_cards,
                            final_game -> 'players' -> 2, d.p3_cards, d.extra_cards, d.leader);
            why := why || format('; the deal it avoided (nonce %s, with the seeds of its last game): %s', games, hands);
        END IF;
        RETURN NEXT;
    END LOOP;
END
$$;

-- What a player keeps of a publication's revealed rounds, to catch a fork later: per revealed
-- round its desk, round, commitment, number of games and last game's chain hash, as the file of
-- verify_deal.py --keep holds them ({"rounds": [...]}). Keep each round as first seen: add only
-- the rounds not kept yet.
CREATE OR REPLACE FUNCTION dealcards_verify_seen(publication jsonb)
RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path FROM CURRENT
AS $$
BEGIN
    RETURN (SELECT jsonb_build_object('rounds', coalesce(jsonb_agg(jsonb_build_object(
               'desk', publication -> 'desk', 'round', r -> 'round', 'commitment', r -> 'commitment',
               'games', (SELECT count(*) FROM jsonb_array_elements(publication -> 'games') g WHERE g -> 'round' = r -> 'round'),
               'last_chain_hash', (SELECT g -> 'chain_hash' FROM jsonb_array_elements(publication -> 'games') WITH ORDINALITY x(g, n)
                                    WHERE g -> 'round' = r -> 'round' ORDER BY n DESC LIMIT 1))
             ORDER BY (r ->> 'round')::int), '[]'))
      FROM jsonb_array_elements(publication -> 'rounds') r
     WHERE coalesce(r -> 'server_seed', 'null') <> 'null');
END
$$;

-- A fork, against the rounds kept ({"rounds": [...]}, as dealcards_verify_seen gives them and
-- verify_deal.py --keep keeps them): a row per kept round of the publication's desk under which
-- the publication shows another number of games or another last chain hash, and per receipt
-- under a kept round that is not among its kept games (a nonce past them, or the last one with
-- another chain hash), as verify_deal.py --keep reports them.
CREATE OR REPLACE FUNCTION dealcards_verify_forked(publication jsonb, receipts jsonb, kept jsonb,
    OUT round int, OUT commitment text, OUT why text)
RETURNS SETOF record
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path FROM CURRENT
AS $$
DECLARE
    seen jsonb;
    k jsonb;
    receipt_ jsonb;
BEGIN
    -- Every published round, revealed or not, as it would be kept.
    FOR seen IN
        SELECT jsonb_build_object('desk', publication -> 'desk', 'round', r -> 'round', 'commitment', r -> 'commitment',
                   'games', (SELECT count(*) FROM jsonb_array_elements(publication -> 'games') g WHERE g -> 'round' = r -> 'round'),
                   'last_chain_hash', (SELECT g -> 'chain_hash' FROM jsonb_array_elements(publication -> 'games') WITH ORDINALITY x(g, n)
                                        WHERE g -> 'round' = r -> 'round' ORDER BY n DESC LIMIT 1))
          FROM jsonb_array_elements(publication -> 'rounds') r ORDER BY (r ->> 'round')::int LOOP
        SELECT x INTO k FROM jsonb_array_elements(kept -> 'rounds') x
         WHERE x -> 'desk' = seen -> 'desk' AND lower(x ->> 'commitment') = seen ->> 'commitment' LIMIT 1;
        CONTINUE WHEN k IS NULL OR ((k -> 'games') = (seen -> 'games')
            AND lower(coalesce(k ->> 'last_chain_hash', '')) = coalesce(seen ->> 'last_chain_hash', ''));
        round := (seen ->> 'round')::int; commitment := seen ->> 'commitment';
        why := format('the publication shows %s games under round %s ending in chain hash %s, but you kept it revealed with %s games ending in %s: the house dealt under a revealed round (a copy of its server), or rewrote it',
                      seen -> 'games', round, seen ->> 'last_chain_hash', k -> 'games', k ->> 'last_chain_hash');
        RETURN NEXT;
    END LOOP;
    FOR receipt_ IN SELECT value FROM jsonb_array_elements(receipts) LOOP
        SELECT x INTO k FROM jsonb_array_elements(kept -> 'rounds') x
         WHERE x -> 'desk' = receipt_ -> 'desk' AND lower(x ->> 'commitment') = lower(receipt_ ->> 'commitment') LIMIT 1;
        CONTINUE WHEN k IS NULL OR NOT ((receipt_ ->> 'nonce')::numeric >= (k ->> 'games')::numeric
            OR ((receipt_ ->> 'nonce')::numeric = (k ->> 'games')::numeric - 1
                AND lower(receipt_ ->> 'chain_hash') IS DISTINCT FROM lower(k ->> 'last_chain_hash')));
        round := (receipt_ ->> 'round')::int; commitment := lower(k ->> 'commitment');
        why := format('the receipt of game %s (round %s, nonce %s) is not among the %s games you kept of the round when it was revealed: it was dealt under a revealed round',
                      receipt_ -> 'game', receipt_ -> 'round', receipt_ -> 'nonce', k -> 'games');
        RETURN NEXT;
    END LOOP;
END
$$;

-- A player's receipts (a jsonb array of what fair_receipt gives, or deal_cards notified)
-- checked against the desk's publication, as verify_deal.py receipts checks them given --player
-- and --commitment: a row per receipt (kind 'receipt', receipt its place in the array from 1),
-- result verified, not revealed yet, overdue, failed (check and why say which check and why)
-- or incomplete (check "shown commitment": no commitment shown was given, so it was not made);
-- a row per published game that names the player and whose receipt is not given (kind
-- 'withheld', result 'withheld', why its seats); a row per round the player seeded (of a
-- receipt, or named by a commitment shown) that ended early (kind 'ended early', round, nonce
-- the number of its games, why with revealed_at, reveal_by and the deal it avoided: see
-- dealcards_verify_ended_early); a row for the desk (kind 'desk': the chain
-- recomputes to chain_head, no round left without a reveal); and a last row (kind 'check')
-- with the whole check's verdict: failed (anything failed, is overdue or withheld), ended
-- early (nothing failed, but a round the player seeded ended early: verify_deal.py exits 5), incomplete
-- (nothing failed, but the player id or the commitments shown are missing: why names which;
-- verify_deal.py exits 4), not revealed yet, or verified. shown holds the commitments the
-- player was shown, each ROUND:HEX or HEX; a receipt of a round they were shown none for fails
-- "shown commitment". A publication or receipt that is not one is refused with 22023.
CREATE OR REPLACE FUNCTION dealcards_verify_receipts(publication jsonb, receipts jsonb,
    player bigint, shown text[],
    OUT kind text, OUT receipt int, OUT game_id bigint, OUT round int, OUT nonce bigint,
    OUT result text, OUT "check" text, OUT why text)
RETURNS SETOF record
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path FROM CURRENT
AS $$
DECLARE
    shown_by jsonb := dealcards_verify_shown(shown);
    broken int[];
    desk_problems text[];
    r jsonb;
    k int := 0;
    v record;
    results text[] := '{}';
    missing text[] := '{}';
    withheld int := 0;
    early int := 0;
BEGIN
    SELECT array_agg(n::int) FILTER (WHERE p.game_id IS NOT NULL AND p.problem ~ 'chain is broken|is not a seat|has no bound'),
           array_agg(p.problem) FILTER (WHERE p.game_id IS NULL)
      INTO broken, desk_problems
      FROM dealcards_verify_publication(publication) WITH ORDINALITY p(game_id, round, nonce, verified, problem, n);
    broken := coalesce(broken, '{}');
    IF jsonb_typeof(receipts) IS DISTINCT FROM 'array' THEN
        RAISE EXCEPTION 'the receipts are a jsonb array of receipts' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    kind := 'receipt';
    FOR r IN SELECT value FROM jsonb_array_elements(receipts) LOOP
        k := k + 1;
        IF jsonb_typeof(r) IS DISTINCT FROM 'object' OR NOT r ? 'commitment' THEN
            RAISE EXCEPTION 'receipt % is not a provably fair receipt (it has no commitment)', k
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        PERFORM dealcards_verify_int(r -> 'desk', format('receipt %s''s desk', k)),
                dealcards_verify_int(r -> 'leader', format('receipt %s''s leader', k)),
                dealcards_verify_hex(r -> 'commitment', format('receipt %s''s commitment', k), 32),
                dealcards_verify_hex(r -> 'chain_hash', format('receipt %s''s chain_hash', k), 32);
        IF jsonb_typeof(r -> 'players') IS DISTINCT FROM 'array' OR jsonb_array_length(r -> 'players') <> 3
           OR jsonb_typeof(r -> 'client_seeds') IS DISTINCT FROM 'array' OR jsonb_array_length(r -> 'client_seeds') <> 3 THEN
            RAISE EXCEPTION 'receipt % must have 3 players and 3 client_seeds', k USING ERRCODE = 'invalid_parameter_value';
        END IF;
        PERFORM dealcards_verify_int(p, format('a player of receipt %s', k)) FROM jsonb_array_elements(r -> 'players') p;
        PERFORM convert_from(dealcards_verify_hex(s, format('a client seed of receipt %s', k)), 'UTF8') FROM jsonb_array_elements(r -> 'client_seeds') s;
        receipt := k;
        game_id := dealcards_verify_int(r -> 'game', format('receipt %s''s game', k));
        round := dealcards_verify_int(r -> 'round', format('receipt %s''s round', k));
        nonce := dealcards_verify_int(r -> 'nonce', format('receipt %s''s nonce', k));
        SELECT * INTO v FROM dealcards_verify_receipt(publication, r, player, shown_by, broken) x;
        result := v.result; "check" := v."check"; why := v.why;
        results := results || result;
        RETURN NEXT;
    END LOOP;
    kind := 'withheld'; receipt := NULL; result := 'withheld'; "check" := NULL;
    FOR game_id, round, nonce, why IN
        SELECT (g ->> 'game')::bigint, (g ->> 'round')::int, (g ->> 'nonce')::bigint,
               (SELECT string_agg(format('seat %s', n), ', ' ORDER BY n) FROM jsonb_array_elements_text(g -> 'players') WITH ORDINALITY s(p, n) WHERE p = player::text)
          FROM jsonb_array_elements(publication -> 'games') g
         WHERE player IS NOT NULL AND g -> 'players' @> to_jsonb(ARRAY[player])
           AND NOT EXISTS (SELECT FROM jsonb_array_elements(receipts) x
                            WHERE x -> 'desk' = publication -> 'desk' AND x -> 'game' = g -> 'game') LOOP
        withheld := withheld + 1;
        RETURN NEXT;
    END LOOP;
    kind := 'ended early'; receipt := NULL; game_id := NULL; result := 'ended early'; "check" := NULL;
    FOR round, nonce, why IN SELECT * FROM dealcards_verify_ended_early(publication, receipts, shown_by) LOOP
        early := early + 1;
        RETURN NEXT;
    END LOOP;
    kind := 'desk'; game_id := NULL; round := NULL; nonce := NULL;
    result := CASE WHEN cardinality(broken) > 0 OR desk_problems IS NOT NULL THEN 'failed' ELSE 'verified' END;
    -- The desk's checks that fail, as verify_deal.py names them, comma-separated.
    "check" := nullif(concat_ws(',',
        CASE WHEN cardinality(broken) > 0 OR EXISTS (SELECT FROM unnest(desk_problems) d WHERE d ~ 'chain head') THEN 'chain' END,
        CASE WHEN EXISTS (SELECT FROM unnest(desk_problems) d WHERE d ~ 'without a reveal') THEN 'left without a reveal' END), '');
    why := array_to_string(desk_problems, '; ');
    results := results || result;
    RETURN NEXT;
    IF player IS NULL THEN
        missing := missing || 'your player id: the games the house dealt you and did not relay were not looked for'::text;
    END IF;
    IF shown_by = '{}' THEN
        missing := missing || 'the commitments you were shown: no receipt was checked against them, so a deal of a desk or round you never saw passes'::text;
    END IF;
    kind := 'check'; "check" := NULL;
    IF 'failed' = ANY(results) OR 'overdue' = ANY(results) OR withheld > 0 THEN
        result := 'failed'; why := NULL;
    ELSIF early > 0 THEN
        result := 'ended early'; why := format('%s round(s) you gave a seed under ended before their bound', early);
    ELSIF cardinality(missing) > 0 OR 'incomplete' = ANY(results) THEN
        result := 'incomplete'; why := 'not given: ' || array_to_string(missing, '; ');
    ELSIF 'not revealed yet' = ANY(results) THEN
        result := 'not revealed yet'; why := NULL;
    ELSE
        result := 'verified'; why := NULL;
    END IF;
    RETURN NEXT;
END
$$;
