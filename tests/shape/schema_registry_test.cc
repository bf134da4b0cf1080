// SchemaRegistryWarmup: a lookup made while the registry is being built on the other thread waits for the whole
// build (ctest runs each test in a process of its own, so the registry starts unbuilt here).
#include "shape/schema_registry.h"

#include <gtest/gtest.h>
#include <onnx/defs/schema.h>

namespace kiln {
namespace {

TEST(SchemaRegistryWarmup, ALookupBesideTheBuildSeesTheWholeRegistry) {
  SchemaRegistryWarmup warmup;
  const onnx::OpSchema* conv = onnx::OpSchemaRegistry::Schema("Conv", 11, "");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->SinceVersion(), 11);
  const onnx::OpSchema* norm = onnx::OpSchemaRegistry::Schema("LayerNormalization", 17, "");
  ASSERT_NE(norm, nullptr);
  EXPECT_GT(onnx::OpSchemaRegistry::get_all_schemas_with_history().size(), 400u);  // 444 in ONNX 1.12
}

TEST(SchemaRegistryWarmup, EnsureAfterAWarmupAndASecondWarmupReturn) {
  { SchemaRegistryWarmup first; }
  EnsureOnnxSchemas();
  SchemaRegistryWarmup second;
  EXPECT_NE(onnx::OpSchemaRegistry::Schema("Relu", 14, ""), nullptr);
}

}  // namespace
}  // namespace kiln
