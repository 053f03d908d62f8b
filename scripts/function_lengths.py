#!/usr/bin/env python3
"""Lists the Rust functions longer than a limit.

A function's length is counted in lines from the line of its `fn` keyword to the line of the
brace that closes its body. In src/, crates/*/src/ and tools/*/src/, items under a
`#[cfg(test)]` (or `#[cfg(any(test, ...))]`) attribute are left out, and so is the file of a
module declared under one (`mod tests;`): those unit tests are not held to the limit. The
integration tests in tests/ are all test code and are held to the same limit, every function
of them counted.

    scripts/function_lengths.py                 # src/, crates/*/src/, tests/, tools/*/src/; 80
    scripts/function_lengths.py --limit 60 src/deal_cards.rs

Prints one line per function over the limit, longest first, and exits with 1 if there is one.
"""

import argparse
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def blank_literals(text):
    """The text with comments and the contents of string and character literals replaced by
    spaces (newlines kept), so that braces, `fn` and `#[cfg` are found only in code."""
    out = list(text)
    n = len(text)
    i = 0

    def blank(start, end):
        for k in range(start, end):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            blank(i, end)
            i = end
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            blank(i, j)
            i = j
        elif (m := re.compile(r'b?r(#*)"').match(text, i)) and (
            i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")
        ):
            close = '"' + m.group(1)
            end = text.find(close, m.end())
            end = n if end < 0 else end + len(close)
            blank(m.end(), end - len(close))
            i = end
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            blank(i + 1, j)
            i = j + 1
        elif c == "'":
            # A character literal ('x', '\n', '\u{1F0A1}', '\''), else a lifetime or a label.
            if i + 1 < n and text[i + 1] == "\\":
                j = i + 2
                while j < n and text[j] != "'":
                    j += 2 if text[j] == "\\" else 1
                blank(i + 1, j)
                i = j + 1
            elif i + 2 < n and text[i + 2] == "'":
                blank(i + 1, i + 2)
                i += 3
            else:
                i += 1
        else:
            i += 1
    return "".join(out)


def matching_brace(code, open_at):
    depth = 0
    for k in range(open_at, len(code)):
        if code[k] == "{":
            depth += 1
        elif code[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    return len(code) - 1


def item_end(code, start):
    """Where the item starting at `start` ends: (index of `;` or of the body's `{`, char)."""
    depth = 0
    for k in range(start, len(code)):
        c = code[k]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif depth == 0 and c in "{;":
            return k, c
    return len(code), ";"


TEST_CFG = re.compile(r"#\[cfg\((?![^\]]*not\()[^\]]*\btest\b[^\]]*\)\]")
ATTRIBUTE = re.compile(r"\s*#\[[^\]]*\]")
MOD_DECL = re.compile(r"\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;")
FN = re.compile(r"\bfn\s+(\w+)")


def integration_test(path):
    """Whether the file is under the top-level tests/ folder."""
    tests = os.path.join(ROOT, "tests") + os.sep
    return os.path.abspath(path).startswith(tests)


def scan(path, skipped_files):
    with open(path, encoding="utf-8") as f:
        code = blank_literals(f.read())
    line_at = [0] * (len(code) + 1)
    line = 1
    for k, c in enumerate(code):
        line_at[k] = line
        if c == "\n":
            line += 1
    line_at[len(code)] = line

    test_ranges = []
    for m in [] if integration_test(path) else TEST_CFG.finditer(code):
        at = m.end()
        while a := ATTRIBUTE.match(code, at):
            at = a.end()
        if d := MOD_DECL.match(code, at):
            here = os.path.dirname(path)
            stem = os.path.splitext(os.path.basename(path))[0]
            if stem not in ("lib", "main", "mod"):
                here = os.path.join(here, stem)
            name = d.group(1)
            skipped_files.add(os.path.normpath(os.path.join(here, name + ".rs")))
            skipped_files.add(os.path.normpath(os.path.join(here, name)) + os.sep)
            continue
        end, c = item_end(code, at)
        if c == "{":
            test_ranges.append((m.start(), matching_brace(code, end)))

    found = []
    for m in FN.finditer(code):
        if any(a <= m.start() <= b for a, b in test_ranges):
            continue
        end, c = item_end(code, m.end())
        if c != "{":
            continue  # a declaration without a body (a trait's, an extern block's)
        close = matching_brace(code, end)
        found.append((line_at[close] - line_at[m.start()] + 1, line_at[m.start()], m.group(1)))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=80, help="longest allowed, in lines")
    parser.add_argument(
        "paths", nargs="*", help="files or folders (default src/, crates/*/src/, tests/, tools/*/src/)"
    )
    args = parser.parse_args()

    roots = args.paths or (
        [os.path.join(ROOT, "src")]
        + sorted(glob.glob(os.path.join(ROOT, "crates", "*", "src")))
        + [os.path.join(ROOT, "tests")]
        + sorted(glob.glob(os.path.join(ROOT, "tools", "*", "src")))
    )
    files = []
    for root in roots:
        if os.path.isdir(root):
            for folder, folders, names in os.walk(root):
                # A tool's own build folder (tools/*/target) holds generated code, not ours.
                folders[:] = [f for f in folders if f != "target"]
                files += [os.path.join(folder, n) for n in names if n.endswith(".rs")]
        else:
            files.append(root)
    files = sorted(os.path.normpath(f) for f in files)

    skipped, found = set(), []
    for path in files:
        found += [(path,) + f for f in scan(path, skipped)]

    def in_tests(path):
        return path in skipped or any(path.startswith(s) for s in skipped if s.endswith(os.sep))

    over = sorted(
        (f for f in found if not in_tests(f[0]) and f[1] > args.limit),
        key=lambda f: (-f[1], f[0], f[2]),
    )
    for path, length, line, name in over:
        print(f"{os.path.relpath(path, ROOT)}:{line}: {name} is {length} lines (limit {args.limit})")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
