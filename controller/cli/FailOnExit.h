// --fail-on-exit (issue 22, item 10): which exit statuses of the program
// are failures. By default none is: a program's exit status is its own
// business (grep exits 1 when nothing matched), so an execution that ends
// with any status is no bug unless the user says which statuses are.
//
// The text is "nonzero" (every status from 1 to 255) or a comma-separated
// list of statuses and ranges ("1", "2,101", "1-3,70"), each from 1 to 255:
// 0 is success by definition. A trace keeps the text, so that `ctrl replay`
// judges the execution by the same rule.
#pragma once

#include <bitset>
#include <string>

namespace ctrl {

using FailExitStatuses = std::bitset<256>;

// Throws UsageError (naming `option`) when `text` is not such a list; the
// empty text gives the empty set.
FailExitStatuses parse_fail_on_exit(const std::string& text, const std::string& option = "--fail-on-exit");

}  // namespace ctrl
