// Buffer::Computed and Buffer::SettleComputed (ir/buffer.h): bytes a function makes when they are first needed.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ir/buffer.h"
#include "support/error.h"

namespace kiln {
namespace {

constexpr size_t kAnyElementAlignment = alignof(std::max_align_t);

class ComputedBuffer final : public Buffer {
 public:
  ComputedBuffer(size_t size, size_t granule, ComputeFn compute)
      : size_(size), granule_(std::max<size_t>(granule, 1)),
        compute_(std::make_shared<const ComputeFn>(std::move(compute))) {}

  const std::byte* data() const override {
    if (const std::byte* made = made_.load(std::memory_order_acquire)) return made;
    std::lock_guard lock(mu_);
    if (whole_) return whole_->data();
    if (!compute_) throw PluginError(failure_);
    std::shared_ptr<const Buffer> whole = Buffer::Zeros(size_);
    if (size_ != 0) (*compute_)(0, {const_cast<std::byte*>(whole->data()), size_});  // throws: stays computable
    whole_ = std::move(whole);
    compute_.reset();
    made_.store(whole_->data(), std::memory_order_release);
    return whole_->data();
  }
  size_t size() const override { return size_; }

  bool ComputeInto(size_t offset, std::span<std::byte> out) const override {
    std::shared_ptr<const ComputeFn> compute;
    {
      std::lock_guard lock(mu_);
      if (whole_) return false;
      if (!compute_) throw PluginError(failure_);
      compute = compute_;  // held for the call: settling may drop the buffer's own reference meanwhile
    }
    if (offset > size_ || out.size() > size_ - offset)
      throw InternalError("bytes " + std::to_string(offset) + ".." + std::to_string(offset + out.size()) +
                          " of a computed buffer of " + std::to_string(size_));
    if (out.empty()) return true;
    const size_t first = offset / granule_ * granule_;
    const size_t end = std::min(size_, (offset + out.size() + granule_ - 1) / granule_ * granule_);
    const bool aligned = reinterpret_cast<uintptr_t>(out.data()) % kAnyElementAlignment == 0;
    if (first == offset && end == offset + out.size() && aligned) {
      (*compute)(offset, out);
      return true;
    }
    std::unique_ptr<std::byte[]> scratch(new std::byte[end - first]);  // operator new[]: aligned for any type
    (*compute)(first, {scratch.get(), end - first});
    std::memcpy(out.data(), scratch.get() + (offset - first), out.size());
    return true;
  }

  void Settle() const {
    try {
      (void)data();
    } catch (const std::exception& e) {
      std::lock_guard lock(mu_);
      if (!whole_ && compute_) {
        failure_ = e.what();
        compute_.reset();
      }
    }
  }

 private:
  const size_t size_, granule_;
  mutable std::mutex mu_;
  mutable std::shared_ptr<const ComputeFn> compute_;  // until made whole or settled
  mutable std::shared_ptr<const Buffer> whole_;       // once made whole
  mutable std::atomic<const std::byte*> made_{nullptr};
  mutable std::string failure_;  // the message of a computation that failed when settled
};

// Computed buffers with an owner, not yet settled, for SettleComputed; expired entries go as the list grows.
struct Owned {
  const void* owner;
  std::weak_ptr<const ComputedBuffer> buffer;
};
std::mutex registry_mu;
std::vector<Owned> registry;

}  // namespace

std::shared_ptr<const Buffer> Buffer::Computed(size_t size, size_t granule, ComputeFn compute, const void* owner) {
  auto buffer = std::make_shared<const ComputedBuffer>(size, granule, std::move(compute));
  if (owner == nullptr) return buffer;
  std::lock_guard lock(registry_mu);
  if (registry.size() >= 64 && (registry.size() & (registry.size() - 1)) == 0)
    std::erase_if(registry, [](const Owned& o) { return o.buffer.expired(); });
  registry.push_back({owner, buffer});
  return buffer;
}

void Buffer::SettleComputed(const void* owner) {
  std::vector<std::shared_ptr<const ComputedBuffer>> live;
  {
    std::lock_guard lock(registry_mu);
    std::erase_if(registry, [&](const Owned& o) {
      if (o.owner != owner) return false;
      if (auto b = o.buffer.lock()) live.push_back(std::move(b));
      return true;
    });
  }
  for (const auto& b : live) b->Settle();
}

void Buffer::AbandonComputed() {
  std::lock_guard lock(registry_mu);
  registry.clear();
}

}  // namespace kiln
