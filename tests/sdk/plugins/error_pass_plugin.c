/* Loader and roll-back test plugin, in C: ErrorPass (a node pass) changes the graph, then fails mid-pass.
   Every node it visits gets the attribute `_kiln_test_touched`; on the first visit that finds another node
   already touched, it also creates an unused constant and returns an error status. On a graph of two or more
   nodes the pass therefore always fails after changing it, and rolling it back must restore the graph exactly
   (no mark, no constant). */
#include <kiln/kiln_plugin.h>

#include <stdlib.h>

#define TOUCHED "_kiln_test_touched"

static const KilnHostApi* g_host;

static int another_node_touched(KilnGraph* graph, KilnNode* self) {
  size_t count = g_host->graph_nodes(graph, NULL, 0);
  KilnNode** nodes = malloc((count ? count : 1) * sizeof *nodes);
  int found = 0;
  size_t i;
  if (!nodes) return 0;
  count = g_host->graph_nodes(graph, nodes, count);
  for (i = 0; i < count && !found; ++i)
    found = nodes[i] != self && g_host->node_attribute(nodes[i], TOUCHED) != NULL;
  free(nodes);
  return found;
}

static KilnStatus* run_on_node(void* user_data, KilnPassContext* ctx, KilnNode* node) {
  static const int64_t dims[1] = {4};
  KilnGraph* graph = g_host->node_graph(node);
  KilnValue* value = NULL;
  KilnTensorView* data = NULL;
  KilnStatus* status;
  (void)user_data;
  (void)ctx;
  status = g_host->node_set_attr_int(node, TOUCHED, 1);
  if (status) return status;
  if (!another_node_touched(graph, node)) return NULL;
  status = g_host->graph_create_constant(graph, NULL, KILN_ELEM_FLOAT, 1, dims, &value, &data);
  if (status) return status;
  ((float*)data->data)[0] = 42.0f;
  return g_host->status_create(KILN_STATUS_FAILED, "ErrorPass fails mid-pass (on purpose)");
}

static KilnStatus* register_plugin(const KilnHostApi* host, KilnRegistrar* registrar) {
  KilnPassInfo pass = {
      .struct_size = sizeof(KilnPassInfo),
      .kind = KILN_PASS_NODE,
      .name = "ErrorPass",
      .description = "marks nodes, then fails mid-pass",
      .run_on_node = run_on_node,
  };
  return host->register_pass(registrar, &pass);
}

static const KilnPluginDescriptor kDescriptor = {
    .struct_size = sizeof(KilnPluginDescriptor),
    .abi_version = KILN_ABI_VERSION,
    .name = "error_pass",
    .version = "1.0.0",
    .register_plugin = register_plugin,
};

KILN_PLUGIN_EXPORT KilnStatus* kiln_plugin_entry(const KilnHostApi* host, uint32_t host_abi_version,
                                                 const KilnPluginDescriptor** out_descriptor) {
  (void)host_abi_version;
  g_host = host;
  *out_descriptor = &kDescriptor;
  return NULL;
}
