// The fusion plugin's options, registered with it (the passes read them by full name).
#include <kiln/kiln_plugin_parts.hpp>

namespace {

using kiln::sdk::OptionSpec;

}  // namespace

KILN_PLUGIN_PART(FusionOptions) {
  reg.AddOption(OptionSpec::Bool("oo.fusion", true, "Fusion (PatternFusionPass and AutoFusionPass) at O2 and O3.")
                    .MinLevel(2));
  reg.AddOption(OptionSpec::String("fusion.mode", "pattern",
                                   "pattern: the rule packs only; auto: grouping by op kind over the post-dominator "
                                   "tree only; both: patterns first, then automatic grouping of what is left.",
                                   {"pattern", "auto", "both"})
                    .LevelDefaults({"", "", "pattern", "both"}));
  reg.AddOption(OptionSpec::Float("fusion.threshold", 0.05,
                                  "Automatic grouping fuses a group when its estimated gain, relative to running its "
                                  "nodes one by one, is at least this (0.05 = 5%)."));
  reg.AddOption(OptionSpec::Int("fusion.maxGroupSize", 64,
                                "The most nodes automatic grouping puts in one group (GE's backend limit is 64)."));
  reg.AddOption(OptionSpec::Int("fusion.maxRounds", 4,
                                "Pattern fusion repeats its walk while it changes the graph, at most this often."));
  reg.AddOption(OptionSpec::String("fusion.packs", "",
                                   "More rule packs (YAML files, ';'-separated): `kiln compile --fusion-pack FILE` "
                                   "and a pipeline's `fusion_packs:` add to it."));
  reg.AddOption(OptionSpec::Bool("fusion.builtinPacks", true,
                                 "Load the shipped packs of configs/fusion (off: only fusion.packs and plugins' packs)."));
  reg.AddOption(OptionSpec::String("fusion.disabledRules", "",
                                   "Rule names (',' or ';'-separated) that never apply; an unknown name is an error."));
  reg.AddOption(OptionSpec::String("fusion.report", "",
                                   "Write every fusion candidate (rule, nodes, decision, reason, gain) to this text "
                                   "file: `kiln compile --fusion-report FILE`."));
  reg.AddOption(OptionSpec::Int("fusion.reportLimit", 200,
                                "At most this many candidates per pass run in the JSON report (all are counted in "
                                "its candidate_summary, and all go to fusion.report)."));
}
