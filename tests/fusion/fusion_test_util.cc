#include "fusion/fusion_test_util.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "compile/compile_flow.h"
#include "exec/executor.h"
#include "ir/value.h"
#include "onnx/onnx_export.h"
#include "options/option_layer.h"
#include "support/error.h"

namespace kiln::testing {
namespace fs = std::filesystem;

nlohmann::json RunPatternFusion(Model& model, const std::map<std::string, std::string>& options, bool verify) {
  static int counter = 0;
  fs::path file = fs::temp_directory_path() /
                  ("kiln_fusion_pipeline_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + ".yaml");
  {
    std::ofstream out(file);
    out << "level: O2\nplugins: [folding, fusion]\nstages:\n  - name: Autofuse\n"
           "    passes: [InferShapePass, PatternFusionPass, DeadCodeEliminationPass]\n";
  }
  struct Remove {
    fs::path p;
    ~Remove() { fs::remove(p); }
  } remove{file};
  CompileRequest req;
  req.pipeline_file = file;
  CompileFlow flow({}, req.pipeline_file);
  std::vector<OptionText> texts;
  for (const auto& [k, v] : options) texts.push_back({k, v, "test"});
  OptionLayer session = flow.SetOptions(OptionPlace::kSession, texts);
  req.session = &session;
  req.verify_each = verify;
  req.strict = verify;
  ResolvedPipeline resolved = flow.Resolve(req);
  return flow.compiler().Run(model, resolved, req);
}

std::vector<ReportedCandidate> Candidates(const nlohmann::json& report) {
  std::vector<ReportedCandidate> out;
  for (const auto& st : report["stages"])
    for (const auto& p : st["passes"]) {
      if (p.value("name", "") != "PatternFusionPass" || !p.contains("reports") || !p["reports"].contains("candidates"))
        continue;
      for (const auto& c : p["reports"]["candidates"]) {
        ReportedCandidate r;
        r.rule = c.value("rule", "");
        r.pack = c.value("pack", "");
        r.root = c.value("root", "");
        r.decision = c.value("decision", "");
        r.reason = c.value("reason", "");
        for (const auto& n : c["nodes"]) r.nodes.push_back(n.get<std::string>());
        out.push_back(std::move(r));
      }
    }
  return out;
}

std::vector<ReportedCandidate> CandidatesOf(const nlohmann::json& report, const std::string& rule) {
  std::vector<ReportedCandidate> out;
  for (ReportedCandidate& c : Candidates(report))
    if (c.rule == rule) out.push_back(std::move(c));
  return out;
}

std::string DescribeCandidates(const nlohmann::json& report) {
  std::string s;
  for (const ReportedCandidate& c : Candidates(report))
    s += "  " + c.rule + " at " + c.root + ": " + c.decision + (c.reason.empty() ? "" : " (" + c.reason + ")") + "\n";
  return s.empty() ? "  (no candidates)\n" : s;
}

std::vector<std::string> FusedCalls(const Model& model) {
  onnx::ModelProto p = ExportModelProto(model);
  std::vector<std::string> out;
  for (const auto& n : p.graph().node())
    if (n.domain() == "kiln.fused") out.push_back(n.name() + "(" + n.op_type() + ")");
  return out;
}

std::string FunctionBodyOps(const Model& model, const std::string& name, const std::string& domain) {
  onnx::ModelProto p = ExportModelProto(model);
  for (const auto& f : p.functions()) {
    if (f.domain() != domain || f.name() != name) continue;
    std::string s;
    for (const auto& n : f.node()) s += (s.empty() ? "" : " ") + n.op_type();
    return s;
  }
  return "<none>";
}

std::string MainGraphOps(const Model& model) {
  onnx::ModelProto p = ExportModelProto(model);
  std::string s;
  for (const auto& n : p.graph().node())
    s += (s.empty() ? "" : " ") + (n.domain().empty() ? n.op_type() : n.domain() + "." + n.op_type());
  return s;
}

namespace {

std::vector<double> AsDoubles(const Tensor& t);

std::string Number(double v) {
  std::ostringstream os;
  os.precision(7);
  os << v;
  return os.str();
}

}  // namespace

std::string InitializerText(const Model& model) {
  std::map<std::string, std::string> lines;
  for (const Value* v : model.graph().initializers()) {
    const Tensor& t = *v->initializer();
    std::string line = v->name() + ": " + std::string(DataTypeName(t.type())) + "[";
    for (size_t i = 0; i < t.dims().size(); ++i) line += (i ? "," : "") + std::to_string(t.dims()[i]);
    line += "] {";
    std::vector<double> values = AsDoubles(t);
    for (size_t i = 0; i < values.size(); ++i) line += (i ? ", " : "") + Number(values[i]);
    lines[v->name()] = line + "}";
  }
  std::string out;
  for (const auto& [name, line] : lines) out += line + "\n";
  return out;
}

namespace {

// A small linear congruential generator: the same data on every machine.
struct Lcg {
  uint64_t state;
  double Next() {  // in [0, 1)
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) / static_cast<double>(1ull << 53);
  }
};

template <class T>
RtValue Filled(DataType type, const std::vector<int64_t>& dims, Lcg& rng, double lo, double hi, bool integral) {
  OutputTensor o = AllocateTensor(type, dims);
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  T* data = reinterpret_cast<T*>(o.data);
  for (int64_t i = 0; i < n; ++i) {
    double v = lo + (hi - lo) * rng.Next();
    data[i] = static_cast<T>(integral ? std::floor(v) : v);
  }
  return RtValue::Of(o.tensor);
}

std::vector<double> AsDoubles(const Tensor& t) {
  std::vector<double> out;
  auto copy = [&](auto span) {
    for (auto v : span) out.push_back(static_cast<double>(v));
  };
  switch (t.type()) {
    case DataType::kFloat: copy(t.values<float>()); break;
    case DataType::kDouble: copy(t.values<double>()); break;
    case DataType::kInt64: copy(t.values<int64_t>()); break;
    case DataType::kInt32: copy(t.values<int32_t>()); break;
    case DataType::kBool:
    case DataType::kUInt8: copy(t.values<uint8_t>()); break;
    case DataType::kInt8: copy(t.values<int8_t>()); break;
    default: throw InternalError("Execute: outputs of type " + std::string(DataTypeName(t.type())) + " are not compared");
  }
  return out;
}

}  // namespace

std::vector<Output> Execute(const Model& model, unsigned seed) {
  Compiler compiler;
  compiler.LoadSearchPathPlugins();
  Lcg rng{seed * 2654435761ull + 1};
  std::vector<RtValue> inputs;
  for (const Value* v : Executor::RequiredInputs(model.graph())) {
    const Type& t = v->type();
    if (!t.is_tensor() || !t.shape || !t.shape->is_static())
      throw InternalError("Execute: input '" + v->name() + "' needs a static tensor type");
    std::vector<int64_t> dims;
    for (const Dim& d : t.shape->dims) dims.push_back(*d.value);
    switch (t.elem) {
      case DataType::kFloat: inputs.push_back(Filled<float>(t.elem, dims, rng, -2, 2, false)); break;
      case DataType::kDouble: inputs.push_back(Filled<double>(t.elem, dims, rng, -2, 2, false)); break;
      case DataType::kInt64: inputs.push_back(Filled<int64_t>(t.elem, dims, rng, 0, 4, true)); break;
      case DataType::kInt32: inputs.push_back(Filled<int32_t>(t.elem, dims, rng, 0, 4, true)); break;
      case DataType::kBool: inputs.push_back(Filled<uint8_t>(t.elem, dims, rng, 0, 2, true)); break;
      default: throw InternalError("Execute: input '" + v->name() + "' has a type the test does not feed");
    }
  }
  std::vector<Output> out;
  for (const RtValue& r : Executor(model, compiler.kernels()).Run(inputs)) {
    if (r.kind != RtValue::Kind::kTensor) throw InternalError("Execute: an output is not a tensor");
    out.push_back({r.tensor->dims(), AsDoubles(*r.tensor)});
  }
  return out;
}

::testing::AssertionResult SameOutputs(const std::vector<Output>& expected, const std::vector<Output>& actual,
                                       double rtol, double atol) {
  if (expected.size() != actual.size())
    return ::testing::AssertionFailure() << expected.size() << " outputs expected, " << actual.size() << " computed";
  for (size_t i = 0; i < expected.size(); ++i) {
    if (expected[i].dims != actual[i].dims) {
      std::ostringstream a, b;
      for (int64_t d : expected[i].dims) a << d << " ";
      for (int64_t d : actual[i].dims) b << d << " ";
      return ::testing::AssertionFailure() << "output " << i << ": dims [" << a.str() << "] expected, [" << b.str()
                                           << "] computed";
    }
    for (size_t j = 0; j < expected[i].values.size(); ++j) {
      double e = expected[i].values[j], g = actual[i].values[j];
      if (std::isnan(e) && std::isnan(g)) continue;
      if (!(std::fabs(e - g) <= atol + rtol * std::fabs(e)))
        return ::testing::AssertionFailure() << "output " << i << " element " << j << ": " << e << " expected, " << g
                                             << " computed";
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace kiln::testing
