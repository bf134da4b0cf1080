/* kiln_plugin_host_api.h - the host function table of the Kiln plugin C ABI (struct KilnHostApi): every slot a
 * plugin may call, in ABI order, each marked with the version that added it.
 *
 * Part of kiln_plugin.h, which includes it where the table belongs (after the handles, plain data and
 * registration structs it refers to): include kiln_plugin.h, not this file. The layout rules, version history and
 * conventions are at the top of kiln_plugin.h.
 *
 * This header compiles as C99 and as C++.
 */
#ifndef KILN_PLUGIN_HOST_API_H_
#define KILN_PLUGIN_HOST_API_H_

#ifndef KILN_PLUGIN_H_
#error "include <kiln/kiln_plugin.h>, which includes this file"
#endif

/* ---------------------------------------------------------------------------------------------------------------
 * The host function table. Filled by the host, read-only to the plugin, valid while the plugin is loaded.
 * Every slot is non-NULL in a host whose struct_size covers it. Slots returning KilnStatus* fail with a status;
 * the others treat a NULL handle or an index out of range as "nothing" (NULL, 0, -1) unless stated.
 * ------------------------------------------------------------------------------------------------------------- */

struct KilnHostApi {
  size_t struct_size;      /**< sizeof(KilnHostApi) as the host compiled it */
  uint32_t abi_version;    /**< the host's KILN_ABI_VERSION */
  uint32_t reserved0;      /**< 0 */
  const char* host_version; /**< Kiln's own version, e.g. "0.1.0" */

  /* ----- Status (status_create is frozen across majors) ----- */
  /** A new status; the message is copied. Never returns NULL, even for KILN_STATUS_OK. */
  KilnStatus* (*status_create)(KilnStatusCode code, const char* message);
  /** KILN_STATUS_OK for NULL. */
  KilnStatusCode (*status_code)(const KilnStatus* status);
  /** "" for NULL. */
  const char* (*status_message)(const KilnStatus* status);
  /** Frees a status the plugin owns and does not hand back. NULL is a no-op. */
  void (*status_release)(KilnStatus* status);

  /* ----- Logging ----- */
  /** logger: a dotted name ("folding.ConstantFoldingPass"); NULL means "plugin". */
  void (*log)(KilnLogLevel level, const char* logger, const char* message);
  /** Non-zero when a message at level would be written (to skip formatting it). */
  int (*log_enabled)(KilnLogLevel level);

  /* ----- Registration, during register_plugin only (see "Registrations" above) ----- */
  KilnStatus* (*register_pass)(KilnRegistrar* registrar, const KilnPassInfo* info);
  KilnStatus* (*register_kernel)(KilnRegistrar* registrar, const KilnKernelInfo* info);
  KilnStatus* (*register_op_schema)(KilnRegistrar* registrar, const KilnOpSchemaInfo* info);
  KilnStatus* (*register_fusion_rules)(KilnRegistrar* registrar, const KilnFusionRulePackInfo* info);
  KilnStatus* (*register_target)(KilnRegistrar* registrar, const KilnTargetInfo* info);
  /** A global option, e.g. the switch a pass names, with its levels. */
  KilnStatus* (*register_option)(KilnRegistrar* registrar, const KilnOptionInfo* info);

  /* ----- Graphs ----- */
  const char* (*graph_name)(KilnGraph* graph);
  /** Nodes directly in this graph (not in its subgraphs). */
  size_t (*graph_node_count)(KilnGraph* graph);
  /** Writes up to capacity nodes in topological order (Kahn, ties in the original order) and returns the total:
      call with capacity 0 to size the array. A snapshot: later changes do not update it. */
  size_t (*graph_nodes)(KilnGraph* graph, KilnNode** out_nodes, size_t capacity);
  size_t (*graph_input_count)(KilnGraph* graph);
  KilnValue* (*graph_input)(KilnGraph* graph, size_t index);
  size_t (*graph_output_count)(KilnGraph* graph);
  KilnValue* (*graph_output)(KilnGraph* graph, size_t index);
  /** The value of that name visible in this graph (its own or an outer scope's); NULL if none. */
  KilnValue* (*graph_find_value)(KilnGraph* graph, const char* name);
  /** The model's opset version for domain ("" = ai.onnx); 0 when the domain is not imported. */
  int64_t (*graph_opset_version)(KilnGraph* graph, const char* domain);

  /* ----- Nodes ----- */
  const char* (*node_op_type)(KilnNode* node);
  /** "" for the default ONNX domain. */
  const char* (*node_domain)(KilnNode* node);
  /** "" when the node has no name. */
  const char* (*node_name)(KilnNode* node);
  KilnGraph* (*node_graph)(KilnNode* node);
  size_t (*node_input_count)(KilnNode* node);
  /** NULL for an empty optional slot. */
  KilnValue* (*node_input)(KilnNode* node, size_t index);
  size_t (*node_output_count)(KilnNode* node);
  /** NULL for an empty optional slot. */
  KilnValue* (*node_output)(KilnNode* node, size_t index);

