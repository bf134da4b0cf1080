// Loading pipeline files: YAML parsing, `extends` (a level or a path) with cycle detection, the top-level keys
// (level, plugins, options, stages, and the option aliases of core_options.h: target, fusion_packs) and their
// validation; see pipeline_loader.h. Stage edits live in stage_reading.cc.
#include "pipeline/pipeline_loader.h"

#include <fstream>
#include <sstream>

#include "options/core_options.h"
#include "options/nearest_name.h"
#include "pipeline/shipped_pipelines.h"
#include "pipeline/stage_reading.h"
#include "pipeline/yaml_reading.h"
#include "support/error.h"

namespace kiln {

std::string SourcePos::ToString() const {
  if (line <= 0) return file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

const PassArg* PassRef::FindArg(std::string_view key) const {
  for (const PassArg& arg : args) {
    if (arg.key == key) return &arg;
  }
  return nullptr;
}

const PipelineStage* Pipeline::FindStage(std::string_view name) const {
  for (const PipelineStage& stage : stages) {
    if (stage.name == name) return &stage;
  }
  return nullptr;
}

std::vector<std::string> DefaultStageNames() {
  return {"Prepare", "OptimizeStage1", "OptimizeStage2", "BeforeAutofuse", "Autofuse", "AfterAutofuse", "Build"};
}

namespace {

// The keys of a pipeline: its own, then the option aliases' (core_options.h).
const std::vector<std::string>& TopKeys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k = {"level", "description", "extends", "plugins", "options", "stages"};
    for (const OptionAlias& a : OptionAliases())
      if (!a.pipeline_key.empty()) k.emplace_back(a.pipeline_key);
    return k;
  }();
  return keys;
}

// One file on the extends chain: what it is called in messages and its identity for cycle detection.
struct ChainEntry {
  std::string display;
  std::filesystem::path identity;
};

class PipelineReader {
 public:
  PipelineReader(const OptionRegistry& registry, const PassCatalog& catalog, const PipelineLoadOptions& options)
      : registry_(registry), catalog_(catalog), options_(options) {}

