"""Cases of players' receipts checked against the house's publication (docs/provably_fair.md),
for verify_page.py: each is a publication, receipts and the verdict every receipt must get.

The real case is a desk the extension dealt at (scripts/test_browser.sh): its receipts are what
fair_receipt gave (and deal_cards notified), its publication what fair_publication returned. Every tampered case is
built here from the real one, the way a house or a superuser could change it, with the chain
relinked through tools/verify_deal.py's chain_hash where they could relink it; each names the
check that must fail for each receipt it breaks. Golden cases come from
tests/reference/fair_golden.json.
"""
import copy
import datetime
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "tools") not in sys.path:
    sys.path.insert(0, str(ROOT / "tools"))  # run as a script (--golden-json)
import verify_deal  # noqa: E402  (tools/, put on sys.path by verify_page.py)

VERIFIED, NOT_REVEALED, OVERDUE, FAILED = "verified", "not revealed yet", "overdue", "failed"
INCOMPLETE, ENDED_EARLY = "incomplete", "ended early"


def _when(text):
    return None if text is None else datetime.datetime.fromisoformat(text)


def expected_early(pub, receipts, shown):
    """The rounds the player seeded (of their receipts at this desk, named by a commitment shown
    as ROUND:HEX, or published with the bare HEX shown) that ended early, as docs/provably_fair.md
    defines it: seed published, fewer games than max_deals, and no reveal_by or a revealed_at
    (none counts as before) before it."""
    rounds = {r["round"] for r in receipts if r["desk"] == pub["desk"]}
    for text in shown:
        head, sep, tail = text.partition(":")
        if sep:
            rounds.add(int(head))
        else:
            bare = text.strip().lower().replace("\\x", "")
            rounds |= {r["round"] for r in pub["rounds"] if r["commitment"] == bare}
    out = []
    for r in sorted(pub["rounds"], key=lambda r: r["round"]):
        if r["round"] not in rounds or r["server_seed"] is None or r.get("max_deals") is None:
            continue
        games = sum(1 for g in pub["games"] if g["round"] == r["round"])
        due, at = _when(r.get("reveal_by")), _when(r.get("revealed_at"))
        if games < r["max_deals"] and (due is None or at is None or at < due):
            out.append(r["round"])
    return out


class Case:
    """A publication, receipts, and per receipt (by position) the verdict (result, check) it
    must get; the desk line's result and the checks it must name. mine = (seat, seed) when the
    player gives theirs. player: the player id given, and withheld the games that must be listed
    as withheld for them, each (game, round, nonce, seats); shown: the commitments the player
    gives as shown to them, as they type them ("ROUND:HEX" or "HEX"). The verdicts are those
    of a complete check: with no commitment shown, a receipt that would be verified or not
    revealed yet is incomplete ("shown commitment" not made)."""

    def __init__(self, name, publication, receipts, verdicts, desk=(VERIFIED, ()), mine=None,
                 player=None, withheld=None, shown=(), kept=None, forked=()):
        self.name, self.publication, self.receipts = name, publication, receipts
        self.desk, self.mine = desk, mine
        self.player, self.withheld, self.shown = player, withheld, list(shown)
        # The rounds the player seeded that ended early; the rounds kept by an earlier check
        # (what --keep and the page's storage hold), and those the case must report forked.
        self.ended_early = expected_early(publication, receipts, self.shown)
        self.kept, self.forked = kept, list(forked)
        self.verdicts = [(INCOMPLETE, "shown commitment") if not self.shown and v[0] in (VERIFIED, NOT_REVEALED)
                         else v for v in verdicts]

    def missing(self):
        """What the check is incomplete for want of: "player" (no id), "commitments" (none shown)."""
        return [m for m, given in (("player", self.player is not None), ("commitments", bool(self.shown)))
                if not given]

    def exit_status(self):
        results = {v[0] for v in self.verdicts} | {self.desk[0]}
        return (1 if FAILED in results or OVERDUE in results or self.withheld or self.forked
                else 5 if self.ended_early
                else 4 if self.missing() or INCOMPLETE in results
                else 3 if NOT_REVEALED in results else 0)


# --- publications -------------------------------------------------------------------------------

def receipt_of(pub, game):
    """The receipt of a published game, as deal_cards notifies it and fair_receipt gives it."""
    return {"desk": pub["desk"], "game": game["game"], "leader": game["leader"],
            "round": game["round"], "nonce": game["nonce"], "commitment": game["commitment"],
            "chain_hash": game["chain_hash"], "players": list(game["players"]),
            "client_seeds": list(game["client_seeds"])}


def chained_rules(rnd):
    """The rules a published round's games chain: under protocol 3, its house seats, seeds
    required, max_deals and reveal_by (read from its text with its offset), else None."""
    if rnd["protocol"] != 3:
        return None
    where = "round %d" % rnd["round"]
    return verify_deal.rules_of({"house_seats": rnd["house_seats"], "seeds_required": rnd["seeds_required"],
                                 "max_deals": rnd["max_deals"],
                                 "reveal_by": verify_deal._time(rnd, "reveal_by", where)}, where)


