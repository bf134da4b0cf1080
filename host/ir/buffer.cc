#include "ir/buffer.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
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

std::shared_ptr<const Buffer> Buffer::Zeros(size_t n) { return FromString(std::string(n, '\0')); }

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
