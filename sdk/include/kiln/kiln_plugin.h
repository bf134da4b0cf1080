/*
 * kiln_plugin.h - the stable C ABI between the Kiln host and its plugins.
 *
 * A plugin is a shared library that exports one function, kiln_plugin_entry, whose name and signature never
 * change. Loading goes in two steps, so that a plugin built for another major version is refused before anything
 * of it runs beyond its entry:
 *
 *   1. The host calls kiln_plugin_entry(host, KILN_ABI_VERSION, &descriptor). The plugin stores a pointer to its
 *      descriptor (static storage: name, version, the ABI version it was built against, its register function)
 *      and returns NULL. The entry may call status_create, log and log_enabled only.
 *   2. The host checks the descriptor: the majors must be equal (else an error naming both versions); the
 *      negotiated minor is the smaller of the two (a plugin newer than the host loads too, and must not call
 *      slots the host lacks). Only then does it call descriptor->register_plugin(host, registrar), in which the
 *      plugin registers passes, kernels, schemas, rule packs, targets and options through the host table.
 *
 * Compatibility rules (learned from ONNX Runtime's OrtApi/OrtCustomOp, Vulkan's loader negotiation, DLPack, LLVM's
 * llvmGetPassPluginInfo):
 *   - Every struct that crosses the boundary starts with `size_t struct_size`, set by whoever fills the struct to
 *     sizeof() as it was compiled. Fields are only ever appended. A reader never reads a field that struct_size
 *     does not cover (KILN_STRUCT_HAS_FIELD); the host refuses a struct smaller than its first version (the
 *     KILN_*_SIZE_1_0 constants). Arrays of extensible structs are passed as arrays of pointers, never by value.
 *   - The host function table, KilnHostApi, also only grows at its end. A plugin calls a slot added after 1.0 only
 *     when KILN_HOST_HAS(host, slot) says the running host has it. The host reads and calls only what the
 *     plugin's struct_size and ABI version cover.
 *   - Frozen across every major version: this entry signature; KilnHostApi up to and including status_create;
 *     KilnPluginDescriptor up to and including `version`. That is what lets a host name a wrong-major plugin.
 *   - No C++ exception, no C++ type and no memory freed on the other side's heap crosses. Fallible calls return a
 *     KilnStatus* that the host allocates (status_create); NULL means success. A status returned to the plugin by a
 *     host call belongs to the plugin, which either returns it from its callback (giving it back) or releases it
 *     with status_release. A status a plugin callback returns belongs to the host from then on.
 *   - Plugins never print: they log through the host (log), which lands in the host's logger.
 *
 * Lifetimes and threads: handles (KilnGraph, KilnNode, ...) given to a callback, and every string, array and
 * tensor view the host returns, stay valid until the callback returns or the object they describe is modified or
 * deleted, whichever comes first; the table itself stays valid while the plugin is loaded. Host functions may be
 * called only from the thread that called into the plugin, and only while that call lasts. The host calls one
 * registration's callbacks from one thread at a time (kernels may opt out: KILN_KERNEL_THREAD_SAFE).
 *
 * Counts and indexes are size_t; element types are ONNX TensorProto.DataType numbers; attribute types are ONNX
 * AttributeProto.AttributeType numbers; dimensions are int64_t, with -1 for a dimension that is not a known number
 * (it may have a symbol name instead). Strings are UTF-8 and NUL-terminated unless a size is passed with them.
 *
 * Version history:
 *   1.0  the base ABI.
 *   1.1  KilnPluginDescriptor.description; KilnPassInfo.on_finish_graph (the after-walk hook); the subgraph slots
 *        at the end of KilnHostApi (node_subgraph_count, node_subgraph, attr_graph, graph_parent_node, value_graph,
 *        node_inline_subgraph).
 *   1.2  the model (opset imports, metadata), model-local functions (create, read, outline, inline, remove),
 *        initializer enumeration, graph inputs and outputs, GRAPH/GRAPHS/TENSORS and reference attributes, node and
 *        value renaming, stable node ids, annotations that survive export, host analyses (cached topological
 *        order, dominator and post-dominator trees, reachability and convexity), structured report entries,
 *        the fusion rule packs other plugins registered; KilnPassInfo.preserved_analyses.
 *   1.3  hardware targets: KilnTargetInfo's engines, cost, barrier, format and description callbacks
 *        (KilnCostEstimate), and the host slots that forward any pass's question to the active target
 *        (target_active .. target_preferred_format); host_config_dir; node_call_instance (a call's body typed
 *        for that call).
 *   1.4  value_shape_data: what shape inference computed of an integer tensor made from shapes.
 *   1.5  graph_set_node_order: a pass chooses the order in which export writes a graph's nodes (a schedule).
 *   1.6  storage shapes: KilnTargetInfo.storage_shape and target_storage_shape, the dims a value takes stored in
 *        a target's format (GE's StorageShape: NC1HWC0 of an NCHW value is N, C1, H, W, C0).
 *   1.7  deferred target descriptions: KilnTargetInfo.describe, so a plugin reading its targets from files
 *        registers their names and reads a file only when its target is first used or listed.
 *   1.8  value_constant_bytes: a constant's bytes where the host keeps them, never copied (a weight borrowed from
 *        the model file may be misaligned for its type; value_constant_data copies such a weight once to align it),
 *        and KILN_KERNEL_ANY_ALIGNMENT, a kernel that takes such bytes as they are (node_compute's inputs may sit
 *        at any address).
 *   1.9  KilnPassInfo.prepare: called when a compile's pipeline is set, before the model is read, so a pass can
 *        start work that needs no model (reading its own files) on a thread of its own while the host loads.
 *   1.10 computed constants: graph_create_computed_constant, a constant whose bytes a plugin callback makes when
 *        they are first needed (writing the model streams them to the file a piece at a time, so a pass that
 *        rewrites a large weight never holds the new bytes whole), and value_constant_read, a range of a constant's
 *        bytes (only that range of a computed one is made).
 *   1.11 stored_bytes_read: copies stored bytes the host handed out, reading them from the model file where they
 *        lie in its mapping (a computed constant that reads each source byte once goes several times faster).
 *   1.12 KilnPassInfo.op_types: the op types a node pass can change; the host calls it on nodes of those types
 *        only (most rewrites match one or two op types, and a call per node per pass was a tenth of a compile).
 *   1.13 pass_checkpoint: a graph pass lets the host keep its changes so far and free the nodes and values they
 *        removed, which the host otherwise holds until the call ends to undo a failure (a fusion of a 1M-node
 *        graph held 400 MB of them).
 *
 * This header compiles as C99 and as C++.
 */
