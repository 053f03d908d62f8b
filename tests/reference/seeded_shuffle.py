#!/usr/bin/env python3
"""An independent implementation of dealcards' seeded shuffle, written from docs/shuffle_ints.md's
specification alone (RFC 8439 ChaCha20 block function, Lemire's bounded draw, Fisher-Yates).

    seeded_shuffle.py LO HI SEED_HEX      prints the permutation as a Postgres array literal

The golden outputs pinned in the tests come from this program, not from the extension."""
import sys

MASK = 0xFFFFFFFF


def rotl(v, c):
    return ((v << c) & MASK) | (v >> (32 - c))


def quarter_round(s, a, b, c, d):
    s[a] = (s[a] + s[b]) & MASK; s[d] = rotl(s[d] ^ s[a], 16)
    s[c] = (s[c] + s[d]) & MASK; s[b] = rotl(s[b] ^ s[c], 12)
    s[a] = (s[a] + s[b]) & MASK; s[d] = rotl(s[d] ^ s[a], 8)
    s[c] = (s[c] + s[d]) & MASK; s[b] = rotl(s[b] ^ s[c], 7)


def chacha20_block(key, counter, nonce=b"\0" * 12):
    """RFC 8439 section 2.3: 16 output words of one block."""
    const = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574]
    key_words = [int.from_bytes(key[i:i + 4], "little") for i in range(0, 32, 4)]
    nonce_words = [int.from_bytes(nonce[i:i + 4], "little") for i in range(0, 12, 4)]
    state = const + key_words + [counter] + nonce_words
    working = list(state)
    for _ in range(10):
        quarter_round(working, 0, 4, 8, 12)
        quarter_round(working, 1, 5, 9, 13)
        quarter_round(working, 2, 6, 10, 14)
        quarter_round(working, 3, 7, 11, 15)
        quarter_round(working, 0, 5, 10, 15)
        quarter_round(working, 1, 6, 11, 12)
        quarter_round(working, 2, 7, 8, 13)
        quarter_round(working, 3, 4, 9, 14)
    return [(w + s) & MASK for w, s in zip(working, state)]


class Stream:
    def __init__(self, key):
        assert len(key) == 32
        self.key, self.counter, self.words = key, 0, []

    def next_u32(self):
        if not self.words:
            self.words = chacha20_block(self.key, self.counter)
            self.counter += 1
        return self.words.pop(0)

    def next_u64(self):
        low = self.next_u32()
        return low | (self.next_u32() << 32)

    def below(self, bound):
        """Uniform in 0..bound: Lemire's multiply-and-reject."""
        bits, draw = (32, self.next_u32) if bound <= MASK else (64, self.next_u64)
        size = 1 << bits
        product = draw() * bound
        if product % size < bound:
            threshold = (size - bound) % bound
            while product % size < threshold:
                product = draw() * bound
        return product >> bits


def fisher_yates(items, stream):
    for i in range(len(items) - 1, 0, -1):
        j = stream.below(i + 1)
        items[i], items[j] = items[j], items[i]
    return items


def shuffle_ints(lo, hi, key):
    return fisher_yates(list(range(lo, hi + 1)), Stream(key))


if __name__ == "__main__":
    lo, hi, seed = int(sys.argv[1]), int(sys.argv[2]), bytes.fromhex(sys.argv[3])
    print("{" + ",".join(map(str, shuffle_ints(lo, hi, seed))) + "}")
