// Inlining and outlining on the generated function models (gen_function_models.py, written by the
// functions.generate fixture), whose calls nest in bodies, sit in If branches and Loop bodies, pass attributes by
// reference, omit outputs, and return an input.
//   Inline: every call, until none is left; then the functions are removed.
//   Outline: the whole main graph into one function (whose body then calls the model's functions), and each main
//   graph node holding subgraphs (If, Loop) on its own, reading outer values as inputs; then inlined back, which
//   must give the original graph, names included (subgraph names too).
// Each result verifies, passes onnx.checker (full_check, except where the manifest says the inlined form cannot;
// via /usr/bin/python3), and the executor computes the numpy expected outputs (rtol 1e-5, atol 1e-6) on every data
// set, in memory and written and read back. The written models stay in the build tree's work/ for
// check_with_ort.sh.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>

#include <nlohmann/json.hpp>

#include "compile/compiler.h"
#include "driver/graph_fingerprint.h"
#include "exec/compare.h"
#include "exec/executor.h"
#include "exec/input_feed.h"
#include "exec/value_io.h"
#include "ir/model.h"
#include "ir/outline.h"
#include "onnx/onnx_export.h"
#include "onnx/onnx_import.h"
#include "support/golden.h"
#include "verify/verifier.h"

namespace kiln::testing {
namespace {

namespace fs = std::filesystem;

const fs::path kModels = KILN_FUNCTION_MODELS_DIR;

nlohmann::json Manifest() {
  std::ifstream in(kModels / "manifest.json");
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  return j.is_object() ? j : nlohmann::json::object();
}

// Every call in the main graph tree (not in function bodies).
std::vector<Node*> Calls(const Model& m) {
  std::vector<Node*> out;
  ForEachGraphIn(m.graph(), [&](const Graph& g) {
    for (const auto& n : g.nodes())
      if (m.CalledFunction(*n)) out.push_back(n.get());
  });
  return out;
}

int InlineEverything(Model& m) {
  int inlined = 0;
  for (std::vector<Node*> calls = Calls(m); !calls.empty(); calls = Calls(m)) {
    for (Node* c : calls) Inline(*c);
    inlined += static_cast<int>(calls.size());
    m.CollectGarbage();
  }
  std::vector<Function*> functions;
  for (const auto& f : m.functions()) functions.push_back(f.get());
  for (Function* f : functions) m.RemoveFunction(f);
  m.CollectGarbage();
  return inlined;
}

class FunctionModels : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    compiler_ = new Compiler();
    compiler_->LoadSearchPathPlugins();
  }
  static void TearDownTestSuite() {
    delete compiler_;
    compiler_ = nullptr;
  }

  // Runs `m` on every data set of the model and compares with the expected outputs.
  void ExpectComputesTheExpectedOutputs(const Model& m, const std::string& what) {
    int sets = 0;
    for (const auto& e : fs::directory_iterator(kModels / GetParam())) {
      if (e.path().filename().string().rfind("test_data_set_", 0) != 0) continue;
      ++sets;
      SCOPED_TRACE(what + ", " + e.path().filename().string());
      InputSpec spec;
      spec.inputs_dir = e.path().string();
      std::vector<RtValue> got = Executor(m, compiler_->kernels()).Run(ReadInputs(m.graph(), spec));
      const auto& outputs = m.graph().outputs();
      ASSERT_EQ(got.size(), outputs.size());
      for (size_t i = 0; i < got.size(); ++i) {
        RtValue expected = ReadValueFile((e.path() / ("output_" + std::to_string(i) + ".pb")).string(),
                                         outputs[i]->type());
        Comparison c = CompareValues(expected, got[i], 1e-5, 1e-6);
        EXPECT_TRUE(c.match) << outputs[i]->name() << ": " << c.message;
      }
    }
    EXPECT_GT(sets, 0);
  }

  static Compiler* compiler_;
};

Compiler* FunctionModels::compiler_ = nullptr;

std::string Checker(const fs::path& model, bool full_check, int* rc) {
  std::string cmd = std::string(KILN_SYSTEM_PYTHON) + " -c \"import onnx, sys; onnx.checker.check_model(sys.argv[1], " +
                    "full_check=" + (full_check ? "True" : "False") + ")\" " + model.string() + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int status = ::pclose(p);
  *rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  return out;
}

// The names of the values of `g` and of its subgraphs at any depth.
std::multiset<std::string> ValueNames(const Graph& g) {
  std::multiset<std::string> names;
  ForEachGraphIn(g, [&](const Graph& sg) {
    for (const Value* v : sg.values()) names.insert(v->name());
  });
  return names;
}

TEST_P(FunctionModels, InliningEveryCallKeepsTheOutputs) {
  const nlohmann::json manifest = Manifest();
  ASSERT_TRUE(manifest.contains(GetParam())) << "no manifest entry (did functions.generate run?)";
  const bool runs = manifest[GetParam()].value("kiln_runs", true);
  std::unique_ptr<Model> m = LoadModel((kModels / GetParam() / "model.onnx").string());
  ASSERT_GT(m->num_functions(), 0u);
  if (runs) ExpectComputesTheExpectedOutputs(*m, "before inlining");

  const int inlined = InlineEverything(*m);
  EXPECT_GT(inlined, 0);
  EXPECT_EQ(m->num_functions(), 0u);
  EXPECT_TRUE(Calls(*m).empty());
  auto issues = VerifyModel(*m);
  EXPECT_TRUE(issues.empty()) << issues.front().message;

  const fs::path out = fs::path(KILN_FUNCTION_WORK_DIR) / (GetParam() + ".inlined.onnx");
  fs::create_directories(out.parent_path());
  WriteModel(*m, out.string());
  int rc = 0;
  // full_check_inlined false: ONNX 1.12 cannot type the ML ops outside a function (see gen_function_models.py).
  std::string log = Checker(out, manifest[GetParam()].value("full_check_inlined", true), &rc);
  EXPECT_EQ(rc, 0) << "onnx.checker on " << out << ":\n" << log;

  if (runs) {
    ExpectComputesTheExpectedOutputs(*m, "after inlining");
    ExpectComputesTheExpectedOutputs(*LoadModel(out.string()), "the inlined model written and read back");
  }
}