def relink(pub, start=0):
    """Recomputes the chain hashes from game number `start` on, and the chain head, as someone
    who can write every table would after changing games (or a round's rules): each game under
    its round's protocol, with its players under protocols 2 and 3 and its round's rules under
    protocol 3, as the rounds are published."""
    rounds = {r["round"]: r for r in pub["rounds"]}
    prev = bytes(32) if start == 0 else bytes.fromhex(pub["games"][start - 1]["chain_hash"])
    for g in pub["games"][start:]:
        rnd = rounds[g["round"]]
        players = g["players"] if rnd["protocol"] >= 2 else None
        h = verify_deal.chain_hash(prev, pub["desk"], bytes.fromhex(g["commitment"]), g["nonce"],
                                   [bytes.fromhex(s) for s in g["client_seeds"]], *g["cards"],
                                   g["leader"], players=players, rules=chained_rules(rnd))
        g["chain_hash"] = h.hex()
        prev = h
    if pub["games"]:
        pub["chain_head"] = pub["games"][-1]["chain_hash"]
    return pub


def index_of(pub, game_id):
    return next(i for i, g in enumerate(pub["games"]) if g["game"] == game_id)


def revealed(pub, round_no):
    return next(r for r in pub["rounds"] if r["round"] == round_no)["server_seed"] is not None


def baseline(pub, receipts):
    """The verdicts of untouched receipts: verified where their round's seed is published."""
    return [(VERIFIED, None) if revealed(pub, r["round"]) else (NOT_REVEALED, None) for r in receipts]


def other_hex(h):
    """The same hex with its first digit changed."""
    return ("1" if h[0] != "1" else "2") + h[1:]


# --- the real desk and what is done to it ---------------------------------------------------------

