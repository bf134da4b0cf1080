// A file written under a temporary name beside its destination and renamed into place on Commit(), so readers
// never see a partial file and a failure leaves nothing behind.
#pragma once

#include <atomic>
#include <cstdint>
#include <fstream>
#include <string>
#include <thread>

namespace kiln {

class AtomicFile {
 public:
  // Opens the temporary file; throws kiln::Error (usage) naming `path` when its directory is not writable.
  explicit AtomicFile(std::string path);
  ~AtomicFile();  // removes the temporary file unless committed
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Starts writing `bytes` zero bytes to the temporary file on another thread, for a caller that will write
  // about that much later: the page cache then holds the file's pages when the real bytes arrive, and writing
  // them is a copy into memory the kernel already has. Allocating fresh page-cache pages is most of the cost of
  // writing a large file (on the 2-core VM here, `dd` of a 100 MB file: 57 to 209 ms into a new file, 36 to
  // 42 ms over the same file's cached pages). The thread does that work while the caller is busy elsewhere
  // (kiln compile: while the model loads and the passes run): it moves it to an idle core, it does not remove
  // it. A hint: nothing happens on a single-core machine or for an empty request, and an error in the thread
  // (disk full) only ends it early; the real write reports its own. The first stream() call stops the thread
  // before anything is written, and Commit() cuts the file to what was written.
  void Prefill(uint64_t bytes);

  std::ofstream& stream();
  // Appends `n` bytes of the open file `fd` from `offset`, copied by the kernel (copy_file_range): never read into
  // this process, where a writer reading them from a mapping pays a page-table entry per page (writing ResNet-50's
  // 97 MB of weights on the VM here: 74 ms through a mapping, 20 ms this way). Returns how many it copied: fewer
  // than `n`, 0 included, where the kernel cannot copy between these files (another file system, an old kernel);
  // the caller writes the rest itself. stream() goes on after what was copied.
  uint64_t CopyFrom(int fd, uint64_t offset, uint64_t n);
  // The bytes CopyFrom copied so far in this process (tests tell the kernel's copy from a write with it).
  static uint64_t CopiedBytes();
  const std::string& path() const { return path_; }
  // Flushes, closes and renames into place; throws kiln::Error when any step fails.
  void Commit();

 private:
  void StopPrefill();
  void ReplaceWithTemp();  // Commit's last step: the temporary file takes the destination's name

  std::string path_, temp_;
  std::ofstream out_;
  bool done_ = false;
  std::thread prefill_;
  std::atomic<bool> stop_prefill_{false};
  bool prefilled_ = false;
  int copy_fd_ = -1;  // a second descriptor of the temporary file, for CopyFrom's writes at an offset
};

}  // namespace kiln
