#!/usr/bin/python3
"""Checks an mdlsim HTML report against the JSON report of the same result, on the DOM that headless
Chromium renders: verdict, heat map cells, top-down segments and instruction rows must say what the
JSON says.

usage: check_html.py PAGE.html REPORT.json [--screenshot OUT.png]
exit: 0 all hold; 1 mismatches (each printed); 2 Chromium missing or failing, bad arguments."""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
from html.parser import HTMLParser

REL = 1e-5          # data-* are "%.6g", JSON numbers exact: equal within the page's six digits
SUM_TOL = 1e-4      # the top-down leaves (the page's, six digits each) add to 1 within their rounding
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent = tag, dict(attrs), parent
        self.children = []

    def walk(self):
        yield self
        for c in self.children:
            if isinstance(c, Node):
                yield from c.walk()

    def text(self):
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)


class Tree(HTMLParser):
    """The rendered DOM as nodes; an end tag closes up to its open element (the serialisation
    Chromium writes is well formed, this only keeps a stray tag from losing the rest)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", [], None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.cur)
        self.cur.children.append(node)
        if tag not in VOID:
            self.cur = node

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not self.root and n.tag != tag:
            n = n.parent
        if n is not self.root:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.children.append(data)


def give_up(msg):
    """The page could not be checked (not: the page is wrong)."""
    print("check_html: " + msg, file=sys.stderr)
    sys.exit(2)


def find_chromium():
    for name in ("/usr/bin/chromium", "chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium_run(chromium, args, timeout=180):
    # A profile of its own: runs in parallel (make -j) must not share Chromium's profile lock.
    with tempfile.TemporaryDirectory(prefix="check_html.") as profile:
        cmd = [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
               "--no-first-run", "--user-data-dir=" + profile] + args
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def render(chromium, uri):
    p = chromium_run(chromium, ["--dump-dom", uri])
    if p.returncode != 0 or "<html" not in p.stdout:
        give_up("chromium could not render %s (exit %d):\n%s" % (uri, p.returncode, p.stderr[-2000:]))
    return p.stdout


def screenshot(chromium, uri, png):
    p = chromium_run(chromium, ["--screenshot=" + os.path.abspath(png), "--window-size=1400,2400",
                                "--hide-scrollbars", uri])
    if p.returncode != 0 or not os.path.exists(png):
        give_up("chromium took no screenshot (exit %d):\n%s" % (p.returncode, p.stderr[-2000:]))


def close(a, b, rel=REL):
    if a is None or b is None:
        return a is b
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= rel * max(abs(a), abs(b)) or abs(a - b) <= 1e-12


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def by_id(root, ident):
    return next((n for n in root.walk() if n.attrs.get("id") == ident), None)


def within(root, ident, attr):
    """The elements below the element with id IDENT that carry ATTR ([] without it)."""
    top = by_id(root, ident)
    return [n for n in top.walk() if attr in n.attrs] if top else []


def attr_int(root, ident, attr):
    """An integer attribute anywhere below IDENT (the hidden/omitted counts), 0 when absent."""
    nodes = within(root, ident, attr)
    return int(nodes[0].attrs[attr]) if nodes else 0


def check_verdict(root, report, bad):
    node = by_id(root, "verdict")
    if node is None:
        bad.append("verdict: no element with id=verdict")
    elif node.text().strip() != (report.get("verdict") or "").strip():
        bad.append("verdict: page %r, JSON %r" % (node.text().strip(), report.get("verdict")))


def check_curve(name, cells, curve, bad):
    points = curve["points"]
    if len(cells) != len(points):
        bad.append("heatmap %s: %d cells, JSON %d points" % (name, len(cells), len(points)))
    for c in cells:
        w, s = num(c.attrs.get("data-weight")), num(c.attrs.get("data-speedup"))
        match = [p for p in points if close(p["weight"], w)]
        if not match:
            bad.append("heatmap %s: cell at weight %s, which the JSON curve does not have" % (name, w))
        elif not close(match[0]["speedup"], s):
            bad.append("heatmap %s at %s: speed-up %s, JSON %s" % (name, w, s, match[0]["speedup"]))
    weights = [num(c.attrs.get("data-weight")) for c in cells]
    if len(set(weights)) != len(weights):
        bad.append("heatmap %s: two cells at one weight" % name)


def last_speedup(curve):
    return curve["points"][-1]["speedup"] if curve["points"] else 1.0


def check_heatmap(root, report, bad):
    if by_id(root, "heatmap") is None:
        bad.append("heatmap: no element with id=heatmap")
        return
    curves = {c["resource"]: c for c in report.get("curves") or []}
    rows = {}
    for cell in within(root, "heatmap", "data-resource"):
        rows.setdefault(cell.attrs["data-resource"], []).append(cell)
    for name, cells in rows.items():
        if name not in curves:
            bad.append("heatmap: row %r, which the JSON has no curve of" % name)
        else:
            check_curve(name, cells, curves[name], bad)
    hidden = attr_int(root, "heatmap", "data-hidden")
    shown = [n for n in rows if n in curves]
    if len(shown) + hidden != len(curves):
        bad.append("heatmap: %d rows shown + %d hidden, JSON %d curves" % (len(shown), hidden, len(curves)))
    left = [c for n, c in curves.items() if n not in rows]
    if shown and left and max(map(last_speedup, left)) > min(last_speedup(curves[n]) for n in shown) * (1 + REL):
        bad.append("heatmap: a hidden curve has a larger speed-up than a shown one")


def topdown_expected(td):
    want = {"retiring": td["retiring"], "bad_speculation": td["bad_speculation"],
            "frontend_latency": td["frontend_latency"], "frontend_bandwidth": td["frontend_bandwidth"],
            "core_bound": td["core_bound"]}
    levels = td.get("memory_levels") or []
    for lv in levels:
        want["memory:" + lv["level"]] = lv["share"]
    if not levels:
        want["memory"] = td["memory_bound"]
    return want


def check_topdown(root, report, bad):
    segs = {n.attrs["data-category"]: num(n.attrs.get("data-share")) for n in within(root, "topdown", "data-category")}
    td = report.get("topdown")
    if td is None:
        if segs:
            bad.append("topdown: the JSON has none, the page %d segments" % len(segs))
        return
    if by_id(root, "topdown") is None:
        bad.append("topdown: no element with id=topdown")
        return
    want = topdown_expected(td)
    for cat in sorted(set(want) | set(segs)):
        if cat not in segs:
            bad.append("topdown: no segment %r" % cat)
        elif cat not in want:
            bad.append("topdown: segment %r, which the JSON does not have" % cat)
        elif not close(segs[cat], want[cat]):
            bad.append("topdown %s: page %s, JSON %s" % (cat, segs[cat], want[cat]))
    total = sum(v for v in segs.values() if v is not None)
    if abs(total - 1) > SUM_TOL:
        bad.append("topdown: the segments add to %.6g, not 1" % total)


def check_table(root, report, bad):
    if by_id(root, "instructions") is None:
        bad.append("instructions: no element with id=instructions")
        return
    table = {e["index"]: e for e in report.get("table") or []}
    seen = set()
    for tr in (n for n in within(root, "instructions", "data-index") if n.tag == "tr"):
        i = int(tr.attrs["data-index"])
        if i in seen:
            bad.append("instructions: two rows of index %d" % i)
        seen.add(i)
        e = table.get(i)
        if e is None:
            bad.append("instructions: row %d, which the JSON table does not have" % i)
            continue
        if not close(num(tr.attrs.get("data-critical")), float(e.get("critical", 0))):
            bad.append("instructions %d: critical %s, JSON %s" % (i, tr.attrs.get("data-critical"), e.get("critical")))
        if "pc" in e and int(tr.attrs.get("data-pc", "-1"), 0) != e["pc"]:
            bad.append("instructions %d: pc %s, JSON %#x" % (i, tr.attrs.get("data-pc"), e["pc"]))
    # Every JSON row is shown or counted as left out, and those left out are no hotter than those shown.
    omitted = attr_int(root, "instructions", "data-omitted")
    missing = [e for i, e in table.items() if i not in seen]
    if len(missing) > omitted:
        bad.append("instructions: %d JSON rows not shown, the page says %d are left out" % (len(missing), omitted))
    coldest = min((table[i].get("executions", 0) for i in seen if i in table), default=None)
    if coldest is not None and any(e.get("executions", 0) > coldest for e in missing):
        bad.append("instructions: a row left out was executed more often than a row shown")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("page")
    ap.add_argument("report")
    ap.add_argument("--screenshot", metavar="OUT.png")
    a = ap.parse_args()
    chromium = find_chromium()
    if chromium is None:
        give_up("chromium is not installed (apt-get install chromium); cannot render the page")
    if not os.path.isfile(a.page):
        give_up("no page %s" % a.page)
    try:
        with open(a.report) as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        give_up("cannot read the JSON report %s: %s" % (a.report, e))
    uri = "file://" + os.path.abspath(a.page)
    tree = Tree()
    tree.feed(render(chromium, uri))
    tree.close()
    bad = []
    for check in (check_verdict, check_heatmap, check_topdown, check_table):
        check(tree.root, report, bad)
    if a.screenshot:
        screenshot(chromium, uri, a.screenshot)
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except subprocess.TimeoutExpired:
        give_up("chromium did not finish in time")