  /* ----- Attributes, read. A getter of the wrong type returns 0 / NULL / 0 elements: check attr_type ----- */
  size_t (*node_attribute_count)(KilnNode* node);
  const KilnAttribute* (*node_attribute_at)(KilnNode* node, size_t index);
  /** NULL when the node has no attribute of that name. */
  const KilnAttribute* (*node_attribute)(KilnNode* node, const char* name);
  const char* (*attr_name)(const KilnAttribute* attr);
  /** KILN_ATTR_*. */
  int32_t (*attr_type)(const KilnAttribute* attr);
  int64_t (*attr_int)(const KilnAttribute* attr);
  float (*attr_float)(const KilnAttribute* attr);
  /** The bytes, NUL-terminated; *out_size (if not NULL) gets the size without the NUL. */
  const char* (*attr_string)(const KilnAttribute* attr, size_t* out_size);
  /** Returns the element count; *out points at them. */
  size_t (*attr_ints)(const KilnAttribute* attr, const int64_t** out);
  size_t (*attr_floats)(const KilnAttribute* attr, const float** out);
  size_t (*attr_strings)(const KilnAttribute* attr, const KilnString** out);
  /** A read-only view of a TENSOR attribute's data. */
  const KilnTensorView* (*attr_tensor)(const KilnAttribute* attr);

  /* ----- Attributes, write (replace any attribute of that name; data is copied) ----- */
  KilnStatus* (*node_set_attr_int)(KilnNode* node, const char* name, int64_t value);
  KilnStatus* (*node_set_attr_float)(KilnNode* node, const char* name, float value);
  KilnStatus* (*node_set_attr_string)(KilnNode* node, const char* name, const char* data, size_t size);
  KilnStatus* (*node_set_attr_ints)(KilnNode* node, const char* name, const int64_t* values, size_t count);
  KilnStatus* (*node_set_attr_floats)(KilnNode* node, const char* name, const float* values, size_t count);
  KilnStatus* (*node_set_attr_strings)(KilnNode* node, const char* name, const KilnString* values, size_t count);
  KilnStatus* (*node_set_attr_tensor)(KilnNode* node, const char* name, const KilnTensorView* tensor);
  /** Removing an absent attribute succeeds. */
  KilnStatus* (*node_remove_attr)(KilnNode* node, const char* name);

  /* ----- Values ----- */
  const char* (*value_name)(KilnValue* value);
  /** KILN_TYPE_KIND_*. */
  int32_t (*value_type_kind)(KilnValue* value);
  /** Element type of a tensor (or of a sequence's / optional's tensors); 0 when unknown. */
  int32_t (*value_elem_type)(KilnValue* value);
  /** Returns the rank, or -1 when the shape is unknown; *out_dims (if not NULL) gets rank dims, -1 where a
      dimension is not a known number. */
  int64_t (*value_shape)(KilnValue* value, const int64_t** out_dims);
  /** The symbol of dimension index ("batch"), or NULL for a number or an unknown dimension. */
  const char* (*value_dim_symbol)(KilnValue* value, size_t index);
  /** The node that outputs value (writing the output index), or NULL for a graph input or a constant. */
  KilnNode* (*value_producer)(KilnValue* value, size_t* out_output_index);
  /** Uses of the value: one per (node, input slot); a node reading it inside a subgraph counts once with input
      index KILN_IMPLICIT_INPUT. */
  size_t (*value_consumer_count)(KilnValue* value);
  KilnNode* (*value_consumer)(KilnValue* value, size_t index, size_t* out_input_index);
  int (*value_is_graph_input)(KilnValue* value);
  int (*value_is_graph_output)(KilnValue* value);
  /** Non-zero for a constant: an initializer that is not a graph input, or the output of a Constant node. */
  int (*value_is_constant)(KilnValue* value);
  /** A read-only view of a constant's data (never copied); NULL when not a constant. */
  const KilnTensorView* (*value_constant_data)(KilnValue* value);
  /** Sets a tensor value's type: rank -1 = unknown shape; dims[i] -1 = not a number, with symbols[i] naming it
      or NULL; symbols may be NULL. */
  KilnStatus* (*value_set_tensor_type)(KilnValue* value, int32_t elem_type, int64_t rank, const int64_t* dims,
                                       const char* const* symbols);

