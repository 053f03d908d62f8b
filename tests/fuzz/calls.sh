# The random calls of scripts/fuzz.sh (sourced by it): statements calling every function of the
# extension, arguments drawn from pools of edge values (NULLs, bounds, empty and
# multi-dimensional arrays, odd lower bounds, huge sizes, other element types, seeds of the wrong
# length, unknown desks and queues, saved queue states real and tampered), with bash's RANDOM
# seeded by the run's seed.
#
# `statement N` prints the statement of case N (0 <= N < cases). With sweep=1 every pick takes
# its second argument (or the pool's first value): arguments a call accepts, so that the sweep
# that opens each seed's calls reaches each function with a call that returns, whatever the
# random calls then draw (a function that only ever raises is never counted as called).
# shellcheck shell=bash

sweep=0
# The arguments of a statement are drawn once it is built, in this shell: bash draws a new seed
# for RANDOM in each command substitution, so a draw inside $(...) would differ from run to run.
# pick, one and num only print a mark (\x1d kind \x1f ... \x1e) that resolve replaces.
#   pick POOL [SWEEP]   a value of the array POOL (in the sweep: SWEEP, else the pool's first)
#   one WORD...         one of the words (in the sweep: the first)
#   num N               a number from 0 to N - 1 (in the sweep: 0)
pick() { if [ $# -ge 2 ]; then printf '\x1dp\x1f%s\x1f1\x1f%s\x1e' "$1" "$2"; else printf '\x1dp\x1f%s\x1f0\x1e' "$1"; fi; }
one() { local IFS=$'\x1f'; printf '\x1do\x1f%s\x1e' "$*"; }
num() { printf '\x1dn\x1f%s\x1e' "$1"; }
# REPLY: a number from 0 to $1 - 1 (in the sweep: 0), drawn in this shell.
choose() { if [ "$sweep" = 1 ]; then REPLY=0; else REPLY=$((RANDOM % $1)); fi; }
# REPLY: $1 with its marks replaced by values, innermost (last opened) first; a value drawn may
# hold marks of its own, resolved in turn.
resolve() {
  local s=$1 before token after kind value
  local -a fields
  while [[ $s == *$'\x1d'* ]]; do
    before=${s%$'\x1d'*}
    token=${s##*$'\x1d'}
    after=${token#*$'\x1e'}
    token=${token%%$'\x1e'*}
    IFS=$'\x1f' read -r -a fields <<<"$token"
    kind=${fields[0]}
    case $kind in
      p)
        local -n pool=${fields[1]}
        if [ "$sweep" = 1 ]; then
          if [ "${fields[2]}" = 1 ]; then value=${fields[3]-}; else value=${pool[0]}; fi
        else
          value=${pool[RANDOM % ${#pool[@]}]}
        fi
        unset -n pool ;;
      o)
        if [ "$sweep" = 1 ]; then value=${fields[1]}; else value=${fields[1 + RANDOM % (${#fields[@]} - 1)]}; fi ;;
      n)
        if [ "$sweep" = 1 ]; then value=0; else value=$((RANDOM % fields[1])); fi ;;
    esac
    s=$before$value$after
  done
  REPLY=$s
}

ints=(3 0 1 -1 2 17 54 55 1000 -2147483648 2147483647 134217727 134217728 NULL)
bigints=(1 0 -1 2 3 54 1000000 8589934591 -9223372036854775808 9223372036854775807 NULL)
seeds=("decode(repeat('00', 32), 'hex')" "'\\x00'::bytea" "''::bytea" NULL
  "decode(md5('a') || md5('b'), 'hex')" "decode(repeat('ff', 33), 'hex')")
hands=("ARRAY[1, 2, 3]" "'{}'::int[]" "ARRAY[NULL, 1]::int[]" "ARRAY[55]" "'{{1,2},{3,4}}'::int[]"
  "(SELECT p1_cards FROM game LIMIT 1)" "array_fill(7, ARRAY[100000])" "'[3:5]={1,2,3}'::int[]" NULL
  "ARRAY[0, -1, 54]")
arrays=("ARRAY[1, 2, 3]" "'{a,b,NULL}'::text[]" "'{}'::int[]" "'{{1,2},{3,4}}'::int[]"
  "ARRAY['x'::varchar, 'yy']" "'1 2 3'::int2vector" "'1 2'::oidvector" "ARRAY[now(), now()]"
  "ARRAY['{\"a\": 1}'::jsonb, '[]']" "ARRAY[1.5, 2.25]::numeric[]" "ARRAY[ROW(1, 'a'), NULL]"
  "(SELECT array_agg(g) FROM generate_series(1, 100000) g)" "'[0:2]={1,2,3}'::int[]"
  "ARRAY[true, false, NULL]" "NULL::int[]" "ARRAY[''::bytea, '\\x01']" "ARRAY[1::int2, 2]"
  "(SELECT array_agg(md5(g::text)) FROM generate_series(1, 1000) g)" "'{{{1}},{{2}}}'::int[]")
tracks=("ARRAY[1, 2, 3]::bigint[]" "'{}'::bigint[]" "ARRAY[1, 1]::bigint[]" "ARRAY[NULL]::bigint[]"
  "ARRAY(SELECT generate_series(1, 1000)::bigint)" NULL "'{{1,2},{3,4}}'::bigint[]"
  "ARRAY[-9223372036854775808, 9223372036854775807]" "'[0:2]={4,5,6}'::bigint[]")
# Group names of as many tracks as the first pool of tracks, and others.
groups=("'{a,b,a}'::text[]" "'{a,a,a}'::text[]" "'{}'::text[]" "'{a,NULL,b}'::text[]" NULL
  "ARRAY['Zoë', '牌', '']" "'{{a,b},{c,d}}'::text[]" "ARRAY(SELECT md5(g::text) FROM generate_series(1, 1000) g)"
  "ARRAY[repeat('é', 5000), 'b', 'c']" "'[0:2]={a,b,c}'::text[]")
weights=("'{1,2,3}'::int[]" "'{0,1,2}'::int[]" "'{-1,1,1}'::int[]" "'{1}'::int[]" "'{NULL,1,1}'::int[]"
  "ARRAY[2147483647, 1, 1]" NULL "'{{1,2},{3,4}}'::int[]" "array_fill(1, ARRAY[1000])")
modes=("'shuffle'" "'random'" "'spread'" "''" NULL "'Shuffle'" "E'\\x01'" "repeat('x', 10000)")
queues=("(SELECT max(queue_id) FROM shuffle_queue)" "(SELECT min(queue_id) FROM shuffle_queue)" 1 -1
  NULL 999999 "(SELECT max(queue_id) FROM shuffle_queue WHERE mode = 'spread')"
  "(SELECT max(queue_id) FROM shuffle_queue WHERE weight_max IS NOT NULL)"
  "(SELECT max(queue_id) FROM shuffle_queue WHERE album_place IS NOT NULL)"
  "(SELECT max(queue_id) FROM shuffle_queue WHERE listener IS NOT NULL)"
  "(SELECT max(queue_id) FROM shuffle_queue WHERE seed IS NOT NULL)")
# New queues of each kind, for a call that needs one it may change.
plain_queue="shuffle_queue_create(ARRAY[1, 2, 3, 4]::bigint[])"
spread_queue="shuffle_queue_new(ARRAY[1, 2, 3, 4]::bigint[], groups => '{a,b,a,c}')"
weighted_queue="shuffle_queue_new(ARRAY[1, 2, 3]::bigint[], 'random', weights => '{1,2,3}')"
albums_queue="shuffle_queue_new_albums(ARRAY[1, 2, 3, 4]::bigint[], '{x,x,y,z}', '{p,p,q,p}')"
listener_queue="shuffle_queue_new(ARRAY[1, 2, 3]::bigint[], listener => 7)"
any_queues=("$plain_queue" "$spread_queue" "$weighted_queue" "$albums_queue" "$listener_queue"
  "${queues[@]}")
items=(5 1 2 3 0 -1 999 NULL -9223372036854775808)
listeners=(7 0 -1 1 NULL 9223372036854775807)
desks=(1 2 18 19 20 21 -1 NULL 2147483647)
# Desks 20 and on are not in provably fair mode: fair_mode_on makes a new round there.
fresh_desks=(20 21 1 -1 NULL)
int_arrays=("'{}'::int[]" "'{3}'::int[]" "'{1,2,3}'::int[]" "'{0}'::int[]" "'{2,2}'::int[]" "'{NULL}'::int[]"
  "'{{1},{2}}'::int[]" "ARRAY[2147483647]" NULL)
bools=(false true NULL)
max_deals=(1 0 -1 2 1000 9223372036854775807 -9223372036854775808 NULL)
# reveal_within: the edges, and beyond; fuzz.sh adds 'infinity' and '-infinity' where the
# server has them (PostgreSQL 17 and later).
intervals=("'1 day'" NULL "'0'" "'-1 day'" "'1 microsecond'" "'-1 microsecond'" "'1 mon'"
  "'178000000 years'" "'-178000000 years'" "'2147483647 days 24:00:00'" "'1 year -365 days'")
percents=(50 0 1e-30 0.001 100 -1 100.5 "'NaN'" "'Infinity'" NULL)
texts=("'x'" "''" NULL "repeat('é', 200)" "E'\\x01'" "'Zoë'")
client_seeds=("'{a,b,c}'::text[]" "'{}'::text[]" "'{a,NULL,c}'::text[]" "ARRAY[repeat('x', 257), 'b', 'c']"
  "'{{a,b},{c,d}}'::text[]" NULL "ARRAY['Zoë', '牌', '']" "'[0:2]={a,b,c}'::text[]")
games=("(SELECT max(game_id) FROM game)" "(SELECT min(game_id) FROM game WHERE fair_commitment IS NOT NULL)"
  -1 NULL)
xids=("(SELECT xmin FROM game LIMIT 1)" "'0'::xid" "'1'::xid" "'4294967295'::xid" NULL "txid_current()::text::xid")
# Row types sample_rows reads (the fuzzing role may read all but fair_seed), and others.
relations=(NULL::game NULL::desk NULL::shuffle_queue NULL::fair_seed NULL::fuzz_saved "NULL::int"
  "ROW(1, 2)" "NULL::pg_class" NULL)
# Values for the row aggregates: those of their typed forms (smallint, integer, bigint, text,
# uuid) and others (the polymorphic forms).
agg_values=("g" "g::int2" "g::int8" "g::text" "md5(g::text)::uuid" "g::numeric" "ROW(g, 'x')"
  "NULLIF(g, 2)" "repeat('é', g * 100)" "ARRAY[g]" "g::float8 / 3" "CASE WHEN g % 2 = 0 THEN g::text END")
agg_weights=("g::float8" "1" "0" "-1" "'NaN'" "'Infinity'" "1e308" "1e-308" NULL "g % 3")
room_hands=("(SELECT max(hand_id) FROM room_hand)" "(SELECT min(hand_id) FROM room_hand)" 1 -1 NULL
  9223372036854775807)
room_kinds=("'holdem'" "'blackjack'" "'bridge'" "'riichi'" "'dou_dizhu'" "'stud'" "'five_card_draw'"
  "'riichi_red_fives'" "''" NULL "'Holdem'" "repeat('x', 10000)")
room_stages=("'play'" "'hole'" "'flop'" "'burn'" "'dead wall'" "'draw'" "''" NULL "repeat('é', 200)")
penetrations=(0.75 0 1 1.5 -1 "'NaN'" "'Infinity'" 1e-300 NULL)
rows=(10 0 1 3 1000 100000)
# Saved queue states: real ones (fuzz_saved holds those of every kind of queue, saved before the
# run), then tampered: one of their values (by its path, any depth) replaced, or dropped.
json_values=("'0'" "'null'" "'-1'" "'1'" "'9223372036854775807'" "'-9223372036854775808'"
  "'18446744073709551616'" "'1e400'" "'0.5'" "'\"x\"'" "'\"\"'" "'[]'" "'{}'" "'true'" "'[1, 1]'"
  "'[null]'" "'\"Zoë\"'" "'[[]]'" "'{\"a\": 1}'" "'\"shuffle\"'" "'\"spread\"'" "'\"random\"'"
  "to_jsonb(repeat('x', 300))" "'[9223372036854775807, -9223372036854775808]'" "NULL")
# The text of rows_agg_state values: the type's oid (little-endian: int2, int4, int8, text, uuid,
# numeric), a kind, then bytes.
state_heads=(17000000 15000000 14000000 19000000 860b0000 a4060000 00000000 ffffffff)
state_text() {
  local body
  body=$(one "''" "repeat('00', $(num 40))" "md5('$(num 32768)')" "repeat('ff', $(num 40))" \
    "repeat('01000000', $(num 20))" "repeat(md5('$(num 32768)'), 200)")
  printf "('\\\\x' || '%s' || '0%s' || %s)" "$(pick state_heads)" "$(num 7)" "$body"
}

# e: a call of row aggregate $1 (0 to 6) of the values $2.
aggregate() {
  local v=$2 k w s from
  k=$(pick ints) w=$(pick agg_weights) s=$(pick seeds)
  from=$(one "generate_series(1, $(pick rows)) g" "(SELECT game_id::int AS g FROM game) t")
  case $1 in
    0) e="(SELECT sample_agg($v, $k) FROM $from)" ;;
    1) e="(SELECT sample_agg($v, $k, $w) FROM $from)" ;;
    2) e="(SELECT resample_agg($v, $k) FROM $from)" ;;
    3) e="(SELECT resample_agg($v, $k, $w) FROM $from)" ;;
    4) e="(SELECT shuffle_agg($v) FROM $from)" ;;
    5) e="(SELECT sample_agg_seeded($v, $k, $s) FROM $from)" ;;
    6) e="(SELECT shuffle_agg_seeded($v, $s) FROM $from)" ;;
  esac
}
# e: use $1 (0 to 10) of a rows_agg_state value given from outside.
typed_state() {
  local t
  typed_states=("'\\x'::rows_agg_state" "$(state_text)::rows_agg_state" NULL::rows_agg_state)
  t=$(pick typed_states)
  case $1 in
    0) e="$(state_text)::rows_agg_state" ;;
    1) e="rows_agg_state_out($t)" ;;
    2) e="rows_agg_state_send($t)" ;;
    3) e="rows_agg_combine($t, $(pick typed_states))" ;;
    4) e="sample_agg_step($t, 1, $(pick ints))" ;;
    5) e="shuffle_agg_seeded_step($t, 'x'::text, $(pick seeds))" ;;
    *) local finals=(int2 int4 int8 text uuid); e="rows_agg_final_${finals[$1 - 6]}($t)" ;;
  esac
}

