// Position-aware yaml-cpp reading helpers and pass-list reading; see yaml_reading.h.
#include "pipeline/yaml_reading.h"

#include <algorithm>
#include <map>

#include "options/nearest_name.h"
#include "support/error.h"

namespace kiln {
namespace {

void CheckPassName(const YamlFileContext& ctx, const std::string& name, const SourcePos& pos) {
  if (ctx.options.unknown_passes == UnknownPassPolicy::kIgnore || ctx.catalog.HasPass(name)) return;
  std::vector<std::string> known = ctx.catalog.PassNames();
  std::string message = "unknown pass '" + name + "'" + DidYouMean(name, known);
  message += known.empty() ? " (no passes are registered; is a plugin missing from 'plugins'?)"
                           : " (registered passes: " + JoinNames(known) + ")";
  if (ctx.options.unknown_passes == UnknownPassPolicy::kError) FailAt(pos, message);
  ctx.warnings.push_back(pos.ToString() + ": " + message);
}

PassRef ReadPass(const YamlFileContext& ctx, const YAML::Node& node, const SourcePos& fallback) {
  PassRef pass;
  pass.pos = PosOf(ctx, node, fallback);
  if (node.IsScalar()) {
    pass.name = node.Scalar();
  } else if (node.IsMap()) {
    CheckKeys(ctx, node, {"name", "args"}, "a pass");
    const YAML::Node name = node["name"];
    if (!name) FailAt(pass.pos, "a pass written as a mapping needs a 'name' key");
    pass.name = ReadScalar(ctx, name, "a pass name", KeyPos(ctx, node, "name"));
    pass.pos = PosOf(ctx, name, pass.pos);
    if (const YAML::Node args = node["args"]; args && !args.IsNull()) {
      SourcePos args_pos = PosOf(ctx, args, KeyPos(ctx, node, "args"));
      if (!args.IsMap()) FailAt(args_pos, "expected 'args' to be a mapping of argument: value, got " + KindName(args));
      CheckKeys(ctx, args, {}, "");  // duplicates only; the pass checks the names below
      for (auto it = args.begin(); it != args.end(); ++it) {
        SourcePos key_pos = PosOf(ctx, it->first, args_pos);
        PassArg arg{it->first.Scalar(), "", key_pos};
        arg.value = it->second.IsNull() ? "" : ReadScalar(ctx, it->second, "a scalar argument value", key_pos);
        pass.args.push_back(std::move(arg));
      }
    }
  } else {
    FailAt(pass.pos, "expected a pass name or {name: PassName, args: {...}}, got " + KindName(node));
  }
  if (pass.name.empty()) FailAt(pass.pos, "expected a pass name, got an empty string");
  CheckPassName(ctx, pass.name, pass.pos);
  if (ctx.catalog.HasPass(pass.name)) {
    for (const PassArg& arg : pass.args) {
      std::string problem = ctx.catalog.CheckArg(pass.name, arg.key, arg.value);
      if (!problem.empty()) FailAt(arg.pos, pass.name + ": " + problem);
    }
  }
  return pass;
}

}  // namespace

SourcePos PosOf(const YamlFileContext& ctx, const YAML::Node& node, const SourcePos& fallback) {
  if (!node.IsDefined()) return fallback;
  YAML::Mark mark = node.Mark();
  if (mark.is_null() || mark.line < 0) return fallback;
  return SourcePos{ctx.file, mark.line + 1, mark.column + 1};
}

void FailAt(const SourcePos& pos, const std::string& message) { throw ConfigError(pos.ToString() + ": " + message); }

std::string KindName(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (node.IsScalar()) return "a scalar ('" + node.Scalar() + "')";
  if (node.IsSequence()) return "a sequence";
  if (node.IsMap()) return "a mapping";
  return "an unknown node";
}

void CheckKeys(const YamlFileContext& ctx, const YAML::Node& node, const std::vector<std::string>& allowed,
               std::string_view where) {
  std::map<std::string, SourcePos> seen;
  for (auto it = node.begin(); it != node.end(); ++it) {
    SourcePos pos = PosOf(ctx, it->first, PosOf(ctx, node));
    if (!it->first.IsScalar()) FailAt(pos, "expected a key name, got " + KindName(it->first));
    const std::string key = it->first.Scalar();
    if (auto [previous, fresh] = seen.emplace(key, pos); !fresh) {
      FailAt(pos, "duplicate key '" + key + "' (first at line " + std::to_string(previous->second.line) + ")");
    }
    if (where.empty()) continue;
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      FailAt(pos, "unknown key '" + key + "' in " + std::string(where) + DidYouMean(key, allowed) +
                      " (expected one of: " + JoinNames(allowed) + ")");
    }
  }
}

SourcePos KeyPos(const YamlFileContext& ctx, const YAML::Node& map, std::string_view key) {
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) return PosOf(ctx, it->first, PosOf(ctx, map));
  }
  return PosOf(ctx, map);
}

std::string ReadScalar(const YamlFileContext& ctx, const YAML::Node& node, std::string_view what,
                       const SourcePos& fallback) {
  if (!node.IsScalar()) FailAt(PosOf(ctx, node, fallback), "expected " + std::string(what) + ", got " + KindName(node));
  return node.Scalar();
}

std::vector<PassRef> ReadPassList(const YamlFileContext& ctx, const YAML::Node& node, std::string_view what,
                                  const SourcePos& fallback) {
  std::vector<PassRef> passes;
  if (!node.IsDefined() || node.IsNull()) return passes;
  SourcePos pos = PosOf(ctx, node, fallback);
  if (!node.IsSequence()) {
    FailAt(pos, "expected '" + std::string(what) + "' to be a sequence of passes, got " + KindName(node));
  }
  for (const YAML::Node& item : node) passes.push_back(ReadPass(ctx, item, pos));
  return passes;
}

}  // namespace kiln
