// The embedding API (kiln/kiln.h) over a Compiler: a Session owns one Compiler (its registries and loaded
// plugins) and the session's option layer; each build makes the graph's layer, resolves, runs and exports. Every
// entry point catches everything: a kiln::Error becomes a Status with its exit code and message, anything else
// kInternal. The steps mirror `kiln compile` (host/cli/compile_command.cc), so that the API and the CLI resolve
// and report the same way.
#include <chrono>
#include <exception>
#include <limits>
#include <new>
#include <optional>

#include <onnx/onnx_pb.h>

#include "api/report_summary.h"
#include "compile/compiler.h"
#include "ir/model.h"
#include "kiln/kiln.h"
#include "onnx/onnx_export.h"
#include "onnx/onnx_import.h"
#include "options/core_options.h"
#include "pipeline/pipeline_printer.h"
#include "report/model_summary.h"
#include "support/error.h"

namespace kiln {

static_assert(static_cast<int>(StatusCode::kUsage) == static_cast<int>(ExitCode::kUsage));
static_assert(static_cast<int>(StatusCode::kInvalidModel) == static_cast<int>(ExitCode::kInvalidModel));
static_assert(static_cast<int>(StatusCode::kConfig) == static_cast<int>(ExitCode::kConfig));
static_assert(static_cast<int>(StatusCode::kPlugin) == static_cast<int>(ExitCode::kPlugin));
static_assert(static_cast<int>(StatusCode::kInternal) == static_cast<int>(ExitCode::kInternal));

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// Runs `body`, turning whatever it throws into a Status.
template <typename Body>
Status Guard(Body&& body) {
  try {
    body();
    return Status();
  } catch (const Error& e) {
    return Status(static_cast<StatusCode>(e.code()), e.what());
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kInternal, "out of memory");
  } catch (const std::exception& e) {
    return Status(StatusCode::kInternal, std::string("internal error: ") + e.what());
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
    compiler_ = std::make_unique<Compiler>();
    compiler_->LoadPlugins(config_.plugins);
    // The level's pipeline plugins and the search path's before the options: those may name plugins' options.
    std::optional<Error> plugin_error = LoadPluginsForLevel(config_.options, {});
    session_ = std::make_unique<OptionLayer>(OptionPlace::kSession);
    SetChecked(*session_, config_.options, "session", plugin_error);
  }

  void Build(Model& model, const GraphOptions& graph_options, BuildResult* out, const std::string& model_name,
             Clock::time_point started, Clock::time_point loaded) {
    if (out == nullptr) throw UsageError("BuildModel: the result pointer is null");
    CompileRequest request = Request(graph_options);
    ResolvedPipeline resolved = compiler_->Resolve(request);
    const size_t before = model.graph().CountNodes(true);
    nlohmann::json report = compiler_->Run(model, resolved, request);
    auto optimized = Clock::now();
    onnx::ModelProto proto = ExportModelProto(model);
    if (proto.ByteSizeLong() > static_cast<size_t>(std::numeric_limits<int32_t>::max()))
      throw ModelError(model_name + ": the optimised model would be over 2 GB, past protobuf's limit");
    std::string bytes;
    if (!proto.SerializeToString(&bytes)) throw InternalError(model_name + ": serialization failed");
    auto done = Clock::now();
    report["model"] = model_name;
    report["nodes_before"] = before;
    report["nodes_after"] = model.graph().CountNodes(true);
    report["seconds"] = {{"load", Seconds(started, loaded)},
                         {"optimize", Seconds(loaded, optimized)},
                         {"write", Seconds(optimized, done)},
                         {"total", Seconds(started, done)}};
    report["summary_after"] = ModelSummary(model);
    out->model_bytes = std::move(bytes);
    out->report_json = report.dump(2);
    out->summary = ReportSummaryText(report);
    out->nodes_before = before;
    out->nodes_after = report["nodes_after"].get<size_t>();
  }

