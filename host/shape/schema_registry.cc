// SchemaRegistryWarmup and EnsureOnnxSchemas: see schema_registry.h.
#include "shape/schema_registry.h"

#include <onnx/defs/schema.h>

#include <system_error>

#include <kiln/kiln_helper_thread.hpp>

namespace kiln {

void EnsureOnnxSchemas() {
  // Any lookup builds the whole registry first (OpSchemaRegistry::map()'s static initialisation).
  (void)onnx::OpSchemaRegistry::Schema("Identity", 1, "");
}

SchemaRegistryWarmup::SchemaRegistryWarmup() {
  try {
    thread_ = std::thread(sdk::OffCreatorCpu(EnsureOnnxSchemas));  // beside the main thread, not on its CPU
  } catch (const std::system_error&) {
    // No thread to spare: the first lookup builds the registry on the main thread, as it would without this.
  }
}

SchemaRegistryWarmup::~SchemaRegistryWarmup() {
  if (thread_.joinable()) thread_.join();
}

}  // namespace kiln
