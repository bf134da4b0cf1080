// Resolution of every option for one compile: for a level and the layers {graph, session, pipeline defaults for
// the level, registry default}, each option's value and the layer it came from. Precedence, highest first: graph,
// session, pipeline, default. An option not active at the level (registered at O1, compiling at O0) is inactive:
// settings for it are ignored (and noted), a bool reads false, any other type its lowest-level default.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "options/option_layer.h"

namespace kiln {

enum class OptionSource { kGraph, kSession, kPipeline, kDefault, kInactive };

// "graph", "session", "pipeline", "default", "inactive".
std::string_view OptionSourceName(OptionSource source);

struct ResolvedOption {
  const OptionDef* def = nullptr;
  OptionValue value;
  OptionSource source = OptionSource::kDefault;
  std::string origin;  // the setting's origin when a layer set it ("--oo.level", "O1.yaml:4:3")
  std::string note;    // e.g. "set in session but not active at O0"
  bool active() const { return source != OptionSource::kInactive; }
};

// The layers a compile sees; any may be null (absent).
struct OptionLayers {
  const OptionLayer* graph = nullptr;
  const OptionLayer* session = nullptr;
  const OptionLayer* pipeline = nullptr;
};

class ResolvedOptions {
 public:
  ResolvedOptions(OptLevel level, std::vector<ResolvedOption> options);

  OptLevel level() const { return level_; }
  const ResolvedOption* Find(std::string_view name) const;
  // An unregistered name is an InternalError: code asks only for options it knows are registered.
  const ResolvedOption& Get(std::string_view name) const;
  bool GetBool(std::string_view name) const;
  std::int64_t GetInt(std::string_view name) const;
  double GetFloat(std::string_view name) const;
  const std::string& GetString(std::string_view name) const;  // kString and kEnum
  const std::vector<std::string>& GetList(std::string_view name) const;
  // Every registered option, ordered by name.
  const std::vector<ResolvedOption>& all() const { return options_; }

  // For the report: {"level": "O2", "options": [{"name", "value", "source", "origin"?, "note"?}, ...]}.
  nlohmann::json ToJson() const;

 private:
  OptLevel level_;
  std::vector<ResolvedOption> options_;
};

// The level to compile at: oo.level from the graph layer, else the session layer, else its default (O2). The
// pipeline layer cannot set it (a pipeline file states its level with `level:`).
OptLevel ResolveLevel(const OptionRegistry& registry, const OptionLayers& layers);

// Resolves every registered option at `level`. oo.level itself always reads `level`; its source is the highest
// layer that set it to that level, else "pipeline" when a layer asked for another level (the caller chose the
// pipeline file's), else "default".
ResolvedOptions ResolveOptions(const OptionRegistry& registry, OptLevel level, const OptionLayers& layers);

}  // namespace kiln
