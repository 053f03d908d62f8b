#!/usr/bin/env python3
"""Recompute a provably fair dealcards deal from the revealed server seed, as specified in
docs/provably_fair.md (standard library only; ChaCha20, the bounded draw and the shuffle are
written out here).

  verify_deal.py --server-seed HEX --client-seed A --client-seed B --client-seed C --nonce N
                 [--commitment HEX] [--json]
      the three hands, the extra cards, the first bidder, the key and the commitment check.
      Exit status 1 if --commitment is given and SHA-256(server seed) is not it, 2 on bad input.

  verify_deal.py --chain --desk ID --commitment HEX --nonce N --client-seed A ... (x3)
                 [--player ID ... (x3) [--rules JSON]] [--prev-hash HEX]
                 (--cards C1,...,C54 --leader L | --server-seed HEX) [--json]
      the chain_hash of one game: its recorded content after the previous game's chain_hash
      (32 zero bytes, the default, for a desk's first fair game); with the players of seats 1,
      2, 3 given, under protocol 2 (rounds committed by 0.5.0 and 0.6.0), with them and
      --rules '{"house_seats": [...], "seeds_required": ..., "max_deals": N, "reveal_by": ...}'
      (the round's rules as published) under protocol 3 (rounds committed since 0.7.0), with
      neither under protocol 1.

  verify_deal.py receipts --publication PUB.json RECEIPT.json ... [--seat N --my-seed TEXT]
                 [--player ID] [--commitment [ROUND:]HEX ...] [--keep FILE]
                 [--json]
      players' receipts (what deal_cards notified, or fair_receipt(game) gives once the deal
      has committed: desk, game, leader, round, nonce, commitment, chain_hash, players, client
      seeds) checked against the house's publication (what
      fair_publication(desk) returned). A receipt file holds one receipt, several one after
      another (one a line, as psql prints them), or lists of them ("-" reads stdin). Each
      receipt's checks, in order, up to the first that fails:
        desk         the receipt's desk is the publication's
        game         its game is in the publication, once
        record       its round, commitment, nonce, players, client seeds and first bidder are
                     the published game's
        seat         (--seat, --my-seed) its client seed of that seat is your seed's UTF-8
        shown commitment
                     (--commitment) its commitment is the one you were shown for its round
                     before you gave your seed: --commitment ROUND:HEX once per round, or
                     --commitment HEX for every round not named so; a receipt of a round you
                     were shown no commitment for (none named, and no bare HEX) fails
        house seats  each house seat of its round has the empty client seed; fails when your
                     own seat (--seat, or the seat naming --player) is a house seat of the round
        chain        recomputed from 32 zero bytes along the published games (each under its
                     round's protocol, with its round's rules under protocol 3), every
                     published chain_hash up to its game is the
                     recomputed one, and its own chain_hash is its game's: nothing up to this
                     game changed since the deal
        nonce        its round's games before it have nonces 0 .. nonce-1, each once
        commitment   its round is published with its commitment; once the round's server seed
                     is published, SHA-256(server seed) is the commitment; a round other than
                     the newest without its seed was left without a reveal
        deal         (seed published) the seeds and nonce deal the published cards and leader
      Each receipt is "verified", "not revealed yet" (every check that can be made passes; the
      round's seed is not published yet), "overdue: commitment: why" (as not revealed yet, but
      the round's bound has passed: it has dealt its max_deals published games, or its
      reveal_by time is past) or "failed: CHECK: why". Then one line for the desk:
      whether the whole chain recomputes to chain_head, and every round but the newest whose
      seed is not published ("left without a reveal").
      With --player ID (your player id), a line "withheld: game G (round R, nonce N), seat S"
      for every published game that names you in a seat and whose receipt is not among those
      given: a deal of yours the house did not relay (or "player ID: nothing withheld").
      Without --player, or without --commitment, the check is incomplete: a receipt whose
      checks all pass but "shown commitment" (not made) is "incomplete", and a last line
      "incomplete: not given: ..." names what is missing.
      Then a line "ended early: round R ..." for every round you gave a seed under (a round of
      one of your receipts, or one you give --commitment for) that ended before its bound: its
      server seed is published with fewer games than its max_deals, and it has no reveal_by or
      was revealed before it (revealed_at, the house's clock: both times are printed). Where the
      round dealt games, the line shows the deal it avoided: the next nonce, from its revealed
      seed and its last game's client seeds. The house may have ended it because it did not
      like that deal; an honest house ends rounds early too (fair_mode_off, a desk closing).
      With --keep FILE (a JSON file; created when missing), every revealed round seen is kept
      (desk, round, commitment, its number of games and its last game's chain hash), and a
      publication or receipt showing a game under a kept round that is not among its kept
      games (another count or chain) fails as "forked: ..." (the file is then left as it was):
      a copy of the house's server dealt under a round after its reveal.
      Exit status 0 when every receipt and the desk verify, 1 when anything failed, is overdue,
      a game was withheld or a round forked, 2 on bad input, 5 when nothing failed but a round
      you seeded ended early, 3 when nothing failed but some receipt's round is not revealed
      yet, 4 when nothing failed, is overdue, withheld or ended early but the check is
      incomplete (--player or --commitment not given).

Hex arguments may be given with a PostgreSQL bytea prefix (\\x) or 0x. Give a seat with no
client seed as --client-seed '', and a client seed that starts with "-" as --client-seed=-seed
or --client-seed -seed (the word after --client-seed, --my-seed or --player is its value,
whatever it starts with; so --my-seed -x and --player -42 work too).
"""
import argparse
import collections
import datetime
import hashlib
import hmac
import json
import os
import re
import sys

MASK32 = 0xFFFFFFFF
MAX_CLIENT_SEED_BYTES = 256
MAX_NONCE = 2**63 - 1
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUITS = ["\u2663", "\u2666", "\u2665", "\u2660"]  # clubs, diamonds, hearts, spades
# Dou Dizhu strength of a rank index (A 2 3 ... K above): 3 lowest, then ... K A 2.
DDZ_RANK_ORDER = [11, 12, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]


class BadInput(ValueError):
    pass


# --- ChaCha20 block function, RFC 8439 section 2.3 ------------------------------------------

def _rotl(v, c):
    return ((v << c) & MASK32) | (v >> (32 - c))


def _quarter_round(s, a, b, c, d):
    s[a] = (s[a] + s[b]) & MASK32; s[d] = _rotl(s[d] ^ s[a], 16)
    s[c] = (s[c] + s[d]) & MASK32; s[b] = _rotl(s[b] ^ s[c], 12)
    s[a] = (s[a] + s[b]) & MASK32; s[d] = _rotl(s[d] ^ s[a], 8)
    s[c] = (s[c] + s[d]) & MASK32; s[b] = _rotl(s[b] ^ s[c], 7)


def chacha20_block(key, counter, nonce=bytes(12)):
    """The 16 output words of one block (the serialized block read as little-endian words)."""
    assert len(key) == 32 and len(nonce) == 12
    state = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574]
    state += [int.from_bytes(key[i:i + 4], "little") for i in range(0, 32, 4)]
    state += [counter & MASK32]
    state += [int.from_bytes(nonce[i:i + 4], "little") for i in range(0, 12, 4)]
    w = list(state)
    for _ in range(10):
        _quarter_round(w, 0, 4, 8, 12); _quarter_round(w, 1, 5, 9, 13)
        _quarter_round(w, 2, 6, 10, 14); _quarter_round(w, 3, 7, 11, 15)
        _quarter_round(w, 0, 5, 10, 15); _quarter_round(w, 1, 6, 11, 12)
        _quarter_round(w, 2, 7, 8, 13); _quarter_round(w, 3, 4, 9, 14)
    return [(w[i] + state[i]) & MASK32 for i in range(16)]