#ifndef KILN_PLUGIN_H_
#define KILN_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------------------------
 * Versions, export macro, struct-size helpers
 * ------------------------------------------------------------------------------------------------------------- */

#define KILN_ABI_VERSION_MAJOR 1
#define KILN_ABI_VERSION_MINOR 13
/* Casts that C++ code compiled with -Wold-style-cast also accepts. */
#ifdef __cplusplus
#define KILN_U32_(x) static_cast<uint32_t>(x)
#define KILN_NULL_OF_(type) static_cast<type*>(nullptr)
#else
#define KILN_U32_(x) ((uint32_t)(x))
#define KILN_NULL_OF_(type) ((type*)0)
#endif

/** An ABI version packed in a uint32_t: major in the high 16 bits, minor in the low 16. */
#define KILN_MAKE_ABI_VERSION(major, minor) ((KILN_U32_(major) << 16) | (KILN_U32_(minor) & 0xFFFFu))
#define KILN_ABI_VERSION_GET_MAJOR(version) (KILN_U32_(version) >> 16)
#define KILN_ABI_VERSION_GET_MINOR(version) (KILN_U32_(version) & 0xFFFFu)
/** The version this header describes. */
#define KILN_ABI_VERSION KILN_MAKE_ABI_VERSION(KILN_ABI_VERSION_MAJOR, KILN_ABI_VERSION_MINOR)
#define KILN_ABI_VERSION_1_0 KILN_MAKE_ABI_VERSION(1, 0)
#define KILN_ABI_VERSION_1_1 KILN_MAKE_ABI_VERSION(1, 1)
#define KILN_ABI_VERSION_1_2 KILN_MAKE_ABI_VERSION(1, 2)
#define KILN_ABI_VERSION_1_3 KILN_MAKE_ABI_VERSION(1, 3)
#define KILN_ABI_VERSION_1_4 KILN_MAKE_ABI_VERSION(1, 4)
#define KILN_ABI_VERSION_1_5 KILN_MAKE_ABI_VERSION(1, 5)
#define KILN_ABI_VERSION_1_6 KILN_MAKE_ABI_VERSION(1, 6)
#define KILN_ABI_VERSION_1_7 KILN_MAKE_ABI_VERSION(1, 7)
#define KILN_ABI_VERSION_1_8 KILN_MAKE_ABI_VERSION(1, 8)
#define KILN_ABI_VERSION_1_9 KILN_MAKE_ABI_VERSION(1, 9)
#define KILN_ABI_VERSION_1_10 KILN_MAKE_ABI_VERSION(1, 10)
#define KILN_ABI_VERSION_1_11 KILN_MAKE_ABI_VERSION(1, 11)
#define KILN_ABI_VERSION_1_12 KILN_MAKE_ABI_VERSION(1, 12)
#define KILN_ABI_VERSION_1_13 KILN_MAKE_ABI_VERSION(1, 13)

/** The name of the entry symbol, for the loader. */
#define KILN_PLUGIN_ENTRY_SYMBOL "kiln_plugin_entry"

#if defined(_WIN32)
#define KILN_PLUGIN_VISIBILITY __declspec(dllexport)
#else
#define KILN_PLUGIN_VISIBILITY __attribute__((visibility("default")))
#endif
/** Marks the entry definition: C linkage, exported even when the plugin builds with hidden visibility. */
#ifdef __cplusplus
#define KILN_PLUGIN_EXPORT extern "C" KILN_PLUGIN_VISIBILITY
#else
#define KILN_PLUGIN_EXPORT KILN_PLUGIN_VISIBILITY
#endif

/** The bytes of `type` up to and including `field` (what a struct_size must reach for `field` to exist). */
#define KILN_STRUCT_SIZE_UNTIL(type, field) (offsetof(type, field) + sizeof(KILN_NULL_OF_(type)->field))
/** Non-zero when the struct at `ptr` (of C type `type`) is large enough to hold `field`. */
#define KILN_STRUCT_HAS_FIELD(ptr, type, field) ((ptr)->struct_size >= KILN_STRUCT_SIZE_UNTIL(type, field))
/** Non-zero when the host table `host` has `slot`; check before calling a slot added after 1.0. */
#define KILN_HOST_HAS(host, slot) KILN_STRUCT_HAS_FIELD(host, KilnHostApi, slot)

