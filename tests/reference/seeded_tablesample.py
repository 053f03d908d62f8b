#!/usr/bin/env python3
"""An independent implementation of dealcards' repeatable `TABLESAMPLE sparse_bernoulli` and of
the seeded `sample_rows`, written from docs/rows.md's specifications alone ("TABLESAMPLE
sparse_bernoulli, byte for byte" and "Seeded sample_rows, byte for byte"), on top of the
ChaCha20 stream of seeded_shuffle.py and the row key of seeded_rows.py.

    seeded_tablesample.py hashfloat8 VALUE...
        PostgreSQL's 32-bit seed of each REPEATABLE value, as hashfloat8 prints it (int4)
    seeded_tablesample.py tablesample PERCENT VALUE SCHEMA TABLE LAYOUT
        the rows of `TABLESAMPLE sparse_bernoulli (PERCENT) REPEATABLE (VALUE)`
    seeded_tablesample.py sample_rows SEED_HEX K SCHEMA TABLE NAME WIDTH LAYOUT [SCHEMA TABLE NAME LAYOUT]...
        the rows of `sample_rows(NULL::TABLE, K, SEED)`, in the order returned, then on a
        second line the tries it ran (index, rate, rows brought, scan or sample); for a
        partitioned table, each partition in the order of its bounds (all of width WIDTH)

LAYOUT is N/R: rows 1..N stored in that order, R to a page (row i in page (i-1) div R, line
pointer (i-1) mod R + 1), every row visible and nothing else on the pages (a fresh table, its
rows inserted by one statement); N/R@F numbers the rows F..F+N-1 instead (a partition's ids).
NAME is the table's name as `regclass` prints it under sample_rows' search_path (pg_catalog,
pg_temp: `public.t`), what the row keys are made of; WIDTH the sum of its columns' widths
(docs/rows.md). Rows are printed by their number, as a Postgres array. The golden outputs
pinned in the tests come from this program, not from the extension."""
import hashlib
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from seeded_rows import shuffle_key  # noqa: E402
from seeded_shuffle import Stream  # noqa: E402

MASK32 = 0xFFFFFFFF
U64_MAX = 2 ** 64 - 1
SLOTS_PER_PAGE = 291  # MaxHeapTuplesPerPage of 8 kB pages
PAGE_ROOM = 8192 - 24  # a page less its header


# PostgreSQL's hash_bytes (src/common/hashfn.c, Bob Jenkins' lookup3), little-endian machines.
def _rot(x, k):
    return ((x << k) | (x >> (32 - k))) & MASK32


def _final(a, b, c):
    c ^= b; c = (c - _rot(b, 14)) & MASK32
    a ^= c; a = (a - _rot(c, 11)) & MASK32
    b ^= a; b = (b - _rot(a, 25)) & MASK32
    c ^= b; c = (c - _rot(b, 16)) & MASK32
    a ^= c; a = (a - _rot(c, 4)) & MASK32
    b ^= a; b = (b - _rot(a, 14)) & MASK32
    c ^= b; c = (c - _rot(b, 24)) & MASK32
    return a, b, c


def hash_bytes_8(key):
    """hash_bytes of an 8-byte key: two words, no mix (fewer than 12 bytes), then final."""
    assert len(key) == 8
    a = b = c = (0x9E3779B9 + 8 + 3923095) & MASK32
    w0, w1 = struct.unpack("<II", key)
    a = (a + w0) & MASK32
    b = (b + w1) & MASK32
    return _final(a, b, c)[2]


def repeatable_seed(value):
    """The seed PostgreSQL hands a TABLESAMPLE method for REPEATABLE (value): hashfloat8 of the
    value as a float8, read as an unsigned 32-bit number; 0 for zero (either sign), and every
    NaN hashed as the quiet NaN 0x7FF8000000000000."""
    value = float(value)
    if value == 0.0:
        return 0
    if math.isnan(value):
        return hash_bytes_8(struct.pack("<Q", 0x7FF8000000000000))  # C's NAN
    return hash_bytes_8(struct.pack("<d", value))


def repeatable_key(seed32, schema, table):
    h = hashlib.sha256()
    h.update(b"dealcards tablesample slots\0")
    h.update(struct.pack("<I", seed32))
    for name in (schema.encode("utf-8"), table.encode("utf-8")):
        h.update(struct.pack("<I", len(name)))
        h.update(name)
    return h.digest()


