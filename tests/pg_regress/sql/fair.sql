-- Provably fair deals (docs/provably_fair.md). The golden deals are those of
-- tests/reference/fair_golden.json, from tools/verify_deal.py, an implementation of the
-- documented protocol that shares no code with the extension.
CREATE EXTENSION IF NOT EXISTS dealcards;
SET client_min_messages = warning;

-- fair_deal recomputes each golden deal: hands, extra cards and first bidder.
-- zero seed, no client seeds, first deal
SELECT p1_cards = '{29,52,54,38,42,6,37,8,50,36,5,44,17,18,30,32,21}' AND p2_cards = '{9,20,3,16,51,25,31,35,12,49,7,43,11,1,24,33,2}'
       AND p3_cards = '{41,48,27,23,46,10,45,53,39,15,22,34,47,13,26,14,19}' AND extra_cards = '{40,4,28}'
       AND leader = 1 AS golden,
       sha256(decode('0000000000000000000000000000000000000000000000000000000000000000', 'hex')) = decode('66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925', 'hex') AS commitment
  FROM fair_deal(decode('0000000000000000000000000000000000000000000000000000000000000000', 'hex'), ARRAY['', '', '']::text[], 0);
-- the example of docs/provably_fair.md
SELECT p1_cards = '{31,8,28,52,18,4,26,39,10,43,13,20,6,54,53,46,37}' AND p2_cards = '{45,17,1,48,5,24,14,29,30,16,9,2,22,50,19,41,44}'
       AND p3_cards = '{40,25,7,33,32,38,21,51,11,23,15,36,27,35,3,42,34}' AND extra_cards = '{12,49,47}'
       AND leader = 1 AS golden,
       sha256(decode('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', 'hex')) = decode('630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd', 'hex') AS commitment
  FROM fair_deal(decode('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', 'hex'), ARRAY['alice', '', 'Zoë']::text[], 2);
-- all-ones seed, CJK and spaces
SELECT p1_cards = '{39,25,54,9,5,22,29,45,31,34,13,33,43,1,52,50,10}' AND p2_cards = '{12,41,3,4,38,26,46,18,36,2,49,8,7,35,11,17,30}'
       AND p3_cards = '{21,37,6,27,20,15,48,24,14,51,44,47,40,19,28,16,53}' AND extra_cards = '{42,23,32}'
       AND leader = 2 AS golden,
       sha256(decode('ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff', 'hex')) = decode('af9613760f72635fbdb44a5a0a63c39f12af30f950a6ee5c971be188e89c4051', 'hex') AS commitment
  FROM fair_deal(decode('ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff', 'hex'), ARRAY['牌', ' two words ', 'x']::text[], 1);
-- a 256-byte client seed, nonce 2^32
SELECT p1_cards = '{38,26,19,50,21,23,48,2,10,3,31,43,52,32,37,27,15}' AND p2_cards = '{1,9,14,30,6,44,4,29,53,40,54,28,7,35,13,42,41}'
       AND p3_cards = '{20,45,5,33,49,12,22,34,47,24,36,39,46,16,25,51,11}' AND extra_cards = '{18,17,8}'
       AND leader = 2 AS golden,
       sha256(decode('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', 'hex')) = decode('630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd', 'hex') AS commitment
  FROM fair_deal(decode('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', 'hex'), ARRAY['牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌牌a', 'Zoë', '']::text[], 4294967296);
-- largest nonce 2^63-1
SELECT p1_cards = '{53,42,50,39,11,5,44,20,41,10,32,6,36,3,52,43,49}' AND p2_cards = '{9,29,33,13,51,4,17,18,30,26,25,46,40,16,1,54,37}'
       AND p3_cards = '{2,34,21,15,24,47,19,12,35,38,22,31,8,23,48,27,28}' AND extra_cards = '{14,45,7}'
       AND leader = 1 AS golden,
       sha256(decode('ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff', 'hex')) = decode('af9613760f72635fbdb44a5a0a63c39f12af30f950a6ee5c971be188e89c4051', 'hex') AS commitment
  FROM fair_deal(decode('ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff', 'hex'), ARRAY['alice', 'bob', 'carol']::text[], 9223372036854775807);
