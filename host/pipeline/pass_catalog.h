// What the pipeline code needs to know about passes, without depending on the pass registry: which names exist,
// whether a pass is a graph pass, which option switches a pass, and whether an argument is acceptable. The host
// implements it over its pass registry (host and plugin passes); tests use a fake.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kiln {

class PassCatalog {
 public:
  virtual ~PassCatalog() = default;

  virtual bool HasPass(std::string_view name) const = 0;
  // Every registered pass name, for "did you mean" and for listing what exists.
  virtual std::vector<std::string> PassNames() const = 0;
  // True for a graph pass (run once on each graph, between node walks); false for a node pass or an unknown name.
  virtual bool IsGraphPass(std::string_view name) const = 0;
  // The option that switches the pass (GE's SWITCH_OPT), e.g. "oo.constantFolding"; "" when none does.
  virtual std::string SwitchOptionOf(std::string_view pass) const = 0;
  // Checks one `args:` entry of a pass in a pipeline file: "" when acceptable, else what is wrong and what was
  // expected ("unknown argument 'need_fod'; did you mean 'need_fold'?"). The default accepts everything.
  virtual std::string CheckArg(std::string_view pass, std::string_view key, std::string_view value) const { return ""; }
};

}  // namespace kiln
