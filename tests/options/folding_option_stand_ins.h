// Stand-ins for the options the folding plugin registers (plugins/folding: oo.constantFolding, oo.memoryPolicy,
// oo.deadCodeElimination, oo.commonSubexpressionElimination), defined as the registry holds them once that plugin
// is loaded. The host registers none of them; the host-only tests of options and pipelines load no plugin, so
// they add these to have the options the shipped pipelines name. The real registration is checked through
// `kiln options` (tests/cli, CliCommands.OptionsListsTheFoldingPluginsOptions).
#pragma once

#include "options/option_registry.h"

namespace kiln::test_support {

inline void RegisterFoldingOptionStandIns(OptionRegistry& registry) {
  registry.Add(OptionDef::Bool("oo.constantFolding")
                   .ActiveFrom(OptLevel::kO1)
                   .Default("true")
                   .Owner("folding")
                   .Help("Constant folding and its family (stand-in)."));
  registry.Add(OptionDef::Bool("oo.deadCodeElimination")
                   .ActiveFrom(OptLevel::kO1)
                   .Default("true")
                   .Owner("folding")
                   .Help("Dead code elimination (stand-in)."));
  registry.Add(OptionDef::Bool("oo.commonSubexpressionElimination")
                   .ActiveFrom(OptLevel::kO1)
                   .Default("true")
                   .Owner("folding")
                   .Help("Common-subexpression elimination (stand-in)."));
  registry.Add(OptionDef::Enum("oo.memoryPolicy", {"Balanced", "MemoryPriority"})
                   .ActiveFrom(OptLevel::kO1)
                   .Default("Balanced")
                   .Owner("folding")
                   .Help("Folding's memory policy (stand-in)."));
}

}  // namespace kiln::test_support