-- a client seed outside the BMP
SELECT p1_cards = '{48,12,15,21,51,38,40,11,17,3,8,6,33,50,5,27,13}' AND p2_cards = '{14,1,36,54,26,24,43,41,31,18,30,10,20,37,4,9,25}'
       AND p3_cards = '{35,22,42,52,49,39,53,23,46,28,34,32,16,44,19,45,2}' AND extra_cards = '{7,47,29}'
       AND leader = 2 AS golden,
       sha256(decode('0000000000000000000000000000000000000000000000000000000000000000', 'hex')) = decode('66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925', 'hex') AS commitment
  FROM fair_deal(decode('0000000000000000000000000000000000000000000000000000000000000000', 'hex'), ARRAY['🂡 ace', '', '牌']::text[], 1);

-- Each input changes the deal.
WITH base AS (SELECT decode(repeat('ab', 32), 'hex') AS s)
SELECT (SELECT p1_cards FROM fair_deal(s, '{a,b,c}', 5)) <> (SELECT p1_cards FROM fair_deal(s, '{a,b,c}', 6)) AS nonce,
       (SELECT p1_cards FROM fair_deal(s, '{a,b,c}', 5)) <> (SELECT p1_cards FROM fair_deal(s, '{a,b,cc}', 5)) AS client_seed,
       (SELECT p1_cards FROM fair_deal(s, '{a,b,c}', 5)) <> (SELECT p1_cards FROM fair_deal(s, '{ab,"",c}', 5)) AS seed_boundary,
       (SELECT p1_cards FROM fair_deal(s, '{a,b,c}', 5)) <> (SELECT p1_cards FROM fair_deal(decode(repeat('ac', 32), 'hex'), '{a,b,c}', 5)) AS server_seed
  FROM base;

-- Bad input: 22023, and STRICT NULLs.
SELECT * FROM fair_deal('\x00', '{a,b,c}', 0);
SELECT * FROM fair_deal(decode(repeat('00', 32), 'hex'), '{a,b}', 0);
SELECT * FROM fair_deal(decode(repeat('00', 32), 'hex'), '{a,NULL,c}', 0);
SELECT * FROM fair_deal(decode(repeat('00', 32), 'hex'), ARRAY['a', repeat('x', 257), 'c'], 0);
SELECT * FROM fair_deal(decode(repeat('00', 32), 'hex'), '{a,b,c}', -1);
SELECT count(*) FROM fair_deal(NULL, '{a,b,c}', 0);

