#include "onnx/external_data.h"

#include <filesystem>

#include "support/error.h"

namespace kiln {
namespace fs = std::filesystem;

namespace {

bool ParseUint(const std::string& s, uint64_t* out) {
  if (s.empty() || s.size() > 19) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = v;
  return true;
}

}  // namespace

std::shared_ptr<const Buffer> ExternalDataReader::Read(const ExternalDataInfo& info, uint64_t expected,
                                                       const std::string& where, size_t align) {
  const std::string prefix = model_name_ + ": " + where + ": external data";
  if (base_dir_.empty()) throw ModelError(prefix + " cannot be resolved: the model was not read from a file");
  if (info.location.empty()) throw ModelError(prefix + " has no location");
  fs::path loc(info.location);
  if (loc.is_absolute()) throw ModelError(prefix + " location '" + info.location + "' is absolute; it must be relative to the model's directory");
  for (const auto& part : loc)
    if (part == "..") throw ModelError(prefix + " location '" + info.location + "' leaves the model's directory");
  std::error_code ec;
  fs::path base = fs::weakly_canonical(fs::path(base_dir_), ec);
  fs::path full = fs::weakly_canonical(fs::path(base_dir_) / loc, ec);
  auto rel = full.lexically_relative(base);
  if (ec || rel.empty() || *rel.begin() == "..")
    throw ModelError(prefix + " location '" + info.location + "' leaves the model's directory (through a link)");

  uint64_t offset = 0, length = 0;
  bool has_length = false;
  for (const auto& [k, v] : info.entries) {
    if (k == "offset" && !ParseUint(v, &offset)) throw ModelError(prefix + " has a bad offset '" + v + "'");
    if (k == "length") {
      if (!ParseUint(v, &length)) throw ModelError(prefix + " has a bad length '" + v + "'");
      has_length = true;
    }
  }
  if (has_length && expected != 0 && length != expected)
    throw ModelError(prefix + " length " + std::to_string(length) + " disagrees with the " + std::to_string(expected) +
                     " bytes its dims and type call for");
  if (!has_length) length = expected;

  auto& file = files_[full.string()];
  if (!file) file = Buffer::MapFile(full.string());
  uint64_t end = 0;
  if (__builtin_add_overflow(offset, length, &end) || end > file->size())
    throw ModelError(prefix + " needs bytes [" + std::to_string(offset) + ", " + std::to_string(end) + ") but '" +
                     info.location + "' has " + std::to_string(file->size()) + " bytes");
  if (!has_length && expected == 0) length = file->size() - offset;
  return Buffer::AlignedSlice(file, offset, length, align);
}

}  // namespace kiln
