#!/usr/bin/env python3
"""An independent implementation of dealcards' seeded sample_ints, shuffle_array and
sample_array, written from the specification in docs/arrays.md alone, on top of the stream and
Fisher-Yates of seeded_shuffle.py.

    seeded_sample.py sample_ints LO HI K SEED_HEX        the sample as a Postgres array literal
    seeded_sample.py shuffle_array SEED_HEX ITEM...      the items (array-literal text) shuffled
    seeded_sample.py sample_array K SEED_HEX ITEM...     K of the items

An ITEM is the literal text of one item of the first dimension, e.g. `abc`, `NULL`, `"a b"` or
`{1,2}` for a row of a two-dimensional array; items are only moved, never parsed. The golden
outputs pinned in the tests come from this program, not from the extension."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from seeded_shuffle import Stream, shuffle_ints  # noqa: E402


def sample_ints(lo, hi, k, key):
    """Fisher-Yates over the list lo..hi, stopped after k steps: for t = 0..k-1, i = m-1-t,
    j = below(i+1), swap places i and j. The result is the last k places, in place order. The
    list is never built: `moved` holds the places whose value is no longer lo + place."""
    m = hi - lo + 1
    assert 0 <= k <= m, "k out of range"
    stream = Stream(key)
    moved = {}
    last_places = []
    for t in range(k):
        i = m - 1 - t
        j = stream.below(i + 1)  # for i + 1 = 2**64 this is next_u64(): nothing is rejected
        value_i = moved.get(i, lo + i)
        value_j = moved.get(j, lo + j)
        moved[i], moved[j] = value_j, value_i
        last_places.append(value_j)  # place i is final now
    return last_places[::-1]


def shuffle_array(items, key):
    """Item p of the result is item P[p] of the input, P the seeded shuffle of 0..n-1."""
    return [items[p] for p in shuffle_ints(0, len(items) - 1, key)]


def sample_array(items, k, key):
    """Item p of the result is item S[p] of the input, S the seeded sample of k from 0..n-1."""
    return [items[p] for p in sample_ints(0, len(items) - 1, k, key)]


def literal(values):
    return "{" + ",".join(map(str, values)) + "}"


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    if command == "sample_ints":
        lo, hi, k, seed = int(args[0]), int(args[1]), int(args[2]), bytes.fromhex(args[3])
        print(literal(sample_ints(lo, hi, k, seed)))
    elif command == "shuffle_array":
        print(literal(shuffle_array(args[1:], bytes.fromhex(args[0]))))
    elif command == "sample_array":
        print(literal(sample_array(args[2:], int(args[0]), bytes.fromhex(args[1]))))
    else:
        sys.exit(__doc__)