TEST_P(FunctionModels, OutliningTheGraphAndItsSubgraphHoldersKeepsTheOutputs) {
  const nlohmann::json manifest = Manifest();
  ASSERT_TRUE(manifest.contains(GetParam())) << "no manifest entry (did functions.generate run?)";
  const bool runs = manifest[GetParam()].value("kiln_runs", true);
  const std::string path = (kModels / GetParam() / "model.onnx").string();
  std::unique_ptr<Model> original = LoadModel(path);
  const uint64_t fingerprint = StructuralFingerprint(original->graph());
  const auto names = ValueNames(original->graph());

  // Each case: the groups to outline, one after the other.
  std::vector<std::pair<std::string, std::function<std::vector<std::vector<Node*>>(Graph&)>>> cases = {
      {"whole", [](Graph& g) {
         std::vector<Node*> all;
         for (const auto& n : g.nodes()) all.push_back(n.get());
         return std::vector<std::vector<Node*>>{all};
       }},
      {"holders", [](Graph& g) {
         std::vector<std::vector<Node*>> groups;
         for (const auto& n : g.nodes())
           if (n->has_subgraphs()) groups.push_back({n.get()});
         return groups;
       }},
  };
  for (const auto& [label, find] : cases) {
    SCOPED_TRACE(label);
    std::unique_ptr<Model> m = LoadModel(path);
    const size_t functions = m->num_functions();
    auto groups = find(m->graph());
    if (groups.empty()) continue;  // no node holds a subgraph
    OutlineOptions o;
    o.domain = "kiln.test";
    o.name = label;
    std::vector<Node*> calls;
    for (const auto& group : groups) {
      OutlineResult r = Outline(m->graph(), group, o);
      ASSERT_TRUE(r.refusal.empty()) << r.refusal;
      calls.push_back(r.call);
    }
    EXPECT_EQ(m->num_functions(), functions + groups.size());
    m->CollectGarbage();
    auto issues = VerifyModel(*m);
    EXPECT_TRUE(issues.empty()) << issues.front().message;
    const fs::path out = fs::path(KILN_FUNCTION_WORK_DIR) / (GetParam() + ".outlined_" + label + ".onnx");
    fs::create_directories(out.parent_path());
    WriteModel(*m, out.string());
    int rc = 0;
    std::string log = Checker(out, true, &rc);
    EXPECT_EQ(rc, 0) << "onnx.checker on " << out << ":\n" << log;
    if (runs) {
      ExpectComputesTheExpectedOutputs(*m, "outlined");
      ExpectComputesTheExpectedOutputs(*LoadModel(out.string()), "outlined, written and read back");
    }
    for (Node* call : calls) Inline(*call);
    m->CollectGarbage();
    EXPECT_EQ(StructuralFingerprint(m->graph()), fingerprint) << PrintGraph(*original) << "\nbecame\n" << PrintGraph(*m);
    EXPECT_EQ(ValueNames(m->graph()), names);
    if (runs) ExpectComputesTheExpectedOutputs(*m, "outlined and inlined back");
  }
}

// The names of a removed node's subgraph values free up (and are taken again when the removal is rolled back), so
// that outlining a node with a subgraph and inlining it back gives the subgraph its names again.
TEST(SubgraphNames, FreeUpWhenTheirNodeGoesAndComeBackThroughOutlineAndInline) {
  const char* text = R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (int64 n, float[3] x) => (float[3] s_final) <float[3] s0 = {1, 2, 3}> {
      s_final = Loop (n, , s0) <body = body (int64 i, bool cond, float[3] s) => (bool cond_out, float[3] s_out) {
        cond_out = Identity (cond)
        s_out = Add (s, x)
      }>
    })";
  auto m = ParseModel(text);
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->IsNameUsed("s_out"));
  Node* loop = m->graph().nodes().front().get();
  m->journal().Begin();
  m->graph().ReplaceAllUsesWith(loop->output(0), m->graph().inputs()[1]);
  m->graph().RemoveNode(loop);
  EXPECT_FALSE(m->IsNameUsed("s_out")) << "a removed Loop's body still holds its names";
  EXPECT_FALSE(m->IsNameUsed("i"));
  m->journal().Rollback();
  EXPECT_TRUE(m->IsNameUsed("s_out"));
  EXPECT_TRUE(m->IsNameUsed("i"));

  const std::string before = PrintGraph(*m);
  OutlineResult r = Outline(m->graph(), {m->graph().nodes().front().get()}, {});
  ASSERT_TRUE(r.refusal.empty()) << r.refusal;
  Inline(*r.call);
  m->CollectGarbage();
  EXPECT_EQ(PrintGraph(*m), before) << "the body's values are named i, cond, s, cond_out, s_out again";
}

std::vector<std::string> ModelNames() {
  std::vector<std::string> names;
  std::string list = KILN_FUNCTION_MODEL_NAMES;
  for (size_t at = 0; at <= list.size();) {
    size_t end = list.find(',', at);
    if (end == std::string::npos) end = list.size();
    if (end > at) names.push_back(list.substr(at, end - at));
    at = end + 1;
  }
  return names;
}

INSTANTIATE_TEST_SUITE_P(Generated, FunctionModels, ::testing::ValuesIn(ModelNames()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace kiln::testing