  Pipeline ReadFile(const std::filesystem::path& path, const SourcePos* extended_from) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::string message = "cannot read pipeline file '" + path.string() + "'";
      if (extended_from) FailAt(*extended_from, "extends: " + message);
      throw ConfigError(message);
    }
    std::ostringstream text;
    text << in.rdbuf();
    std::error_code ignored;
    std::filesystem::path identity = std::filesystem::weakly_canonical(path, ignored);
    return ReadText(text.str(), path.string(), path.parent_path(), identity.empty() ? path : identity);
  }

  Pipeline ReadText(const std::string& text, const std::string& display, const std::filesystem::path& base_dir,
                    const std::filesystem::path& identity) {
    chain_.push_back({display, identity});
    Pipeline pipeline;
    YamlFileContext ctx{display, registry_, catalog_, options_, pipeline.warnings};
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      FailAt(SourcePos{display, e.mark.line + 1, e.mark.column + 1}, "YAML syntax error: " + e.msg);
    }
    const SourcePos start{display, 1, 1};
    if (!root.IsMap()) {
      FailAt(PosOf(ctx, root, start),
             "expected a pipeline (a mapping with keys " + JoinNames(TopKeys()) + "), got " + KindName(root));
    }
    CheckKeys(ctx, root, TopKeys(), "a pipeline");

    std::string parent_file;
    bool has_level = false;
    if (const YAML::Node extends = root["extends"]) {
      SourcePos pos = PosOf(ctx, extends, KeyPos(ctx, root, "extends"));
      std::string target =
          ReadScalar(ctx, extends, "a level (O0, O1, O2, O3) or the path of the pipeline file this one extends", pos);
      std::filesystem::path parent_path = ExtendsTargetFile(target, base_dir, options_.shipped_dir);
      CheckExtendsTarget(target, parent_path, pos);
      CheckCycle(parent_path, pos);
      std::vector<std::string> own_warnings = std::move(pipeline.warnings);
      pipeline = ReadFile(parent_path, &pos);
      pipeline.warnings.insert(pipeline.warnings.end(), own_warnings.begin(), own_warnings.end());
      parent_file = parent_path.string();
      has_level = true;
    }
    pipeline.files.insert(pipeline.files.begin(), display);

    if (const YAML::Node level = root["level"]) {
      pipeline.level_pos = PosOf(ctx, level, KeyPos(ctx, root, "level"));
      std::string text_level = ReadScalar(ctx, level, "a level (O0, O1, O2 or O3)", pipeline.level_pos);
      std::optional<OptLevel> parsed = ParseOptLevel(text_level);
      if (!parsed) FailAt(pipeline.level_pos, "level '" + text_level + "' is not one of: O0, O1, O2, O3");
      pipeline.level = *parsed;
      has_level = true;
    }
    if (!has_level) FailAt(start, "missing key 'level' (expected O0, O1, O2 or O3)");
    if (const YAML::Node description = root["description"]) {
      pipeline.description = ReadScalar(ctx, description, "a description", KeyPos(ctx, root, "description"));
    }
    if (const YAML::Node plugins = root["plugins"]) ReadPlugins(ctx, plugins, KeyPos(ctx, root, "plugins"), pipeline);
    if (const YAML::Node options = root["options"]) ReadOptions(ctx, options, KeyPos(ctx, root, "options"), pipeline);
    for (const OptionAlias& alias : OptionAliases()) {
      if (alias.pipeline_key.empty()) continue;
      const std::string key(alias.pipeline_key);
      if (const YAML::Node value = root[key])
        ReadAlias(ctx, alias, root, value, KeyPos(ctx, root, key), base_dir, pipeline);
    }
    if (const YAML::Node stages = root["stages"]) {
      ReadStages(ctx, stages, KeyPos(ctx, root, "stages"), parent_file, pipeline.stages);
    }
    chain_.pop_back();
    return pipeline;
  }

  // Warnings that need the final level: option defaults for options not active at it.
  static void WarnInactiveOptions(const OptionRegistry& registry, Pipeline& pipeline) {
    for (const auto& [name, setting] : pipeline.options.settings()) {
      const OptionDef& def = registry.Get(name);
      if (def.IsActiveAt(pipeline.level)) continue;
      pipeline.warnings.push_back(setting.origin + ": option " + name + " is not active at " +
                                  std::string(OptLevelName(pipeline.level)) + " (active from " +
                                  std::string(OptLevelName(def.min_level)) + "); this default has no effect");
    }
  }

 private:
  // A level names a shipped file that must be there; a path must name an existing file.
  static void CheckExtendsTarget(const std::string& target, const std::filesystem::path& file, const SourcePos& pos) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(file, ec)) return;
    if (std::optional<OptLevel> level = ParseOptLevel(target)) {
      FailAt(pos, "extends: " + target + " is the shipped " + std::string(OptLevelName(*level)) +
                      " pipeline, but there is no file '" + file.string() +
                      "' (is Kiln installed? KILN_CONFIG_DIR names the folder that holds pipelines/)");
    }
    FailAt(pos, "extends: '" + target + "' is neither a level (O0, O1, O2, O3) nor an existing pipeline file ('" +
                    file.string() + "' " + (std::filesystem::exists(file, ec) ? "is not a file" : "does not exist") +
                    ")");
  }

  void CheckCycle(const std::filesystem::path& parent_path, const SourcePos& pos) {
    std::error_code ignored;
    std::filesystem::path identity = std::filesystem::weakly_canonical(parent_path, ignored);
    if (identity.empty()) identity = parent_path;
    for (size_t i = 0; i < chain_.size(); ++i) {
      if (chain_[i].identity != identity) continue;
      std::string cycle;
      for (size_t j = i; j < chain_.size(); ++j) cycle += chain_[j].display + " -> ";
      FailAt(pos, "extends cycle: " + cycle + parent_path.string());
    }
  }

  void ReadPlugins(const YamlFileContext& ctx, const YAML::Node& node, const SourcePos& key_pos, Pipeline& pipeline) {
    if (node.IsNull()) return;
    SourcePos pos = PosOf(ctx, node, key_pos);
    if (!node.IsSequence()) {
      FailAt(pos, "expected 'plugins' to be a sequence of plugin names or paths, got " + KindName(node));
    }
    for (const YAML::Node& item : node) {
      SourcePos item_pos = PosOf(ctx, item, pos);
      std::string name = ReadScalar(ctx, item, "a plugin name or path", item_pos);
      if (name.empty()) FailAt(item_pos, "expected a plugin name or path, got an empty string");
      bool listed = false;
      for (const PluginRef& plugin : pipeline.plugins) listed = listed || plugin.name == name;
      if (!listed) pipeline.plugins.push_back({name, item_pos});
    }
  }

  void ReadOptions(const YamlFileContext& ctx, const YAML::Node& node, const SourcePos& key_pos, Pipeline& pipeline) {
    if (node.IsNull()) return;
    SourcePos pos = PosOf(ctx, node, key_pos);
    if (!node.IsMap()) FailAt(pos, "expected 'options' to be a mapping of option: value, got " + KindName(node));
    CheckKeys(ctx, node, {}, "");
    OptionLayer own(OptionPlace::kPipeline);
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string name = it->first.Scalar();
      SourcePos name_pos = PosOf(ctx, it->first, pos);
      const OptionDef* def = registry_.Find(name);
      if (!def) {
        FailAt(name_pos, options_.unknown_option_message ? options_.unknown_option_message(name)
                                                         : registry_.UnknownOptionMessage(name));
      }
      if (!AllowsPlace(def->places, OptionPlace::kPipeline)) {
        FailAt(name_pos, "option " + name + " may not be set in a pipeline file (it may be set in: " +
                             JoinNames(OptionPlaceNames(def->places)) + ")");
      }
      const YAML::Node value = it->second;  // a copy: `it->` yields a temporary
      SourcePos value_pos = PosOf(ctx, value, name_pos);
      std::string text;
      if (value.IsSequence() && def->type == OptionType::kList) {
        for (const YAML::Node& item : value) {
          text += (text.empty() ? "" : ";") + ReadScalar(ctx, item, "a list item", value_pos);
        }
      } else if (!value.IsNull()) {
        text = ReadScalar(ctx, value, "a value for option " + name + " (" + def->AllowedText() + ")", value_pos);
      }
      try {
        own.Set(registry_, name, text, name_pos.ToString());
      } catch (const Error& e) {
        FailAt(value_pos, e.what());
      }
    }
    pipeline.options.Merge(own);
  }

  // A top-level alias key (`target: NAME`, `fusion_packs: [FILE, ...]`): sets, or appends to, its option among the
  // pipeline's defaults, as `options:` would; paths are taken from the pipeline file's folder.
  void ReadAlias(const YamlFileContext& ctx, const OptionAlias& alias, const YAML::Node& root, const YAML::Node& node,
                 const SourcePos& key_pos, const std::filesystem::path& base_dir, Pipeline& pipeline) {
    if (node.IsNull()) return;
    const std::string key(alias.pipeline_key), option(alias.option);
    SourcePos pos = PosOf(ctx, node, key_pos);
    const OptionDef* def = registry_.Find(option);
    if (!def) {
      FailAt(key_pos, key + ": stands for option " + option + ", but " +
                          (options_.unknown_option_message ? options_.unknown_option_message(option)
                                                           : registry_.UnknownOptionMessage(option)));
    }
    const std::string what = alias.paths ? "a path" : "a value for option " + option + " (" + def->AllowedText() + ")";
    std::vector<std::pair<std::string, SourcePos>> items;
    if (node.IsSequence()) {
      if (!alias.appends) FailAt(pos, "expected '" + key + "' to be " + what + ", got a sequence");
      for (const YAML::Node& item : node) {
        SourcePos item_pos = PosOf(ctx, item, pos);
        items.emplace_back(ReadScalar(ctx, item, what, item_pos), item_pos);
      }
    } else {
      items.emplace_back(ReadScalar(ctx, node, what + (alias.appends ? " or a sequence of them" : ""), pos), pos);
    }
    std::vector<std::string> values;
    for (auto& [value, item_pos] : items) {
      if (TrimSpaces(value).empty()) FailAt(item_pos, "expected " + what + " in '" + key + "', got an empty string");
      std::error_code ec;
      values.push_back(alias.paths ? AliasPath(value, std::filesystem::absolute(base_dir, ec)) : value);
    }
    const YAML::Node own_options = root["options"];
    if (!alias.appends && own_options && own_options.IsMap() && own_options[option])
      FailAt(key_pos, "'" + key + "' and 'options: " + option + "' both set option " + option + "; keep one");
    const OptionSetting* existing = pipeline.options.Find(option);
    std::string text = ApplyAliasValues(alias, existing ? FormatOptionValue(existing->value) : "", values);
    OptionLayer own(OptionPlace::kPipeline);
    try {
      own.Set(registry_, option, text, key_pos.ToString());
    } catch (const Error& e) {
      FailAt(pos, key + ": " + e.what());
    }
    pipeline.options.Merge(own);
  }

  const OptionRegistry& registry_;
  const PassCatalog& catalog_;
  const PipelineLoadOptions& options_;
  std::vector<ChainEntry> chain_;
};

}  // namespace

Pipeline LoadPipelineFile(const std::filesystem::path& path, const OptionRegistry& registry, const PassCatalog& catalog,
                          const PipelineLoadOptions& options) {
  PipelineReader reader(registry, catalog, options);
  Pipeline pipeline = reader.ReadFile(path, nullptr);
  PipelineReader::WarnInactiveOptions(registry, pipeline);
  return pipeline;
}

Pipeline LoadPipelineText(std::string_view yaml, const std::string& display_name, const std::filesystem::path& base_dir,
                          const OptionRegistry& registry, const PassCatalog& catalog,
                          const PipelineLoadOptions& options) {
  PipelineReader reader(registry, catalog, options);
  Pipeline pipeline = reader.ReadText(std::string(yaml), display_name, base_dir, base_dir / display_name);
  PipelineReader::WarnInactiveOptions(registry, pipeline);
  return pipeline;
}

}  // namespace kiln
