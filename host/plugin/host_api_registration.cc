// The register_* slots: usable only while the plugin's register function runs (the registrar is closed
// afterwards), each handing its struct to the PendingRegistration that checks and holds it.
#include "plugin/host_api.h"
#include "plugin/plugin_registration.h"

namespace kiln::plugin {
namespace {

PendingRegistration& Open(KilnRegistrar* r) {
  if (!r) throw std::invalid_argument("registrar is NULL");
  if (!r->open || !r->pending)
    throw SlotError(KILN_STATUS_FAILED_PRECONDITION, "the registrar is closed: register only inside register_plugin");
  return *r->pending;
}

KilnStatus* RegisterPass(KilnRegistrar* r, const KilnPassInfo* info) {
  return Guarded([&] { Open(r).AddPass(info); });
}
KilnStatus* RegisterKernel(KilnRegistrar* r, const KilnKernelInfo* info) {
  return Guarded([&] { Open(r).AddKernel(info); });
}
KilnStatus* RegisterOpSchema(KilnRegistrar* r, const KilnOpSchemaInfo* info) {
  return Guarded([&] { Open(r).AddOpSchema(info); });
}
KilnStatus* RegisterFusionRules(KilnRegistrar* r, const KilnFusionRulePackInfo* info) {
  return Guarded([&] { Open(r).AddFusionRules(info); });
}
KilnStatus* RegisterTarget(KilnRegistrar* r, const KilnTargetInfo* info) {
  return Guarded([&] { Open(r).AddTarget(info); });
}
KilnStatus* RegisterOption(KilnRegistrar* r, const KilnOptionInfo* info) {
  return Guarded([&] { Open(r).AddOption(info); });
}

}  // namespace

void FillRegistrationSlots(KilnHostApi& api) {
  api.register_pass = RegisterPass;
  api.register_kernel = RegisterKernel;
  api.register_op_schema = RegisterOpSchema;
  api.register_fusion_rules = RegisterFusionRules;
  api.register_target = RegisterTarget;
  api.register_option = RegisterOption;
}

}  // namespace kiln::plugin
