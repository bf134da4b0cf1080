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

  // Raw bytes the loader kept out of the parsed protobuf for the tensor at `proto` (see weight_split.h): lent just
  // before that tensor is imported, which takes them. One tensor at a time (the importer parses the weight split's
  // initializers one at a time): a second Lend replaces what the first lent and no import took.
  void Lend(const onnx::TensorProto* proto, std::shared_ptr<const Buffer> bytes) {
    lent_proto_ = proto;
    lent_ = std::move(bytes);
  }
  std::shared_ptr<const Buffer> TakeLent(const onnx::TensorProto* proto) {
    if (proto != lent_proto_) return nullptr;
    lent_proto_ = nullptr;
    return std::move(lent_);
  }

 private:
  std::string model_name_, base_dir_;
  std::map<std::string, std::shared_ptr<const Buffer>> files_;
  const onnx::TensorProto* lent_proto_ = nullptr;
  std::shared_ptr<const Buffer> lent_;
};

}  // namespace kiln