  /* ----- Mutation ----- */
  /** A new node; name NULL or "" gets a unique generated one. inputs may hold NULL (empty slots). Its
      output_count outputs are new values, names generated, types unknown. In a node walk the driver visits it.
      A custom domain not imported yet is imported at its schema's version. */
  KilnStatus* (*graph_create_node)(KilnGraph* graph, const char* op_type, const char* domain, const char* name,
                                   KilnValue* const* inputs, size_t input_count, size_t output_count,
                                   KilnNode** out_node);
  /** A new constant whose bytes the host allocates (zeroed) and the plugin fills through *out_data before its
      callback returns. name NULL or "" gets a unique one. */
  KilnStatus* (*graph_create_constant)(KilnGraph* graph, const char* name, int32_t elem_type, size_t rank,
                                       const int64_t* dims, KilnValue** out_value, KilnTensorView** out_data);
  /** A new constant holding a copy of tensor. */
  KilnStatus* (*graph_create_constant_from_view)(KilnGraph* graph, const char* name, const KilnTensorView* tensor,
                                                 KilnValue** out_value);
  /** Sets element index of a STRING tensor the plugin is filling (from graph_create_constant or a kernel output);
      the bytes are copied. */
  KilnStatus* (*tensor_set_string)(KilnTensorView* tensor, size_t index, const char* data, size_t size);
  /** Points input slot index at value (NULL = empty slot); index == node_input_count appends a slot. */
  KilnStatus* (*node_set_input)(KilnNode* node, size_t index, KilnValue* value);
  /** Rewires every use of old_value (inputs, subgraph reads, graph outputs) to new_value. A graph output keeps
      its name: new_value takes it when it is free to, else FAILED_PRECONDITION (new_value is a graph input or
      another graph output). */
  KilnStatus* (*value_replace_all_uses)(KilnValue* old_value, KilnValue* new_value);
  /** Deletes a node whose outputs have no uses (FAILED_PRECONDITION otherwise). Constants left without uses are
      removed when the pass ends. The handle stays valid, for node_is_deleted only, until the callback returns. */
  KilnStatus* (*node_delete)(KilnNode* node);
  /** GE's IsolateAndDeleteNode: every use of output i is rewired to input io_map[i] (a negative entry: output i
      must be unused), then the node is deleted. map_size must equal the output count. */
  KilnStatus* (*node_isolate_and_delete)(KilnNode* node, const int64_t* io_map, size_t map_size);
  int (*node_is_deleted)(KilnNode* node);
  /** Runs the host's shape inference (ONNX's and the registered schemas') on node, or on all of graph when node
      is NULL, updating value types and shapes. */
  KilnStatus* (*infer_shapes)(KilnGraph* graph, KilnNode* node);

  /* ----- Computing through the kernel levels (plugin kernels, then the host's built-ins) ----- */
  /** Computes node's outputs. inputs: one view per input slot (NULL for an empty one); inputs NULL = use the
      node's constant inputs (FAILED_PRECONDITION if one is not constant). flags: KILN_COMPUTE_* bits.
      UNSUPPORTED when no kernel handles the case. A view the host gave (value_constant_data, value_constant_bytes,
      a result) stands for its tensor, unread; its data may sit at any address (1.8): a kernel gets it aligned
      unless it is flagged KILN_KERNEL_ANY_ALIGNMENT. */
  KilnStatus* (*node_compute)(KilnNode* node, const KilnTensorView* const* inputs, size_t input_count,
                              uint32_t flags, KilnComputeResult** out_result);
  size_t (*compute_result_output_count)(const KilnComputeResult* result);
  /** Valid until compute_result_release; NULL for an output the kernel left empty. */
  const KilnTensorView* (*compute_result_output)(const KilnComputeResult* result, size_t index);
  void (*compute_result_release)(KilnComputeResult* result);

  /* ----- Pass context ----- */
  /** Queue node to be visited again after the queue drains (GE's AddRePassNode). Ignored outside a node walk. */
  void (*pass_request_repass)(KilnPassContext* ctx, KilnNode* node);
  /** Queue node at the front, to be visited next (GE's AddImmediateRePassNode). Ignored outside a node walk. */
  void (*pass_request_immediate_repass)(KilnPassContext* ctx, KilnNode* node);
  /** Adds delta to the pass's counter of that name (created at 0), shown in the report. */
  void (*pass_add_counter)(KilnPassContext* ctx, const char* name, int64_t delta);
  /** The value in effect of one of the pass's own options (short name) or of any option (full name).
      NOT_FOUND for an unknown name, INVALID_ARGUMENT for another type. */
  KilnStatus* (*pass_option_bool)(KilnPassContext* ctx, const char* name, int* out);
  KilnStatus* (*pass_option_int)(KilnPassContext* ctx, const char* name, int64_t* out);
  KilnStatus* (*pass_option_float)(KilnPassContext* ctx, const char* name, double* out);
  KilnStatus* (*pass_option_string)(KilnPassContext* ctx, const char* name, const char** out);