/* ---------------------------------------------------------------------------------------------------------------
 * Enumerations. Fields and parameters use fixed-width integer types; these are their values.
 * ------------------------------------------------------------------------------------------------------------- */

/** Status codes (KilnStatusCode). */
typedef int32_t KilnStatusCode;
enum {
  KILN_STATUS_OK = 0,                  /**< only ever reported for a NULL status */
  KILN_STATUS_FAILED = 1,              /**< a failure with no more specific code */
  KILN_STATUS_INVALID_ARGUMENT = 2,    /**< a NULL, out-of-range or ill-typed argument */
  KILN_STATUS_NOT_FOUND = 3,           /**< a name (option, attribute, value) that does not exist */
  KILN_STATUS_UNSUPPORTED = 4,         /**< a kernel cannot handle this case: the host tries the next level */
  KILN_STATUS_FAILED_PRECONDITION = 5, /**< the graph is not in a state that allows the call */
  KILN_STATUS_OUT_OF_RANGE = 6,        /**< an index past the end */
  KILN_STATUS_ABI_MISMATCH = 7,        /**< incompatible ABI versions or struct sizes */
  KILN_STATUS_OUT_OF_MEMORY = 8,       /**< an allocation failed or a size is over the host's limits */
  KILN_STATUS_INTERNAL = 9,            /**< a bug, or an exception caught at the boundary */
  /** since 1.3: the user's configuration is wrong (a file an option names does not parse, say). A pass failing
      with it stops the compile with exit code 3 (its changes rolled back), --strict or not. */
  KILN_STATUS_CONFIG_ERROR = 10
};

/** Log levels (KilnLogLevel), mapped onto the host's logger. */
typedef int32_t KilnLogLevel;
enum { KILN_LOG_TRACE = 0, KILN_LOG_DEBUG = 1, KILN_LOG_INFO = 2, KILN_LOG_WARN = 3, KILN_LOG_ERROR = 4 };

/** Tensor element types: ONNX TensorProto.DataType. Newer ONNX numbers pass through unchanged. */
enum {
  KILN_ELEM_UNDEFINED = 0,
  KILN_ELEM_FLOAT = 1,
  KILN_ELEM_UINT8 = 2,
  KILN_ELEM_INT8 = 3,
  KILN_ELEM_UINT16 = 4,
  KILN_ELEM_INT16 = 5,
  KILN_ELEM_INT32 = 6,
  KILN_ELEM_INT64 = 7,
  KILN_ELEM_STRING = 8, /**< data is an array of KilnString */
  KILN_ELEM_BOOL = 9,   /**< one byte per element, 0 or 1 */
  KILN_ELEM_FLOAT16 = 10,
  KILN_ELEM_DOUBLE = 11,
  KILN_ELEM_UINT32 = 12,
  KILN_ELEM_UINT64 = 13,
  KILN_ELEM_COMPLEX64 = 14,
  KILN_ELEM_COMPLEX128 = 15,
  KILN_ELEM_BFLOAT16 = 16
};

/** Attribute types: ONNX AttributeProto.AttributeType. */
enum {
  KILN_ATTR_UNDEFINED = 0,
  KILN_ATTR_FLOAT = 1,
  KILN_ATTR_INT = 2,
  KILN_ATTR_STRING = 3,
  KILN_ATTR_TENSOR = 4,
  KILN_ATTR_GRAPH = 5,
  KILN_ATTR_FLOATS = 6,
  KILN_ATTR_INTS = 7,
  KILN_ATTR_STRINGS = 8,
  KILN_ATTR_TENSORS = 9,
  KILN_ATTR_GRAPHS = 10,
  KILN_ATTR_SPARSE_TENSOR = 11,
  KILN_ATTR_SPARSE_TENSORS = 12,
  KILN_ATTR_TYPE_PROTO = 13,
  KILN_ATTR_TYPE_PROTOS = 14
};

/** What a value holds (ONNX TypeProto's cases). NONE: no value (an empty slot) or a type not known. */
enum {
  KILN_TYPE_KIND_NONE = 0,
  KILN_TYPE_KIND_TENSOR = 1,
  KILN_TYPE_KIND_SEQUENCE = 2,
  KILN_TYPE_KIND_OPTIONAL = 3,
  KILN_TYPE_KIND_MAP = 4,
  KILN_TYPE_KIND_SPARSE_TENSOR = 5
};

/** KilnPassInfo.kind. */
enum { KILN_PASS_NODE = 1, KILN_PASS_GRAPH = 2 };

/** KilnOptionInfo.type. */
enum { KILN_OPTION_BOOL = 1, KILN_OPTION_INT = 2, KILN_OPTION_FLOAT = 3, KILN_OPTION_STRING = 4 };

/** KilnOptionInfo.scopes bits: where an option may be set. 0 means everywhere. */
enum { KILN_OPTION_SCOPE_CLI = 1, KILN_OPTION_SCOPE_SESSION = 2, KILN_OPTION_SCOPE_GRAPH = 4 };

