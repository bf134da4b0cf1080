// Freezes the plugin ABI's layout. Every offset and size below was computed once, when the ABI was set, and
// must never change: a plugin built against any 1.x header depends on them. Adding a field or a host slot means
// appending it (and a line here); changing an existing line means a new major version.
//
// Also checks, at run time, that ABI 1.0 (the frozen header under abi_v1_0/, compiled in abi_v1_0_layout.c) is a
// strict prefix of the current ABI, field by field, and that the size and version macros mean what they say.
// abi_v1_1_test.cc goes further for 1.1 and 1.2: every name's offset, size, type and value against the frozen 1.1
// and 1.2 headers.
#include <kiln/kiln_plugin.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include "abi_v1_0_layout.h"

// The numbers below are the LP64 layout (Linux and macOS on 64-bit); the ABI is defined there.
static_assert(sizeof(void*) == 8 && sizeof(size_t) == 8 && sizeof(int) == 4, "Kiln's ABI is frozen for LP64");

// ---- the frozen layout ----
static_assert(sizeof(KilnString) == 16);
static_assert(offsetof(KilnString, data) == 0);
static_assert(offsetof(KilnString, size) == 8);

static_assert(sizeof(KilnTensorView) == 40);
static_assert(offsetof(KilnTensorView, struct_size) == 0);
static_assert(offsetof(KilnTensorView, elem_type) == 8);
static_assert(offsetof(KilnTensorView, rank) == 12);
static_assert(offsetof(KilnTensorView, dims) == 16);
static_assert(offsetof(KilnTensorView, data) == 24);
static_assert(offsetof(KilnTensorView, byte_size) == 32);

static_assert(sizeof(KilnPluginDescriptor) == 48);
static_assert(offsetof(KilnPluginDescriptor, struct_size) == 0);
static_assert(offsetof(KilnPluginDescriptor, abi_version) == 8);
static_assert(offsetof(KilnPluginDescriptor, reserved0) == 12);
static_assert(offsetof(KilnPluginDescriptor, name) == 16);
static_assert(offsetof(KilnPluginDescriptor, version) == 24);
static_assert(offsetof(KilnPluginDescriptor, register_plugin) == 32);
static_assert(offsetof(KilnPluginDescriptor, description) == 40);  // since 1.1

static_assert(sizeof(KilnOptionInfo) == 80);
static_assert(offsetof(KilnOptionInfo, struct_size) == 0);
static_assert(offsetof(KilnOptionInfo, name) == 8);
static_assert(offsetof(KilnOptionInfo, help) == 16);
static_assert(offsetof(KilnOptionInfo, type) == 24);
static_assert(offsetof(KilnOptionInfo, min_level) == 28);
static_assert(offsetof(KilnOptionInfo, default_value) == 32);
static_assert(offsetof(KilnOptionInfo, allowed_values) == 40);
static_assert(offsetof(KilnOptionInfo, allowed_value_count) == 48);
static_assert(offsetof(KilnOptionInfo, level_defaults) == 56);
static_assert(offsetof(KilnOptionInfo, level_default_count) == 64);
static_assert(offsetof(KilnOptionInfo, scopes) == 72);
static_assert(offsetof(KilnOptionInfo, reserved0) == 76);

static_assert(sizeof(KilnPassInfo) == 128);
static_assert(offsetof(KilnPassInfo, struct_size) == 0);
static_assert(offsetof(KilnPassInfo, kind) == 8);
static_assert(offsetof(KilnPassInfo, flags) == 12);
static_assert(offsetof(KilnPassInfo, name) == 16);
static_assert(offsetof(KilnPassInfo, description) == 24);
static_assert(offsetof(KilnPassInfo, switch_option) == 32);
static_assert(offsetof(KilnPassInfo, options) == 40);
static_assert(offsetof(KilnPassInfo, option_count) == 48);
static_assert(offsetof(KilnPassInfo, user_data) == 56);
static_assert(offsetof(KilnPassInfo, run_on_node) == 64);
static_assert(offsetof(KilnPassInfo, run_on_graph) == 72);
static_assert(offsetof(KilnPassInfo, destroy_user_data) == 80);
static_assert(offsetof(KilnPassInfo, on_finish_graph) == 88);  // since 1.1
static_assert(offsetof(KilnPassInfo, preserved_analyses) == 96);  // since 1.2
static_assert(offsetof(KilnPassInfo, reserved1) == 100);  // since 1.2
static_assert(offsetof(KilnPassInfo, prepare) == 104);  // since 1.9
static_assert(offsetof(KilnPassInfo, op_types) == 112);  // since 1.12
static_assert(offsetof(KilnPassInfo, op_type_count) == 120);  // since 1.12

static_assert(sizeof(KilnKernelInfo) == 88);
static_assert(offsetof(KilnKernelInfo, struct_size) == 0);
static_assert(offsetof(KilnKernelInfo, name) == 8);
static_assert(offsetof(KilnKernelInfo, domain) == 16);
static_assert(offsetof(KilnKernelInfo, op_type) == 24);
static_assert(offsetof(KilnKernelInfo, since_version) == 32);
static_assert(offsetof(KilnKernelInfo, until_version) == 36);
static_assert(offsetof(KilnKernelInfo, elem_types) == 40);
static_assert(offsetof(KilnKernelInfo, elem_type_count) == 48);
static_assert(offsetof(KilnKernelInfo, flags) == 56);
static_assert(offsetof(KilnKernelInfo, reserved0) == 60);
static_assert(offsetof(KilnKernelInfo, user_data) == 64);
static_assert(offsetof(KilnKernelInfo, compute) == 72);
static_assert(offsetof(KilnKernelInfo, destroy_user_data) == 80);

