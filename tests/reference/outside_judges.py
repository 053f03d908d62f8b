#!/usr/bin/env python3
"""The card rooms' hands judged by libraries written by others (docs/card_rooms.md).

On a database with the extension (psql's connection settings from the environment, the
database named as the argument), as the tables' owner:

- Hold'em (2 to 10 seats), Omaha (2 to 10) and short-deck Hold'em (2 to 10), each seat count
  with several buttons: every hand dealt stage by stage (each call committed on its own), then
  replayed in PokerKit (`pokerkit`), a poker engine that tracks the deck, whose player each hole
  card goes to, and how many cards each burn and board deal takes. PokerKit only warns when a
  card cannot be dealt (dealt already, or not in its deck): warnings are errors here. Each hole
  card must go to the player PokerKit deals next (player 0 is the seat left of the button), and
  at the end PokerKit's hole cards and board must be the hands' own.
- Bridge boards 1 to 32: `hand_pbn` of each dealt board parsed by endplay (`endplay`), a bridge
  library: its board number, the vulnerability it reads against the one endplay derives from
  that number (the Laws' cycle), the Dealer tag against endplay's dealer of that number (its
  parser derives the dealer and ignores the tag), and the four hands as `room_card` holds them.

Exits 1 with the first disagreement. scripts/test_judges.sh installs the two libraries (pinned)
and runs this on the first major of `make test`.
"""

import re
import subprocess
import sys
import warnings
from collections import defaultdict

warnings.simplefilter("error")

from endplay.parsers import pbn  # noqa: E402
from endplay.types import Board  # noqa: E402
from pokerkit import (  # noqa: E402
    Automation,
    NoLimitShortDeckHoldem,
    NoLimitTexasHoldem,
    PotLimitOmahaHoldem,
)

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)

# PokerKit's game of each kind, and the kind's stages after the hole cards.
POKER = {
    "holdem": NoLimitTexasHoldem,
    "omaha": PotLimitOmahaHoldem,
    "short_deck": NoLimitShortDeckHoldem,
}
SEATS = range(2, 11)
BUTTONS = (1, 2, 5)
BOARDS = range(1, 33)


