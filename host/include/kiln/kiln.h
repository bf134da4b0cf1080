// Kiln's embedding API: compile ONNX models from an application, the way GE's users call
// aclgrphBuildInitialize / aclgrphBuildModel / aclgrphBuildFinalize.
//
//   std::unique_ptr<kiln::Session> session;
//   kiln::Status s = kiln::Session::Create({{"oo.level", "O1"}}, /*plugins=*/{}, &session);
//   kiln::BuildResult result;
//   if (s.ok()) s = session->BuildModel("model.onnx", {{"oo.constantFolding", "false"}}, &result);
//   if (!s.ok()) std::cerr << s.ToString() << "\n";  // "config error (3): option oo.constantFolding: ..."
//   session->Finalize();
//
// A session holds what compiles share: the option and pass registries and the loaded plugins. Each build resolves
// its options with the precedence graph > session > pipeline file > registry default, runs the level's pipeline
// and hands back the optimised model as serialized ONNX, the report (JSON, as `kiln compile --report` writes it) and
// node counts. Nothing here exits the process or lets an exception escape: every failure is a Status whose code is
// the number `kiln` would exit with (README.md, "Exit codes") and whose message is the one it would print.
//
// Builds on one session run one at a time (a session is not thread-safe); separate sessions are independent.
// This header includes only the standard library: no protobuf, ONNX, yaml-cpp or JSON headers.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln {

class Model;  // the host IR (kiln/kiln_ir.h); only the advanced BuildModel overload needs it

// The numbers `kiln` exits with; never renumbered.
enum class StatusCode : int {
  kOk = 0,
  kUsage = 1,         // the API was misused (e.g. a build after Finalize)
  kInvalidModel = 2,  // the model is unreadable or invalid
  kConfig = 3,        // an option value or a pipeline file is wrong
  kPlugin = 4,        // a plugin failed to load, register or run
  kInternal = 5,      // a verification failure or a bug in Kiln
};

class Status {
 public:
  Status() = default;  // ok
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  int exit_code() const { return static_cast<int>(code_); }
  const std::string& message() const { return message_; }
  // "ok", or "<kind> error (<code>): <message>".
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// Option name -> value as text, as on the command line without the dashes: {"oo.level", "O1"},
// {"oo.constantFolding", "false"}, {"oo.optimizationSwitch", "ConstantFoldingPass:off"}. `kiln options` lists them.
using SessionOptions = std::map<std::string, std::string>;
using GraphOptions = std::map<std::string, std::string>;

struct SessionConfig {
  SessionOptions options;            // session (global) options: below a build's graph options
  std::vector<std::string> plugins;  // plugin files, or directories whose lib*.so are all loaded (like --plugin)
  std::string pipeline_file;         // a user's pipeline YAML instead of the level's shipped one ("" = shipped)
  bool verify_each = false;          // verify the graph after every pass (like --verify-each)
  bool strict = false;               // stop on the first failing pass instead of rolling it back (--strict)
};

struct BuildResult {
  std::string model_bytes;  // the optimised model, serialized ONNX (every tensor inline)
  std::string report_json;  // the compile report: level, options with their sources, stages, passes, kernels, ...
  std::string summary;      // the short summary `kiln compile` prints on stderr
  std::size_t nodes_before = 0, nodes_after = 0;  // nodes, subgraphs included
};

class Session {
 public:
  // aclgrphBuildInitialize: loads the plugins (then those the level's pipeline lists and the search path's) and
  // checks the session options against the registry. On failure `*out` is left empty.
  static Status Create(const SessionConfig& config, std::unique_ptr<Session>* out);
  static Status Create(const SessionOptions& options, const std::vector<std::string>& plugins,
                       std::unique_ptr<Session>* out);

  ~Session();  // finalises
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // aclgrphBuildModel: reads the model at `path` (external data beside it is allowed), compiles it with
  // `graph_options` over the session's, and fills `*out`.
  Status BuildModel(const std::string& path, const GraphOptions& graph_options, BuildResult* out);
  // The same from serialized ONNX bytes; `name` appears in messages. External data is refused.
  Status BuildModelFromBytes(std::string_view bytes, const GraphOptions& graph_options, BuildResult* out,
                             const std::string& name = "<bytes>");
  // Advanced (include kiln/kiln_ir.h): compiles an IR model in place; `*out` gets its bytes and report too.
  Status BuildModel(Model& model, const GraphOptions& graph_options, BuildResult* out);

  // The pipeline a build with these graph options would run, as `kiln compile --print-pipeline` prints it.
  Status DescribePipeline(const GraphOptions& graph_options, std::string* text);

  // aclgrphBuildFinalize: releases the registries and unloads the plugins. Later builds return kUsage. Idempotent.
  Status Finalize();

  class Impl;

 private:
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kiln