static_assert(sizeof(KilnOpSchemaInfo) == 80);
static_assert(offsetof(KilnOpSchemaInfo, struct_size) == 0);
static_assert(offsetof(KilnOpSchemaInfo, domain) == 8);
static_assert(offsetof(KilnOpSchemaInfo, op_type) == 16);
static_assert(offsetof(KilnOpSchemaInfo, doc) == 24);
static_assert(offsetof(KilnOpSchemaInfo, since_version) == 32);
static_assert(offsetof(KilnOpSchemaInfo, min_inputs) == 36);
static_assert(offsetof(KilnOpSchemaInfo, max_inputs) == 40);
static_assert(offsetof(KilnOpSchemaInfo, min_outputs) == 44);
static_assert(offsetof(KilnOpSchemaInfo, max_outputs) == 48);
static_assert(offsetof(KilnOpSchemaInfo, reserved0) == 52);
static_assert(offsetof(KilnOpSchemaInfo, user_data) == 56);
static_assert(offsetof(KilnOpSchemaInfo, infer_shapes) == 64);
static_assert(offsetof(KilnOpSchemaInfo, destroy_user_data) == 72);

static_assert(sizeof(KilnFusionRulePackInfo) == 32);
static_assert(offsetof(KilnFusionRulePackInfo, struct_size) == 0);
static_assert(offsetof(KilnFusionRulePackInfo, name) == 8);
static_assert(offsetof(KilnFusionRulePackInfo, yaml) == 16);
static_assert(offsetof(KilnFusionRulePackInfo, source_name) == 24);

static_assert(sizeof(KilnTargetInfo) == 136);  // 120 before 1.6, 128 before 1.7
static_assert(offsetof(KilnTargetInfo, struct_size) == 0);
static_assert(offsetof(KilnTargetInfo, name) == 8);
static_assert(offsetof(KilnTargetInfo, description) == 16);  // since 1.3
static_assert(offsetof(KilnTargetInfo, engines) == 24);  // since 1.3
static_assert(offsetof(KilnTargetInfo, engine_count) == 32);  // since 1.3
static_assert(offsetof(KilnTargetInfo, formats) == 40);  // since 1.3
static_assert(offsetof(KilnTargetInfo, format_count) == 48);  // since 1.3
static_assert(offsetof(KilnTargetInfo, details_json) == 56);  // since 1.3
static_assert(offsetof(KilnTargetInfo, user_data) == 64);  // since 1.3
static_assert(offsetof(KilnTargetInfo, node_engine) == 72);  // since 1.3
static_assert(offsetof(KilnTargetInfo, estimate) == 80);  // since 1.3
static_assert(offsetof(KilnTargetInfo, sync_cost) == 88);  // since 1.3
static_assert(offsetof(KilnTargetInfo, transfer_cost) == 96);  // since 1.3
static_assert(offsetof(KilnTargetInfo, preferred_format) == 104);  // since 1.3
static_assert(offsetof(KilnTargetInfo, destroy_user_data) == 112);  // since 1.3
static_assert(offsetof(KilnTargetInfo, storage_shape) == 120);  // since 1.6
static_assert(offsetof(KilnTargetInfo, describe) == 128);  // since 1.7

static_assert(sizeof(KilnCostEstimate) == 104);  // since 1.3
static_assert(offsetof(KilnCostEstimate, struct_size) == 0);
static_assert(offsetof(KilnCostEstimate, seconds) == 8);
static_assert(offsetof(KilnCostEstimate, compute_seconds) == 16);
static_assert(offsetof(KilnCostEstimate, memory_seconds) == 24);
static_assert(offsetof(KilnCostEstimate, launch_seconds) == 32);
static_assert(offsetof(KilnCostEstimate, barrier_seconds) == 40);
static_assert(offsetof(KilnCostEstimate, flops) == 48);
static_assert(offsetof(KilnCostEstimate, offchip_bytes) == 56);
static_assert(offsetof(KilnCostEstimate, onchip_bytes) == 64);
static_assert(offsetof(KilnCostEstimate, launches) == 72);
static_assert(offsetof(KilnCostEstimate, barriers) == 76);
static_assert(offsetof(KilnCostEstimate, feasible) == 80);
static_assert(offsetof(KilnCostEstimate, reserved0) == 84);
static_assert(offsetof(KilnCostEstimate, engine) == 88);
static_assert(offsetof(KilnCostEstimate, reason) == 96);

static_assert(sizeof(KilnFunctionInfo) == 64);  // since 1.2
static_assert(offsetof(KilnFunctionInfo, struct_size) == 0);
static_assert(offsetof(KilnFunctionInfo, domain) == 8);
static_assert(offsetof(KilnFunctionInfo, name) == 16);
static_assert(offsetof(KilnFunctionInfo, input_names) == 24);
static_assert(offsetof(KilnFunctionInfo, input_count) == 32);
static_assert(offsetof(KilnFunctionInfo, attribute_names) == 40);
static_assert(offsetof(KilnFunctionInfo, attribute_count) == 48);
static_assert(offsetof(KilnFunctionInfo, doc) == 56);

