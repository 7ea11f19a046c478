#!/usr/bin/env python3
"""Pictures (issue 25, item 4), end to end.

usage: check_pictures.py MODE CTRL WORKDIR LANES PROGRAM [CTRL_ARGS... --] [PROGRAM_ARGS...]

  html  attach finds the PROGRAM's bug and saves its trace; `ctrl report
        TRACE --html` draws it; headless Chromium loads the page (file://, no
        network) and dumps the DOM its script built, and a screenshot kept in
        WORKDIR. The DOM must show: the script ran (body data-drawn), LANES
        lanes, a box per step with its source line, the deciding steps and at
        least one deciding-pair arrow between drawn steps, and, with --model
        c11/rc11/ra, reads-from arrows (one per read), with --model tso/pso,
        buffered stores, flushes and the arrows between them. Exits 77 (CTest
        skip) when no chromium is installed, and only then.
  dot   the same trace drawn with `ctrl report TRACE --dot`: the graph's text
        is checked structurally (no Graphviz needed): LANES clusters, a node
        per step, po edges = steps - threads, at least one deciding edge,
        reads-from edges under c11/rc11, flush edges under tso/pso.
"""
import glob
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys

MODE, CTRL, WORK, LANES, PROGRAM = sys.argv[1:6]
LANES = int(LANES)
rest = sys.argv[6:]
if "--" in rest:
    CTRL_ARGS, PROGRAM_ARGS = rest[: rest.index("--")], rest[rest.index("--") + 1:]
else:
    CTRL_ARGS, PROGRAM_ARGS = rest, []
MODEL = CTRL_ARGS[CTRL_ARGS.index("--model") + 1] if "--model" in CTRL_ARGS else "sc"


def expect(cond, what):
    if not cond:
        sys.exit(f"FAILED: {what}")


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if MODE == "html" and not CHROMIUM:
    print("SKIPPED: no chromium installed (apt-get install chromium); the page is not checked")
    sys.exit(77)

shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
os.chdir(WORK)


def run(cmd, timeout=100):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


code, out, err = run([CTRL, "attach", "--trace-dir", "traces", *CTRL_ARGS, PROGRAM, *PROGRAM_ARGS])
expect(code == 1, f"attach should find the bug (exit {code}):\n{out}\n{err}")
traces = sorted(glob.glob("traces/*"))
expect(len(traces) == 1, f"one trace saved, found {traces}")
trace = traces[0]

if MODE == "dot":
    code, out, err = run([CTRL, "report", trace, "--dot", "graph.dot"])
    expect(code == 1, f"report should reproduce the bug (exit {code}):\n{out}\n{err}")
    dot = open("graph.dot").read()
    expect(dot.startswith("digraph execution {") and dot.rstrip().endswith("}"), "a digraph")
    clusters = re.findall(r"^  subgraph cluster_\d+ \{$", dot, re.M)
    nodes = set(re.findall(r"^    (s\d+) \[label=", dot, re.M))
    edges = re.findall(r"^  (\w+) -> (\w+) \[class=(\w+)", dot, re.M)
    kinds = {}
    for a, b, k in edges:
        kinds.setdefault(k, []).append((a, b))
        expect(a in nodes or a == "init", f"edge from an undeclared node {a}")
        expect(b in nodes or re.fullmatch(r"w\d+", b), f"edge to an undeclared node {b}")
    print(f"dot: {len(clusters)} clusters, {len(nodes)} steps, " +
          ", ".join(f"{len(v)} {k}" for k, v in sorted(kinds.items())))
    expect(len(clusters) == LANES, f"{LANES} thread clusters, found {len(clusters)}")
    expect(len(kinds.get("po", [])) == len(nodes) - LANES,
           f"po edges = steps - threads ({len(nodes)} - {LANES}), found {len(kinds.get('po', []))}")
    expect(kinds.get("decides") or kinds.get("wait"), "a deciding pair edge")
    if MODEL in ("c11", "rc11", "ra"):
        expect(len(kinds.get("rf", [])) >= 2, "reads-from edges")
    else:
        expect(not kinds.get("rf"), f"no reads-from edges under {MODEL}")
    if MODEL in ("tso", "pso"):
        expect(kinds.get("flush"), "flush edges from buffered stores")
    print("dot: OK")
    sys.exit(0)

code, out, err = run([CTRL, "report", trace, "--html", "page.html"])
expect(code == 1, f"report should reproduce the bug (exit {code}):\n{out}\n{err}")
page = open("page.html").read()
expect("http://" not in page.replace("http://www.w3.org/2000/svg", "") and "https://" not in page,
       "no network address in the page")
