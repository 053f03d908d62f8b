#!/usr/bin/env python3
"""An independent implementation of dealcards' seeded shuffle_spread, written from the
specification in docs/spread.md alone, on top of the stream and Fisher-Yates of
seeded_shuffle.py. It follows the specification literally (every group examined at every place,
targets compared as fractions), where the extension uses heaps.

    seeded_spread.py positions SEED_HEX GROUP...     the new order as 1-based input positions
    seeded_spread.py nested SEED_HEX GROUP/SUB...    the same, spread by group and subgroup
    seeded_spread.py spread SEED_HEX N ITEM... GROUP...   the N items (array-literal text) in
                                                      their spread order, then the N groups

Groups are compared as the literal text given, except that each group written NULL is a group
of its own, as in the SQL function. The golden outputs pinned in the tests come from
this program, not from the extension."""
import os
import sys
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from seeded_shuffle import Stream, fisher_yates  # noqa: E402

STRATUM = 2 ** 32
HALF_STRATUM = 2 ** 31


def fewest_still_possible(left, previous):
    """F(r, p): the fewest same-group neighbours the items left can still have."""
    m = sum(left)
    best = 0
    for g, r in enumerate(left):
        best = max(best, 2 * r - m if g == previous else 2 * r - m - 1)
    return best


def spread_positions(groups, key, subgroups=None):
    """The spread order of the items whose groups are given, as 0-based input positions."""
    return spread_order(groups, subgroups, Stream(key))


def spread_order(groups, subgroups, stream):
    n = len(groups)
    if n == 0:
        return []
    # Each NULL group is a group of its own: keyed by its position.
    groups = [("null", i) if g is None else ("value", g) for i, g in enumerate(groups)]
    number = {}
    for g in groups:
        number.setdefault(g, len(number))
    k = len(number)
    members = [[] for _ in range(k)]
    for i, g in enumerate(groups):
        members[number[g]].append(i)
    # 1. Each group's items, in input order, shuffled, or spread by their subgroups (the whole
    # specification again, on the same stream).
    for g in range(k):
        if subgroups is None:
            fisher_yates(members[g], stream)
        else:
            inner = spread_order([subgroups[i] for i in members[g]], None, stream)
            members[g] = [members[g][p] for p in inner]
    # 2. The first group.
    sizes = [len(m) for m in members]
    largest = max(sizes)
    if 2 * largest > n:
        first = sizes.index(largest)
    else:
        first = number[groups[stream.below(n)]]
    # 3. Targets: group g's offset, then the jitters of its items, stratum by stratum.
    target = []
    for g in range(k):
        offset = stream.below(HALF_STRATUM)
        target.append([Fraction(j * STRATUM + offset + stream.below(HALF_STRATUM), sizes[g])
                       for j in range(sizes[g])])
    # 4. The places.
    placed = [0] * k
    order = []
    previous = None
    for place in range(n):
        if place == 0:
            chosen = first
        else:
            left = [sizes[g] - placed[g] for g in range(k)]
            need = fewest_still_possible(left, previous)
            allowed = []
            for x in range(k):
                if left[x] == 0:
                    continue
                after = list(left)
                after[x] -= 1
                if (x == previous) + fewest_still_possible(after, x) == need:
                    allowed.append(x)
            chosen = min(allowed, key=lambda x: (target[x][placed[x]], x))
        order.append(members[chosen][placed[chosen]])
        placed[chosen] += 1
        previous = chosen
    return order


def group_values(texts):
    return [None if t == "NULL" else t for t in texts]


def literal(values):
    return "{" + ",".join(map(str, values)) + "}"


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    if command == "positions":
        key, groups = bytes.fromhex(args[0]), args[1:]
        print(literal(p + 1 for p in spread_positions(group_values(groups), key)))
    elif command == "nested":
        # Each item given as GROUP/SUBGROUP.
        key, pairs = bytes.fromhex(args[0]), [a.split("/", 1) for a in args[1:]]
        groups = group_values([g for g, _ in pairs])
        subgroups = group_values([s for _, s in pairs])
        print(literal(p + 1 for p in spread_positions(groups, key, subgroups)))
    elif command == "spread":
        key, n = bytes.fromhex(args[0]), int(args[1])
        items, groups = args[2:2 + n], args[2 + n:]
        assert len(items) == n == len(groups), "N items and N groups"
        order = spread_positions(group_values(groups), key)
        print(literal(items[p] for p in order))
        print(literal(groups[p] for p in order))
    else:
        sys.exit(__doc__)
