#!/usr/bin/env python3
"""Writes tests/reference/fair_golden.json: golden vectors of the provably fair deal and of the
desk hash chain (docs/provably_fair.md), computed by tools/verify_deal.py, which is written from
that specification alone.

    fair_golden.py           rewrite the JSON next to this file
    fair_golden.py --check   exit 1 if the JSON is not what this program writes
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import verify_deal as v  # noqa: E402

OUT = os.path.join(HERE, "fair_golden.json")

ZERO = bytes(32)
COUNTING = bytes(range(32))        # 00 01 02 ... 1f
ONES = b"\xff" * 32
LONG_SEED = "\u724c" * 85 + "a"    # 85 x "牌" (3 bytes each) + "a": exactly 256 bytes in UTF-8
assert len(LONG_SEED.encode("utf-8")) == 256

DEALS = [
    ("zero seed, no client seeds, first deal", ZERO, ["", "", ""], 0),
    ("the example of docs/provably_fair.md", COUNTING, ["alice", "", "Zo\u00eb"], 2),
    ("all-ones seed, CJK and spaces", ONES, ["\u724c", " two words ", "x"], 1),
    ("a 256-byte client seed, nonce 2^32", COUNTING, [LONG_SEED, "Zo\u00eb", ""], 2**32),
    ("largest nonce 2^63-1", ONES, ["alice", "bob", "carol"], 2**63 - 1),
    ("a client seed outside the BMP, one with a line break", ZERO, ["\U0001f0a1 ace", "two\nlines", "\u724c"], 1),
]


def deal_case(name, seed, client_seeds, nonce):
    r = v.verify(seed, client_seeds, nonce)
    return {
        "name": name,
        "server_seed": seed.hex(),
        "commitment": r["commitment"],
        "client_seeds": client_seeds,
        "nonce": nonce,
        "message": v.message(client_seeds, nonce).hex(),
        "key": r["key"],
        "p1_cards": r["p1_cards"], "p2_cards": r["p2_cards"], "p3_cards": r["p3_cards"],
        "extra_cards": r["extra_cards"],
        "leader": r["leader"],
    }


def chain_cases():
    """Desk 7's first three fair games (two under one commitment, then a new commitment after a
    reveal), and single first games of desks -1 and 2^31-1 (the 4-byte two's complement)."""
    out = []

    def add(name, prev, desk, seed, client_seeds, nonce, players=None, rules=None):
        d = deal_case(name, seed, client_seeds, nonce)
        parsed = None
        if rules is not None:
            # As a publication gives them, and as the chain takes them (reveal_by in whole
            # microseconds since 1970-01-01 UTC, for the implementations that do not parse times).
            parsed = v.parse_rules(json.dumps(rules))
            rules = dict(rules, reveal_by_micros=None if parsed["reveal_by"] is None
                         else v.micros_since_epoch(parsed["reveal_by"]))
        h = v.chain_hash(prev, desk, bytes.fromhex(d["commitment"]), nonce, client_seeds,
                         d["p1_cards"], d["p2_cards"], d["p3_cards"], d["extra_cards"], d["leader"],
                         players, parsed)
        case = {
            "name": name, "prev_hash": prev.hex(), "desk": desk, "commitment": d["commitment"],
            "nonce": nonce,
        }
        if players is not None:
            case["players"] = players
        if rules is not None:
            case["rules"] = rules
        case.update({
            "client_seeds": client_seeds,
            "p1_cards": d["p1_cards"], "p2_cards": d["p2_cards"], "p3_cards": d["p3_cards"],
            "extra_cards": d["extra_cards"], "leader": d["leader"], "chain_hash": h.hex(),
        })
        out.append(case)
        return h

    h = add("desk 7, first fair game", ZERO, 7, COUNTING, ["alice", "", "Zo\u00eb"], 0)
    h = add("desk 7, second game, same commitment", h, 7, COUNTING, ["alice", "bob", "Zo\u00eb"], 1)
    add("desk 7, third game, first under a new commitment", h, 7, ONES, ["alice", "bob", "\u724c"], 0)
    add("desk -1, first fair game", ZERO, -1, ZERO, ["", "", ""], 0)
    add("desk 2^31-1, first fair game", ZERO, 2**31 - 1, ONES, [LONG_SEED, "", "x"], 2**63 - 1)
    # Protocol 2: each seat's player before its seed.
    h = add("protocol 2: desk 7, first game", ZERO, 7, COUNTING, ["alice", "", "Zo\u00eb"], 0,
            [71, 72, 73])
    add("protocol 2: the same game with seats 1 and 2 swapped", ZERO, 7, COUNTING,
        ["alice", "", "Zo\u00eb"], 0, [72, 71, 73])
    add("protocol 2: after a protocol-2 game, negative and largest player ids", h, 7, COUNTING,
        ["alice", "bob", "Zo\u00eb"], 1, [-1, 2**63 - 1, -2**63])
    # Protocol 3: the round's rules after the commitment. The same first game under rules that
    # differ in one field each, then a second game after it; reveal_by with an offset west of
    # UTC, one of half an hour, and one before 1970.
    rules = {"house_seats": [3], "seeds_required": True, "max_deals": 1000, "reveal_by": None}
    h = add("protocol 3: desk 7, first game, seat 3 the house's", ZERO, 7, COUNTING,
            ["alice", "bob", ""], 0, [71, 72, 73], rules)
    add("protocol 3: the second game", h, 7, COUNTING, ["alice", "bob", ""], 1, [71, 72, 73], rules)
    for name, change in (
            ("no house seat", {"house_seats": []}),
            ("seats 1 and 2 the house's", {"house_seats": [2, 1], "seeds_required": False}),
            ("seeds not required", {"seeds_required": False}),
            ("the largest bound", {"max_deals": 2**63 - 1}),
            ("a reveal_by west of UTC", {"reveal_by": "2026-12-31T20:59:59.999999-03:00"}),
            ("a reveal_by half an hour east of UTC", {"reveal_by": "2027-01-01T05:30:00.000001+05:30"}),
            ("a reveal_by before 1970", {"reveal_by": "1969-12-31T23:59:59.5+00:00"})):
        add("protocol 3: first game, " + name, ZERO, 7, COUNTING, ["alice", "bob", ""], 0,
            [71, 72, 73], dict(rules, **change))
    return out


def golden():
    return {
        "about": "Provably fair deals and chain hashes of docs/provably_fair.md, from "
                 "tools/verify_deal.py; regenerate with python3 tests/reference/fair_golden.py. "
                 "Hex is lowercase; cards are numbered as everywhere in dealcards.",
        "deals": [deal_case(*c) for c in DEALS],
        "chain": chain_cases(),
    }


def render():
    text = json.dumps(golden(), ensure_ascii=False, indent=1)
    # One line per card array.
    text = re.sub(r"\[[\d,\s]*\]", lambda m: json.dumps(json.loads(m.group(0))), text)
    # and per list of client seeds (none of them holds a "]").
    return re.sub(r'(?<="client_seeds": )\[[^\]]*\]',
                  lambda m: json.dumps(json.loads(m.group(0)), ensure_ascii=False), text) + "\n"


def main():
    text = render()
    if "--check" in sys.argv[1:]:
        with open(OUT, encoding="utf-8") as f:
            if f.read() != text:
                print("fair_golden.py: %s is not what this program writes" % OUT, file=sys.stderr)
                return 1
        return 0
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
