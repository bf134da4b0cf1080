// Text form of a resolved pipeline; see pipeline_printer.h.
#include "pipeline/pipeline_printer.h"

#include <algorithm>

namespace kiln {
namespace {

std::string Padded(std::string text, size_t width) {
  if (text.size() < width) text.resize(width, ' ');
  return text;
}

// One printed line of a stage: a pass (with its number in its list) or a heading.
struct Row {
  std::string indent;
  const PlannedPass* pass = nullptr;
  size_t number = 0;
  std::string heading;  // when pass is null
};

std::string PassText(const Row& row) {
  std::string text = row.indent + std::to_string(row.number) + ". " + row.pass->pass.name;
  for (const PassArg& arg : row.pass->pass.args) text += " " + arg.key + "=" + arg.value;
  return text;
}

std::string Marks(const PlannedPass& pass) {
  std::vector<std::string> marks;
  if (pass.graph_pass) marks.push_back("graph pass");
  if (!pass.decision.run) {
    marks.push_back("skipped: " + pass.decision.reason);
  } else if (!pass.decision.reason.empty()) {
    marks.push_back(pass.decision.reason);
  }
  std::string out;
  for (const std::string& mark : marks) out += (out.empty() ? "[" : "; ") + mark;
  return out.empty() ? out : out + "]";
}

// The stage's rows in run order: graph passes alone, each walk that runs as a group.
std::vector<Row> StageRows(const PlannedStage& stage) {
  std::vector<Row> rows;
  auto add_pass = [&](const std::string& indent, const PlannedPass* pass, const std::vector<PlannedPass>& list) {
    rows.push_back({indent, pass, static_cast<size_t>(pass - list.data()) + 1, ""});
  };
  int walks = 0;
  for (const PlannedStep& step : StageSteps(stage)) {
    if (step.kind == PlannedStep::Kind::kGraphPass) {
      add_pass("  ", step.passes.front(), stage.passes);
      continue;
    }
    const bool runs = step.Runs();
    const std::string indent = runs ? "    " : "  ";
    if (runs) {
      bool node_pass_runs = std::any_of(step.passes.begin(), step.passes.end(),
                                        [](const PlannedPass* p) { return p->decision.run && !p->graph_pass; });
      rows.push_back({"", nullptr, 0,
                      "  walk " + std::to_string(++walks) + (node_pass_runs ? ":" : " (after-walk passes only):")});
    }
    for (const PlannedPass* pass : step.passes) add_pass(indent, pass, stage.passes);
    if (!step.after_walk.empty()) rows.push_back({"", nullptr, 0, indent + "after walk:"});
    for (const PlannedPass* pass : step.after_walk) add_pass(indent, pass, stage.after_walk);
  }
  return rows;
}

void PrintStage(const PlannedStage& stage, const PipelinePrintOptions& print, std::string& out) {
  out += "stage " + stage.name + "\n";
  std::vector<Row> rows = StageRows(stage);
  if (rows.empty()) out += "  (no passes)\n";
  size_t width = 0;
  for (const Row& row : rows)
    if (row.pass) width = std::max(width, PassText(row).size());
  for (const Row& row : rows) {
    if (!row.pass) {
      out += row.heading + "\n";
      continue;
    }
    std::string line = Padded(PassText(row), width);
    std::string marks = Marks(*row.pass);
    if (!marks.empty()) line += "   " + marks;
    if (print.positions && row.pass->pass.pos.line > 0) line += "   # " + row.pass->pass.pos.ToString();
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
}

}  // namespace

std::string PrintPipeline(const Pipeline& pipeline, const PipelinePlan& plan, const ResolvedOptions& options,
                          const PipelinePrintOptions& print) {
  std::string out = "pipeline " + std::string(OptLevelName(plan.level));
  if (!pipeline.files.empty()) {
    out += " (" + pipeline.files.front();
    for (size_t i = 1; i < pipeline.files.size(); ++i) out += ", extends " + pipeline.files[i];
    out += ")";
  }
  out += "\n";
  if (!pipeline.description.empty()) out += "description: " + pipeline.description + "\n";
  out += "plugins:";
  if (pipeline.plugins.empty()) out += " (none)";
  for (const PluginRef& plugin : pipeline.plugins) out += " " + plugin.name;
  out += "\noptions:\n";
  size_t width = 0;
  for (const ResolvedOption& option : options.all()) width = std::max(width, option.def->name.size());
  for (const ResolvedOption& option : options.all()) {
    std::string value = FormatOptionValue(option.value);
    std::string line = "  " + Padded(option.def->name, width) + " = " + Padded(value.empty() ? "\"\"" : value, 14) +
                       " (" + std::string(OptionSourceName(option.source));
    if (!option.origin.empty()) line += " " + option.origin;
    line += ")";
    if (!option.note.empty()) line += "  " + option.note;
    out += line + "\n";
  }
  for (const PlannedStage& stage : plan.stages) PrintStage(stage, print, out);
  if (plan.stages.empty()) out += "(no stages)\n";
  return out;
}

}  // namespace kiln
