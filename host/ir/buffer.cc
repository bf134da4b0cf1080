#include "ir/buffer.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <cstring>

#include "support/error.h"

namespace kiln {
namespace {

class StringBuffer final : public Buffer {
 public:
  explicit StringBuffer(std::string&& s) : bytes_(std::move(s)) {}
  const std::byte* data() const override { return reinterpret_cast<const std::byte*>(bytes_.data()); }
  size_t size() const override { return bytes_.size(); }

 private:
  std::string bytes_;
};

class SliceBuffer final : public Buffer {
 public:
  SliceBuffer(std::shared_ptr<const Buffer> whole, size_t offset, size_t size)
      : whole_(std::move(whole)), offset_(offset), size_(size) {}
  const std::byte* data() const override { return whole_->data() + offset_; }
  size_t size() const override { return size_; }
  bool is_mapped() const override { return whole_->is_mapped(); }

 private:
  std::shared_ptr<const Buffer> whole_;
  size_t offset_, size_;
};

// Zeroed heap bytes from calloc: large blocks come straight from the kernel already zero, so nothing is
// written twice; blocks of several megabytes ask for huge pages (one fault per 2 MB instead of 512).
class ZeroedBuffer final : public Buffer {
 public:
  explicit ZeroedBuffer(size_t n) : data_(static_cast<std::byte*>(std::calloc(n == 0 ? 1 : n, 1))), size_(n) {
    if (data_ == nullptr) throw std::bad_alloc();
    constexpr uintptr_t kHuge = uintptr_t{2} << 20;
    if (n >= 4 * kHuge) {
      uintptr_t first = (reinterpret_cast<uintptr_t>(data_) + kHuge - 1) / kHuge * kHuge;
      uintptr_t last = (reinterpret_cast<uintptr_t>(data_) + n) / kHuge * kHuge;
      if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
    }
  }
  ~ZeroedBuffer() override { std::free(data_); }
  const std::byte* data() const override { return data_; }
  size_t size() const override { return size_; }

 private:
  std::byte* data_;
  size_t size_;
};

class MappedFile final : public Buffer {
 public:
  MappedFile(void* addr, size_t size) : addr_(addr), size_(size) {}
  ~MappedFile() override {
    if (addr_ != nullptr) munmap(addr_, size_);
  }
  const std::byte* data() const override { return static_cast<const std::byte*>(addr_); }
  size_t size() const override { return size_; }
  bool is_mapped() const override { return true; }

 private:
  void* addr_;
  size_t size_;
};

}  // namespace

std::shared_ptr<const Buffer> Buffer::FromString(std::string&& bytes) {
  return std::make_shared<StringBuffer>(std::move(bytes));
}

std::shared_ptr<const Buffer> Buffer::Copy(std::span<const std::byte> bytes) {
  return FromString(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

std::shared_ptr<const Buffer> Buffer::Zeros(size_t n) { return std::make_shared<ZeroedBuffer>(n); }

std::shared_ptr<const Buffer> Buffer::Slice(std::shared_ptr<const Buffer> whole, size_t offset, size_t size) {
  if (offset == 0 && size == whole->size()) return whole;
  return std::make_shared<SliceBuffer>(std::move(whole), offset, size);
}

std::shared_ptr<const Buffer> Buffer::MapFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw ModelError(path + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw ModelError(path + ": not a regular file");
  }
  size_t size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    ::close(fd);
    return FromString(std::string());
  }
  void* addr = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  int err = errno;
  ::close(fd);
  if (addr == MAP_FAILED) throw ModelError(path + ": cannot map: " + std::strerror(err));
  return std::make_shared<MappedFile>(addr, size);
}

}  // namespace kiln