/** KilnKernelInfo.flags bits. */
enum {
  KILN_KERNEL_NONDETERMINISTIC = 1, /**< results vary between runs (random ops): never used for folding */
  KILN_KERNEL_THREAD_SAFE = 2,      /**< compute may run on several threads at once (else one at a time) */
  /** since 1.8: compute copies its inputs' elements out wherever they sit (memcpy, data movement), so the host may
      hand it a constant's stored bytes (value_constant_bytes), misaligned for their type, instead of an aligned
      copy. Without it every input view is aligned for its element type. */
  KILN_KERNEL_ANY_ALIGNMENT = 4
};

/** node_compute flags bits. */
enum {
  KILN_COMPUTE_BUILTIN_ONLY = 1,     /**< only the host's built-in kernels (level two) */
  KILN_COMPUTE_DETERMINISTIC_ONLY = 2 /**< skip kernels flagged KILN_KERNEL_NONDETERMINISTIC */
};

/** value_consumer's input index for a node that reads the value inside one of its subgraphs. */
#define KILN_IMPLICIT_INPUT SIZE_MAX

/** Host analyses (since 1.2): bits of KilnPassInfo.preserved_analyses, the analyses a pass keeps valid. */
enum {
  KILN_ANALYSIS_TOPO_ORDER = 1,      /**< graph_topo_order, node_topo_index */
  KILN_ANALYSIS_DOMINATORS = 2,      /**< node_idom, node_dominates */
  KILN_ANALYSIS_POST_DOMINATORS = 4, /**< node_ipostdom, node_postdominates */
  KILN_ANALYSIS_REACHABILITY = 8,    /**< node_reaches, nodes_are_convex */
  KILN_ANALYSIS_ALL = 15
};

/** KilnOutlineInfo.flags bits (since 1.2). */
enum {
  /** Values the group computes that are read outside it, beyond KilnOutlineInfo.outputs, become extra outputs of
      the call (else the outline is refused, naming the value and its reader). */
  KILN_OUTLINE_ALLOW_EXTRA_OUTPUTS = 1,
  /** Reuse a function of the same domain whose body, inputs, outputs and attributes are structurally equal (only
      names may differ) instead of adding a new one: one body for every call of the same shape of group. */
  KILN_OUTLINE_REUSE_BODY = 2,
  /** Every attribute of the outlined nodes (but GRAPH/GRAPHS) becomes a function attribute that the body refers
      to (ref_attr_name) and the call sets, so groups that differ only in attribute values share one body. */
  KILN_OUTLINE_ATTRIBUTES_BY_REFERENCE = 4,
  /** The caller has checked that the set is convex (and, outlining several groups, that they create no cycle
      together), so the host skips its own check, which costs a walk of the graph unless the topological order is
      cached and current. The host still checks the graph for cycles once when the callback returns, and fails
      the callback (rolling it back) if one was made. */
  KILN_OUTLINE_ASSUME_CONVEX = 8
};

/** The prefix of Kiln's temporary marks: attributes and annotation keys starting with it never reach the output
    (since 1.2 the exporter strips them by this prefix alone). */
#define KILN_TEMPORARY_MARK_PREFIX "__kiln_"
/** The model metadata_props key under which annotations are written (a JSON object; see node_set_annotation). */
#define KILN_ANNOTATIONS_METADATA_KEY "kiln.annotations"

/* ---------------------------------------------------------------------------------------------------------------
 * Opaque handles. All are owned by the host; a plugin never frees one except through the slot named for it.
 * ------------------------------------------------------------------------------------------------------------- */

typedef struct KilnStatus KilnStatus;                 /**< an error: code and message (status_*) */
typedef struct KilnRegistrar KilnRegistrar;           /**< valid only during register_plugin */
typedef struct KilnGraph KilnGraph;                   /**< a graph or a subgraph */
typedef struct KilnNode KilnNode;                     /**< a node of a graph */
typedef struct KilnValue KilnValue;                   /**< an edge: graph input, constant or node output */
typedef struct KilnAttribute KilnAttribute;           /**< a node's attribute, read-only */
typedef struct KilnPassContext KilnPassContext;       /**< one pass run: re-pass requests, counters, options */
typedef struct KilnKernelContext KilnKernelContext;   /**< one kernel call: inputs, outputs, attributes */
typedef struct KilnShapeContext KilnShapeContext;     /**< one shape-inference call of a custom op */
typedef struct KilnComputeResult KilnComputeResult;   /**< outputs of node_compute; release when done */
typedef struct KilnModel KilnModel;                   /**< the model a graph belongs to (since 1.2) */
typedef struct KilnFunction KilnFunction;             /**< a model-local function (since 1.2) */

typedef struct KilnHostApi KilnHostApi;

/* ---------------------------------------------------------------------------------------------------------------
 * Plain data that crosses
 * ------------------------------------------------------------------------------------------------------------- */

/** A byte string with its size (may hold NUL bytes). Frozen: no struct_size, never extended. */
typedef struct KilnString {
  const char* data; /**< not necessarily NUL-terminated */
  uint64_t size;    /**< bytes at data */
} KilnString;

/**
 * A dense tensor in row-major (C) order with native byte order, as DLPack describes one. Views returned by the
 * host for constants and attributes are read-only (do not write through data); views from kernel_alloc_output,
 * kernel_alloc_sequence_element and graph_create_constant are for the plugin to fill.
 */
