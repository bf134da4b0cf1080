/* Test plugin built against the frozen ABI 1.2 header (tests/sdk/abi_v1_2): it registers the target "old_npu"
   as 1.2 knew targets, by name alone (its KilnTargetInfo is 1.0-sized). A 1.3 host still loads it and lists the
   target, which cannot be the active one: it has no engines or cost model. */
#include <kiln/kiln_plugin.h>

#if KILN_ABI_VERSION_MINOR != 2
#error "v1_2_target_plugin.c must build against the frozen 1.2 header"
#endif

static KilnStatus* register_plugin(const KilnHostApi* host, KilnRegistrar* registrar) {
  KilnTargetInfo target = {.struct_size = sizeof(KilnTargetInfo), .name = "old_npu"};
  return host->register_target(registrar, &target);
}

static const KilnPluginDescriptor kDescriptor = {
    .struct_size = sizeof(KilnPluginDescriptor),
    .abi_version = KILN_ABI_VERSION,
    .name = "v1_2_target",
    .version = "1.2.0",
    .register_plugin = register_plugin,
    .description = "A 1.2 plugin registering the target old_npu by name",
};

KILN_PLUGIN_EXPORT KilnStatus* kiln_plugin_entry(const KilnHostApi* host, uint32_t host_abi_version,
                                                 const KilnPluginDescriptor** out_descriptor) {
  (void)host;
  (void)host_abi_version;
  *out_descriptor = &kDescriptor;
  return NULL;
}
