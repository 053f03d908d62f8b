#!/usr/bin/env bash
# The player's verifier page (verifier/index.html) in headless chromium, against deals the
# extension made: on the running throwaway cluster of PG_VERSION, a desk in provably fair mode
# deals with changing client seeds, the house reveals, and every deal goes to
# tests/browser/run.sh, which also checks the golden deals and tools/verify_deal.py.
source "$(dirname "$0")/common.sh"
cd "$ROOT"
eval "$("$ROOT/scripts/cluster.sh" env)"
fresh_database dealcards_browser
out=$ROOT/target/browser
mkdir -p "$out"
psql -X -q -v ON_ERROR_STOP=1 -d dealcards_browser >/dev/null <<'SQL'
INSERT INTO desk (desk_id) VALUES (7);
INSERT INTO desk_player (desk_id, player_no, player_id) VALUES (7, 1, 101), (7, 2, 102), (7, 3, 103);
SELECT fair_mode_on(7);
SELECT deal_cards(7);
SELECT set_client_seed(7, 1, 'alice'), set_client_seed(7, 3, 'Zoë');
SELECT deal_cards(7), deal_cards(7);
SELECT set_client_seed(7, 2, '牌 two words'), set_client_seed(7, 3, repeat('ж', 128));
SELECT deal_cards(7);
SELECT fair_reveal(7);
SELECT set_client_seed(7, 1, '🂡');
SELECT deal_cards(7), deal_cards(7);
SELECT fair_mode_off(7);
SQL
psql -X -q -A -t -v ON_ERROR_STOP=1 -d dealcards_browser -o "$out/deals.json" <<'SQL'
SELECT json_agg(json_build_object(
         'game', g.game_id,
         'server_seed', encode(c.server_seed, 'hex'),
         'commitment', encode(c.commitment, 'hex'),
         'client_seeds', g.client_seeds,
         'nonce', g.fair_nonce,
         'p1_cards', g.p1_cards, 'p2_cards', g.p2_cards, 'p3_cards', g.p3_cards,
         'extra_cards', g.extra_cards, 'leader', g.leader) ORDER BY g.game_id)
  FROM game g JOIN fair_commitment c ON c.desk_id = g.desk_id AND c.commitment = g.fair_commitment;
SQL
deals=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$out/deals.json")
[ "$deals" = 6 ] || { echo "expected 6 revealed fair deals to check, got $deals" >&2; exit 1; }
tests/browser/run.sh "$out/deals.json"