  /* ----- Kernel context ----- */
  size_t (*kernel_input_count)(KilnKernelContext* ctx);
  /** KILN_TYPE_KIND_TENSOR, _SEQUENCE, or _NONE (an empty slot or an optional holding nothing). */
  int32_t (*kernel_input_kind)(KilnKernelContext* ctx, size_t index);
  /** A tensor input; NULL when the input is not a tensor. */
  const KilnTensorView* (*kernel_input)(KilnKernelContext* ctx, size_t index);
  /** A sequence input's length; *out_elem_type (if not NULL) gets its element type (even when empty). */
  size_t (*kernel_input_sequence_length)(KilnKernelContext* ctx, size_t index, int32_t* out_elem_type);
  const KilnTensorView* (*kernel_input_sequence_element)(KilnKernelContext* ctx, size_t index, size_t position);
  /** Also a custom op's attributes. NULL when absent. */
  const KilnAttribute* (*kernel_attribute)(KilnKernelContext* ctx, const char* name);
  size_t (*kernel_output_count)(KilnKernelContext* ctx);
  /** Allocates tensor output index (zeroed) for the kernel to fill. Calling it twice for an index fails. */
  KilnStatus* (*kernel_alloc_output)(KilnKernelContext* ctx, size_t index, int32_t elem_type, size_t rank,
                                     const int64_t* dims, KilnTensorView** out_tensor);
  /** Makes output index a sequence of length tensors of elem_type, each then allocated with
      kernel_alloc_sequence_element. */
  KilnStatus* (*kernel_alloc_output_sequence)(KilnKernelContext* ctx, size_t index, int32_t elem_type,
                                              size_t length);
  KilnStatus* (*kernel_alloc_sequence_element)(KilnKernelContext* ctx, size_t index, size_t position,
                                               size_t rank, const int64_t* dims, KilnTensorView** out_tensor);
  /** Makes output index an optional holding nothing. */
  KilnStatus* (*kernel_set_output_none)(KilnKernelContext* ctx, size_t index);
  /** The opset version of the node's domain. */
  int64_t (*kernel_opset_version)(KilnKernelContext* ctx);

  /* ----- Shape-inference context (custom-op schemas) ----- */
  size_t (*infer_input_count)(KilnShapeContext* ctx);
  /** 0 when unknown or the slot is empty. */
  int32_t (*infer_input_elem_type)(KilnShapeContext* ctx, size_t index);
  /** As value_shape. */
  int64_t (*infer_input_shape)(KilnShapeContext* ctx, size_t index, const int64_t** out_dims);
  const char* (*infer_input_dim_symbol)(KilnShapeContext* ctx, size_t index, size_t dim);
  /** The input's data when it is a known constant (shape-like inputs), else NULL. */
  const KilnTensorView* (*infer_input_constant)(KilnShapeContext* ctx, size_t index);
  const KilnAttribute* (*infer_attribute)(KilnShapeContext* ctx, const char* name);
  size_t (*infer_output_count)(KilnShapeContext* ctx);
  /** As value_set_tensor_type, for output index. */
  KilnStatus* (*infer_set_output)(KilnShapeContext* ctx, size_t index, int32_t elem_type, int64_t rank,
                                  const int64_t* dims, const char* const* symbols);

  /* ----- since 1.1: subgraphs (If, Loop, Scan bodies). Check KILN_HOST_HAS before calling ----- */
  size_t (*node_subgraph_count)(KilnNode* node);
  /** Subgraph index of node, in attribute order; *out_attr_name (if not NULL) gets its attribute's name. */
  KilnGraph* (*node_subgraph)(KilnNode* node, size_t index, const char** out_attr_name);
  /** A GRAPH attribute's graph; NULL for another type. */
  KilnGraph* (*attr_graph)(const KilnAttribute* attr);
  /** The node owning graph, NULL for the main graph. */
  KilnNode* (*graph_parent_node)(KilnGraph* graph);
  /** The graph that defines value (an outer one for a value a subgraph reads from its outer scope). */
  KilnGraph* (*value_graph)(KilnValue* value);
  /** Replaces node by a copy of subgraph index's nodes in node's graph (If with a constant condition): the
      subgraph's outputs take the place of node's outputs. */
  KilnStatus* (*node_inline_subgraph)(KilnNode* node, size_t index);

