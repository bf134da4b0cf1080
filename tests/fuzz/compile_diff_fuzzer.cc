// Fuzz harness, differential: a whole O2 compile of a small model through the embedding API (kiln/kiln.h), and,
// when the compile succeeds, the input and the output run on the reference executor with the same seeded inputs
// (what `kiln verify` does) and compared at verify's default tolerance (rtol 1e-3, atol 1e-5). Aborts on:
//   - an internal error (status code 5: an exception that is no kiln error, or a pass that broke the graph);
//   - a pass that failed (and was rolled back) because it used a node or value after deleting it;
//   - an optimised model that does not load back;
//   - an optimised model that fails to run where the input runs, or computes something else.
// Models over 64 KiB or 200 nodes are skipped, and so is running (not compiling) a model with loops, random
// ops or inputs over 2^20 elements, so that every execution stays fast; the compile's resource limits are set
// low for the same reason.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <map>
#include <memory>
#include <new>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "compile/compiler.h"
#include "exec/compare.h"
#include "exec/executor.h"
#include "exec/input_feed.h"
#include "exec/value_io.h"
#include "fuzz_support.h"
#include "ir/model.h"
#include "kiln/kiln.h"
#include "onnx/onnx_import.h"
#include "support/error.h"
#include "support/logging.h"

