#!/usr/bin/env python3
"""An independent implementation of dealcards' seeded shuffle queues, written from the
specification in docs/playlist.md ("A seeded queue, byte for byte") alone, on top of the stream
of seeded_shuffle.py. It keeps a plain queue's tape as a Python list and a spread queue's groups
as dictionaries, and finds every group it needs by looking at all of them, where the extension
keeps rows, keys and lookaheads.

    seeded_queue.py [--seed-rule 2] SEED_HEX QUEUE [recent:T,T,...] OPERATION...

QUEUE is one of
    shuffle:N[:WINDOW]          a plain shuffle queue over tracks 1..N
    random:N[:WINDOW]           a plain random queue over tracks 1..N
    weighted:W1,W2,...[:WINDOW] random play with weights, track i of weight Wi
    spread:G1,G2,...            a queue spread by group, track i in group Gi
    spread:G1/S1,G2/S2,...      the same on two levels (group/subgroup)
and each OPERATION one of
    next  prev  add:T  add:T:G  add:T:G/S  add:T:WEIGHT (weighted)  remove:T  jump:T  playnext:T,T...  playlater:T,...
    skip:T  unskip:T  skipnext (a skip that does not count, then a next)
recent: lists a listener's recent plays, most recent first, which a new queue holds back (a
shuffle queue puts them at the end of its tape, a spread queue out of its first pass).
--seed-rule 2: a next that replays (after prev) is not an operation, as on the queues made
from release 0.7.0 on; without it, rule 1, every next is one, as on the queues made before.
It prints what each next, prev and jump returns, space separated (NULL for none), and the
golden values pinned in the tests come from it, not from the extension."""
import hashlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from seeded_shuffle import Stream, fisher_yates  # noqa: E402

S = 2 ** 32
EXACT_JUMP = 32
HALF = 2 ** 31


def operation_stream(seed, k):
    return Stream(hashlib.sha256(seed + k.to_bytes(8, "little")).digest())


