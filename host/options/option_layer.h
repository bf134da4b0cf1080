// One layer of option settings: the graph's options, the session's (the CLI's flags land here), or a pipeline
// file's defaults. Setting a value checks it against the registry at once: the name must be registered, the layer's
// place must be one the option allows, and the value must pass its checker.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "options/option_registry.h"

namespace kiln {

struct OptionSetting {
  OptionValue value;
  std::string origin;  // where it was written, for reports: "--oo.level", "O1.yaml:4:3", "graph"
};

class OptionLayer {
 public:
  explicit OptionLayer(OptionPlace place) : place_(place) {}

  // Checks and stores `name = text`; a later Set of the same name replaces the earlier one. Throws ConfigError:
  //   unknown option 'oo.constantFoldin'; did you mean 'oo.constantFolding'?
  //   option oo.level may not be set in pipeline options (it may be set in: cli, session, graph)
  //   option oo.constantFolding: 'maybe' is not one of: true, false
  void Set(const OptionRegistry& registry, std::string_view name, std::string_view text, std::string origin = {});
  // Copies every setting of `over` into this layer, replacing settings of the same name (a child pipeline's
  // defaults over its parent's).
  void Merge(const OptionLayer& over);

  const OptionSetting* Find(std::string_view name) const;
  const std::map<std::string, OptionSetting, std::less<>>& settings() const { return settings_; }
  OptionPlace place() const { return place_; }
  bool empty() const { return settings_.empty(); }

 private:
  OptionPlace place_;
  std::map<std::string, OptionSetting, std::less<>> settings_;
};

}  // namespace kiln