def real_cases(pub, receipts):
    """The desk as dealt, then one tampered case of each kind. The desk must have at least two
    revealed rounds with at least two games each, and a round in force with games: seat 3 is a
    house seat in the first two rounds (its seed empty there), every round is of protocol 3 (its
    rules chained), and the round in force has a reveal_by published with an offset other than
    UTC's."""
    rounds = sorted(r["round"] for r in pub["rounds"])
    games = pub["games"]
    by_round = {n: [g for g in games if g["round"] == n] for n in rounds}
    first, second, last = rounds[0], rounds[1], rounds[-1]
    rnd = {r["round"]: r for r in pub["rounds"]}
    if (len(rounds) < 3 or not all(revealed(pub, n) for n in rounds[:-1]) or revealed(pub, last)
            or min(len(by_round[n]) for n in rounds) < 2 or len(by_round[first]) < 3
            or any(rnd[n]["house_seats"] != [3] for n in (first, second))
            or any(g["client_seeds"][2] for n in (first, second) for g in by_round[n])
            or any(r["protocol"] != 3 for r in pub["rounds"])
            or not rnd[last].get("reveal_by") or rnd[last]["reveal_by"].endswith(("+00:00", "Z"))):
        raise ValueError("the real desk is not the one scripts/test_browser.sh deals")
    if [receipt_of(pub, g) for g in games] != receipts:
        raise ValueError("the receipts are not the publication's games, in order")
    base = baseline(pub, receipts)
    a = [g["game"] for g in by_round[first]]        # the first round's games
    b = [g["game"] for g in by_round[second]]
    pos = {g["game"]: i for i, g in enumerate(games)}
    cases = [Case("the desk as dealt", pub, receipts, base)]


    def with_verdicts(changes):
        v = list(base)
        for game_id, verdict in changes.items():
            v[pos[game_id]] = verdict
        return v

    def from_on(game_id, verdict, but=()):
        """That verdict for the receipt of this game and every later one."""
        return {g["game"]: verdict for g in games[pos[game_id]:] if g["game"] not in but}

    # The round in force past its bound, by its deals or by its time: its receipts are overdue,
    # not "not revealed yet"; short of its bound, not revealed yet. Protocol 3 chains the bound:
    # a house that dealt the round under that bound from the start, its receipts given so.
    def bounded(name, max_deals, reveal_by, verdict):
        p = copy.deepcopy(pub)
        next(r for r in p["rounds"] if r["round"] == last).update(max_deals=max_deals, reveal_by=reveal_by)
        relink(p)
        cases.append(Case(name, p, [receipt_of(p, g) for g in p["games"]],
                          with_verdicts({g["game"]: verdict for g in by_round[last]})))

    overdue = (OVERDUE, "commitment")
    bounded("the round in force has dealt its max_deals", len(by_round[last]), None, overdue)
    bounded("the round in force is past its reveal_by", 1000, "2000-01-01T00:00:00+00:00", overdue)
    bounded("the round in force short of its bound", len(by_round[last]) + 1,
            "2999-01-01T00:00:00.123456+00:00", (NOT_REVEALED, None))

    # Receipts changed by their holder (or given them so): the record or chain says so.
    def receipt_case(name, game_id, change, check):
        rs = copy.deepcopy(receipts)
        change(rs[pos[game_id]])
        cases.append(Case(name, pub, rs, with_verdicts({game_id: (FAILED, check)})))

    receipt_case("a receipt with another chain hash", a[1],
                 lambda r: r.update(chain_hash=other_hex(r["chain_hash"])), "chain")
    receipt_case("a receipt with another nonce", b[1], lambda r: r.update(nonce=r["nonce"] - 1), "record")
    receipt_case("a receipt with another client seed", a[2],
                 lambda r: r["client_seeds"].__setitem__(0, "ff" + r["client_seeds"][0]), "record")
    receipt_case("a receipt with another player", b[0],
                 lambda r: r["players"].__setitem__(1, r["players"][1] + 1), "record")
    receipt_case("a receipt with another first bidder", a[0],
                 lambda r: r.update(leader=r["leader"] % 3 + 1), "record")
    receipt_case("a receipt of another desk", a[0], lambda r: r.update(desk=r["desk"] + 1), "desk")

    # Publications changed after the deals, chain relinked as a superuser could: each changed
    # game's receipt, and every later one, no longer matches.
    p = copy.deepcopy(pub)
    g = p["games"][pos[a[1]]]
    g["cards"][0][0], g["cards"][1][0] = g["cards"][1][0], g["cards"][0][0]
    cases.append(Case("a game's cards changed, the chain relinked", relink(p, pos[a[1]]), receipts,
                      with_verdicts(from_on(a[1], (FAILED, "chain")))))

    p = copy.deepcopy(pub)
    del p["games"][pos[a[2]]]
    v = from_on(a[2], (FAILED, "chain"))
    v[a[2]] = (FAILED, "game")
    cases.append(Case("a game removed, the chain relinked", relink(p, pos[a[2]]), receipts, with_verdicts(v)))

    p = copy.deepcopy(pub)
    extra = copy.deepcopy(p["games"][pos[a[1]]])
    extra["game"] = max(g["game"] for g in games) + 1000
    extra["cards"][3], extra["cards"][2][:3] = extra["cards"][2][:3], extra["cards"][3]
    p["games"].insert(pos[a[1]] + 1, extra)
    cases.append(Case("a game inserted, the chain relinked", relink(p, pos[a[1]] + 1), receipts,
                      with_verdicts(from_on(a[2], (FAILED, "chain")))))

    p = copy.deepcopy(pub)
    g = p["games"][pos[a[1]]]
    g["players"][0], g["players"][1] = g["players"][1], g["players"][0]
    v = from_on(a[1], (FAILED, "chain"))
    v[a[1]] = (FAILED, "record")
    cases.append(Case("the players of a game swapped, the chain relinked", relink(p, pos[a[1]]),
                      receipts, with_verdicts(v)))

    p = copy.deepcopy(pub)
    r1 = next(r for r in p["rounds"] if r["round"] == first)
    r1["server_seed"] = hashlib.sha256(bytes.fromhex(r1["server_seed"])).hexdigest()
    cases.append(Case("a wrong server seed", p, receipts,
                      with_verdicts({x: (FAILED, "commitment") for x in a})))

    p = copy.deepcopy(pub)
    r1 = next(r for r in p["rounds"] if r["round"] == first)
    r1["server_seed"] = r1["revealed_at"] = None
    cases.append(Case("a round left without a reveal", p, receipts,
                      with_verdicts({x: (FAILED, "commitment") for x in a}),
                      desk=(FAILED, ("left without a reveal",))))

    p = copy.deepcopy(pub)
    p["games"][pos[b[0]]]["chain_hash"] = other_hex(p["games"][pos[b[0]]]["chain_hash"])
    cases.append(Case("a published chain hash changed", p, receipts,
                      with_verdicts(from_on(b[0], (FAILED, "chain"))), desk=(FAILED, ("chain",))))

    # Only the desk's line fails: the newest game's published chain hash changed, and its
    # receipt not given, every receipt given verifies; the summary takes the failure colour.
    p = copy.deepcopy(pub)
    p["games"][-1]["chain_hash"] = other_hex(p["games"][-1]["chain_hash"])
    cases.append(Case("only the desk's line fails: the newest game's chain hash changed, its receipt not given",
                      p, receipts[:-1], base[:-1], desk=(FAILED, ("chain",))))

    p = copy.deepcopy(pub)
    del p["games"][-1]
    cases.append(Case("the newest game removed, the chain head left", p, receipts,
                      with_verdicts({games[-1]["game"]: (FAILED, "game")}), desk=(FAILED, ("chain",))))

    # A round's rules rewritten after its deals (protocol 3 chains them): house seat 3, whose
    # seed is empty, given up; seeds no longer required; another max_deals; a time limit set.
    # Each receipt of the round and of every later round fails "chain", whether the chain is left
    # as it was (the desk line fails too) or relinked from the round's first game as a superuser
    # could (the desk line recomputes to the new head): the receipts are of the rules dealt under.
    for what, change in (("house seat 3 given up", {"house_seats": []}),
                         ("seeds no longer required", {"seeds_required": False}),
                         ("another max_deals", {"max_deals": len(b) + 1}),
                         ("a reveal_by set", {"reveal_by": "2026-12-31T23:59:59.999999+05:30"})):
        for relinked in (False, True):
            p = copy.deepcopy(pub)
            next(r for r in p["rounds"] if r["round"] == second).update(change)
            if relinked:
                relink(p, pos[b[0]])
            cases.append(Case("a revealed round's rules rewritten after its deals: %s%s"
                              % (what, ", the chain relinked" if relinked else ""), p, receipts,
                              with_verdicts(from_on(b[0], (FAILED, "chain"))),
                              desk=(VERIFIED, ()) if relinked else (FAILED, ("chain",))))
    # The round in force's reveal_by as published (with its session's offset) is read to the
    # microsecond: the same instant written in UTC is the same rule; a microsecond later is not.
    due = verify_deal._time(rnd[last], "reveal_by", "the round in force")
    for text, same in ((due.astimezone(datetime.timezone.utc).isoformat(), True),
                       ((due + datetime.timedelta(microseconds=1)).isoformat(), False)):
        p = copy.deepcopy(pub)
        next(r for r in p["rounds"] if r["round"] == last)["reveal_by"] = text
        cases.append(Case("the round in force's reveal_by %s as %s" % ("written" if same else "rewritten", text),
                          p, receipts, base if same else
                          with_verdicts(from_on(by_round[last][0]["game"], (FAILED, "chain"))),
                          desk=(VERIFIED, ()) if same else (FAILED, ("chain",))))

    # Houses that dealt so from the start: publication and receipts agree, and the rules of the
    # protocol say what is wrong.
    def dealt_so(name, change, verdicts):
        p = copy.deepcopy(pub)
        change(p)
        relink(p)
        cases.append(Case(name, p, [receipt_of(p, g) for g in p["games"]], with_verdicts(verdicts)))

    def house_seed(p):
        p["games"][pos[a[0]]]["client_seeds"][2] = "686f757365"  # "house"
    dealt_so("a house seat with a seed", house_seed, {a[0]: (FAILED, "house seats")})

    def repeated_nonce(p):
        g = p["games"][pos[b[1]]]
        g["nonce"] = 0
        seed = bytes.fromhex(next(r for r in p["rounds"] if r["round"] == second)["server_seed"])
        d = verify_deal.verify(seed, [bytes.fromhex(s) for s in g["client_seeds"]], 0)
        g["cards"] = [d["p1_cards"], d["p2_cards"], d["p3_cards"], d["extra_cards"]]
        g["leader"] = d["leader"]
    dealt_so("a nonce dealt twice", repeated_nonce, {b[1]: (FAILED, "nonce")})

    def other_cards(p):
        c = p["games"][pos[a[1]]]["cards"]
        c[1][5], c[2][5] = c[2][5], c[1][5]
    dealt_so("cards other than the seeds deal", other_cards, {a[1]: (FAILED, "deal")})

    # A round the house ended before its bound (dealt so from the start: the first round bound
    # to one deal more than it dealt): every receipt verifies, and the round ended early.
    def bound_above(p):
        next(r for r in p["rounds"] if r["round"] == first)["max_deals"] = len(a) + 1
    dealt_so("the first round ended before its bound", bound_above, {})
    if cases[-1].ended_early != [first] or cases[0].ended_early:
        raise ValueError("the real desk's rounds do not end at their bound as scripts/test_browser.sh deals them")

    # What an earlier check kept of the first round, against a fork: kept with one game fewer
    # (a copy of the server dealt under it after the reveal the player saw), or with another last
    # game, the publication and its receipts are forked; kept as published, nothing is.
    seen = {"desk": pub["desk"], "round": first, "commitment": rnd[first]["commitment"],
            "games": len(a), "last_chain_hash": by_round[first][-1]["chain_hash"]}
    cases.append(Case("the first round kept with one game fewer: forked", pub, receipts, base,
                      kept=[dict(seen, games=len(a) - 1, last_chain_hash=by_round[first][-2]["chain_hash"])],
                      forked=[first]))
    cases.append(Case("the first round kept with another last game: forked", pub, receipts, base,
                      kept=[dict(seen, last_chain_hash=other_hex(seen["last_chain_hash"]))], forked=[first]))
    cases.append(Case("the first round kept as published: not forked", pub, receipts, base, kept=[seen]))

    # A player who gives their seat and seed: the seat check.
    seat2 = bytes.fromhex(games[pos[a[0]]]["client_seeds"][1]).decode("utf-8")
    cases.append(Case("seat 2 with its seed of the first round", pub, receipts,
                      with_verdicts({g["game"]: (FAILED, "seat") for g in games
                                     if g["client_seeds"][1] != seat2.encode("utf-8").hex()}),
                      mine=(2, seat2)))
    return cases


