/* Loader test plugin built against the frozen ABI 1.1 header (tests/sdk/abi_v1_1), not the current one: its
   descriptor and KilnPassInfo are the 1.1 sizes (with description and on_finish_graph, without 1.2's
   preserved_analyses), and it calls the 1.1 subgraph slots after checking KILN_HOST_HAS. A newer host must load
   it, negotiate 1.1, and never read past its structs.

   V1_1ProbePass, a node pass that changes nothing, records what it saw as counters:
     visits            nodes visited (the walk enters subgraphs too)
     nested_visits     of those, nodes inside a subgraph (graph_parent_node of their graph is not NULL)
     outer_reads       inputs of nested nodes defined in an outer graph (value_graph is not the node's graph)
     subgraphs         node_subgraph_count summed over the nodes
     parents_ok        subgraphs whose graph_parent_node is the node that owns them
     attr_graphs_ok    subgraphs that attr_graph of their attribute (by the name node_subgraph gave) returns
     branch_names_ok   If subgraphs named then_branch (index 0) and else_branch (index 1)
     subgraph_nodes    graph_node_count summed over the subgraphs
     finish_calls      on_finish_graph calls (one per graph walked: each subgraph's, then the main graph's);
                       finish_on_main: those given the main graph
     host_minor        the minor version of the host's table (counted when the main graph finishes)
     no_subgraph_slots 1 when the host's table lacks the 1.1 slots (then nothing above but visits is counted) */
#include <kiln/kiln_plugin.h>

#include <string.h>

#if KILN_ABI_VERSION_MAJOR != 1 || KILN_ABI_VERSION_MINOR != 1
#error "v1_1_plugin must build against the frozen 1.1 header"
#endif

static const KilnHostApi* g_host;

static KilnStatus* run_on_node(void* user_data, KilnPassContext* ctx, KilnNode* node) {
  const KilnHostApi* h = g_host;
  KilnGraph* graph;
  size_t i, count;
  (void)user_data;
  h->pass_add_counter(ctx, "visits", 1);
  if (!KILN_HOST_HAS(h, node_inline_subgraph)) {
    h->pass_add_counter(ctx, "no_subgraph_slots", 1);
    return NULL;
  }
  graph = h->node_graph(node);
  if (h->graph_parent_node(graph)) {
    h->pass_add_counter(ctx, "nested_visits", 1);
    for (i = 0; i < h->node_input_count(node); ++i) {
      KilnValue* input = h->node_input(node, i);
      if (input && h->value_graph(input) != graph) h->pass_add_counter(ctx, "outer_reads", 1);
    }
  }
  count = h->node_subgraph_count(node);
  h->pass_add_counter(ctx, "subgraphs", (int64_t)count);
  for (i = 0; i < count; ++i) {
    const char* attr_name = NULL;
    KilnGraph* sub = h->node_subgraph(node, i, &attr_name);
    const KilnAttribute* attr = attr_name ? h->node_attribute(node, attr_name) : NULL;
    if (h->graph_parent_node(sub) == node) h->pass_add_counter(ctx, "parents_ok", 1);
    if (attr && h->attr_graph(attr) == sub) h->pass_add_counter(ctx, "attr_graphs_ok", 1);
    if (attr_name && strcmp(h->node_op_type(node), "If") == 0 &&
        strcmp(attr_name, i == 0 ? "then_branch" : "else_branch") == 0)
      h->pass_add_counter(ctx, "branch_names_ok", 1);
    h->pass_add_counter(ctx, "subgraph_nodes", (int64_t)h->graph_node_count(sub));
  }
  return NULL;
}

static KilnStatus* on_finish_graph(void* user_data, KilnPassContext* ctx, KilnGraph* graph) {
  (void)user_data;
  g_host->pass_add_counter(ctx, "finish_calls", 1);
  if (KILN_HOST_HAS(g_host, graph_parent_node) && !g_host->graph_parent_node(graph)) {
    g_host->pass_add_counter(ctx, "finish_on_main", 1);
    g_host->pass_add_counter(ctx, "host_minor", (int64_t)KILN_ABI_VERSION_GET_MINOR(g_host->abi_version));
  }
  return NULL;
}

static KilnStatus* register_plugin(const KilnHostApi* host, KilnRegistrar* registrar) {
  /* The bytes after the 1.1 struct are all ones, where 1.2 has preserved_analyses and reserved1: a host that
     read them from this struct would see bits no version defines. */
  struct {
    KilnPassInfo info;
    uint32_t after[2];
  } pass = {
      .info =
          {
              .struct_size = sizeof(KilnPassInfo),
              .kind = KILN_PASS_NODE,
              .name = "V1_1ProbePass",
              .description = "records what the 1.1 subgraph slots say (a plugin built against ABI 1.1)",
              .run_on_node = run_on_node,
              .on_finish_graph = on_finish_graph,
          },
      .after = {0xFFFFFFFFu, 0xFFFFFFFFu},
  };
  return host->register_pass(registrar, &pass.info);
}

static const KilnPluginDescriptor kDescriptor = {
    .struct_size = sizeof(KilnPluginDescriptor),
    .abi_version = KILN_ABI_VERSION,
    .name = "v1_1_probe",
    .version = "1.1.0",
    .register_plugin = register_plugin,
    .description = "a plugin built against ABI 1.1",
};

KILN_PLUGIN_EXPORT KilnStatus* kiln_plugin_entry(const KilnHostApi* host, uint32_t host_abi_version,
                                                 const KilnPluginDescriptor** out_descriptor) {
  if (host->struct_size < KILN_HOST_API_SIZE_1_0)
    return host->status_create(KILN_STATUS_ABI_MISMATCH, "v1_1_plugin: host table smaller than ABI 1.0");
  if (host_abi_version != host->abi_version)
    return host->status_create(KILN_STATUS_ABI_MISMATCH, "v1_1_plugin: the host's two versions differ");
  g_host = host;
  *out_descriptor = &kDescriptor;
  return NULL;
}