# e: use $1 (0 to 3) of a real rows_agg_state (fuzz_states holds one of each kind for each type),
# as it is or with its bytes changed: one overwritten, cut short, more after them, a count made
# huge; the value is then read by the type's input function.
real_state() {
  local real bytes changed
  real="(SELECT state FROM fuzz_states ORDER BY id OFFSET $(num 36) LIMIT 1)"
  bytes="rows_agg_state_send($real)"
  changed=$(one "$real" \
    "('\\x' || encode(overlay($bytes placing decode(lpad(to_hex($(num 256)), 2, '0'), 'hex') from 1 + $(num 80) for 1), 'hex'))::rows_agg_state" \
    "('\\x' || encode(substr($bytes, 1, $(num 80)), 'hex'))::rows_agg_state" \
    "('\\x' || encode($bytes || decode(md5('$(num 100)'), 'hex'), 'hex'))::rows_agg_state" \
    "('\\x' || encode(overlay($bytes placing '\\xffffffffffffff7f'::bytea from 6 + $(num 8) for 8), 'hex'))::rows_agg_state" \
    "('\\x' || encode(overlay($bytes placing '\\x00000000'::bytea from 6 + $(num 8) for 4), 'hex'))::rows_agg_state")
  case $1 in
    0) e="($changed)::text::rows_agg_state" ;;
    1) e="rows_agg_final_$(one int2 int4 int8 text uuid)($changed)" ;;
    2) e="rows_agg_state_out($changed)" ;;
    3) e="rows_agg_state_send($changed)" ;;
  esac
}

