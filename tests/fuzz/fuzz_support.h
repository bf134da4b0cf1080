// What the fuzz harnesses share: the size limits on an input, the check that a failure is one of Kiln's own
// errors, and small models written in ONNX text.
#pragma once

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace kiln::fuzz {

// Inputs over this are skipped (return -1 keeps libFuzzer from adding them to the corpus): the loaders are
// linear in their input, so larger inputs only slow the search down.
inline constexpr std::size_t kMaxInputBytes = 64 * 1024;

// A failure that is no kiln::Error (exit code 1..5) escaped a loader: bad input must give one clear message, so
// anything else is a bug. Prints what escaped and aborts, so that libFuzzer keeps the input.
[[noreturn]] inline void Fail(std::string_view what, std::string_view message) {
  std::fprintf(stderr, "kiln fuzz: %.*s: %.*s\n", static_cast<int>(what.size()), what.data(),
               static_cast<int>(message.size()), message.data());
  std::abort();
}

// With KILN_FUZZ_VERBOSE set, a harness says on stderr what became of each input (to check that a seed reaches
// what it should).
inline bool Verbose() {
  static const bool verbose = std::getenv("KILN_FUZZ_VERBOSE") != nullptr;
  return verbose;
}

// The serialized ONNX model of `text` (onnx::OnnxParser syntax); aborts when the text does not parse.
std::string ModelBytesFromText(const std::string& text);

}  // namespace kiln::fuzz