static_assert(sizeof(KilnOutlineInfo) == 64);  // since 1.2
static_assert(offsetof(KilnOutlineInfo, struct_size) == 0);
static_assert(offsetof(KilnOutlineInfo, domain) == 8);
static_assert(offsetof(KilnOutlineInfo, name) == 16);
static_assert(offsetof(KilnOutlineInfo, outputs) == 24);
static_assert(offsetof(KilnOutlineInfo, output_count) == 32);
static_assert(offsetof(KilnOutlineInfo, flags) == 40);
static_assert(offsetof(KilnOutlineInfo, reserved0) == 44);
static_assert(offsetof(KilnOutlineInfo, embed_constant_max_bytes) == 48);
static_assert(offsetof(KilnOutlineInfo, call_name) == 56);

static_assert(sizeof(KilnHostApi) == 1544);  // grows with every minor version
static_assert(offsetof(KilnHostApi, struct_size) == 0);
static_assert(offsetof(KilnHostApi, abi_version) == 8);
static_assert(offsetof(KilnHostApi, reserved0) == 12);
static_assert(offsetof(KilnHostApi, host_version) == 16);
static_assert(offsetof(KilnHostApi, status_create) == 24);
static_assert(offsetof(KilnHostApi, status_code) == 32);
static_assert(offsetof(KilnHostApi, status_message) == 40);
static_assert(offsetof(KilnHostApi, status_release) == 48);
static_assert(offsetof(KilnHostApi, log) == 56);
static_assert(offsetof(KilnHostApi, log_enabled) == 64);
static_assert(offsetof(KilnHostApi, register_pass) == 72);
static_assert(offsetof(KilnHostApi, register_kernel) == 80);
static_assert(offsetof(KilnHostApi, register_op_schema) == 88);
static_assert(offsetof(KilnHostApi, register_fusion_rules) == 96);
static_assert(offsetof(KilnHostApi, register_target) == 104);
static_assert(offsetof(KilnHostApi, register_option) == 112);
static_assert(offsetof(KilnHostApi, graph_name) == 120);
static_assert(offsetof(KilnHostApi, graph_node_count) == 128);
static_assert(offsetof(KilnHostApi, graph_nodes) == 136);
static_assert(offsetof(KilnHostApi, graph_input_count) == 144);
static_assert(offsetof(KilnHostApi, graph_input) == 152);
static_assert(offsetof(KilnHostApi, graph_output_count) == 160);
static_assert(offsetof(KilnHostApi, graph_output) == 168);
static_assert(offsetof(KilnHostApi, graph_find_value) == 176);
static_assert(offsetof(KilnHostApi, graph_opset_version) == 184);
static_assert(offsetof(KilnHostApi, node_op_type) == 192);
static_assert(offsetof(KilnHostApi, node_domain) == 200);
static_assert(offsetof(KilnHostApi, node_name) == 208);
static_assert(offsetof(KilnHostApi, node_graph) == 216);
static_assert(offsetof(KilnHostApi, node_input_count) == 224);
static_assert(offsetof(KilnHostApi, node_input) == 232);
static_assert(offsetof(KilnHostApi, node_output_count) == 240);
static_assert(offsetof(KilnHostApi, node_output) == 248);
static_assert(offsetof(KilnHostApi, node_attribute_count) == 256);
static_assert(offsetof(KilnHostApi, node_attribute_at) == 264);
static_assert(offsetof(KilnHostApi, node_attribute) == 272);
static_assert(offsetof(KilnHostApi, attr_name) == 280);
static_assert(offsetof(KilnHostApi, attr_type) == 288);
static_assert(offsetof(KilnHostApi, attr_int) == 296);
static_assert(offsetof(KilnHostApi, attr_float) == 304);
static_assert(offsetof(KilnHostApi, attr_string) == 312);
static_assert(offsetof(KilnHostApi, attr_ints) == 320);
static_assert(offsetof(KilnHostApi, attr_floats) == 328);
static_assert(offsetof(KilnHostApi, attr_strings) == 336);
static_assert(offsetof(KilnHostApi, attr_tensor) == 344);
static_assert(offsetof(KilnHostApi, node_set_attr_int) == 352);
static_assert(offsetof(KilnHostApi, node_set_attr_float) == 360);
static_assert(offsetof(KilnHostApi, node_set_attr_string) == 368);
static_assert(offsetof(KilnHostApi, node_set_attr_ints) == 376);
static_assert(offsetof(KilnHostApi, node_set_attr_floats) == 384);
static_assert(offsetof(KilnHostApi, node_set_attr_strings) == 392);
static_assert(offsetof(KilnHostApi, node_set_attr_tensor) == 400);
static_assert(offsetof(KilnHostApi, node_remove_attr) == 408);
static_assert(offsetof(KilnHostApi, value_name) == 416);
static_assert(offsetof(KilnHostApi, value_type_kind) == 424);
static_assert(offsetof(KilnHostApi, value_elem_type) == 432);
static_assert(offsetof(KilnHostApi, value_shape) == 440);
static_assert(offsetof(KilnHostApi, value_dim_symbol) == 448);
static_assert(offsetof(KilnHostApi, value_producer) == 456);
static_assert(offsetof(KilnHostApi, value_consumer_count) == 464);
static_assert(offsetof(KilnHostApi, value_consumer) == 472);
static_assert(offsetof(KilnHostApi, value_is_graph_input) == 480);
static_assert(offsetof(KilnHostApi, value_is_graph_output) == 488);
static_assert(offsetof(KilnHostApi, value_is_constant) == 496);
static_assert(offsetof(KilnHostApi, value_constant_data) == 504);
static_assert(offsetof(KilnHostApi, value_set_tensor_type) == 512);
static_assert(offsetof(KilnHostApi, graph_create_node) == 520);
static_assert(offsetof(KilnHostApi, graph_create_constant) == 528);
static_assert(offsetof(KilnHostApi, graph_create_constant_from_view) == 536);
static_assert(offsetof(KilnHostApi, tensor_set_string) == 544);
static_assert(offsetof(KilnHostApi, node_set_input) == 552);
static_assert(offsetof(KilnHostApi, value_replace_all_uses) == 560);
static_assert(offsetof(KilnHostApi, node_delete) == 568);
static_assert(offsetof(KilnHostApi, node_isolate_and_delete) == 576);
static_assert(offsetof(KilnHostApi, node_is_deleted) == 584);
static_assert(offsetof(KilnHostApi, infer_shapes) == 592);
static_assert(offsetof(KilnHostApi, node_compute) == 600);
static_assert(offsetof(KilnHostApi, compute_result_output_count) == 608);
static_assert(offsetof(KilnHostApi, compute_result_output) == 616);
static_assert(offsetof(KilnHostApi, compute_result_release) == 624);
static_assert(offsetof(KilnHostApi, pass_request_repass) == 632);
static_assert(offsetof(KilnHostApi, pass_request_immediate_repass) == 640);
static_assert(offsetof(KilnHostApi, pass_add_counter) == 648);
static_assert(offsetof(KilnHostApi, pass_option_bool) == 656);
static_assert(offsetof(KilnHostApi, pass_option_int) == 664);
static_assert(offsetof(KilnHostApi, pass_option_float) == 672);
static_assert(offsetof(KilnHostApi, pass_option_string) == 680);
static_assert(offsetof(KilnHostApi, kernel_input_count) == 688);
static_assert(offsetof(KilnHostApi, kernel_input_kind) == 696);
static_assert(offsetof(KilnHostApi, kernel_input) == 704);
static_assert(offsetof(KilnHostApi, kernel_input_sequence_length) == 712);
static_assert(offsetof(KilnHostApi, kernel_input_sequence_element) == 720);
static_assert(offsetof(KilnHostApi, kernel_attribute) == 728);
static_assert(offsetof(KilnHostApi, kernel_output_count) == 736);
static_assert(offsetof(KilnHostApi, kernel_alloc_output) == 744);
static_assert(offsetof(KilnHostApi, kernel_alloc_output_sequence) == 752);
static_assert(offsetof(KilnHostApi, kernel_alloc_sequence_element) == 760);
static_assert(offsetof(KilnHostApi, kernel_set_output_none) == 768);
static_assert(offsetof(KilnHostApi, kernel_opset_version) == 776);
static_assert(offsetof(KilnHostApi, infer_input_count) == 784);
static_assert(offsetof(KilnHostApi, infer_input_elem_type) == 792);
static_assert(offsetof(KilnHostApi, infer_input_shape) == 800);
static_assert(offsetof(KilnHostApi, infer_input_dim_symbol) == 808);
static_assert(offsetof(KilnHostApi, infer_input_constant) == 816);
static_assert(offsetof(KilnHostApi, infer_attribute) == 824);
static_assert(offsetof(KilnHostApi, infer_output_count) == 832);
static_assert(offsetof(KilnHostApi, infer_set_output) == 840);
static_assert(offsetof(KilnHostApi, node_subgraph_count) == 848);  // since 1.1
static_assert(offsetof(KilnHostApi, node_subgraph) == 856);  // since 1.1
static_assert(offsetof(KilnHostApi, attr_graph) == 864);  // since 1.1
static_assert(offsetof(KilnHostApi, graph_parent_node) == 872);  // since 1.1
static_assert(offsetof(KilnHostApi, value_graph) == 880);  // since 1.1
static_assert(offsetof(KilnHostApi, node_inline_subgraph) == 888);  // since 1.1
static_assert(offsetof(KilnHostApi, graph_model) == 896);  // since 1.2
static_assert(offsetof(KilnHostApi, model_graph) == 904);  // since 1.2
static_assert(offsetof(KilnHostApi, model_ir_version) == 912);  // since 1.2
static_assert(offsetof(KilnHostApi, model_opset_count) == 920);  // since 1.2
static_assert(offsetof(KilnHostApi, model_opset_at) == 928);  // since 1.2
static_assert(offsetof(KilnHostApi, model_ensure_opset) == 936);  // since 1.2
static_assert(offsetof(KilnHostApi, model_metadata_count) == 944);  // since 1.2
static_assert(offsetof(KilnHostApi, model_metadata_at) == 952);  // since 1.2
static_assert(offsetof(KilnHostApi, model_set_metadata) == 960);  // since 1.2
static_assert(offsetof(KilnHostApi, model_function_count) == 968);  // since 1.2
static_assert(offsetof(KilnHostApi, model_function_at) == 976);  // since 1.2
static_assert(offsetof(KilnHostApi, model_find_function) == 984);  // since 1.2
static_assert(offsetof(KilnHostApi, model_create_function) == 992);  // since 1.2
static_assert(offsetof(KilnHostApi, function_remove) == 1000);  // since 1.2
static_assert(offsetof(KilnHostApi, function_name) == 1008);  // since 1.2
static_assert(offsetof(KilnHostApi, function_domain) == 1016);  // since 1.2
static_assert(offsetof(KilnHostApi, function_body) == 1024);  // since 1.2
static_assert(offsetof(KilnHostApi, function_attribute_count) == 1032);  // since 1.2
static_assert(offsetof(KilnHostApi, function_attribute_name) == 1040);  // since 1.2
static_assert(offsetof(KilnHostApi, function_call_count) == 1048);  // since 1.2
static_assert(offsetof(KilnHostApi, node_function) == 1056);  // since 1.2
static_assert(offsetof(KilnHostApi, graph_function) == 1064);  // since 1.2
static_assert(offsetof(KilnHostApi, graph_outline) == 1072);  // since 1.2
static_assert(offsetof(KilnHostApi, node_inline_function) == 1080);  // since 1.2
static_assert(offsetof(KilnHostApi, graph_initializer_count) == 1088);  // since 1.2
static_assert(offsetof(KilnHostApi, graph_initializer_at) == 1096);  // since 1.2
static_assert(offsetof(KilnHostApi, value_remove) == 1104);  // since 1.2
static_assert(offsetof(KilnHostApi, graph_add_input) == 1112);  // since 1.2
static_assert(offsetof(KilnHostApi, graph_add_output) == 1120);  // since 1.2
static_assert(offsetof(KilnHostApi, graph_set_output) == 1128);  // since 1.2
static_assert(offsetof(KilnHostApi, graph_remove_output) == 1136);  // since 1.2
static_assert(offsetof(KilnHostApi, value_set_name) == 1144);  // since 1.2
static_assert(offsetof(KilnHostApi, node_set_name) == 1152);  // since 1.2
static_assert(offsetof(KilnHostApi, node_id) == 1160);  // since 1.2
static_assert(offsetof(KilnHostApi, model_find_node) == 1168);  // since 1.2
static_assert(offsetof(KilnHostApi, node_set_attr_graph) == 1176);  // since 1.2
static_assert(offsetof(KilnHostApi, node_set_attr_graphs) == 1184);  // since 1.2
static_assert(offsetof(KilnHostApi, node_set_attr_tensors) == 1192);  // since 1.2
static_assert(offsetof(KilnHostApi, node_set_attr_ref) == 1200);  // since 1.2
static_assert(offsetof(KilnHostApi, attr_graph_count) == 1208);  // since 1.2
static_assert(offsetof(KilnHostApi, attr_graph_at) == 1216);  // since 1.2
static_assert(offsetof(KilnHostApi, attr_tensor_count) == 1224);  // since 1.2
static_assert(offsetof(KilnHostApi, attr_tensor_at) == 1232);  // since 1.2
static_assert(offsetof(KilnHostApi, attr_ref_name) == 1240);  // since 1.2
static_assert(offsetof(KilnHostApi, node_set_annotation) == 1248);  // since 1.2
static_assert(offsetof(KilnHostApi, node_annotation) == 1256);  // since 1.2
static_assert(offsetof(KilnHostApi, node_annotation_count) == 1264);  // since 1.2
static_assert(offsetof(KilnHostApi, node_annotation_at) == 1272);  // since 1.2
static_assert(offsetof(KilnHostApi, value_set_annotation) == 1280);  // since 1.2
static_assert(offsetof(KilnHostApi, value_annotation) == 1288);  // since 1.2
static_assert(offsetof(KilnHostApi, value_annotation_count) == 1296);  // since 1.2
static_assert(offsetof(KilnHostApi, value_annotation_at) == 1304);  // since 1.2
static_assert(offsetof(KilnHostApi, graph_topo_order) == 1312);  // since 1.2
static_assert(offsetof(KilnHostApi, node_topo_index) == 1320);  // since 1.2
static_assert(offsetof(KilnHostApi, node_idom) == 1328);  // since 1.2
static_assert(offsetof(KilnHostApi, node_ipostdom) == 1336);  // since 1.2
static_assert(offsetof(KilnHostApi, node_dominates) == 1344);  // since 1.2
static_assert(offsetof(KilnHostApi, node_postdominates) == 1352);  // since 1.2
static_assert(offsetof(KilnHostApi, node_reaches) == 1360);  // since 1.2
static_assert(offsetof(KilnHostApi, nodes_are_convex) == 1368);  // since 1.2
static_assert(offsetof(KilnHostApi, pass_add_report) == 1376);  // since 1.2
static_assert(offsetof(KilnHostApi, fusion_rule_pack_count) == 1384);  // since 1.2
static_assert(offsetof(KilnHostApi, fusion_rule_pack_at) == 1392);  // since 1.2
static_assert(offsetof(KilnHostApi, target_active) == 1400);  // since 1.3
static_assert(offsetof(KilnHostApi, target_engine_count) == 1408);  // since 1.3
static_assert(offsetof(KilnHostApi, target_engine_at) == 1416);  // since 1.3
static_assert(offsetof(KilnHostApi, target_node_engine) == 1424);  // since 1.3
static_assert(offsetof(KilnHostApi, target_estimate) == 1432);  // since 1.3
static_assert(offsetof(KilnHostApi, target_sync_cost) == 1440);  // since 1.3
static_assert(offsetof(KilnHostApi, target_transfer_cost) == 1448);  // since 1.3
static_assert(offsetof(KilnHostApi, target_preferred_format) == 1456);  // since 1.3
static_assert(offsetof(KilnHostApi, host_config_dir) == 1464);  // since 1.3
static_assert(offsetof(KilnHostApi, node_call_instance) == 1472);  // since 1.3
static_assert(offsetof(KilnHostApi, value_shape_data) == 1480);  // since 1.4
static_assert(offsetof(KilnHostApi, graph_set_node_order) == 1488);  // since 1.5
static_assert(offsetof(KilnHostApi, target_storage_shape) == 1496);  // since 1.6
static_assert(offsetof(KilnHostApi, value_constant_bytes) == 1504);  // since 1.8
static_assert(offsetof(KilnHostApi, graph_create_computed_constant) == 1512);  // since 1.10
static_assert(offsetof(KilnHostApi, value_constant_read) == 1520);  // since 1.10
static_assert(offsetof(KilnHostApi, stored_bytes_read) == 1528);  // since 1.11
static_assert(offsetof(KilnHostApi, pass_checkpoint) == 1536);  // since 1.13

