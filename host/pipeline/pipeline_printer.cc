// Text form of a resolved pipeline; see pipeline_printer.h.
#include "pipeline/pipeline_printer.h"

#include <algorithm>

namespace kiln {
namespace {

std::string Padded(std::string text, size_t width) {
  if (text.size() < width) text.resize(width, ' ');
  return text;
}

std::string PassLine(const PlannedPass& planned, size_t index) {
  std::string line = std::to_string(index) + ". " + planned.pass.name;
  for (const PassArg& arg : planned.pass.args) line += " " + arg.key + "=" + arg.value;
  return line;
}

void PrintPasses(const std::vector<PlannedPass>& passes, const std::string& indent, const PipelinePrintOptions& print,
                 std::string& out) {
  size_t width = 0;
  for (size_t i = 0; i < passes.size(); ++i) width = std::max(width, PassLine(passes[i], i + 1).size());
  for (size_t i = 0; i < passes.size(); ++i) {
    const PlannedPass& planned = passes[i];
    std::string line = indent + Padded(PassLine(planned, i + 1), width);
    if (!planned.decision.run) {
      line += "   [skipped: " + planned.decision.reason + "]";
    } else if (!planned.decision.reason.empty()) {
      line += "   [" + planned.decision.reason + "]";
    }
    if (print.positions && planned.pass.pos.line > 0) line += "   # " + planned.pass.pos.ToString();
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
  for (const PlannedStage& stage : plan.stages) {
    out += "stage " + stage.name + "\n";
    if (stage.passes.empty() && stage.after_walk.empty()) out += "  (no passes)\n";
    PrintPasses(stage.passes, "  ", print, out);
    if (!stage.after_walk.empty()) {
      out += "  after walk:\n";
      PrintPasses(stage.after_walk, "  ", print, out);
    }
  }
  if (plan.stages.empty()) out += "(no stages)\n";
  return out;
}

}  // namespace kiln
