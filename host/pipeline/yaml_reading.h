// Internal to kiln_pipeline: helpers for reading yaml-cpp nodes with positions. Every check that fails throws a
// ConfigError "file:line:column: message".
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>
#include <vector>

#include "options/option_registry.h"
#include "pipeline/pass_catalog.h"
#include "pipeline/pipeline.h"
#include "pipeline/pipeline_loader.h"

namespace kiln {

// What reading one file needs.
struct YamlFileContext {
  std::string file;  // as shown in messages
  const OptionRegistry& registry;
  const PassCatalog& catalog;
  const PipelineLoadOptions& options;
  std::vector<std::string>& warnings;
};

// The node's position (yaml-cpp's 0-based mark made 1-based); `fallback` when the node has none.
SourcePos PosOf(const YamlFileContext& ctx, const YAML::Node& node, const SourcePos& fallback = {});

[[noreturn]] void FailAt(const SourcePos& pos, const std::string& message);

// "a mapping", "a sequence", "a scalar", "nothing".
std::string KindName(const YAML::Node& node);

// Each key of the mapping `node` must be a scalar in `allowed` and appear once; `where` names the mapping in
// messages ("a stage"). An unknown key is reported with the nearest allowed one.
void CheckKeys(const YamlFileContext& ctx, const YAML::Node& node, const std::vector<std::string>& allowed,
               std::string_view where);

// The position of `key` inside the mapping `map` (the key itself, not its value).
SourcePos KeyPos(const YamlFileContext& ctx, const YAML::Node& map, std::string_view key);

// The scalar text of `node`; otherwise "expected WHAT, got a sequence".
std::string ReadScalar(const YamlFileContext& ctx, const YAML::Node& node, std::string_view what,
                       const SourcePos& fallback);

// A list of passes: null (empty) or a sequence whose items are a pass name or {name: X, args: {k: v}}. Names are
// checked against the catalog as the load options say; arguments through PassCatalog::CheckArg.
std::vector<PassRef> ReadPassList(const YamlFileContext& ctx, const YAML::Node& node, std::string_view what,
                                  const SourcePos& fallback);

}  // namespace kiln
