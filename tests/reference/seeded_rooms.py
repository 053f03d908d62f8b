#!/usr/bin/env python3
"""Writes tests/reference/rooms_golden.json: staged deals of card rooms (docs/card_rooms.md)
computed from a key by an implementation written from that page alone, on top of the seeded
shuffle of seeded_shuffle.py (ChaCha20, the exact bounded draw, Fisher-Yates).

    seeded_rooms.py           rewrite the JSON next to this file
    seeded_rooms.py --check   exit 1 if the JSON is not what this program writes
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, HERE)
from seeded_shuffle import Stream, fisher_yates  # noqa: E402

OUT = os.path.join(HERE, "rooms_golden.json")

ZERO = bytes(32)
COUNTING = bytes(range(32))        # 00 01 02 ... 1f
ONES = b"\xff" * 32


# The decks' canonical orders (docs/card_rooms.md, "Decks").

def deck_52():
    return [r + s for r in "A23456789TJQK" for s in "cdhs"]


def deck_riichi(red_fives):
    kinds = [f"{n}{suit}" for suit in "mps" for n in range(1, 10)] + [f"{n}z" for n in range(1, 8)]
    tiles = []
    for kind in kinds:
        for copy in range(4):
            red = red_fives and copy == 0 and kind[0] == "5" and kind[1] in "mps"
            tiles.append("0" + kind[1] if red else kind)
    return tiles


def order_of(deck, key):
    """The deck's whole order: the card (canonical index) at each position."""
    return fisher_yates(list(range(len(deck))), Stream(key))


class Wall:
    """The order, dealt from the front; a dead wall is taken from the back."""

    def __init__(self, deck, key):
        self.deck, self.order = deck, order_of(deck, key)
        self.top, self.bottom = 0, len(self.order)

    def front(self, to, up):
        card = self.deck[self.order[self.top]]
        self.top += 1
        return [to, card, up]

    def back(self, n, to):
        self.bottom -= n
        return [[to, self.deck[self.order[p]], False] for p in range(self.bottom, self.bottom + n)]


def seat_after(dealer, k, seats):
    return (dealer - 1 + k) % seats + 1


def holdem(name, key, seats, button):
    w = Wall(deck_52(), key)
    order = [seat_after(button, k, seats) for k in range(1, seats + 1)]
    hole = [w.front(f"seat {s}", False) for _ in range(2) for s in order]
    stages = [{"name": "hole", "cards": hole}]
    for street, n in (("flop", 3), ("turn", 1), ("river", 1)):
        cards = [w.front("burn", False)] + [w.front("board", True) for _ in range(n)]
        stages.append({"name": street, "cards": cards})
    return {"name": name, "kind": "holdem", "key": key.hex(), "seats": seats, "dealer": button,
            "order": [w.deck[c] for c in w.order], "stages": stages}


VULNERABLE = ["None", "NS", "EW", "All"]


def bridge(name, key, board):
    # Law 2: the dealer N, E, S, W by board number; vulnerability as in the Laws' table.
    table = ["None", "NS", "EW", "All", "NS", "EW", "All", "None",
             "EW", "All", "None", "NS", "All", "None", "NS", "EW"]
    dealer = (board - 1) % 4 + 1
    w = Wall(deck_52(), key)
    order = [seat_after(dealer, k, 4) for k in range(1, 5)]
    cards = [w.front(f"seat {s}", False) for _ in range(13) for s in order]
    hands = {s: [c[1] for c in cards if c[0] == f"seat {s}"] for s in range(1, 5)}

    def pbn(hand):
        return ".".join("".join(r for r in "AKQJT98765432" if r + suit in hand) for suit in "shdc")

    deal = "NESW"[dealer - 1] + ":" + " ".join(pbn(hands[seat_after(dealer, k, 4)]) for k in range(4))
    return {"name": name, "kind": "bridge", "key": key.hex(), "seats": 4, "dealer": dealer,
            "board": board, "vulnerable": table[(board - 1) % 16], "pbn": deal,
            "order": [w.deck[c] for c in w.order], "stages": [{"name": "deal", "cards": cards}]}


def riichi(name, key, red_fives, dealer, draws):
    w = Wall(deck_riichi(red_fives), key)
    dead = w.back(14, "dead wall")
    deal = []
    for packet in (4, 4, 4, 1):
        for k in range(4):
            seat = seat_after(dealer, k, 4)
            deal += [w.front(f"seat {seat}", False) for _ in range(packet)]
    fourteenth = [w.front(f"seat {dealer}", False)]
    drawn = [w.front(f"seat {s}", False) for s in draws]
    return {"name": name, "kind": "riichi red fives" if red_fives else "riichi", "key": key.hex(),
            "seats": 4, "dealer": dealer, "dora_indicator": dead[8][1], "draws": draws,
            "order": [w.deck[c] for c in w.order],
            "stages": [{"name": "dead wall", "cards": dead}, {"name": "deal", "cards": deal},
                       {"name": "dealer", "cards": fourteenth}, {"name": "draws", "cards": drawn}]}


def golden():
    return {
        "about": "Staged deals of docs/card_rooms.md, from tests/reference/seeded_rooms.py; "
                 "regenerate with python3 tests/reference/seeded_rooms.py. Each card is "
                 "[where it went, its label, face up].",
        "hands": [
            holdem("Hold'em, 6 seats, button on seat 4", COUNTING, 6, 4),
            holdem("Hold'em heads-up, button on seat 2", ZERO, 2, 2),
            holdem("Hold'em, 10 seats, button on seat 10", ONES, 10, 10),
            bridge("bridge board 1", COUNTING, 1),
            bridge("bridge board 7", ZERO, 7),
            bridge("bridge board 17", ONES, 17),
            riichi("riichi, east (seat 1) deals", COUNTING, False, 1, [1, 2, 3, 4, 1]),
            riichi("riichi with red fives, seat 3 deals", ONES, True, 3, [3, 4, 1]),
        ],
    }


def render():
    text = json.dumps(golden(), ensure_ascii=False, indent=1)
    # One line per card and per list of labels.
    text = re.sub(r'\[\s*("[^"\[\]]*",\s*)*"[^"\[\]]*"\s*\]',
                  lambda m: json.dumps(json.loads(m.group(0))), text)
    text = re.sub(r'\[\s*"[^"]*",\s*"[^"]*",\s*(true|false)\s*\]',
                  lambda m: json.dumps(json.loads(m.group(0))), text)
    return re.sub(r"\[[\d,\s]*\]", lambda m: json.dumps(json.loads(m.group(0))), text) + "\n"


def main():
    text = render()
    if "--check" in sys.argv[1:]:
        with open(OUT, encoding="utf-8") as f:
            if f.read() != text:
                print("seeded_rooms.py: %s is not what this program writes" % OUT, file=sys.stderr)
                return 1
        return 0
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
