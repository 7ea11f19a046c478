// `ctrl report TRACE --html FILE`: one execution as a self-contained HTML
// page (inline CSS, script and SVG; nothing fetched), drawn by the page's
// own script from the picture data (ExecutionPicture.h) embedded in it:
// one lane per thread, a box per step with its operation and source line,
// the deciding steps, the preemptions and the deciding pairs highlighted
// (red arrows from the earlier step to the later), a blocked thread's
// pending operation at the bottom of its lane, reads-from arrows (green,
// store to read) under c11/rc11/ra, and under tso/pso each buffered store
// with a dashed arrow to the flush that took it to memory.
//
// Invariant: every element the drawing makes carries a class naming what it
// is (lane, step, pair, wait, rf, buffer-edge; marks as classes of the
// step: decides, preempts, buffered, flush), and the page's <body> gets
// data-drawn="yes" once the script has drawn everything, so that a test
// reading the DOM a browser built sees what was drawn.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace ctrl {

std::string html_page(const nlohmann::json& picture);

}  // namespace ctrl