// ---- the constants of 1.2 ----
static_assert(KILN_ABI_VERSION_1_2 == 0x00010002u);
static_assert(KILN_ANALYSIS_TOPO_ORDER == 1 && KILN_ANALYSIS_DOMINATORS == 2 && KILN_ANALYSIS_POST_DOMINATORS == 4 &&
              KILN_ANALYSIS_REACHABILITY == 8 && KILN_ANALYSIS_ALL == 15);
static_assert(KILN_OUTLINE_ALLOW_EXTRA_OUTPUTS == 1 && KILN_OUTLINE_REUSE_BODY == 2 &&
              KILN_OUTLINE_ATTRIBUTES_BY_REFERENCE == 4 && KILN_OUTLINE_ASSUME_CONVEX == 8);
static_assert(std::string_view(KILN_TEMPORARY_MARK_PREFIX) == "__kiln_");
static_assert(std::string_view(KILN_ANNOTATIONS_METADATA_KEY) == "kiln.annotations");

// ---- the constants and callback types of 1.3 ----
static_assert(KILN_ABI_VERSION_1_3 == 0x00010003u);
static_assert(KILN_STATUS_CONFIG_ERROR == 10);
static_assert(std::is_same_v<KilnTargetEngineFn, KilnStatus* (*)(void*, KilnNode*, const char**)>);
static_assert(std::is_same_v<KilnTargetEstimateFn,
                             KilnStatus* (*)(void*, KilnNode* const*, size_t, KilnCostEstimate*)>);
