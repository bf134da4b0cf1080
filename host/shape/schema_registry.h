// ONNX operator schemas for Kiln's lookups. ONNX 1.12 builds its whole registry (444 schemas, every version of every
// op) the first time anything looks a schema up: 14 ms on the development VM, half of a small model's whole
// `kiln compile` once the process has started. FindOnnxSchema builds instead the one schema a lookup asks for, from
// ONNX's own function for it (the list comes from ONNX's operator-set headers at configure time,
// cmake/OnnxSchemaList.cmake), and answers exactly as onnx::OpSchemaRegistry::Schema would. Plugins' schemas live
// in ONNX's registry: once one is registered (which builds the registry first), every lookup goes there.
#pragma once

#include <cstddef>
#include <string>

namespace onnx {
class ISchemaRegistry;
class OpSchema;
}  // namespace onnx

namespace kiln {

// The schema of `op_type` in `domain` ("" for ai.onnx, as in ONNX's registry) at opset `version`: the one of the
// highest since-version at or below it; null when there is none. Thread-safe; a schema never moves or goes away.
const onnx::OpSchema* FindOnnxSchema(const std::string& op_type, int version, const std::string& domain);

// The same lookup for ONNX code that takes a registry (inference through a function body).
const onnx::ISchemaRegistry& OnnxSchemas();

// Builds ONNX's whole registry here, and from then on FindOnnxSchema reads it. Code about to register a schema into
// it (a plugin's) calls this first.
void EnsureOnnxSchemas();

// The number of ONNX schema functions FindOnnxSchema knows (for tests: ONNX's registry holds as many).
size_t KnownOnnxSchemaCount();

}  // namespace kiln
