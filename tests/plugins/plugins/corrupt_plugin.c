/* A deliberately wrong pass, for kiln bisect's test (tests/plugins/bisect_cli_test.cc): CorruptArithmeticPass
   finds the Mul node named by its option `node` whose second input is a float constant, and feeds it a copy of
   that constant scaled by 1.01 (named <constant>_corrupted). Every other node is left alone, so the optimised
   model computes 1% more on that node's output and on everything downstream of it. */
#include <kiln/kiln_plugin.h>

#include <string.h>

static const KilnHostApi* g_host;

static KilnStatus* corrupt_node(void* user_data, KilnPassContext* ctx, KilnNode* node) {
  const char* target = NULL;
  const char* suffix = "_corrupted";
  KilnStatus* s;
  (void)user_data;
  if ((s = g_host->pass_option_string(ctx, "node", &target))) return s;
  if (!target[0] || strcmp(g_host->node_name(node), target) != 0) return NULL;
  if (strcmp(g_host->node_op_type(node), "Mul") != 0) return NULL;
  if (g_host->node_input_count(node) != 2) return NULL;
  KilnValue* c = g_host->node_input(node, 1);
  if (!c || !g_host->value_is_constant(c)) return NULL;
  const char* name = g_host->value_name(c);
  size_t len = strlen(name), slen = strlen(suffix);
  if (len >= slen && strcmp(name + len - slen, suffix) == 0) return NULL; /* already done */
  const KilnTensorView* view = g_host->value_constant_data(c);
  if (!view || view->elem_type != KILN_ELEM_FLOAT) return NULL;
  char new_name[256];
  if (len + slen + 1 > sizeof new_name) return NULL;
  memcpy(new_name, name, len);
  memcpy(new_name + len, suffix, slen + 1);
  KilnTensorView* data = NULL;
  KilnValue* scaled = NULL;
  if ((s = g_host->graph_create_constant(g_host->node_graph(node), new_name, view->elem_type, view->rank, view->dims,
                                         &scaled, &data)))
    return s;
  const float* from = (const float*)view->data;
  float* to = (float*)data->data;
  for (size_t i = 0; i < view->byte_size / sizeof(float); ++i) to[i] = from[i] * 1.01f;
  if ((s = g_host->node_set_input(node, 1, scaled))) return s;
  g_host->pass_add_counter(ctx, "nodes_corrupted", 1);
  return NULL;
}

static KilnStatus* register_plugin(const KilnHostApi* host, KilnRegistrar* registrar) {
  static const KilnOptionInfo node = {
      .struct_size = sizeof(KilnOptionInfo),
      .name = "node",
      .help = "the name of the Mul node to corrupt",
      .type = KILN_OPTION_STRING,
      .default_value = "",
  };
  static const KilnOptionInfo* const options[1] = {&node};
  KilnPassInfo corrupt = {
      .struct_size = sizeof(KilnPassInfo),
      .kind = KILN_PASS_NODE,
      .name = "CorruptArithmeticPass",
      .description = "scales the constant of one named Mul by 1.01 (a wrong pass, for kiln bisect's test)",
      .options = options,
      .option_count = 1,
      .run_on_node = corrupt_node,
  };
  return host->register_pass(registrar, &corrupt);
}

static const KilnPluginDescriptor kDescriptor = {
    .struct_size = sizeof(KilnPluginDescriptor),
    .abi_version = KILN_ABI_VERSION,
    .name = "corrupt_arithmetic",
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
