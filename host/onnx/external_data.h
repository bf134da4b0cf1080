// Reading ONNX external data safely: a location must stay inside the model's directory, every file is mapped
// once and shared by the tensors that live in it, and offset and length are checked against the file's size
// before any tensor points into it.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "ir/buffer.h"
#include "ir/tensor.h"

namespace onnx {
class TensorProto;
}

namespace kiln {

class ExternalDataReader {
 public:
  // `model_name` is used in messages; `base_dir` is the model's directory ("" refuses all external data).
  ExternalDataReader(std::string model_name, std::string base_dir)
      : model_name_(std::move(model_name)), base_dir_(std::move(base_dir)) {}

  // The bytes of a tensor stored externally, `expected` bytes long when known (0 when the element size is not): a
  // window onto the mapped file, whose data() is aligned to `align` (Buffer::AlignedSlice: a copy, made when first
  // read typed, where the offset is not aligned; ONNX does not require aligned offsets).
  std::shared_ptr<const Buffer> Read(const ExternalDataInfo& info, uint64_t expected, const std::string& where,
                                     size_t align);

  // Raw bytes the loader kept out of the parsed protobuf for the tensor at `proto` (see weight_split.h): lent
  // before import, taken once by the import of that tensor.
  void Lend(const onnx::TensorProto* proto, std::shared_ptr<const Buffer> bytes) { lent_[proto] = std::move(bytes); }
  std::shared_ptr<const Buffer> TakeLent(const onnx::TensorProto* proto) {
    auto it = lent_.find(proto);
    if (it == lent_.end()) return nullptr;
    auto bytes = std::move(it->second);
    lent_.erase(it);
    return bytes;
  }

 private:
  std::string model_name_, base_dir_;
  std::map<std::string, std::shared_ptr<const Buffer>> files_;
  std::map<const onnx::TensorProto*, std::shared_ptr<const Buffer>> lent_;
};

}  // namespace kiln
