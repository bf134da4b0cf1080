// Test support for the pipeline tests: the options the shipped pipelines name (the host's and stand-ins for the
// folding plugin's), a fake PassCatalog with the pass names they use, a temporary directory to write YAML files
// into, and a helper that returns a thrown kiln::Error's message.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "options/core_options.h"
#include "options/folding_option_stand_ins.h"
#include "pipeline/pass_catalog.h"
#include "support/error.h"

namespace kiln::test_support {

// The host's core options and stand-ins for the folding plugin's (this suite loads no plugin).
inline void RegisterOptionsForTests(OptionRegistry& registry) {
  RegisterCoreOptions(registry);
  RegisterFoldingOptionStandIns(registry);
}

// Passes, their kind and the options that switch them, as the folding, fusion and memory plugins register them.
class FakePassCatalog : public PassCatalog {
 public:
  FakePassCatalog() {
    const std::string folding = "oo.constantFolding";
    passes_ = {{"InferShapePass", ""},
               {"ReplaceWithEmptyConstPass", folding},
               {"DimensionComputePass", folding},
               {"ConstantFoldingPass", folding},
               {"DimensionAdjustPass", folding},
               {"PotentialConstTakenEffectPass", folding},
               {"IdentityEliminationPass", ""},
               {"ReshapeChainMergePass", ""},
               {"TransposePushPass", ""},
               {"TransposePairMergePass", ""},
               {"TransposeGemmFoldPass", ""},
               {"SqueezeUnsqueezePairPass", ""},
               {"ConstantNodeToInitializerPass", ""},
               {"FuseBatchNormIntoConvPass", ""},
               {"ReshapeShapeChainPass", ""},
               {"DeadCodeEliminationPass", "oo.deadCodeElimination"},
               {"CommonSubexpressionEliminationPass", "oo.commonSubexpressionElimination"},
               {"PatternFusionPass", ""},
               {"AutoFusionPass", ""},
               {"MemoryPlanningPass", ""},
               {"TargetFormatPass", ""}};
  }

  bool HasPass(std::string_view name) const override { return passes_.count(std::string(name)) != 0; }
  bool IsGraphPass(std::string_view name) const override { return graph_passes_.count(std::string(name)) != 0; }
  std::vector<std::string> PassNames() const override {
    std::vector<std::string> names;
    for (const auto& [name, option] : passes_) names.push_back(name);
    return names;
  }
  std::string SwitchOptionOf(std::string_view pass) const override {
    auto it = passes_.find(std::string(pass));
    return it == passes_.end() ? "" : it->second;
  }
  // Only need_fold (true/false) is accepted, and only by passes that fold.
  std::string CheckArg(std::string_view pass, std::string_view key, std::string_view value) const override {
    if (key != "need_fold") return "unknown argument '" + std::string(key) + "' (expected: need_fold)";
    if (value != "true" && value != "false")
      return "need_fold: '" + std::string(value) + "' is not one of: true, false";
    return "";
  }

  void Add(const std::string& name, const std::string& option = "", bool graph_pass = false) {
    passes_[name] = option;
    if (graph_pass) graph_passes_.insert(name);
  }

 private:
  std::map<std::string, std::string> passes_;
  // The plugins' graph passes; the rest are node passes.
  std::set<std::string> graph_passes_ = {"InferShapePass", "DeadCodeEliminationPass",
                                         "CommonSubexpressionEliminationPass", "PatternFusionPass", "AutoFusionPass",
                                         "MemoryPlanningPass", "TargetFormatPass"};
};

// A fresh directory under the system temp dir, removed with everything in it at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "kiln_pipeline_test_XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // Writes `text` to `name` (relative to the directory) and returns the full path.
  std::filesystem::path Write(const std::string& name, const std::string& text) const {
    std::filesystem::path file = path_ / name;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
    return file;
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// The message of the kiln::Error `fn` throws, checking that it is a ConfigError; "" (and a failure) otherwise.
inline std::string ConfigErrorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kConfig) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no kiln::Error thrown";
  return "";
}

// Pass names of a list, for compact comparisons.
template <typename Passes>
std::vector<std::string> Names(const Passes& passes) {
  std::vector<std::string> names;
  for (const auto& pass : passes) names.push_back(pass.name);
  return names;
}

}  // namespace kiln::test_support