  /* ----- since 1.2: the model. Check KILN_HOST_HAS before calling a slot from here on ----- */
  /** The model a graph (main graph, subgraph or function body) belongs to. */
  KilnModel* (*graph_model)(KilnGraph* graph);
  KilnGraph* (*model_graph)(KilnModel* model);
  int64_t (*model_ir_version)(KilnModel* model);
  size_t (*model_opset_count)(KilnModel* model);
  /** The domain ("" = ai.onnx) of opset import index; *out_version (if not NULL) gets its version. */
  const char* (*model_opset_at)(KilnModel* model, size_t index, int64_t* out_version);
  /** Imports domain at version when the model does not import it; succeeds when it already does at that version
      or when version is 0 (any); FAILED_PRECONDITION when it imports another version. */
  KilnStatus* (*model_ensure_opset)(KilnModel* model, const char* domain, int64_t version);
  size_t (*model_metadata_count)(KilnModel* model);
  /** Key of metadata_props entry index; *out_value (if not NULL) gets its value. */
  const char* (*model_metadata_at)(KilnModel* model, size_t index, const char** out_value);
  /** Sets (or, with value NULL, removes) a metadata_props entry. KILN_ANNOTATIONS_METADATA_KEY is the host's. */
  KilnStatus* (*model_set_metadata)(KilnModel* model, const char* key, const char* value);

  /* ----- since 1.2: model-local functions (ONNX FunctionProto). A call is a node whose domain and op type are a
     function's domain and name; inputs and outputs bind by position, attributes by name (ref_attr_name). ----- */
  size_t (*model_function_count)(KilnModel* model);
  KilnFunction* (*model_function_at)(KilnModel* model, size_t index);
  /** NULL when the model has no function of that domain and name. */
  KilnFunction* (*model_find_function)(KilnModel* model, const char* domain, const char* name);
  /** A new function with an empty body whose inputs are info's; the model imports its domain (version 1) if it
      does not, and the function imports the model's version of every domain its body comes to use. */
  KilnStatus* (*model_create_function)(KilnModel* model, const KilnFunctionInfo* info, KilnFunction** out_function);
  /** Removes a function nothing calls (FAILED_PRECONDITION while a call is left). */
  KilnStatus* (*function_remove)(KilnFunction* function);
  const char* (*function_name)(KilnFunction* function);
  const char* (*function_domain)(KilnFunction* function);
  /** The body: a graph whose inputs and outputs are the function's; read and build it with the graph slots. */
  KilnGraph* (*function_body)(KilnFunction* function);
  size_t (*function_attribute_count)(KilnFunction* function);
  const char* (*function_attribute_name)(KilnFunction* function, size_t index);
  /** How many nodes of the model (in any graph, subgraph or function body) call it. */
  size_t (*function_call_count)(KilnFunction* function);
  /** The function node calls; NULL when it is not a call. */
  KilnFunction* (*node_function)(KilnNode* node);
  /** The function whose body graph is; NULL for the main graph and for subgraphs of nodes. */
  KilnFunction* (*graph_function)(KilnGraph* graph);
  /** Moves nodes (all of graph, a convex set) into a new function (or, with KILN_OUTLINE_REUSE_BODY, an equal
      existing one) and puts one call in their place: the call reads what the group read from outside and its
      outputs keep the names, types and readers of the values they replace. FAILED_PRECONDITION, with the reason,
      when the set is empty, spans graphs, is not convex (a path leaves it and comes back), or computes a value
      read outside it that is not an output (without KILN_OUTLINE_ALLOW_EXTRA_OUTPUTS). */
  KilnStatus* (*graph_outline)(KilnGraph* graph, KilnNode* const* nodes, size_t count, const KilnOutlineInfo* info,
                               KilnNode** out_call, KilnFunction** out_function);
  /** Replaces a call by a copy of its function's body, attribute references bound to the call's attributes; the
      body's outputs take the names and readers of the call's outputs. The function stays (function_remove). */
  KilnStatus* (*node_inline_function)(KilnNode* call);

  /* ----- since 1.2: building graphs ----- */
  size_t (*graph_initializer_count)(KilnGraph* graph);
  KilnValue* (*graph_initializer_at)(KilnGraph* graph, size_t index);
  /** Removes a value nothing reads that no node produces: an initializer, or a graph input (dropped from the
      inputs). FAILED_PRECONDITION otherwise. */
  KilnStatus* (*value_remove)(KilnValue* value);
  /** Appends a graph input of that name (unique in scope) and tensor type (as value_set_tensor_type). */
  KilnStatus* (*graph_add_input)(KilnGraph* graph, const char* name, int32_t elem_type, int64_t rank,
                                 const int64_t* dims, const char* const* symbols, KilnValue** out_value);
  /** Appends value (visible in graph) to the graph's outputs. */
  KilnStatus* (*graph_add_output)(KilnGraph* graph, KilnValue* value);
  KilnStatus* (*graph_set_output)(KilnGraph* graph, size_t index, KilnValue* value);
  KilnStatus* (*graph_remove_output)(KilnGraph* graph, size_t index);
  /** Renames a value; FAILED_PRECONDITION when the name is taken anywhere in the model. */
  KilnStatus* (*value_set_name)(KilnValue* value, const char* name);
  /** Renames a node (names need not be unique; "" clears it). */
  KilnStatus* (*node_set_name)(KilnNode* node, const char* name);
  /** A number unique in the model that never changes for the node's life and is never reused. */
  uint64_t (*node_id)(KilnNode* node);
  /** The live node with that id, in any graph of the model; NULL when there is none. */
  KilnNode* (*model_find_node)(KilnModel* model, uint64_t id);

