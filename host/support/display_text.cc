// Escaping untrusted text for display; see display_text.h.
#include "support/display_text.h"

#include <cstdint>
#include <cstdio>

namespace kiln {
namespace {

// The length of the valid UTF-8 sequence starting at text[i] and its code point, or 0 when the bytes there are
// not one (truncated, overlong, a surrogate, past U+10FFFF, a stray continuation byte).
size_t DecodeUtf8(std::string_view text, size_t i, uint32_t* cp) {
  auto byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  uint8_t b0 = byte(i);
  if (b0 < 0x80) {
    *cp = b0;
    return 1;
  }
  size_t len;
  uint32_t min;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2, min = 0x80, *cp = b0 & 0x1F;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3, min = 0x800, *cp = b0 & 0x0F;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4, min = 0x10000, *cp = b0 & 0x07;
  } else {
    return 0;
  }
  if (i + len > text.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    *cp = (*cp << 6) | (byte(i + k) & 0x3F);
  }
  if (*cp < min || *cp > 0x10FFFF || (*cp >= 0xD800 && *cp <= 0xDFFF)) return 0;
  return len;
}

// Code points shown escaped although valid: C1 controls, and the line separators and bidirectional controls
// that can make a terminal show text in another order than it is.
bool IsInvisibleControl(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

void AppendHexByte(std::string& out, uint8_t b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", b);
  out += buf;
}

}  // namespace

std::string EscapeForDisplay(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    uint32_t cp = 0;
    size_t len = DecodeUtf8(text, i, &cp);
    if (len == 0) {  // not UTF-8: the byte itself, escaped, and go on at the next byte
      AppendHexByte(out, static_cast<uint8_t>(text[i]));
      ++i;
      continue;
    }
    if (cp < 0x20 || cp == 0x7F) {
      if (cp == '\n') out += keep_newlines ? "\n" : "\\n";
      else if (cp == '\r') out += "\\r";
      else if (cp == '\t') out += "\\t";
      else AppendHexByte(out, static_cast<uint8_t>(cp));
    } else if (IsInvisibleControl(cp)) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "\\u{%04x}", static_cast<unsigned>(cp));
      out += buf;
    } else {
      out.append(text.substr(i, len));
    }
    i += len;
  }
  return out;
}

bool IsDisplaySafe(std::string_view text, bool allow_newlines) {
  return EscapeForDisplay(text, allow_newlines) == text;
}

nlohmann::json EscapeJsonForDisplay(const nlohmann::json& j) {
  if (j.is_string()) return EscapeForDisplay(j.get_ref<const std::string&>());
  if (j.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& e : j) out.push_back(EscapeJsonForDisplay(e));
    return out;
  }
  if (j.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto it = j.begin(); it != j.end(); ++it) out[EscapeForDisplay(it.key())] = EscapeJsonForDisplay(it.value());
    return out;
  }
  return j;
}

}  // namespace kiln