# --- the player's own tools: withheld games, the commitment they were shown ----------------------

def player_cases(pub, notified):
    """Cases of the checking player's id and the commitments they were shown, at the real desk
    with the receipts as its deals notified them (the notification carries the whole receipt).
    Seat 1 is player 101 throughout, seat 2 a 64-bit id from the second round on, seat 3 the
    house's and then player -42 in the last round."""
    games = pub["games"]
    if [receipt_of(pub, g) for g in games] != notified:
        raise ValueError("the receipts notified are not the publication's games, in order")
    rounds = sorted(r["round"] for r in pub["rounds"])
    first, second, last = rounds[0], rounds[1], rounds[-1]
    by_round = {n: [g for g in games if g["round"] == n] for n in rounds}
    commitment = {r["round"]: r["commitment"] for r in pub["rounds"]}
    base = baseline(pub, notified)
    one, big, neg = games[0]["players"][0], by_round[second][0]["players"][1], by_round[last][0]["players"][2]
    if (not all(g["players"][0] == one for g in games) or big in games[0]["players"]
            or any(neg in g["players"] for g in games if g["round"] != last)):
        raise ValueError("the real desk is not the one scripts/test_browser.sh deals")

    def withheld(player, held):
        return [(g["game"], g["round"], g["nonce"], [k + 1 for k, p in enumerate(g["players"]) if p == player])
                for g in games if player in g["players"] and g["game"] not in held]

    def subset(keep):
        rs = [r for r in notified if keep(r)]
        return rs, [v for r, v in zip(notified, base) if keep(r)], {r["game"] for r in rs}

    cases = [Case("player %d with every receipt: nothing withheld" % one, pub, notified, base,
                  player=one, withheld=[])]
    dropped = {by_round[first][1]["game"], games[-1]["game"]}
    rs, v, held = subset(lambda r: r["game"] not in dropped)
    cases.append(Case("player %d without the receipts of two games: both withheld" % one, pub, rs, v,
                      player=one, withheld=withheld(one, held)))
    rs, v, held = subset(lambda r: r["round"] == last)
    cases.append(Case("player %d (seat 2) with the last round's receipts only" % big, pub, rs, v,
                      player=big, withheld=withheld(big, held)))
    rs, v, held = subset(lambda r: r["round"] == first)
    cases.append(Case("player %d with receipts of games that do not name them" % neg, pub, rs, v,
                      player=neg, withheld=withheld(neg, held)))
    cases.append(Case("player %d with every receipt" % neg, pub, notified, base, player=neg, withheld=[]))
    # The player whose seat the house declared its own (seat 3 in the first two rounds): every
    # receipt of theirs there fails "house seats", loudly.
    house = games[0]["players"][2]
    if 3 not in next(r for r in pub["rounds"] if r["round"] == first)["house_seats"]:
        raise ValueError("the real desk is not the one scripts/test_browser.sh deals")
    v = [(FAILED, "house seats") if house in r["players"] else b for r, b in zip(notified, base)]
    cases.append(Case("player %d, whose seat was a house seat" % house, pub, notified, v,
                      player=house, withheld=[]))

    # The commitments shown: the round's own pass; another one shown fails "shown commitment".
    cases.append(Case("the commitment shown for each round", pub, notified, base,
                      shown=["%d:%s" % (n, commitment[n]) for n in rounds]))
    v = [(FAILED, "shown commitment") if r["round"] == second else b for r, b in zip(notified, base)]
    cases.append(Case("a receipt under another commitment than the one shown for its round", pub,
                      notified, v, shown=["%d:%s" % (n, other_hex(commitment[n]) if n == second else commitment[n])
                                          for n in rounds]))
    # A shadow desk's deal relayed: receipts of rounds the player named no commitment for (and
    # gave no bare HEX) fail, whatever else verifies.
    v = [(FAILED, "shown commitment") if r["round"] != last else b for r, b in zip(notified, base)]
    cases.append(Case("receipts of rounds the player was shown no commitment for", pub, notified, v,
                      player=one, withheld=[], shown=["%d:%s" % (last, commitment[last])]))
    # Incomplete: no player id (the withheld games are not looked for); no commitments shown.
    cases.append(Case("the commitments shown but no player id: incomplete", pub, notified, base,
                      shown=["%d:%s" % (n, commitment[n]) for n in rounds]))
    cases.append(Case("a player id but no commitments shown: incomplete", pub, notified, base,
                      player=one, withheld=[]))
    cases.append(Case("every commitment shown and the player id: complete", pub, notified, base,
                      player=one, withheld=[], shown=["%d:%s" % (n, commitment[n]) for n in rounds]))
    v = [(FAILED, "shown commitment") if r["round"] != last else b for r, b in zip(notified, base)]
    cases.append(Case("one commitment shown, for every round", pub, notified, v,
                      shown=["\\x" + commitment[last].upper()]))
    v = [(FAILED, "shown commitment") if r["round"] == first else b for r, b in zip(notified, base)]
    cases.append(Case("a commitment shown for one round and another for the rest", pub, notified, v,
                      shown=[commitment[second], "%d:%s" % (last, commitment[last]),
                             "%d: %s" % (first, commitment[last])]))
    # Both: a withheld game and a wrong commitment, and the seat check before the commitment's.
    rs, v, held = subset(lambda r: r["game"] != games[0]["game"])
    v = [(FAILED, "seat") if r["round"] != first else (FAILED, "shown commitment") for r in rs]
    seed = bytes.fromhex(games[0]["client_seeds"][0]).decode("utf-8")
    cases.append(Case("a withheld game, a wrong commitment shown and the seat", pub, rs, v,
                      mine=(1, seed), player=one, withheld=withheld(one, held),
                      shown=[other_hex(commitment[first])]))
    return cases


