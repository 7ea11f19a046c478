// Text placed in XML (JUnit reports, gdb's qXfer documents): what a program
// printed or named may hold any byte, and XML 1.0 allows neither markup
// characters unescaped nor most control characters at all.
#pragma once

#include <string>
#include <string_view>

namespace ctrl {

// `text` with &, <, >, " and ' escaped, and the control characters XML 1.0
// does not allow (all below 0x20 but tab, newline, carriage return) replaced
// by U+FFFD's UTF-8. Usable in element text and in attribute values.
std::string xml_escape(std::string_view text);

}  // namespace ctrl