typedef struct KilnTensorView {
  size_t struct_size;  /**< sizeof(KilnTensorView) of whoever filled it */
  int32_t elem_type;   /**< ONNX TensorProto.DataType (KILN_ELEM_*) */
  uint32_t rank;       /**< number of dimensions; 0 for a scalar */
  const int64_t* dims; /**< rank dimensions, each >= 0; may be NULL when rank is 0 */
  void* data;          /**< the elements; KilnString[] for KILN_ELEM_STRING; may be NULL when byte_size is 0 */
  uint64_t byte_size;  /**< bytes at data: element count times element size (sizeof(KilnString) for strings) */
} KilnTensorView;

/** Bytes per element of a fixed-size element type; 0 for UNDEFINED and for types this header does not know. */
static inline size_t kiln_elem_type_size(int32_t elem_type) {
  switch (elem_type) {
    case KILN_ELEM_UINT8: case KILN_ELEM_INT8: case KILN_ELEM_BOOL: return 1;
    case KILN_ELEM_UINT16: case KILN_ELEM_INT16: case KILN_ELEM_FLOAT16: case KILN_ELEM_BFLOAT16: return 2;
    case KILN_ELEM_FLOAT: case KILN_ELEM_INT32: case KILN_ELEM_UINT32: return 4;
    case KILN_ELEM_INT64: case KILN_ELEM_UINT64: case KILN_ELEM_DOUBLE: case KILN_ELEM_COMPLEX64: return 8;
    case KILN_ELEM_COMPLEX128: return 16;
    case KILN_ELEM_STRING: return sizeof(KilnString);
    default: return 0;
  }
}

/* ---------------------------------------------------------------------------------------------------------------
 * The plugin descriptor and the entry point
 * ------------------------------------------------------------------------------------------------------------- */

/** Registers everything the plugin provides, through host's register_* slots; called once, after the checks. */
typedef KilnStatus* (*KilnRegisterPluginFn)(const KilnHostApi* host, KilnRegistrar* registrar);

/** What the entry hands back. Owned by the plugin (static storage); the host copies it when the entry returns. */
typedef struct KilnPluginDescriptor {
  size_t struct_size;   /**< sizeof(KilnPluginDescriptor) as the plugin compiled it */
  uint32_t abi_version; /**< KILN_ABI_VERSION the plugin was built against */
  uint32_t reserved0;   /**< 0 */
  const char* name;     /**< unique plugin name, e.g. "folding" */
  const char* version;  /**< the plugin's own version, e.g. "1.2.0" */
  /* --- end of the part frozen across major versions --- */
  KilnRegisterPluginFn register_plugin; /**< required */
  /* --- since 1.1 --- */
  const char* description; /**< one line for `kiln plugins`; may be NULL */
} KilnPluginDescriptor;

/**
 * The entry, exported by every plugin under this name. host: the host's function table (its abi_version equals
 * host_abi_version). host_abi_version: the KILN_ABI_VERSION the host was built with. out_descriptor: receives a
 * pointer to the plugin's descriptor. Returns NULL, or a status from host->status_create to refuse loading.
 */
typedef KilnStatus* (*KilnPluginEntryFn)(const KilnHostApi* host, uint32_t host_abi_version,
                                         const KilnPluginDescriptor** out_descriptor);
KILN_PLUGIN_EXPORT KilnStatus* kiln_plugin_entry(const KilnHostApi* host, uint32_t host_abi_version,
                                                 const KilnPluginDescriptor** out_descriptor);

/* ---------------------------------------------------------------------------------------------------------------
 * Registrations. The host copies every string and array it is given during the register_* call; only user_data
 * and the callbacks are kept. On success the host owns user_data and calls destroy_user_data(user_data) once,
 * before the library is unloaded; on failure it keeps nothing and never calls destroy_user_data.
 * ------------------------------------------------------------------------------------------------------------- */

/** An option, registered by itself (register_option) or as a pass's own option (KilnPassInfo.options). */
typedef struct KilnOptionInfo {
  size_t struct_size;  /**< sizeof(KilnOptionInfo) */
  const char* name;    /**< full name ("oo.constantFolding"); a pass's own option: its short name */
  const char* help;    /**< one or two sentences for `kiln options` */
  int32_t type;        /**< KILN_OPTION_* */
  int32_t min_level;   /**< lowest OO level (0..3) at which it is active; active at every higher level too */
  const char* default_value; /**< in text form, parsed as the CLI parses it ("true", "8", "0.5", "Balanced") */
  const char* const* allowed_values; /**< the only values accepted; NULL when any value of the type goes */
  size_t allowed_value_count;
  const char* const* level_defaults; /**< per OO level (index 0..3) a default overriding default_value; NULL
                                          array or NULL entries fall back to default_value */
  size_t level_default_count;
  uint32_t scopes;    /**< KILN_OPTION_SCOPE_* bits; 0 = may be set anywhere */
  uint32_t reserved0; /**< 0 */
} KilnOptionInfo;

/**
 * Pass callbacks. user_data: KilnPassInfo.user_data. ctx: this run's context. A callback mutates the graph only
 * through the host; the host tracks what changed, and rolls a failed pass's changes back.
 */
