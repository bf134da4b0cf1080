// Fuzz harness: serialized ONNX bytes -> kiln::LoadModelFromBytes (parse, import, resolve, check), then the
// model's resource limits and an export back to ONNX. An invalid model must be a kiln::Error; anything else
// escaping, a crash or a sanitizer report is a bug.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string_view>

#include <onnx/onnx_pb.h>

#include "compile/resource_limits.h"
#include "fuzz_support.h"
#include "ir/model.h"
#include "onnx/onnx_export.h"
#include "onnx/onnx_import.h"
#include "support/error.h"
#include "support/logging.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool quiet = kiln::SetLogLevel("off");
  (void)quiet;
  if (size > kiln::fuzz::kMaxInputBytes) return -1;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    auto model = kiln::LoadModelFromBytes(bytes, "fuzz.onnx", "");
    const kiln::ResourceLimits limits{.max_nodes = 10'000, .max_tensor_bytes = 1 << 20,
                                      .max_initializer_bytes = 4 << 20, .max_subgraph_depth = 16};
    kiln::CheckModelLimits(*model, limits, "fuzz.onnx");
    onnx::ModelProto proto = kiln::ExportModelProto(*model);
    (void)proto.ByteSizeLong();
  } catch (const kiln::Error&) {
  } catch (const std::exception& e) {
    kiln::fuzz::Fail("LoadModelFromBytes threw a non-kiln exception", e.what());
  }
  return 0;
}
