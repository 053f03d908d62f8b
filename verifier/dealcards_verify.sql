-- dealcards_verify.sql: a verifier of dealcards' provably fair deals for any PostgreSQL 14 or
-- later, managed ones included, with no dealcards library: plain SQL and PL/pgSQL over pgcrypto
-- (a trusted extension every provider offers). It recomputes deals and checks a desk's chain
-- from what the house publishes, as docs/provably_fair.md specifies them byte for byte
-- (protocols 1 to 3), and gives what dealcards' own fair_deal and fair_verify_desk give.
--
--   CREATE EXTENSION IF NOT EXISTS pgcrypto;
--   \i dealcards_verify.sql
--   SELECT * FROM dealcards_verify_deal(server_seed, ARRAY['alice', '', 'Zoë'], 2);
--   SELECT * FROM dealcards_verify_publication(publication_jsonb);
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
-- or 22023 naming what it was. The offset is required and the form is ISO 8601's, so the
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
       OR value #>> '{}' !~ '^[0-9]{4,6}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?[+-][0-9]{2}:[0-9]{2}(:[0-9]{2})?( BC)?$' THEN
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
