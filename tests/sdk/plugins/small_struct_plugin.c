/* Loader test plugin: registers a node pass with a struct_size smaller than the 1.0 KilnPassInfo (it stops
   before the callbacks). The host must refuse the registration instead of reading past the struct. */
#include <kiln/kiln_plugin.h>

static KilnStatus* run_on_node(void* user_data, KilnPassContext* ctx, KilnNode* node) {
  (void)user_data;
  (void)ctx;
  (void)node;
  return NULL;
}

static KilnStatus* register_plugin(const KilnHostApi* host, KilnRegistrar* registrar) {
  KilnPassInfo pass = {
      .struct_size = offsetof(KilnPassInfo, run_on_node),
      .kind = KILN_PASS_NODE,
      .name = "SmallStructPass",
      .run_on_node = run_on_node,
  };
  return host->register_pass(registrar, &pass);
}

static const KilnPluginDescriptor kDescriptor = {
    .struct_size = sizeof(KilnPluginDescriptor),
    .abi_version = KILN_ABI_VERSION,
    .name = "small_struct",
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
