// The embedding API (kiln/kiln.h) over the compile flow `kiln compile` uses too (compile/compile_flow.h), so that
// both resolve, fail and report the same way: a Session owns one CompileFlow (its Compiler's registries and
// loaded plugins) and the session's option layer; each build makes the graph's layer, resolves, runs and
// serializes. Every entry point catches everything: a kiln::Error becomes a Status with its exit code and
// message, anything else kInternal.
#include <chrono>
#include <exception>
#include <functional>
#include <new>
#include <optional>

#include "api/report_summary.h"
#include "compile/compile_flow.h"
#include "ir/model.h"
#include "kiln/kiln.h"
#include "onnx/onnx_export.h"
#include "onnx/onnx_import.h"
#include "pipeline/pipeline_printer.h"
#include "support/display_text.h"
#include "support/error.h"

namespace kiln {

static_assert(static_cast<int>(StatusCode::kUsage) == static_cast<int>(ExitCode::kUsage));
static_assert(static_cast<int>(StatusCode::kInvalidModel) == static_cast<int>(ExitCode::kInvalidModel));
static_assert(static_cast<int>(StatusCode::kConfig) == static_cast<int>(ExitCode::kConfig));
static_assert(static_cast<int>(StatusCode::kPlugin) == static_cast<int>(ExitCode::kPlugin));
static_assert(static_cast<int>(StatusCode::kInternal) == static_cast<int>(ExitCode::kInternal));

namespace {

using Clock = std::chrono::steady_clock;

// Runs `body`, turning whatever it throws into a Status.
template <typename Body>
Status Guard(Body&& body) {
  try {
    body();
    return Status();
  } catch (const Error& e) {
    return Status(static_cast<StatusCode>(e.code()), EscapeForDisplay(e.what()));
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kInternal, "out of memory");
  } catch (const std::exception& e) {
    return Status(StatusCode::kInternal, "internal error: " + EscapeForDisplay(e.what()));
  } catch (...) {
    return Status(StatusCode::kInternal, "internal error: unknown exception");
  }
}

}  // namespace

std::string Status::ToString() const {
  if (ok()) return "ok";
  const char* kind = "internal";
  switch (code_) {
    case StatusCode::kOk: break;
    case StatusCode::kUsage: kind = "usage"; break;
    case StatusCode::kInvalidModel: kind = "invalid model"; break;
    case StatusCode::kConfig: kind = "config"; break;
    case StatusCode::kPlugin: kind = "plugin"; break;
    case StatusCode::kInternal: kind = "internal"; break;
  }
  return std::string(kind) + " error (" + std::to_string(exit_code()) + "): " + message_;
}

class Session::Impl {
 public:
  explicit Impl(SessionConfig config) : config_(std::move(config)) {}

  void Init() {
    std::optional<std::filesystem::path> pipeline;
    if (!config_.pipeline_file.empty()) pipeline = config_.pipeline_file;
    flow_ = std::make_unique<CompileFlow>(config_.plugins, pipeline);
    // The level's pipeline plugins and the search path's before the options: those may name plugins' options.
    session_ =
        std::make_unique<OptionLayer>(flow_->SetOptions(OptionPlace::kSession, Texts(config_.options, "session")));
  }

  // One build, in `kiln compile`'s order: the options and the pipeline resolved, the passes' preparation started
  // (they may read their own files while the model loads), then `load` reads the model (or hands back the
  // caller's), it is compiled and serialized.
  void Build(const std::function<Model&()>& load, const GraphOptions& graph_options, BuildResult* out,
             const std::string& model_name) {
    if (out == nullptr) throw UsageError("BuildModel: the result pointer is null");
    CompileRequest request = Request(graph_options);
    ResolvedPipeline resolved = flow_->Resolve(request);
    flow_->Prepare(resolved);
    LoadTimes times;
    times.started = Clock::now();
    Model& model = load();
    times.loaded = Clock::now();
    std::string bytes;
    nlohmann::json report = flow_->Compile(model, model_name, resolved, request, times,
                                           [&](Model& optimized) { bytes = SerializeModel(optimized, model_name); });
    out->model_bytes = std::move(bytes);
    out->report_json = EscapeJsonForDisplay(report).dump(2);
    out->summary = EscapeForDisplay(ReportSummaryText(report), true);
    out->nodes_before = report["nodes_before"].get<size_t>();
    out->nodes_after = report["nodes_after"].get<size_t>();
  }

