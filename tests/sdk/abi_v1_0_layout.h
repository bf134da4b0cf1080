/* The layout of ABI 1.0, as the frozen 1.0 header compiles it (abi_v1_0_layout.c), for abi_layout_test.cc to
   compare with the current header's. */
#ifndef KILN_TESTS_SDK_ABI_V1_0_LAYOUT_H_
#define KILN_TESTS_SDK_ABI_V1_0_LAYOUT_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct KilnTestLayoutEntry {
  const char* type;
  const char* field; /* NULL for the entry of the struct itself */
  size_t offset;     /* the field's offset; for the struct's entry, sizeof(type) */
  size_t size;       /* sizeof the field; for the struct's entry, its KILN_*_SIZE_1_0 minimum (0 if none) */
} KilnTestLayoutEntry;

extern const KilnTestLayoutEntry kiln_test_v1_0_layout[];
extern const size_t kiln_test_v1_0_layout_count;
extern const uint32_t kiln_test_v1_0_abi_version;

#ifdef __cplusplus
}
#endif

#endif /* KILN_TESTS_SDK_ABI_V1_0_LAYOUT_H_ */
