// ONNX builds its operator schema registry (every version of every op: 444 schemas in ONNX 1.12) the first time
// anything looks a schema up, about a fifth of a small model's whole `kiln compile`. SchemaRegistryWarmup starts that
// build on a second thread when a command starts, so that it overlaps plugin loading and model reading. The first
// lookup on the main thread then waits for it: the registry is a function-local static, and C++ makes every other
// caller wait for its initialisation.
#pragma once

#include <thread>

namespace kiln {

// Starts building ONNX's schema registry on another thread; the destructor waits for the build to end.
class SchemaRegistryWarmup {
 public:
  SchemaRegistryWarmup();
  ~SchemaRegistryWarmup();
  SchemaRegistryWarmup(const SchemaRegistryWarmup&) = delete;
  SchemaRegistryWarmup& operator=(const SchemaRegistryWarmup&) = delete;

 private:
  std::thread thread_;
};

// Builds ONNX's schema registry here, or waits for the thread building it. Code that reads or writes the registry's
// parts that a lookup does not build first (DomainToVersionRange, a schema registration) calls this before them.
void EnsureOnnxSchemas();

}  // namespace kiln