def dash_seed_case(pub):
    """A game whose seat 1 gave the seed "-x" (a seed that looks like an option), dealt so from
    its round's revealed seed with the chain relinked: its receipt verifies with that seat and
    seed."""
    p = copy.deepcopy(pub)
    first = sorted(r["round"] for r in p["rounds"])[0]
    at = next(i for i, g in enumerate(p["games"]) if g["round"] == first)
    g = p["games"][at]
    g["client_seeds"][0] = "-x".encode("utf-8").hex()
    seed = bytes.fromhex(next(r for r in p["rounds"] if r["round"] == first)["server_seed"])
    d = verify_deal.verify(seed, [bytes.fromhex(s) for s in g["client_seeds"]], g["nonce"])
    g["cards"] = [d["p1_cards"], d["p2_cards"], d["p3_cards"], d["extra_cards"]]
    g["leader"] = d["leader"]
    relink(p, at)
    return Case("a seat whose seed starts with -", p, [receipt_of(p, g)], [(VERIFIED, None)], mine=(1, "-x"))


def bad_player_inputs(pub):
    """(name, player id typed, commitments shown typed, words the error must hold)."""
    c = pub["rounds"][0]["commitment"]
    return [
        ("a player id that is no integer", "10l", [], "player"),
        ("a player id beyond 64 bits", str(2**63), [], "player"),
        ("a shown commitment of 63 digits", "", [c[:63]], "commitment"),
        ("a shown commitment with no round before its colon", "", ["one:" + c], "round"),
        ("a shown commitment of round +1", "", ["+1:" + c], "round"),
        ("a player id with a plus sign", "+101", [], "player"),
        ("two commitments shown for every round", "", [c, other_hex(c)], "twice"),
        ("two commitments shown for one round", "", ["1:" + c, "1:" + other_hex(c)], "twice"),
    ]


