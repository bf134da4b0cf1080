// A node attribute. Every ONNX attribute kind is held, and every field that ONNX set is kept even where it
// disagrees with the declared kind, so that an unknown or malformed attribute survives a round trip unchanged.
// Graph-valued attributes own their subgraphs.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/boxed.h"
#include "ir/tensor.h"
#include "ir/type.h"

namespace kiln {

class Graph;

// ONNX's AttributeProto.AttributeType numbers.
enum class AttrKind : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kInt = 2,
  kString = 3,
  kTensor = 4,
  kGraph = 5,
  kFloats = 6,
  kInts = 7,
  kStrings = 8,
  kTensors = 9,
  kGraphs = 10,
  kSparseTensor = 11,
  kSparseTensors = 12,
  kTypeProto = 13,
  kTypeProtos = 14,
};

struct Attribute {
  std::string name;
  AttrKind kind = AttrKind::kUndefined;
  bool kind_declared = true;  // false: ONNX's `type` field was absent (IR v1 models)
  std::string ref_attr_name;  // set inside function bodies: the attribute refers to the caller's
  std::string doc_string;

  std::optional<float> f;
  std::optional<int64_t> i;
  std::optional<std::string> s;
  // The rarely set fields are boxed (a pointer each, 24 bytes for the three instead of 416): a node holds its
  // attributes by value, and an attribute was 760 bytes, about 4 KB for a Conv.
  Boxed<Tensor> t;
  Boxed<SparseTensor> sparse_tensor;
  Boxed<Type> tp;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::vector<Tensor> tensors;
  std::vector<SparseTensor> sparse_tensors;
  std::vector<Type> type_protos;
  // kGraph holds its one graph in graphs[0]; has_g says whether ONNX's `g` field was set.
  std::vector<std::unique_ptr<Graph>> graphs;
  bool has_g = false;

  Attribute();
  Attribute(Attribute&&) noexcept;
  Attribute& operator=(Attribute&&) noexcept;
  ~Attribute();

  static Attribute Int(std::string name, int64_t v);
  static Attribute Float(std::string name, float v);
  static Attribute String(std::string name, std::string v);
  static Attribute Ints(std::string name, std::vector<int64_t> v);
  static Attribute Floats(std::string name, std::vector<float> v);
  static Attribute TensorValue(std::string name, Tensor v);

  Graph* graph() const { return has_g && !graphs.empty() ? graphs[0].get() : nullptr; }
  // The graphs this attribute holds (one for kGraph, any number for kGraphs).
  std::vector<Graph*> subgraphs() const;
};

}  // namespace kiln