static_assert(std::is_same_v<KilnTargetSyncCostFn, KilnStatus* (*)(void*, const char*, const char*, double*)>);
static_assert(std::is_same_v<KilnTargetTransferCostFn,
                             KilnStatus* (*)(void*, KilnValue*, const char*, const char*, double*)>);
static_assert(std::is_same_v<KilnTargetFormatFn, KilnStatus* (*)(void*, KilnNode*, int32_t, size_t, const char**)>);
static_assert(std::is_same_v<decltype(KilnHostApi::target_active), const char* (*)(void)>);
static_assert(std::is_same_v<decltype(KilnHostApi::target_estimate),
                             KilnStatus* (*)(KilnNode* const*, size_t, KilnCostEstimate*)>);
static_assert(std::is_same_v<decltype(KilnHostApi::host_config_dir), const char* (*)(void)>);
static_assert(std::is_same_v<decltype(KilnHostApi::node_call_instance), KilnStatus* (*)(KilnNode*, KilnGraph**)>);

// ---- 1.4 ----
static_assert(KILN_ABI_VERSION_1_4 == 0x00010004u);
static_assert(std::is_same_v<decltype(KilnHostApi::value_shape_data),
                             int64_t (*)(KilnValue*, int64_t*, const char**, size_t, int32_t*)>);