# --- golden publications ------------------------------------------------------------------------

def golden_cases():
    """Publications made of tests/reference/fair_golden.json's chain cases (their hashes come
    from the reference, not from what is tested): desk 7's protocol-1 games over two rounds,
    desk 7's protocol-2 games with negative and 64-bit players, and desk 7's protocol-3 games
    under their round's rules, as a chain of two and as single first games under rules that
    differ in one field each (reveal_by west of UTC, half an hour east of it, before 1970)."""
    chain = json.loads((ROOT / "tests" / "reference" / "fair_golden.json").read_text(encoding="utf-8"))["chain"]
    seeds = {verify_deal.commitment_of(s).hex(): s for s in (bytes(32), bytes(range(32)), b"\xff" * 32)}

    def publication(cases, protocol):
        if [c["prev_hash"] for c in cases] != ["00" * 32] + [c["chain_hash"] for c in cases[:-1]]:
            raise ValueError("the golden chain cases do not follow each other")
        rules = [c.get("rules") for c in cases]
        if rules[1:] != rules[:-1] or (rules[0] is not None) != (protocol == 3):
            raise ValueError("the golden chain cases are not under one round's rules of protocol %d" % protocol)
        commitments = list(dict.fromkeys(c["commitment"] for c in cases))
        rounds = [{"round": n + 1, "commitment": c, "server_seed": seeds[c].hex(), "protocol": protocol,
                   "house_seats": [], "seeds_required": True, "committed_at": None, "revealed_at": None}
                  for n, c in enumerate(commitments)]
        if rules[0] is not None:
            # The round's rules as published (reveal_by as jsonb gives a time, with its offset).
            for r in rounds:
                r.update({k: rules[0][k] for k in ("house_seats", "seeds_required", "max_deals", "reveal_by")})
        games = [{"game": 100 + k, "round": commitments.index(c["commitment"]) + 1, "nonce": c["nonce"],
                  "commitment": c["commitment"], "players": c.get("players", [71, 72, 73]),
                  "client_seeds": [s.encode("utf-8").hex() for s in c["client_seeds"]],
                  "cards": [c["p1_cards"], c["p2_cards"], c["p3_cards"], c["extra_cards"]],
                  "leader": c["leader"], "chain_hash": c["chain_hash"], "dealt_at": None}
                 for k, c in enumerate(cases)]
        return {"desk": cases[0]["desk"], "chain_head": cases[-1]["chain_hash"], "rounds": rounds,
                "games": games}

    def named(prefix):
        return [c for c in chain if c["name"].startswith(prefix)]

    def verdicts(pub):
        """Verified, but for a receipt with a seed in a house seat of its round."""
        house = {r["round"]: r["house_seats"] for r in pub["rounds"]}
        return [(FAILED, "house seats") if any(g["client_seeds"][s - 1] for s in house[g["round"]])
                else (VERIFIED, None) for g in pub["games"]]

    one = publication(named("desk 7, "), 1)
    two = publication([c for c in named("protocol 2: ") if "swapped" not in c["name"]], 2)
    singles = named("protocol 3: first game, ")
    three = publication([c for c in named("protocol 3: ") if c not in singles], 3)
    if len(three["games"]) != 2 or three["rounds"][0]["house_seats"] != [3] or len(singles) < 7:
        raise ValueError("tests/reference/fair_golden.json has not the protocol-3 chain cases expected")
    out = []
    for name, pub in (("golden: protocol 1, two rounds", one), ("golden: protocol 2, 64-bit players", two),
                      ("golden: protocol 3, seat 3 the house's, two games", three)):
        rs = [receipt_of(pub, g) for g in pub["games"]]
        out.append(Case(name, pub, rs, [(VERIFIED, None)] * len(rs)))
    # Protocol 3, one first game per variant of the rules, each its own desk's publication: the
    # page must hash each variant (and each reveal_by with its offset, to the microsecond) as the
    # reference does. Where a house seat has a client seed ("seats 1 and 2 the house's") the
    # receipt fails "house seats" before its chain is looked at, but the desk line still checks
    # the chain against the reference hash.
    for c in singles:
        pub = publication([c], 3)
        out.append(Case("golden: protocol 3, " + c["name"][len("protocol 3: "):], pub,
                        [receipt_of(pub, g) for g in pub["games"]], verdicts(pub)))
    # The same instant written with another offset is the same rule: the reference hash still
    # verifies (Z, an offset with seconds, a fraction with a trailing zero); one microsecond off is
    # another rule, and another chain.
    by_time = {c["rules"]["reveal_by_micros"]: c for c in singles if c["rules"]["reveal_by"] is not None}
    for micros, text, same in (
            (1798761599999999, "2026-12-31T23:59:59.999999Z", True),
            (1798761599999999, "2027-01-01T00:19:31.999999+00:19:32", True),
            (1798761599999999, "2026-12-31T20:59:59.999998-03:00", False),
            (1798761600000001, "2026-12-31T14:00:00.000001-10:00", True),
            (1798761600000001, "2027-01-01T05:30:00.000002+05:30", False),
            (-500000, "1970-01-01T05:29:59.50+05:30", True),
            (-500000, "1969-12-31T23:59:59.500001+00:00", False)):
        pub = publication([by_time[micros]], 3)
        pub["rounds"][0]["reveal_by"] = text
        rs = [receipt_of(pub, g) for g in pub["games"]]
        if same:
            out.append(Case("golden: protocol 3, reveal_by %s, the same instant" % text, pub, rs,
                            [(VERIFIED, None)]))
        else:
            out.append(Case("golden: protocol 3, reveal_by %s, a microsecond off" % text, pub, rs,
                            [(FAILED, "chain")], desk=(FAILED, ("chain",))))
    # A round revealed at its reveal_by (by the house's clock) ended in time; a microsecond
    # before it, and with no revealed_at published, it ended early (one deal of 1000).
    for at, early in (("2026-12-31T23:59:59.999999+00:00", False), ("2026-12-31T23:59:59.999998Z", True),
                      (None, True)):
        pub = publication([by_time[1798761599999999]], 3)
        pub["rounds"][0]["revealed_at"] = at
        case = Case("golden: protocol 3, revealed_at %s, its reveal_by 2026-12-31T20:59:59.999999-03:00" % at,
                    pub, [receipt_of(pub, g) for g in pub["games"]], [(VERIFIED, None)])
        if bool(case.ended_early) != early:
            raise ValueError("%s: ended early is %s" % (case.name, case.ended_early))
        out.append(case)
    # Under protocol 1 the players are not chained: the same games with players given to others
    # still verify, and under protocol 2 they do not.
    p = copy.deepcopy(one)
    p["games"][0]["players"] = [73, 72, 71]
    out.append(Case("golden: protocol 1 does not chain the players", p,
                    [receipt_of(p, g) for g in p["games"]], [(VERIFIED, None)] * 3))
    p = copy.deepcopy(two)
    p["games"][0]["players"] = [72, 71, 73]
    rs = [receipt_of(p, g) for g in p["games"]]
    out.append(Case("golden: protocol 2 chains the players", p, rs,
                    [(FAILED, "chain")] * 2, desk=(FAILED, ("chain",))))
    # Protocol 3 chains the players and its round's rules: the publication with one of them
    # changed no longer gives the reference hashes. No change here reaches another check first
    # (seat 3, the house seat given up, has the empty seed).
    for what, change in (("the players: seats 1 and 2 swapped", None),
                         ("its rules: the house seat given up", {"house_seats": []}),
                         ("its rules: seeds no longer required", {"seeds_required": False}),
                         ("its rules: another max_deals", {"max_deals": 999}),
                         ("its rules: a reveal_by set", {"reveal_by": "2026-12-31T20:59:59.999999-03:00"})):
        p = copy.deepcopy(three)
        if change is None:
            p["games"][0]["players"] = [72, 71, 73]
        else:
            p["rounds"][0].update(change)
        rs = [receipt_of(p, g) for g in p["games"]]
        out.append(Case("golden: protocol 3 chains " + what, p, rs,
                        [(FAILED, "chain")] * 2, desk=(FAILED, ("chain",))))
    return out + golden_player_cases(one)


