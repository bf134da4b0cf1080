#include "ir/tensor.h"

#include <cstring>

namespace kiln {

Tensor Tensor::FromStrings(std::vector<int64_t> dims, std::vector<std::string> strings) {
  Tensor t(DataType::kString, std::move(dims), nullptr);
  t.MutableRareParts().strings = std::move(strings);
  return t;
}

const Tensor::RareParts& Tensor::NoRareParts() {
  static const RareParts none;
  return none;
}

void Tensor::set_name(std::string n) {
  if (n.empty() && (!rare_ || rare_->name.empty())) return;
  MutableRareParts().name = std::move(n);
  if (rare_->empty()) rare_.reset();
}

Tensor::RareParts& Tensor::MutableRareParts() {
  if (!rare_) rare_ = RareParts{};
  return *rare_;
}

int64_t Tensor::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims_) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) return -1;
  }
  return n;
}

std::optional<uint64_t> Tensor::expected_bytes() const {
  int64_t n = num_elements();
  if (n < 0) return std::nullopt;
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<uint64_t>(n), ElementSize(type_), &bytes)) return std::nullopt;
  return bytes;
}

uint64_t Tensor::byte_size() const {
  if (type_ != DataType::kString) return data_ ? data_->size() : 0;
  uint64_t n = 0;
  for (const auto& s : strings()) n += s.size();
  return n;
}

bool Tensor::SameValue(const Tensor& o) const {
  if (type_ != o.type_ || dims_ != o.dims_) return false;
  if (type_ == DataType::kString) return strings() == o.strings();
  auto a = raw_bytes(), b = o.raw_bytes();
  return a.size() == b.size() && (a.data() == b.data() || std::memcmp(a.data(), b.data(), a.size()) == 0);
}

}  // namespace kiln