// ---- 1.5 ----
static_assert(KILN_ABI_VERSION_1_5 == 0x00010005u);
static_assert(std::is_same_v<decltype(KilnHostApi::graph_set_node_order),
                             KilnStatus* (*)(KilnGraph*, KilnNode* const*, size_t)>);

// ---- 1.6 ----
static_assert(KILN_ABI_VERSION_1_6 == 0x00010006u);
static_assert(std::is_same_v<KilnTargetStorageShapeFn,
                             KilnStatus* (*)(void*, KilnValue*, const char*, int64_t*, size_t, size_t*)>);
static_assert(std::is_same_v<decltype(KilnHostApi::target_storage_shape),
                             KilnStatus* (*)(KilnValue*, const char*, int64_t*, size_t, size_t*)>);

// ---- 1.7 ----
static_assert(KILN_ABI_VERSION_1_7 == 0x00010007u);
static_assert(std::is_same_v<KilnTargetDescribeFn, KilnStatus* (*)(void*, KilnTargetInfo*)>);

// ---- 1.8 ----
static_assert(KILN_ABI_VERSION_1_8 == 0x00010008u);
static_assert(std::is_same_v<decltype(KilnHostApi::value_constant_bytes), const KilnTensorView* (*)(KilnValue*)>);

// ---- 1.9 ----
static_assert(KILN_ABI_VERSION_1_9 == 0x00010009u);
static_assert(std::is_same_v<KilnPreparePassFn, KilnStatus* (*)(void*)>);
static_assert(std::is_same_v<decltype(KilnPassInfo::prepare), KilnPreparePassFn>);

// ---- 1.10 ----
static_assert(KILN_ABI_VERSION_1_10 == 0x0001000Au);
static_assert(std::is_same_v<KilnComputeBytesFn, KilnStatus* (*)(void*, const KilnTensorView* const*, size_t, uint64_t,
                                                                  uint64_t, void*)>);
static_assert(std::is_same_v<decltype(KilnHostApi::graph_create_computed_constant),
                             KilnStatus* (*)(KilnGraph*, const char*, int32_t, size_t, const int64_t*,
                                             KilnValue* const*, size_t, KilnComputeBytesFn, void*, KilnDestroyFn,
                                             KilnValue**)>);
static_assert(std::is_same_v<decltype(KilnHostApi::value_constant_read),
                             KilnStatus* (*)(KilnValue*, uint64_t, uint64_t, void*)>);

// ---- 1.11 ----
static_assert(KILN_ABI_VERSION_1_11 == 0x0001000Bu);
static_assert(std::is_same_v<decltype(KilnHostApi::stored_bytes_read), void (*)(const void*, uint64_t, void*)>);