def golden_player_cases(pub):
    """The player's own inputs at the golden protocol-1 desk of two rounds (player 71 in seat 1
    of every game): complete; a shadow desk's deal (a receipt of the round the player named no
    commitment for, with ROUND:HEX given for the other); a commitment other than the one shown;
    and incomplete checks, with no player id or no commitments."""
    rs = [receipt_of(pub, g) for g in pub["games"]]
    c = {r["round"]: r["commitment"] for r in pub["rounds"]}
    every = ["%d:%s" % (n, c[n]) for n in sorted(c)]
    shadow = [(FAILED, "shown commitment") if r["round"] != 1 else (VERIFIED, None) for r in rs]
    other = [(FAILED, "shown commitment") if r["round"] == 2 else (VERIFIED, None) for r in rs]
    return [
        Case("golden: every commitment shown and the player id", pub, rs, [(VERIFIED, None)] * len(rs),
             player=71, withheld=[], shown=every),
        Case("golden: a shadow desk's deal, of a round shown no commitment", pub, rs, shadow,
             player=71, withheld=[], shown=["1:" + c[1]]),
        Case("golden: a receipt under another commitment than the one shown", pub, rs, other,
             player=71, withheld=[], shown=["1:" + c[1], "2:" + other_hex(c[2])]),
        Case("golden: a bare commitment covers the rounds not named", pub, rs, [(VERIFIED, None)] * len(rs),
             player=71, withheld=[], shown=["2:" + c[2], c[1]]),
        Case("golden: a game withheld", pub, rs[1:], [(VERIFIED, None)] * (len(rs) - 1),
             player=71, withheld=[(g["game"], g["round"], g["nonce"], [1]) for g in pub["games"][:1]], shown=every),
        Case("golden: no player id: incomplete", pub, rs, [(VERIFIED, None)] * len(rs), shown=every),
        Case("golden: no commitments shown: incomplete", pub, rs, [(VERIFIED, None)] * len(rs),
             player=71, withheld=[]),
        Case("golden: neither: incomplete", pub, rs, [(VERIFIED, None)] * len(rs)),
    ]


