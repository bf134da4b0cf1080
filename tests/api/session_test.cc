// The embedding API: one session building graphs with different graph options, graph > session > pipeline >
// default through the API, statuses for bad models, options and misuse, the result's bytes and report.
#include "kiln/kiln.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include <onnx/onnx_pb.h>

#include "ir/buffer.h"
#include "kiln/kiln_ir.h"
#include "onnx/onnx_import.h"

namespace kiln {
namespace {
namespace fs = std::filesystem;

const std::string kSample = std::string(KILN_SOURCE_DIR) + "/examples/sample/model.onnx";

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A user pipeline at O0 whose Prepare stage runs NoOpPass (a host built-in), with `options` as its defaults.
std::string WritePipeline(const std::string& name, const std::string& options = "") {
  fs::path dir = fs::temp_directory_path() / ("kiln_api_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path file = dir / (name + ".yaml");
  std::ofstream(file) << "level: O0\n"
                      << (options.empty() ? "" : "options:\n" + options) << "stages:\n"
                      << "  - name: Prepare\n    passes:\n      - NoOpPass\n"
                      << "  - name: OptimizeStage1\n";
  return file.string();
}

nlohmann::json Report(const BuildResult& r) { return nlohmann::json::parse(r.report_json); }

// The report's entry for one option: {"name", "value", "source", "origin"?}.
nlohmann::json OptionEntry(const nlohmann::json& report, const std::string& name) {
  for (const auto& o : report["options"])
    if (o["name"] == name) return o;
  ADD_FAILURE() << name << " not in the report";
  return {};
}

// The names of the passes a stage ran, and of those it skipped.
std::vector<std::string> Ran(const nlohmann::json& report, const std::string& stage) {
  std::vector<std::string> out;
  for (const auto& st : report["stages"])
    if (st["name"] == stage)
      for (const auto& p : st["passes"]) out.push_back(p["name"]);
  return out;
}
std::vector<std::string> Skipped(const nlohmann::json& report, const std::string& stage) {
  std::vector<std::string> out;
  for (const auto& st : report["stages"])
    if (st["name"] == stage)
      for (const auto& p : st["skipped"]) out.push_back(p["name"]);
  return out;
}
const std::vector<std::string> kNoOp = {"NoOpPass"};

std::unique_ptr<Session> MakeSession(SessionConfig config) {
  std::unique_ptr<Session> session;
  Status s = Session::Create(config, &session);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return session;
}

TEST(ApiSession, OneSessionTwoGraphsWithDifferentGraphOptionsGetDifferentPipelines) {
  SessionConfig config;
  config.pipeline_file = WritePipeline("two_graphs");
  auto session = MakeSession(config);
  ASSERT_TRUE(session);
  BuildResult a, b;
  ASSERT_TRUE(session->BuildModel(kSample, {}, &a).ok());
  Status s = session->BuildModel(kSample, {{"oo.disableOptimizations", "NoOpPass"}}, &b);
  ASSERT_TRUE(s.ok()) << s.ToString();
  auto ra = Report(a), rb = Report(b);
  EXPECT_EQ(Ran(ra, "Prepare"), kNoOp);
  EXPECT_TRUE(Skipped(ra, "Prepare").empty());
  EXPECT_TRUE(Ran(rb, "Prepare").empty());
  EXPECT_EQ(Skipped(rb, "Prepare"), kNoOp);
  EXPECT_EQ(OptionEntry(ra, "oo.disableOptimizations")["source"], "default");
  EXPECT_EQ(OptionEntry(rb, "oo.disableOptimizations")["source"], "graph");
  // The pipelines as printed differ the same way.
  std::string pa, pb;
  ASSERT_TRUE(session->DescribePipeline({}, &pa).ok());
  ASSERT_TRUE(session->DescribePipeline({{"oo.disableOptimizations", "NoOpPass"}}, &pb).ok());
  EXPECT_NE(pa, pb);
  EXPECT_TRUE(session->Finalize().ok());
}

// Needs the folding plugin (the O1 pipeline lists it and its passes).
TEST(ApiSession, OneSessionBuildsAtO0AndO1ByGraphOption) {
  auto session = MakeSession({});
  ASSERT_TRUE(session);
  BuildResult o0, o1;
  Status s = session->BuildModel(kSample, {{"oo.level", "O0"}}, &o0);
  ASSERT_TRUE(s.ok()) << s.ToString();
  s = session->BuildModel(kSample, {{"oo.level", "O1"}}, &o1);
  ASSERT_TRUE(s.ok()) << s.ToString();
  auto r0 = Report(o0), r1 = Report(o1);
  EXPECT_EQ(r0["level"], "O0");
  EXPECT_EQ(r1["level"], "O1");
  EXPECT_EQ(OptionEntry(r1, "oo.level")["source"], "graph");
  EXPECT_TRUE(Ran(r0, "Prepare").empty());
  EXPECT_FALSE(Ran(r1, "Prepare").empty());
  EXPECT_EQ(o0.nodes_before, o0.nodes_after);  // O0 changes nothing
  EXPECT_LE(o1.nodes_after, o1.nodes_before);
}

TEST(ApiSession, GraphOptionsBeatSessionOptions) {
  SessionConfig config;
  config.pipeline_file = WritePipeline("graph_over_session");
  config.options = {{"oo.optimizationSwitch", "NoOpPass:off"}};
  auto session = MakeSession(config);
  ASSERT_TRUE(session);
  BuildResult session_only, graph_too;
  ASSERT_TRUE(session->BuildModel(kSample, {}, &session_only).ok());
  ASSERT_TRUE(session->BuildModel(kSample, {{"oo.optimizationSwitch", "NoOpPass:on"}}, &graph_too).ok());
  auto rs = Report(session_only), rg = Report(graph_too);
  EXPECT_EQ(Skipped(rs, "Prepare"), kNoOp);
  EXPECT_EQ(OptionEntry(rs, "oo.optimizationSwitch")["source"], "session");
  EXPECT_EQ(Ran(rg, "Prepare"), kNoOp);
  EXPECT_EQ(OptionEntry(rg, "oo.optimizationSwitch")["source"], "graph");
  EXPECT_EQ(OptionEntry(rg, "oo.optimizationSwitch")["origin"], "graph");
}

TEST(ApiSession, GraphLevelBeatsSessionLevel) {
  auto session = MakeSession(SessionConfig{{{"oo.level", "O3"}}, {}, "", false, false});
  ASSERT_TRUE(session);
  // oo.level=O0 from the graph: no plugin is needed and nothing runs.
  BuildResult r;
  Status s = session->BuildModel(kSample, {{"oo.level", "O0"}}, &r);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(Report(r)["level"], "O0");
  EXPECT_EQ(OptionEntry(Report(r), "oo.level")["source"], "graph");
}

TEST(ApiSession, SessionOptionsBeatPipelineDefaultsWhichBeatRegistryDefaults) {
  std::string file = WritePipeline("session_over_pipeline", "  oo.optimizationSwitch: \"NoOpPass:off\"\n");
  SessionConfig plain;
  plain.pipeline_file = file;
  auto pipeline_only = MakeSession(plain);
  SessionConfig with_session = plain;
  with_session.options = {{"oo.optimizationSwitch", "NoOpPass:on"}};
  auto session_too = MakeSession(with_session);
  ASSERT_TRUE(pipeline_only && session_too);
  BuildResult p, s;
  ASSERT_TRUE(pipeline_only->BuildModel(kSample, {}, &p).ok());
  ASSERT_TRUE(session_too->BuildModel(kSample, {}, &s).ok());
  auto rp = Report(p), rs = Report(s);
  EXPECT_EQ(OptionEntry(rp, "oo.optimizationSwitch")["source"], "pipeline");
  EXPECT_EQ(Skipped(rp, "Prepare"), kNoOp);
  EXPECT_EQ(OptionEntry(rs, "oo.optimizationSwitch")["source"], "session");
  EXPECT_EQ(Ran(rs, "Prepare"), kNoOp);
  EXPECT_EQ(OptionEntry(rs, "oo.disableOptimizations")["source"], "default");
}

TEST(ApiSession, BadModelBytesAreStatusTwo) {
  auto session = MakeSession({});
  ASSERT_TRUE(session);
  BuildResult r;
  Status s = session->BuildModelFromBytes("this is not onnx", {{"oo.level", "O0"}}, &r, "junk.onnx");
  EXPECT_EQ(s.code(), StatusCode::kInvalidModel);
  EXPECT_EQ(s.exit_code(), 2);
  EXPECT_NE(s.message().find("junk.onnx"), std::string::npos) << s.message();
  EXPECT_TRUE(r.model_bytes.empty());
  s = session->BuildModel("/nonexistent/model.onnx", {{"oo.level", "O0"}}, &r);
  EXPECT_EQ(s.exit_code(), 2) << s.ToString();
  EXPECT_NE(s.message().find("/nonexistent/model.onnx"), std::string::npos) << s.message();
  // The session is still usable after a failure.
  s = session->BuildModelFromBytes(ReadBytes(kSample), {{"oo.level", "O0"}}, &r);
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST(ApiSession, BadOptionValuesAreStatusThree) {
  std::unique_ptr<Session> session;
  Status s = Session::Create({{"oo.constantFolding", "maybe"}}, {}, &session);
  EXPECT_EQ(s.code(), StatusCode::kConfig);
  EXPECT_NE(s.message().find("true, false"), std::string::npos) << s.message();
  EXPECT_FALSE(session);

  s = Session::Create({{"oo.constantFoldin", "true"}}, {}, &session);
  EXPECT_EQ(s.exit_code(), 3);
  EXPECT_NE(s.message().find("did you mean 'oo.constantFolding'"), std::string::npos) << s.message();

  session = MakeSession({});
  ASSERT_TRUE(session);
  BuildResult r;
  s = session->BuildModel(kSample, {{"oo.level", "O9"}}, &r);
  EXPECT_EQ(s.exit_code(), 3);
  EXPECT_NE(s.message().find("O0, O1, O2, O3"), std::string::npos) << s.message();
  s = session->BuildModel(kSample, {{"oo.level", "O0"}, {"oo.memoryPolicy", "Greedy"}}, &r);
  EXPECT_EQ(s.exit_code(), 3);
  EXPECT_NE(s.message().find("Balanced"), std::string::npos) << s.message();
  EXPECT_EQ(s.ToString().rfind("config error (3): ", 0), 0u) << s.ToString();
}

TEST(ApiSession, MissingPluginIsStatusFour) {
  std::unique_ptr<Session> session;
  Status s = Session::Create({}, {"/nonexistent/libnothing.so"}, &session);
  EXPECT_EQ(s.code(), StatusCode::kPlugin) << s.ToString();
  EXPECT_NE(s.message().find("/nonexistent/libnothing.so"), std::string::npos) << s.message();
  EXPECT_FALSE(session);
}

TEST(ApiSession, ResultCarriesModelBytesReportAndCounts) {
  SessionConfig config;
  config.pipeline_file = WritePipeline("result");
  auto session = MakeSession(config);
  ASSERT_TRUE(session);
  BuildResult r;
  ASSERT_TRUE(session->BuildModel(kSample, {}, &r).ok());
  EXPECT_EQ(r.nodes_before, 15u);
  EXPECT_EQ(r.nodes_after, 15u);
  auto model = LoadModelFromBytes(r.model_bytes, "result", "");
  EXPECT_EQ(model->graph().CountNodes(true), r.nodes_after);
  auto report = Report(r);
  EXPECT_EQ(report["model"], kSample);
  EXPECT_EQ(report["nodes_before"], 15);
  EXPECT_TRUE(report.contains("kernels"));
  EXPECT_TRUE(report["seconds"].contains("total"));
  // Per stage and per pass: runs, changes, time.
  const auto& prepare = report["stages"][0];
  EXPECT_EQ(prepare["name"], "Prepare");
  EXPECT_TRUE(prepare.contains("seconds"));
  const auto& noop = prepare["passes"][0];
  EXPECT_EQ(noop["name"], "NoOpPass");
  EXPECT_GE(noop["runs"].get<int>(), 1);
  EXPECT_EQ(noop["changes"], 0);
  EXPECT_TRUE(noop.contains("seconds"));
  // Every registered option is listed with its source.
  for (const char* name : {"oo.level", "oo.constantFolding", "oo.deadCodeElimination",
                           "oo.commonSubexpressionElimination", "oo.memoryPolicy", "oo.optimizationSwitch",
                           "oo.disableOptimizations"})
    EXPECT_TRUE(OptionEntry(report, name).contains("source")) << name;
  EXPECT_EQ(r.summary.rfind("kiln: O0: 15 -> 15 nodes in ", 0), 0u) << r.summary;
  EXPECT_NE(r.summary.find("Prepare: no changes"), std::string::npos) << r.summary;
}

// The result's bytes are what `kiln compile` writes for the same model and level: both stream the optimised model
// the same way (onnx/onnx_export.h: SerializeModel and WriteModel), weights appended from their buffers.
TEST(ApiSession, ResultBytesAreWhatKilnCompileWrites) {
  SessionConfig config;
  config.options = {{"oo.level", "O2"}};
  auto session = MakeSession(config);
  ASSERT_TRUE(session);
  BuildResult r;
  ASSERT_TRUE(session->BuildModel(kSample, {}, &r).ok());
  EXPECT_LT(r.nodes_after, r.nodes_before);  // the O2 pipeline changed the model
  const fs::path out = fs::temp_directory_path() / ("kiln_api_cli_" + std::to_string(::getpid()) + ".onnx");
  const std::string cmd = std::string(KILN_BINARY) + " compile " + kSample + " -o " + out.string() +
                          " --oo.level=O2 --log-level=off >/dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const std::string written = ReadBytes(out.string());
  fs::remove(out);
  EXPECT_EQ(written.size(), r.model_bytes.size());
  EXPECT_TRUE(written == r.model_bytes);
}

TEST(ApiSession, BuildsAnIrModelInPlace) {
  SessionConfig config;
  config.pipeline_file = WritePipeline("ir");
  auto session = MakeSession(config);
  ASSERT_TRUE(session);
  std::unique_ptr<Model> model = LoadModel(kSample);
  BuildResult r;
  Status s = session->BuildModel(*model, {}, &r);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(r.nodes_after, model->graph().CountNodes(true));
  EXPECT_FALSE(r.model_bytes.empty());
  EXPECT_EQ(Ran(Report(r), "Prepare"), kNoOp);
}

TEST(ApiSession, FinalizeEndsTheSession) {
  auto session = MakeSession({});
  ASSERT_TRUE(session);
  EXPECT_TRUE(session->Finalize().ok());
  EXPECT_TRUE(session->Finalize().ok());  // idempotent
  BuildResult r;
  Status s = session->BuildModel(kSample, {{"oo.level", "O0"}}, &r);
  EXPECT_EQ(s.code(), StatusCode::kUsage);
  EXPECT_NE(s.message().find("finalised"), std::string::npos) << s.message();
  s = session->BuildModel(kSample, {}, nullptr);
  EXPECT_EQ(s.code(), StatusCode::kUsage);
}

// A float initializer of `dims` in raw_data, values first + (i % 97) / 97.
void AddRawWeight(onnx::GraphProto* g, const std::string& name, const std::vector<int64_t>& dims, float first) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  int64_t n = 1;
  for (int64_t d : dims) t->add_dims(d), n *= d;
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = first + static_cast<float>(i % 97) / 97.f;
  t->set_raw_data(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
}

void AddNode(onnx::GraphProto* g, const std::string& op, const std::vector<std::string>& in, const std::string& out) {
  auto* n = g->add_node();
  n->set_op_type(op);
  for (const auto& i : in) n->add_input(i);
  n->add_output(out);
}

void AddFloatIo(onnx::ValueInfoProto* v, const std::string& name, const std::vector<int64_t>& dims) {
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

// The bytes of a model whose first `count` initializers' raw data all sit at offsets that are not a multiple of 4
// (protobuf puts raw_data anywhere): build(pads) makes the model with those initializers' names padded by pads[i]
// characters, tried until every one lands misaligned. Written to a file of its own; returns its path ("" if no
// padding works).
std::string WriteMisalignedModel(const std::string& file, size_t count,
                                 const std::function<onnx::ModelProto(const std::vector<int>&)>& build) {
  std::string bytes;
  std::vector<int> pads(count, 0);
  for (size_t tries = 0; tries < (size_t{1} << (2 * count)) && bytes.empty(); ++tries) {
    for (size_t i = 0; i < count; ++i) pads[i] = static_cast<int>((tries >> (2 * i)) & 3);
    onnx::ModelProto m = build(pads);
    std::string candidate = m.SerializeAsString();
    bool all = true;
    for (size_t i = 0; i < count; ++i) {
      size_t at = candidate.find(m.graph().initializer(static_cast<int>(i)).raw_data().substr(0, 64));
      all = all && at != std::string::npos && at % 4 != 0;
    }
    if (all) bytes = std::move(candidate);
  }
  if (bytes.empty()) return "";
  fs::path dir = fs::temp_directory_path() / ("kiln_api_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / file).string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// Builds `path` at `level` in a session of its own; returns the bytes that misaligned weights had copied to be
// aligned meanwhile (Buffer::AlignedCopyBytes).
uint64_t AlignedCopiesOfBuild(const std::string& path, const std::string& level, BuildResult* r) {
  auto session = MakeSession({});
  const uint64_t before = Buffer::AlignedCopyBytes();
  Status s = session->BuildModel(path, {{"oo.level", level}}, r);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return Buffer::AlignedCopyBytes() - before;
}

onnx::ModelProto ReadModelProto(const std::string& path) {
  onnx::ModelProto m;
  std::ifstream in(path, std::ios::binary);
  m.ParseFromIstream(&in);
  return m;
}

// Weights at offsets their element type is not aligned to are borrowed from the file; a compile copies one,
// aligned, only when a kernel reads it typed: here the Neg that constant folding computes. Not the MatMul weight
// that no pass needs to read (ConstantFoldingPass's test of every input for constness, and CSE's hash of every
// constant, each copied all of them), nor the weight it transposes (Transpose takes any address, ABI 1.8).
TEST(ApiSession, AMisalignedWeightIsCopiedOnlyWhereAKernelReadsItTyped) {
  const std::string path = WriteMisalignedModel("misaligned.onnx", 3, [](const std::vector<int>& pads) {
    onnx::ModelProto m;
    m.set_ir_version(8);
    m.add_opset_import()->set_version(17);
    auto* g = m.mutable_graph();
    g->set_name("misaligned");
    const std::string w = "W" + std::string(static_cast<size_t>(pads[0]), 'w');
    const std::string t = "T" + std::string(static_cast<size_t>(pads[1]), 't');
    const std::string n = "N" + std::string(static_cast<size_t>(pads[2]), 'n');
    AddRawWeight(g, w, {256, 64}, 0.5f);  // 64 kB, read by nothing at compile time
    AddRawWeight(g, t, {32, 64}, -3.f);   // 8 kB, transposed by constant folding
    AddRawWeight(g, n, {64, 32}, 2.f);    // 8 kB, negated by constant folding
    AddNode(g, "MatMul", {"x", w}, "y");
    AddNode(g, "Transpose", {t}, "tt");
    AddNode(g, "Neg", {n}, "nn");
    AddNode(g, "Add", {"tt", "nn"}, "s");
    AddNode(g, "MatMul", {"y", "s"}, "z");
    AddFloatIo(g->add_input(), "x", {1, 256});
    AddFloatIo(g->add_output(), "z", {1, 32});
    return m;
  });
  ASSERT_FALSE(path.empty());

  BuildResult r;
  EXPECT_EQ(AlignedCopiesOfBuild(path, "O2", &r), 64u * 32u * 4u) << "only the negated weight is read typed";
  onnx::ModelProto out;
  ASSERT_TRUE(out.ParseFromString(r.model_bytes));
  onnx::ModelProto in = ReadModelProto(path);
  // The borrowed weight is written out as it was read; the folded one is T transposed minus N.
  std::vector<float> t(32 * 64), n(64 * 32), folded;
  std::memcpy(t.data(), in.graph().initializer(1).raw_data().data(), t.size() * sizeof(float));
  std::memcpy(n.data(), in.graph().initializer(2).raw_data().data(), n.size() * sizeof(float));
  bool found = false;
  for (const auto& init : out.graph().initializer()) {
    if (init.name() == in.graph().initializer(0).name()) {
      found = true;
      EXPECT_EQ(init.raw_data(), in.graph().initializer(0).raw_data());
    } else if (init.raw_data().size() == 64 * 32 * sizeof(float)) {
      folded.resize(64 * 32);
      std::memcpy(folded.data(), init.raw_data().data(), init.raw_data().size());
    }
  }
  EXPECT_TRUE(found);
  ASSERT_EQ(folded.size(), 64u * 32u) << "the Transpose, Neg and Add folded into one constant";
  for (size_t i = 0; i < 64; ++i)
    for (size_t j = 0; j < 32; ++j) ASSERT_EQ(folded[i * 32 + j], t[j * 64 + i] - n[i * 32 + j]) << i << "," << j;
  fs::remove(path);
}

// ABI 1.8: FuseBatchNormIntoConvPass reads the Conv's weights where the file keeps them (value_constant_bytes), so
// folding a BatchNormalization into a Conv whose weights sit misaligned in the file copies nothing to align them,
// and the folded weights are the weights times scale / sqrt(var + epsilon) all the same.
TEST(ApiSession, FoldingABatchNormReadsMisalignedConvWeightsWithoutCopyingThem) {
  constexpr int64_t kOut = 16, kIn = 8, kK = 3;  // 4.5 kB of weights: a window onto the file, not the arena
  const std::string path = WriteMisalignedModel("misaligned_conv.onnx", 1, [](const std::vector<int>& pads) {
    onnx::ModelProto m;
    m.set_ir_version(8);
    m.add_opset_import()->set_version(17);
    auto* g = m.mutable_graph();
    g->set_name("misaligned_conv");
    const std::string w = "W" + std::string(static_cast<size_t>(pads[0]), 'w');
    AddRawWeight(g, w, {kOut, kIn, kK, kK}, -0.25f);
    AddRawWeight(g, "B", {kOut}, 0.1f);
    AddRawWeight(g, "scale", {kOut}, 0.5f);
    AddRawWeight(g, "shift", {kOut}, -1.f);
    AddRawWeight(g, "mean", {kOut}, 0.2f);
    AddRawWeight(g, "var", {kOut}, 1.5f);
    AddNode(g, "Conv", {"x", w, "B"}, "c");
    AddNode(g, "BatchNormalization", {"c", "scale", "shift", "mean", "var"}, "y");
    AddNode(g, "Relu", {"y"}, "r");  // the pass leaves a BatchNormalization whose output is the graph's alone
    AddFloatIo(g->add_input(), "x", {1, kIn, 8, 8});
    AddFloatIo(g->add_output(), "r", {1, kOut, 6, 6});
    return m;
  });
  ASSERT_FALSE(path.empty());

  BuildResult r;
  EXPECT_EQ(AlignedCopiesOfBuild(path, "O1", &r), 0u) << "the misaligned Conv weight was copied to be aligned";

  onnx::ModelProto out;
  ASSERT_TRUE(out.ParseFromString(r.model_bytes));
  ASSERT_EQ(out.graph().node_size(), 2);
  EXPECT_EQ(out.graph().node(0).op_type(), "Conv");
  EXPECT_EQ(out.graph().node(1).op_type(), "Relu");
  const std::string folded_name = out.graph().node(0).input(1);
  const onnx::TensorProto* folded = nullptr;
  for (const auto& init : out.graph().initializer())
    if (init.name() == folded_name) folded = &init;
  ASSERT_NE(folded, nullptr);
  ASSERT_EQ(folded->raw_data().size(), static_cast<size_t>(kOut * kIn * kK * kK) * sizeof(float));
  std::vector<float> got(static_cast<size_t>(kOut * kIn * kK * kK));
  std::memcpy(got.data(), folded->raw_data().data(), folded->raw_data().size());
  auto value = [](float first, int64_t i) { return first + static_cast<float>(i % 97) / 97.f; };
  const int64_t per_channel = kIn * kK * kK;
  for (int64_t c = 0; c < kOut; ++c) {
    double f = value(0.5f, c) / std::sqrt(static_cast<double>(value(1.5f, c)) + static_cast<double>(1e-5f));
    for (int64_t j = 0; j < per_channel; ++j) {
      int64_t i = c * per_channel + j;
      EXPECT_EQ(got[static_cast<size_t>(i)], static_cast<float>(value(-0.25f, i) * f)) << "weight " << i;
    }
  }
  fs::remove(path);
}

TEST(ApiSession, NullResultIsUsageError) {
  auto session = MakeSession({});
  ASSERT_TRUE(session);
  Status s = session->BuildModel(kSample, {{"oo.level", "O0"}}, nullptr);
  EXPECT_EQ(s.code(), StatusCode::kUsage);
}

// The public header stays free of protobuf, ONNX, yaml-cpp and JSON: it includes standard headers only.
TEST(ApiHeader, IncludesOnlyTheStandardLibrary) {
  std::ifstream in(std::string(KILN_SOURCE_DIR) + "/host/include/kiln/kiln.h");
  std::string line;
  int includes = 0;
  while (std::getline(in, line)) {
    if (line.rfind("#include", 0) != 0) continue;
    ++includes;
    EXPECT_EQ(line.find('"'), std::string::npos) << line;
    EXPECT_EQ(line.find('/'), std::string::npos) << line;  // <onnx/...>, <google/...>, <nlohmann/...>, <yaml-cpp/...>
    EXPECT_EQ(line.find(".h"), std::string::npos) << line;
  }
  EXPECT_GT(includes, 0);
}

}  // namespace
}  // namespace kiln
