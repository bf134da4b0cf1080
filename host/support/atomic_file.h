// A file written under a temporary name beside its destination and renamed into place on Commit(), so readers
// never see a partial file and a failure leaves nothing behind.
#pragma once

#include <fstream>
#include <string>

namespace kiln {

class AtomicFile {
 public:
  // Opens the temporary file; throws kiln::Error (usage) naming `path` when its directory is not writable.
  explicit AtomicFile(std::string path);
  ~AtomicFile();  // removes the temporary file unless committed
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  std::ofstream& stream() { return out_; }
  const std::string& path() const { return path_; }
  // Flushes, closes and renames into place; throws kiln::Error when any step fails.
  void Commit();

 private:
  std::string path_, temp_;
  std::ofstream out_;
  bool done_ = false;
};

}  // namespace kiln
