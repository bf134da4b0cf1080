// op_node.h - a node as the cost model sees it: op type, attributes and the tensors it reads and writes, as plain
// data. The plugin's thin layer (ascend_target_plugin.cc) fills these from sdk::Node handles; tests build them by
// hand. Tensors are told apart by id (any string unique within one estimate), which is how a group finds its
// internal edges.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace kiln::ascend {

struct TensorInfo {
  std::string id;
  int32_t elem_type = 0;                      // ONNX TensorProto.DataType
  std::optional<std::vector<int64_t>> dims;   // nullopt: rank unknown; -1: a dimension that is not a number
  std::vector<std::string> symbols;           // per dimension, the symbol of a -1 ("batch"), or ""
  bool constant = false;                      // an initializer or a Constant's output
  std::optional<std::vector<int64_t>> int_values;  // a small integer constant's values (TopK's k, axes)
  bool read_outside = false;                  // an output read outside the group, or a graph output
};

using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>, std::vector<double>>;

struct OpNode {
  std::string op_type;
  std::string domain;  // "" for ONNX's default domain
  std::string name;
  int64_t opset = 0;   // the default domain's opset version; 0 when not known (read as the newest)
  std::vector<std::optional<TensorInfo>> inputs;  // nullopt: an empty optional slot
  std::vector<std::optional<TensorInfo>> outputs;
  std::map<std::string, AttrValue, std::less<>> attrs;

  // Attribute getters: the fallback when absent or of another type.
  int64_t Int(std::string_view key, int64_t fallback) const {
    auto it = attrs.find(key);
    if (it == attrs.end()) return fallback;
    if (const int64_t* v = std::get_if<int64_t>(&it->second)) return *v;
    return fallback;
  }
  double Float(std::string_view key, double fallback) const {
    auto it = attrs.find(key);
    if (it == attrs.end()) return fallback;
    if (const double* v = std::get_if<double>(&it->second)) return *v;
    if (const int64_t* v = std::get_if<int64_t>(&it->second)) return static_cast<double>(*v);
    return fallback;
  }
  std::string Str(std::string_view key, std::string fallback) const {
    auto it = attrs.find(key);
    if (it == attrs.end()) return fallback;
    if (const std::string* v = std::get_if<std::string>(&it->second)) return *v;
    return fallback;
  }
  std::optional<std::vector<int64_t>> Ints(std::string_view key) const {
    auto it = attrs.find(key);
    if (it == attrs.end()) return std::nullopt;
    if (const auto* v = std::get_if<std::vector<int64_t>>(&it->second)) return *v;
    return std::nullopt;
  }
  const TensorInfo* Input(size_t i) const { return i < inputs.size() && inputs[i] ? &*inputs[i] : nullptr; }
  const TensorInfo* Output(size_t i) const { return i < outputs.size() && outputs[i] ? &*outputs[i] : nullptr; }
  // "Conv" for the default domain, "com.microsoft::FusedConv" for another: the key of op_classes' ops lists.
  std::string Key() const {
    if (domain.empty() || domain == "ai.onnx") return op_type;
    return domain + "::" + op_type;
  }
};

}  // namespace kiln::ascend
