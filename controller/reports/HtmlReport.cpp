#include "reports/HtmlReport.h"

#include <string_view>

namespace ctrl {

namespace {

// The data goes inside a <script> element: no "<" may appear in it, or
// "</script>" in a string would end the element. JSON has "<" only inside
// strings, where \u003c means the same.
std::string embeddable(const nlohmann::json& j) {
  std::string text = j.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '<')
      out += "\\u003c";
    else
      out += c;
  }
  return out;
}

constexpr std::string_view kHead = R"page(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>ctrl: execution picture</title>
<style>
body { font: 13px/1.4 system-ui, sans-serif; margin: 16px; color: #222; background: #fff; }
h1 { font-size: 18px; margin: 0 0 4px; }
#summary { margin: 0 0 8px; white-space: pre-wrap; }
#legend span { display: inline-block; margin-right: 14px; }
#legend i { display: inline-block; width: 14px; height: 10px; margin-right: 4px; border: 1px solid #555; }
svg text { font: 11px ui-monospace, monospace; }
.lane rect { fill: #f4f6f8; stroke: #ccd; }
.lane text { font: bold 13px system-ui, sans-serif; }
.step rect { fill: #fff; stroke: #889; }
.step .src { fill: #555; }
.step.decides rect { fill: #ffe1e1; stroke: #c00; stroke-width: 2; }
.step.preempts rect { stroke: #e08000; stroke-width: 3; }
.step.buffered rect { fill: #e6f0ff; stroke-dasharray: 4 2; }
.step.flush rect { fill: #d8e8ff; stroke: #36c; }
.step.pending rect { fill: #fff4d0; stroke: #a80; stroke-dasharray: 2 2; }
.gap text { fill: #888; font-style: italic; }
path.pair, path.wait { stroke: #c00; stroke-width: 2; fill: none; }
path.wait { stroke-dasharray: 5 3; }
path.rf { stroke: #080; stroke-width: 1.5; fill: none; }
path.buffer-edge { stroke: #36c; stroke-width: 1.5; fill: none; stroke-dasharray: 6 3; }
.init text { fill: #080; }
</style>
</head>
<body>
<h1 id="title">ctrl: execution picture</h1>
<div id="summary"></div>
<div id="legend">
<span><i style="background:#ffe1e1;border-color:#c00"></i>deciding step (red arrow: the pair whose order decided the bug)</span>
<span><i style="border:3px solid #e08000"></i>preemption</span>
<span><i style="background:#fff;border-color:#080"></i>reads-from (green arrow: store to read)</span>
<span><i style="background:#e6f0ff"></i>buffered store (dashed blue arrow to its flush)</span>
</div>
<noscript>This page draws the execution with its own script: enable JavaScript.</noscript>
<script type="application/json" id="ctrl-data">)page";

constexpr std::string_view kTail = R"page(</script>
<script>
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("ctrl-data").textContent);
  const NS = "http://www.w3.org/2000/svg";
  const laneWidth = 380, boxWidth = 340, rowHeight = 36, top = 44, left = 12;
  function el(name, attrs, parent) {
    const e = document.createElementNS(NS, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function text(parent, x, y, s, cls) {
    const t = el("text", {x: x, y: y}, parent);
    if (cls) t.setAttribute("class", cls);
    t.textContent = s.length > 50 ? s.slice(0, 49) + "\u2026" : s;
    return t;
  }
  // An arrow between two boxes: from the side of one to the side of the
  // other; within one lane, a bow to the right. Pairs and reads-from often
  // join the same two steps: they leave and arrive a little apart.
  const shift = {pair: -5, rf: 5};
  function arrow(cls, a, b, marker, extra) {
    const dy = shift[cls] || 0;
    const ay = a.y + (rowHeight - 6) / 2 + dy, by = b.y + (rowHeight - 6) / 2 + dy;
    let d;
    if (Math.abs(a.x - b.x) < 30) {
      const x = Math.max(a.x + a.w, b.x + b.w), bow = x + 20 + Math.min(120, Math.abs(by - ay) / 6);
      d = "M " + x + " " + ay + " C " + bow + " " + ay + ", " + bow + " " + by + ", " + x + " " + by;
    } else {
      const ax = a.x < b.x ? a.x + a.w : a.x, bx = a.x < b.x ? b.x : b.x + b.w;
      const mid = (ax + bx) / 2;
      d = "M " + ax + " " + ay + " C " + mid + " " + ay + ", " + mid + " " + by + ", " + bx + " " + by;
    }
    return el("path", Object.assign({"class": cls, d: d, "marker-end": "url(#" + marker + ")"}, extra || {}), arrows);
  }
  const bug = data.bug;
  document.getElementById("title").textContent = bug
    ? "ctrl: " + bug.kind + " bug (execution " + bug.execution + ")" : "ctrl: an execution without a bug";
  document.getElementById("summary").textContent =
    (bug ? bug.message + "\n" : "") + data.program + ", --model " + data.model + ": " + data.total_steps +
    " steps, " + data.preemptions + " preemption" + (data.preemptions === 1 ? "" : "s") +
    (data.trace ? "; trace " + data.trace : "");

  // Rows: one per drawn step, one per run of steps left out, then one for
  // the operations blocked threads never completed.
  let row = 0;
  const rows = [];
  for (const s of data.steps) {
    if (s.hidden_before > 0) rows.push({gap: s.hidden_before, row: row++});
    rows.push({step: s, row: row++});
  }
  if (data.hidden_after > 0) rows.push({gap: data.hidden_after, row: row++});
  const pendingRow = data.waits.length ? row++ : -1;
  const height = top + row * rowHeight + 40;
  const width = left + data.lanes.length * laneWidth + 60;
  const svg = el("svg", {id: "picture", width: width, height: height, viewBox: "0 0 " + width + " " + height});
  const defs = el("defs", {}, svg);
  for (const [id, color] of [["arrow-pair", "#c00"], ["arrow-rf", "#080"], ["arrow-buffer", "#36c"]]) {
    const m = el("marker", {id: id, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7,
                            orient: "auto-start-reverse"}, defs);
    el("path", {d: "M 0 0 L 10 5 L 0 10 z", fill: color}, m);
  }
  const laneX = (lane) => left + lane * laneWidth;
  const rowY = (r) => top + r * rowHeight;
  data.lanes.forEach((lane, k) => {
    const g = el("g", {"class": "lane", "data-thread": lane.name}, svg);
    el("rect", {x: laneX(k), y: 4, width: laneWidth - 16, height: height - 8, rx: 6}, g);
    text(g, laneX(k) + 10, 26, lane.name);
  });
  const boxes = el("g", {id: "steps"}, svg);
  const arrows = el("g", {id: "arrows"}, svg);
  const boxAt = new Map();  // event index -> {x, y, w}
  for (const r of rows) {
    const y = rowY(r.row);
    if (r.gap) {
      const g = el("g", {"class": "gap"}, boxes);
      text(g, left + 10, y + 20, "\u2026 " + r.gap + " step" + (r.gap === 1 ? "" : "s") + " not drawn \u2026");
      continue;
    }
    const s = r.step;
    const flush = s.marks.includes("flush");
    const x = laneX(s.lane) + 8 + (flush ? 24 : 0);
    const w = boxWidth - (flush ? 24 : 0);
    const g = el("g", {"class": ["step"].concat(s.marks).join(" "), "data-step": s.step, "data-index": s.i,
                       "data-thread": s.thread}, boxes);
    el("title", {}, g).textContent = "step " + s.step + ": " + s.thread + " " + s.op +
      (s.where ? "\nat " + s.where : "") + (s.note ? "\n" + s.note : "");
    el("rect", {x: x, y: y + 2, width: w, height: rowHeight - 6, rx: 4}, g);
    text(g, x + 6, y + 15, s.step + "  " + s.op, "op");
    text(g, x + 6, y + 28, (s.source || "?") + (s.function ? "  in " + s.function : ""), "src");
    boxAt.set(s.i, {x: x, y: y + 2, w: w});
  }
  for (const w of data.waits) {
    const y = rowY(pendingRow);
    const x = laneX(w.lane) + 8;
    const g = el("g", {"class": "step pending", "data-thread": w.thread}, boxes);
    el("title", {}, g).textContent = w.thread + " never completes " + w.pending + (w.object ? " " + w.object : "");
    el("rect", {x: x, y: y + 2, width: boxWidth, height: rowHeight - 6, rx: 4}, g);
    text(g, x + 6, y + 15, "blocked in " + w.pending + (w.object ? " " + w.object : ""), "op");
    const from = boxAt.get(w.step);
    if (from) arrow("wait", from, {x: x, y: y + 2, w: boxWidth}, "arrow-pair", {"data-step": w.step});
  }
  for (const p of data.pairs) {
    const a = boxAt.get(p.first), b = boxAt.get(p.second);
    if (a && b) arrow("pair", a, b, "arrow-pair", {"data-first": p.first, "data-second": p.second});
  }
  for (const r of data.rf) {
    const b = boxAt.get(r.read);
    if (!b) continue;
    if (r.store === null) {
      // The location's initial value: from a mark at the top of the lane.
      const g = el("g", {"class": "init"}, arrows);
      text(g, b.x + b.w - 30, top - 4, "init");
      const y = b.y + (rowHeight - 6) / 2;
      el("path", {"class": "rf rf-init", d: "M " + (b.x + b.w - 20) + " " + top + " L " + (b.x + b.w - 20) +
                  " " + (y - 8), "marker-end": "url(#arrow-rf)", "data-read": r.read}, arrows);
      continue;
    }
    const a = boxAt.get(r.store);
    if (a) arrow("rf", a, b, "arrow-rf", {"data-read": r.read, "data-store": r.store});
  }
  for (const e of data.buffers) {
    const a = boxAt.get(e.store), b = e.flush === null ? undefined : boxAt.get(e.flush);
    if (a && b) arrow("buffer-edge", a, b, "arrow-buffer", {"data-store": e.store, "data-flush": e.flush});
  }
  document.body.appendChild(svg);
  document.body.setAttribute("data-drawn", "yes");
})();
</script>
</body>
</html>
)page";

}  // namespace

std::string html_page(const nlohmann::json& picture) {
  std::string page;
  page += kHead;
  page += embeddable(picture);
  page += kTail;
  return page;
}

}  // namespace ctrl