typedef KilnStatus* (*KilnRunOnNodeFn)(void* user_data, KilnPassContext* ctx, KilnNode* node);
typedef KilnStatus* (*KilnRunOnGraphFn)(void* user_data, KilnPassContext* ctx, KilnGraph* graph);
typedef void (*KilnDestroyFn)(void* user_data);
/** KilnPassInfo.prepare (since 1.9). */
typedef KilnStatus* (*KilnPreparePassFn)(void* user_data);
/** graph_create_computed_constant's callback (since 1.10): writes bytes [offset, offset + size) of the constant to
    `out` (aligned for the element type), reading the sources' stored bytes (as value_constant_bytes shows them:
    possibly misaligned, read with memcpy, or since 1.11 with stored_bytes_read). offset and size are multiples of
    the element size. */
typedef KilnStatus* (*KilnComputeBytesFn)(void* state, const KilnTensorView* const* sources, size_t source_count,
                                          uint64_t offset, uint64_t size, void* out);

/** A node pass (GE's BaseNodePass: run on every node of a Kahn-order walk) or a graph pass (run once). */
typedef struct KilnPassInfo {
  size_t struct_size;       /**< sizeof(KilnPassInfo); at least KILN_PASS_INFO_SIZE_1_0 */
  uint32_t kind;            /**< KILN_PASS_NODE or KILN_PASS_GRAPH */
  uint32_t flags;           /**< 0 (reserved) */
  const char* name;         /**< unique, CamelCase, the name pipelines use: "ConstantFoldingPass" */
  const char* description;  /**< one line; may be NULL */
  const char* switch_option; /**< a bool option that turns the pass off when false; NULL for none. If no option
                                  of that name is registered, the host registers one (default true, all levels) */
  const KilnOptionInfo* const* options; /**< the pass's own options, read with pass_option_*; may be NULL */
  size_t option_count;
  void* user_data;              /**< handed to every callback */
  KilnRunOnNodeFn run_on_node;  /**< required for a node pass; NULL for a graph pass */
  KilnRunOnGraphFn run_on_graph; /**< required for a graph pass; NULL for a node pass */
  KilnDestroyFn destroy_user_data; /**< may be NULL */
  /* --- since 1.1 --- */
  /** Node passes: called once after the walk has drained; may hand nodes back with pass_request_repass, and the
      walk then resumes (GE's OnFinishGraph). May be NULL. Ignored for graph passes. */
  KilnRunOnGraphFn on_finish_graph;
  /* --- since 1.2 --- */
  /** KILN_ANALYSIS_* bits: the host analyses this pass keeps valid when it changes a graph (the others are
      recomputed on the next query). 0: it keeps none, the safe default. */
  uint32_t preserved_analyses;
  uint32_t reserved1; /**< 0 */
  /* --- since 1.9 --- */
  /** Called once for each compile whose pipeline runs this pass (switched on), after the pipeline and options are
      set and before the model is read. The pass may start work that needs no model, such as reading its own
      files, on a thread of its own, and wait for it in run_on_*; it must not call the host. What it starts it
      also ends: a compile may fail before the pass runs (an unreadable model), and the plugin may then be
      unloaded, so work still running must be joined by user_data's destructor at the latest (not by a static
      object's: the plugin's other statics may be destroyed first while the work still uses them). A failure is logged
      as a warning naming the pass, and the compile goes on (the pass still runs). May be NULL. */
  KilnPreparePassFn prepare;
  /* --- since 1.12 --- */
  /** Node passes: the op types of the nodes the pass can change (its run_on_node returns at once on any other),
      `op_type_count` of them; NULL (and 0) for every node. The host then calls run_on_node only on nodes of these
      op types, in any domain (the pass still checks the domain it wants). A host before 1.12 calls it on every
      node, so run_on_node must still check. The strings are copied during register_pass. Ignored for graph
      passes. */
  const char* const* op_types;
  size_t op_type_count;
} KilnPassInfo;

/** Computes one node: read inputs and attributes from ctx, allocate and fill every output. Returning a status
    with KILN_STATUS_UNSUPPORTED (its message says why) makes the host try the next kernel level. */
typedef KilnStatus* (*KilnKernelComputeFn)(void* user_data, KilnKernelContext* ctx);

/** A CPU kernel for (domain, op type, opset range). */
typedef struct KilnKernelInfo {
  size_t struct_size;   /**< sizeof(KilnKernelInfo) */
  const char* name;     /**< for reports; may be NULL (the host uses domain.op_type) */
  const char* domain;   /**< "" (or "ai.onnx") for the default domain; "hello" for a custom one */
  const char* op_type;  /**< "Add" */
  int32_t since_version; /**< first opset version handled */
  int32_t until_version; /**< last opset version handled (inclusive); 0 = no upper bound */
  const int32_t* elem_types; /**< element types accepted for the first present tensor input; the host does not
                                  call the kernel for others. NULL = any (the kernel checks itself) */
  size_t elem_type_count;
  uint32_t flags;     /**< KILN_KERNEL_* bits */
  uint32_t reserved0; /**< 0 */
  void* user_data;
  KilnKernelComputeFn compute; /**< required */
  KilnDestroyFn destroy_user_data; /**< may be NULL */
} KilnKernelInfo;

/** Infers the outputs' element types and shapes from ctx (infer_* slots) and sets them (infer_set_output). */
typedef KilnStatus* (*KilnInferShapesFn)(void* user_data, KilnShapeContext* ctx);