  /* ----- since 1.2: more attributes ----- */
  /** A GRAPH attribute: source NULL gives an empty graph to build; else a deep copy of source, whose reads of
      outer values are bound by name in node's scope. *out_graph (if not NULL) gets the new subgraph. */
  KilnStatus* (*node_set_attr_graph)(KilnNode* node, const char* name, KilnGraph* source, KilnGraph** out_graph);
  /** A GRAPHS attribute of deep copies of sources. */
  KilnStatus* (*node_set_attr_graphs)(KilnNode* node, const char* name, KilnGraph* const* sources, size_t count);
  /** A TENSORS attribute; the data is copied. */
  KilnStatus* (*node_set_attr_tensors)(KilnNode* node, const char* name, const KilnTensorView* const* tensors,
                                       size_t count);
  /** In a function body: an attribute of type attr_type that takes the value of the call's attribute
      ref_attr_name (ONNX's ref_attr_name). */
  KilnStatus* (*node_set_attr_ref)(KilnNode* node, const char* name, int32_t attr_type, const char* ref_attr_name);
  /** The graphs of a GRAPH (one) or GRAPHS attribute. */
  size_t (*attr_graph_count)(const KilnAttribute* attr);
  KilnGraph* (*attr_graph_at)(const KilnAttribute* attr, size_t index);
  /** The tensors of a TENSOR (one) or TENSORS attribute, read-only views. */
  size_t (*attr_tensor_count)(const KilnAttribute* attr);
  const KilnTensorView* (*attr_tensor_at)(const KilnAttribute* attr, size_t index);
  /** The caller's attribute a function-body attribute refers to; NULL when it holds its own value. */
  const char* (*attr_ref_name)(const KilnAttribute* attr);

  /* ----- since 1.2: annotations. String key/value pairs on nodes and values that survive export: they are
     written to the model's metadata_props under KILN_ANNOTATIONS_METADATA_KEY as one JSON object
     {"nodes": {node name: {key: value}}, "values": {value name: {key: value}}} and read back on import (a node
     without a name gets one when annotated). Keys starting with KILN_TEMPORARY_MARK_PREFIX are not written. ----- */
  /** Sets (value NULL: removes) an annotation. */
  KilnStatus* (*node_set_annotation)(KilnNode* node, const char* key, const char* value);
  /** NULL when absent. */
  const char* (*node_annotation)(KilnNode* node, const char* key);
  size_t (*node_annotation_count)(KilnNode* node);
  const char* (*node_annotation_at)(KilnNode* node, size_t index, const char** out_value);
  KilnStatus* (*value_set_annotation)(KilnValue* value, const char* key, const char* annotation);
  const char* (*value_annotation)(KilnValue* value, const char* key);
  size_t (*value_annotation_count)(KilnValue* value);
  const char* (*value_annotation_at)(KilnValue* value, size_t index, const char** out_value);

  /* ----- since 1.2: host analyses over one graph's data edges (a node that reads a value inside its subgraphs
     depends on the value's producer). Computed on first query and kept until a change to the graph's structure
     that the running pass does not declare it preserves (KilnPassInfo.preserved_analyses). Dominance is from a
     virtual entry before every node, post-dominance from a virtual exit after every node. ----- */
  /** The graph's nodes in the cached topological order (the order graph_nodes gives); as graph_nodes. */
  size_t (*graph_topo_order)(KilnGraph* graph, KilnNode** out_nodes, size_t capacity);
  /** The node's position in graph_topo_order; -1 for NULL or a deleted node. */
  int64_t (*node_topo_index)(KilnNode* node);
  /** The immediate dominator; NULL when only the virtual entry dominates node. */
  KilnNode* (*node_idom)(KilnNode* node);
  /** The immediate post-dominator; NULL when only the virtual exit post-dominates node. */
  KilnNode* (*node_ipostdom)(KilnNode* node);
  /** Non-zero when every path from the entry to b passes a (a node dominates itself). */
  int (*node_dominates)(KilnNode* a, KilnNode* b);
  /** Non-zero when every path from b to the exit passes a (a node post-dominates itself). */
  int (*node_postdominates)(KilnNode* a, KilnNode* b);
  /** Non-zero when a path of data edges leads from `from` to `to` (of one graph; a node reaches itself). */
  int (*node_reaches)(KilnNode* from, KilnNode* to);
  /** Non-zero when the nodes (of one graph) are convex: no path leaves the set and comes back. Else 0, with
      *out_outside (if not NULL) a node outside on such a path and *out_inside the node of the set it reaches. */
  int (*nodes_are_convex)(KilnNode* const* nodes, size_t count, KilnNode** out_outside, KilnNode** out_inside);

