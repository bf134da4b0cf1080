/* Test target plugin (ABI 1.3): the target "test_npu" with engines cube, vector and host, and a cost model simple
   enough to check by hand:
     - engine: MatMul, Gemm and Conv run on cube; Shape, Size and Constant on host; a call of a model-local function
       where the first node of its body that is not host work does; everything else on vector.
     - estimate: a node costs 2 us on cube, 1 us on vector, 0 on host; a kernel launch costs 0.5 us (none for host
       work); a group (count > 1), or a call standing for its body, is one launch: the sum of its nodes' costs, plus
       0.5 us, plus 0.25 us per switch between cube and vector inside it (its barriers). A group of more than 8
       nodes is not feasible ("over the 8-node buffer"). flops: 1 per output element of every node.
     - sync_cost: 0.25 us between cube and vector (either way), 0 otherwise.
     - transfer_cost: formats ND and NC1HWC0; 0 between equal ones, 0.1 us otherwise; another format is refused
       with INVALID_ARGUMENT.
     - preferred_format: NC1HWC0 for input 0 of a Conv, ND otherwise.
   Also two string options, fusion.packs and fusion.report, stand-ins for the fusion plugin's (so the tests of the
   compile flags that alias them do not depend on it). */
#include <kiln/kiln_plugin.h>

#include <stdlib.h>
#include <string.h>

static const KilnHostApi* g_host;

#define US 1e-6
#define KERNEL_CUBE (2 * US)
#define KERNEL_VECTOR (1 * US)
#define LAUNCH (0.5 * US)
#define BARRIER (0.25 * US)
#define MAX_GROUP 8

typedef struct TargetState {
  int calls; /* every callback counts itself; freed by destroy_user_data */
} TargetState;

static int is(const char* a, const char* b) { return a && b && strcmp(a, b) == 0; }

static const char* op_engine(KilnNode* node);

static const char* call_engine(KilnNode* call) {
  KilnFunction* f = g_host->node_function(call);
  KilnGraph* body = g_host->function_body(f);
  size_t n = g_host->graph_nodes(body, NULL, 0), i;
  const char* engine = "host";
  KilnNode** nodes = n ? (KilnNode**)malloc(n * sizeof(KilnNode*)) : NULL;
  if (n && !nodes) return "vector";
  g_host->graph_nodes(body, nodes, n);
  for (i = 0; i < n; ++i) {
    const char* e = op_engine(nodes[i]);
    if (!is(e, "host")) {
      engine = e;
      break;
    }
  }
  free(nodes);
  return engine;
}

static const char* op_engine(KilnNode* node) {
  const char* op = g_host->node_op_type(node);
  if (g_host->node_function(node)) return call_engine(node);
  if (is(op, "MatMul") || is(op, "Gemm") || is(op, "Conv")) return "cube";
  if (is(op, "Shape") || is(op, "Size") || is(op, "Constant")) return "host";
  return "vector";
}

static double kernel_seconds(const char* engine) {
  return is(engine, "cube") ? KERNEL_CUBE : is(engine, "vector") ? KERNEL_VECTOR : 0;
}

static uint64_t output_elements(KilnNode* node) {
  uint64_t total = 0;
  size_t o;
  for (o = 0; o < g_host->node_output_count(node); ++o) {
    const int64_t* dims = NULL;
    KilnValue* v = g_host->node_output(node, o);
    int64_t rank = v ? g_host->value_shape(v, &dims) : -1, d;
    uint64_t count = 1;
    if (rank < 0) continue;
    for (d = 0; d < rank; ++d) count *= dims[d] > 0 ? (uint64_t)dims[d] : 1;
    total += count;
  }
  return total;
}

/* Adds one node's work (a call: its body's) to the running group cost. */
static void add_node(KilnNode* node, KilnCostEstimate* out, const char** last_engine, size_t* nodes) {
  if (g_host->node_function(node)) {
    KilnGraph* body = g_host->function_body(g_host->node_function(node));
    size_t n = g_host->graph_nodes(body, NULL, 0), i;
    KilnNode** list = n ? (KilnNode**)malloc(n * sizeof(KilnNode*)) : NULL;
    if (n && !list) return;
    g_host->graph_nodes(body, list, n);
    for (i = 0; i < n; ++i) add_node(list[i], out, last_engine, nodes);
    free(list);
    return;
  }
  {
    const char* engine = op_engine(node);
    ++*nodes;
    out->seconds += kernel_seconds(engine);
    out->compute_seconds += kernel_seconds(engine);
    out->flops += output_elements(node);
    if (is(engine, "host")) return;
    if (!out->engine) out->engine = engine;
    if (*last_engine && !is(*last_engine, engine)) {
      ++out->barriers;
      out->barrier_seconds += BARRIER;
      out->seconds += BARRIER;
    }
    *last_engine = engine;
  }
}