// ---- 1.12 ----
static_assert(KILN_ABI_VERSION_1_12 == 0x0001000Cu);
static_assert(std::is_same_v<decltype(KilnPassInfo::op_types), const char* const*>);

// ---- 1.13 ----
static_assert(KILN_ABI_VERSION_1_13 == 0x0001000Du);
static_assert(std::is_same_v<decltype(KilnHostApi::pass_checkpoint), KilnStatus* (*)(KilnPassContext*, int32_t*)>);

// ---- the entry point never changes ----
static_assert(std::is_same_v<decltype(&kiln_plugin_entry), KilnPluginEntryFn>);
static_assert(std::is_same_v<KilnPluginEntryFn,
                             KilnStatus* (*)(const KilnHostApi*, uint32_t, const KilnPluginDescriptor**)>);

namespace {

TEST(AbiVersion, MacrosPackMajorAndMinor) {
  EXPECT_EQ(KILN_ABI_VERSION, 0x0001000Du);
  EXPECT_EQ(KILN_ABI_VERSION_1_0, 0x00010000u);
  EXPECT_EQ(KILN_ABI_VERSION_1_1, 0x00010001u);
  EXPECT_EQ(KILN_ABI_VERSION_1_2, 0x00010002u);
  EXPECT_EQ(KILN_ABI_VERSION_1_3, 0x00010003u);
  EXPECT_EQ(KILN_ABI_VERSION_1_4, 0x00010004u);
  EXPECT_EQ(KILN_ABI_VERSION_1_5, 0x00010005u);
  EXPECT_EQ(KILN_ABI_VERSION_1_6, 0x00010006u);
  EXPECT_EQ(KILN_ABI_VERSION_1_7, 0x00010007u);
  EXPECT_EQ(KILN_ABI_VERSION_1_8, 0x00010008u);
  EXPECT_EQ(KILN_ABI_VERSION_1_9, 0x00010009u);
  EXPECT_EQ(KILN_ABI_VERSION_1_10, 0x0001000Au);
  EXPECT_EQ(KILN_ABI_VERSION_1_11, 0x0001000Bu);
  EXPECT_EQ(KILN_ABI_VERSION_1_12, 0x0001000Cu);
  EXPECT_EQ(KILN_ABI_VERSION_1_13, KILN_ABI_VERSION);
  EXPECT_EQ(KILN_ABI_VERSION_GET_MAJOR(KILN_ABI_VERSION), 1u);
  EXPECT_EQ(KILN_ABI_VERSION_GET_MINOR(KILN_ABI_VERSION), 13u);
  EXPECT_EQ(KILN_ABI_VERSION_GET_MAJOR(KILN_MAKE_ABI_VERSION(2, 7)), 2u);
  EXPECT_EQ(KILN_ABI_VERSION_GET_MINOR(KILN_MAKE_ABI_VERSION(2, 7)), 7u);
  EXPECT_STREQ(KILN_PLUGIN_ENTRY_SYMBOL, "kiln_plugin_entry");
  EXPECT_EQ(kiln_test_v1_0_abi_version, KILN_ABI_VERSION_1_0);
}

// Every struct and field of 1.0, compared with the current header: same offset, same size.
TEST(AbiLayout, Version1_0IsAStrictPrefix) {
  struct Current {
    const char* type;
    const char* field;
    size_t offset;
    size_t size;
  };
  const Current current[] = {
#define KILN_STRUCT(type) {#type, nullptr, sizeof(type), 0},
#define KILN_FIELD(type, field) {#type, #field, offsetof(type, field), sizeof(((type*)nullptr)->field)},
#include "abi_v1_0_fields.inc"
#undef KILN_FIELD
#undef KILN_STRUCT
  };
  ASSERT_EQ(kiln_test_v1_0_layout_count, std::size(current));
  for (size_t i = 0; i < std::size(current); ++i) {
    const KilnTestLayoutEntry& old = kiln_test_v1_0_layout[i];
    SCOPED_TRACE(std::string(old.type) + "." + (old.field ? old.field : "(struct)"));
    ASSERT_STREQ(old.type, current[i].type);
    if (old.field) {
      ASSERT_STREQ(old.field, current[i].field);
      EXPECT_EQ(old.offset, current[i].offset);
      EXPECT_EQ(old.size, current[i].size);
    } else {
      EXPECT_LE(old.offset, current[i].offset) << "a struct never shrinks";
      EXPECT_GE(old.offset, old.size) << "a 1.0 struct passes the 1.0 minimum";
    }
  }
}

// The KILN_*_SIZE_1_0 minimums mean the same in both headers, and end exactly at the last 1.0 field.
TEST(AbiLayout, MinimumSizesEndAtTheLast1_0Field) {
  struct Minimum {
    const char* type;
    size_t size;
  };
  const Minimum minimums[] = {
      {"KilnTensorView", KILN_TENSOR_VIEW_SIZE_1_0},
      {"KilnPluginDescriptor", KILN_PLUGIN_DESCRIPTOR_SIZE_1_0},
      {"KilnOptionInfo", KILN_OPTION_INFO_SIZE_1_0},
      {"KilnPassInfo", KILN_PASS_INFO_SIZE_1_0},
      {"KilnKernelInfo", KILN_KERNEL_INFO_SIZE_1_0},
      {"KilnOpSchemaInfo", KILN_OP_SCHEMA_INFO_SIZE_1_0},
      {"KilnFusionRulePackInfo", KILN_FUSION_RULE_PACK_INFO_SIZE_1_0},
      {"KilnTargetInfo", KILN_TARGET_INFO_SIZE_1_0},
      {"KilnHostApi", KILN_HOST_API_SIZE_1_0},
  };
  for (const Minimum& m : minimums) {
    SCOPED_TRACE(m.type);
    const KilnTestLayoutEntry* old_struct = nullptr;
    const KilnTestLayoutEntry* last_field = nullptr;
    for (size_t i = 0; i < kiln_test_v1_0_layout_count; ++i) {
      const KilnTestLayoutEntry& e = kiln_test_v1_0_layout[i];
      if (std::strcmp(e.type, m.type) != 0) continue;
      if (e.field) last_field = &e;
      else old_struct = &e;
    }
    ASSERT_NE(old_struct, nullptr);
    ASSERT_NE(last_field, nullptr);
    EXPECT_EQ(old_struct->size, m.size);
    EXPECT_EQ(m.size, last_field->offset + last_field->size);
  }
  EXPECT_EQ(KILN_PASS_INFO_SIZE_1_0, 88u);
  EXPECT_EQ(KILN_PLUGIN_DESCRIPTOR_SIZE_1_0, 40u);
  EXPECT_EQ(KILN_HOST_API_SIZE_1_0, 24u + 8u * 103u);
}

TEST(AbiLayout, StructHasFieldGatesNewerFields) {
  KilnPassInfo pass{};
  pass.struct_size = KILN_PASS_INFO_SIZE_1_0;
  EXPECT_TRUE(KILN_STRUCT_HAS_FIELD(&pass, KilnPassInfo, destroy_user_data));
  EXPECT_FALSE(KILN_STRUCT_HAS_FIELD(&pass, KilnPassInfo, on_finish_graph));
  pass.struct_size = KILN_STRUCT_SIZE_UNTIL(KilnPassInfo, on_finish_graph);  // a 1.1 plugin's
  EXPECT_TRUE(KILN_STRUCT_HAS_FIELD(&pass, KilnPassInfo, on_finish_graph));
  EXPECT_FALSE(KILN_STRUCT_HAS_FIELD(&pass, KilnPassInfo, preserved_analyses));
  pass.struct_size = KILN_STRUCT_SIZE_UNTIL(KilnPassInfo, reserved1);  // a 1.2 .. 1.8 plugin's
  EXPECT_TRUE(KILN_STRUCT_HAS_FIELD(&pass, KilnPassInfo, reserved1));
  EXPECT_FALSE(KILN_STRUCT_HAS_FIELD(&pass, KilnPassInfo, prepare));
  pass.struct_size = sizeof pass;
  EXPECT_TRUE(KILN_STRUCT_HAS_FIELD(&pass, KilnPassInfo, prepare));

  KilnPluginDescriptor descriptor{};
  descriptor.struct_size = KILN_PLUGIN_DESCRIPTOR_SIZE_1_0;
  EXPECT_FALSE(KILN_STRUCT_HAS_FIELD(&descriptor, KilnPluginDescriptor, description));

  KilnHostApi host{};
  host.struct_size = KILN_HOST_API_SIZE_1_0;
  EXPECT_TRUE(KILN_HOST_HAS(&host, infer_set_output));
  EXPECT_FALSE(KILN_HOST_HAS(&host, node_subgraph_count));
  EXPECT_FALSE(KILN_HOST_HAS(&host, node_inline_subgraph));
  host.struct_size = KILN_STRUCT_SIZE_UNTIL(KilnHostApi, node_inline_subgraph);  // a 1.1 host's
  EXPECT_TRUE(KILN_HOST_HAS(&host, node_inline_subgraph));
  EXPECT_FALSE(KILN_HOST_HAS(&host, graph_model));
  host.struct_size = sizeof host;
  EXPECT_TRUE(KILN_HOST_HAS(&host, fusion_rule_pack_at));
}

// What a host reads from a plugin of another major version, to name it in the error, never moves.
TEST(AbiLayout, PrefixFrozenAcrossMajorVersions) {
  EXPECT_EQ(offsetof(KilnPluginDescriptor, abi_version), 8u);
  EXPECT_EQ(offsetof(KilnPluginDescriptor, name), 16u);
  EXPECT_EQ(offsetof(KilnPluginDescriptor, version), 24u);
  EXPECT_EQ(offsetof(KilnHostApi, abi_version), 8u);
  EXPECT_EQ(offsetof(KilnHostApi, status_create), 24u);
}

TEST(AbiTypes, ElementSizes) {
  EXPECT_EQ(kiln_elem_type_size(KILN_ELEM_UNDEFINED), 0u);
  EXPECT_EQ(kiln_elem_type_size(KILN_ELEM_BOOL), 1u);
  EXPECT_EQ(kiln_elem_type_size(KILN_ELEM_FLOAT16), 2u);
  EXPECT_EQ(kiln_elem_type_size(KILN_ELEM_BFLOAT16), 2u);
  EXPECT_EQ(kiln_elem_type_size(KILN_ELEM_FLOAT), 4u);
  EXPECT_EQ(kiln_elem_type_size(KILN_ELEM_INT64), 8u);
  EXPECT_EQ(kiln_elem_type_size(KILN_ELEM_COMPLEX64), 8u);
  EXPECT_EQ(kiln_elem_type_size(KILN_ELEM_COMPLEX128), 16u);
  EXPECT_EQ(kiln_elem_type_size(KILN_ELEM_STRING), sizeof(KilnString));
  EXPECT_EQ(kiln_elem_type_size(17), 0u);  // a newer ONNX type passes through, unsized
}

}  // namespace
