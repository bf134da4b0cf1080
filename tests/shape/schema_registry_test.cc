// FindOnnxSchema: ONNX's schemas built one at a time, answering as ONNX's registry does, without building that
// registry (ctest runs each test in a process of its own, so every test starts with it unbuilt).
#include "shape/schema_registry.h"

#include <gtest/gtest.h>
#include <onnx/defs/schema.h>

#include <set>
#include <string>
#include <utility>

#include "ir/model.h"
#include "shape/shape_inference.h"
#include "support/golden.h"

namespace kiln::testing {
namespace {

// ONNX 1.12 sets its loaded schema version from -1 to 0 when it builds its whole registry.
bool OnnxRegistryBuilt() { return onnx::OpSchemaRegistry::GetLoadedSchemaVersion() != -1; }

TEST(FindOnnxSchema, BuildsOnlyTheSchemasLookedUp) {
  ASSERT_FALSE(OnnxRegistryBuilt());
  const onnx::OpSchema* conv = FindOnnxSchema("Conv", 13, "");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->Name(), "Conv");
  EXPECT_EQ(conv->SinceVersion(), 11);  // the latest at or below 13
  EXPECT_EQ(FindOnnxSchema("Conv", 13, ""), conv);  // built once
  EXPECT_EQ(FindOnnxSchema("Conv", 11, ""), conv);
  EXPECT_EQ(FindOnnxSchema("Conv", 10, "")->SinceVersion(), 1);
  EXPECT_EQ(FindOnnxSchema("LabelEncoder", 3, "ai.onnx.ml")->SinceVersion(), 2);
  EXPECT_EQ(FindOnnxSchema("Adam", 1, "ai.onnx.preview.training")->domain(), "ai.onnx.preview.training");
  EXPECT_EQ(FindOnnxSchema("Conv", 0, ""), nullptr);          // below its first version
  EXPECT_EQ(FindOnnxSchema("Conv", 13, "ai.onnx.ml"), nullptr);  // not in that domain
  EXPECT_EQ(FindOnnxSchema("Conv", 13, "ai.onnx"), nullptr);     // ONNX's registry names ai.onnx ""
  EXPECT_EQ(FindOnnxSchema("NoSuchOp", 17, ""), nullptr);
  EXPECT_EQ(FindOnnxSchema("Custom", 1, "com.example"), nullptr);
  EXPECT_FALSE(OnnxRegistryBuilt());
}

TEST(FindOnnxSchema, ShapeInferenceBuildsNoRegistry) {
  // Type-and-shape functions, a function body's inference (Celu: context-dependent; its schema infers through
  // the body's nodes otherwise) and a subgraph: none of it reaches ONNX's registry.
  auto m = ParseModel(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[N,4] x, bool c) => (y, z) {
      s = Constant <value = float[1] {1.0}> ()
      a = Celu <alpha = 1.0> (x)
      t = Transpose <perm = [1, 0]> (a)
      y = LayerNormalization <axis = -1> (t, s, s)
      z = If (c) <then_branch = th () => (float[N,4] o) { o = Relu(x) },
                 else_branch = el () => (float[N,4] o) { o = Neg(x) }>
    })");
  ASSERT_TRUE(m);
  InferShapes(*m);
  EXPECT_EQ(m->graph().FindValue("y")->type().shape->ToString(), "[4,N]");
  EXPECT_EQ(m->graph().FindValue("z")->type().shape->ToString(), "[N,4]");
  EXPECT_FALSE(OnnxRegistryBuilt());
}

TEST(FindOnnxSchema, AnswersAsOnnxsRegistryForEveryOpDomainAndVersion) {
  // Every schema function is listed (the list is read from ONNX's headers at configure time) ...
  const std::vector<onnx::OpSchema> all = onnx::OpSchemaRegistry::get_all_schemas_with_history();
  EXPECT_EQ(KnownOnnxSchemaCount(), all.size());
  // ... and every lookup ONNX's registry answers is answered the same, by a schema of the same content.
  std::set<std::pair<std::string, std::string>> ops;
  for (const onnx::OpSchema& s : all) ops.emplace(s.domain(), s.Name());
  size_t compared = 0;
  for (const auto& [domain, op] : ops) {
    for (int version = 0; version <= 20; ++version) {
      const onnx::OpSchema* expected = onnx::OpSchemaRegistry::Schema(op, version, domain);
      const onnx::OpSchema* got = FindOnnxSchema(op, version, domain);
      const std::string what = domain + "." + op + " at " + std::to_string(version);
      if (expected == nullptr) {
        EXPECT_EQ(got, nullptr) << what;
        continue;
      }
      ASSERT_NE(got, nullptr) << what;
      EXPECT_NE(got, expected) << what << ": read from ONNX's registry, not built apart";
      EXPECT_EQ(got->Name(), expected->Name()) << what;
      EXPECT_EQ(got->domain(), expected->domain()) << what;
      EXPECT_EQ(got->SinceVersion(), expected->SinceVersion()) << what;
      EXPECT_EQ(got->Deprecated(), expected->Deprecated()) << what;
      EXPECT_EQ(got->inputs().size(), expected->inputs().size()) << what;
      EXPECT_EQ(got->outputs().size(), expected->outputs().size()) << what;
      EXPECT_EQ(got->min_input(), expected->min_input()) << what;
      EXPECT_EQ(got->max_input(), expected->max_input()) << what;
      EXPECT_EQ(got->attributes().size(), expected->attributes().size()) << what;
      EXPECT_EQ(got->typeConstraintParams().size(), expected->typeConstraintParams().size()) << what;
      EXPECT_EQ(got->has_type_and_shape_inference_function(), expected->has_type_and_shape_inference_function())
          << what;
      EXPECT_EQ(got->HasFunction(), expected->HasFunction()) << what;
      EXPECT_EQ(got->HasContextDependentFunction(), expected->HasContextDependentFunction()) << what;
      ++compared;
    }
  }
  EXPECT_GT(compared, 3000u);
}

TEST(FindOnnxSchema, ReadsOnnxsRegistryOnceItIsBuilt) {
  // A plugin's schema goes into ONNX's registry after EnsureOnnxSchemas: lookups must see it there from then on.
  const onnx::OpSchema* before = FindOnnxSchema("Relu", 14, "");
  ASSERT_NE(before, nullptr);
  EnsureOnnxSchemas();
  EXPECT_TRUE(OnnxRegistryBuilt());
  EXPECT_EQ(FindOnnxSchema("Relu", 14, ""), onnx::OpSchemaRegistry::Schema("Relu", 14, ""));
  EXPECT_EQ(OnnxSchemas().GetSchema("Relu", 14, ""), onnx::OpSchemaRegistry::Schema("Relu", 14, ""));
}

}  // namespace
}  // namespace kiln::testing
