#include "ir/buffer.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <cstring>
#include <map>
#include <mutex>
#include <shared_mutex>

#include "support/error.h"
#include "support/page_advice.h"

namespace kiln {
namespace {

// A window's place in the file its whole lies in.
std::optional<Buffer::FileSpan> Within(const Buffer& whole, size_t offset) {
  std::optional<Buffer::FileSpan> span = whole.file_span();
  if (span) span->offset += offset;
  return span;
}

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
  std::span<const std::byte> raw_bytes() const override { return whole_->raw_bytes().subspan(offset_, size_); }
  bool is_mapped() const override { return whole_->is_mapped(); }
  std::optional<FileSpan> file_span() const override { return Within(*whole_, offset_); }
  void ReleasePages(size_t offset, size_t size) const override { whole_->ReleasePages(offset_ + offset, size); }
  void PopulatePages(size_t offset, size_t size) const override { whole_->PopulatePages(offset_ + offset, size); }

 private:
  std::shared_ptr<const Buffer> whole_;
  size_t offset_, size_;
};

// Zeroed bytes. Blocks under 2 MB come from calloc: the heap hands back memory it has touched before (a build
// inside one process reuses the last one's), where a fresh mapping costs a fault and a nested page walk per 4 KiB
// page under virtualisation even after prefaulting (pread into 512 KiB freshly mapped: 0.5 ms; into heap memory
// touched before: 0.025 ms). Blocks of 2 MB or more are mapped here, aligned to 2 MB, and ask for huge pages
// (anonymous memory is already zero, so nothing is written twice); the whole block is prefaulted in one call
// (MADV_POPULATE_WRITE), because the caller is about to write all of it and a fault per page is costly under
// virtualisation (FuseBatchNormIntoConvPass writing ResNet-50's 100 MB of folded weights spent most of its time in
// page faults). Each step past the mapping is a hint: a kernel without huge pages or MADV_POPULATE_WRITE
// (Linux < 5.14) faults the pages in on first write instead.
class ZeroedBuffer final : public Buffer {
 public:
  explicit ZeroedBuffer(size_t n) : size_(n) {
    constexpr size_t kHuge = size_t{2} << 20;
    if (n < kHuge) {
      data_ = static_cast<std::byte*>(std::calloc(n == 0 ? 1 : n, 1));
      if (data_ == nullptr) throw std::bad_alloc();
      return;
    }
    map_size_ = n + kHuge;
    void* addr = ::mmap(nullptr, map_size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (addr == MAP_FAILED) throw std::bad_alloc();
    map_ = static_cast<std::byte*>(addr);
    uintptr_t start = reinterpret_cast<uintptr_t>(addr);
    start = (start + kHuge - 1) / kHuge * kHuge;
    data_ = reinterpret_cast<std::byte*>(start);
    PrefaultForWrite(data_, n);
  }
  ~ZeroedBuffer() override {
    if (map_ != nullptr)
      ::munmap(map_, map_size_);
    else
      std::free(data_);
  }
  const std::byte* data() const override { return data_; }
  size_t size() const override { return size_; }

 private:
  std::byte* data_ = nullptr;
  std::byte* map_ = nullptr;  // the mapping when the block was mapped here (data_ is inside it, aligned)
  size_t map_size_ = 0;
  size_t size_;
};

// One piece of a Buffer::Pack block: a header (this object) and then its bytes. The block frees its memory without
// running the pieces' destructors, which have nothing to do.
class PackedPiece final : public Buffer {
 public:
  static constexpr size_t kHeader = 16;  // keeps the bytes after it aligned as the block is (16 or more)
  explicit PackedPiece(size_t size) : size_(size) {}
  const std::byte* data() const override { return reinterpret_cast<const std::byte*>(this) + kHeader; }
  size_t size() const override { return size_; }
  // The bytes a piece of `size` takes in its block, header included.
  static size_t Footprint(size_t size) { return kHeader + (size + kHeader - 1) / kHeader * kHeader; }

