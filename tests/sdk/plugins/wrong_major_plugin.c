/* Loader test plugin: reports ABI major 2, which a 1.x host must refuse, naming both versions, without calling
   register_plugin. Built by tests/sdk; loaded by the loader tests. */
#include <kiln/kiln_plugin.h>

static KilnStatus* register_plugin(const KilnHostApi* host, KilnRegistrar* registrar) {
  (void)registrar;
  return host->status_create(KILN_STATUS_INTERNAL, "wrong_major_plugin: register_plugin must never be called");
}

static const KilnPluginDescriptor kDescriptor = {
    .struct_size = sizeof(KilnPluginDescriptor),
    .abi_version = KILN_MAKE_ABI_VERSION(2, 0),
    .name = "wrong_major",
    .version = "2.0.0",
    .register_plugin = register_plugin,
    .description = "built for ABI 2.0",
};

KILN_PLUGIN_EXPORT KilnStatus* kiln_plugin_entry(const KilnHostApi* host, uint32_t host_abi_version,
                                                 const KilnPluginDescriptor** out_descriptor) {
  (void)host;
  (void)host_abi_version;
  *out_descriptor = &kDescriptor;
  return NULL;
}
