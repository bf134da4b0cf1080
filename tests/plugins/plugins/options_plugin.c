/* Loader test plugin: a graph pass with its own options (OptionProbePass) and a node pass with an after-walk
   hook (FinishProbePass). OptionProbePass reports what pass_option_* read as counters: its int option
   `threshold` (default 8, 16 at O3), its bool option `verbose` (default false), and whether the full option name
   oo.level reads as a string. FinishProbePass counts its node visits and its on_finish_graph calls. Neither
   changes the graph. */
#include <kiln/kiln_plugin.h>

#include <string.h>

static const KilnHostApi* g_host;

static KilnStatus* option_probe(void* user_data, KilnPassContext* ctx, KilnGraph* graph) {
  int64_t threshold = 0;
  int verbose = 0;
  const char* level = NULL;
  KilnStatus* s;
  (void)user_data;
  if (g_host->graph_parent_node(graph)) return NULL; /* the top graph only */
  if ((s = g_host->pass_option_int(ctx, "threshold", &threshold))) return s;
  if ((s = g_host->pass_option_bool(ctx, "verbose", &verbose))) return s;
  if ((s = g_host->pass_option_string(ctx, "oo.level", &level))) return s;
  g_host->pass_add_counter(ctx, "threshold", threshold);
  g_host->pass_add_counter(ctx, "verbose", verbose);
  g_host->pass_add_counter(ctx, "level_is_O0", strcmp(level, "O0") == 0);
  /* An unknown name and a wrong type are refused with their codes. */
  s = g_host->pass_option_int(ctx, "no.such.option", &threshold);
  g_host->pass_add_counter(ctx, "unknown_not_found", g_host->status_code(s) == KILN_STATUS_NOT_FOUND);
  g_host->status_release(s);
  s = g_host->pass_option_int(ctx, "verbose", &threshold);
  g_host->pass_add_counter(ctx, "wrong_type_invalid", g_host->status_code(s) == KILN_STATUS_INVALID_ARGUMENT);
  g_host->status_release(s);
  return NULL;
}

static KilnStatus* finish_probe_node(void* user_data, KilnPassContext* ctx, KilnNode* node) {
  (void)user_data;
  (void)node;
  g_host->pass_add_counter(ctx, "visits", 1);
  return NULL;
}

static KilnStatus* finish_probe_finish(void* user_data, KilnPassContext* ctx, KilnGraph* graph) {
  (void)user_data;
  (void)graph;
  g_host->pass_add_counter(ctx, "finish_calls", 1);
  return NULL;
}

static KilnStatus* register_plugin(const KilnHostApi* host, KilnRegistrar* registrar) {
  static const char* const threshold_levels[4] = {NULL, NULL, NULL, "16"};
  static const KilnOptionInfo threshold = {
      .struct_size = sizeof(KilnOptionInfo),
      .name = "threshold",
      .help = "a number the pass reports",
      .type = KILN_OPTION_INT,
      .default_value = "8",
      .level_defaults = threshold_levels,
      .level_default_count = 4,
  };
  static const KilnOptionInfo verbose = {
      .struct_size = sizeof(KilnOptionInfo),
      .name = "verbose",
      .help = "a flag the pass reports",
      .type = KILN_OPTION_BOOL,
      .default_value = "false",
  };
  static const KilnOptionInfo* const options[2] = {&threshold, &verbose};
  KilnPassInfo probe = {
      .struct_size = sizeof(KilnPassInfo),
      .kind = KILN_PASS_GRAPH,
      .name = "OptionProbePass",
      .description = "reports its options as counters",
      .switch_option = "probe.optionProbe",
      .options = options,
      .option_count = 2,
      .run_on_graph = option_probe,
  };
  KilnPassInfo finish = {
      .struct_size = sizeof(KilnPassInfo),
      .kind = KILN_PASS_NODE,
      .name = "FinishProbePass",
      .run_on_node = finish_probe_node,
      .on_finish_graph = finish_probe_finish,
  };
  KilnStatus* s = host->register_pass(registrar, &probe);
  return s ? s : host->register_pass(registrar, &finish);
}

static const KilnPluginDescriptor kDescriptor = {
    .struct_size = sizeof(KilnPluginDescriptor),
    .abi_version = KILN_ABI_VERSION,
    .name = "options_probe",
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
