// kiln info MODEL [--json]: what a model holds.
#include <iostream>

#include "cli/commands.h"
#include "ir/model.h"
#include "onnx/onnx_import.h"
#include "report/model_summary.h"

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
    if (*json) std::cout << s.dump(2) << "\n";
    else std::cout << "model: " << *model << "\n" << ModelSummaryText(s);
    return 0;
  };
}

}  // namespace kiln::cli
