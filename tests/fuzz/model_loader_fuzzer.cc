// Fuzz harness: serialized ONNX bytes -> kiln::LoadModelFromBytes (parse, import, resolve, check), then the
// model's resource limits and an export back to ONNX. An invalid model must be a kiln::Error; anything else
// escaping, a crash or a sanitizer report is a bug. The same bytes are also written to a file and read with
// kiln::LoadModel, which takes a model with raw weights apart at the wire level (weight_split.h: initializers and
// nodes parsed one at a time, weights borrowed from the mapping): both reads must agree, each refusing the model or
// both giving the same exported model.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

#include <onnx/onnx_pb.h>

#include "compile/resource_limits.h"
#include "fuzz_support.h"
#include "ir/model.h"
#include "onnx/onnx_export.h"
#include "onnx/onnx_import.h"
#include "support/error.h"
#include "support/logging.h"

namespace {

// The model `load` reads, exported and serialized, or nullopt when it refuses it (a kiln::Error).
template <typename Load>
std::optional<std::string> Exported(Load&& load, const char* what) {
  try {
    auto model = load();
    const kiln::ResourceLimits limits{.max_nodes = 10'000, .max_tensor_bytes = 1 << 20,
                                      .max_initializer_bytes = 4 << 20, .max_subgraph_depth = 16};
    kiln::CheckModelLimits(*model, limits, "fuzz.onnx");
    return kiln::ExportModelProto(*model).SerializeAsString();
  } catch (const kiln::Error&) {
    return std::nullopt;
  } catch (const std::exception& e) {
    kiln::fuzz::Fail(what, e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool quiet = kiln::SetLogLevel("off");
  (void)quiet;
  if (size > kiln::fuzz::kMaxInputBytes) return -1;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // Both reads resolve external data in one folder, the file's (its name is the process's own).
  static const std::string dir = std::filesystem::temp_directory_path().string();
  static const std::string path = dir + "/kiln-fuzz-model-loader-" + std::to_string(::getpid()) + ".onnx";
  const std::optional<std::string> from_bytes = Exported(
      [&] { return kiln::LoadModelFromBytes(bytes, "fuzz.onnx", dir); }, "LoadModelFromBytes threw a non-kiln exception");
  // A file not written whole (the temporary folder full) would be another model: nothing to compare then.
  {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file.write(bytes.data(), static_cast<std::streamsize>(size));
    file.close();
    if (!file) return 0;
  }
  const std::optional<std::string> from_file =
      Exported([&] { return kiln::LoadModel(path); }, "LoadModel threw a non-kiln exception");
  std::filesystem::remove(path);
  if (from_bytes.has_value() != from_file.has_value())
    kiln::fuzz::Fail("LoadModel and LoadModelFromBytes disagree", from_bytes ? "only the file read refused the model"
                                                                            : "only the bytes read refused the model");
  if (from_bytes && *from_bytes != *from_file)
    kiln::fuzz::Fail("LoadModel and LoadModelFromBytes disagree", "their exported models differ");
  return 0;
}
