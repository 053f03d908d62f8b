#!/usr/bin/env python3
"""Recompute a provably fair dealcards deal from the revealed server seed, as specified in
docs/provably_fair.md (standard library only; ChaCha20, the bounded draw and the shuffle are
written out here).

  verify_deal.py --server-seed HEX --client-seed A --client-seed B --client-seed C --nonce N
                 [--commitment HEX] [--json]
      the three hands, the extra cards, the first bidder, the key and the commitment check.
      Exit status 1 if --commitment is given and SHA-256(server seed) is not it, 2 on bad input.

  verify_deal.py --chain --desk ID --commitment HEX --nonce N --client-seed A ... (x3)
                 [--prev-hash HEX] (--cards C1,...,C54 --leader L | --server-seed HEX) [--json]
      the chain_hash of one game: its recorded content after the previous game's chain_hash
      (32 zero bytes, the default, for a desk's first fair game).

Hex may be given with a PostgreSQL bytea prefix (\\x) or 0x. Give a seat with no client seed as
--client-seed '', and a client seed that starts with "-" as --client-seed=-seed.
"""
import argparse
import hashlib
import hmac
import json
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
    b = seed.encode("utf-8")
    if len(b) > MAX_CLIENT_SEED_BYTES:
        raise BadInput("a client seed is at most %d bytes in UTF-8; %r is %d"
                       % (MAX_CLIENT_SEED_BYTES, seed[:20] + ("..." if len(seed) > 20 else ""), len(b)))
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


def chain_hash(prev_hash, desk, commitment, nonce, client_seeds, p1, p2, p3, extra, leader):
    """The chain_hash of one fair game (docs/provably_fair.md, "The hash chain of a desk")."""
    if len(prev_hash) != 32 or len(commitment) != 32:
        raise BadInput("the previous chain hash and the commitment are 32 bytes each")
    if not -2**31 <= desk < 2**31:
        raise BadInput("a desk id is a 32-bit integer")
    cards = list(p1) + list(p2) + list(p3) + list(extra)
    if [len(p1), len(p2), len(p3), len(extra)] != [17, 17, 17, 3] or not all(1 <= c <= 54 for c in cards):
        raise BadInput("the hands are 17, 17, 17 and 3 cards from 1..54")
    if leader not in (1, 2, 3):
        raise BadInput("the first bidder is seat 1, 2 or 3")
    # Field by field: unlike M, the chain has the nonce before the client seeds.
    data = (bytes(prev_hash) + desk.to_bytes(4, "big", signed=True) + bytes(commitment)
            + check_nonce(nonce).to_bytes(8, "big")
            + b"".join(encode_client_seed(s) for s in client_seeds)
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


def main(argv=None):
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
    a = ap.parse_args(argv)
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
    h = chain_hash(prev, a.desk, commitment, nonce, a.client_seed, p1, p2, p3, extra, leader).hex()
    if a.json:
        print(json.dumps({"chain_hash": h}))
    else:
        print("chain_hash: %s" % h)
    return 0


if __name__ == "__main__":
    sys.exit(main())