  /* ----- since 1.2: reports and rule packs ----- */
  /** Attaches JSON to the running pass's entry of the compile report, under "reports"/key. Arrays given twice
      under one key are concatenated; anything else replaces. INVALID_ARGUMENT when json does not parse. */
  KilnStatus* (*pass_add_report)(KilnPassContext* ctx, const char* key, const char* json);
  /** The fusion rule packs registered so far by every loaded plugin, in registration order. */
  size_t (*fusion_rule_pack_count)(void);
  /** Pack index's name; *out_yaml and *out_source_name (either may be NULL) get its text and its source name. */
  const char* (*fusion_rule_pack_at)(size_t index, const char** out_yaml, const char** out_source_name);

  /* ----- since 1.3: the active target (option oo.target, `kiln compile --target NAME`). Any pass may ask; the host
     forwards to the plugin that registered the target. Without one: target_active gives NULL and the others
     fail with NOT_FOUND. ----- */
  /** The active target's name, or NULL when none is. */
  const char* (*target_active)(void);
  size_t (*target_engine_count)(void);
  const char* (*target_engine_at)(size_t index);
  KilnStatus* (*target_node_engine)(KilnNode* node, const char** out_engine);
  /** As KilnTargetInfo.estimate; the host sets out->struct_size. */
  KilnStatus* (*target_estimate)(KilnNode* const* nodes, size_t count, KilnCostEstimate* out);
  KilnStatus* (*target_sync_cost)(const char* from_engine, const char* to_engine, double* out_seconds);
  KilnStatus* (*target_transfer_cost)(KilnValue* value, const char* from_format, const char* to_format,
                                      double* out_seconds);
  KilnStatus* (*target_preferred_format)(KilnNode* node, int32_t is_output, size_t index, const char** out_format);
  /** The folder of the shipped configuration (pipelines/, fusion/, targets/): $KILN_CONFIG_DIR, the install's
      share/kiln/configs, or the source tree's configs/. Registration may read its files. */
  const char* (*host_config_dir)(void);
  /** The work a call of a model-local function does, as a cost model reads it: the body expanded for this call
      (attribute references bound, nested calls expanded in place) into a graph of its own. Its outputs stand for
      the call's by position; its inputs stand for the call's inputs that are not constants (value_is_constant:
      an initializer that is no graph input, or a Constant's output) nor empty, in order: a constant input is a
      constant of the graph instead, so pair the inputs by skipping those; its values carry the types shape inference gives from the call's input types,
      which the shared body cannot (one body serves calls of every shape). Read only; valid until the next
      question about the same call or the end of the callback. FAILED_PRECONDITION when node calls no
      model-local function. */
  KilnStatus* (*node_call_instance)(KilnNode* node, KilnGraph** out_graph);

  /* ----- since 1.4 ----- */
  /** What shape inference (infer_shapes) computed of the contents of value, a scalar or 1-D integer tensor made
      from shapes (Shape -> Gather -> Concat chains, integer arithmetic on them): returns its element count, or -1
      when nothing is known; *out_is_scalar (if not NULL) gets 1 for a scalar. For each element below capacity:
      out_symbols[i] NULL and out_values[i] its number when it is known; out_symbols[i] its symbolic expression
      (`batch`, `2*seq`: valid until the next call of this slot) when it is symbolic; out_symbols[i] "" when it is
      unknown. Either array may be NULL (capacity 0 asks for the count). */
  int64_t (*value_shape_data)(KilnValue* value, int64_t* out_values, const char** out_symbols, size_t capacity,
                              int32_t* out_is_scalar);

  /* ----- since 1.5 ----- */
  /** Makes `nodes` the order of graph's nodes: the order graph_nodes and graph_topo_order give and export writes
      (a schedule, e.g. one that lowers peak memory). `nodes` must list every node of graph exactly once, in a
      topological order (a node after every producer of what it reads, inside its subgraphs too); otherwise
      INVALID_ARGUMENT naming the first offending node, and nothing changes. Only the order changes: no node,
      value or attribute does. Journaled like every change; invalidates the cached analyses. */
  KilnStatus* (*graph_set_node_order)(KilnGraph* graph, KilnNode* const* nodes, size_t count);