# The statement of case $1 (an expression is wrapped in SELECT (...) IS NULL: a result of a
# billion bytes is the extension's to make, but not a text to send to the client, which PostgreSQL
# cannot (array_out fails on more than 1 GB)).
cases=94
statement() {
  local e
  local e="" statement=""
  saved="(SELECT state FROM fuzz_saved ORDER BY id OFFSET $(num 12) LIMIT 1)"
  case $1 in
    0) e="shuffle_ints($(pick ints 1), $(pick ints 10))" ;;
    1) e="shuffle_ints($(pick ints 1), $(pick ints 10), $(pick seeds))" ;;
    2) e="deal_cards($(pick desks 2))" ;;
    3) e="deal_hands($(pick ints 3), $(pick ints 17), $(pick ints 54))" ;;
    4) e="deal_hands($(pick ints 3))" ;;
    5) e="card_label($(pick ints 3))" ;;
    6) e="sort_hand($(pick hands))" ;;
    7) e="hand_labels($(pick hands))" ;;
    8) e="freecell_layout($(pick bigints))" ;;
    9) e="(SELECT count(*) FROM freecell_cards($(pick bigints)))" ;;
    10) e="(SELECT count(*) FROM freecell_board($(pick bigints)))" ;;
    11) e="shuffle_array($(pick arrays))" ;;
    12) e="shuffle_array($(pick arrays), $(pick seeds))" ;;
    13) e="sample_array($(pick arrays), $(pick ints))" ;;
    14) e="sample_array($(pick arrays), $(pick ints), $(pick seeds))" ;;
    15) e="sample_ints($(pick bigints), $(pick bigints 100), $(pick ints))" ;;
    16) e="sample_ints($(pick bigints), $(pick bigints 100), $(pick ints), $(pick seeds))" ;;
    17) e="shuffle_queue_create($(pick tracks), $(pick modes), $(pick ints 2))" ;;
    18) e="shuffle_queue_next($(pick any_queues))" ;;
    19) e="shuffle_queue_prev($(pick any_queues "$plain_queue"))" ;;
    20) e="shuffle_queue_current($(pick any_queues))" ;;
    21) e="shuffle_queue_add($(pick any_queues), $(pick items))" ;;
    22) e="shuffle_queue_remove($(pick any_queues), $(pick items 2))" ;;
    23) e="shuffle_queue_drop($(pick any_queues))" ;;
    24) e="fair_mode_on($(pick desks 20))" ;;
    25) e="(SELECT count(*) FROM fair_mode_off($(pick desks 20)))" ;;
    26) e="(SELECT count(*) FROM fair_reveal($(pick desks)))" ;;
    27) e="set_client_seed($(pick desks), $(pick ints 1), $(pick texts))" ;;
    28) e="(SELECT count(*) FROM fair_deal($(pick seeds), $(pick client_seeds), $(pick bigints)))" ;;
    29) e="(SELECT count(*) FROM fair_verify_desk($(pick desks)))" ;;
    30) e="(SELECT count(*) FROM fair_verify_game($(pick games "${games[1]}")))" ;;
    31) e="shuffle_spread($(pick arrays), $(pick arrays))" ;;
    32) e="shuffle_spread($(pick arrays), $(pick arrays), $(pick seeds))" ;;
    33) e="fair_mode_on($(pick fresh_desks), $(pick int_arrays), $(pick bools))" ;;
    34) e="(SELECT count(*) FROM fair_reveal($(pick desks 3), $(pick int_arrays), $(pick bools)))" ;;
    35) e="fair_publication($(pick desks))" ;;
    36) e="fair_receipt($(pick games "${games[1]}"))" ;;
    37) e="shuffle_key($(pick seeds), $(pick bigints))" ;;
    38) e="shuffle_key($(pick seeds), $(pick texts))" ;;
    39) e="(SELECT count(*) FROM game TABLESAMPLE sparse_bernoulli($(pick percents)) REPEATABLE ($(pick ints)))" ;;
    40) e="(SELECT count(*) FROM sample_rows($(pick relations), $(pick ints), $(pick seeds)))" ;;
    # The cases below reach what the ones above do not: every function, every argument.
    41) e="(SELECT count(*) FROM sample_rows($(pick relations), $(pick ints)))" ;;
    42) e="(SELECT array_agg(game_id ORDER BY shuffle_key($(pick seeds), game_id)) FROM game)" ;;
    43) e="(SELECT array_agg(desk_id ORDER BY shuffle_key($(pick seeds), $(one "desk_id::text" "repeat(desk_id::text, 1000)" "''"))) FROM desk)" ;;
    44) e="fair_mode_on($(pick fresh_desks), max_deals => $(pick max_deals), reveal_within => $(pick intervals))" ;;
    45) e="fair_mode_on($(pick fresh_desks), $(pick int_arrays), $(pick bools), $(pick max_deals), $(pick intervals))" ;;
    46) e="(SELECT count(*) FROM fair_reveal($(pick desks 4), max_deals => $(pick max_deals), reveal_within => $(pick intervals)))" ;;
    47) e="(SELECT count(*) FROM fair_reveal($(pick desks 5), $(pick int_arrays), $(pick bools), $(pick max_deals), $(pick intervals)))" ;;
    48) e="(SELECT count(*) FROM shuffle_queue_upcoming($(pick any_queues)))" ;;
    49) e="(SELECT count(*) FROM shuffle_queue_upcoming($(pick any_queues), $(pick ints), $(pick ints 2)))" ;;
    50) e="(SELECT count(*) FROM shuffle_queue_upcoming($(pick any_queues), after => $(pick ints)))" ;;
    51) e="shuffle_queue_skip($(pick any_queues))" ;;
    52) e="shuffle_queue_new_albums($(pick tracks "ARRAY[1, 2, 3]::bigint[]"), $(pick groups), $(pick groups), $(pick seeds))" ;;
    53) e="shuffle_queue_new_albums($(pick tracks "ARRAY[1, 2, 3]::bigint[]"), $(pick groups))" ;;
    54) e="shuffle_queue_new($(pick tracks), mode => $(pick modes), \"window\" => $(pick ints NULL), groups => $(pick groups), subgroups => $(pick groups), start_with => $(pick items 2), seed => $(pick seeds), weights => $(pick weights NULL), listener => $(pick listeners))" ;;
    55) e="shuffle_queue_restore(shuffle_queue_save($(pick any_queues)))" ;;
    56) e="shuffle_queue_restore($saved)" ;;
    57) e="shuffle_queue_restore(fuzz_tamper($saved, $(num 32768), $(pick json_values)))" ;;
    58) e="shuffle_queue_restore($(pick json_values "$saved"))" ;;
    59) e="shuffle_queue_restore($saved || $(one "'{\"extra\": 1}'" "'{\"format\": 2}'" "'{\"weights\": null}'" "'{\"listener\": 1, \"plays\": 0}'" "'{\"plays\": null}'"))" ;;
    60) e="shuffle_queue_add($(pick any_queues "$weighted_queue"), $(pick items), $(pick ints))" ;;
    61) e="shuffle_queue_add($(pick any_queues "$spread_queue"), $(pick items), $(pick texts), $(pick texts NULL))" ;;
    62) e="shuffle_queue_jump($(pick any_queues), $(pick items 2))" ;;
    63) e="shuffle_queue_play_next($(pick any_queues), $(pick tracks "ARRAY[2]::bigint[]"))" ;;
    64) e="shuffle_queue_play_later($(pick any_queues), $(pick tracks "ARRAY[2]::bigint[]"))" ;;
    65) e="shuffle_queue_skip_when_shuffling($(pick any_queues), $(pick items 2), $(pick bools true))" ;;
    66) e="shuffle_queue_forget($(pick listeners))" ;;
    67) e="shuffle_spread($(pick arrays), $(pick arrays), $(pick arrays))" ;;
    68) e="shuffle_spread($(pick arrays), $(pick arrays), $(pick arrays), $(pick seeds))" ;;
    69) e="dealcards_written_here($(pick xids))" ;;
    70)
      # The row aggregates, typed and polymorphic, over generated rows or a table's (the latter
      # may be planned in parallel: combine, serialize and deserialize). The sweep takes each of
      # them: the seven for each type of the typed forms, and for another type.
      if [ "$sweep" = 1 ]; then
        local v form
        for v in "g::int2" "g" "g::int8" "g::text" "md5(g::text)::uuid" "g::numeric"; do
          for form in 0 1 2 3 4 5 6; do
            aggregate "$form" "$v"
            resolve "SELECT $e IS NULL;"
            printf '%s\n' "$REPLY"
          done
        done
        return
      fi
      choose 7
      aggregate "$REPLY" "$(pick agg_values)" ;;
    72) e="shuffle_queue_up_next($(pick any_queues))" ;;
    73) e="shuffle_queue_clear_up_next($(pick any_queues))" ;;
    74) e="(SELECT count(*) FROM dealcards_check())" ;;
    75) e="(SELECT count(*) FROM dealcards_sync_sequences())" ;;
    76) e="(SELECT count(*) FROM dealcards_distribute())" ;;
    # Card rooms' hands: the sweep starts a Hold'em hand, then a blackjack shoe that it burns,
    # opens, draws from and ends.
    81) e="hand_start($(pick bigints), $(pick room_kinds), $(pick ints 9))" ;;
    82) e="hand_start($(pick bigints), $(pick room_kinds "'blackjack'"), $(pick ints 2), dealer => $(pick ints NULL), board => $(pick ints NULL), decks => $(pick ints 1), penetration => $(pick penetrations))" ;;
    83) e="(SELECT count(*) FROM hand_deal($(pick room_hands)))" ;;
    84) e="(SELECT count(*) FROM hand_deal($(pick room_hands), $(pick room_stages)))" ;;
    85) e="(SELECT count(*) FROM hand_draw($(pick room_hands), $(pick ints 1), $(pick ints 1)))" ;;
    86) e="hand_end($(pick room_hands))" ;;
    87) e="(SELECT count(*) FROM room_kinds())" ;;
    # The sweep takes the bridge board scripts/fuzz.sh deals first.
    93) e="hand_pbn($(pick room_hands "(SELECT min(hand_id) FROM room_hand)"))" ;;
    # The guards of the extension's tables (event triggers, the settings' trigger): DDL on a
    # table of the fuzzing role's own and on the extension's, and a setting kept. None changes
    # a table's columns: a statement of sqlsmith naming a column is replayed after the run.
    77) statement="ALTER TABLE fuzz_own.t $(one "SET (fillfactor = 1$(num 9)0)" "ALTER COLUMN a SET STATISTICS $(num 1000)" "RESET (fillfactor)");" ;;
    78) statement="$(one "COMMENT ON TABLE fuzz_own.t IS 'x'" "CREATE INDEX IF NOT EXISTS t_a ON fuzz_own.t (a)" "ALTER TABLE game ADD COLUMN x int" "COMMENT ON TABLE desk IS 'x'" "ALTER TABLE shuffle_queue SET (fillfactor = 50)");" ;;
    79) statement="INSERT INTO dealcards_table_setting (table_name, options) VALUES ($(one "'game'" "'desk'" "'fuzz'" "''"), $(one "'{fillfactor=90}'" "'{}'" "'{x=1}'" "'{autovacuum_enabled=off}'")) ON CONFLICT (table_name) DO UPDATE SET options = excluded.options;" ;;
    80)
      if [ "$sweep" = 1 ]; then
        local form
        for form in 0 1 2 3; do
          real_state "$form"
          resolve "SELECT $e IS NULL;"
          printf '%s\n' "$REPLY"
        done
        return
      fi
      choose 4
      real_state "$REPLY" ;;
    71)
      # rows_agg_state from outside: its text and binary forms, and the typed support functions
      # called outside an aggregate (the sweep takes each).
      if [ "$sweep" = 1 ]; then
        local form
        for form in 0 1 2 3 4 5 6 7 8 9 10; do
          typed_state "$form"
          resolve "SELECT $e IS NULL;"
          printf '%s\n' "$REPLY"
        done
        return
      fi
      choose 15
      if [ "$REPLY" -lt 11 ]; then typed_state "$REPLY"; else real_state $((REPLY - 11)); fi ;;
    88) e="(SELECT count(*) FROM shuffle_queue_played($(pick any_queues), $(pick ints), $(pick ints 2)))" ;;
    89) e="(SELECT count(*) FROM shuffle_queue_now($(pick any_queues), $(pick ints)))" ;;
    90) e="shuffle_queue_add_many($(pick any_queues), $(pick tracks "ARRAY[7, 8]::bigint[]"))" ;;
    91) e="shuffle_queue_add_many($(pick any_queues "$weighted_queue"), $(pick tracks "ARRAY[900001, 900002]::bigint[]"), $(pick weights "'{1,2}'::int[]"))" ;;
    92) e="shuffle_queue_remove_many($(pick any_queues), $(pick tracks "ARRAY[2]::bigint[]"))" ;;
  esac
  resolve "${statement:-SELECT $e IS NULL;}"
  printf '%s\n' "$REPLY"
}