static KilnStatus* node_engine(void* user_data, KilnNode* node, const char** out_engine) {
  ((TargetState*)user_data)->calls++;
  *out_engine = op_engine(node);
  return NULL;
}

static KilnStatus* estimate(void* user_data, KilnNode* const* nodes, size_t count, KilnCostEstimate* out) {
  const char* last = NULL;
  size_t i, total = 0;
  size_t size = out->struct_size;
  ((TargetState*)user_data)->calls++;
  if (size < KILN_STRUCT_SIZE_UNTIL(KilnCostEstimate, reason))
    return g_host->status_create(KILN_STATUS_ABI_MISMATCH, "the host's KilnCostEstimate is too small");
  memset(out, 0, size);
  out->struct_size = size;
  out->feasible = 1;
  for (i = 0; i < count; ++i) add_node(nodes[i], out, &last, &total);
  if (out->engine) { /* device work: one launch */
    out->launches = 1;
    out->launch_seconds = LAUNCH;
    out->seconds += LAUNCH;
  } else {
    out->engine = "host";
  }
  if (total > MAX_GROUP) {
    out->feasible = 0;
    out->reason = "over the 8-node buffer";
  }
  return NULL;
}

static KilnStatus* sync_cost(void* user_data, const char* from, const char* to, double* out_seconds) {
  ((TargetState*)user_data)->calls++;
  *out_seconds = ((is(from, "cube") && is(to, "vector")) || (is(from, "vector") && is(to, "cube"))) ? BARRIER : 0;
  return NULL;
}

static int known_format(const char* f) { return is(f, "ND") || is(f, "NC1HWC0"); }

static KilnStatus* transfer_cost(void* user_data, KilnValue* value, const char* from, const char* to,
                                 double* out_seconds) {
  (void)value;
  ((TargetState*)user_data)->calls++;
  if (!known_format(from) || !known_format(to))
    return g_host->status_create(KILN_STATUS_INVALID_ARGUMENT, "test_npu knows the formats ND and NC1HWC0 only");
  *out_seconds = is(from, to) ? 0 : 0.1 * US;
  return NULL;
}

static KilnStatus* preferred_format(void* user_data, KilnNode* node, int32_t is_output, size_t index,
                                    const char** out_format) {
  ((TargetState*)user_data)->calls++;
  *out_format = (!is_output && index == 0 && is(g_host->node_op_type(node), "Conv")) ? "NC1HWC0" : "ND";
  return NULL;
}

static void destroy(void* user_data) { free(user_data); }

static KilnStatus* register_plugin(const KilnHostApi* host, KilnRegistrar* registrar) {
  static const char* const engines[3] = {"cube", "vector", "host"};
  static const char* const formats[2] = {"ND", "NC1HWC0"};
  KilnOptionInfo packs = {
      .struct_size = sizeof(KilnOptionInfo),
      .name = "fusion.packs",
      .help = "test stand-in for the fusion plugin's option",
      .type = KILN_OPTION_STRING,
      .default_value = "",
  };
  KilnOptionInfo report = packs;
  KilnTargetInfo target;
  KilnStatus* s;
  TargetState* state = (TargetState*)calloc(1, sizeof(TargetState));
  if (!state) return host->status_create(KILN_STATUS_OUT_OF_MEMORY, "no memory for the target");
  report.name = "fusion.report";
  memset(&target, 0, sizeof target);
  target.struct_size = sizeof target;
  target.name = "test_npu";
  target.description = "A test NPU: cube and vector engines, a cost model to check by hand";
  target.engines = engines;
  target.engine_count = 3;
  target.formats = formats;
  target.format_count = 2;
  target.details_json = "{\"kernel_us\": {\"cube\": 2, \"vector\": 1}, \"launch_us\": 0.5, \"barrier_us\": 0.25}";
  target.user_data = state;
  target.node_engine = node_engine;
  target.estimate = estimate;
  target.sync_cost = sync_cost;
  target.transfer_cost = transfer_cost;
  target.preferred_format = preferred_format;
  target.destroy_user_data = destroy;
  if ((s = host->register_target(registrar, &target))) {
    free(state); /* refused: the host keeps nothing and never calls destroy */
    return s;
  }
  if ((s = host->register_option(registrar, &packs))) return s;
  return host->register_option(registrar, &report);
}

static const KilnPluginDescriptor kDescriptor = {
    .struct_size = sizeof(KilnPluginDescriptor),
    .abi_version = KILN_ABI_VERSION,
    .name = "test_target",
    .version = "1.0.0",
    .register_plugin = register_plugin,
    .description = "The test_npu target (two engines and a host) and stand-ins for fusion.packs and fusion.report",
};

KILN_PLUGIN_EXPORT KilnStatus* kiln_plugin_entry(const KilnHostApi* host, uint32_t host_abi_version,
                                                 const KilnPluginDescriptor** out_descriptor) {
  (void)host_abi_version;
  g_host = host;
  *out_descriptor = &kDescriptor;
  return NULL;
}