-- A desk in provably fair mode, from commitment to verification. Every statement here commits
-- on its own (psql's autocommit), as a deal uses only what was committed before it.
INSERT INTO desk (desk_id) VALUES (61), (62);
INSERT INTO desk_player (desk_id, player_no, player_id) VALUES (61, 1, 1), (61, 2, 2), (61, 3, 3), (62, 1, 4);
-- Seat 2 is the house's: its seed is the empty one, fixed with the commitment. The others must
-- set a seed before a deal (the default).
CREATE TEMP TABLE c AS SELECT fair_mode_on(61, house_seats => '{2}') AS first;
SELECT fair_mode_on(61) = first AS same_commitment_while_on,
       (SELECT fair_commitment FROM desk WHERE desk_id = 61) = first AS on_the_desk,
       (SELECT server_seed IS NULL FROM fair_commitment WHERE desk_id = 61) AS seed_hidden,
       (SELECT protocol || ' ' || house_seats::text || ' ' || seeds_required
          FROM fair_commitment WHERE desk_id = 61) AS rules
  FROM c;
SELECT set_client_seed(61, 1, 'alice');
-- Seat 3 has no seed yet.
SELECT deal_cards(61);
SELECT set_client_seed(61, 3, 'Zoë');
CREATE TEMP TABLE dealt AS SELECT deal_cards(61) AS r FROM generate_series(1, 3);
-- What a deal returns depends only on what was committed before it: the round, its commitment,
-- the nonce, the players and seeds.
SELECT r->>'commitment' = encode(first, 'hex') AS commitment_in_result, r->>'nonce' AS nonce,
       r->>'round' AS round, r->'players' AS players, r->'client_seeds' AS client_seeds
  FROM dealt, c ORDER BY (r->>'nonce')::int;
SELECT DISTINCT (SELECT string_agg(k, ' ' ORDER BY k) FROM jsonb_object_keys(r) k) AS result_keys FROM dealt;
-- The receipt, once the deal has committed: the result, the first bidder and the chain hash.
SELECT receipt - 'leader' - 'chain_hash' = r AS adds_to_the_result,
       (receipt->>'leader')::int = g.leader AS leader,
       receipt->>'chain_hash' = encode(g.chain_hash, 'hex') AS chain_hash
  FROM dealt, LATERAL fair_receipt((r->>'game')::bigint) receipt
  JOIN game g ON g.game_id = (receipt->>'game')::bigint
 ORDER BY g.fair_nonce;
SELECT (SELECT string_agg(k, ' ' ORDER BY k) FROM jsonb_object_keys(fair_receipt(max(game_id))) k) AS receipt_keys
  FROM game WHERE desk_id = 61;
SELECT game_id IS NOT NULL AS fair_game, client_seeds, fair_nonce, octet_length(chain_hash) AS hash_bytes
  FROM game WHERE desk_id = 61 ORDER BY fair_nonce;
SELECT (SELECT fair_chain_head FROM desk WHERE desk_id = 61)
       = (SELECT chain_hash FROM game WHERE desk_id = 61 ORDER BY fair_nonce DESC LIMIT 1) AS head;
-- Not revealed yet: linked, not verifiable.
SELECT round, nonce, verified, problem FROM fair_verify_desk(61);
\set VERBOSITY sqlstate
SELECT * FROM fair_verify_game((SELECT min(game_id) FROM game WHERE desk_id = 61));
\set VERBOSITY default
-- A client seed is set once per round; the house seat takes none.
SELECT set_client_seed(61, 1, 'alice again');
SELECT set_client_seed(61, 2, 'bot');
-- The reveal ends the round and commits to a new one under the same rules; it returns no seed.
-- The seed is in fair_commitment once the reveal has committed, and not to the transaction
-- that reveals.
BEGIN;
CREATE TEMP TABLE revealed AS SELECT * FROM fair_reveal(61);
SELECT server_seed IS NULL AS hidden_from_the_revealing_transaction, revealed_at IS NOT NULL AS revealed
  FROM fair_commitment WHERE desk_id = 61 AND round = 1;
COMMIT;
SELECT round, sha256(s.server_seed) = r.commitment AS seed_matches, r.commitment = (SELECT first FROM c) AS was_in_force,
       next_commitment <> r.commitment AS new_commitment,
       (SELECT fair_commitment FROM desk WHERE desk_id = 61) = next_commitment AS now_in_force,
       (SELECT house_seats::text || ' ' || seeds_required FROM fair_commitment WHERE desk_id = 61 AND round = 2) AS same_rules
  FROM revealed r JOIN fair_commitment s USING (round) WHERE s.desk_id = 61;
SELECT round, nonce, verified, problem FROM fair_verify_desk(61);
-- Anyone recomputes each game from the revealed seed, its client seeds and nonce.
SELECT bool_and((f).p1_cards = g.p1_cards AND (f).p2_cards = g.p2_cards AND (f).p3_cards = g.p3_cards
                AND (f).extra_cards = g.extra_cards AND (f).leader = g.leader) AS recomputed
  FROM game g, fair_commitment r,
       LATERAL (SELECT fair_deal(r.server_seed, g.client_seeds, g.fair_nonce) AS f) x
 WHERE g.desk_id = 61 AND r.desk_id = 61 AND r.round = 1;
-- Seeds belong to their round: the new one needs them again. The next deal is nonce 0 of the new
-- commitment; the chain goes on across commitments.
SELECT deal_cards(61);
SELECT set_client_seed(61, 1, 'alice'), set_client_seed(61, 3, 'Zoë');
SELECT deal_cards(61)->>'nonce' AS nonce;
-- Within one transaction a deal takes nothing that transaction wrote: a seed set there, a seat
-- taken there, a round committed there (it could undo them and deal again).
INSERT INTO desk (desk_id) VALUES (63);
INSERT INTO desk_player (desk_id, player_no, player_id) VALUES (63, 1, 7), (63, 2, 8), (63, 3, 9);
SELECT fair_mode_on(63, seeds_required => false) IS NOT NULL AS on_without_seeds;
BEGIN;
SELECT set_client_seed(63, 1, 'fresh');
SELECT deal_cards(63);
ROLLBACK;
BEGIN;
DELETE FROM desk_player WHERE desk_id = 63 AND player_no = 3;
INSERT INTO desk_player (desk_id, player_no, player_id) VALUES (63, 3, 10);
SELECT deal_cards(63);
ROLLBACK;
BEGIN;
SELECT round FROM fair_reveal(63);
SELECT deal_cards(63);
ROLLBACK;
-- Undone and dealt again, a deal comes back the same: once plainly, once to a savepoint.
-- (A superuser reads the deal in its own transaction: the tables' row security does not apply
-- to it.)
BEGIN;
SELECT deal_cards(63)->>'game' AS game \gset
SELECT fair_receipt(:game)->>'chain_hash' AS first_try \gset
ROLLBACK;
BEGIN;
SAVEPOINT s;
SELECT deal_cards(63)->>'game' AS game \gset
SELECT fair_receipt(:game)->>'chain_hash' AS second_try \gset
ROLLBACK TO s;
SELECT deal_cards(63)->>'game' AS game \gset
SELECT fair_receipt(:game)->>'chain_hash' AS kept \gset
COMMIT;
SELECT :'first_try' = :'second_try' AND :'second_try' = :'kept' AS the_same_deal,
       (SELECT encode(chain_hash, 'hex') FROM game WHERE desk_id = 63) = :'kept' AS recorded_once;
SELECT round, nonce, verified, problem FROM fair_verify_desk(61);
-- Tampering shows: a changed card, then a deleted game.
UPDATE game SET p2_cards[1] = p2_cards[2] WHERE desk_id = 61 AND fair_nonce = 1 AND chain_hash IS NOT NULL
   AND fair_commitment = (SELECT commitment FROM revealed);
SELECT round, nonce, verified, problem FROM fair_verify_desk(61);
DELETE FROM game WHERE desk_id = 61 AND fair_nonce = 1 AND fair_commitment = (SELECT commitment FROM revealed);
SELECT round, nonce, verified, problem FROM fair_verify_desk(61);
DELETE FROM game WHERE desk_id = 61 AND fair_commitment = (SELECT next_commitment FROM revealed);
SELECT round, nonce, verified, problem FROM fair_verify_desk(61);
-- Off reveals the round in force; deals go back to the live generator.
SELECT round, commitment = (SELECT next_commitment FROM revealed) AS revealed_on_off FROM fair_mode_off(61);
SELECT sha256(server_seed) = commitment AS seed_matches FROM fair_commitment WHERE desk_id = 61 AND round = 2;
SELECT (SELECT count(*) FROM fair_mode_off(61)) AS already_off, fair_round IS NULL AND fair_commitment IS NULL AS off
  FROM desk WHERE desk_id = 61;
SELECT r ?| ARRAY['commitment', 'chain_hash'] AS fair_result, r ? 'leader' AS with_leader FROM deal_cards(61) r;
SELECT count(*) AS games_without_proof FROM game WHERE desk_id = 61 AND fair_commitment IS NULL;
-- A desk taken off its round by hand leaves the round without a reveal, and a desk with a
-- commitment but no round deals nothing.
UPDATE desk SET fair_round = NULL, fair_commitment = NULL, fair_nonce = NULL WHERE desk_id = 63;
SELECT round, nonce, verified, problem FROM fair_verify_desk(63);
UPDATE desk SET fair_commitment = '\x00' WHERE desk_id = 63;
\set VERBOSITY sqlstate
SELECT deal_cards(63);
\set VERBOSITY default
-- No key refuses such a row (none joins the extension's tables): dealcards_check() names it.
SELECT table_name, desk_id, problem FROM dealcards_check();
UPDATE desk SET fair_commitment = NULL WHERE desk_id = 63;
SELECT count(*) AS problems FROM dealcards_check();

-- Errors.
SELECT fair_mode_on(60);
SELECT fair_mode_on(62, '{4}');
SELECT fair_mode_on(62, '{1,1}');
SELECT fair_mode_on(62, '{NULL}');
SELECT fair_mode_on(62, '{1,2,3}');
SELECT fair_mode_on(62, '{{1},{2}}');
SELECT fair_mode_on(62, '[2:2]={3}');
SELECT * FROM fair_reveal(61, '{{1},{2}}');
SELECT * FROM fair_reveal(61, '[0:0]={3}');
SELECT * FROM fair_reveal(60);
SELECT * FROM fair_reveal(61);
SELECT * FROM fair_verify_desk(60);
SELECT set_client_seed(60, 1, 'x');
SELECT set_client_seed(61, 1, 'x');
SELECT set_client_seed(62, 0, 'x');
SELECT set_client_seed(62, 1, repeat('é', 129));
SELECT set_client_seed(62, 1, '');
\set VERBOSITY sqlstate
SELECT set_client_seed(62, 1, NULL);
SELECT set_client_seed(NULL, 1, 'x');
\set VERBOSITY default
SELECT * FROM fair_verify_game(-1);
SELECT fair_receipt(-1);
\set VERBOSITY sqlstate
SELECT fair_receipt((SELECT max(game_id) FROM game WHERE desk_id = 61 AND fair_commitment IS NULL));
SELECT * FROM fair_verify_game((SELECT max(game_id) FROM game WHERE desk_id = 61));
\set VERBOSITY default
SELECT fair_mode_on(62) IS NOT NULL AS on_with_one_player;
SELECT set_client_seed(62, 2, 'x');
SELECT deal_cards(62);
SELECT count(*) AS games, (SELECT fair_nonce FROM desk WHERE desk_id = 62) AS nonce FROM game WHERE desk_id = 62;
SELECT round, nonce, verified, problem
  FROM fair_verify_game((SELECT min(game_id) FROM game WHERE desk_id = 61 AND fair_commitment IS NOT NULL));

-- A round's bound: past its max_deals deals the desk deals nothing until the round is
-- revealed; the next round keeps the bound unless another is given. Its seed is due within a
-- day of its commitment unless another time is given, or NULL: no time limit.
INSERT INTO desk (desk_id) VALUES (64);
INSERT INTO desk_player VALUES (64, 1, 641), (64, 2, 642), (64, 3, 643);
SELECT fair_mode_on(64, seeds_required => false, max_deals => 1) IS NOT NULL AS on;
SELECT round, max_deals, reveal_by - committed_at AS reveal_within
  FROM fair_commitment WHERE desk_id = 64;
SELECT deal_cards(64) ->> 'nonce' AS nonce;
SELECT deal_cards(64);
SELECT count(*) AS games FROM game WHERE desk_id = 64;
SELECT round FROM fair_reveal(64);
SELECT round, max_deals, reveal_by - committed_at AS reveal_within
  FROM fair_commitment WHERE desk_id = 64 ORDER BY round;
SELECT deal_cards(64) ->> 'nonce' AS nonce;
SELECT round FROM fair_reveal(64, max_deals => 3, reveal_within => interval '2 hours');
SELECT round, max_deals, reveal_by - committed_at AS reveal_within
  FROM fair_commitment WHERE desk_id = 64 ORDER BY round;
SELECT round FROM fair_mode_off(64);
SELECT fair_mode_on(64, seeds_required => false, reveal_within => NULL) IS NOT NULL AS on;
SELECT round FROM fair_reveal(64);
SELECT round, max_deals, reveal_by FROM fair_commitment WHERE desk_id = 64 AND round > 3 ORDER BY round;
SELECT fair_mode_on(62, max_deals => 0);
SELECT fair_mode_on(62, reveal_within => interval '0');
SELECT * FROM fair_reveal(64, max_deals => -5);
\set VERBOSITY sqlstate
SELECT fair_mode_on(62, max_deals => NULL);
SELECT fair_mode_on(NULL);
\set VERBOSITY default
