/* Loader test plugin: its descriptor claims a struct_size smaller than the 1.0 descriptor, so the host cannot
   rely on register_plugin being there, and must refuse it. */
#include <kiln/kiln_plugin.h>

static KilnStatus* register_plugin(const KilnHostApi* host, KilnRegistrar* registrar) {
  (void)registrar;
  return host->status_create(KILN_STATUS_INTERNAL, "small_descriptor_plugin: register_plugin must never be called");
}

static const KilnPluginDescriptor kDescriptor = {
    .struct_size = offsetof(KilnPluginDescriptor, register_plugin),
    .abi_version = KILN_ABI_VERSION,
    .name = "small_descriptor",
    .version = "1.0.0",
    .register_plugin = register_plugin,
};

KILN_PLUGIN_EXPORT KilnStatus* kiln_plugin_entry(const KilnHostApi* host, uint32_t host_abi_version,
                                                 const KilnPluginDescriptor** out_descriptor) {
  (void)host;
  (void)host_abi_version;
  *out_descriptor = &kDescriptor;
  return NULL;
}
