// kiln info MODEL [--json]: what a model holds.
#include <iostream>

#include "cli/commands.h"
#include "ir/model.h"
#include "onnx/onnx_import.h"
#include "report/model_summary.h"
#include "support/display_text.h"

namespace kiln::cli {

Action AddInfoCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "Print a model's IR version, opsets, node counts, op types, inputs, "
                                         "outputs and initializers");
  auto model = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("MODEL", *model, "The ONNX model")->required();
  cmd->add_flag("--json", *json, "Print JSON instead of text");
  return [model, json] {
    auto m = LoadModel(*model);
    nlohmann::json s = ModelSummary(*m);
    s["model"] = *model;
    // Names, op types and domains are the model's own bytes: shown escaped (support/display_text.h).
    if (*json) std::cout << EscapeJsonForDisplay(s).dump(2) << "\n";
    else std::cout << EscapeForDisplay("model: " + *model + "\n" + ModelSummaryText(s), true);
    return 0;
  };
}

}  // namespace kiln::cli
