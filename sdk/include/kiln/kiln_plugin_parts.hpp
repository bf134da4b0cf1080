// Splitting one plugin's registration across files: each file registers what it defines with
//
//   KILN_PLUGIN_PART(Trig) { reg.AddKernelFn(...); }
//
// and the plugin's entry calls every part that was linked in:
//
//   KILN_PLUGIN("kernels", "1.0.0") { kiln::sdk::RegisterParts(reg); }
//
// so no file lists the plugin's passes or kernels by hand. Parts register in link order; a part must not depend
// on another having run. Header-only; nothing here crosses the ABI.
#pragma once

#include <string_view>
#include <vector>

#include "kiln/kiln_plugin.hpp"

namespace kiln::sdk {

struct PluginPart {
  std::string_view name;
  void (*fn)(Registrar& reg);
};

inline std::vector<PluginPart>& PluginParts() {
  static std::vector<PluginPart> parts;
  return parts;
}

struct PluginPartRegistration {
  PluginPartRegistration(std::string_view name, void (*fn)(Registrar&)) { PluginParts().push_back({name, fn}); }
};

inline void RegisterParts(Registrar& reg) {
  for (const PluginPart& p : PluginParts()) p.fn(reg);
}

}  // namespace kiln::sdk

#define KILN_PLUGIN_PART(name)                                                                         \
  static void KilnRegisterPart_##name(::kiln::sdk::Registrar& reg);                                    \
  static const ::kiln::sdk::PluginPartRegistration kKilnPluginPart_##name(#name, KilnRegisterPart_##name); \
  static void KilnRegisterPart_##name(::kiln::sdk::Registrar& reg)
