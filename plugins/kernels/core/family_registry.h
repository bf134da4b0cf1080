// Kernel families register themselves: each family file defines `KILN_KERNEL_FAMILY(Name) { reg.AddKernelFn(...); }`
// and the plugin's entry calls every family that was linked in. No file lists the families by hand.
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <functional>
#include <string_view>
#include <vector>

namespace kiln::kernels {

using FamilyFn = void (*)(sdk::Registrar& reg);

struct Family {
  std::string_view name;
  FamilyFn fn;
};

inline std::vector<Family>& Families() {
  static std::vector<Family> families;
  return families;
}

struct FamilyRegistration {
  FamilyRegistration(std::string_view name, FamilyFn fn) { Families().push_back({name, fn}); }
};

}  // namespace kiln::kernels

#define KILN_KERNEL_FAMILY(name)                                                                   \
  static void KilnRegisterFamily_##name(::kiln::sdk::Registrar& reg);                              \
  static const ::kiln::kernels::FamilyRegistration kKilnFamily_##name(#name, KilnRegisterFamily_##name); \
  static void KilnRegisterFamily_##name(::kiln::sdk::Registrar& reg)