namespace {

constexpr size_t kMaxNodes = 200;
constexpr int64_t kMaxInputElements = int64_t{1} << 20;
constexpr uint64_t kMaxValueBytes = uint64_t{64} << 20;
constexpr double kRtol = 1e-3, kAtol = 1e-5;  // kiln verify's defaults (host/cli/run_commands.cc)

struct Setup {
  std::unique_ptr<kiln::Session> session;
  kiln::Compiler compiler;  // the kernels of every plugin of the build, for the executor
};

Setup& Shared() {
  static Setup* setup = [] {
    kiln::SetLogLevel("off");
    auto* s = new Setup();
    s->compiler.LoadSearchPathPlugins();
    kiln::Status st = kiln::Session::Create({{"oo.level", "O2"},
                                             {"limits.maxNodes", "1000"},
                                             {"limits.maxTensorBytes", "1048576"},
                                             {"limits.maxInitializerBytes", "4194304"},
                                             {"limits.maxSubgraphDepth", "8"},
                                             {"limits.maxFoldedBytes", "16777216"},
                                             {"limits.passSeconds", "10"}},
                                            {}, &s->session);
    if (!st.ok()) kiln::fuzz::Fail("Session::Create", st.ToString());
    return s;
  }();
  return *setup;
}

// Why a model is not run (empty: it is run): loops may not end soon, random ops differ from run to run.
std::string NotRunnable(const kiln::Model& model) {
  static const std::set<std::string> kSkipped = {"Loop", "Scan", "SequenceMap", "RandomNormal",
                                                 "RandomNormalLike", "RandomUniform", "RandomUniformLike",
                                                 "Bernoulli", "Multinomial", "Dropout"};
  std::string why;
  kiln::ForEachGraph(model, [&](const kiln::Graph& g) {
    for (const auto& n : g.nodes())
      if (kSkipped.count(n->op_type())) why = n->op_type();
  });
  return why;
}

size_t CountNodes(const kiln::Model& model) {
  size_t n = 0;
  kiln::ForEachGraph(model, [&](const kiln::Graph& g) { n += g.num_nodes(); });
  return n;
}

// Symbolic input dimensions, each set to 2; nullopt when an input is too large to make up.
std::optional<std::map<std::string, int64_t>> InputDims(const kiln::Graph& g) {
  std::map<std::string, int64_t> dims;
  for (const kiln::Value* v : kiln::Executor::RequiredInputs(g)) {
    const kiln::Type& t = v->type();
    if (t.kind != kiln::Type::Kind::kTensor || !t.shape) return std::nullopt;
    int64_t elements = 1;
    for (const kiln::Dim& d : t.shape->dims) {
      int64_t size = 2;
      if (d.is_known()) size = *d.value;
      else if (!d.symbol().empty()) dims[d.symbol()] = 2;
      if (size < 0 || (size > 0 && elements > kMaxInputElements / size)) return std::nullopt;
      elements *= size;
    }
  }
  return dims;
}

struct TooLarge {};

std::vector<kiln::RtValue> Run(const kiln::Model& model, const kiln::KernelRegistry& kernels,
                               const std::vector<kiln::RtValue>& inputs) {
  kiln::Executor executor(model, kernels);
  executor.set_observer([](const kiln::Node&, const kiln::Value&, const kiln::RtValue& v) {
    if (v.is_tensor() && v.tensor->byte_size() > kMaxValueBytes) throw TooLarge{};
  });
  return executor.Run(inputs);
}

void Differential(const kiln::Model& ref, const std::string& optimized_bytes, const kiln::KernelRegistry& kernels) {
  std::unique_ptr<kiln::Model> cand;
  try {
    cand = kiln::LoadModelFromBytes(optimized_bytes, "optimized.onnx", "");
  } catch (const kiln::Error& e) {
    kiln::fuzz::Fail("the optimised model does not load back", e.what());
  }
  auto dims = InputDims(ref.graph());
  if (!dims) return;
  std::vector<kiln::RtValue> inputs, ref_out;
  try {
    inputs = kiln::RandomInputs(ref.graph(), 0, *dims);
    ref_out = Run(ref, kernels, inputs);
  } catch (const kiln::Error& e) {
    if (kiln::fuzz::Verbose()) std::fprintf(stderr, "compile_diff: the input does not run: %s\n", e.what());
    return;  // the input model does not run (a missing kernel, a bad shape at run time): nothing to compare
  } catch (const TooLarge&) {
    return;
  } catch (const std::bad_alloc&) {
    return;
  }
  auto ref_in = kiln::Executor::RequiredInputs(ref.graph()), cand_in = kiln::Executor::RequiredInputs(cand->graph());
  std::vector<kiln::RtValue> cand_inputs;
  for (const kiln::Value* v : cand_in) {
    auto it = std::find_if(ref_in.begin(), ref_in.end(), [&](const kiln::Value* r) { return r->name() == v->name(); });
    if (it == ref_in.end()) kiln::fuzz::Fail("the optimised model has a new input", v->name());
    cand_inputs.push_back(inputs[static_cast<size_t>(it - ref_in.begin())]);
  }
  std::vector<kiln::RtValue> cand_out;
  try {
    cand_out = Run(*cand, kernels, cand_inputs);
  } catch (const kiln::Error& e) {
    kiln::fuzz::Fail("the optimised model fails where the input runs", e.what());
  } catch (const TooLarge&) {
    return;  // folding may make a value a constant that the input computed later; not a difference
  } catch (const std::bad_alloc&) {
    return;
  }
  const auto& ref_decl = ref.graph().outputs();
  const auto& cand_decl = cand->graph().outputs();
  for (size_t i = 0; i < ref_decl.size() && i < ref_out.size(); ++i) {
    auto it = std::find_if(cand_decl.begin(), cand_decl.end(),
                           [&](const kiln::Value* v) { return v->name() == ref_decl[i]->name(); });
    if (it == cand_decl.end()) kiln::fuzz::Fail("an output is missing from the optimised model", ref_decl[i]->name());
    size_t j = static_cast<size_t>(it - cand_decl.begin());
    if (j >= cand_out.size()) kiln::fuzz::Fail("the optimised model returned too few outputs", ref_decl[i]->name());
    kiln::Comparison c = kiln::CompareValues(ref_out[i], cand_out[j], kRtol, kAtol);
    if (kiln::fuzz::Verbose()) std::fprintf(stderr, "compile_diff: %s: %s\n", ref_decl[i]->name().c_str(), c.message.c_str());
    if (!c.match)
      kiln::fuzz::Fail("the optimised model computes something else",
                       ref_decl[i]->name() + ": " + kiln::Describe(ref_out[i]) + " " + c.message);
  }
}

// A shipped pass that touched a node or value it had deleted fails with "... was deleted" and is rolled back: the
// compile goes on, so only the report tells (PatternFusionPass lost every fusion of a graph this way).
void CheckPassFailures(const std::string& report_json) {
  nlohmann::json report = nlohmann::json::parse(report_json, nullptr, false);
  if (report.is_discarded()) kiln::fuzz::Fail("the compile report", "is no JSON");
  for (const auto& stage : report.value("stages", nlohmann::json::array()))
    for (const auto& pass : stage.value("passes", nlohmann::json::array()))
      for (const auto& message : pass.value("failure_messages", nlohmann::json::array()))
        if (message.get<std::string>().find(" was deleted") != std::string::npos)
          kiln::fuzz::Fail("a pass used what it had deleted", message.get<std::string>());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > kiln::fuzz::kMaxInputBytes) return -1;
  Setup& s = Shared();
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::unique_ptr<kiln::Model> ref;
  try {
    ref = kiln::LoadModelFromBytes(bytes, "fuzz.onnx", "");
  } catch (const kiln::Error&) {
    return 0;
  } catch (const std::exception& e) {
    kiln::fuzz::Fail("LoadModelFromBytes threw a non-kiln exception", e.what());
  }
  if (CountNodes(*ref) > kMaxNodes) return -1;
  kiln::BuildResult result;
  kiln::Status st = s.session->BuildModelFromBytes(bytes, {}, &result, "fuzz.onnx");
  if (st.code() == kiln::StatusCode::kInternal && st.message() != "out of memory")
    kiln::fuzz::Fail("the O2 compile", st.ToString());
  if (kiln::fuzz::Verbose())
    std::fprintf(stderr, "compile_diff: %s, %zu -> %zu nodes%s\n", st.ToString().c_str(), result.nodes_before,
                 result.nodes_after, NotRunnable(*ref).empty() ? "" : ", not run");
  if (st.ok()) CheckPassFailures(result.report_json);
  if (!st.ok() || !NotRunnable(*ref).empty()) return 0;
  try {
    Differential(*ref, result.model_bytes, s.compiler.kernels());
  } catch (const std::exception& e) {
    kiln::fuzz::Fail("running the models threw a non-kiln exception", e.what());
  }
  return 0;
}