  std::string Describe(const GraphOptions& graph_options) {
    CompileRequest request = Request(graph_options);
    ResolvedPipeline resolved = compiler_->Resolve(request);
    return PrintPipeline(resolved.pipeline, resolved.plan, resolved.options);
  }

  void CheckLive() const {
    if (!compiler_) throw UsageError("the session was finalised");
  }
  void Finalize() {
    graph_.reset();
    session_.reset();
    compiler_.reset();  // unloads the plugins after everything they registered
  }

 private:
  // The request for one build: the graph layer is rebuilt from `graph_options` each time.
  CompileRequest Request(const GraphOptions& graph_options) {
    std::optional<Error> plugin_error = LoadPluginsForLevel(config_.options, graph_options);
    graph_ = std::make_unique<OptionLayer>(OptionPlace::kGraph);
    SetChecked(*graph_, graph_options, "graph", plugin_error);
    CompileRequest request;
    request.session = session_.get();
    request.graph = graph_.get();
    if (!config_.pipeline_file.empty()) request.pipeline_file = config_.pipeline_file;
    request.verify_each = config_.verify_each;
    request.strict = config_.strict;
    return request;
  }

  // Loads the plugins of the pipeline that oo.level (graph, else session) selects, and the search path's. A
  // pipeline plugin that fails is returned, not thrown: an option error is the better message when there is one,
  // and Resolve reports the plugin otherwise.
  std::optional<Error> LoadPluginsForLevel(const SessionOptions& session, const GraphOptions& graph) {
    OptionLayer session_level(OptionPlace::kSession), graph_level(OptionPlace::kGraph);
    if (auto it = session.find(std::string(kOptLevelOption)); it != session.end())
      session_level.Set(compiler_->options(), it->first, it->second, "session");
    if (auto it = graph.find(std::string(kOptLevelOption)); it != graph.end())
      graph_level.Set(compiler_->options(), it->first, it->second, "graph");
    CompileRequest probe;
    probe.session = &session_level;
    probe.graph = &graph_level;
    if (!config_.pipeline_file.empty()) probe.pipeline_file = config_.pipeline_file;
    try {
      compiler_->LoadPluginsFor(probe);
    } catch (const Error& e) {
      if (e.code() != ExitCode::kPlugin) throw;
      return e;
    }
    return std::nullopt;
  }

  // Sets the options; an unknown name that is no near miss of a known one may be a failed plugin's: that plugin's
  // error is the one reported then (as `kiln compile` does).
  void SetChecked(OptionLayer& layer, const std::map<std::string, std::string>& options, const std::string& origin,
                  const std::optional<Error>& plugin_error) {
    const OptionRegistry& known = compiler_->options();
    for (const auto& [name, value] : options) {
      try {
        layer.Set(known, name, value, origin);
      } catch (const Error&) {
        if (plugin_error && !known.Find(name) &&
            known.UnknownOptionMessage(name).find("did you mean") == std::string::npos)
          throw *plugin_error;
        throw;
      }
    }
  }

  SessionConfig config_;
  std::unique_ptr<Compiler> compiler_;
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
    auto t0 = Clock::now();
    std::unique_ptr<Model> model = LoadModel(path);
    impl_->Build(*model, graph_options, out, path, t0, Clock::now());
  });
}

Status Session::BuildModelFromBytes(std::string_view bytes, const GraphOptions& graph_options, BuildResult* out,
                                    const std::string& name) {
  return Guard([&] {
    impl_->CheckLive();
    auto t0 = Clock::now();
    std::unique_ptr<Model> model = LoadModelFromBytes(bytes, name, "");
    impl_->Build(*model, graph_options, out, name, t0, Clock::now());
  });
}

Status Session::BuildModel(Model& model, const GraphOptions& graph_options, BuildResult* out) {
  return Guard([&] {
    impl_->CheckLive();
    auto t0 = Clock::now();
    std::string name = model.source_path.empty() ? "<ir model>" : model.source_path;
    impl_->Build(model, graph_options, out, name, t0, t0);
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
