/* The ABI 1.0 layout, compiled against the frozen 1.0 header: this file builds with tests/sdk/abi_v1_0 (and not
   sdk/include) on its include path, so <kiln/kiln_plugin.h> below is the 1.0 copy. */
#include <kiln/kiln_plugin.h>

#include "abi_v1_0_layout.h"

#if KILN_ABI_VERSION_MAJOR != 1 || KILN_ABI_VERSION_MINOR != 0
#error "abi_v1_0_layout.c must build against the frozen 1.0 header"
#endif

/* The smallest struct_size the host accepts, per struct; 0 where the struct has no such constant. */
#define KILN_MIN_SIZE_KilnString 0
#define KILN_MIN_SIZE_KilnTensorView KILN_TENSOR_VIEW_SIZE_1_0
#define KILN_MIN_SIZE_KilnPluginDescriptor KILN_PLUGIN_DESCRIPTOR_SIZE_1_0
#define KILN_MIN_SIZE_KilnOptionInfo KILN_OPTION_INFO_SIZE_1_0
#define KILN_MIN_SIZE_KilnPassInfo KILN_PASS_INFO_SIZE_1_0
#define KILN_MIN_SIZE_KilnKernelInfo KILN_KERNEL_INFO_SIZE_1_0
#define KILN_MIN_SIZE_KilnOpSchemaInfo KILN_OP_SCHEMA_INFO_SIZE_1_0
#define KILN_MIN_SIZE_KilnFusionRulePackInfo KILN_FUSION_RULE_PACK_INFO_SIZE_1_0
#define KILN_MIN_SIZE_KilnTargetInfo KILN_TARGET_INFO_SIZE_1_0
#define KILN_MIN_SIZE_KilnHostApi KILN_HOST_API_SIZE_1_0

const KilnTestLayoutEntry kiln_test_v1_0_layout[] = {
#define KILN_STRUCT(type) {#type, NULL, sizeof(type), KILN_MIN_SIZE_##type},
#define KILN_FIELD(type, field) {#type, #field, offsetof(type, field), sizeof(((type*)0)->field)},
#include "abi_v1_0_fields.inc"
#undef KILN_FIELD
#undef KILN_STRUCT
};

const size_t kiln_test_v1_0_layout_count = sizeof kiln_test_v1_0_layout / sizeof kiln_test_v1_0_layout[0];
const uint32_t kiln_test_v1_0_abi_version = KILN_ABI_VERSION;
