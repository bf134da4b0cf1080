/* Loader test plugin of a newer minor version than the host: it reports ABI 1.99 and hands the host a descriptor,
   a KilnPassInfo and a KilnOptionInfo larger than the host's, as a 1.99 header would make them. The fields after
   the current header's are set to garbage: addresses no process maps, and bits no host defines, so a host that
   reads, calls or follows anything past what it knows crashes or misbehaves here. The host must load it,
   negotiate its own minor, and run NewerMinorPass, a node pass that changes nothing and records as counters:
     visits            nodes visited
     finish_calls      on_finish_graph calls (a field the host knows, inside the larger struct), one per graph
                       walked; the rest are counted when the main graph finishes:
     limit             its own int option `limit` (default 3), read with pass_option_int
     host_minor        the minor version of the host's table
     host_lacks_future 1 when the host's table ends before a slot a 1.99 header would have (the plugin must not
                       call it) */
#include <kiln/kiln_plugin.h>

#include <stdint.h>

#define KILN_TEST_GARBAGE_ADDRESS ((uintptr_t)0xDEADBEEFDEADBEEFu) /* non-canonical on x86-64: never mapped */
#define KILN_TEST_GARBAGE_BITS 0xA5A5A5A5A5A5A5A5u

/* What 1.99 appends to each struct, as far as this test imagines it. */
typedef KilnStatus* (*FutureCallbackFn)(const KilnHostApi* host);

typedef struct FutureDescriptor {
  KilnPluginDescriptor base;
  const char* future_text;
  FutureCallbackFn future_callback;
  uint64_t future_bits;
} FutureDescriptor;

typedef struct FuturePassInfo {
  KilnPassInfo base;
  KilnRunOnGraphFn future_hook;
  const char* future_text;
  uint64_t future_bits;
} FuturePassInfo;

typedef struct FutureOptionInfo {
  KilnOptionInfo base;
  const char* future_text;
  uint64_t future_bits;
} FutureOptionInfo;

/* The end of a slot a 1.99 table would have after the current header's last one. */
#define KILN_TEST_FUTURE_SLOT_END (sizeof(KilnHostApi) + sizeof(void (*)(void)))

static const KilnHostApi* g_host;

static KilnStatus* run_on_node(void* user_data, KilnPassContext* ctx, KilnNode* node) {
  (void)user_data;
  (void)node;
  g_host->pass_add_counter(ctx, "visits", 1);
  return NULL;
}

static KilnStatus* on_finish_graph(void* user_data, KilnPassContext* ctx, KilnGraph* graph) {
  int64_t limit = 0;
  KilnStatus* s;
  (void)user_data;
  g_host->pass_add_counter(ctx, "finish_calls", 1);
  if (g_host->graph_parent_node(graph)) return NULL;
  if ((s = g_host->pass_option_int(ctx, "limit", &limit))) return s;
  g_host->pass_add_counter(ctx, "limit", limit);
  g_host->pass_add_counter(ctx, "host_minor", (int64_t)KILN_ABI_VERSION_GET_MINOR(g_host->abi_version));
  g_host->pass_add_counter(ctx, "host_lacks_future", g_host->struct_size < KILN_TEST_FUTURE_SLOT_END);
  return NULL;
}

static KilnStatus* register_plugin(const KilnHostApi* host, KilnRegistrar* registrar) {
  static const FutureOptionInfo limit = {
      .base =
          {
              .struct_size = sizeof(FutureOptionInfo),
              .name = "limit",
              .help = "a number the pass reports",
              .type = KILN_OPTION_INT,
              .default_value = "3",
          },
      .future_text = (const char*)KILN_TEST_GARBAGE_ADDRESS,
      .future_bits = KILN_TEST_GARBAGE_BITS,
  };
  static const KilnOptionInfo* const options[1] = {&limit.base};
  FuturePassInfo pass = {
      .base =
          {
              .struct_size = sizeof(FuturePassInfo),
              .kind = KILN_PASS_NODE,
              .name = "NewerMinorPass",
              .description = "counts nodes (a plugin built for ABI 1.99)",
              .options = options,
              .option_count = 1,
              .run_on_node = run_on_node,
              .on_finish_graph = on_finish_graph,
              .preserved_analyses = KILN_ANALYSIS_ALL, /* it changes nothing */
          },
      .future_hook = (KilnRunOnGraphFn)KILN_TEST_GARBAGE_ADDRESS,
      .future_text = (const char*)KILN_TEST_GARBAGE_ADDRESS,
      .future_bits = KILN_TEST_GARBAGE_BITS,
  };
  return host->register_pass(registrar, &pass.base);
}

static const FutureDescriptor kDescriptor = {
    .base =
        {
            .struct_size = sizeof(FutureDescriptor),
            .abi_version = KILN_MAKE_ABI_VERSION(1, 99),
            .name = "newer_minor",
            .version = "1.99.0",
            .register_plugin = register_plugin,
            .description = "a plugin built for ABI 1.99",
        },
    .future_text = (const char*)KILN_TEST_GARBAGE_ADDRESS,
    .future_callback = (FutureCallbackFn)KILN_TEST_GARBAGE_ADDRESS,
    .future_bits = KILN_TEST_GARBAGE_BITS,
};

KILN_PLUGIN_EXPORT KilnStatus* kiln_plugin_entry(const KilnHostApi* host, uint32_t host_abi_version,
                                                 const KilnPluginDescriptor** out_descriptor) {
  if (KILN_ABI_VERSION_GET_MAJOR(host_abi_version) != 1)
    return host->status_create(KILN_STATUS_ABI_MISMATCH, "newer_minor_plugin: not a 1.x host");
  g_host = host;
  *out_descriptor = &kDescriptor.base;
  return NULL;
}