class Stream:
    """The key stream as 32-bit words: blocks 0, 1, 2, ... with a 12-byte zero nonce."""

    def __init__(self, key):
        self.key = bytes(key)
        self.counter = 0
        self.words = []
        self.pos = 0

    def word(self):
        if self.pos == len(self.words):
            self.words = chacha20_block(self.key, self.counter)
            self.counter += 1
            self.pos = 0
        self.pos += 1
        return self.words[self.pos - 1]

    def below(self, n):
        """Uniform integer in 0..n (Lemire's multiply-and-reject, exact), for 1 <= n < 2^32."""
        assert 1 <= n < 2**32
        m = self.word() * n
        low = m & MASK32
        if low < n:
            t = (2**32 - n) % n
            while low < t:
                m = self.word() * n
                low = m & MASK32
        return m >> 32


# --- the deal ---------------------------------------------------------------------------------

def seeded_deal(key):
    """The seeded Dou Dizhu deal of a 32-byte key: (p1, p2, p3, extra, leader)."""
    s = Stream(key)
    deck = list(range(1, 55))
    for i in range(53, 0, -1):
        j = s.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    leader = s.below(3) + 1
    return deck[0:17], deck[17:34], deck[34:51], deck[51:54], leader


def encode_client_seed(seed):
    """A client seed (text, or its UTF-8 bytes as published) as 4-byte big-endian length + bytes."""
    b = bytes(seed) if isinstance(seed, (bytes, bytearray)) else seed.encode("utf-8")
    if len(b) > MAX_CLIENT_SEED_BYTES:
        text = seed if isinstance(seed, str) else b.decode("utf-8", "replace")
        raise BadInput("a client seed is at most %d bytes in UTF-8; %r is %d"
                       % (MAX_CLIENT_SEED_BYTES, text[:20] + ("..." if len(text) > 20 else ""), len(b)))
    return len(b).to_bytes(4, "big") + b


def check_nonce(nonce):
    if not isinstance(nonce, int) or isinstance(nonce, bool) or not 0 <= nonce <= MAX_NONCE:
        raise BadInput("the nonce is an integer from 0 to 2^63-1, not %r" % (nonce,))
    return nonce


def message(client_seeds, nonce):
    """M: each seat's seed as 4-byte big-endian length + UTF-8, then the nonce as 8 bytes BE."""
    if len(client_seeds) != 3:
        raise BadInput("three client seeds (seats 1, 2, 3) are needed, got %d" % len(client_seeds))
    return b"".join(encode_client_seed(s) for s in client_seeds) + check_nonce(nonce).to_bytes(8, "big")


def derive_key(server_seed, client_seeds, nonce):
    return hmac.new(bytes(server_seed), message(client_seeds, nonce), hashlib.sha256).digest()


def commitment_of(server_seed):
    return hashlib.sha256(bytes(server_seed)).digest()


def verify(server_seed, client_seeds, nonce, commitment=None):
    """Everything a player checks, as the dict printed by --json."""
    key = derive_key(server_seed, client_seeds, nonce)
    p1, p2, p3, extra, leader = seeded_deal(key)
    actual = commitment_of(server_seed)
    return {
        "key": key.hex(),
        "p1_cards": p1, "p2_cards": p2, "p3_cards": p3, "extra_cards": extra,
        "leader": leader,
        "commitment": actual.hex(),
        "commitment_matches": None if commitment is None else hmac.compare_digest(actual, commitment),
    }


EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def micros_since_epoch(t):
    """A time with its offset as whole microseconds since 1970-01-01 00:00:00 UTC, exactly."""
    return (t - EPOCH) // datetime.timedelta(microseconds=1)


def encode_rules(rules):
    """A round's rules as protocol 3 chains them (20 bytes): rules is {"house_seats": [seats],
    "seeds_required": bool, "max_deals": int, "reveal_by": a time with its offset or None}."""
    house = rules["house_seats"]
    if not all(s in (1, 2, 3) for s in house) or len(set(house)) != len(house):
        raise BadInput("the house seats are seats 1 to 3, each at most once")
    if not isinstance(rules["seeds_required"], bool):
        raise BadInput("seeds_required is true or false")
    if not 1 <= rules["max_deals"] < 2**63:
        raise BadInput("max_deals is from 1 to 2^63 - 1")
    out = bytes([3, sum(1 << (s - 1) for s in house), int(rules["seeds_required"])])
    out += rules["max_deals"].to_bytes(8, "big")
    if rules["reveal_by"] is None:
        return out + bytes(9)
    us = micros_since_epoch(rules["reveal_by"])
    if not -2**63 <= us < 2**63:
        raise BadInput("reveal_by is out of range")
    return out + b"\x01" + us.to_bytes(8, "big", signed=True)


def chain_hash(prev_hash, desk, commitment, nonce, client_seeds, p1, p2, p3, extra, leader,
               players=None, rules=None):
    """The chain_hash of one fair game (docs/provably_fair.md, "The hash chain of a desk"):
    protocol 3 with the players of seats 1 to 3 and the round's rules given, protocol 2 with the
    players only, protocol 1 with neither."""
    if len(prev_hash) != 32 or len(commitment) != 32:
        raise BadInput("the previous chain hash and the commitment are 32 bytes each")
    if not -2**31 <= desk < 2**31:
        raise BadInput("a desk id is a 32-bit integer")
    cards = list(p1) + list(p2) + list(p3) + list(extra)
    if [len(p1), len(p2), len(p3), len(extra)] != [17, 17, 17, 3] or not all(1 <= c <= 54 for c in cards):
        raise BadInput("the hands are 17, 17, 17 and 3 cards from 1..54")
    if leader not in (1, 2, 3):
        raise BadInput("the first bidder is seat 1, 2 or 3")
    if players is not None and (len(players) != 3 or not all(-2**63 <= p < 2**63 for p in players)):
        raise BadInput("the players are three 64-bit integers")
    if rules is not None and players is None:
        raise BadInput("protocol 3 chains the players too")
    # Field by field: unlike M, the chain has the nonce before the client seeds; under protocol
    # 2 each seat's player comes before its seed.
    seats = b"".join((b"" if players is None else players[i].to_bytes(8, "big", signed=True))
                     + encode_client_seed(s) for i, s in enumerate(client_seeds))
    data = (bytes(prev_hash) + desk.to_bytes(4, "big", signed=True) + bytes(commitment)
            + (b"" if rules is None else encode_rules(rules))
            + check_nonce(nonce).to_bytes(8, "big") + seats
            + bytes(cards) + bytes([leader]))
    return hashlib.sha256(data).digest()


# --- presentation -----------------------------------------------------------------------------

