// A constant tensor: element type, dims, and bytes shared through a Buffer (never copied on read). String
// tensors hold their strings instead. Import records how ONNX stored the data (raw bytes, typed fields, or an
// external file) so that an unoptimised round trip writes it back the same way.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ir/boxed.h"
#include "ir/buffer.h"
#include "ir/data_type.h"
#include "ir/dims.h"

namespace kiln {

struct ExternalDataInfo {
  std::string location;
  std::vector<std::pair<std::string, std::string>> entries;  // every key/value as read, in order
};

class Tensor {
 public:
  enum class Storage { kRaw, kTyped, kExternal };

  Tensor() = default;
  Tensor(DataType type, Dims dims, std::shared_ptr<const Buffer> data)
      : type_(type), dims_(std::move(dims)), data_(std::move(data)) {}
  static Tensor FromStrings(std::vector<int64_t> dims, std::vector<std::string> strings);
  // A tensor of the given element type holding a copy of `values`' bytes.
  template <typename T>
  static Tensor FromVector(DataType type, std::vector<int64_t> dims, const std::vector<T>& values) {
    return Tensor(type, std::move(dims), Buffer::Copy(std::as_bytes(std::span<const T>(values))));
  }

  DataType type() const { return type_; }
  const Dims& dims() const { return dims_; }
  // Number of elements (product of dims; 1 for a scalar).
  int64_t num_elements() const;
  // Bytes the dims and type call for; nullopt when it overflows.
  std::optional<uint64_t> expected_bytes() const;

  // The bytes, aligned for the element type (see Buffer::data()).
  std::span<const std::byte> bytes() const { return data_ ? data_->bytes() : std::span<const std::byte>(); }
  // The bytes where they lie, for byte-wise use (writing, hashing, comparing): a weight read from a file at an
  // offset its type is not aligned to is not copied for these (Buffer::raw_bytes()).
  std::span<const std::byte> raw_bytes() const { return data_ ? data_->raw_bytes() : std::span<const std::byte>(); }
  const std::shared_ptr<const Buffer>& buffer() const { return data_; }
  template <typename T>
  std::span<const T> values() const {
    auto b = bytes();
    return {reinterpret_cast<const T*>(b.data()), b.size() / sizeof(T)};
  }
  const std::vector<std::string>& strings() const { return rare_ ? rare_->strings : NoRareParts().strings; }
  // Bytes held by this tensor (string payloads included).
  uint64_t byte_size() const;

  // A tensor's own name: an attribute's tensor may carry one (ONNX's TensorProto.name). An initializer's tensor
  // keeps none, its value holds the name (Graph::AddInitializerNamed), so a weight costs no second copy of its
  // name; the name lives beside the other rare parts.
  const std::string& name() const { return rare_ ? rare_->name : NoRareParts().name; }
  void set_name(std::string n);
  const std::string& doc_string() const { return rare_ ? rare_->doc_string : NoRareParts().doc_string; }
  void set_doc_string(std::string d) {
    if (!d.empty() || rare_) MutableRareParts().doc_string = std::move(d);
  }
  Storage storage() const { return storage_; }
  void set_storage(Storage s) { storage_ = s; }
  const std::optional<ExternalDataInfo>& external() const { return rare_ ? rare_->external : NoRareParts().external; }
  void set_external(std::optional<ExternalDataInfo> e) {
    if (e || rare_) MutableRareParts().external = std::move(e);
  }
  // ONNX's deprecated `segment` field, kept verbatim when present.
  const std::optional<std::pair<int64_t, int64_t>>& segment() const {
    return rare_ ? rare_->segment : NoRareParts().segment;
  }
  void set_segment(std::optional<std::pair<int64_t, int64_t>> s) {
    if (s || rare_) MutableRareParts().segment = s;
  }

  // Same type, dims and bytes (names and storage form are not compared).
  bool SameValue(const Tensor& o) const;

 private:
  // What few tensors have, out of line: a model's weights are mostly small numeric tensors with none of it, and a
  // tensor with all of it inline took 232 bytes (a 1M-node chain holds 667k of them). Boxed: each tensor owns its
  // own, and a copy copies them (they are rare: that costs little where it happens); one pointer, where a
  // shared_ptr took two, keeps a tensor at 48 bytes.
  struct RareParts {
    std::vector<std::string> strings;
    std::string doc_string;
    std::optional<ExternalDataInfo> external;
    std::optional<std::pair<int64_t, int64_t>> segment;
    std::string name;
    bool empty() const { return name.empty() && strings.empty() && doc_string.empty() && !external && !segment; }
  };
  static const RareParts& NoRareParts();
  RareParts& MutableRareParts();

  DataType type_ = DataType::kUndefined;
  Storage storage_ = Storage::kRaw;
  Dims dims_;
  std::shared_ptr<const Buffer> data_;
  Boxed<RareParts> rare_;
};

// ONNX's SparseTensorProto: values, COO indices and the dense shape.
struct SparseTensor {
  Tensor values;
  Tensor indices;
  std::vector<int64_t> dims;
};

}  // namespace kiln
