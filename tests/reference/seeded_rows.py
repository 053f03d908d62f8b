#!/usr/bin/env python3
"""An independent implementation of dealcards' seeded row samples and shuffles, written from
docs/rows.md's specification alone: the row key is SipHash-2-4 of a value's bytes under the
first 16 bytes of the seed's ChaCha20 stream (RFC 8439, zero nonce, counter from 0); a seeded
shuffle is every value ordered by (key, bytes), a seeded sample of k its first k; shuffle_key is
the key with its top bit flipped, read as a signed 64-bit number.

    seeded_rows.py key SEED_HEX TYPE VALUE             prints the key of one value, in hex
    seeded_rows.py sample K SEED_HEX TYPE VALUE...     prints the sample as a Postgres array
    seeded_rows.py shuffle SEED_HEX TYPE VALUE...      prints the shuffle as a Postgres array
    seeded_rows.py shuffle_key SEED_HEX TYPE VALUE...  prints shuffle_key of each value, one a line

TYPE is int4 or int8 (little-endian two's complement bytes) or text (its UTF-8 bytes); for
shuffle_key also int2, varchar, name and bpchar (char(n)), taken as shuffle_key takes them.
The golden outputs pinned in the tests come from this program, not from the extension."""
import struct
import sys

MASK32 = 0xFFFFFFFF
MASK64 = 0xFFFFFFFFFFFFFFFF


def rotl32(v, c):
    return ((v << c) & MASK32) | (v >> (32 - c))


def quarter_round(s, a, b, c, d):
    s[a] = (s[a] + s[b]) & MASK32; s[d] = rotl32(s[d] ^ s[a], 16)
    s[c] = (s[c] + s[d]) & MASK32; s[b] = rotl32(s[b] ^ s[c], 12)
    s[a] = (s[a] + s[b]) & MASK32; s[d] = rotl32(s[d] ^ s[a], 8)
    s[c] = (s[c] + s[d]) & MASK32; s[b] = rotl32(s[b] ^ s[c], 7)


def chacha20_block(key, counter, nonce=b"\0" * 12):
    """RFC 8439 section 2.3: the 64 bytes of one block."""
    const = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574]
    key_words = list(struct.unpack("<8I", key))
    nonce_words = list(struct.unpack("<3I", nonce))
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
    return struct.pack("<16I", *[(w + s) & MASK32 for w, s in zip(working, state)])


def rotl64(v, c):
    return ((v << c) & MASK64) | (v >> (64 - c))


def sipround(v0, v1, v2, v3):
    v0 = (v0 + v1) & MASK64; v1 = rotl64(v1, 13); v1 ^= v0; v0 = rotl64(v0, 32)
    v2 = (v2 + v3) & MASK64; v3 = rotl64(v3, 16); v3 ^= v2
    v0 = (v0 + v3) & MASK64; v3 = rotl64(v3, 21); v3 ^= v0
    v2 = (v2 + v1) & MASK64; v1 = rotl64(v1, 17); v1 ^= v2; v2 = rotl64(v2, 32)
    return v0, v1, v2, v3


def siphash24(key16, message):
    """SipHash-2-4 (Aumasson and Bernstein), as in the paper's reference code."""
    k0, k1 = struct.unpack("<QQ", key16)
    v0 = k0 ^ 0x736F6D6570736575
    v1 = k1 ^ 0x646F72616E646F6D
    v2 = k0 ^ 0x6C7967656E657261
    v3 = k1 ^ 0x7465646279746573
    tail = len(message) % 8
    padded = message[:len(message) - tail] + message[len(message) - tail:] + b"\0" * (7 - tail) \
        + bytes([len(message) & 0xFF])
    for i in range(0, len(padded), 8):
        m = struct.unpack("<Q", padded[i:i + 8])[0]
        v3 ^= m
        v0, v1, v2, v3 = sipround(v0, v1, v2, v3)
        v0, v1, v2, v3 = sipround(v0, v1, v2, v3)
        v0 ^= m
    v2 ^= 0xFF
    for _ in range(4):
        v0, v1, v2, v3 = sipround(v0, v1, v2, v3)
    return v0 ^ v1 ^ v2 ^ v3


def row_key(seed):
    assert len(seed) == 32
    return chacha20_block(seed, 0)[:16]


def value_bytes(kind, text):
    if kind == "int4":
        return struct.pack("<i", int(text))
    if kind == "int8":
        return struct.pack("<q", int(text))
    if kind == "text":
        return text.encode("utf-8")
    raise SystemExit("unknown type " + kind)


def key_bytes(kind, text):
    """The bytes shuffle_key hashes for a key of SQL type `kind` (docs/rows.md, "shuffle_key's
    keys of every type"): smallint and integer keys are taken as bigint; varchar, name and
    char(n) keys as text, char(n) without its trailing spaces; a domain as its base type."""
    if kind in ("int2", "int4", "int8"):
        return struct.pack("<q", int(text))
    if kind in ("text", "varchar", "name"):
        return text.encode("utf-8")
    if kind == "bpchar":
        return text.rstrip(" ").encode("utf-8")
    raise SystemExit("unknown key type " + kind)


def seeded_shuffle(seed, values):
    key = row_key(seed)
    return sorted(values, key=lambda v: (siphash24(key, v[1]), v[1]))


def shuffle_key(seed, data):
    """The key as a signed number whose order is the key's unsigned order: top bit flipped."""
    flipped = siphash24(row_key(seed), data) ^ (1 << 63)
    return flipped - (1 << 64) if flipped >= 1 << 63 else flipped


def literal(values):
    return "{" + ",".join(text for text, _ in values) + "}"


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "key":
        seed, kind, text = bytes.fromhex(sys.argv[2]), sys.argv[3], sys.argv[4]
        print("%016x" % siphash24(row_key(seed), value_bytes(kind, text)))
    elif command == "sample":
        k, seed, kind = int(sys.argv[2]), bytes.fromhex(sys.argv[3]), sys.argv[4]
        values = [(t, value_bytes(kind, t)) for t in sys.argv[5:]]
        print(literal(seeded_shuffle(seed, values)[:k]))
    elif command == "shuffle":
        seed, kind = bytes.fromhex(sys.argv[2]), sys.argv[3]
        values = [(t, value_bytes(kind, t)) for t in sys.argv[4:]]
        print(literal(seeded_shuffle(seed, values)))
    elif command == "shuffle_key":
        seed, kind = bytes.fromhex(sys.argv[2]), sys.argv[3]
        for text in sys.argv[4:]:
            print(shuffle_key(seed, key_bytes(kind, text)))
    else:
        raise SystemExit(__doc__)
