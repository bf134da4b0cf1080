/* Loader test plugin built against the frozen ABI 1.0 header (tests/sdk/abi_v1_0), not the current one: its
   descriptor and KilnPassInfo are the 1.0 sizes and it knows nothing of 1.1. A 1.1 host must load it, never read
   past its structs (no on_finish_graph, no description), and run OldMinorPass, which counts the nodes it visits
   in the counter "nodes_seen" and logs their op types at debug level. */
#include <kiln/kiln_plugin.h>

#if KILN_ABI_VERSION_MAJOR != 1 || KILN_ABI_VERSION_MINOR != 0
#error "old_minor_plugin must build against the frozen 1.0 header"
#endif

static const KilnHostApi* g_host;

static KilnStatus* run_on_node(void* user_data, KilnPassContext* ctx, KilnNode* node) {
  (void)user_data;
  g_host->pass_add_counter(ctx, "nodes_seen", 1);
  if (g_host->log_enabled(KILN_LOG_DEBUG)) g_host->log(KILN_LOG_DEBUG, "old_minor", g_host->node_op_type(node));
  return NULL;
}

static KilnStatus* register_plugin(const KilnHostApi* host, KilnRegistrar* registrar) {
  KilnPassInfo pass = {
      .struct_size = sizeof(KilnPassInfo),
      .kind = KILN_PASS_NODE,
      .name = "OldMinorPass",
      .description = "counts nodes (a plugin built against ABI 1.0)",
      .run_on_node = run_on_node,
  };
  return host->register_pass(registrar, &pass);
}

static const KilnPluginDescriptor kDescriptor = {
    .struct_size = sizeof(KilnPluginDescriptor),
    .abi_version = KILN_ABI_VERSION,
    .name = "old_minor",
    .version = "1.0.0",
    .register_plugin = register_plugin,
};

KILN_PLUGIN_EXPORT KilnStatus* kiln_plugin_entry(const KilnHostApi* host, uint32_t host_abi_version,
                                                 const KilnPluginDescriptor** out_descriptor) {
  (void)host_abi_version;
  if (host->struct_size < KILN_HOST_API_SIZE_1_0)
    return host->status_create(KILN_STATUS_ABI_MISMATCH, "old_minor_plugin: host table smaller than ABI 1.0");
  g_host = host;
  *out_descriptor = &kDescriptor;
  return NULL;
}
