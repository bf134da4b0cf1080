/* Loader test plugin: registers a node pass whose run_on_node is NULL. The host must refuse the registration
   with a status; the plugin hands that status back, so loading fails naming the pass. */
#include <kiln/kiln_plugin.h>

static KilnStatus* register_plugin(const KilnHostApi* host, KilnRegistrar* registrar) {
  KilnPassInfo pass = {
      .struct_size = sizeof(KilnPassInfo),
      .kind = KILN_PASS_NODE,
      .name = "NullCallbackPass",
      .run_on_node = NULL,
  };
  return host->register_pass(registrar, &pass);
}

static const KilnPluginDescriptor kDescriptor = {
    .struct_size = sizeof(KilnPluginDescriptor),
    .abi_version = KILN_ABI_VERSION,
    .name = "null_callback",
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
