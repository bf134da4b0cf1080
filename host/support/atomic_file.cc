#include "support/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <system_error>

#include <kiln/kiln_helper_thread.hpp>

#include "support/error.h"

namespace kiln {

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  temp_ = path_ + ".kiln-tmp-" + std::to_string(::getpid());
  out_.open(temp_, std::ios::binary | std::ios::trunc);
  if (!out_) throw UsageError(path_ + ": cannot write here: " + std::strerror(errno));
}

namespace {
std::atomic<uint64_t> copied_bytes{0};
}  // namespace

AtomicFile::~AtomicFile() {
  StopPrefill();
  if (copy_fd_ >= 0) ::close(copy_fd_);
  if (done_) return;
  out_.close();
  std::remove(temp_.c_str());
}

void AtomicFile::Prefill(uint64_t bytes) {
  if (bytes == 0 || prefill_.joinable() || prefilled_ || std::thread::hardware_concurrency() < 2) return;
  int fd = ::open(temp_.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return;
  try {
    // Off the creator's CPU from its first step (kiln_helper_thread.hpp): the compile keeps its CPU, and the
    // zeros go beside it with the fusion packs' reading.
    prefill_ = sdk::StartOffCreatorCpu([this, fd, bytes] {
      constexpr size_t kChunk = size_t{1} << 20;
      // calloc'd: untouched zero pages, so reading them costs nothing
      std::unique_ptr<char, decltype(&std::free)> zeros(static_cast<char*>(std::calloc(kChunk, 1)), &std::free);
      for (uint64_t at = 0; zeros && at < bytes && !stop_prefill_.load(std::memory_order_relaxed);) {
        ssize_t n = ::pwrite(fd, zeros.get(), static_cast<size_t>(std::min<uint64_t>(kChunk, bytes - at)),
                             static_cast<off_t>(at));
        if (n <= 0) break;
        at += static_cast<uint64_t>(n);
      }
      ::close(fd);
    });
    prefilled_ = true;
  } catch (const std::system_error&) {
    ::close(fd);  // no thread to spare: the write allocates the pages itself, as it would without this
  }
}

void AtomicFile::StopPrefill() {
  if (!prefill_.joinable()) return;
  stop_prefill_.store(true, std::memory_order_relaxed);
  prefill_.join();
}

std::ofstream& AtomicFile::stream() {
  StopPrefill();  // its zeros must never land after the real bytes
  return out_;
}

uint64_t AtomicFile::CopyFrom(int fd, uint64_t offset, uint64_t n) {
  StopPrefill();  // its zeros must never land after the real bytes
  if (n == 0 || !out_.flush()) return 0;
  if (copy_fd_ < 0) copy_fd_ = ::open(temp_.c_str(), O_WRONLY | O_CLOEXEC);
  const std::streamoff at = out_.tellp();
  if (copy_fd_ < 0 || at < 0) return 0;
  loff_t in = static_cast<loff_t>(offset), out = static_cast<loff_t>(at);
  uint64_t done = 0;
  while (done < n) {
    const ssize_t k = ::copy_file_range(fd, &in, copy_fd_, &out, static_cast<size_t>(n - done), 0);
    if (k <= 0) break;  // EXDEV, EINVAL, ENOSYS, ... or the source ended early: the caller writes the rest
    done += static_cast<uint64_t>(k);
  }
  if (done != 0) {
    out_.seekp(at + static_cast<std::streamoff>(done));
    copied_bytes.fetch_add(done, std::memory_order_relaxed);
  }
  return done;
}

uint64_t AtomicFile::CopiedBytes() { return copied_bytes.load(std::memory_order_relaxed); }

void AtomicFile::Commit() {
  StopPrefill();
  out_.flush();
  bool ok = static_cast<bool>(out_);
  const std::streamoff written = ok ? static_cast<std::streamoff>(out_.tellp()) : -1;
  out_.close();
  if (!ok || out_.fail() || written < 0) throw UsageError(path_ + ": writing failed (disk full?)");
  // The prefill may have run past the end of what was written.
  if (prefilled_ && ::truncate(temp_.c_str(), static_cast<off_t>(written)) != 0)
    throw UsageError(path_ + ": cannot cut to its written size: " + std::strerror(errno));
  ReplaceWithTemp();
  done_ = true;
}

void AtomicFile::ReplaceWithTemp() {
  // Over an existing regular file, the two names are swapped (RENAME_EXCHANGE) and the old file, now under the
  // temporary name, is removed. rename() over it would be as atomic, but ext4 (auto_da_alloc) then allocates the new
  // file's blocks and starts writing it back inside the call: 29 ms for ResNet-50's 100 MB output on the VM here,
  // 48 ms for BERT's, 2.9 ms for ERNIE's 5 MB, against 0.1 ms into a free name. Neither way is durable before the
  // kernel writes the file back (Kiln does not fsync; a new name never was).
  struct stat st {};
  if (::lstat(path_.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
      ::renameat2(AT_FDCWD, temp_.c_str(), AT_FDCWD, path_.c_str(), RENAME_EXCHANGE) == 0) {
    if (::unlink(temp_.c_str()) == 0) return;
    const int err = errno;  // the destination turned into something else since lstat: put it back
    if (::renameat2(AT_FDCWD, temp_.c_str(), AT_FDCWD, path_.c_str(), RENAME_EXCHANGE) != 0) {
      done_ = true;  // the temporary name holds what was at the path: the destructor must not remove it
      throw UsageError(path_ + ": replaced, but what it was is left at " + temp_ + ": " + std::strerror(err));
    }
    throw UsageError(path_ + ": cannot replace it: " + std::strerror(err));
  }
  // A new name, a link or something else at the path, or a file system without RENAME_EXCHANGE.
  if (std::rename(temp_.c_str(), path_.c_str()) != 0)
    throw UsageError(path_ + ": cannot rename into place: " + std::strerror(errno));
}

}  // namespace kiln
