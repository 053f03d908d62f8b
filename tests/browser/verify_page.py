#!/usr/bin/env python3
"""Checks verifier/index.html in a real headless chromium, driven through chromedriver over the
W3C WebDriver HTTP protocol, and tools/verify_deal.py beside it (standard library only).

    verify_page.py [--publication PUB.json --receipts RECEIPTS.jsonl [--notified N.jsonl]]
                   [DEALS.json ...]

One deal from its seeds: each DEALS.json holds a list of deals (or an object with a "deals"
list), each {server_seed, commitment, client_seeds: [3], nonce, p1_cards, p2_cards, p3_cards,
extra_cards, leader}; tests/reference/fair_golden.json is always checked too. For every deal the
page must show exactly the stored hands, extra cards and first bidder and say the commitment
matches; with one client seed, the nonce, or one hex digit of the server seed changed it must
show another deal (the one tools/verify_deal.py computes), and for the server seed a commitment
that does not match. tools/verify_deal.py must agree with every stored deal too, and its --chain
with every golden chain hash.

Receipts against a publication: RECEIPTS.jsonl holds the receipts of a desk's games as
fair_receipt gives them once dealt, one a line (NOTIFIED.jsonl what deal_cards notified, which
must be the same), PUB.json what fair_publication returned after. The page and `verify_deal.py receipts` must give every receipt the verdict
tests/browser/receipt_cases.py says: "verified" for a revealed round's, "not revealed yet" for
the round in force's ("overdue" once its bound has passed: its max_deals games published, or its
reveal_by past), and for each kind of tampering (receipts changed; games changed, removed,
inserted or given to other players with the chain relinked; a round's rules rewritten after its
deals, the chain relinked or not; a wrong server seed; a house seat with a seed; a round left
without a reveal; a repeated nonce; cards the seeds do not deal)
"failed" with the check that catches it named; golden publications made of
tests/reference/fair_golden.json's chain hashes (protocols 1 to 3; under protocol 3 each variant
of a round's rules, reveal_by read with its offset to the microsecond) must verify, and fail
"chain" with one rule changed; input that is no publication or receipt must be refused with a
clear message (exit status 2).

The player's own inputs, with the receipts as the deals notified them: given a player id, both
must list as withheld exactly the published games naming that player whose receipts were not
given (none when all were; exit status 1 when any), and given the commitments the player was
shown (ROUND:HEX, or HEX for every round), fail "shown commitment" for a receipt under another,
or of a round the player named no commitment for (a shadow desk's relayed deal); without the
player id or the commitments shown, call the check incomplete (exit status 4; the page's summary
marked incomplete, never green, and a line naming what is missing, and a receipt whose only
unmade check is "shown commitment" incomplete);
the page must show a summary of the verdicts and each published game's hands as cards (rank and
suit, jokers by name, in Dou Dizhu order, the player's seat marked), never as numbers, and refuse
a bad player id or commitment as the tool does. The tool must take a seed or player id that
starts with "-" both as --my-seed=-x and as --my-seed -x.

Both must report the rounds the player seeded that ended before their bound (and the deal each
avoided, the page as cards) and none other, and, given the rounds kept by an earlier check (the
page in the browser's storage, the tool with --keep), fail as forked a publication with another
count or chain under one; the page must keep what a check saw across checks, leave it as it was
when it finds a fork, and forget it at its button. The summary takes the failure colour when the
desk's line alone fails.

The page must load nothing: no external references in its source, its own
Content-Security-Policy, and no request in the browser's network log but the page itself.
Exits 1 with a message on the first failure.

CHROMIUM and CHROMEDRIVER name the programs (default: chromium, chromedriver on PATH).
"""
import argparse
import copy
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "verifier" / "index.html"
TOOL = ROOT / "tools" / "verify_deal.py"
GOLDEN = ROOT / "tests" / "reference" / "fair_golden.json"
CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'"

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, str(ROOT / "tools"))
import verify_deal  # noqa: E402
sys.path.insert(0, str(ROOT / "tests" / "browser"))
import receipt_cases  # noqa: E402
INCOMPLETE_ = receipt_cases.INCOMPLETE
VERIFIED_, NOT_REVEALED_, OVERDUE_, FAILED_ = (receipt_cases.VERIFIED, receipt_cases.NOT_REVEALED,
                                              receipt_cases.OVERDUE, receipt_cases.FAILED)


class Failure(Exception):
    pass


def fail(msg):
    raise Failure(msg)


# --- WebDriver over HTTP ------------------------------------------------------------------------