  /* ----- since 1.6 ----- */
  /** As KilnTargetInfo.storage_shape, for the active target: the first min(rank, capacity) dims of value stored in
      format go to out_dims (may be NULL when capacity is 0) and the rank to *out_rank. NOT_FOUND without an active
      target; FAILED_PRECONDITION when the active target does not describe storage shapes. */
  KilnStatus* (*target_storage_shape)(KilnValue* value, const char* format, int64_t* out_dims, size_t capacity,
                                      size_t* out_rank);

  /* ----- since 1.8 ----- */
  /** A read-only view of a constant's bytes where the host keeps them, never copied: a weight borrowed from the
      model file's mapping sits wherever the file put it, so `data` may be misaligned for elem_type. Read its
      elements with memcpy, never through a typed pointer. value_constant_data gives the same bytes aligned, copying
      such a weight once (for as long as the model lives) the first time anything asks; a pass that reads a large
      weight once, to replace it, reads it here instead. String tensors: as value_constant_data. NULL when value is
      not a constant. */
  const KilnTensorView* (*value_constant_bytes)(KilnValue* value);

  /* ----- since 1.10: computed constants ----- */
  /** A new constant of elem_type (not STRING) and dims whose bytes `compute` makes when they are first needed, from
      the stored bytes of `sources` (constants of graph or an enclosing graph; the host keeps their bytes, unchanged,
      for as long as it may call compute). The host calls compute(state, views, source_count, offset, size, out)
      for any range, in any order, from any thread and as often as it needs: compute must depend on nothing but the
      sources and state, and call no slot but status_create and (since 1.11) stored_bytes_read. Writing the model
      streams the bytes to the file a piece at a time; whatever reads them whole (value_constant_data, a kernel, an
      export to memory) makes them once and keeps them. The state is the host's from this call on, whatever it returns: it calls release(state)
      (unless release is NULL) once it will not call compute again, when it has made the bytes whole or the
      constant is gone, and at the latest before the plugin is unloaded. A compute that fails fails what asked for
      the bytes: a compile names the constant and the plugin's message (exit code 4). The new constant counts
      against limits.maxFoldedBytes as graph_create_constant's would. */
  KilnStatus* (*graph_create_computed_constant)(KilnGraph* graph, const char* name, int32_t elem_type, size_t rank,
                                                const int64_t* dims, KilnValue* const* sources,
                                                size_t source_count, KilnComputeBytesFn compute, void* state,
                                                KilnDestroyFn release, KilnValue** out_value);
  /** Copies bytes [offset, offset + size) of a constant (its raw little-endian bytes) to out, making only that
      range of a computed constant: a pass that hashes or samples a large constant reads it here. OUT_OF_RANGE past
      its end; INVALID_ARGUMENT when value is not a constant or holds strings. */
  KilnStatus* (*value_constant_read)(KilnValue* value, uint64_t offset, uint64_t size, void* out);

  /* ----- since 1.11 ----- */
  /** Copies size bytes from `at` to `out` (which must not overlap), as memcpy would, for bytes the host handed out
      and keeps alive for the call: value_constant_bytes, value_constant_data, a computed constant's sources. Where
      they lie in a memory-mapped model file, the host reads them from the file, which touches none of the
      mapping's pages: bytes read once go several times faster (under virtualisation each page of a mapping costs
      a fault and a nested page walk; ResNet-50's 100 MB of weights read in 8 ms against 40-50 ms). A computed
      constant's compute may call it. Cannot fail. */
  void (*stored_bytes_read)(const void* at, uint64_t size, void* out);

  /* ----- since 1.13 ----- */
  /** For a graph pass, at a point between two rewrites where the graph is whole (every read defined, no cycle):
      asks the host to keep every change the call made so far, as though the call had ended there, and to free the
      nodes and values those changes removed, which it otherwise holds until the call ends so that a failure can be
      undone. A pass that rewrites a large graph a piece at a time asks after each piece, so what it replaced does
      not pile up. The host decides, and sets *out_kept (may be NULL) to 1 when it kept them; 0 when it declined
      and nothing happened: under --verify-each (which undoes a pass whole), for a node pass, while string
      constants are being filled, or while too little would be freed (it keeps them once the removed nodes and
      values outnumber an eighth of the graph's nodes, and 4,096). After a kept checkpoint a failure of the
      call undoes its changes since then only (the report says so), the handles of removed nodes and values and
      anything read from them are invalid (live ones stay valid), and cached analyses are made again when next
      asked for. The checks a successful call ends with are made first (KILN_OUTLINE_ASSUME_CONVEX groups must
      leave the graph acyclic): FAILED_PRECONDITION naming a node on a cycle when they fail, keeping nothing. */
  KilnStatus* (*pass_checkpoint)(KilnPassContext* ctx, int32_t* out_kept);
};

#endif /* KILN_PLUGIN_HOST_API_H_ */
