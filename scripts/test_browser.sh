#!/usr/bin/env bash
# The players' verifiers (verifier/index.html in headless chromium, and tools/verify_deal.py)
# against deals the extension made: on the running throwaway cluster of PG_VERSION, a desk in
# provably fair mode deals over three rounds (seat 3 the house's in the first two, each revealed
# once it has dealt its max_deals, 3 and 2, so that none ended early; players and seeds change
# between rounds; player ids beyond 2^53 and below 0; the last round's seed due
# within 30 days, its publication read in the Asia/Kolkata time zone), each statement committing
# on its own as deals take only what was committed before them. The receipts (fair_receipt of
# each game, and each deal's notification, which must be the same), the desk's
# fair_publication, and each revealed deal go to tests/browser/run.sh, which also checks golden
# deals and publications, and tampered ones.
source "$(dirname "$0")/common.sh"
cd "$ROOT"
eval "$("$ROOT/scripts/cluster.sh" env)"
fresh_database dealcards_browser
out=$ROOT/target/browser
mkdir -p "$out"
# Every statement in autocommit; deal_cards results are the lines starting with "{", and each
# deal's notification (its receipt) is printed after it.
psql -X -q -A -t -v ON_ERROR_STOP=1 -d dealcards_browser >"$out/session.txt" <<'SQL'
LISTEN dealcards_desk_7;
INSERT INTO desk (desk_id) VALUES (7);
INSERT INTO desk_player (desk_id, player_no, player_id) VALUES (7, 1, 101), (7, 2, 102), (7, 3, 103);
SELECT fair_mode_on(7, house_seats => '{3}', max_deals => 3) IS NOT NULL AS on;
SELECT set_client_seed(7, 1, 'alice');
SELECT set_client_seed(7, 2, '牌 two words');
SELECT deal_cards(7);
SELECT deal_cards(7);
SELECT deal_cards(7);
SELECT round FROM fair_reveal(7, max_deals => 2);
DELETE FROM desk_player WHERE desk_id = 7 AND player_no = 2;
INSERT INTO desk_player (desk_id, player_no, player_id) VALUES (7, 2, 9007199254740993);
SELECT set_client_seed(7, 1, '🂡'), set_client_seed(7, 2, repeat('ж', 128));
SELECT deal_cards(7);
SELECT deal_cards(7);
SELECT round FROM fair_reveal(7, house_seats => '{}', max_deals => 1000, reveal_within => interval '30 days');
DELETE FROM desk_player WHERE desk_id = 7 AND player_no = 3;
INSERT INTO desk_player (desk_id, player_no, player_id) VALUES (7, 3, -42);
SELECT set_client_seed(7, 1, 'Zoë'), set_client_seed(7, 2, E'two\nlines'), set_client_seed(7, 3, 'x y');
SELECT deal_cards(7);
SELECT deal_cards(7);
SQL
grep '^{' "$out/session.txt" >"$out/results.jsonl"
psql -X -q -A -t -v ON_ERROR_STOP=1 -d dealcards_browser -o "$out/receipts.jsonl" \
  -c 'SELECT fair_receipt(game_id) FROM game WHERE desk_id = 7 AND fair_commitment IS NOT NULL ORDER BY game_id'
sed -n 's/^Asynchronous notification "dealcards_desk_7" with payload "\(.*\)" received from server process with PID [0-9]*\.$/\1/p' \
  "$out/session.txt" >"$out/notified.jsonl"
# Read in a time zone half an hour off the hour: the round in force's reveal_by is published
# with that offset, which the verifiers read to the microsecond into the chain (protocol 3).
PGTZ=Asia/Kolkata psql -X -q -A -t -v ON_ERROR_STOP=1 -d dealcards_browser -o "$out/publication.json" \
  -c 'SELECT fair_publication(7)'
# The revealed deals, each with its round's seed, for the page's single-deal part.
psql -X -q -A -t -v ON_ERROR_STOP=1 -d dealcards_browser -o "$out/deals.json" <<'SQL'
SELECT json_agg(json_build_object(
         'game', g.game_id,
         'server_seed', encode(c.server_seed, 'hex'),
         'commitment', encode(c.commitment, 'hex'),
         'client_seeds', g.client_seeds,
         'nonce', g.fair_nonce,
         'p1_cards', g.p1_cards, 'p2_cards', g.p2_cards, 'p3_cards', g.p3_cards,
         'extra_cards', g.extra_cards, 'leader', g.leader) ORDER BY g.game_id)
  FROM game g JOIN fair_commitment c ON c.desk_id = g.desk_id AND c.commitment = g.fair_commitment
 WHERE c.server_seed IS NOT NULL;
SQL
deals=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$out/deals.json")
[ "$deals" = 5 ] || { echo "expected 5 revealed fair deals to check, got $deals" >&2; exit 1; }
results=$(wc -l <"$out/results.jsonl")
[ "$results" = 7 ] || { echo "expected 7 deal_cards results, got $results" >&2; exit 1; }
# What deal_cards returned is the receipt without what depends on the shuffle.
python3 - "$out/results.jsonl" "$out/receipts.jsonl" <<'PY'
import json, sys
results = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
receipts = [json.loads(l) for l in open(sys.argv[2], encoding="utf-8")]
shorn = [{k: v for k, v in r.items() if k not in ("leader", "chain_hash")} for r in receipts]
if results != shorn or any("leader" not in r or "chain_hash" not in r for r in receipts):
    sys.exit("deal_cards results are not the receipts without leader and chain_hash")
PY
receipts=$(wc -l <"$out/receipts.jsonl")
[ "$receipts" = 7 ] || { echo "expected 7 receipts, got $receipts" >&2; exit 1; }
# run.sh also checks a player's own inputs (their id, for the games withheld from them, and the
# commitments they were shown) with the receipts as the deals notified them.
tests/browser/run.sh --publication "$out/publication.json" --receipts "$out/receipts.jsonl" \
  --notified "$out/notified.jsonl" "$out/deals.json"
