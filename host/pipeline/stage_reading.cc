// Stage definitions and the extends edits on inherited stages; see stage_reading.h and
// configs/pipelines/README.md for the syntax.
#include "pipeline/stage_reading.h"

#include <algorithm>
#include <map>

#include "options/nearest_name.h"

namespace kiln {
namespace {

const std::vector<std::string> kEditKeys = {"replace", "remove", "insert_before", "insert_after", "prepend", "append"};

std::vector<std::string> StageKeys() {
  std::vector<std::string> keys = {"name", "passes", "after_walk"};
  keys.insert(keys.end(), kEditKeys.begin(), kEditKeys.end());
  return keys;
}

std::vector<std::string> NamesOf(const PipelineStage& stage) {
  std::vector<std::string> names;
  for (const PassRef& pass : stage.passes) names.push_back(pass.name);
  for (const PassRef& pass : stage.after_walk) names.push_back(pass.name);
  return names;
}

// "stage 'S' has no pass 'X'; did you mean 'Y'? (it has: A, B)".
std::string NotInStage(const PipelineStage& stage, const std::string& name) {
  std::vector<std::string> names = NamesOf(stage);
  return "stage '" + stage.name + "' has no pass '" + name + "'" + DidYouMean(name, names) +
         " (it has: " + (names.empty() ? std::string("no passes") : JoinNames(names)) + ")";
}

void RemovePasses(const YamlFileContext& ctx, const YAML::Node& node, const SourcePos& key_pos, PipelineStage& stage) {
  std::vector<YAML::Node> items;
  if (node.IsSequence()) {
    for (const YAML::Node& item : node) items.push_back(item);
  } else {
    items.push_back(node);
  }
  for (const YAML::Node& item : items) {
    std::string name = ReadScalar(ctx, item, "a pass name (or a sequence of them) to remove", key_pos);
    auto named = [&](const PassRef& pass) { return pass.name == name; };
    size_t before = stage.passes.size() + stage.after_walk.size();
    std::erase_if(stage.passes, named);
    std::erase_if(stage.after_walk, named);
    if (before == stage.passes.size() + stage.after_walk.size()) {
      FailAt(PosOf(ctx, item, key_pos), "cannot remove: " + NotInStage(stage, name));
    }
  }
}

// insert_before / insert_after: a mapping of anchor pass name -> sequence of passes, inserted next to the first
// occurrence of the anchor in the stage's walk passes.
void InsertPasses(const YamlFileContext& ctx, const YAML::Node& node, const SourcePos& key_pos, bool after,
                  PipelineStage& stage) {
  const char* key = after ? "insert_after" : "insert_before";
  if (!node.IsMap()) {
    FailAt(PosOf(ctx, node, key_pos), std::string("expected '") + key +
                                          "' to be a mapping of AnchorPass: [passes to insert], got " + KindName(node));
  }
  CheckKeys(ctx, node, {}, "");
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string anchor = it->first.Scalar();
    SourcePos anchor_pos = PosOf(ctx, it->first, key_pos);
    auto found = std::find_if(stage.passes.begin(), stage.passes.end(),
                              [&](const PassRef& pass) { return pass.name == anchor; });
    if (found == stage.passes.end()) {
      FailAt(anchor_pos,
             std::string("cannot ") + (after ? "insert after" : "insert before") + ": " + NotInStage(stage, anchor));
    }
    std::vector<PassRef> inserted = ReadPassList(ctx, it->second, anchor, anchor_pos);
    if (after) ++found;
    stage.passes.insert(found, inserted.begin(), inserted.end());
  }
}

void EditStage(const YamlFileContext& ctx, const YAML::Node& node, const std::string& parent_file,
               PipelineStage& stage) {
  if (node["passes"]) {
    FailAt(KeyPos(ctx, node, "passes"), "stage '" + stage.name + "' is inherited from " + parent_file +
                                            "; change its passes with " + JoinNames(kEditKeys) +
                                            " (or list them all under 'replace')");
  }
  if (const YAML::Node replace = node["replace"]) {
    stage.passes = ReadPassList(ctx, replace, "replace", KeyPos(ctx, node, "replace"));
  }
  if (const YAML::Node remove = node["remove"]) RemovePasses(ctx, remove, KeyPos(ctx, node, "remove"), stage);
  if (const YAML::Node before = node["insert_before"]) {
    InsertPasses(ctx, before, KeyPos(ctx, node, "insert_before"), false, stage);
  }
  if (const YAML::Node after = node["insert_after"]) {
    InsertPasses(ctx, after, KeyPos(ctx, node, "insert_after"), true, stage);
  }
  if (const YAML::Node prepend = node["prepend"]) {
    std::vector<PassRef> front = ReadPassList(ctx, prepend, "prepend", KeyPos(ctx, node, "prepend"));
    stage.passes.insert(stage.passes.begin(), front.begin(), front.end());
  }
  if (const YAML::Node append = node["append"]) {
    std::vector<PassRef> back = ReadPassList(ctx, append, "append", KeyPos(ctx, node, "append"));
    stage.passes.insert(stage.passes.end(), back.begin(), back.end());
  }
  if (const YAML::Node after_walk = node["after_walk"]) {
    stage.after_walk = ReadPassList(ctx, after_walk, "after_walk", KeyPos(ctx, node, "after_walk"));
  }
}

PipelineStage DefineStage(const YamlFileContext& ctx, const YAML::Node& node, const std::string& parent_file,
                          std::string name, const SourcePos& name_pos) {
  for (const std::string& key : kEditKeys) {
    if (!node[key]) continue;
    std::string why =
        parent_file.empty() ? "this file extends nothing" : "stage '" + name + "' is not in " + parent_file;
    FailAt(KeyPos(ctx, node, key), "'" + key + "' edits a stage inherited through 'extends', but " + why +
                                       "; list the stage's passes under 'passes'");
  }
  PipelineStage stage;
  stage.name = std::move(name);
  stage.pos = name_pos;
  stage.passes = ReadPassList(ctx, node["passes"], "passes", KeyPos(ctx, node, "passes"));
  stage.after_walk = ReadPassList(ctx, node["after_walk"], "after_walk", KeyPos(ctx, node, "after_walk"));
  return stage;
}

}  // namespace

