/* Compiles kiln_plugin.h as C99 with -Wall -Wextra -Werror -pedantic (an object library of tests/sdk): a header
   change that is not C99 fails the build. It also writes a C plugin against every struct and callback type, the
   way a C plugin author would, so a signature that cannot be implemented in C fails here too. Never run. */
#include <kiln/kiln_plugin.h>

#include <stddef.h>

#if !defined(__STDC_VERSION__) || __STDC_VERSION__ != 199901L
#error "c99_header_check.c must be compiled as C99"
#endif

static const KilnHostApi* g_host;

static KilnStatus* run_on_node(void* user_data, KilnPassContext* ctx, KilnNode* node) {
  const KilnAttribute* axis = g_host->node_attribute(node, "axis");
  KilnValue* input = g_host->node_input(node, 0);
  const int64_t* dims = NULL;
  (void)user_data;
  if (axis && g_host->attr_type(axis) == KILN_ATTR_INT && g_host->attr_int(axis) < 0) return NULL;
  if (input && g_host->value_shape(input, &dims) > 0 && dims[0] == -1 && g_host->value_dim_symbol(input, 0))
    g_host->pass_request_repass(ctx, node);
  if (KILN_HOST_HAS(g_host, node_subgraph_count) && g_host->node_subgraph_count(node) > 0)
    g_host->pass_add_counter(ctx, "with_subgraphs", 1);
  return NULL;
}

static KilnStatus* run_on_graph(void* user_data, KilnPassContext* ctx, KilnGraph* graph) {
  (void)user_data;
  g_host->pass_add_counter(ctx, "nodes", (int64_t)g_host->graph_node_count(graph));
  return NULL;
}

static void destroy(void* user_data) { (void)user_data; }

static KilnStatus* compute(void* user_data, KilnKernelContext* ctx) {
  const KilnTensorView* x = g_host->kernel_input(ctx, 0);
  KilnTensorView* y = NULL;
  KilnStatus* status;
  size_t i, n;
  (void)user_data;
  if (!x || x->elem_type != KILN_ELEM_FLOAT)
    return g_host->status_create(KILN_STATUS_UNSUPPORTED, "float tensors only");
  status = g_host->kernel_alloc_output(ctx, 0, KILN_ELEM_FLOAT, x->rank, x->dims, &y);
  if (status) return status;
  n = (size_t)(x->byte_size / kiln_elem_type_size(x->elem_type));
  for (i = 0; i < n; ++i) ((float*)y->data)[i] = 2.0f * ((const float*)x->data)[i];
  return NULL;
}

static KilnStatus* infer_shapes(void* user_data, KilnShapeContext* ctx) {
  const int64_t* dims = NULL;
  int64_t rank = g_host->infer_input_shape(ctx, 0, &dims);
  (void)user_data;
  return g_host->infer_set_output(ctx, 0, g_host->infer_input_elem_type(ctx, 0), rank, dims, NULL);
}

static KilnStatus* register_plugin(const KilnHostApi* host, KilnRegistrar* registrar) {
  static const char* const kModes[] = {"Balanced", "MemoryPriority"};
  static const int32_t kFloatOnly[] = {KILN_ELEM_FLOAT};
  const KilnOptionInfo max_bytes = {
      .struct_size = sizeof(KilnOptionInfo),
      .name = "maxBytes",
      .help = "largest constant the pass creates",
      .type = KILN_OPTION_INT,
      .default_value = "1048576",
  };
  const KilnOptionInfo* const pass_options[] = {&max_bytes};
  const KilnOptionInfo mode = {
      .struct_size = sizeof(KilnOptionInfo),
      .name = "c99.mode",
      .help = "a global option",
      .type = KILN_OPTION_STRING,
      .min_level = 1,
      .default_value = "Balanced",
      .allowed_values = kModes,
      .allowed_value_count = 2,
      .scopes = KILN_OPTION_SCOPE_CLI | KILN_OPTION_SCOPE_SESSION,
  };
  const KilnPassInfo node_pass = {
      .struct_size = sizeof(KilnPassInfo),
      .kind = KILN_PASS_NODE,
      .name = "C99NodePass",
      .switch_option = "c99.enabled",
      .options = pass_options,
      .option_count = 1,
      .run_on_node = run_on_node,
      .destroy_user_data = destroy,
      .on_finish_graph = run_on_graph,
  };
  const KilnPassInfo graph_pass = {
      .struct_size = sizeof(KilnPassInfo),
      .kind = KILN_PASS_GRAPH,
      .name = "C99GraphPass",
      .run_on_graph = run_on_graph,
  };
  const KilnKernelInfo kernel = {
      .struct_size = sizeof(KilnKernelInfo),
      .domain = "c99",
      .op_type = "Double",
      .since_version = 1,
      .elem_types = kFloatOnly,
      .elem_type_count = 1,
      .compute = compute,
  };
  const KilnOpSchemaInfo schema = {
      .struct_size = sizeof(KilnOpSchemaInfo),
      .domain = "c99",
      .op_type = "Double",
      .since_version = 1,
      .min_inputs = 1,
      .max_inputs = 1,
      .min_outputs = 1,
      .max_outputs = 1,
      .infer_shapes = infer_shapes,
  };
  const KilnFusionRulePackInfo rules = {
      .struct_size = sizeof(KilnFusionRulePackInfo),
      .name = "c99_rules",
      .yaml = "rules: []\n",
  };
  const KilnTargetInfo target = {.struct_size = sizeof(KilnTargetInfo), .name = "c99_target"};
  KilnStatus* s;
  if ((s = host->register_option(registrar, &mode))) return s;
  if ((s = host->register_pass(registrar, &node_pass))) return s;
  if ((s = host->register_pass(registrar, &graph_pass))) return s;
  if ((s = host->register_kernel(registrar, &kernel))) return s;
  if ((s = host->register_op_schema(registrar, &schema))) return s;
  if ((s = host->register_fusion_rules(registrar, &rules))) return s;
  return host->register_target(registrar, &target);
}

static const KilnPluginDescriptor kDescriptor = {
    .struct_size = sizeof(KilnPluginDescriptor),
    .abi_version = KILN_ABI_VERSION,
    .name = "c99_check",
    .version = "1.0.0",
    .register_plugin = register_plugin,
    .description = "compile-only C99 check",
};

KILN_PLUGIN_EXPORT KilnStatus* kiln_plugin_entry(const KilnHostApi* host, uint32_t host_abi_version,
                                                 const KilnPluginDescriptor** out_descriptor) {
  if (KILN_ABI_VERSION_GET_MAJOR(host_abi_version) != KILN_ABI_VERSION_MAJOR)
    return host->status_create(KILN_STATUS_ABI_MISMATCH, "c99_check: wrong host major version");
  g_host = host;
  *out_descriptor = &kDescriptor;
  return NULL;
}
