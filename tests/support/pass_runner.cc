#include "support/pass_runner.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "compile/compile_flow.h"
#include "ir/tensor.h"
#include "options/option_layer.h"

namespace kiln::testing {
namespace fs = std::filesystem;

bool PassRun::changed() const {
  for (const auto& st : report["stages"])
    for (const auto& p : st["passes"])
      if (p["changes"].get<uint64_t>() > 0) return true;
  return false;
}

namespace {

std::string YamlPass(const std::string& p) {
  size_t brace = p.find('{');
  if (brace == std::string::npos) return p;
  return "{name: " + p.substr(0, brace) + ", args: " + p.substr(brace) + "}";
}

PassRun Compile(Model& model, CompileRequest& req, const std::map<std::string, std::string>& options,
                bool verify_each = true) {
  // As kiln compile does: the plugins before the options, which may be theirs (oo.memoryPolicy is folding's).
  CompileFlow flow({}, req.pipeline_file);
  std::vector<OptionText> texts;
  for (const auto& [k, v] : options) texts.push_back({k, v, "test"});
  OptionLayer session = flow.SetOptions(OptionPlace::kSession, texts);
  req.session = &session;
  req.verify_each = verify_each;
  req.strict = true;
  ResolvedPipeline resolved = flow.Resolve(req);
  PassRun run;
  run.report = flow.compiler().Run(model, resolved, req);
  std::byte probe[1];
  for (const Value* v : model.graph().initializers()) {
    const std::shared_ptr<const Tensor>& t = v->initializer();
    if (t && t->buffer() && t->buffer()->size() > 0 && t->buffer()->ComputeInto(0, probe))
      run.computed.insert(v->name());
  }
  return run;
}

}  // namespace

PassRun RunPasses(Model& model, const std::vector<std::string>& passes, const std::vector<std::string>& after_walk,
                  const std::map<std::string, std::string>& options, const std::string& level) {
  static int counter = 0;
  fs::path file = fs::temp_directory_path() /
                  ("kiln_test_pipeline_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + ".yaml");
  {
    std::ofstream out(file);
    out << "level: " << level << "\nplugins: [folding]\nstages:\n  - name: Prepare\n    passes: [";
    for (size_t i = 0; i < passes.size(); ++i) out << (i ? ", " : "") << YamlPass(passes[i]);
    out << "]\n";
    if (!after_walk.empty()) {
      out << "    after_walk: [";
      for (size_t i = 0; i < after_walk.size(); ++i) out << (i ? ", " : "") << YamlPass(after_walk[i]);
      out << "]\n";
    }
  }
  CompileRequest req;
  req.pipeline_file = file;
  PassRun run = Compile(model, req, options);
  fs::remove(file);
  return run;
}

PassRun RunLevel(Model& model, const std::string& level, const std::map<std::string, std::string>& options,
                 bool verify_each) {
  auto opts = options;
  opts["oo.level"] = level;
  CompileRequest req;
  return Compile(model, req, opts, verify_each);
}

}  // namespace kiln::testing