 private:
  size_t size_;
};
static_assert(sizeof(PackedPiece) <= PackedPiece::kHeader && alignof(PackedPiece) <= PackedPiece::kHeader);

std::atomic<uint64_t> aligned_copy_bytes{0};

// The mapped files that keep their descriptor open, by the address their mapping starts at: for file_span() and
// Buffer::CopyStored. At most kMaxFilesKeptOpen, so that a model split over thousands of external-data files cannot
// run the process out of descriptors: past the cap a mapping closes its descriptor and its bytes are written and
// read from memory, as before there were file spans.
constexpr size_t kMaxFilesKeptOpen = 256;
struct LiveMapping {
  uintptr_t end;
  int fd;
};
std::shared_mutex live_mappings_mu;
std::map<uintptr_t, LiveMapping> live_mappings;

// The descriptor and file offset of [at, at + size) when the range lies inside one live mapping.
std::optional<Buffer::FileSpan> LiveFileSpan(const void* at, size_t size) {
  const auto begin = reinterpret_cast<uintptr_t>(at);
  std::shared_lock lock(live_mappings_mu);
  auto it = live_mappings.upper_bound(begin);
  if (it == live_mappings.begin()) return std::nullopt;
  --it;
  if (begin >= it->second.end || size > it->second.end - begin) return std::nullopt;
  return Buffer::FileSpan{it->second.fd, begin - it->first};
}

// Reads out.size() bytes of `fd` from `offset`; false when the file gives fewer (shortened meanwhile) or fails.
bool ReadFile(int fd, uint64_t offset, std::span<std::byte> out) {
  while (!out.empty()) {
    const ssize_t got = ::pread(fd, out.data(), out.size(), static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    out = out.subspan(static_cast<size_t>(got));
    offset += static_cast<uint64_t>(got);
  }
  return true;
}

// A misaligned window whose aligned copy is made on first use (Buffer::AlignedSlice). From then on the copy serves
// raw_bytes() too, and the window's whole pages of a mapped file are given back: the bytes would otherwise be
// resident twice (ResNet-50's batch-norm folding reads 72 MB of such weights).
class LazilyAlignedSlice final : public Buffer {
 public:
  LazilyAlignedSlice(std::shared_ptr<const Buffer> whole, size_t offset, size_t size)
      : whole_(std::move(whole)), offset_(offset), size_(size) {}
  const std::byte* data() const override {
    std::call_once(copied_, [this] {
      auto copy = Buffer::Zeros(size_);  // aligned for any element type; mapped in huge pages when large
      CopyStored(whole_->raw_bytes().data() + offset_, {const_cast<std::byte*>(copy->data()), size_});
      copy_ = std::move(copy);
      aligned_.store(copy_->data(), std::memory_order_release);
      aligned_copy_bytes.fetch_add(size_, std::memory_order_relaxed);
      whole_->ReleasePages(offset_, size_);
    });
    return copy_->data();
  }
  size_t size() const override { return size_; }
  std::span<const std::byte> raw_bytes() const override {
    if (const std::byte* aligned = aligned_.load(std::memory_order_acquire)) return {aligned, size_};
    return whole_->raw_bytes().subspan(offset_, size_);
  }
  bool is_mapped() const override { return whole_->is_mapped(); }
  std::optional<FileSpan> file_span() const override { return Within(*whole_, offset_); }  // the copy is the same
  void PopulatePages(size_t offset, size_t size) const override {  // the window's, while it is what raw_bytes() reads
    if (aligned_.load(std::memory_order_acquire) == nullptr) whole_->PopulatePages(offset_ + offset, size);
  }

 private:
  std::shared_ptr<const Buffer> whole_;
  size_t offset_, size_;
  mutable std::once_flag copied_;
  mutable std::shared_ptr<const Buffer> copy_;
  mutable std::atomic<const std::byte*> aligned_{nullptr};
};

class MappedFile final : public Buffer {
 public:
  // Takes `fd`: keeps it for file_span() while fewer than kMaxFilesKeptOpen mappings do, else closes it.
  MappedFile(void* addr, size_t size, int fd) : addr_(addr), size_(size), fd_(fd) {
    const auto at = reinterpret_cast<uintptr_t>(addr_);
    std::unique_lock lock(live_mappings_mu);
    if (live_mappings.size() < kMaxFilesKeptOpen) {
      live_mappings[at] = {at + size_, fd_};
      return;
    }
    ::close(fd_);
    fd_ = -1;
  }
  ~MappedFile() override {
    if (fd_ >= 0) {  // forgotten before unmapping: a new mapping may then take the address
      std::unique_lock lock(live_mappings_mu);
      live_mappings.erase(reinterpret_cast<uintptr_t>(addr_));
      ::close(fd_);
    }
    if (addr_ != nullptr) munmap(addr_, size_);
  }
  const std::byte* data() const override { return static_cast<const std::byte*>(addr_); }
  size_t size() const override { return size_; }
  bool is_mapped() const override { return true; }
  std::optional<FileSpan> file_span() const override {
    return fd_ >= 0 ? std::optional<FileSpan>(FileSpan{fd_, 0}) : std::nullopt;
  }
  void ReleasePages(size_t offset, size_t size) const override {
    const uintptr_t page = PageSize(), at = reinterpret_cast<uintptr_t>(data() + offset);
    const uintptr_t first = (at + page - 1) / page * page, last = (at + size) / page * page;  // whole pages only
    if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
  }
  void PopulatePages(size_t offset, size_t size) const override {
#ifdef MADV_POPULATE_READ
    const uintptr_t page = PageSize(), at = reinterpret_cast<uintptr_t>(data() + offset);
    const uintptr_t first = at / page * page, last = (at + size + page - 1) / page * page;  // every page touched
    if (size != 0) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_POPULATE_READ);
#else
    (void)offset, (void)size;
#endif
  }

 private:
  void* addr_;
  size_t size_;
  int fd_;  // kept open for file_span(); -1 past the cap
};

}  // namespace

std::shared_ptr<const Buffer> Buffer::FromString(std::string&& bytes) {
  return std::make_shared<StringBuffer>(std::move(bytes));
}

std::shared_ptr<const Buffer> Buffer::Copy(std::span<const std::byte> bytes) {
  return FromString(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

std::shared_ptr<const Buffer> Buffer::Zeros(size_t n) { return std::make_shared<ZeroedBuffer>(n); }

std::vector<std::shared_ptr<const Buffer>> Buffer::Pack(std::span<const std::span<const std::byte>> pieces) {
  std::vector<std::shared_ptr<const Buffer>> out;
  if (pieces.empty()) return out;
  size_t total = 0;
  for (std::span<const std::byte> p : pieces) total += PackedPiece::Footprint(p.size());
  // Written once here, before any piece is shared.
  std::shared_ptr<const Buffer> block = Zeros(total);
  auto* at = const_cast<std::byte*>(block->data());
  out.reserve(pieces.size());
  for (std::span<const std::byte> p : pieces) {
    auto* piece = new (at) PackedPiece(p.size());
    if (!p.empty()) std::memcpy(at + PackedPiece::kHeader, p.data(), p.size());
    out.emplace_back(block, piece);  // shares the block's ownership
    at += PackedPiece::Footprint(p.size());
  }
  return out;
}

std::shared_ptr<const Buffer> Buffer::Slice(std::shared_ptr<const Buffer> whole, size_t offset, size_t size) {
  if (offset == 0 && size == whole->size()) return whole;
  return std::make_shared<SliceBuffer>(std::move(whole), offset, size);
}

std::shared_ptr<const Buffer> Buffer::AlignedSlice(std::shared_ptr<const Buffer> whole, size_t offset, size_t size,
                                                   size_t align) {
  if (size == 0 || reinterpret_cast<uintptr_t>(whole->data() + offset) % align == 0)
    return Slice(std::move(whole), offset, size);
  return std::make_shared<LazilyAlignedSlice>(std::move(whole), offset, size);
}

void Buffer::CopyStored(const void* at, std::span<std::byte> out, size_t from_file_at_least) {
  if (out.empty()) return;
  if (out.size() >= from_file_at_least)
    if (std::optional<FileSpan> span = LiveFileSpan(at, out.size()); span && ReadFile(span->fd, span->offset, out))
      return;
  std::memcpy(out.data(), at, out.size());
}

size_t Buffer::PageSize() {
  static const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return page;
}

uint64_t Buffer::AlignedCopyBytes() { return aligned_copy_bytes.load(std::memory_order_relaxed); }

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
  if (addr == MAP_FAILED) {
    int err = errno;
    ::close(fd);
    throw ModelError(path + ": cannot map: " + std::strerror(err));
  }
  return std::make_shared<MappedFile>(addr, size, fd);
}

}  // namespace kiln