/** The schema of a custom-domain operator, so that checking and shape inference go through it. */
typedef struct KilnOpSchemaInfo {
  size_t struct_size;    /**< sizeof(KilnOpSchemaInfo) */
  const char* domain;    /**< a custom domain; the ONNX domains are refused */
  const char* op_type;
  const char* doc;       /**< may be NULL */
  int32_t since_version; /**< the domain's opset version that introduces it */
  int32_t min_inputs;
  int32_t max_inputs;    /**< -1 = unbounded */
  int32_t min_outputs;
  int32_t max_outputs;   /**< -1 = unbounded */
  uint32_t reserved0;    /**< 0 */
  void* user_data;
  KilnInferShapesFn infer_shapes;  /**< may be NULL: outputs are then left unknown */
  KilnDestroyFn destroy_user_data; /**< may be NULL */
} KilnOpSchemaInfo;

/** A fusion rule pack in the YAML rule format of configs/fusion. */
typedef struct KilnFusionRulePackInfo {
  size_t struct_size;      /**< sizeof(KilnFusionRulePackInfo) */
  const char* name;        /**< unique pack name */
  const char* yaml;        /**< the rules as text */
  const char* source_name; /**< what error messages call the text ("hello_rules.yaml"); may be NULL */
} KilnFusionRulePackInfo;

/**
 * What a target estimates for one node, or for a set of nodes run as one fused kernel (since 1.3). The host
 * zeroes it and sets struct_size before the call; the target fills what it knows. Strings stay valid until the
 * callback returns (the host copies them).
 */
typedef struct KilnCostEstimate {
  size_t struct_size;     /**< sizeof(KilnCostEstimate) of the host */
  double seconds;         /**< estimated time, launch and barriers included */
  double compute_seconds; /**< the roofline's compute part */
  double memory_seconds;  /**< the roofline's memory part (bytes moved to and from off-chip memory) */
  double launch_seconds;  /**< launch overhead included in seconds */
  double barrier_seconds; /**< barriers between engines inside a group, included in seconds */
  uint64_t flops;         /**< arithmetic operations counted */
  uint64_t offchip_bytes; /**< bytes read from and written to off-chip memory (HBM, DRAM) */
  uint64_t onchip_bytes;  /**< peak bytes a group keeps on chip (its tile working set) */
  uint32_t launches;      /**< kernel launches: 1 for a node or a fusable group, 0 for work done on the host */
  uint32_t barriers;      /**< engine switches inside a group (cube <-> vector on Ascend) */
  int32_t feasible;       /**< for a group: 0 when it cannot run as one kernel (e.g. working set over the on-chip
                               buffer); 1 otherwise */
  int32_t reserved0;      /**< 0 */
  const char* engine;     /**< the engine it runs on (for a group: the first one) */
  const char* reason;     /**< why it is not feasible, or a note for the report; may be NULL */
} KilnCostEstimate;

/** Target callbacks (since 1.3). A call node of a model-local function stands for its body fused. */
typedef KilnStatus* (*KilnTargetEngineFn)(void* user_data, KilnNode* node, const char** out_engine);
typedef KilnStatus* (*KilnTargetEstimateFn)(void* user_data, KilnNode* const* nodes, size_t count,
                                            KilnCostEstimate* out);
typedef KilnStatus* (*KilnTargetSyncCostFn)(void* user_data, const char* from_engine, const char* to_engine,
                                            double* out_seconds);
typedef KilnStatus* (*KilnTargetTransferCostFn)(void* user_data, KilnValue* value, const char* from_format,
                                                const char* to_format, double* out_seconds);
typedef KilnStatus* (*KilnTargetFormatFn)(void* user_data, KilnNode* node, int32_t is_output, size_t index,
                                          const char** out_format);
/** Since 1.6: the storage shape of value in format. Writes the first min(rank, capacity) dims to out_dims (-1 for
    a dim that is not a known number) and the rank to *out_rank. */
typedef KilnStatus* (*KilnTargetStorageShapeFn)(void* user_data, KilnValue* value, const char* format,
                                                int64_t* out_dims, size_t capacity, size_t* out_rank);
struct KilnTargetInfo;
/** Since 1.7: fills out a deferred target's description (see KilnTargetInfo.describe). */
typedef KilnStatus* (*KilnTargetDescribeFn)(void* user_data, struct KilnTargetInfo* out);

/** A hardware target: its engines and what it estimates; the host forwards every pass's question about the active
    target (oo.target) to these callbacks. Before 1.3 only the name existed. */
