/* Loader test plugin: registers names the hello plugin registers too (HelloIdentityPass, the option
   hello.identityElimination, a kernel and a schema for hello.Double), plus a fusion rule pack and a target. Loaded
   after hello, every clashing registration is shadowed (first wins) and reported; its kernel is kept, tried after
   hello's. Its pass would fail if it ever ran. */
#include <kiln/kiln_plugin.h>

static const KilnHostApi* g_host;

static KilnStatus* run_on_node(void* user_data, KilnPassContext* ctx, KilnNode* node) {
  (void)user_data;
  (void)ctx;
  (void)node;
  return g_host->status_create(KILN_STATUS_INTERNAL, "shadow's HelloIdentityPass must never run");
}

static KilnStatus* compute(void* user_data, KilnKernelContext* ctx) {
  (void)user_data;
  (void)ctx;
  return g_host->status_create(KILN_STATUS_UNSUPPORTED, "shadow's kernel handles nothing");
}

static KilnStatus* register_plugin(const KilnHostApi* host, KilnRegistrar* registrar) {
  static const int32_t float_only[1] = {KILN_ELEM_FLOAT};
  KilnOptionInfo option = {
      .struct_size = sizeof(KilnOptionInfo),
      .name = "hello.identityElimination",
      .help = "shadow's copy",
      .type = KILN_OPTION_BOOL,
      .default_value = "false",
  };
  KilnPassInfo pass = {
      .struct_size = sizeof(KilnPassInfo),
      .kind = KILN_PASS_NODE,
      .name = "HelloIdentityPass",
      .switch_option = "hello.identityElimination",
      .run_on_node = run_on_node,
  };
  KilnKernelInfo kernel = {
      .struct_size = sizeof(KilnKernelInfo),
      .domain = "hello",
      .op_type = "Double",
      .since_version = 1,
      .elem_types = float_only,
      .elem_type_count = 1,
      .compute = compute,
  };
  KilnOpSchemaInfo schema = {
      .struct_size = sizeof(KilnOpSchemaInfo),
      .domain = "hello",
      .op_type = "Double",
      .since_version = 1,
      .min_inputs = 1,
      .max_inputs = 1,
      .min_outputs = 1,
      .max_outputs = 1,
  };
  KilnFusionRulePackInfo rules = {
      .struct_size = sizeof(KilnFusionRulePackInfo),
      .name = "shadow_rules",
      .yaml = "rules: []\n",
      .source_name = "shadow_rules.yaml",
  };
  KilnTargetInfo target = {.struct_size = sizeof(KilnTargetInfo), .name = "shadow_target"};
  KilnStatus* s;
  if ((s = host->register_option(registrar, &option))) return s;
  if ((s = host->register_pass(registrar, &pass))) return s;
  if ((s = host->register_kernel(registrar, &kernel))) return s;
  if ((s = host->register_op_schema(registrar, &schema))) return s;
  if ((s = host->register_fusion_rules(registrar, &rules))) return s;
  return host->register_target(registrar, &target);
}

static const KilnPluginDescriptor kDescriptor = {
    .struct_size = sizeof(KilnPluginDescriptor),
    .abi_version = KILN_ABI_VERSION,
    .name = "shadow",
    .version = "1.0.0",
    .register_plugin = register_plugin,
    .description = "registers names hello registers too",
};

KILN_PLUGIN_EXPORT KilnStatus* kiln_plugin_entry(const KilnHostApi* host, uint32_t host_abi_version,
                                                 const KilnPluginDescriptor** out_descriptor) {
  (void)host_abi_version;
  g_host = host;
  *out_descriptor = &kDescriptor;
  return NULL;
}