  std::string Describe(const GraphOptions& graph_options) {
    CompileRequest request = Request(graph_options);
    ResolvedPipeline resolved = flow_->Resolve(request);
    return PrintPipeline(resolved.pipeline, resolved.plan, resolved.options);
  }

  void CheckLive() const {
    if (!flow_) throw UsageError("the session was finalised");
  }
  void Finalize() {
    graph_.reset();
    session_.reset();
    flow_.reset();  // unloads the plugins after everything they registered
  }

 private:
  static std::vector<OptionText> Texts(const std::map<std::string, std::string>& options, const std::string& origin) {
    std::vector<OptionText> texts;
    for (const auto& [name, value] : options) texts.push_back({name, value, origin});
    return texts;
  }

  // The request for one build: the graph layer is rebuilt from `graph_options` each time (after the plugins of
  // the pipeline its oo.level selects are loaded).
  CompileRequest Request(const GraphOptions& graph_options) {
    graph_ = std::make_unique<OptionLayer>(
        flow_->SetOptions(OptionPlace::kGraph, Texts(graph_options, "graph"), session_.get()));
    CompileRequest request = flow_->Request(session_.get(), graph_.get());
    request.verify_each = config_.verify_each;
    request.strict = config_.strict;
    return request;
  }

  SessionConfig config_;
  std::unique_ptr<CompileFlow> flow_;
  std::unique_ptr<OptionLayer> session_, graph_;
};

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Session::~Session() { Finalize(); }

Status Session::Create(const SessionConfig& config, std::unique_ptr<Session>* out) {
  return Guard([&] {
    if (out == nullptr) throw UsageError("Session::Create: the session pointer is null");
    out->reset();
    auto impl = std::make_unique<Impl>(config);
    impl->Init();
    out->reset(new Session(std::move(impl)));
  });
}

Status Session::Create(const SessionOptions& options, const std::vector<std::string>& plugins,
                       std::unique_ptr<Session>* out) {
  SessionConfig config;
  Status copied = Guard([&] {
    config.options = options;
    config.plugins = plugins;
  });
  return copied.ok() ? Create(config, out) : copied;
}

Status Session::BuildModel(const std::string& path, const GraphOptions& graph_options, BuildResult* out) {
  return Guard([&] {
    impl_->CheckLive();
    std::unique_ptr<Model> model;
    impl_->Build([&]() -> Model& { return *(model = LoadModel(path)); }, graph_options, out, path);
  });
}

Status Session::BuildModelFromBytes(std::string_view bytes, const GraphOptions& graph_options, BuildResult* out,
                                    const std::string& name) {
  return Guard([&] {
    impl_->CheckLive();
    std::unique_ptr<Model> model;
    impl_->Build([&]() -> Model& { return *(model = LoadModelFromBytes(bytes, name, "")); }, graph_options, out,
                 name);
  });
}

Status Session::BuildModel(Model& model, const GraphOptions& graph_options, BuildResult* out) {
  return Guard([&] {
    impl_->CheckLive();
    std::string name = model.source_path.empty() ? "<ir model>" : model.source_path;
    impl_->Build([&]() -> Model& { return model; }, graph_options, out, name);
  });
}

Status Session::DescribePipeline(const GraphOptions& graph_options, std::string* text) {
  return Guard([&] {
    impl_->CheckLive();
    if (text == nullptr) throw UsageError("DescribePipeline: the text pointer is null");
    *text = impl_->Describe(graph_options);
  });
}

Status Session::Finalize() {
  return Guard([&] {
    if (impl_) impl_->Finalize();
  });
}

}  // namespace kiln