typedef struct KilnTargetInfo {
  size_t struct_size; /**< sizeof(KilnTargetInfo) */
  const char* name;   /**< unique target name */
  /* --- since 1.3 --- */
  const char* description;         /**< one line for `kiln targets`; may be NULL */
  const char* const* engines;      /**< engine names ("cube", "vector", "aicpu", "host"); at least one */
  size_t engine_count;
  const char* const* formats;      /**< data formats it supports ("ND", "NCHW", "NC1HWC0", ...); may be NULL */
  size_t format_count;
  /** Details for `kiln targets --json` and the report (cores, buffers, rates, with where each number comes
      from), as a JSON object; may be NULL. */
  const char* details_json;
  void* user_data;                 /**< handed to every callback */
  KilnTargetEngineFn node_engine;  /**< required: the engine a node runs on */
  /** Required: one node (count 1) or a group fused into one kernel (count > 1, in topological order). */
  KilnTargetEstimateFn estimate;
  /** Seconds a barrier costs between a task on from_engine and the next on to_engine (0: none needed); may be
      NULL (no barriers). */
  KilnTargetSyncCostFn sync_cost;
  /** Seconds converting value from one format to another costs; may be NULL (formats are free). */
  KilnTargetTransferCostFn transfer_cost;
  /** The format the target prefers for input (is_output 0) or output index of node ("" or "ND": any); may be
      NULL. */
  KilnTargetFormatFn preferred_format;
  KilnDestroyFn destroy_user_data; /**< may be NULL */
  /* --- since 1.6 --- */
  /** The dims value takes stored in format, padding included (GE's StorageShape: an NCHW value in NC1HWC0 is
      N, C1 = ceil(C / C0), H, W, C0); INVALID_ARGUMENT for a format the target lacks or a value the format cannot
      hold. May be NULL (the target does not describe its layouts: passes then never choose a format for it). */
  KilnTargetStorageShapeFn storage_shape;
  /* --- since 1.7 --- */
  /** A deferred description, for a plugin that reads its targets from files: registration then gives the name,
      user_data and destroy_user_data (description may be given or left to describe) and leaves engines, formats,
      details_json and the callbacks zero. The host calls describe(user_data, out) once, when the target is first
      made active or listed in detail (`kiln targets`), never for a compile that does not use it. out is a
      KilnTargetInfo the host zeroed, with struct_size set (write no byte past it); describe fills it as a
      registration would: description, engines, formats, details_json and the callbacks. Its name, user_data,
      destroy_user_data and describe are not read: the callbacks get the registration's user_data. A status it
      returns, or a description the host refuses, fails that use of the target (exit 4) with a message naming it;
      the host does not ask again. May be NULL (the description is the registration's). */
  KilnTargetDescribeFn describe;
} KilnTargetInfo;

/** A new model-local function (model_create_function, since 1.2): its signature; the body is built afterwards
    through function_body with graph_create_node and graph_add_output. */
typedef struct KilnFunctionInfo {
  size_t struct_size;                   /**< sizeof(KilnFunctionInfo) */
  const char* domain;                   /**< a custom domain ("kiln.fused"); the ONNX domains are refused */
  const char* name;                     /**< unique in its domain */
  const char* const* input_names;       /**< the body's inputs, in order */
  size_t input_count;
  const char* const* attribute_names;   /**< attributes a call may set and the body may refer to */
  size_t attribute_count;
  const char* doc;                      /**< may be NULL */
} KilnFunctionInfo;

/** How graph_outline turns a set of nodes into a function and a call (since 1.2). */
typedef struct KilnOutlineInfo {
  size_t struct_size;      /**< sizeof(KilnOutlineInfo) */
  const char* domain;      /**< the function's domain, e.g. "kiln.fused"; imported by the model if it is not */
  const char* name;        /**< the function's name; a numeric suffix is added when a different body has it */
  KilnValue* const* outputs; /**< the group's outputs in the call's order; NULL: every value the group computes
                                  that is read outside it or is a graph output, in topological order */
  size_t output_count;
  uint32_t flags;          /**< KILN_OUTLINE_* bits */
  uint32_t reserved0;      /**< 0 */
  /** Constants (initializers) of at most this many bytes that the group reads are copied into the body as
      Constant nodes; larger ones, and every graph input or outer value, become inputs of the call. */
  uint64_t embed_constant_max_bytes;
  const char* call_name;   /**< the call node's name; NULL or "": generated from the function name */
} KilnOutlineInfo;

/** The smallest struct_size accepted for each struct (the end of its last 1.0 field); for KilnHostApi, the
    smallest table a 1.x plugin can rely on. */
#define KILN_PLUGIN_DESCRIPTOR_SIZE_1_0 KILN_STRUCT_SIZE_UNTIL(KilnPluginDescriptor, register_plugin)
#define KILN_OPTION_INFO_SIZE_1_0 KILN_STRUCT_SIZE_UNTIL(KilnOptionInfo, reserved0)
#define KILN_PASS_INFO_SIZE_1_0 KILN_STRUCT_SIZE_UNTIL(KilnPassInfo, destroy_user_data)
#define KILN_KERNEL_INFO_SIZE_1_0 KILN_STRUCT_SIZE_UNTIL(KilnKernelInfo, destroy_user_data)
#define KILN_OP_SCHEMA_INFO_SIZE_1_0 KILN_STRUCT_SIZE_UNTIL(KilnOpSchemaInfo, destroy_user_data)
#define KILN_FUSION_RULE_PACK_INFO_SIZE_1_0 KILN_STRUCT_SIZE_UNTIL(KilnFusionRulePackInfo, source_name)
#define KILN_TARGET_INFO_SIZE_1_0 KILN_STRUCT_SIZE_UNTIL(KilnTargetInfo, name)
#define KILN_TENSOR_VIEW_SIZE_1_0 KILN_STRUCT_SIZE_UNTIL(KilnTensorView, byte_size)
#define KILN_HOST_API_SIZE_1_0 KILN_STRUCT_SIZE_UNTIL(KilnHostApi, infer_set_output)

/* The host function table (struct KilnHostApi), in a file of its own. */
#include "kiln_plugin_host_api.h"


#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* KILN_PLUGIN_H_ */