# --- input that is no publication or receipt ----------------------------------------------------

def bad_inputs(pub, receipts):
    """(name, publication text, receipts text, words the error must hold)."""
    good_pub, good_r = json.dumps(pub), json.dumps(receipts[0])
    no_commitment = {k: v for k, v in receipts[0].items() if k not in ("commitment", "round", "nonce")}
    short = copy.deepcopy(pub)
    short["games"][0]["cards"][0] = short["games"][0]["cards"][0][:16]

    def round_so(**change):
        """The publication with its first round changed so."""
        p = copy.deepcopy(pub)
        p["rounds"][0].update(change)
        return json.dumps(p)
    return [
        ("a publication that is not JSON", good_pub[:-1], good_r, "not JSON"),
        ("receipts that are not JSON", good_pub, "{\"desk\": 7,", "not JSON"),
        ("a deal result that is no receipt", good_pub, json.dumps(no_commitment), "commitment"),
        ("a receipt with a short chain hash", good_pub,
         json.dumps(dict(receipts[0], chain_hash=receipts[0]["chain_hash"][:62])), "chain_hash"),
        ("a receipt with a nonce of 2^63", good_pub, json.dumps(dict(receipts[0], nonce=2**63)), "nonce"),
        ("a receipt with a 257-byte client seed", good_pub,
         json.dumps(dict(receipts[0], client_seeds=["61" * 257, "", ""])), "256"),
        ("a publication with a hand of 16 cards", json.dumps(short), good_r, "cards"),
        ("a publication with a key twice", good_pub[:-1] + ", \"desk\": 8}", good_r, "twice"),
        ("a protocol-4 round", round_so(protocol=4), good_r, "protocol"),
        ("a round whose seeds_required is no boolean", round_so(seeds_required=1), good_r, "seeds_required"),
        ("a protocol-3 round without max_deals", round_so(protocol=3, max_deals=None, reveal_by=None), good_r,
         "max_deals is an integer under protocol 3"),
        ("a protocol-3 round with a house seat twice",
         round_so(protocol=3, max_deals=1000, reveal_by=None, house_seats=[3, 3]), good_r, "each at most once"),
        ("a protocol-3 round due in the year 9999",
         round_so(protocol=3, max_deals=1000, reveal_by="9999-01-01T00:00:00+00:00"), good_r,
         "not a time a round can have"),
        ("a reveal_by on February 30", round_so(reveal_by="2026-02-30T00:00:00+00:00"), good_r, "reveal_by"),
        ("a reveal_by without its offset", round_so(reveal_by="2026-01-31T12:00:00"), good_r, "reveal_by"),
    ]


# --- for the SQL verifier's test (tests/sql_verifier.rs) ----------------------------------------

def python_says(case):
    """What tools/verify_deal.py receipts gives a case (run in-process): per receipt (result,
    check), the games withheld, the desk's result and checks, and the whole check's verdict
    (its exit status as a word)."""
    pub = verify_deal.parse_publication(json.loads(json.dumps(case.publication)))
    receipts = [verify_deal.parse_receipt(r, "receipt") for r in case.receipts]
    shown = verify_deal.parse_shown_commitments(case.shown)
    out = verify_deal.check_all(pub, receipts, player=case.player, shown=shown)
    desk = out["desk"]
    return {"receipts": [[x["result"], x["check"]] for x in out["receipts"]],
            "withheld": [w["game"] for w in out["withheld"] or ()],
            "ended_early": [e["round"] for e in out["ended_early"]],
            "desk": [desk["result"], sorted(p["check"] for p in desk["problems"])],
            "check": VERDICT_OF_EXIT[out["exit"]]}


VERDICT_OF_EXIT = {0: VERIFIED, 1: FAILED, 3: NOT_REVEALED, 4: INCOMPLETE, 5: ENDED_EARLY}


def golden_json():
    """The golden cases as JSON: each with its publication, receipts, player id and commitments
    shown, the verdicts it must get ("expected") and those verify_deal.py gives ("python")."""
    out = []
    for c in golden_cases():
        status = c.exit_status()
        out.append({"name": c.name, "publication": c.publication, "receipts": c.receipts,
                    "player": c.player, "shown": c.shown,
                    "expected": {"receipts": [list(v) for v in c.verdicts],
                                 "withheld": [w[0] for w in c.withheld or ()],
                                 "ended_early": c.ended_early,
                                 "desk": [c.desk[0], sorted(c.desk[1])],
                                 "check": VERDICT_OF_EXIT[status]},
                    "python": python_says(c)})
    return out


if __name__ == "__main__":
    # tests/browser/receipt_cases.py --golden-json: the golden cases for the SQL verifier's test.
    if sys.argv[1:] != ["--golden-json"]:
        sys.exit("usage: receipt_cases.py --golden-json")
    print(json.dumps(golden_json(), ensure_ascii=False))