class Plain:
    """A plain queue: the tape as a list from its front."""

    def __init__(self, mode, n, window, stream, weights=None, held=()):
        self.mode, self.given = mode, window
        self.weights = weights  # by track, or None
        self.heaviest = max(weights.values()) if weights else None
        others = [t for t in range(1, n + 1) if t not in held]
        fisher_yates(others, stream)
        self.tape = others + list(reversed(held))
        self.front, self.history, self.behind = 0, 0, 0

    def n(self):
        return len(self.tape)

    def window(self):
        n = self.n()
        if self.given is None:
            return max(1, n // 2) if self.mode == "shuffle" else n // 2
        low, high = (1, max(1, n - 1)) if self.mode == "shuffle" else (min(1, n - 1), n - 1)
        return min(max(self.given, low), high)

    def limit(self):
        w = self.window()
        return self.n() - w + 1 if self.mode == "shuffle" else w + 1

    def eligible(self):
        if self.mode == "shuffle":
            return self.window()
        return self.n() - min(self.history, self.window())

    def fit(self):
        self.history = min(self.history, self.limit())
        self.behind = min(self.behind, max(self.history - 1, 0))

    def pick(self, index):
        track = self.tape[index]
        self.tape[index] = self.tape[0]
        del self.tape[0]
        self.tape.append(track)
        self.front += 1
        self.history = min(self.history + 1, self.limit())
        return track

    def next(self, stream):
        if self.behind > 0:
            self.behind -= 1
            return self.tape[self.n() - 1 - self.behind]
        if self.weights is None:
            return self.pick(stream.below(self.eligible()))
        while True:
            # A try: a place, then a value below the heaviest weight; taken when the value is
            # below the weight of the place's track.
            i = stream.below(self.eligible())
            v = stream.below(self.heaviest)
            if v < self.weights[self.tape[i]]:
                return self.pick(i)

    def prev(self):
        if self.history == 0:
            return None
        self.behind = min(self.behind + 1, self.history - 1)
        return self.tape[self.n() - 1 - self.behind]

    def holds(self, track):
        return track in self.tape

    def add(self, track, stream):
        places = self.n() + 1 - self.history
        target = stream.below(places)
        self.tape.insert(0, track)
        self.front -= 1
        self.tape[0], self.tape[target] = self.tape[target], self.tape[0]
        self.fit()

    def remove(self, track):
        n, h = self.n(), self.history
        i = self.tape.index(track)
        start = n - h
        if i < start:
            self.tape[i] = self.tape[0]
            del self.tape[0]
            self.front += 1
        else:
            newer = n - 1 - i
            older = h - 1 - newer
            if newer < self.behind:
                self.behind -= 1
            del self.tape[i]
            if newer > older:
                # The older side moves up one place; the front track takes the first place
                # of the history, which then leaves it.
                if start > 0:
                    first = self.tape.pop(0)
                    self.tape.insert(start - 1, first)
                self.front += 1
            self.history -= 1
        self.fit()

    def jump(self, track):
        self.behind = 0
        i = self.tape.index(track)
        if self.history > 0 and i == self.n() - 1:
            return track
        start = self.n() - self.history
        if i >= start and self.n() - 1 - i > EXACT_JUMP and i - start > EXACT_JUMP:
            # deep in the history: swap with the oldest play remembered, whose place leaves it
            self.tape[i], self.tape[start] = self.tape[start], self.tape[i]
            self.history -= 1
            return self.jump(track)
        if i >= start:
            self.remove(track)
            self.tape.insert(0, track)
            self.front -= 1
            self.fit()
            self.behind = 0
            return self.jump(track)
        return self.pick(i)


class Unit:
    def __init__(self, uid, parent):
        self.id, self.parent = uid, parent
        self.size = self.left = self.placed = 0
        self.pass_, self.offset, self.target, self.last_child = -1, 0, 2 ** 63 - 1, 0
        self.slots = []  # a unit of the last level: its tracks by slot

    def aim(self, stream):
        jitter = stream.below(HALF)
        self.target = self.pass_ * S + (self.placed * S + self.offset + jitter) // (self.placed + self.left)

    def start(self, pass_, stream):
        self.size, self.left, self.placed, self.pass_ = 1, 1, 0, pass_
        self.offset = stream.below(HALF)
        self.aim(stream)

    def settle(self, stream):
        if self.size == 0:
            self.pass_, self.left, self.placed, self.target = -1, 0, 0, 2 ** 63 - 1
            return
        if self.left == 0:
            self.pass_ += 1
            self.left, self.placed = self.size, 0
            self.offset = stream.below(HALF)
        self.aim(stream)

    def left_in(self, pass_):
        return self.left if self.pass_ == pass_ else 0


def fewest(left, previous):
    """F(r, p): the fewest same-unit neighbours the tracks left can still have."""
    m = sum(left.values())
    best = 0
    for u, r in left.items():
        best = max(best, 2 * r - m if u == previous else 2 * r - m - 1)
    return best


class Spread:
    def __init__(self, labels, stream, held=()):
        n = len(labels)
        two = "/" in labels[0]
        pairs = [tuple(l.split("/", 1)) if two else (l, None) for l in labels]
        group_ids, pair_ids = {}, {}
        for g, _ in pairs:
            group_ids.setdefault(g, len(group_ids) + 1)
        if two:
            for p in pairs:
                pair_ids.setdefault(p, len(group_ids) + len(pair_ids) + 1)
        self.levels = 2 if two else 1
        self.units = {}
        for g, uid in group_ids.items():
            self.units[uid] = Unit(uid, 0)
        for (g, _), uid in pair_ids.items():
            self.units[uid] = Unit(uid, group_ids[g])
        leaf = lambda i: pair_ids[pairs[i]] if two else group_ids[pairs[i][0]]
        for i in range(n):
            g, l = group_ids[pairs[i][0]], leaf(i)
            for u in {g, l}:
                self.units[u].size += 1
                if i + 1 not in held:
                    self.units[u].left += 1
        # Slots: the tracks of the first pass in item order, then those held out of it.
        for first_pass in (True, False):
            for i in range(n):
                if (i + 1 not in held) == first_pass:
                    self.units[leaf(i)].slots.append(i + 1)
        in_pass = [i for i in range(n) if i + 1 not in held]
        m = len(in_pass)
        # The first place.
        tops = [u for u in self.units.values() if u.parent == 0]
        big = max(tops, key=lambda u: (u.left, -u.id))
        drawn = None
        if 2 * big.left > m:
            first_group = big.id
        else:
            drawn = in_pass[stream.below(m)]
            first_group = group_ids[pairs[drawn][0]]
        first_sub = None
        if two:
            kids = [u for u in self.units.values() if u.parent == first_group]
            kid = max(kids, key=lambda u: (u.left, -u.id))
            if 2 * kid.left > self.units[first_group].left:
                first_sub = kid.id
            else:
                if drawn is None:
                    own = [i for i in in_pass if group_ids[pairs[i][0]] == first_group]
                    drawn = own[stream.below(self.units[first_group].left)]
                first_sub = leaf(drawn)
        for uid in sorted(self.units):
            u = self.units[uid]
            u.pass_ = 0
            if u.left == 0:  # every track held out: it starts at the second pass
                u.pass_, u.left = 1, u.size
            u.offset = stream.below(HALF)
            u.aim(stream)
        self.units[first_group].target = 0
        if first_sub is not None:
            self.units[first_sub].target = 0
        self.tracks, self.pass_, self.pass_left = n, 0, m
        self.last_group, self.next_unit = 0, len(self.units) + 1
        self.log, self.behind = [], 0  # what played, oldest first

    def limit(self):
        return self.tracks - max(1, self.tracks // 2) + 1

    def record(self, track):
        self.log.append(track)
        if len(self.log) > self.limit():
            del self.log[0]
        self.behind = 0

    def choose(self, parent, pass_, m, previous):
        under = [u for u in self.units.values() if u.parent == parent and u.size > 0]
        left = {u.id: u.left_in(pass_) for u in under}
        live = sorted((u for u in under if left[u.id] > 0), key=lambda u: (u.target, u.id))
        largest = max(left.values())
        holders = [u for u in under if left[u.id] == largest]
        if previous == 0 or previous not in self.units:
            return holders[0] if 2 * largest > m else live[0]
        p_left = self.units[previous].left_in(pass_)
        if 2 * largest > m and p_left < largest:
            return holders[0]
        need = fewest(left, previous)
        for x in live:
            after = dict(left)
            after[x.id] -= 1
            if (x.id == previous) + fewest(after, x.id) == need:
                return x
        raise AssertionError("no unit may take the place")

    def placed(self, group, sub, stream):
        group.left -= 1
        group.placed += 1
        if sub is not None:
            group.last_child = sub.id
        group.settle(stream)
        if sub is not None:
            sub.left -= 1
            sub.placed += 1
            sub.settle(stream)
        self.last_group = group.id
        self.pass_left -= 1
        if self.pass_left == 0:
            self.pass_ += 1
            self.pass_left = self.tracks

    def next(self, stream):
        if self.behind > 0:
            self.behind -= 1
            return self.log[len(self.log) - 1 - self.behind]
        group = self.choose(0, self.pass_, self.pass_left, self.last_group)
        sub = None
        if self.levels == 2:
            sub = self.choose(group.id, group.pass_, group.left, group.last_child)
        leaf = sub or group
        fresh = leaf.placed == 0 and leaf.pass_ > 0 and leaf.left >= 3
        slot = 1 + stream.below(leaf.left - 1) if fresh else stream.below(leaf.left)
        last = leaf.left - 1
        leaf.slots[slot], leaf.slots[last] = leaf.slots[last], leaf.slots[slot]
        track = leaf.slots[last]
        self.placed(group, sub, stream)
        self.record(track)
        return track

    def give_back(self, track, stream):
        """A skip that does not count: the track gets its turn in the pass back."""
        leaf = next((u for u in self.units.values() if track in u.slots), None)
        if leaf is None:  # removed or skipped when shuffling since it played
            return False
        slot = leaf.slots.index(track)
        group = self.units[leaf.parent] if leaf.parent else None

        def standing(u, pass_):
            if u.pass_ != pass_:
                return "moved on"
            return "to place" if slot < u.left else "placed"

        if group is None:
            top = standing(leaf, self.pass_)
        elif group.pass_ != self.pass_:
            top = "moved on"
        else:
            top = "to place" if standing(leaf, group.pass_) == "to place" else "placed"
        if top == "to place":
            return False

        def back(u, pass_, how):
            if how == "placed":
                u.left, u.placed = u.left + 1, u.placed - 1
            else:
                u.pass_, u.left, u.placed = pass_, 1, u.size - 1
                u.offset = stream.below(HALF)
            u.aim(stream)
            # Then a place drawn over the rest of the pass, after the earliest other unit's.
            end = (pass_ + 1) * S
            others = [o.target for o in self.units.values()
                      if o.parent == u.parent and o.size > 0 and o.id != u.id]
            if others and min(others) < end:
                u.target = min(others) + stream.below(end - min(others))

        if group is not None:
            back(group, self.pass_, top)
        parent_pass = group.pass_ if group is not None else self.pass_
        how = standing(leaf, parent_pass)
        into = leaf.left if how == "placed" else 0
        leaf.slots[slot], leaf.slots[into] = leaf.slots[into], leaf.slots[slot]
        back(leaf, parent_pass, how)
        self.pass_left += 1
        return True

    def prev(self):
        if not self.log:
            return None
        self.behind = min(self.behind + 1, len(self.log) - 1)
        return self.log[len(self.log) - 1 - self.behind]

    def find(self, track):
        for u in self.units.values():
            if track in u.slots:
                return u, u.slots.index(track)
        return None, None

    def holds(self, track):
        return self.find(track)[0] is not None

    def jump(self, track, stream):
        leaf, slot = self.find(track)
        group = self.units[leaf.parent] if leaf.parent else None
        top = group or leaf
        in_pass = top.pass_ == self.pass_ and slot < leaf.left and (
            group is None or leaf.pass_ == group.pass_)
        if in_pass:
            last = leaf.left - 1
            leaf.slots[slot], leaf.slots[last] = leaf.slots[last], leaf.slots[slot]
            if group is not None:
                self.placed(group, leaf, stream)
            else:
                self.placed(leaf, None, stream)
        else:
            if slot < leaf.left and slot != 0:
                leaf.slots[slot], leaf.slots[0] = leaf.slots[0], leaf.slots[slot]
            if group is not None:
                group.last_child = leaf.id
                self.last_group = group.id
            else:
                self.last_group = leaf.id
        self.record(track)
        return track

    def unit_named(self, parent, name, names):
        for uid, n in names.items():
            if n == (parent, name) and name is not None:
                return self.units[uid]
        u = Unit(self.next_unit, parent)
        self.units[u.id] = u
        names[u.id] = (parent, name)
        self.next_unit += 1
        return u

    def join(self, unit, pass_, track, stream):
        unit.slots.append(track)
        if unit.size == 0:
            unit.start(pass_, stream)
        else:
            i, j = unit.size, unit.left
            unit.slots[i], unit.slots[j] = unit.slots[j], unit.slots[i]
            unit.size += 1
            unit.left += 1

    def add_to(self, track, top, leaf, stream):
        if leaf is None:
            self.join(top, self.pass_, track, stream)
            counted = top.pass_ == self.pass_
        else:
            fresh = top.size == 0
            if fresh:
                top.start(self.pass_, stream)
            in_group_pass = leaf.size == 0 or leaf.pass_ == top.pass_
            self.join(leaf, top.pass_, track, stream)
            if not fresh:
                top.size += 1
                if in_group_pass:
                    top.left += 1
            counted = in_group_pass and top.pass_ == self.pass_
        if counted:
            self.pass_left += 1
        self.tracks += 1

    def leave(self, track, stream):
        leaf, slot = self.find(track)
        group = self.units[leaf.parent] if leaf.parent else None
        top_pass = (group or leaf).pass_
        in_leaf_pass = slot < leaf.left
        counted_in_group = in_leaf_pass and (group is None or leaf.pass_ == group.pass_)
        counted = counted_in_group and top_pass == self.pass_
        at = slot
        if in_leaf_pass:
            last = leaf.left - 1
            leaf.slots[at], leaf.slots[last] = leaf.slots[last], leaf.slots[at]
            at = last
            leaf.left -= 1
        end = leaf.size - 1
        leaf.slots[at], leaf.slots[end] = leaf.slots[end], leaf.slots[at]
        leaf.slots.pop()
        leaf.size -= 1
        if group is not None:
            group.size -= 1
            if counted_in_group:
                group.left -= 1
            if group.size == 0 or (counted_in_group and group.left == 0):
                group.settle(stream)
        if leaf.size == 0 or (in_leaf_pass and leaf.left == 0):
            leaf.settle(stream)
        self.tracks -= 1
        if counted:
            self.pass_left -= 1
            if self.pass_left == 0:
                self.pass_ += 1
                self.pass_left = self.tracks
        while len(self.log) > self.limit():
            del self.log[0]
        self.behind = min(self.behind, max(len(self.log) - 1, 0))
        return leaf


def held_back(recent, n):
    """The recent plays a queue of tracks 1..n holds back: each once, at most half of n."""
    held = []
    for t in recent:
        if 1 <= t <= n and t not in held and len(held) < n // 2:
            held.append(t)
    return held


def run(seed, spec, operations, rule=1):
    kind, _, rest = spec.partition(":")
    stream = operation_stream(seed, 0)
    recent = []
    if operations and operations[0].startswith("recent:"):
        recent = [int(t) for t in operations[0][len("recent:"):].split(",")]
        operations = operations[1:]
    if kind == "spread":
        queue = Spread(rest.split(","), stream, held_back(recent, len(rest.split(","))))
        names = {}
        labels = rest.split(",")
        # The names of the units made at creation, as (parent, name).
        group_ids, pair_ids = {}, {}
        for l in labels:
            g, _, s = l.partition("/")
            group_ids.setdefault(g, len(group_ids) + 1)
        for l in labels:
            g, _, s = l.partition("/")
            if "/" in l:
                pair_ids.setdefault((g, s), len(group_ids) + len(pair_ids) + 1)
        for g, uid in group_ids.items():
            names[uid] = (0, g)
        for (g, s), uid in pair_ids.items():
            names[uid] = (group_ids[g], s)
    elif kind == "weighted":
        parts = rest.split(":")
        window = int(parts[1]) if len(parts) > 1 else None
        ws = [int(w) for w in parts[0].split(",")]
        weights = {i + 1: w for i, w in enumerate(ws)}
        queue = Plain("random", len(ws), window, stream, weights)
    else:
        parts = rest.split(":")
        window = int(parts[1]) if len(parts) > 1 else None
        n = int(parts[0])
        held = held_back(recent, n) if kind == "shuffle" else []
        queue = Plain(kind, n, window, stream, held=held)
    draws, up_next, skipped, out = 0, [], {}, []

    def op_stream():
        nonlocal draws
        draws += 1
        return operation_stream(seed, draws)

    for op in operations:
        name, _, arg = op.partition(":")
        if name == "skipnext":
            # A skip that does not count: on a spread queue playing its newest play, giving
            # the turn back is an operation of its own; then a next.
            if kind == "spread" and queue.behind == 0 and queue.log:
                queue.give_back(queue.log[-1], op_stream())
            name = "next"
        if name == "next":
            replaying = queue.behind > 0
            s = None if replaying and rule == 2 else op_stream()
            if not replaying and up_next:
                track = up_next.pop(0)
                out.append(queue.jump(track) if kind != "spread" else queue.jump(track, s))
            else:
                out.append(queue.next(s))
        elif name == "prev":
            out.append(queue.prev())
        elif name == "jump":
            s = op_stream()
            track = int(arg)
            out.append(queue.jump(track) if kind != "spread" else queue.jump(track, s))
        elif name in ("playnext", "playlater"):
            tracks = [int(t) for t in arg.split(",")]
            up_next = tracks + up_next if name == "playnext" else up_next + tracks
        elif name == "add":
            s = op_stream()
            track, _, group = arg.partition(":")
            track = int(track)
            if kind == "weighted":
                queue.weights[track] = int(group)
                queue.heaviest = max(queue.heaviest, int(group))
                queue.add(track, s)
            elif kind != "spread":
                queue.add(track, s)
            else:
                g, _, sub = group.partition("/")
                top = queue.unit_named(0, g, names)
                leaf = queue.unit_named(top.id, sub, names) if queue.levels == 2 else None
                queue.add_to(track, top, leaf, s)
        elif name == "remove":
            s = op_stream()
            track = int(arg)
            if track in skipped:
                del skipped[track]
            elif kind != "spread":
                queue.remove(track)
            else:
                queue.leave(track, s)
            up_next = [t for t in up_next if t != track]
        elif name == "skip":
            s = op_stream()
            track = int(arg)
            skipped[track] = None if kind != "spread" else queue.leave(track, s)
            if kind != "spread":
                queue.remove(track)
            up_next = [t for t in up_next if t != track]
        elif name == "unskip":
            s = op_stream()
            track = int(arg)
            leaf = skipped.pop(track)
            if kind != "spread":
                queue.add(track, s)
            else:
                top = queue.units[leaf.parent] if leaf.parent else leaf
                queue.add_to(track, top, leaf if leaf.parent else None, s)
        else:
            raise SystemExit(f"unknown operation {op}")
    return out


if __name__ == "__main__":
    args = sys.argv[1:]
    rule = 1
    if args[:1] == ["--seed-rule"]:
        if args[1:2] != ["2"]:
            sys.exit(__doc__)
        rule, args = 2, args[2:]
    if len(args) < 2:
        sys.exit(__doc__)
    results = run(bytes.fromhex(args[0]), args[1], args[2:], rule)
    print(" ".join("NULL" if r is None else str(r) for r in results))
