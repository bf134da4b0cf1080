/* Test plugin: TargetProbePass, a graph pass that asks the active target every question the host forwards
   (target_active .. target_preferred_format) about the main graph and reports the answers as counters. It
   registers no target itself: with `--target test_npu` the answers come from test_target_plugin.c's cost model,
   forwarded by the host. Times are reported in nanoseconds. It never changes the graph. */
#include <kiln/kiln_plugin.h>

#include <stdlib.h>
#include <string.h>

static const KilnHostApi* g_host;

static void count(KilnPassContext* ctx, const char* name, int64_t value) { g_host->pass_add_counter(ctx, name, value); }

/* Counts `name` 1 when the status has `code`, and releases it. */
static void count_code(KilnPassContext* ctx, const char* name, KilnStatus* s, KilnStatusCode code) {
  count(ctx, name, g_host->status_code(s) == code);
  g_host->status_release(s);
}

static int64_t ns(double seconds) { return (int64_t)(seconds * 1e9 + 0.5); }

static KilnStatus* probe(void* user_data, KilnPassContext* ctx, KilnGraph* graph) {
  KilnNode** nodes;
  KilnNode* gemm = NULL;
  KilnNode* device[64];
  size_t n, i, device_count = 0;
  const char* name;
  const char* engine = NULL;
  const char* format = NULL;
  double seconds = -1;
  KilnCostEstimate e;
  KilnStatus* s;
  (void)user_data;
  if (g_host->graph_parent_node(graph)) return NULL; /* the main graph only */
  if (!KILN_HOST_HAS(g_host, target_preferred_format)) {
    count(ctx, "host_lacks_target_slots", 1);
    return NULL;
  }
  n = g_host->graph_nodes(graph, NULL, 0);
  if (n == 0) return NULL;
  nodes = (KilnNode**)malloc(n * sizeof(KilnNode*));
  if (!nodes) return g_host->status_create(KILN_STATUS_OUT_OF_MEMORY, "probe");
  g_host->graph_nodes(graph, nodes, n);
  for (i = 0; i < n; ++i)
    if (!gemm && strcmp(g_host->node_op_type(nodes[i]), "Gemm") == 0) gemm = nodes[i];

  name = g_host->target_active();
  if (!name) {
    /* No target: NULL, no engines, and NOT_FOUND from the others. */
    count(ctx, "no_target", 1);
    count(ctx, "engine_count", (int64_t)g_host->target_engine_count());
    memset(&e, 0, sizeof e);
    e.struct_size = sizeof e;
    count_code(ctx, "estimate_not_found", g_host->target_estimate(nodes, 1, &e), KILN_STATUS_NOT_FOUND);
    count_code(ctx, "node_engine_not_found", g_host->target_node_engine(nodes[0], &engine), KILN_STATUS_NOT_FOUND);
    free(nodes);
    return NULL;
  }
  count(ctx, "active_is_test_npu", strcmp(name, "test_npu") == 0);
  count(ctx, "engine_count", (int64_t)g_host->target_engine_count());
  count(ctx, "engine0_is_cube", g_host->target_engine_at(0) && strcmp(g_host->target_engine_at(0), "cube") == 0);
  count(ctx, "engine_past_end_is_null", g_host->target_engine_at(99) == NULL);

  if (gemm) {
    if ((s = g_host->target_node_engine(gemm, &engine))) goto failed;
    count(ctx, "gemm_on_cube", strcmp(engine, "cube") == 0);
    memset(&e, 0xff, sizeof e); /* garbage: the host sets struct_size and the target fills the rest */
    if ((s = g_host->target_estimate(&gemm, 1, &e))) goto failed;
    count(ctx, "estimate_struct_size_is_ours", e.struct_size == sizeof e);
    count(ctx, "gemm_ns", ns(e.seconds));
    count(ctx, "gemm_launches", e.launches);
    count(ctx, "gemm_estimate_engine_is_cube", e.engine && strcmp(e.engine, "cube") == 0);
    if ((s = g_host->target_preferred_format(gemm, 0, 0, &format))) goto failed;
    count(ctx, "gemm_input0_nd", strcmp(format, "ND") == 0);
    count_code(ctx, "format_index_out_of_range", g_host->target_preferred_format(gemm, 0, 99, &format),
               KILN_STATUS_OUT_OF_RANGE);
    if ((s = g_host->target_transfer_cost(g_host->node_output(gemm, 0), "ND", "NC1HWC0", &seconds))) goto failed;
    count(ctx, "transfer_ns", ns(seconds));
    /* The target's own refusal comes back with its code, the target named in the message. */
    s = g_host->target_transfer_cost(g_host->node_output(gemm, 0), "ND", "BOGUS", &seconds);
    count(ctx, "transfer_message_names_target", s && strstr(g_host->status_message(s), "test_npu") != NULL);
    count_code(ctx, "transfer_bogus_invalid", s, KILN_STATUS_INVALID_ARGUMENT);
  }

  /* Every node not on the host, estimated as one group. */
  for (i = 0; i < n && device_count < 64; ++i) {
    if ((s = g_host->target_node_engine(nodes[i], &engine))) goto failed;
    if (strcmp(engine, "host") != 0) device[device_count++] = nodes[i];
  }
  count(ctx, "device_nodes", (int64_t)device_count);
  if (device_count > 0) {
    memset(&e, 0, sizeof e);
    e.struct_size = sizeof e;
    if ((s = g_host->target_estimate(device, device_count, &e))) goto failed;
    count(ctx, "group_ns", ns(e.seconds));
    count(ctx, "group_barriers", e.barriers);
    count(ctx, "group_feasible", e.feasible);
    count(ctx, "group_reason_given", e.reason != NULL);
  }
  count_code(ctx, "estimate_of_nothing_invalid", g_host->target_estimate(nodes, 0, &e), KILN_STATUS_INVALID_ARGUMENT);

  if ((s = g_host->target_sync_cost("cube", "vector", &seconds))) goto failed;
  count(ctx, "sync_cube_vector_ns", ns(seconds));
  if ((s = g_host->target_sync_cost("vector", "vector", &seconds))) goto failed;
  count(ctx, "sync_vector_vector_ns", ns(seconds));
  count_code(ctx, "sync_unknown_engine_invalid", g_host->target_sync_cost("cube", "warp", &seconds),
             KILN_STATUS_INVALID_ARGUMENT);
  free(nodes);
  return NULL;
failed:
  free(nodes);
  return s;
}

static KilnStatus* register_plugin(const KilnHostApi* host, KilnRegistrar* registrar) {
  KilnPassInfo pass;
  memset(&pass, 0, sizeof pass);
  pass.struct_size = sizeof pass;
  pass.kind = KILN_PASS_GRAPH;
  pass.name = "TargetProbePass";
  pass.description = "asks the active target every question the host forwards, and counts the answers";
  pass.run_on_graph = probe;
  return host->register_pass(registrar, &pass);
}

static const KilnPluginDescriptor kDescriptor = {
    .struct_size = sizeof(KilnPluginDescriptor),
    .abi_version = KILN_ABI_VERSION,
    .name = "target_probe",
    .version = "1.0.0",
    .register_plugin = register_plugin,
    .description = "TargetProbePass: the target slots from a pass",
};

KILN_PLUGIN_EXPORT KilnStatus* kiln_plugin_entry(const KilnHostApi* host, uint32_t host_abi_version,
                                                 const KilnPluginDescriptor** out_descriptor) {
  (void)host_abi_version;
  g_host = host;
  *out_descriptor = &kDescriptor;
  return NULL;
}