class Driver:
    def __init__(self, chromedriver, chromium):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.log = open(os.devnull, "wb")
        self.proc = subprocess.Popen([chromedriver, "--port=%d" % self.port],
                                     stdout=self.log, stderr=self.log)
        self.base = "http://127.0.0.1:%d" % self.port
        self.session = None
        deadline = time.time() + 30
        while True:
            try:
                if self.call("GET", "/status").get("ready"):
                    break
            except (OSError, Failure):
                pass
            if time.time() > deadline or self.proc.poll() is not None:
                self.quit()
                fail("chromedriver did not start on port %d" % self.port)
            time.sleep(0.1)
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--no-first-run"],
            },
            "goog:loggingPrefs": {"performance": "ALL", "browser": "ALL"},
        }}}
        value = self.call("POST", "/session", caps)
        self.session = value["sessionId"]
        self.browser_version = value["capabilities"].get("browserVersion", "?")

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                return json.loads(r.read().decode() or "{}").get("value")
        except urllib.error.HTTPError as e:
            try:
                v = json.loads(e.read().decode()).get("value", {})
                msg = "%s: %s" % (v.get("error"), (v.get("message") or "").splitlines()[0])
            except ValueError:
                msg = str(e)
            fail("WebDriver %s %s failed: %s" % (method, path, msg))

    def s(self, method, path, body=None):
        return self.call(method, "/session/%s%s" % (self.session, path), body)

    def quit(self):
        try:
            if self.session:
                self.s("DELETE", "")
        except (OSError, Failure):
            pass
        finally:
            self.session = None
            if self.proc.poll() is None:
                self.proc.terminate()
                try:
                    self.proc.wait(10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            self.log.close()

    # elements
    def find(self, css):
        ref = self.s("POST", "/element", {"using": "css selector", "value": css})
        # The one key of a web element reference (the W3C identifier; read it, do not assume it).
        self.element_key, el = next(iter(ref.items()))
        return el

    def text(self, el):
        return self.s("GET", "/element/%s/text" % el)

    def attr(self, el, name):
        return self.s("GET", "/element/%s/attribute/%s" % (el, name))

    def prop(self, el, name):
        return self.s("GET", "/element/%s/property/%s" % (el, name))

    def type_into(self, el, text):
        """Types text like a user (an older chromedriver that cannot type characters outside the
        BMP gets them set through the element's value instead)."""
        self.s("POST", "/element/%s/clear" % el, {})
        if text:
            self.s("POST", "/element/%s/value" % el, {"text": text})
        if self.prop(el, "value") != text and any(ord(ch) > 0xFFFF for ch in text):
            self.s("POST", "/execute/sync", {"script": "arguments[0].value = arguments[1];",
                                            "args": [{self.element_key: el}, text]})
        if self.prop(el, "value") != text:
            fail("typing %r into the page gave %r" % (text, self.prop(el, "value")))

    def click(self, el):
        self.s("POST", "/element/%s/click" % el, {})

    def logs(self, kind):
        return self.s("POST", "/se/log", {"type": kind}) or []


# --- the page -------------------------------------------------------------------------------------

INPUTS = ["server-seed", "commitment", "client-seed-1", "client-seed-2", "client-seed-3", "nonce"]
OUTPUTS = ["seat1-cards", "seat2-cards", "seat3-cards", "extra-cards", "leader", "key",
           "commitment-check", "error", "result"]
RECEIPT_ELEMENTS = ["publication", "receipts", "publication-file", "receipts-file", "my-seat",
                    "my-seed", "check-receipts", "receipts-error", "receipts-result", "desk-line",
                    "my-player", "shown-commitments", "summary", "withheld", "withheld-list"]
# What the page shows of its receipt check, read in one go: per row its game, result, check and
# visible verdict; the desk line; the error; whether the result is shown.
READ_RECEIPTS = """
var rows = Array.from(document.querySelectorAll('#receipt-rows tr')).map(function (tr) {
  return [tr.getAttribute('data-game'), tr.getAttribute('data-result'), tr.getAttribute('data-check'),
          tr.querySelector('.verdict').textContent];
});
var line = document.getElementById('desk-line');
return {rows: rows, desk: [line.getAttribute('data-result'), line.getAttribute('data-check'), line.textContent],
        error: document.getElementById('receipts-error').textContent,
        shown: !document.getElementById('receipts-result').hidden};
"""
# The player's part of it: the summary, the withheld list, and per row the hands shown.
READ_PLAYER = """
function hands(box) {
  return box ? Array.from(box.querySelectorAll('.hand')).map(function (h) {
    return {seat: h.getAttribute('data-seat'), mine: h.getAttribute('data-mine'),
            cards: Array.from(h.querySelectorAll('.card')).map(function (c) {
              return [c.getAttribute('data-card'), c.textContent, c.classList.contains('red')]; }),
            text: h.querySelector('.cards').textContent};
  }) : null;
}
var box = document.getElementById('withheld');
function listed(id) {
  return document.getElementById(id).hidden ? [] : Array.from(document.querySelectorAll('#' + id + '-list li')).map(function (li) {
    return [li.getAttribute('data-round'), li.textContent, hands(li.querySelector('.hands'))]; });
}
var summary = document.getElementById('summary'), incomplete = document.getElementById('incomplete');
return {summary: summary.textContent, tone: summary.className, missing: summary.getAttribute('data-missing'),
        incomplete: incomplete.hidden ? null : incomplete.textContent,
        withheld: box.hidden ? null : Array.from(document.querySelectorAll('#withheld-list li')).map(function (li) {
          return [li.getAttribute('data-game'), li.querySelector('.withheld-text').textContent, hands(li.querySelector('.hands'))]; }),
        rows: Array.from(document.querySelectorAll('#receipt-rows tr')).map(function (tr) {
          return hands(tr.querySelector('.hands')); }),
        ended_early: listed('ended-early'), forked: listed('forked'),
        kept: localStorage.getItem('dealcards-kept-rounds')};
"""


class Page:
    def __init__(self, d):
        self.d = d
        self.url = PAGE.as_uri()
        d.s("POST", "/url", {"url": self.url})
        self.el = {n: d.find("#" + n) for n in INPUTS + OUTPUTS + RECEIPT_ELEMENTS + ["verify"]}
        self.typed = {}  # what each input holds, so that only changed ones are retyped

    def fill(self, server_seed, commitment, client_seeds, nonce):
        values = [server_seed, commitment or ""] + list(client_seeds) + [str(nonce)]
        for name, value in zip(INPUTS, values):
            if self.typed.get(name) != value:
                self.d.type_into(self.el[name], value)
                self.typed[name] = value
        self.d.click(self.el["verify"])
        return self.read()

    def via_fragment(self, server_seed, commitment, client_seeds, nonce):
        from urllib.parse import quote
        parts = [("server", server_seed)] + ([("commitment", commitment)] if commitment else [])
        parts += [("c%d" % (i + 1), s) for i, s in enumerate(client_seeds)] + [("nonce", str(nonce))]
        frag = "&".join("%s=%s" % (k, quote(v, safe="")) for k, v in parts)
        # The check runs on the hashchange event, after the navigation returns: the mark of the
        # last check goes first, so that only this one's can be waited for.
        self.d.s("POST", "/execute/sync", {"script": "document.body.removeAttribute('data-busy');", "args": []})
        self.d.s("POST", "/url", {"url": self.url + "#" + frag})
        self.typed = {}
        return self.read()

    def wait_idle(self):
        """Waits until the page's check has shown its results: it hashes with Web Crypto, whose
        answers come asynchronously, and marks the page data-busy="false" when done."""
        deadline = time.time() + 30
        while self.d.s("POST", "/execute/sync", {
                "script": "return document.body.getAttribute('data-busy');", "args": []}) != "false":
            if time.time() > deadline:
                fail("the page's check did not finish within 30 s")
            time.sleep(0.02)

    def set_text(self, name, text):
        """Puts a long text (a publication, receipts) into a text box at once, as a paste does."""
        self.d.s("POST", "/execute/sync", {"script": "arguments[0].value = arguments[1];",
                                          "args": [{self.d.element_key: self.el[name]}, text]})

    def mine(self, mine):
        seat, seed = mine if mine else ("", "")
        self.d.click(self.d.find('#my-seat option[value="%s"]' % seat))
        if self.d.prop(self.el["my-seat"], "value") != str(seat):
            fail("choosing seat %r on the page did not take" % (seat,))
        if self.typed.get("my-seed") != seed:
            self.d.type_into(self.el["my-seed"], seed)
            self.typed["my-seed"] = seed

    def player(self, player=None, shown=()):
        """Types the player id and the commitments shown (empty for none)."""
        for name, text in (("my-player", "" if player is None else str(player)), ("shown-commitments", "\n".join(shown))):
            if self.typed.get(name) != text:
                self.d.type_into(self.el[name], text)
                self.typed[name] = text

    def set_kept(self, kept):
        """What the page keeps in the browser's storage: these rounds (entries as --keep's file
        holds them), or nothing for None."""
        text = None if kept is None else json.dumps({"rounds": kept})
        self.d.s("POST", "/execute/sync", {"script": "if (arguments[0] === null) localStorage.removeItem('dealcards-kept-rounds');"
                                                     " else localStorage.setItem('dealcards-kept-rounds', arguments[0]);",
                                          "args": [text]})

    def check_receipts(self, publication, receipts, mine=None, player=None, shown=()):
        """Pastes a publication and receipts (texts), gives the seat and seed, the player id and
        the commitments shown, and reads the verdicts."""
        self.set_text("publication", publication)
        self.set_text("receipts", receipts)
        self.mine(mine)
        self.player(player, shown)
        self.d.click(self.el["check-receipts"])
        return self.read_receipts()

    def read_receipts(self):
        self.wait_idle()
        return self.d.s("POST", "/execute/sync", {"script": READ_RECEIPTS, "args": []})

    def upload(self, name, paths, box):
        """Chooses files in a file input, as a user does, and waits for the page to read them
        into its text box."""
        self.d.s("POST", "/execute/sync", {"script": "arguments[0].removeAttribute('data-files');",
                                          "args": [{self.d.element_key: self.el[box]}]})
        self.d.s("POST", "/element/%s/value" % self.el[name], {"text": "\n".join(map(str, paths))})
        deadline = time.time() + 10
        while self.d.attr(self.el[box], "data-files") != str(len(paths)):
            if time.time() > deadline:
                fail("the page did not read the %d file(s) chosen in #%s" % (len(paths), name))
            time.sleep(0.05)

    def read(self):
        self.wait_idle()
        g = lambda n: self.d.text(self.el[n])
        r = {"error": g("error").strip()}
        if r["error"]:
            if self.d.s("GET", "/element/%s/displayed" % self.el["result"]):
                fail("the page shows an error and a result at once: %s" % r["error"])
            return r
        for n, field in (("seat1", "p1_cards"), ("seat2", "p2_cards"), ("seat3", "p3_cards"),
                         ("extra", "extra_cards")):
            shown = g(n + "-cards")
            if self.d.attr(self.el[n + "-cards"], "data-cards") != shown:
                fail("#%s-cards: data-cards and text differ" % n)
            r[field] = [int(x) for x in shown.split(",")] if shown else []
        r["leader"] = int(g("leader"))
        r["key"] = g("key")
        r["commitment_text"] = g("commitment-check")
        r["commitment_matches"] = {"true": True, "false": False, "none": None}[
            self.d.attr(self.el["commitment-check"], "data-match")]
        return r


# --- checks ---------------------------------------------------------------------------------------

FIELDS = ["p1_cards", "p2_cards", "p3_cards", "extra_cards", "leader"]


def strip_hex(h):
    h = h.strip()
    return h[2:] if h[:2] in ("\\x", "0x") else h


def normalize(deal, where):
    try:
        seeds = [s if s is not None else "" for s in deal["client_seeds"]]
        n = {"server_seed": strip_hex(deal["server_seed"]).lower(),
             "commitment": strip_hex(deal["commitment"]).lower() if deal.get("commitment") else None,
             "client_seeds": seeds, "nonce": int(deal["nonce"])}
        for f in FIELDS:
            n[f] = [int(c) for c in deal[f]] if f != "leader" else int(deal[f])
        n["key"] = deal.get("key")
        n["name"] = deal.get("name") or "%s, nonce %d" % (where, n["nonce"])
    except (KeyError, TypeError, ValueError) as e:
        fail("%s: a deal without a usable %s: %r" % (where, e, deal))
    if len(seeds) != 3:
        fail("%s: a deal with %d client seeds" % (where, len(seeds)))
    return n


def compare(label, got, want, fields=FIELDS):
    if got.get("error"):
        fail("%s: the page shows the error %r" % (label, got["error"]))
    for f in fields:
        if got[f] != want[f]:
            fail("%s: the page shows %s = %s, expected %s" % (label, f, got[f], want[f]))


def python_deal(server_seed, client_seeds, nonce, commitment):
    return verify_deal.verify(bytes.fromhex(server_seed), client_seeds, nonce,
                              bytes.fromhex(commitment) if commitment else None)


def check_cli(deal):
    args = [sys.executable, str(TOOL), "--server-seed", deal["server_seed"], "--nonce", str(deal["nonce"]), "--json"]
    for s in deal["client_seeds"]:
        args.append("--client-seed=" + s)
    if deal["commitment"]:
        args += ["--commitment", deal["commitment"]]
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode == 1:
        fail("%s: tools/verify_deal.py says the commitment does not match the server seed" % deal["name"])
    if p.returncode != 0:
        fail("%s: tools/verify_deal.py exited %d: %s" % (deal["name"], p.returncode, p.stderr.strip()))
    r = json.loads(p.stdout)
    for f in FIELDS:
        if r[f] != deal[f]:
            fail("%s: tools/verify_deal.py gives %s = %s, stored %s" % (deal["name"], f, r[f], deal[f]))
    if deal["commitment"] and r["commitment_matches"] is not True:
        fail("%s: tools/verify_deal.py says the commitment does not match" % deal["name"])
    # and with one hex digit of the server seed changed, exit status 1
    if deal["commitment"]:
        args[3] = flip_digit(deal["server_seed"])
        if subprocess.run(args, capture_output=True).returncode != 1:
            fail("%s: tools/verify_deal.py accepts a changed server seed" % deal["name"])


def flip_digit(h, i=0):
    return h[:i] + ("1" if h[i] != "1" else "2") + h[i + 1:]


def changed_seed(s):
    if len((s + "!").encode("utf-8")) <= 256:
        return s + "!"
    return ("?" if s[0] == "!" else "!") + s[1:]


def check_deal(page, deal, number, via_fragment=False):
    name = deal["name"]
    got = page.fill(deal["server_seed"], deal["commitment"], deal["client_seeds"], deal["nonce"])
    compare(name, got, deal)
    if deal["key"] and got["key"] != deal["key"]:
        fail("%s: the page shows key %s, expected %s" % (name, got["key"], deal["key"]))
    if deal["commitment"]:
        if got["commitment_matches"] is not True or got["commitment_text"] != "matches":
            fail("%s: the page says the commitment %r" % (name, got["commitment_text"]))
    elif got["commitment_matches"] is not None:
        fail("%s: no commitment given, but the page says %r" % (name, got["commitment_text"]))
    if via_fragment:
        compare(name + " (from the URL fragment)",
                page.via_fragment(deal["server_seed"], deal["commitment"], deal["client_seeds"], deal["nonce"]), deal)

    original = [deal[f] for f in FIELDS]
    seat = number % 3
    seeds = list(deal["client_seeds"])
    seeds[seat] = changed_seed(seeds[seat])
    nonce = deal["nonce"] + 1 if deal["nonce"] < verify_deal.MAX_NONCE else deal["nonce"] - 1
    server = flip_digit(deal["server_seed"], number % 64)
    for what, args in (("client seed %d changed" % (seat + 1), (deal["server_seed"], deal["commitment"], seeds, deal["nonce"])),
                       ("nonce %d" % nonce, (deal["server_seed"], deal["commitment"], deal["client_seeds"], nonce)),
                       ("server seed digit %d changed" % (number % 64 + 1), (server, deal["commitment"], deal["client_seeds"], deal["nonce"]))):
        label = "%s, %s" % (name, what)
        got = page.fill(*args)
        want = python_deal(args[0], args[2], args[3], args[1])
        compare(label, got, want, FIELDS + ["key"])
        if [got[f] for f in FIELDS] == original:
            fail("%s: the page shows the same deal as before the change" % label)
        if what.startswith("server") and deal["commitment"]:
            if got["commitment_matches"] is not False or not got["commitment_text"].startswith("DOES NOT match"):
                fail("%s: the page says the commitment %r" % (label, got["commitment_text"]))


def check_errors(page):
    good = "00" * 32
    cases = [
        ("a 63-digit server seed", (good[:63], None, ["", "", ""], 0), "server seed"),
        ("a non-hex server seed", ("zz" + good[2:], None, ["", "", ""], 0), "server seed"),
        ("a short commitment", (good, "abc", ["", "", ""], 0), "commitment"),
        ("a nonce that is not a number", (good, None, ["", "", ""], "1.5"), "nonce"),
        ("a negative nonce", (good, None, ["", "", ""], "-1"), "nonce"),
        ("a nonce of 2^63", (good, None, ["", "", ""], str(2**63)), "nonce"),
        ("a 257-byte client seed", (good, None, ["", "\u724c" * 85 + "ab", ""], 0), "257 bytes"),
    ]
    for label, args, needle in cases:
        got = page.fill(*args)
        if not got.get("error") or needle.lower() not in got["error"].lower():
            fail("the page does not reject %s with a clear message (shows %r)" % (label, got.get("error")))


def check_static():
    html = PAGE.read_text(encoding="utf-8")
    if CSP not in html or 'http-equiv="Content-Security-Policy"' not in html:
        fail("verifier/index.html lacks its Content-Security-Policy meta (%s)" % CSP)
    for pattern, what in ((r"https?:|//[a-z0-9.-]+\.[a-z]{2,}/", "a URL"), (r"\bsrc\s*=", "a src attribute"),
                          (r"<link\b", "a <link>"), (r"@import|url\(", "a CSS resource"),
                          (r"\b(fetch|XMLHttpRequest|WebSocket|EventSource|importScripts|sendBeacon)\b", "a network API"),
                          # SHA-256's first round constant: the hashes are the browser's Web Crypto.
                          (r"0x428a2f98", "a SHA-256 of its own")):
        m = re.search(pattern, html, re.I)
        if m:
            fail("verifier/index.html has %s: %r" % (what, html[max(0, m.start() - 30):m.end() + 30]))
    if not re.search(r'crypto\.subtle\.digest\("SHA-256"', html) or not re.search(r'crypto\.subtle\.sign\("HMAC"', html):
        fail("verifier/index.html does not hash with Web Crypto (crypto.subtle.digest and sign)")
    for href in re.findall(r'href\s*=\s*"([^"]*)"', html):
        if not href.startswith("#"):
            fail("verifier/index.html links to %r" % href)


def check_network(d, page_url):
    requests, seen_page = [], False
    for entry in d.logs("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg.get("method") == "Network.requestWillBeSent":
            url = msg["params"]["request"]["url"]
            if url.split("#")[0] != page_url:
                requests.append(url)
            else:
                seen_page = True
    if not seen_page:
        fail("the browser's network log does not show even the page itself; it cannot be checked")
    if requests:
        fail("the page made requests: %s" % ", ".join(sorted(set(requests))[:5]))
    problems = [e["message"] for e in d.logs("browser")
                if e.get("level") == "SEVERE" or "Content Security Policy" in e.get("message", "")]
    if problems:
        fail("the browser console reports: %s" % "; ".join(problems[:3]))


# --- receipts against a publication ------------------------------------------------------------

def receipts_text(receipts, k):
    """Receipts as a player pastes or saves them: one a line (as psql prints fair_receipt's),
    or as a JSON list, by turns."""
    if k % 2 == 0:
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in receipts)
    return json.dumps(receipts, ensure_ascii=False, indent=1)


def expected_rows(case):
    return [(str(r["game"]), v[0], v[1] or "") for r, v in zip(case.receipts, case.verdicts)]


def compare_verdicts(who, case, rows, desk_result, desk_checks):
    want = expected_rows(case)
    if len(rows) != len(want):
        fail("%s, %s: %d verdicts for %d receipts" % (who, case.name, len(rows), len(want)))
    for k, (got, w) in enumerate(zip(rows, want)):
        if tuple(got[:3]) != w:
            fail("%s, %s: receipt %d (game %s) is %s, expected %s (%s)"
                 % (who, case.name, k + 1, w[0], " / ".join(x for x in got[1:3] if x),
                    " / ".join(x for x in w[1:] if x), got[3] if len(got) > 3 else ""))
    if desk_result != case.desk[0] or set(desk_checks) != set(case.desk[1]):
        fail("%s, %s: the desk line is %s %s, expected %s %s"
             % (who, case.name, desk_result, sorted(desk_checks), case.desk[0], sorted(case.desk[1])))


def check_page_case(page, case, k):
    page.set_kept(case.kept)
    got = page.check_receipts(json.dumps(case.publication, ensure_ascii=False),
                              receipts_text(case.receipts, k), case.mine, case.player, case.shown)
    compare_page(case, got)
    compare_player_page(case, page.d.s("POST", "/execute/sync", {"script": READ_PLAYER, "args": []}))


# Cards as docs/provably_fair.md numbers them: rank A 2 .. K at (c-1)/4, suit clubs, diamonds,
# hearts, spades at (c-1)%4; 53 the small joker, 54 the big one.
def card_text(c):
    if c > 52:
        return "small joker" if c == 53 else "big joker"
    return ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"][(c - 1) // 4] + "\u2663\u2666\u2665\u2660"[(c - 1) % 4]


def card_is_red(c):
    return c == 54 or (c <= 52 and (c - 1) % 4 in (1, 2))


def compare_hands(where, game, hands, mine):
    """The hands of a published game as the page shows them: each seat's and the extra cards,
    sorted in Dou Dizhu order, as cards and not numbers; the player's seats marked."""
    if hands is None:
        fail("%s: no cards shown" % where)
    got = {h["seat"]: h for h in hands}
    if sorted(got) != ["1", "2", "3", "extra"] or len(hands) != 4:
        fail("%s: hands shown for %s" % (where, [h["seat"] for h in hands]))
    for seat, cards in zip(("1", "2", "3", "extra"), game["cards"]):
        h = got[seat]
        want = [[str(c), card_text(c), card_is_red(c)] for c in verify_deal.ddz_sort(cards)]
        if h["cards"] != want:
            fail("%s, seat %s: the cards shown are %s, expected %s" % (where, seat, h["cards"], want))
        if h["text"] != "".join(x[1] for x in want):
            fail("%s, seat %s: the hand reads %r besides its cards" % (where, seat, h["text"]))
        if h["mine"] != ("true" if seat != "extra" and int(seat) in mine else "false"):
            fail("%s: seat %s is %smarked as the player's" % (where, seat, "" if h["mine"] == "true" else "not "))


def compare_summary(case, got):
    """The summary: the counts of the verdicts (and of the games withheld, and of the receipts
    incomplete), marked "incomplete" and never green when the player id or the commitments
    shown are missing, with a line naming what is missing."""
    counts = [sum(1 for v in case.verdicts if v[0] == x) for x in (VERIFIED_, NOT_REVEALED_, OVERDUE_, FAILED_)]
    summary = "%d verified \u00b7 %d not revealed yet \u00b7 %d overdue \u00b7 %d failed" % tuple(counts)
    if case.withheld is not None:
        summary += " \u00b7 %d withheld" % len(case.withheld)
    incomplete = sum(1 for v in case.verdicts if v[0] == INCOMPLETE_)
    if incomplete:
        summary += " \u00b7 %d incomplete" % incomplete
    if case.ended_early:
        summary += " \u00b7 %d ended early" % len(case.ended_early)
    if case.forked:
        summary += " \u00b7 %d forked" % len(set(case.forked))
    missing = case.missing()
    if missing:
        summary = "incomplete: " + summary
    if got["summary"] != summary:
        fail("page, %s: the summary reads %r, expected %r" % (case.name, got["summary"], summary))
    results = {v[0] for v in case.verdicts}
    # The failure colour for a failure anywhere, the desk's line alone included, and for a
    # round ended early or forked.
    tone = ("bad" if FAILED_ in results or OVERDUE_ in results or case.withheld or case.forked
            or case.ended_early or case.desk[0] != VERIFIED_
            else "incomplete" if missing or INCOMPLETE_ in results else "" if NOT_REVEALED_ in results else "ok")
    if got["tone"] != tone or got["missing"] != ",".join(missing):
        fail("page, %s: the summary is marked %r (missing %r), expected %r (missing %r)"
             % (case.name, got["tone"], got["missing"], tone, ",".join(missing)))
    words = {"player": "your player id", "commitments": "the commitments you were shown"}
    if (got["incomplete"] is None) != (not missing) or (
            missing and not all(words[m] in got["incomplete"] for m in missing)):
        fail("page, %s: the incomplete line reads %r, missing %s" % (case.name, got["incomplete"], missing))


def compare_player_page(case, got):
    pub = case.publication
    compare_summary(case, got)
    compare_early_and_forked(case, got)
    if case.withheld is None:
        if got["withheld"] is not None:
            fail("page, %s: a withheld list with no player id given" % case.name)
    else:
        want = [(str(w[0]), withheld_text(w)) for w in case.withheld]
        if got["withheld"] is None or [tuple(x[:2]) for x in got["withheld"]] != want:
            fail("page, %s: withheld %s, expected %s" % (case.name, got["withheld"] and [x[1] for x in got["withheld"]], want))
        for (game, _, hands), w in zip(got["withheld"], case.withheld):
            compare_hands("page, %s, withheld game %s" % (case.name, game),
                          next(g for g in pub["games"] if str(g["game"]) == game), hands, w[3])
    for r, hands in zip(case.receipts, got["rows"]):
        published = [g for g in pub["games"] if g["game"] == r["game"] and r["desk"] == pub["desk"]]
        where = "page, %s, game %s" % (case.name, r["game"])
        if len(published) != 1:
            if hands is not None:
                fail("%s: cards shown of a game not published once" % where)
            continue
        g = published[0]
        mine = ([k + 1 for k, p in enumerate(g["players"]) if p == case.player] if case.player is not None
                else [case.mine[0]] if case.mine else [])
        compare_hands(where, g, hands, mine)


def compare_early_and_forked(case, got):
    """The rounds listed as ended early, each with its text and the deal it avoided (as cards,
    recomputed here from the round's seed) where it dealt games; the rounds listed as forked."""
    rounds = [int(x[0]) for x in got["ended_early"]]
    if rounds != case.ended_early:
        fail("page, %s: ended early %s, expected %s" % (case.name, rounds, case.ended_early))
    pub = case.publication
    for n, text, hands in got["ended_early"]:
        rnd = next(r for r in pub["rounds"] if r["round"] == int(n))
        games = [g for g in pub["games"] if g["round"] == int(n)]
        head = "ended early: round %s (commitment %s) was revealed at " % (n, rnd["commitment"])
        if not text.startswith(head) or ("after %d of its %d deals" % (len(games), rnd["max_deals"])) not in text:
            fail("page, %s: the ended early line reads %r" % (case.name, text))
        if not games:
            if hands is not None or "cannot be shown" not in text:
                fail("page, %s: round %s dealt no game, yet %r" % (case.name, n, text))
            continue
        d = verify_deal.verify(bytes.fromhex(rnd["server_seed"]), [bytes.fromhex(x) for x in games[-1]["client_seeds"]],
                               len(games))
        avoided = {"cards": [d["p1_cards"], d["p2_cards"], d["p3_cards"], d["extra_cards"]]}
        compare_hands("page, %s, the deal round %s avoided" % (case.name, n), avoided, hands, [])
        if "first bidder seat %d" % d["leader"] not in text:
            fail("page, %s: the deal round %s avoided has another first bidder: %r" % (case.name, n, text))
    forked = sorted({int(x[0]) for x in got["forked"]})
    if forked != sorted(set(case.forked)) or not all(x[1].startswith("forked: round ") for x in got["forked"]):
        fail("page, %s: forked %s, expected %s" % (case.name, [x[1] for x in got["forked"]], case.forked))


def withheld_text(w):
    game, rnd, nonce, seats = w
    return "withheld: game %d (round %d, nonce %d), %s" % (
        game, rnd, nonce, "seat %d" % seats[0] if len(seats) == 1
        else "seats %s and %d" % (", ".join(map(str, seats[:-1])), seats[-1]))


def compare_page(case, got):
    if got["error"] or not got["shown"]:
        fail("page, %s: no verdicts shown (error: %r)" % (case.name, got["error"]))
    for game, result, check, text in got["rows"]:
        lead = result + (": %s: " % check if check else "")
        if not (text == lead if not check else text.startswith(lead)):
            fail("page, %s: game %s shows %r for %s %s" % (case.name, game, text, result, check))
    desk_result, desk_checks, desk_text = got["desk"]
    if not desk_text.startswith("desk %d: %s" % (case.publication["desk"], desk_result)):
        fail("page, %s: the desk line reads %r" % (case.name, desk_text))
    compare_verdicts("page", case, got["rows"], desk_result, [c for c in desk_checks.split(",") if c])


def check_cli_case(case, k, tmp):
    pub = tmp / ("publication-%d.json" % k)
    pub.write_text(json.dumps(case.publication, ensure_ascii=False), encoding="utf-8")
    rs = tmp / ("receipts-%d.json" % k)
    rs.write_text(receipts_text(case.receipts, k), encoding="utf-8")
    args = [sys.executable, str(TOOL), "receipts", "--publication", str(pub), str(rs), "--json"]
    if case.mine:
        args += ["--seat", str(case.mine[0]), "--my-seed=" + case.mine[1]]
    if case.player is not None:
        args += ["--player", str(case.player)]
    for c in case.shown:
        args += ["--commitment", c]
    if case.kept is not None:
        keep = tmp / ("kept-%d.json" % k)
        keep.write_text(json.dumps({"rounds": case.kept}), encoding="utf-8")
        args += ["--keep", str(keep)]
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != case.exit_status():
        fail("tools/verify_deal.py receipts, %s: exit status %d, expected %d: %s"
             % (case.name, p.returncode, case.exit_status(), (p.stderr or p.stdout).strip()[:300]))
    out = json.loads(p.stdout)
    rows = [(str(x["game"]), x["result"], x["check"] or "", x["why"] or "") for x in out["receipts"]]
    compare_verdicts("tools/verify_deal.py receipts", case, rows, out["desk"]["result"],
                     [x["check"] for x in out["desk"]["problems"]])
    withheld = out.get("withheld")
    want = None if case.withheld is None else [{"game": w[0], "round": w[1], "nonce": w[2], "seats": w[3]}
                                               for w in case.withheld]
    if withheld != want or out.get("player") != case.player:
        fail("tools/verify_deal.py receipts, %s: player %s, withheld %s, expected %s"
             % (case.name, out.get("player"), withheld, want))
    early = [e["round"] for e in out["ended_early"]]
    forked = None if out["forked"] is None else sorted({f["round"] for f in out["forked"]})
    if early != case.ended_early or forked != (None if case.kept is None else sorted(set(case.forked))):
        fail("tools/verify_deal.py receipts, %s: ended early %s, forked %s, expected %s and %s"
             % (case.name, early, forked, case.ended_early, case.forked))


def check_cli_player_text(case, tmp):
    """The withheld lines a person reads, after the receipts' and before the desk's; and when
    nothing is withheld, one line that says so."""
    pub, rs = tmp / "player-publication.json", tmp / "player-receipts.jsonl"
    pub.write_text(json.dumps(case.publication), encoding="utf-8")
    rs.write_text(receipts_text(case.receipts, 0), encoding="utf-8")
    p = subprocess.run([sys.executable, str(TOOL), "receipts", "--publication", str(pub), str(rs),
                        "--player", str(case.player)] + ["--commitment=" + c for c in case.shown],
                       capture_output=True, text=True)
    lines = [x for x in p.stdout.splitlines() if not x.startswith("incomplete: ")][len(case.receipts):-1]
    want = [withheld_text(w) for w in case.withheld] or [
        "player %d: nothing withheld: a receipt was given for each of the %d published games that name you"
        % (case.player, sum(1 for g in case.publication["games"] if case.player in g["players"]))]
    if p.returncode != case.exit_status() or lines != want:
        fail("tools/verify_deal.py receipts --player, %s: exit status %d, withheld lines %s, expected %s"
             % (case.name, p.returncode, lines, want))


def check_cli_dash_values(case, tmp):
    """A seed and a player id that start with "-", after their option or joined to it by "="."""
    pub, rs = tmp / "dash-publication.json", tmp / "dash-receipts.jsonl"
    pub.write_text(json.dumps(case.publication), encoding="utf-8")
    rs.write_text(receipts_text(case.receipts, 0), encoding="utf-8")
    seat, seed = case.mine
    player = case.receipts[0]["players"][seat - 1]
    for form in (["--my-seed", seed, "--player", str(-abs(player) - 1)],
                 ["--my-seed=" + seed, "--player=%d" % (-abs(player) - 1)]):
        args = [sys.executable, str(TOOL), "receipts", "--publication", str(pub), "--seat", str(seat)] + form + [str(rs), "--json"]
        args += ["--commitment=%d:%s" % (r["round"], r["commitment"]) for r in case.publication["rounds"]]
        p = subprocess.run(args, capture_output=True, text=True)
        if p.returncode != 0 or json.loads(p.stdout)["receipts"][0]["result"] != VERIFIED_:
            fail("tools/verify_deal.py receipts %s: exit status %d: %s"
                 % (" ".join(form), p.returncode, (p.stderr or p.stdout).strip()[:300]))
        if json.loads(p.stdout)["player"] != -abs(player) - 1:
            fail("tools/verify_deal.py receipts %s: the player is read as %s" % (" ".join(form), json.loads(p.stdout)["player"]))
    # Another seed that starts with "-" fails the seat check, not the argument parser.
    args = [sys.executable, str(TOOL), "receipts", "--publication", str(pub), "--seat", str(seat),
            "--my-seed", "-y", str(rs), "--json"]
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 1 or json.loads(p.stdout)["receipts"][0]["check"] != "seat":
        fail("tools/verify_deal.py receipts --my-seed -y: exit status %d: %s" % (p.returncode, (p.stderr or p.stdout).strip()[:300]))


def check_bad_player_input(page, bad, case, tmp):
    """A bad player id or commitment shown: refused with a clear message by both."""
    pub, rs = tmp / "badp-publication.json", tmp / "badp-receipts.jsonl"
    pub.write_text(json.dumps(case.publication), encoding="utf-8")
    rs.write_text(receipts_text(case.receipts, 0), encoding="utf-8")
    for name, player, shown, words in bad:
        got = page.check_receipts(json.dumps(case.publication), receipts_text(case.receipts, 0), None, player, shown)
        if got["shown"] or words.lower() not in got["error"].lower():
            fail("the page does not refuse %s with a clear message (shows %r)" % (name, got["error"]))
        args = [sys.executable, str(TOOL), "receipts", "--publication", str(pub), str(rs)]
        args += ["--player", player] if player else []
        for c in shown:
            args += ["--commitment", c]
        p = subprocess.run(args, capture_output=True, text=True)
        if p.returncode != 2 or words.lower() not in p.stderr.lower() or "Traceback" in p.stderr:
            fail("tools/verify_deal.py receipts does not refuse %s (exit %d): %s" % (name, p.returncode, p.stderr.strip()))
    page.player(None, ())


def check_cli_text(case, tmp):
    """The lines a person reads: one per receipt, then the desk's."""
    pub, rs = tmp / "text-publication.json", tmp / "text-receipts.jsonl"
    pub.write_text(json.dumps(case.publication), encoding="utf-8")
    rs.write_text(receipts_text(case.receipts, 0), encoding="utf-8")
    p = subprocess.run([sys.executable, str(TOOL), "receipts", "--publication", str(pub), str(rs)],
                       capture_output=True, text=True)
    lines = p.stdout.splitlines()
    # No player id and no commitments shown: a last line says the check is incomplete.
    if lines and lines[-1].startswith("incomplete: not given: your player id (--player)") and case.missing():
        lines = lines[:-1]
    if p.returncode != case.exit_status() or len(lines) != len(case.receipts) + 1:
        fail("tools/verify_deal.py receipts, %s: exit status %d and %d lines: %s"
             % (case.name, p.returncode, len(lines), p.stdout + p.stderr))
    for k, (line, r, v) in enumerate(zip(lines, case.receipts, case.verdicts)):
        head = "%s #%d: game %d (round %d, nonce %d): %s" % (rs, k + 1, r["game"], r["round"], r["nonce"], v[0])
        if not (line == head if v[0] not in ("failed", "overdue", "incomplete") else line.startswith(head + ": %s: " % v[1])):
            fail("tools/verify_deal.py receipts prints %r, expected %r" % (line, head))
    if not lines[-1].startswith("desk %d: %s" % (case.publication["desk"], case.desk[0])):
        fail("tools/verify_deal.py receipts ends with %r" % lines[-1])


def check_cli_chain():
    """verify_deal.py --chain gives each golden chain hash, under protocol 1 without players,
    under protocol 2 with them, and under protocol 3 with them and the round's rules as a
    publication gives them."""
    for c in json.loads(GOLDEN.read_text(encoding="utf-8"))["chain"]:
        cards = c["p1_cards"] + c["p2_cards"] + c["p3_cards"] + c["extra_cards"]
        args = [sys.executable, str(TOOL), "--chain", "--desk=%d" % c["desk"], "--commitment", c["commitment"],
                "--nonce", str(c["nonce"]), "--prev-hash", c["prev_hash"], "--cards", ",".join(map(str, cards)),
                "--leader", str(c["leader"]), "--json"]
        args += ["--client-seed=" + s for s in c["client_seeds"]] + ["--player=%d" % p for p in c.get("players", [])]
        if "rules" in c:
            args += ["--rules", json.dumps({k: c["rules"][k] for k in
                                            ("house_seats", "seeds_required", "max_deals", "reveal_by")})]
        p = subprocess.run(args, capture_output=True, text=True)
        if p.returncode != 0 or json.loads(p.stdout)["chain_hash"] != c["chain_hash"]:
            fail("tools/verify_deal.py --chain, %s: %s" % (c["name"], (p.stdout + p.stderr).strip()))


def check_page_by_hand(page, case, tmp):
    """The real desk's files chosen in the page's file inputs, then one receipt typed key by key
    and the player's own seat and seed."""
    pub, rs = tmp / "upload-publication.json", [tmp / "upload-a.jsonl", tmp / "upload-b.json"]
    pub.write_text(json.dumps(case.publication, ensure_ascii=False), encoding="utf-8")
    half = len(case.receipts) // 2
    rs[0].write_text(receipts_text(case.receipts[:half], 0), encoding="utf-8")
    rs[1].write_text(receipts_text(case.receipts[half:], 1), encoding="utf-8")
    page.upload("publication-file", [pub], "publication")
    page.upload("receipts-file", rs, "receipts")
    page.mine(case.mine)
    page.player(None, ())
    page.d.click(page.el["check-receipts"])
    compare_page(case, page.read_receipts())
    # Typed: the first receipt, with its seat 1's seed given as the player typed it.
    r = case.receipts[0]
    seed = bytes.fromhex(r["client_seeds"][0]).decode("utf-8")
    one = receipt_cases.Case(case.name + ", one receipt typed", case.publication, [r], case.verdicts[:1],
                             mine=(1, seed))
    page.d.type_into(page.el["receipts"], json.dumps(r, ensure_ascii=False))
    page.mine(one.mine)
    page.d.click(page.el["check-receipts"])
    compare_page(one, page.read_receipts())
    # What a person sees: the visible verdict text.
    shown = page.d.text(page.d.find("#receipt-1 .verdict"))
    result, check = one.verdicts[0]
    if not (shown == result if check is None else shown.startswith("%s: %s: " % (result, check))):
        fail("page, %s: the verdict reads %r" % (one.name, shown))


def check_page_keeps(page, case):
    """The page keeps, across checks, what each saw of the revealed rounds: after the real desk
    is checked, its storage holds each revealed round with its games; the same desk published
    again with the first round's last game gone (the chain relinked) is then forked in every
    revealed round, and the storage left as it was; once the page forgets what it kept, that publication is not."""
    pub = case.publication
    read_kept = {"script": "return localStorage.getItem('dealcards-kept-rounds');", "args": []}
    player = {"script": READ_PLAYER, "args": []}
    page.set_kept(None)
    page.check_receipts(json.dumps(pub), receipts_text(case.receipts, 0))
    kept = json.loads(page.d.s("POST", "/execute/sync", read_kept) or "null")
    revealed = [r["round"] for r in pub["rounds"] if r["server_seed"] is not None]
    want = [{"desk": pub["desk"], "round": n, "commitment": next(r["commitment"] for r in pub["rounds"] if r["round"] == n),
             "games": sum(1 for g in pub["games"] if g["round"] == n),
             "last_chain_hash": [g["chain_hash"] for g in pub["games"] if g["round"] == n][-1]} for n in revealed]
    if kept is None or sorted(kept["rounds"], key=lambda e: e["round"]) != want:
        fail("page: after a check, the browser keeps %s, expected %s" % (kept, want))
    p = copy.deepcopy(pub)
    last = max(i for i, g in enumerate(p["games"]) if g["round"] == revealed[0])
    del p["games"][last]
    receipt_cases.relink(p, last)
    rs = receipts_text([receipt_cases.receipt_of(p, g) for g in p["games"]], 0)
    page.check_receipts(json.dumps(p), rs)
    got = page.d.s("POST", "/execute/sync", player)
    # The relinked chain changes the last chain hash of every later revealed round too.
    if sorted({int(x[0]) for x in got["forked"]}) != revealed or got["tone"] != "bad":
        fail("page: a publication with one game fewer under a kept round: forked %s, summary %r (%s)"
             % (got["forked"], got["summary"], got["tone"]))
    if json.loads(page.d.s("POST", "/execute/sync", read_kept)) != kept:
        fail("page: a check that found a fork changed what the browser keeps")
    page.d.click(page.d.find("#forget-kept"))
    if page.d.s("POST", "/execute/sync", read_kept) is not None:
        fail("page: forgetting the rounds kept left them in the browser")
    page.check_receipts(json.dumps(p), rs)
    if page.d.s("POST", "/execute/sync", player)["forked"]:
        fail("page: forked with nothing kept")
    page.set_kept(None)


def check_bad_receipt_input(page, bad, tmp):
    for k, (name, pub, rs, words) in enumerate(bad):
        page.set_text("publication", pub)
        page.set_text("receipts", rs)
        page.mine(None)
        page.player(None, ())
        page.d.click(page.el["check-receipts"])
        got = page.read_receipts()
        if got["shown"] or words.lower() not in got["error"].lower():
            fail("the page does not refuse %s with a clear message (shows %r)" % (name, got["error"]))
        p_pub, p_rs = tmp / ("bad-pub-%d.json" % k), tmp / ("bad-receipts-%d.json" % k)
        p_pub.write_text(pub, encoding="utf-8")
        p_rs.write_text(rs, encoding="utf-8")
        p = subprocess.run([sys.executable, str(TOOL), "receipts", "--publication", str(p_pub), str(p_rs)],
                           capture_output=True, text=True)
        if p.returncode != 2 or words.lower() not in p.stderr.lower():
            fail("tools/verify_deal.py receipts does not refuse %s (exit %d): %s"
                 % (name, p.returncode, p.stderr.strip()))


def load_receipts(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def load_deals(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    deals = data["deals"] if isinstance(data, dict) else data
    if not isinstance(deals, list):
        fail("%s holds no list of deals" % path)
    return [normalize(x, "%s deal %d" % (Path(path).name, i + 1)) for i, x in enumerate(deals)]


def main():
    start = time.time()
    ap = argparse.ArgumentParser(description="Checks the verifier page and tools/verify_deal.py.")
    ap.add_argument("--publication", help="a desk's fair_publication")
    ap.add_argument("--receipts", help="the desk's receipts (fair_receipt's), one a line")
    ap.add_argument("--notified", help="the desk's notifications' payloads, one a line")
    ap.add_argument("deals", nargs="*", help="files of revealed deals")
    a = ap.parse_args()
    files = [str(GOLDEN)] + a.deals
    chromium = os.environ.get("CHROMIUM") or shutil.which("chromium") or "chromium"
    chromedriver = os.environ.get("CHROMEDRIVER") or shutil.which("chromedriver") or "chromedriver"
    d = None
    players, dash = [], None
    tmp_dir = tempfile.TemporaryDirectory(prefix="dealcards-verifier-")
    tmp = Path(tmp_dir.name)
    try:
        check_static()
        deals = []
        for path in files:
            deals += [(x, path == str(GOLDEN)) for x in load_deals(path)]
        cases = receipt_cases.golden_cases()
        if (a.publication is None) != (a.receipts is None):
            fail("--publication and --receipts go together")
        if a.publication:
            with open(a.publication, encoding="utf-8") as f:
                pub = json.load(f)
            receipts = load_receipts(a.receipts)
            if a.notified and load_receipts(a.notified) != receipts:
                fail("the notifications of the deals are not the receipts fair_receipt gives")
            try:
                real = receipt_cases.real_cases(pub, receipts)
                # The player's cases take the receipts as the deals notified them: the whole
                # receipt, whatever deal_cards itself returns.
                notified = load_receipts(a.notified) if a.notified else receipts
                players = receipt_cases.player_cases(pub, notified)
                dash = receipt_cases.dash_seed_case(pub)
            except ValueError as e:
                fail(str(e))
            cases = real + cases + players + [dash]
        else:
            pub, receipts = cases[0].publication, cases[0].receipts
        bad = receipt_cases.bad_inputs(pub, receipts)

        d = Driver(chromedriver, chromium)
        page = Page(d)
        for i, (deal, golden) in enumerate(deals):
            check_deal(page, deal, i, via_fragment=golden)
        check_errors(page)
        for k, case in enumerate(cases):
            check_page_case(page, case, k)
        page.set_kept(None)
        check_page_by_hand(page, cases[0], tmp)
        if a.publication:
            check_page_keeps(page, cases[0])
        check_bad_receipt_input(page, bad, tmp)
        check_bad_player_input(page, receipt_cases.bad_player_inputs(pub), cases[0], tmp)
        check_network(d, page.url)
        version = d.browser_version
        d.quit()
        d = None
        for deal, _ in deals:
            check_cli(deal)
        for k, case in enumerate(cases):
            check_cli_case(case, k, tmp)
        check_cli_text(cases[0], tmp)
        check_cli_chain()
        if a.publication:
            for case in players:
                if case.player is not None:
                    check_cli_player_text(case, tmp)
            check_cli_dash_values(dash, tmp)
    except Failure as e:
        print("verifier page: FAILED: %s" % e, file=sys.stderr)
        return 1
    finally:
        if d:
            d.quit()
        tmp_dir.cleanup()
    golden = sum(1 for _, g in deals if g)
    print("verifier page: %d deals checked in chromium %s (%d golden, %d from %s), "
          "3 changes each, tools/verify_deal.py agrees, no network requests"
          % (len(deals), version, golden, len(deals) - golden, ", ".join(files[1:]) or "no other file"))
    print("receipts: %d cases of a publication and receipts (%d receipts; %d as dealt, %d golden, "
          "%d tampered with) checked on the page and with tools/verify_deal.py receipts; %d kinds "
          "of bad input refused; %.1fs"
          % (len(cases), sum(len(c.receipts) for c in cases), 1 if a.publication else 0,
             sum(1 for c in cases if c.name.startswith("golden")),
             sum(1 for c in cases if c.name != "the desk as dealt" and not c.name.startswith("golden")
                 and c not in players and c is not dash),
             len(bad), time.time() - start))
    if a.publication:
        print("players' inputs: %d cases of a player id (%d games withheld in all) or commitments shown, "
              "from the receipts as notified, and a seed starting with \"-\"; hands shown as cards; "
              "%d kinds of bad player id or commitment refused"
              % (len(players), sum(len(c.withheld or ()) for c in players), len(receipt_cases.bad_player_inputs(pub))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
