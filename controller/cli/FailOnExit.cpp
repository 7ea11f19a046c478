#include "cli/FailOnExit.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "cli/ExitStatus.h"

namespace ctrl {

namespace {

bool status_number(std::string_view text, unsigned& out) {
  if (text.empty() || text.size() > 3 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size() && out >= 1 && out <= 255;
}

}  // namespace

FailExitStatuses parse_fail_on_exit(const std::string& text, const std::string& option) {
  FailExitStatuses set;
  if (text.empty()) return set;
  auto refuse = [&] {
    std::string shown = text.size() > 24 ? text.substr(0, 20) + "..." : text;
    return UsageError(fmt::format(
        "{}: '{}' is not 'nonzero' or a comma-separated list of exit statuses and ranges from 1 to 255 (as 1,3-5)",
        option, shown));
  };
  if (text == "nonzero") {
    set.set();
    set.reset(0);
    return set;
  }
  std::string_view rest(text);
  while (true) {
    size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    size_t dash = item.find('-');
    unsigned from = 0, to = 0;
    if (dash == std::string_view::npos) {
      if (!status_number(item, from)) throw refuse();
      to = from;
    } else if (!status_number(item.substr(0, dash), from) || !status_number(item.substr(dash + 1), to) || to < from) {
      throw refuse();
    }
    for (unsigned s = from; s <= to; ++s) set.set(s);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return set;
}

}  // namespace ctrl
