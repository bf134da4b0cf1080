// A pipeline as loaded from YAML (after `extends` is applied): the level it is for, the plugins it needs, the
// option defaults it sets for that level, and its ordered stages of passes with their arguments. Every item keeps
// the file:line:column it was written at, so later errors (a plugin that is missing, a pass that fails) can point
// at it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "options/option_layer.h"

namespace kiln {

// A place in a pipeline file; line and column are 1-based (0 when unknown).
struct SourcePos {
  std::string file;
  int line = 0;
  int column = 0;
  // "file:line:column", or just "file" when the line is unknown.
  std::string ToString() const;
};

struct PassArg {
  std::string key;
  std::string value;  // as written; the pass parses it
  SourcePos pos;
};

struct PassRef {
  std::string name;
  std::vector<PassArg> args;  // in the order written
  SourcePos pos;
  const PassArg* FindArg(std::string_view key) const;
};

struct PipelineStage {
  std::string name;
  std::vector<PassRef> passes;      // run by the node walk, in this order
  std::vector<PassRef> after_walk;  // run once the walk ends (GE's OnFinishGraph), in this order
  SourcePos pos;                    // the stage's `name:` in the file that introduced it
};

struct PluginRef {
  std::string name;  // a plugin name or a path, as written; the plugin loader resolves it
  SourcePos pos;
};

struct Pipeline {
  OptLevel level = OptLevel::kO0;
  SourcePos level_pos;
  std::string description;
  std::vector<std::string> files;               // the file loaded first, then the file it extends, and so on
  std::vector<PluginRef> plugins;               // the parents' plugins first, no name twice
  OptionLayer options{OptionPlace::kPipeline};  // defaults for `level`; origins are "file:line:column"
  std::vector<PipelineStage> stages;
  std::vector<std::string> warnings;  // "file:line:column: ..." for things accepted but suspicious

  const PipelineStage* FindStage(std::string_view name) const;
};

}  // namespace kiln