def card_label(c):
    if c == 53:
        return "BJ"
    if c == 54:
        return "RJ"
    return RANKS[(c - 1) // 4] + SUITS[(c - 1) % 4]


def ddz_sort(cards):
    """Dou Dizhu order: 3 4 5 6 7 8 9 10 J Q K A 2 BJ RJ, suits clubs diamonds hearts spades."""
    def strength(c):
        return (13 + c - 53, 0) if c > 52 else (DDZ_RANK_ORDER[(c - 1) // 4], (c - 1) % 4)
    return sorted(cards, key=strength)


def parse_hex32(text, what):
    t = text.strip()
    for prefix in ("\\x", "0x", "0X"):
        if t.startswith(prefix):
            t = t[len(prefix):]
            break
    if len(t) != 64 or any(ch not in "0123456789abcdefABCDEF" for ch in t):
        raise BadInput("the %s is 64 hex digits (32 bytes), not %r" % (what, text))
    return bytes.fromhex(t)


def parse_nonce(text):
    t = text.strip()
    if not t.isascii() or not t.isdigit():
        raise BadInput("the nonce is a decimal integer >= 0, not %r" % text)
    return check_nonce(int(t))


def parse_cards(text):
    try:
        cards = [int(x) for x in text.replace("{", "").replace("}", "").split(",")]
    except ValueError:
        raise BadInput("--cards is 54 comma-separated card numbers, not %r" % text)
    if len(cards) != 54:
        raise BadInput("--cards is the 54 cards: seat 1's 17, seat 2's, seat 3's, the 3 extra")
    return cards[0:17], cards[17:34], cards[34:51], cards[51:54]


def print_deal(r, given):
    print("key:          %s" % r["key"])
    for n, field in ((1, "p1_cards"), (2, "p2_cards"), (3, "p3_cards"), (0, "extra_cards")):
        cards = r[field]
        name = "seat %d:" % n if n else "extra:"
        print("%-13s %s" % (name, " ".join(card_label(c) for c in cards)))
        print("%-13s %s" % ("  sorted:", " ".join(card_label(c) for c in ddz_sort(cards))))
        print("%-13s %s" % ("  numbers:", ",".join(map(str, cards))))
    print("first bidder: seat %d" % r["leader"])
    print("SHA-256(server seed): %s" % r["commitment"])
    if given is None:
        print("commitment:   not given (compare the line above with the published one)")
    elif r["commitment_matches"]:
        print("commitment:   matches")
    else:
        print("commitment:   DOES NOT match %s" % given.hex())


# --- receipts against the house's publication ---------------------------------------------------
#
# A receipt is what deal_cards notified for one game (and fair_receipt(game) gives once the deal
# has committed): {desk, game, leader, round, nonce,
# commitment, chain_hash, players, client_seeds (hex of UTF-8)}. The publication is what
# fair_publication(desk) returns: the desk's rounds with their rules and revealed seeds, and its
# games in chain order with their records and chain hashes. A receipt's checks, in order:

CHECKS = ["desk", "game", "record", "seat", "shown commitment", "house seats", "chain", "nonce",
          "commitment", "deal"]
VERIFIED, NOT_REVEALED, OVERDUE, FAILED = "verified", "not revealed yet", "overdue", "failed"
# A receipt all of whose checks passed but "shown commitment", which was not made: the player
# gave none of the commitments they were shown, so it may be of a round (or a desk) they never
# gave their seed under. Exit status 4 says a check was incomplete and nothing failed.
INCOMPLETE = "incomplete"
NOT_SHOWN = ("not made: give the commitments you were shown (--commitment ROUND:HEX or HEX); "
             "without them a receipt of a deal you were never shown cannot be told from yours")


class Failed(Exception):
    def __init__(self, check, why):
        super().__init__(why)
        self.check, self.why = check, why


def _where(where, key):
    return "%s: %s" % (where, key) if key is not None else where


def _int(obj, key, where, lo=-2**63, hi=2**63 - 1, null=False):
    v = obj.get(key) if isinstance(obj, dict) else obj
    if v is None and null:
        return None
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise BadInput("%s is an integer from %d to %d, not %s"
                       % (_where(where, key), lo, hi, json.dumps(v)))
    return v


def _hex(obj, key, where, size=None, null=False):
    v = obj.get(key) if isinstance(obj, dict) else obj
    if v is None and null:
        return None
    if (not isinstance(v, str) or len(v) % 2 or any(c not in "0123456789abcdefABCDEF" for c in v)
            or (size is not None and len(v) != 2 * size)):
        raise BadInput("%s is %s, not %s" % (_where(where, key), "%d bytes in hex" % size
                                             if size is not None else "hex", json.dumps(v)))
    return bytes.fromhex(v)


def _seeds(obj, key, where):
    """Three client seeds, each the hex of at most 256 bytes."""
    seeds = [_hex(s, None, "%s: %s[%d]" % (where, key, i)) for i, s in enumerate(_list(obj, key, where, 3))]
    for i, b in enumerate(seeds):
        if len(b) > MAX_CLIENT_SEED_BYTES:
            raise BadInput("%s: %s[%d] is %d bytes; a client seed is at most %d"
                           % (where, key, i, len(b), MAX_CLIENT_SEED_BYTES))
    return seeds


def _list(obj, key, where, length=None):
    v = obj.get(key) if isinstance(obj, dict) else obj
    if not isinstance(v, list) or (length is not None and len(v) != length):
        raise BadInput("%s is a list%s, not %s" % (_where(where, key), " of %d" % length
                                                   if length is not None else "", json.dumps(v)[:80]))
    return v


def _object(v, where):
    if not isinstance(v, dict):
        raise BadInput("%s is a JSON object, not %s" % (where, json.dumps(v)[:80]))
    return v


def parse_receipt(r, where):
    _object(r, where)
    if "commitment" not in r:
        raise BadInput("%s is not a provably fair receipt (it has no commitment)" % where)
    return {
        "desk": _int(r, "desk", where, -2**31, 2**31 - 1),
        "game": _int(r, "game", where),
        "round": _int(r, "round", where, -2**31, 2**31 - 1),
        "nonce": _int(r, "nonce", where, 0, MAX_NONCE),
        "commitment": _hex(r, "commitment", where, 32),
        "chain_hash": _hex(r, "chain_hash", where, 32),
        "players": [_int(p, None, "%s: players[%d]" % (where, i))
                    for i, p in enumerate(_list(r, "players", where, 3))],
        "client_seeds": _seeds(r, "client_seeds", where),
        "leader": _int(r, "leader", where, 1, 3),
    }


def _time(obj, key, where):
    """A timestamp as PostgreSQL's jsonb gives one (ISO 8601 with its offset), or None."""
    v = obj.get(key)
    if v is None:
        return None
    if isinstance(v, str):
        t = v.strip()
        if t in ("infinity", "-infinity"):
            return datetime.datetime.max.replace(tzinfo=datetime.timezone.utc) \
                if t == "infinity" else datetime.datetime.min.replace(tzinfo=datetime.timezone.utc)
        try:
            d = datetime.datetime.fromisoformat(t)
        except ValueError:
            d = None
        if d is not None and d.tzinfo is not None:
            return d
    raise BadInput("%s is a time with its offset, as 2026-01-31T12:00:00+00:00, not %s"
                   % (_where(where, key), json.dumps(v)))


def overdue(pub, n, now=None):
    """Why round n is overdue (its bound has passed: it has dealt its max_deals published games,
    or its reveal_by time is past), or None."""
    rnd = pub["rounds"][n]
    dealt = sum(1 for g in pub["games"] if g["round"] == n)
    if rnd["max_deals"] is not None and dealt >= rnd["max_deals"]:
        return ("round %d has dealt the %d deals of its bound, yet its server seed is not "
                "published: the house owes its reveal" % (n, rnd["max_deals"]))
    now = datetime.datetime.now(datetime.timezone.utc) if now is None else now
    if rnd["reveal_by"] is not None and now > rnd["reveal_by"]:
        return ("round %d's server seed was due by %s, yet it is not published: the house owes "
                "its reveal" % (n, rnd["reveal_by"].isoformat()))
    return None


def parse_publication(p, where="the publication"):
    _object(p, where)
    desk = _int(p, "desk", where, -2**31, 2**31 - 1)
    rounds = {}
    for i, r in enumerate(_list(p, "rounds", where)):
        w = "%s: rounds[%d]" % (where, i)
        _object(r, w)
        n = _int(r, "round", w, -2**31, 2**31 - 1)
        if n in rounds:
            raise BadInput("%s: round %d is published twice" % (where, n))
        protocol = _int(r, "protocol", w, 1, 3)
        house = [_int(s, None, "%s: house_seats[%d]" % (w, j), 1, 3)
                 for j, s in enumerate(_list(r, "house_seats", w))]
        rounds[n] = {"round": n, "commitment": _hex(r, "commitment", w, 32),
                     "server_seed": _hex(r, "server_seed", w, 32, null=True),
                     "protocol": protocol, "house_seats": house,
                     # The bound (absent or null in publications of releases before 0.7.0).
                     "max_deals": _int(r, "max_deals", w, 1, 2**63 - 1, null=True)
                     if "max_deals" in r else None,
                     "reveal_by": _time(r, "reveal_by", w) if "reveal_by" in r else None,
                     # The house's clock: shown to the player, never trusted.
                     "revealed_at": _time(r, "revealed_at", w) if "revealed_at" in r else None,
                     "seeds_required": _bool(r, "seeds_required", w)}
        if protocol == 3:
            if rounds[n]["max_deals"] is None:
                raise BadInput("%s: max_deals is an integer under protocol 3, not null" % w)
            rounds[n]["rules"] = rules_of(rounds[n], w)
    games = []
    for i, g in enumerate(_list(p, "games", where)):
        w = "%s: games[%d]" % (where, i)
        _object(g, w)
        cards = _list(g, "cards", w, 4)
        for j, n in enumerate((17, 17, 17, 3)):
            _list(cards[j], None, "%s: cards[%d]" % (w, j), n)
        games.append({
            "game": _int(g, "game", w),
            "round": _int(g, "round", w, -2**31, 2**31 - 1, null=True),
            "nonce": _int(g, "nonce", w, 0, MAX_NONCE),
            "commitment": _hex(g, "commitment", w, 32),
            "players": [_int(x, None, "%s: players[%d]" % (w, j), null=True)
                        for j, x in enumerate(_list(g, "players", w, 3))],
            "client_seeds": _seeds(g, "client_seeds", w),
            "cards": [[_int(c, None, "%s: cards[%d]" % (w, j), 1, 54) for c in hand]
                      for j, hand in enumerate(cards)],
            "leader": _int(g, "leader", w, 1, 3),
            "chain_hash": _hex(g, "chain_hash", w, 32, null=True),
        })
    return {"desk": desk, "chain_head": _hex(p, "chain_head", where, 32, null=True),
            "rounds": rounds, "games": games}


def _bool(obj, key, where):
    v = obj.get(key)
    if not isinstance(v, bool):
        raise BadInput("%s is true or false, not %s" % (_where(where, key), json.dumps(v)))
    return v


def rules_of(rnd, where):
    """The rules protocol 3 chains, of a parsed round (or of --rules)."""
    if rnd["reveal_by"] is not None and not 1 < rnd["reveal_by"].year < 9999:
        raise BadInput("%s: reveal_by is not a time a round can have" % where)
    try:
        rules = {k: rnd[k] for k in ("house_seats", "seeds_required", "max_deals", "reveal_by")}
        encode_rules(rules)
    except BadInput as e:
        raise BadInput("%s: %s" % (where, e))
    return rules


def _seed_text(b):
    """A client seed for people: its text when it is UTF-8, and its hex."""
    try:
        return "%s (hex %s)" % (json.dumps(b.decode("utf-8"), ensure_ascii=False), b.hex() or "empty")
    except UnicodeDecodeError:
        return "hex %s (not UTF-8)" % b.hex()


def walk_chain(pub):
    """The chain recomputed from 32 zero bytes along the published games, each with its round's
    protocol: per game, the recomputed hash (None once it cannot be recomputed) and the problem
    of that game (its stored hash is not the recomputed one, or it cannot be hashed), if any."""
    prev, out = bytes(32), []
    for g in pub["games"]:
        h, problem = None, None
        rnd = pub["rounds"].get(g["round"])
        if prev is None:
            problem = "the chain cannot be recomputed past an earlier game"
        elif rnd is None:
            problem = ("game %d names round %s, which is not published, so its chain protocol is "
                       "not known" % (g["game"], g["round"]))
        elif rnd["protocol"] >= 2 and None in g["players"]:
            problem = "game %d has no player in seat %d" % (g["game"], g["players"].index(None) + 1)
        else:
            try:
                h = chain_hash(prev, pub["desk"], g["commitment"], g["nonce"], g["client_seeds"],
                               *g["cards"], g["leader"],
                               players=g["players"] if rnd["protocol"] >= 2 else None,
                               rules=rnd.get("rules"))
            except BadInput as e:
                problem = "game %d cannot be hashed: %s" % (g["game"], e)
        if h is not None and g["chain_hash"] != h:
            problem = ("game %d's published chain_hash is %s, but the published games recompute "
                       "to %s: it or a game before it was changed after it was dealt"
                       % (g["game"], g["chain_hash"].hex() if g["chain_hash"] else "null", h.hex()))
        out.append((h, problem))
        prev = h
    return out


def left_without_reveal(pub):
    """The rounds, all but the newest, whose server seed is not published: the desk deals
    under a later commitment, yet their games can never be checked."""
    numbers = sorted(pub["rounds"])
    return [n for n in numbers[:-1] if pub["rounds"][n]["server_seed"] is None]


def check_desk(pub, chain=None):
    """The desk-wide line: the whole chain recomputes to chain_head, and no round but the newest
    is left without a reveal."""
    chain = walk_chain(pub) if chain is None else chain
    problems = []
    first = next((p for _, p in chain if p), None)
    if first:
        problems.append(("chain", first))
    else:
        end = chain[-1][0] if chain else None
        if end != pub["chain_head"]:
            problems.append(("chain", "the %d published games recompute to %s, but chain_head is %s: "
                             "games after them were removed or the head was changed"
                             % (len(chain), end.hex() if end else "no hash (no games)",
                                pub["chain_head"].hex() if pub["chain_head"] else "null")))
    for n in left_without_reveal(pub):
        problems.append(("left without a reveal",
                         "round %d (commitment %s) was left without a reveal: a later round was "
                         "committed, yet its server seed is not published, so its games can never "
                         "be checked" % (n, pub["rounds"][n]["commitment"].hex())))
    return {
        "desk": pub["desk"],
        "games": len(chain),
        "result": FAILED if problems else VERIFIED,
        "problems": [{"check": c, "why": w} for c, w in problems],
        "left_without_reveal": left_without_reveal(pub),
    }


def check_receipt(pub, r, seat=None, my_seed=None, chain=None, shown=None, player=None):
    """Every check of one receipt against the publication, in order, up to the first that fails:
    {"result": verified | not revealed yet | failed, "check", "why", "checks": [...]}. shown is
    what shown_commitments returns: the commitments the player was shown, by round."""
    chain = walk_chain(pub) if chain is None else chain
    done = []
    state = {"revealed": True}

    def passed(check, why):
        done.append({"check": check, "result": "passed", "why": why})

    try:
        # desk: the receipt is of the publication's desk.
        if r["desk"] != pub["desk"]:
            raise Failed("desk", "the receipt is of desk %d, the publication of desk %d"
                         % (r["desk"], pub["desk"]))
        passed("desk", "desk %d" % r["desk"])

        # game: the receipt's game is published, once.
        at = [i for i, g in enumerate(pub["games"]) if g["game"] == r["game"]]
        if not at:
            raise Failed("game", "game %d is not in the publication: it was removed, or never "
                         "recorded" % r["game"])
        if len(at) > 1:
            raise Failed("game", "game %d is in the publication %d times" % (r["game"], len(at)))
        i = at[0]
        g = pub["games"][i]
        passed("game", "game %d is the publication's game number %d in chain order" % (g["game"], i + 1))

        # record: what the player was given is what the house published.
        for field, show in (("round", str), ("commitment", bytes.hex), ("nonce", str),
                            ("players", lambda v: ", ".join(map(str, v))),
                            ("client_seeds", lambda v: ", ".join(_seed_text(s) for s in v)),
                            ("leader", str)):
            if r[field] != g[field]:
                shown = [show(v) if v is not None else "null" for v in (r[field], g[field])]
                raise Failed("record", "the receipt's %s is %s, the published game's is %s"
                             % (field.replace("_", " "), shown[0], shown[1]))
        passed("record", "round, commitment, nonce, players, client seeds and first bidder are "
               "the published game's")

        # seat: the player's own seed is in the receipt, in their seat.
        if seat is not None:
            mine = my_seed.encode("utf-8")
            if r["client_seeds"][seat - 1] != mine:
                raise Failed("seat", "the receipt's client seed of seat %d is %s, not yours, %s"
                             % (seat, _seed_text(r["client_seeds"][seat - 1]), _seed_text(mine)))
            passed("seat", "seat %d has your client seed" % seat)

        # shown commitment: the commitment the player was shown for this round, before they
        # gave their seed, is the receipt's (a seed given under another commitment, one already
        # revealed for one, is a seed the house could have known the deal of).
        # A receipt of a round the player was shown no commitment for fails too: a house that
        # deals the same seeds at desks the player never saw would relay only the best deal.
        want = shown_commitment(shown, r["round"])
        if want is None and shown:
            raise Failed("shown commitment", "you were shown no commitment for round %d (you gave "
                         "one for round %s only), so this receipt's commitment %s is not one you "
                         "gave your seed under" % (r["round"], ", ".join(
                             str(n) for n in sorted(k for k in shown if k is not None)),
                             r["commitment"].hex()))
        if want is not None:
            if r["commitment"] != want:
                raise Failed("shown commitment", "the receipt's commitment for round %d is %s, "
                             "but you were shown %s before you gave your seed"
                             % (r["round"], r["commitment"].hex(), want.hex()))
            passed("shown commitment", "the commitment is the one you were shown for round %d"
                   % r["round"])
        else:
            state["unshown"] = True
            done.append({"check": "shown commitment", "result": INCOMPLETE, "why": NOT_SHOWN})

        # house seats: a seat the house plays has the empty seed, fixed with the commitment.
        rnd = pub["rounds"].get(r["round"])
        if rnd is None:
            raise Failed("house seats", "round %d is not in the publication, so its rules (house "
                         "seats, chain protocol) are not known" % r["round"])
        for s in rnd["house_seats"]:
            if r["client_seeds"][s - 1]:
                raise Failed("house seats", "seat %d is a house seat of round %d, yet its client "
                             "seed is %s, not empty" % (s, r["round"], _seed_text(r["client_seeds"][s - 1])))
        # Your own seat (--seat, or the seat naming --player) declared the house's: the house
        # chose your deal alone, your seed counted for nothing.
        mine = sorted({seat} if seat is not None else set()
                      | {k + 1 for k, p in enumerate(r["players"]) if player is not None and p == player})
        yours = [s for s in mine if s in rnd["house_seats"]]
        if yours:
            raise Failed("house seats", "YOUR SEAT %d IS A HOUSE SEAT of round %d: the house "
                         "declared your own seat its own, so your seed counted for nothing and the "
                         "house alone chose this deal" % (yours[0], r["round"]))
        passed("house seats", "house seats %s have the empty seed" % (rnd["house_seats"] or "none"))

        # chain: nothing up to this game changed since the player got the receipt.
        for k in range(i + 1):
            if chain[k][1]:
                raise Failed("chain", chain[k][1])
        if chain[i][0] != r["chain_hash"]:
            raise Failed("chain", "the receipt's chain_hash is %s, but the published games "
                         "recompute to %s for game %d: this game or one before it is not what was "
                         "dealt" % (r["chain_hash"].hex(), chain[i][0].hex(), g["game"]))
        passed("chain", "the %d published games up to this one recompute to the receipt's "
               "chain_hash" % (i + 1))

        # nonce: under this round, the games before it have nonces 0 .. nonce-1, each once.
        before = collections.Counter(x["nonce"] for x in pub["games"][:i] if x["round"] == r["round"])
        below = {n for n in before if n < r["nonce"]}
        if sum(before.values()) != r["nonce"] or len(below) != r["nonce"]:
            twice = sorted(n for n, c in before.items() if c > 1)
            later = sorted(n for n in before if n >= r["nonce"])
            missing, n = [], 0
            while len(below) + len(missing) < r["nonce"] and len(missing) < 10:
                if n not in below:
                    missing.append(n)
                n += 1
            what = []
            if missing:
                what.append("nonce %s missing" % ", ".join(map(str, missing)))
            if twice:
                what.append("nonce %s used more than once" % ", ".join(map(str, twice)))
            if later:
                what.append("nonce %s already used" % ", ".join(map(str, later)))
            raise Failed("nonce", "before nonce %d, round %d's games have %s" % (
                r["nonce"], r["round"], "; ".join(what)))
        passed("nonce", "round %d's games before it have nonces 0 to %d, each once"
               % (r["round"], r["nonce"] - 1) if r["nonce"] else "the round's first game")

        # commitment: the round was committed with it, and the revealed seed is its preimage.
        if rnd["commitment"] != r["commitment"]:
            raise Failed("commitment", "round %d is published with commitment %s, not the "
                         "receipt's %s" % (r["round"], rnd["commitment"].hex(), r["commitment"].hex()))
        seed = rnd["server_seed"]
        if seed is None:
            if r["round"] in left_without_reveal(pub):
                raise Failed("commitment", "round %d was left without a reveal: a later round was "
                             "committed, yet its server seed is not published, so this game can "
                             "never be checked" % r["round"])
            late = overdue(pub, r["round"])
            state["revealed"], state["late"] = (OVERDUE if late else False), late
            done.append({"check": "commitment", "result": OVERDUE if late else NOT_REVEALED,
                         "why": late or "round %d is published with this commitment; its server "
                         "seed is not published yet" % r["round"]})
        else:
            if commitment_of(seed) != rnd["commitment"]:
                raise Failed("commitment", "SHA-256 of round %d's published server seed is %s, "
                             "not its commitment %s" % (r["round"], commitment_of(seed).hex(),
                                                        rnd["commitment"].hex()))
            passed("commitment", "SHA-256 of round %d's published server seed is the commitment"
                   % r["round"])

        # deal: the cards and first bidder are the ones the seeds and nonce give.
        if seed is None:
            done.append({"check": "deal", "result": NOT_REVEALED,
                         "why": "the deal is recomputed once the server seed is published"})
        else:
            d = verify(seed, r["client_seeds"], r["nonce"])
            want = [d["p1_cards"], d["p2_cards"], d["p3_cards"], d["extra_cards"]]
            for name, got, w in zip(("seat 1's cards", "seat 2's cards", "seat 3's cards",
                                     "the extra cards"), g["cards"], want):
                if got != w:
                    raise Failed("deal", "%s are published as %s, the seeds and nonce deal %s"
                                 % (name, ",".join(map(str, got)), ",".join(map(str, w))))
            if g["leader"] != d["leader"]:
                raise Failed("deal", "the first bidder is published as seat %d, the seeds and "
                             "nonce give seat %d" % (g["leader"], d["leader"]))
            passed("deal", "the cards and first bidder are those of the seeds and nonce")
    except Failed as f:
        done.append({"check": f.check, "result": FAILED, "why": f.why})
        return {"game": r["game"], "round": r["round"], "nonce": r["nonce"], "result": FAILED,
                "check": f.check, "why": f.why, "checks": done}
    if state["revealed"] == OVERDUE:
        return {"game": r["game"], "round": r["round"], "nonce": r["nonce"], "result": OVERDUE,
                "check": "commitment", "why": state["late"], "checks": done}
    if state.get("unshown"):
        # Every check passed but the one that needs the commitments you were shown.
        return {"game": r["game"], "round": r["round"], "nonce": r["nonce"], "result": INCOMPLETE,
                "check": "shown commitment", "why": NOT_SHOWN, "checks": done}
    result = VERIFIED if state["revealed"] else NOT_REVEALED
    return {"game": r["game"], "round": r["round"], "nonce": r["nonce"], "result": result,
            "check": None, "why": None, "checks": done}


def parse_shown_commitments(values):
    """--commitment values, each ROUND:HEX (the commitment shown for that round) or HEX (the one
    shown for every round not named): {round: bytes, None: bytes}."""
    shown = {}
    for v in values:
        head, sep, tail = v.strip().partition(":")
        if sep:
            if not re.fullmatch(r"-?[0-9]+", head.strip()):
                raise BadInput("--commitment is ROUND:HEX or HEX, and %r is no round number" % head)
            rnd = int(head.strip())
            if not -2**31 <= rnd < 2**31:
                raise BadInput("--commitment: a round is a 32-bit integer, not %d" % rnd)
            hexpart = tail
        else:
            rnd, hexpart = None, head
        c = parse_hex32(hexpart, "commitment you were shown" + ("" if rnd is None else " for round %d" % rnd))
        if rnd in shown and shown[rnd] != c:
            raise BadInput("--commitment names %s twice, with two commitments; give %s once"
                           % ("the commitment of every round" if rnd is None else "round %d" % rnd,
                              "HEX" if rnd is None else "ROUND:HEX"))
        shown[rnd] = c
    return shown


def shown_commitment(shown, rnd):
    """The commitment the player was shown for a round, or None when they gave none for it."""
    if not shown:
        return None
    return shown.get(rnd, shown.get(None))


def withheld_games(pub, player, receipts):
    """Every published game that names the player in a seat and whose receipt (of this desk) is
    not among those given: [{game, round, nonce, seats}] in chain order."""
    held = {r["game"] for r in receipts if r["desk"] == pub["desk"]}
    out = []
    for g in pub["games"]:
        seats = [k + 1 for k, p in enumerate(g["players"]) if p == player]
        if seats and g["game"] not in held:
            out.append({"game": g["game"], "round": g["round"], "nonce": g["nonce"], "seats": seats})
    return out


def withheld_line(w):
    seats = w["seats"]
    return "withheld: game %d (round %s, nonce %d), %s" % (
        w["game"], "none" if w["round"] is None else w["round"], w["nonce"],
        "seat %d" % seats[0] if len(seats) == 1
        else "seats %s and %d" % (", ".join(map(str, seats[:-1])), seats[-1]))


def seeded_rounds(pub, receipts, shown):
    """The rounds the player gave a seed under: those of their receipts (of this desk), those
    they name a commitment shown for (ROUND:HEX), and those published with a commitment they
    were shown for every round not named (HEX)."""
    rounds = {r["round"] for r in receipts if r["desk"] == pub["desk"]}
    rounds |= {n for n in (shown or {}) if n is not None}
    bare = (shown or {}).get(None)
    if bare is not None:
        rounds |= {n for n, rnd in pub["rounds"].items() if rnd["commitment"] == bare}
    return rounds


def _iso(t):
    return None if t is None else t.isoformat()


def ended_early(pub, rounds):
    """Every round among these that ended before its bound: its server seed is published (it was
    revealed, or left by fair_mode_off) with fewer games than its max_deals, and it has no
    reveal_by or was revealed before it by the house's clock (revealed_at; none published counts
    as before). [{round, commitment, games, max_deals, reveal_by, revealed_at, avoided}] in
    round order; avoided is the deal the round did not make (nonce = its number of games) from
    its revealed seed, with its last game's players and client seeds, or None without a game."""
    out = []
    for n in sorted(rounds):
        rnd = pub["rounds"].get(n)
        if rnd is None or rnd["server_seed"] is None or rnd["max_deals"] is None:
            continue
        games = [g for g in pub["games"] if g["round"] == n]
        due, at = rnd["reveal_by"], rnd["revealed_at"]
        if len(games) >= rnd["max_deals"] or (due is not None and at is not None and at >= due):
            continue
        out.append({"round": n, "commitment": rnd["commitment"].hex(), "games": len(games),
                    "max_deals": rnd["max_deals"], "reveal_by": _iso(due), "revealed_at": _iso(at),
                    "avoided": avoided_deal(rnd, games)})
    return out


def avoided_deal(rnd, games):
    """The deal a round would have made next: nonce = its number of games, from its revealed
    seed and the players and client seeds of its last game (the seeds its seats held)."""
    seed = rnd["server_seed"]
    if not games or commitment_of(seed) != rnd["commitment"] or len(games) > MAX_NONCE:
        return None
    last = max(games, key=lambda g: g["nonce"])
    d = verify(seed, last["client_seeds"], len(games))
    return {"nonce": len(games), "players": last["players"],
            "client_seeds": [s.hex() for s in last["client_seeds"]],
            "cards": [d["p1_cards"], d["p2_cards"], d["p3_cards"], d["extra_cards"]],
            "leader": d["leader"]}


def ended_early_line(e):
    when = ("before its reveal_by %s" % e["reveal_by"] if e["reveal_by"] else "with no reveal_by")
    at = e["revealed_at"] or "a time not published"
    head = ("ended early: round %d (commitment %s) was revealed at %s (the house's clock) %s, "
            "after %d of its %d deals" % (e["round"], e["commitment"], at, when, e["games"],
                                          e["max_deals"]))
    a = e["avoided"]
    if a is None:
        return head + "; no game was dealt under it, so the deal it avoided cannot be shown"
    hands = "; ".join("seat %d (player %s): %s" % (k + 1, a["players"][k], " ".join(
        card_label(c) for c in ddz_sort(a["cards"][k]))) for k in range(3))
    return (head + "; the deal it avoided (nonce %d, with the seeds of its last game): %s; extra: "
            "%s; first bidder seat %d" % (a["nonce"], hands, " ".join(
                card_label(c) for c in ddz_sort(a["cards"][3])), a["leader"]))


# --- what the player saw before: kept rounds, against a fork ---------------------------------------

def read_kept(path):
    """The rounds kept by earlier checks (--keep FILE): {(desk, commitment hex): entry}; a file
    that does not exist yet keeps nothing."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as e:
        raise BadInput("cannot read --keep %s: %s" % (path, e))
    try:
        data = json.loads(text, object_pairs_hook=_one_of_each_key)
    except ValueError as e:
        raise BadInput("--keep %s is not JSON: %s" % (path, e))
    kept = {}
    for i, k in enumerate(_list(_object(data, "--keep " + path), "rounds", "--keep " + path)):
        w = "--keep %s: rounds[%d]" % (path, i)
        _object(k, w)
        entry = {"desk": _int(k, "desk", w, -2**31, 2**31 - 1), "round": _int(k, "round", w, -2**31, 2**31 - 1),
                 "commitment": _hex(k, "commitment", w, 32).hex(), "games": _int(k, "games", w, 0),
                 "last_chain_hash": None if k.get("last_chain_hash") is None
                 else _hex(k, "last_chain_hash", w, 32).hex()}
        kept[(entry["desk"], entry["commitment"])] = entry
    return kept


def round_seen(pub, n):
    """What is kept of a published round: its games' count and its last game's chain hash."""
    rnd = pub["rounds"][n]
    games = [g for g in pub["games"] if g["round"] == n]
    last = games[-1]["chain_hash"] if games else None
    return {"desk": pub["desk"], "round": n, "commitment": rnd["commitment"].hex(),
            "games": len(games), "last_chain_hash": None if last is None else last.hex()}


def forked(pub, receipts, kept):
    """Every game a publication or receipt shows under a round kept as revealed that is not
    among the games kept: another count of games or another last chain hash, or a receipt past
    the kept games. [{round, commitment, why}]."""
    out = []
    for n in sorted(pub["rounds"]):
        seen = round_seen(pub, n)
        k = kept.get((pub["desk"], seen["commitment"]))
        if k is not None and (seen["games"], seen["last_chain_hash"]) != (k["games"], k["last_chain_hash"]):
            out.append({"round": n, "commitment": seen["commitment"], "why": (
                "the publication shows %d games under round %d ending in chain hash %s, but you "
                "kept it revealed with %d games ending in %s: the house dealt under a revealed "
                "round (a copy of its server), or rewrote it" % (
                    seen["games"], n, seen["last_chain_hash"], k["games"], k["last_chain_hash"]))})
    for r in receipts:
        k = kept.get((r["desk"], r["commitment"].hex()))
        if k is None:
            continue
        last = r["nonce"] == k["games"] - 1
        if r["nonce"] >= k["games"] or (last and r["chain_hash"].hex() != k["last_chain_hash"]):
            out.append({"round": r["round"], "commitment": k["commitment"], "why": (
                "the receipt of game %d (round %d, nonce %d) is not among the %d games you kept "
                "of the round when it was revealed: it was dealt under a revealed round"
                % (r["game"], r["round"], r["nonce"], k["games"]))})
    return out


def write_kept(path, pub, kept):
    """Adds every revealed round of the publication not kept yet, and writes the file whole."""
    for n, rnd in pub["rounds"].items():
        if rnd["server_seed"] is not None:
            seen = round_seen(pub, n)
            kept.setdefault((seen["desk"], seen["commitment"]), seen)
    rounds = sorted(kept.values(), key=lambda e: (e["desk"], e["round"], e["commitment"]))
    tmp = path + ".tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump({"rounds": rounds}, f, indent=1)
            f.write("\n")
        os.replace(tmp, path)
    except OSError as e:
        raise BadInput("cannot write --keep %s: %s" % (path, e))


def games_naming(pub, player):
    return sum(1 for g in pub["games"] if player in g["players"])


# Options whose value is any text: the word after them is their value even when it starts
# with "-" (a client seed "-x", a player -42), which argparse would take for an option.
VALUE_OPTIONS = ("--client-seed", "--my-seed", "--player", "--commitment")


def join_values(argv):
    out, i = [], 0
    while i < len(argv):
        if argv[i] == "--":
            out += argv[i:]
            break
        if argv[i] in VALUE_OPTIONS and i + 1 < len(argv):
            out.append(argv[i] + "=" + argv[i + 1])
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out


def _one_of_each_key(pairs):
    """A JSON object, refused when it names a key twice (which of the two would count?)."""
    obj = {}
    for k, v in pairs:
        if k in obj:
            raise ValueError("the key %s twice in one object" % json.dumps(k))
        obj[k] = v
    return obj


def read_json_values(path):
    """The JSON values of a file (or of stdin for "-"): one, or several one after another (as
    psql prints fair_receipt results, one a line)."""
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as f:
                text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise BadInput("cannot read %s: %s" % (path, e))
    decoder, values, pos = json.JSONDecoder(object_pairs_hook=_one_of_each_key), [], 0
    while True:
        while pos < len(text) and text[pos] in " \t\r\n":
            pos += 1
        if pos == len(text):
            break
        try:
            v, pos = decoder.raw_decode(text, pos)
        except (ValueError, RecursionError) as e:
            raise BadInput("%s is not JSON: %s" % (path, e))
        values.append(v)
    if not values:
        raise BadInput("%s holds no JSON" % path)
    return values


def receipts_main(argv):
    ap = argparse.ArgumentParser(
        prog="verify_deal.py receipts",
        description="Check players' receipts (deal_cards' notifications, or fair_receipt's) against the house's "
                    "publication (fair_publication(desk)).")
    ap.add_argument("--publication", required=True, metavar="PUB.json",
                    help="what fair_publication(desk) returned")
    ap.add_argument("receipts", nargs="+", metavar="RECEIPT.json",
                    help="a file of receipts: one, several one after another, or lists of them; - for stdin")
    ap.add_argument("--seat", type=int, choices=(1, 2, 3), help="your seat, with --my-seed")
    ap.add_argument("--my-seed", metavar="TEXT", help="the client seed you set, as you typed it "
                    "(the word after --my-seed, even one starting with -)")
    ap.add_argument("--player", metavar="ID",
                    help="your player id: list every published game naming you whose receipt is "
                         "not given (withheld)")
    ap.add_argument("--commitment", action="append", default=[], metavar="[ROUND:]HEX",
                    help="the commitment you were shown before you gave your seed: ROUND:HEX for "
                         "that round (once per round), HEX for every round not named")
    ap.add_argument("--keep", metavar="FILE",
                    help="a JSON file of the revealed rounds seen by earlier checks (created if "
                         "missing, updated): a publication or receipt with a game under a kept "
                         "round that is not among its kept games fails as forked")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    a = ap.parse_args(join_values(argv))
    try:
        if (a.seat is None) != (a.my_seed is None):
            raise BadInput("--seat and --my-seed go together")
        if a.my_seed is not None:
            encode_client_seed(a.my_seed)
        player = None
        if a.player is not None:
            t = a.player.strip()
            if not re.fullmatch(r"-?[0-9]+", t):
                raise BadInput("--player is your player id, an integer, not %r" % a.player)
            player = int(t)
            if not -2**63 <= player < 2**63:
                raise BadInput("--player is a 64-bit integer, not %s" % t)
        shown = parse_shown_commitments(a.commitment)
        pubs = read_json_values(a.publication)
        if len(pubs) != 1:
            raise BadInput("%s holds %d JSON values, not one publication" % (a.publication, len(pubs)))
        pub = parse_publication(pubs[0], a.publication)
        receipts = []
        for path in a.receipts:
            values = [x for v in read_json_values(path) for x in (v if isinstance(v, list) else [v])]
            for k, v in enumerate(values):
                name = "stdin" if path == "-" else path
                label = name if len(values) == 1 else "%s #%d" % (name, k + 1)
                receipts.append((label, parse_receipt(v, label)))
        kept = read_kept(a.keep) if a.keep is not None else None
    except BadInput as e:
        print("verify_deal.py: %s" % e, file=sys.stderr)
        return 2
    out = check_all(pub, [r for _, r in receipts], a.seat, a.my_seed, player, shown, kept)
    for x, (label, _) in zip(out["receipts"], receipts):
        x["receipt"] = label
    if kept is not None and not out["forked"]:
        try:
            write_kept(a.keep, pub, kept)
        except BadInput as e:
            print("verify_deal.py: %s" % e, file=sys.stderr)
            return 2
    if a.json:
        print(json.dumps(out, ensure_ascii=False))
    else:
        print_receipts(out, pub, player)
    return out["exit"]


ENDED_EARLY, FORKED = "ended early", "forked"


def check_all(pub, receipts, seat=None, my_seed=None, player=None, shown=None, kept=None):
    """Every check of receipts against a publication, as --json prints it: per receipt, the
    desk, the games withheld (with a player id), the rounds the player seeded that ended early,
    what differs from the rounds kept (with kept rounds), what is missing, and the exit status:
    1 failed, overdue, withheld or forked; 5 ended early; 4 incomplete; 3 not revealed yet;
    0 verified."""
    chain = walk_chain(pub)
    results = [check_receipt(pub, r, seat, my_seed, chain, shown, player) for r in receipts]
    desk = check_desk(pub, chain)
    withheld = None if player is None else withheld_games(pub, player, receipts)
    early = ended_early(pub, seeded_rounds(pub, receipts, shown))
    fork = None if kept is None else forked(pub, receipts, kept)
    missing = missing_inputs(player, shown)
    outcomes = {x["result"] for x in results} | {desk["result"]}
    status = (1 if FAILED in outcomes or OVERDUE in outcomes or withheld or fork
              else 5 if early
              else 4 if missing or INCOMPLETE in outcomes
              else 3 if NOT_REVEALED in outcomes else 0)
    return {"receipts": results, "desk": desk, "player": player, "withheld": withheld,
            "ended_early": early, "forked": fork, "incomplete": missing or None, "exit": status}


def missing_inputs(player, shown):
    """What the player did not give, without which the check is incomplete (exit status 4):
    their id (for the games withheld from them) and the commitments they were shown."""
    missing = []
    if player is None:
        missing.append("your player id (--player): the games the house dealt you and did not "
                       "relay were not looked for")
    if not shown:
        missing.append("the commitments you were shown (--commitment): no receipt was checked "
                       "against them, so a deal of a desk or round you never saw passes")
    return missing


def print_receipts(out, pub, player):
    results, desk, withheld, missing = out["receipts"], out["desk"], out["withheld"], out["incomplete"]
    for x in results:
        line = "%s: game %d (round %d, nonce %d): %s" % (x["receipt"], x["game"], x["round"],
                                                         x["nonce"], x["result"])
        print(line + (": %s: %s" % (x["check"], x["why"]) if x["check"] else ""))
    if withheld is not None:
        for w in withheld:
            print(withheld_line(w))
        if not withheld:
            print("player %d: nothing withheld: a receipt was given for each of the %d "
                  "published games that name you" % (player, games_naming(pub, player)))
    for e in out["ended_early"]:
        print(ended_early_line(e))
    for f in out["forked"] or ():
        print("forked: round %d (commitment %s): %s" % (f["round"], f["commitment"], f["why"]))
    print(desk_line(desk, pub))
    if missing:
        print("incomplete: not given: %s" % "; ".join(missing))


def desk_line(desk, pub):
    if desk["result"] == VERIFIED:
        return ("desk %d: verified: the chain of %d published games recomputes to chain_head%s; "
                "no round was left without a reveal"
                % (desk["desk"], desk["games"],
                   " " + pub["chain_head"].hex() if pub["chain_head"] else " (none: no games)"))
    return "desk %d: failed: %s" % (desk["desk"], "; ".join("%s: %s" % (p["check"], p["why"])
                                                             for p in desk["problems"]))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["receipts"]:
        return receipts_main(argv[1:])
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--server-seed", help="the revealed server seed, 64 hex digits")
    ap.add_argument("--client-seed", action="append", default=[],
                    help="a client seed, for seats 1, 2, 3 in this order (give it three times)")
    ap.add_argument("--nonce", required=True, help="the deal number under the commitment")
    ap.add_argument("--commitment", help="the published commitment, 64 hex digits")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--chain", action="store_true", help="print the chain_hash of one game")
    ap.add_argument("--prev-hash", default="00" * 32, help="--chain: the previous game's chain_hash")
    ap.add_argument("--desk", type=int, help="--chain: the desk id")
    ap.add_argument("--cards", help="--chain: the 54 recorded cards, comma-separated")
    ap.add_argument("--leader", type=int, help="--chain: the recorded first bidder")
    ap.add_argument("--player", action="append", default=[],
                    help="--chain: the player of seats 1, 2, 3 in this order (three times), for "
                         "protocols 2 and 3")
    ap.add_argument("--rules", help="--chain: the round's rules as published, for protocol 3: "
                                    "a JSON object with house_seats, seeds_required, max_deals "
                                    "and reveal_by")
    a = ap.parse_args(join_values(argv))
    try:
        nonce = parse_nonce(a.nonce)
        if len(a.client_seed) != 3:
            raise BadInput("give --client-seed three times (seats 1, 2, 3; '' for none), got %d"
                           % len(a.client_seed))
        for s in a.client_seed:
            encode_client_seed(s)
        commitment = parse_hex32(a.commitment, "commitment") if a.commitment is not None else None
        seed = parse_hex32(a.server_seed, "server seed") if a.server_seed is not None else None
        if a.chain:
            return chain_main(a, seed, commitment, nonce)
        if seed is None:
            raise BadInput("--server-seed is required")
    except BadInput as e:
        print("verify_deal.py: %s" % e, file=sys.stderr)
        return 2
    r = verify(seed, a.client_seed, nonce, commitment)
    if a.json:
        print(json.dumps(r, ensure_ascii=False))
    else:
        print_deal(r, commitment)
    return 1 if r["commitment_matches"] is False else 0


def chain_main(a, seed, commitment, nonce):
    if a.desk is None or commitment is None:
        raise BadInput("--chain needs --desk and --commitment")
    prev = parse_hex32(a.prev_hash, "previous chain hash")
    if a.cards is not None:
        if a.leader is None:
            raise BadInput("--chain with --cards needs --leader")
        p1, p2, p3, extra = parse_cards(a.cards)
        leader = a.leader
    elif seed is not None:
        r = verify(seed, a.client_seed, nonce, commitment)
        if not r["commitment_matches"]:
            raise BadInput("SHA-256(server seed) is not the commitment")
        p1, p2, p3, extra, leader = r["p1_cards"], r["p2_cards"], r["p3_cards"], r["extra_cards"], r["leader"]
    else:
        raise BadInput("--chain needs the recorded --cards and --leader, or --server-seed")
    players = None
    if a.player:
        if len(a.player) != 3:
            raise BadInput("give --player three times (seats 1, 2, 3), or not at all, got %d" % len(a.player))
        try:
            players = [int(p) for p in a.player]
        except ValueError:
            raise BadInput("a player is an integer, not one of %r" % (a.player,))
    rules = None
    if a.rules is not None:
        if players is None:
            raise BadInput("--rules (protocol 3) needs --player three times")
        rules = parse_rules(a.rules)
    h = chain_hash(prev, a.desk, commitment, nonce, a.client_seed, p1, p2, p3, extra, leader,
                   players, rules).hex()
    if a.json:
        print(json.dumps({"chain_hash": h}))
    else:
        print("chain_hash: %s" % h)
    return 0


def parse_rules(text):
    """--rules: a round's rules as the publication gives them (its other keys are ignored)."""
    try:
        r = json.loads(text, object_pairs_hook=_one_of_each_key)
    except ValueError as e:
        raise BadInput("--rules is a JSON object: %s" % e)
    where = "--rules"
    _object(r, where)
    rnd = {"house_seats": [_int(s, None, "%s: house_seats[%d]" % (where, j), 1, 3)
                           for j, s in enumerate(_list(r, "house_seats", where))],
           "seeds_required": _bool(r, "seeds_required", where),
           "max_deals": _int(r, "max_deals", where, 1),
           "reveal_by": _time(r, "reveal_by", where)}
    return rules_of(rnd, where)


if __name__ == "__main__":
    sys.exit(main())