def taken_slots(rate, key, pages):
    """The slots (page, line pointer) a sample of `rate` takes among `pages` pages, in order."""
    if rate <= 0.0:
        return []
    log_left_out = -math.inf if rate >= 1.0 else math.log1p(-rate)
    stream, cursor, end, slots = Stream(key), 0, pages * SLOTS_PER_PAGE, []
    while True:
        unit = ((stream.next_u64() >> 11) + 1) * (1.0 / 2 ** 53)
        ratio = math.log(unit) / log_left_out
        gap = U64_MAX if ratio >= 2.0 ** 64 else int(math.floor(ratio))
        slot = min(cursor + gap, U64_MAX)
        if slot >= end:
            return slots
        slots.append((slot // SLOTS_PER_PAGE, slot % SLOTS_PER_PAGE + 1))
        cursor = slot + 1


def layout(text):
    """N, R and the number of the first row of a LAYOUT argument."""
    shape, _, first = text.partition("@")
    n, r = (int(x) for x in shape.split("/"))
    return n, r, int(first or 1)


def rows_of_slots(slots, n, r):
    """The rows in the taken slots: line pointers beyond a page's last one hold none."""
    rows = []
    for page, offset in slots:
        on_page = min(r, n - page * r)
        if offset <= on_page:
            rows.append(page * r + offset)
    return rows


def tablesample(percent, value, schema, table, n, r):
    pages = layout_pages(n, r)
    rate = f32(percent) / 100.0
    key = repeatable_key(repeatable_seed(value), schema, table)
    return rows_of_slots(taken_slots(rate, key, pages), n, r)


def layout_pages(n, r):
    return (n + r - 1) // r


def f32(x):
    """x rounded to the nearest float4 (a real), as a float8 again."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def powi(a, b):
    """a ** b by binary exponentiation, the order of compiler-rt's __powidf2."""
    r = 1.0
    while True:
        if b & 1:
            r *= a
        b //= 2
        if b == 0:
            return r
        a *= a


def seeded_try(seed, index):
    key = hashlib.sha256(seed + struct.pack(">I", index)).digest()
    return key, float(int.from_bytes(key[:8], "big") >> 12)


def scan_is_cheaper(pages, rate):
    if rate >= 1.0:
        return True
    if pages <= 0:
        return False
    expected = pages * (1.0 - powi(1.0 - rate, SLOTS_PER_PAGE))
    # The tests pin no case within a hair of the threshold, where the last bit of a product
    # could decide.
    assert abs(expected - pages / 4.0) > 1e-9 * pages, "too near the scan threshold"
    return expected >= pages / 4.0


def sample_rows(seed, k, width, leaves):
    """The rows of the seeded sample_rows, in order, and the tries it ran. `leaves` are the
    relation's leaves in the order of its partitions, each (schema, table, name, N, R, F), every
    one with columns of `width`; a row is returned by its number."""
    if k == 0:
        return [], []
    per_page = min(max(math.floor(PAGE_ROOM / (width + 24 + 4)), 1), SLOTS_PER_PAGE)
    pages = sum(layout_pages(n, r) for _, _, _, n, r, _ in leaves)
    rows_estimate = float(sum(per_page * layout_pages(n, r) for _, _, _, n, r, _ in leaves))
    if rows_estimate < 1.0:
        rows_estimate = 1e6
    target = k + 2.0 * math.sqrt(k) + 3.0
    rate = min(target / rows_estimate, 1.0)
    index, tries = 0, []
    while True:
        scan = scan_is_cheaper(pages, rate)
        key, value = seeded_try(seed, index)
        got = []  # (leaf, row)
        for leaf, (schema, table, _, n, r, _) in enumerate(leaves):
            if scan:
                rows = range(1, n + 1)
            else:
                rows = tablesample(f32(rate * 100.0), value, schema, table, n, r)
            got.extend((leaf, row) for row in rows)
        tries.append((index, rate, len(got), "scan" if scan else "sample"))
        if len(got) >= k or scan:
            break
        factor = 16.0 if not got else min(max(target / len(got), 2.0), 16.0)
        rate = min(rate * factor, 1.0)
        index += 1

    def order_key(entry):
        leaf, row = entry
        _, _, name, _, r, _ = leaves[leaf]
        page, offset = divmod(row - 1, r)
        return shuffle_key(key, ("%s(%d,%d)" % (name, page, offset + 1)).encode("utf-8"))

    keyed = sorted(got, key=order_key)
    return [row + leaves[leaf][5] - 1 for leaf, row in keyed[:k]], tries


def literal(values):
    return "{" + ",".join(str(v) for v in values) + "}"


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["hashfloat8"]:
        for v in args[1:]:
            h = repeatable_seed(v)
            print(h - 2 ** 32 if h >= 2 ** 31 else h)
    elif args[:1] == ["tablesample"] and len(args) == 6:
        n, r, first = layout(args[5])
        rows = tablesample(float(args[1]), float(args[2]), args[3], args[4], n, r)
        print(literal(row + first - 1 for row in rows))
    elif args[:1] == ["sample_rows"] and len(args) >= 8 and (len(args) - 8) % 4 == 0:
        seed, k, width = bytes.fromhex(args[1]), int(args[2]), int(args[6])
        groups = [args[3:6] + [args[7]]] + [args[i:i + 4] for i in range(8, len(args), 4)]
        leaves = [(schema, table, name) + layout(shape) for schema, table, name, shape in groups]
        rows, tries = sample_rows(seed, k, width, leaves)
        print(literal(rows))
        print(" ".join("%d:%r:%d:%s" % t for t in tries))
    else:
        raise SystemExit(__doc__)
