#!/usr/bin/env python3
"""An independent implementation of dealcards' seeded queue of whole albums
(`shuffle_queue_new_albums(items, albums, artists, seed)`), written from docs/playlist.md's
specification alone ("A seeded queue of albums, byte for byte"): the albums' order is the
seeded queue spread by group of seeded_queue.py (rule 2), over the albums as tracks 1, 2, ...;
Next and Previous step through each album's tracks around it.

    seeded_albums.py SEED_HEX ITEMS OPERATION...

ITEMS lists the tracks in the order of `items`, comma separated, each TRACK:ALBUM:ARTIST
(ARTIST \\N for NULL; no artists at all: TRACK:ALBUM). Each OPERATION is next, prev or current,
or one of them and *N for N of it in a row (next*5).
It prints what each returns, space separated (NULL for none); the golden values pinned in the
tests come from it, not from the extension."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from seeded_queue import Spread, operation_stream  # noqa: E402


class Albums:
    def __init__(self, seed, items):
        """items: (track, album name, artist or None) in the order given."""
        self.seed = seed
        numbers = {}  # (artist, name) -> album number, from 1, in order of first track
        self.tracks = {}  # album number -> its tracks in the order of the items
        for track, name, artist in items:
            album = numbers.setdefault((artist, name), len(numbers) + 1)
            self.tracks.setdefault(album, []).append(track)
        # The spread's groups: the albums' artists, numbered in order of first appearance; an
        # album without an artist is a group of its own.
        groups, labels = {}, []
        for (artist, _), album in sorted(numbers.items(), key=lambda kv: kv[1]):
            key = ("artist", artist) if artist is not None else ("alone", album)
            labels.append("g%d" % groups.setdefault(key, len(groups) + 1))
        self.queue = Spread(labels, operation_stream(seed, 0))
        self.operations = 0
        self.album, self.place = None, 0

    def next(self):
        if self.album is not None and self.place + 1 < len(self.tracks[self.album]):
            self.place += 1
            return self.tracks[self.album][self.place]
        if self.queue.behind > 0:
            stream = None  # a replay: not an operation (rule 2)
        else:
            self.operations += 1
            stream = operation_stream(self.seed, self.operations)
        self.album, self.place = self.queue.next(stream), 0
        return self.tracks[self.album][0]

    def prev(self):
        if self.album is None:
            return None
        if self.place > 0:
            self.place -= 1
            return self.tracks[self.album][self.place]
        before = self.queue.behind
        earlier = self.queue.prev()
        if self.queue.behind == before:
            return self.tracks[self.album][0]
        self.album = earlier
        self.place = len(self.tracks[earlier]) - 1
        return self.tracks[earlier][self.place]

    def current(self):
        return None if self.album is None else self.tracks[self.album][self.place]


def parse_items(text):
    items = []
    for item in text.split(","):
        parts = item.split(":")
        artist = None if len(parts) < 3 or parts[2] == "\\N" else parts[2]
        items.append((int(parts[0]), parts[1], artist))
    return items


def run(seed, items, operations):
    queue = Albums(seed, items)
    out = []
    for op in operations:
        name, _, times = op.partition("*")
        if name not in ("next", "prev", "current"):
            raise SystemExit(f"unknown operation {op}")
        for _ in range(int(times or 1)):
            out.append(getattr(queue, name)())
    return out


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    results = run(bytes.fromhex(sys.argv[1]), parse_items(sys.argv[2]), sys.argv[3:])
    print(" ".join("NULL" if r is None else str(r) for r in results))
