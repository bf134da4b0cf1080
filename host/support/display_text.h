// Text from a model (node, value and graph names, op types, domains, paths written in the file) shown to a person:
// on stderr, in logs, in JSON reports. A model is untrusted input, and its strings may be any bytes: what Kiln
// prints is always valid UTF-8 with no control characters, so a name can neither break a terminal, a log line
// nor a JSON parser.
//
//   EscapeForDisplay("relu\x01\xff")  ==  "relu\\x01\\xff"
//
// Valid UTF-8 passes through unchanged; each byte of an invalid or overlong sequence becomes `\xNN`; the C0
// controls and DEL become `\n`, `\r`, `\t` or `\xNN`; the C1 controls and the Unicode bidirectional overrides
// and line separators become `\u{NNNN}`. A backslash is left as it is, so escaping is idempotent: text already
// escaped (or that never needed it) comes back unchanged, and the sinks may escape whole messages again.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace kiln {

// `text` made safe to show. With `keep_newlines`, '\n' stays (multi-line texts such as the compile summary).
std::string EscapeForDisplay(std::string_view text, bool keep_newlines = false);

// Whether `text` would come back unchanged from EscapeForDisplay (valid UTF-8, no control characters).
bool IsDisplaySafe(std::string_view text, bool allow_newlines = false);

// A copy of `j` with every string and object key escaped, so that dump() never throws on invalid UTF-8 and
// a reader sees the same escapes as on stderr.
nlohmann::json EscapeJsonForDisplay(const nlohmann::json& j);

}  // namespace kiln