void ReadStages(const YamlFileContext& ctx, const YAML::Node& node, const SourcePos& key_pos,
                const std::string& parent_file, std::vector<PipelineStage>& stages) {
  if (node.IsNull()) return;
  SourcePos list_pos = PosOf(ctx, node, key_pos);
  if (!node.IsSequence()) {
    FailAt(list_pos, "expected 'stages' to be a sequence of stages (- name: Prepare ...), got " + KindName(node));
  }
  std::map<std::string, SourcePos> seen;
  for (const YAML::Node& item : node) {
    SourcePos item_pos = PosOf(ctx, item, list_pos);
    if (!item.IsMap()) FailAt(item_pos, "expected a stage (a mapping with 'name' and 'passes'), got " + KindName(item));
    CheckKeys(ctx, item, StageKeys(), "a stage");
    if (!item["name"]) FailAt(item_pos, "a stage needs a 'name' key");
    std::string name = ReadScalar(ctx, item["name"], "a stage name", KeyPos(ctx, item, "name"));
    SourcePos name_pos = PosOf(ctx, item["name"], item_pos);
    const std::vector<std::string>& known = ctx.options.known_stages;
    if (!known.empty() && std::find(known.begin(), known.end(), name) == known.end()) {
      FailAt(name_pos,
             "unknown stage '" + name + "'" + DidYouMean(name, known) + " (expected one of: " + JoinNames(known) + ")");
    }
    if (auto [previous, fresh] = seen.emplace(name, name_pos); !fresh) {
      FailAt(name_pos, "stage '" + name + "' appears twice in this file (first at line " +
                           std::to_string(previous->second.line) + ")");
    }
    auto inherited =
        std::find_if(stages.begin(), stages.end(), [&](const PipelineStage& stage) { return stage.name == name; });
    if (inherited != stages.end()) {
      EditStage(ctx, item, parent_file, *inherited);
    } else {
      stages.push_back(DefineStage(ctx, item, parent_file, std::move(name), name_pos));
    }
  }
}

}  // namespace kiln