def psql(database, sql):
    """Runs `sql` in one psql session (each statement committing on its own); the rows it
    prints, unaligned with `|` between fields."""
    done = subprocess.run(
        ["psql", "-X", "-q", "-A", "-t", "-F", "|", "-v", "ON_ERROR_STOP=1", "-d", database],
        input=sql,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        sys.exit(f"psql failed: {done.stderr}")
    return [line.split("|") for line in done.stdout.splitlines() if line]


def deal_poker(database):
    """Deals every poker hand, stage by stage; returns hand id -> (kind, seats, dealer)."""
    script = []
    for kind in POKER:
        for seats in SEATS:
            for button in BUTTONS:
                if button > seats:
                    continue
                script.append(
                    f"SELECT hand_start(100, '{kind}', {seats}, dealer => {button}) AS h \\gset\n"
                )
                script.append("SELECT count(*) FROM hand_deal(:h);\n" * 4)
    psql(database, "".join(script))
    hands = {}
    for hand_id, kind, seats, dealer in psql(
        database,
        "SELECT hand_id, kind, seats, dealer FROM room_hand WHERE table_id = 100 ORDER BY hand_id",
    ):
        hands[int(hand_id)] = (kind, int(seats), int(dealer))
    return hands


def cards_of(database, table_id):
    """The cards of the hands at `table_id` as dealt: hand id -> [(stage, seat, pile, label)]."""
    cards = defaultdict(list)
    for hand_id, stage, seat, pile, label in psql(
        database,
        "SELECT c.hand_id, c.stage, coalesce(c.seat::text, ''), coalesce(c.pile, ''), c.label "
        "FROM room_card c JOIN room_hand h USING (hand_id) "
        f"WHERE h.table_id = {table_id} ORDER BY c.hand_id, c.dealt_no",
    ):
        cards[int(hand_id)].append((stage, int(seat) if seat else None, pile, label))
    return cards


class Disagreement(Exception):
    """A judge disagrees with a hand."""


def fail(hand_id, message):
    raise Disagreement(f"hand {hand_id}: {message}")


def judge_poker(hand_id, kind, seats, dealer, cards):
    """Replays one hand in PokerKit; fails on the first card it would not deal."""
    state = POKER[kind].create_state(
        AUTOMATIONS, True, 0, (1, 2), 2, (1000,) * seats, seats
    )

    def player(seat):
        # Player 0 is the seat left of the button: seat dealer + 1, round the table.
        return (seat - dealer - 1) % seats

    holes = defaultdict(list)
    stages = []
    for stage, seat, pile, label in cards:
        if stage == "hole":
            if seat is None:
                fail(hand_id, f"hole card {label} to the {pile}")
            if state.hole_dealee_index != player(seat):
                fail(
                    hand_id,
                    f"hole card {label} to seat {seat} (player {player(seat)}) where PokerKit "
                    f"deals player {state.hole_dealee_index} next",
                )
            state.deal_hole(label)
            holes[player(seat)].append(label)
            continue
        if not stages or stages[-1][0] != stage:
            stages.append((stage, []))
        stages[-1][1].append((pile, label))
    if [s for s, _ in stages] != ["flop", "turn", "river"]:
        fail(hand_id, f"stages after the hole cards: {[s for s, _ in stages]}")
    for stage, dealt in stages:
        while state.actor_index is not None:
            state.check_or_call()
        piles = [pile for pile, _ in dealt]
        if piles[0] != "burn" or any(p != "board" for p in piles[1:]):
            fail(hand_id, f"{stage}: {piles}, not a burn and then the board")
        state.burn_card(dealt[0][1])
        state.deal_board("".join(label for _, label in dealt[1:]))
    while state.actor_index is not None:
        state.check_or_call()
    board = [str(c.rank) + str(c.suit) for c in state.get_board_cards(0)]
    ours = [label for _, dealt in stages for pile, label in dealt if pile == "board"]
    if board != ours:
        fail(hand_id, f"PokerKit's board {board}, the hand's {ours}")
    for i in range(seats):
        theirs = [str(c.rank) + str(c.suit) for c in state.hole_cards[i]]
        if theirs and theirs != holes[i]:
            fail(hand_id, f"player {i}: PokerKit's {theirs}, the hand's {holes[i]}")


def deal_bridge(database):
    """Deals boards 1 to 32; returns (hand id, board number, PBN) of each."""
    script = []
    for number in BOARDS:
        script.append(f"SELECT hand_start(200, 'bridge', board => {number}) AS h \\gset\n")
        script.append("SELECT count(*) FROM hand_deal(:h);\n")
    psql(database, "".join(script))
    rows = psql(
        database,
        "SELECT hand_id, board, replace(hand_pbn(hand_id), E'\\n', '~') "
        "FROM room_hand WHERE table_id = 200 ORDER BY hand_id",
    )
    if len(rows) != len(BOARDS):
        sys.exit(f"{len(rows)} bridge boards dealt, not {len(BOARDS)}")
    return [(int(h), int(n), text.replace("~", "\n")) for h, n, text in rows]


def judge_board(hand_id, number, text, cards):
    """endplay's reading of one board's PBN against the board number and the cards dealt."""
    parsed = pbn.loads(text + "\n")
    if len(parsed) != 1:
        fail(hand_id, f"endplay read {len(parsed)} boards from {text}")
    board = parsed[0]
    laws = Board(board_num=number)
    if board.board_num != number:
        fail(hand_id, f"board {board.board_num} in the PBN, dealt as {number}")
    # endplay reads the vulnerability from its tag, and derives the dealer from the board
    # number whatever the Dealer tag says: the tag is compared with endplay's dealer here.
    tags = dict(re.findall(r'\[(\w+) "([^"]*)"\]', text))
    dealer = "NESW"[int(laws.dealer)]
    if (tags.get("Dealer"), board.vul) != (dealer, laws.vul):
        fail(
            hand_id,
            f"board {number}: dealer {tags.get('Dealer')}, vulnerable {board.vul!r}; endplay "
            f"gives {dealer}, {laws.vul!r}",
        )
    for seat, name in enumerate(("north", "east", "south", "west"), start=1):
        held = sorted(label for _, s, _, label in cards if s == seat)
        # endplay writes a hand as spades.hearts.diamonds.clubs.
        theirs = sorted(
            rank + suit
            for suit, holding in zip("shdc", str(getattr(board.deal, name)).split("."))
            for rank in holding
        )
        if held != theirs:
            fail(hand_id, f"{name}: endplay read {theirs}, room_card holds {held}")


def must_fail(what, judge):
    """A negative control: `judge` must disagree."""
    try:
        judge()
    except (Disagreement, UserWarning, ValueError):
        return
    sys.exit(f"negative control: the judges passed {what}")


def controls(hands, cards, boards, board_cards):
    """The judges catch a hole card to the wrong seat, a card dealt twice, a river of two
    cards, a board's wrong dealer or vulnerability, and a card in the wrong bridge hand."""
    hand_id, (kind, seats, dealer) = next(iter(hands.items()))
    dealt = cards[hand_id]
    swapped = list(dealt)
    (s0, a, p0, l0), (s1, b, p1, l1) = swapped[0], swapped[1]
    swapped[0], swapped[1] = (s0, b, p0, l0), (s1, a, p1, l1)
    must_fail("hole cards dealt to the wrong seats", lambda: judge_poker(hand_id, kind, seats, dealer, swapped))
    twice = [c if c[0] != "river" or c[2] != "board" else (c[0], c[1], c[2], dealt[0][3]) for c in dealt]
    must_fail("a card dealt twice", lambda: judge_poker(hand_id, kind, seats, dealer, twice))
    longer = dealt + [("river", None, "board", "Xx")]
    must_fail("a river of two cards", lambda: judge_poker(hand_id, kind, seats, dealer, longer))
    board_id, number, text = boards[0]
    for wrong in (
        re.sub(r'\[Dealer "(\w)"\]', lambda m: f'[Dealer "{"NESW"[("NESW".index(m[1]) + 1) % 4]}"]', text),
        text.replace('[Vulnerable "None"]', '[Vulnerable "All"]'),
        text.replace(f'[Board "{number}"]', f'[Board "{number + 1}"]'),
    ):
        if wrong == text:
            sys.exit(f"negative control: no change made to {text}")
        must_fail(f"the PBN {wrong}", lambda w=wrong: judge_board(board_id, number, w, board_cards[board_id]))
    moved = list(board_cards[board_id])
    first, seat = moved[0], moved[0][1]
    moved[0] = (first[0], seat % 4 + 1, first[2], first[3])
    must_fail("a card moved to another hand", lambda: judge_board(board_id, number, text, moved))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: outside_judges.py DATABASE")
    database = sys.argv[1]
    hands = deal_poker(database)
    cards = cards_of(database, 100)
    boards = deal_bridge(database)
    board_cards = cards_of(database, 200)
    try:
        for hand_id, (kind, seats, dealer) in hands.items():
            judge_poker(hand_id, kind, seats, dealer, cards[hand_id])
        for hand_id, number, text in boards:
            judge_board(hand_id, number, text, board_cards[hand_id])
    except Disagreement as e:
        sys.exit(str(e))
    controls(hands, cards, boards, board_cards)
    print(
        f"PokerKit replayed {len(hands)} Hold'em, Omaha and short-deck hands; endplay read "
        f"{len(boards)} bridge boards: all agree (and the negative controls disagree)"
    )


if __name__ == "__main__":
    main()
