#include "support/atomic_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "support/error.h"

namespace kiln {

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  temp_ = path_ + ".kiln-tmp-" + std::to_string(::getpid());
  out_.open(temp_, std::ios::binary | std::ios::trunc);
  if (!out_) throw UsageError(path_ + ": cannot write here: " + std::strerror(errno));
}

AtomicFile::~AtomicFile() {
  if (done_) return;
  out_.close();
  std::remove(temp_.c_str());
}

void AtomicFile::Commit() {
  out_.flush();
  bool ok = static_cast<bool>(out_);
  out_.close();
  if (!ok || out_.fail()) throw UsageError(path_ + ": writing failed (disk full?)");
  if (std::rename(temp_.c_str(), path_.c_str()) != 0)
    throw UsageError(path_ + ": cannot rename into place: " + std::strerror(errno));
  done_ = true;
}

}  // namespace kiln