expect(not re.search(r"<(script|link|img)[^>]*\b(src|href)=", page), "nothing loaded from elsewhere")
data = json.loads(re.search(r'<script type="application/json" id="ctrl-data">(.*?)</script>', page, re.S).group(1))
page_url = "file://" + os.path.abspath("page.html")
profile = os.path.abspath("chromium-profile")
chrome = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
          f"--user-data-dir={profile}", "--virtual-time-budget=5000"]
code, dom, err = run([*chrome, "--dump-dom", page_url], timeout=100)
expect(code == 0 and dom.strip(), f"chromium --dump-dom failed ({code}): {err[-2000:]}")
open("dom.html", "w").write(dom)
code, _, err = run([*chrome, "--screenshot=" + os.path.abspath("page.png"), "--window-size=1400,1000", page_url],
                   timeout=100)
expect(code == 0 and os.path.getsize("page.png") > 1000, f"chromium --screenshot failed ({code}): {err[-2000:]}")


class Dom(html.parser.HTMLParser):
    """Every element's tag, classes and attributes, in document order."""

    def __init__(self):
        super().__init__()
        self.elements = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.elements.append((tag, set((a.get("class") or "").split()), a))


d = Dom()
d.feed(dom)
els = d.elements


def having(cls, tag=None):
    return [a for t, c, a in els if cls in c and (tag is None or t == tag)]


body = [a for t, c, a in els if t == "body"]
expect(body and body[0].get("data-drawn") == "yes", "the page's script ran (body data-drawn=yes)")
expect([a for t, c, a in els if t == "svg" and a.get("id") == "picture"], "an svg#picture")
lanes = having("lane", "g")
steps = [a for a in having("step", "g") if "data-index" in a]
decides = [a for t, c, a in els if t == "g" and "step" in c and "decides" in c]
pairs = having("pair", "path")
waits = having("wait", "path")
rf = having("rf", "path")
buffered = [a for t, c, a in els if t == "g" and "step" in c and "buffered" in c]
flushes = [a for t, c, a in els if t == "g" and "step" in c and "flush" in c]
buffer_edges = having("buffer-edge", "path")
print(f"html: {len(lanes)} lanes, {len(steps)} steps, {len(decides)} deciding, {len(pairs)} pair arrows, "
      f"{len(waits)} wait arrows, {len(rf)} rf arrows, {len(buffered)} buffered, {len(flushes)} flushes, "
      f"{len(buffer_edges)} buffer arrows; screenshot {os.path.abspath('page.png')}")
expect(len(lanes) == LANES, f"{LANES} lanes, found {len(lanes)}")
expect(len(steps) == len(data["steps"]) and len(steps) > 0, f"a box per step ({len(data['steps'])}), found {len(steps)}")
# Every box names its source line (the samples are built with -g).
sources = [s["source"] for s in data["steps"] if s["source"]]
expect(len(sources) >= len(steps) // 2 and any(os.path.basename(PROGRAM) in s for s in sources),
       f"source lines of {os.path.basename(PROGRAM)} in the boxes: {sources[:5]}")
src_texts = re.findall(r'<text[^>]*class="src"[^>]*>([^<]*)</text>', dom)
expect(any(re.search(r"\.c:\d+", t) for t in src_texts), "a drawn source line")
expect(len(decides) >= 2, f"deciding steps highlighted, found {len(decides)}")
drawn = {int(a["data-index"]) for a in steps}
decides_idx = {int(a["data-index"]) for a in decides}
expect(pairs or waits, "a deciding pair arrow")
for p in pairs:
    expect(int(p["data-first"]) in decides_idx and int(p["data-second"]) in decides_idx,
           f"a pair arrow joins two highlighted steps: {p}")
if MODEL in ("c11", "rc11", "ra"):
    expect(len(rf) >= 2 and len(rf) == len(data["rf"]), f"a reads-from arrow per read ({len(data['rf'])}), found {len(rf)}")
    for a in rf:
        expect(int(a["data-read"]) in drawn, "a reads-from arrow ends at a drawn step")
else:
    expect(not rf, f"no reads-from arrows under {MODEL}")
if MODEL in ("tso", "pso"):
    expect(buffered and flushes and buffer_edges, "buffered stores, flushes and the arrows between them")
    for a in buffer_edges:
        expect(int(a["data-store"]) in {int(b["data-index"]) for b in buffered}, "a buffer arrow leaves a buffered store")
        expect(int(a["data-flush"]) in {int(b["data-index"]) for b in flushes}, "a buffer arrow reaches a flush")
else:
    expect(not buffered and not flushes, f"no store buffers under {MODEL}")
print("html: OK")
