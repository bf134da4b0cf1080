// AtomicFile (host/support/atomic_file.h): the destination appears only on Commit, with exactly the bytes written,
// whether or not a prefill ran ahead of them (shorter, longer or nothing written), and a file never committed
// leaves nothing behind, its prefill stopped. Over an existing path, Commit does what rename() would.
#include "support/atomic_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

namespace kiln {
namespace {

namespace fs = std::filesystem;

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kiln_atomic_file_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    path_ = (dir_ / "out.onnx").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Bytes that differ from one offset to the next, so a zero, a shift or a lost block shows.
  static std::string Pattern(size_t n) {
    std::string s(n, '\0');
    for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(1 + (i * 7 + i / 4096) % 251);
    return s;
  }
  std::string Read() const {
    std::ifstream in(path_, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  // Waits (up to 10 s) for the one file in the directory, the temporary one, to reach `bytes`.
  bool TempGrowsTo(uint64_t bytes) const {
    for (int i = 0; i < 1000; ++i) {
      for (const auto& e : fs::directory_iterator(dir_))
        if (e.file_size() >= bytes) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
  size_t FilesInDir() const { return static_cast<size_t>(std::distance(fs::directory_iterator(dir_), {})); }

  fs::path dir_;
  std::string path_;
};

TEST_F(AtomicFileTest, APrefillLongerThanTheBytesWrittenIsCutToThem) {
  const std::string bytes = Pattern(100'000);
  {
    AtomicFile f(path_);
    f.Prefill(size_t{3} << 20);
    // Let the prefill get past the bytes about to be written, so the cut is what the test sees (it always runs
    // on two cores or more; on one, Prefill does nothing and there is nothing to cut).
    if (std::thread::hardware_concurrency() >= 2) {
      EXPECT_TRUE(TempGrowsTo(size_t{3} << 20));
    }
    f.stream().write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    EXPECT_FALSE(fs::exists(path_));
    f.Commit();
  }
  EXPECT_EQ(fs::file_size(path_), bytes.size());
  EXPECT_EQ(Read(), bytes);
  EXPECT_EQ(FilesInDir(), 1u);
}

TEST_F(AtomicFileTest, BytesWrittenPastThePrefillAreKeptInOrder) {
  const std::string bytes = Pattern((size_t{2} << 20) + 12'345);
  {
    AtomicFile f(path_);
    f.Prefill(5000);
    f.stream().write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    f.Commit();
  }
  EXPECT_EQ(Read(), bytes);
}

TEST_F(AtomicFileTest, APrefilledFileWithNothingWrittenCommitsEmpty) {
  {
    AtomicFile f(path_);
    f.Prefill(size_t{1} << 20);
    f.Commit();
  }
  ASSERT_TRUE(fs::exists(path_));
  EXPECT_EQ(fs::file_size(path_), 0u);
}

TEST_F(AtomicFileTest, AFileNeverCommittedLeavesNothingBehindWithItsPrefill) {
  {
    AtomicFile f(path_);
    f.Prefill(size_t{64} << 20);  // still running, most likely, when the file is dropped
    f.stream() << "partial";
  }
  EXPECT_EQ(FilesInDir(), 0u);
  {
    AtomicFile f(path_);
    f.Prefill(size_t{64} << 20);  // dropped before anything is written
  }
  EXPECT_EQ(FilesInDir(), 0u);
}

TEST_F(AtomicFileTest, CopyFromPutsAFileRangeWhereTheStreamIsAndTheStreamGoesOnAfterIt) {
  const std::string source = Pattern(300'000), source_path = (dir_ / "source.bin").string();
  std::ofstream(source_path, std::ios::binary) << source;
  const int fd = ::open(source_path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  const uint64_t copied_before = AtomicFile::CopiedBytes();
  {
    AtomicFile f(path_);
    f.Prefill(size_t{1} << 20);  // stopped before the copy: its zeros never land on the copied bytes
    f.stream() << "head";
    EXPECT_EQ(f.CopyFrom(fd, 1000, 200'000), 200'000u);  // one file system here: the kernel copies it all
    f.stream() << "middle";
    EXPECT_EQ(f.CopyFrom(fd, 7, 5), 5u);
    f.stream() << "tail";
    f.Commit();
  }
  ::close(fd);
  EXPECT_EQ(Read(), "head" + source.substr(1000, 200'000) + "middle" + source.substr(7, 5) + "tail");
  EXPECT_EQ(AtomicFile::CopiedBytes() - copied_before, 200'005u);
}

TEST_F(AtomicFileTest, CopyFromWhatTheKernelCannotCopyCopiesNothingAndTheStreamGoesOn) {
  AtomicFile f(path_);
  f.stream() << "head";
  EXPECT_EQ(f.CopyFrom(-1, 0, 100), 0u);  // no such file: the caller writes the bytes itself
  f.stream() << "tail";
  f.Commit();
  EXPECT_EQ(Read(), "headtail");
}

// Over an existing file the names are swapped and the old file removed (ReplaceWithTemp): the result is rename()'s.
TEST_F(AtomicFileTest, CommitReplacesAnExistingFileAndAHardLinkKeepsTheOldBytes) {
  std::ofstream(path_, std::ios::binary) << "old bytes";
  const fs::path other = dir_ / "other_link";
  fs::create_hard_link(path_, other);
  const std::string bytes = Pattern(70'000);
  {
    AtomicFile f(path_);
    f.Prefill(size_t{1} << 20);
    f.stream().write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    EXPECT_EQ(Read(), "old bytes");  // untouched until Commit
    f.Commit();
  }
  EXPECT_EQ(Read(), bytes);
  std::ifstream in(other, std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "old bytes");
  EXPECT_EQ(FilesInDir(), 2u);  // the output and the other link: no temporary file left
}

TEST_F(AtomicFileTest, CommitOverASymlinkReplacesTheLinkNotItsTarget) {
  const fs::path target = dir_ / "target";
  std::ofstream(target, std::ios::binary) << "target bytes";
  fs::create_symlink(target, path_);
  {
    AtomicFile f(path_);
    f.stream() << "new";
    f.Commit();
  }
  EXPECT_FALSE(fs::is_symlink(path_));
  EXPECT_EQ(Read(), "new");
  std::ifstream in(target, std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "target bytes");
  EXPECT_EQ(FilesInDir(), 2u);
}

TEST_F(AtomicFileTest, CommitOverADirectoryFailsAndLeavesItWhereItIs) {
  fs::create_directories(fs::path(path_) / "inside");
  {
    AtomicFile f(path_);
    f.stream() << "new";
    EXPECT_ANY_THROW(f.Commit());
  }
  EXPECT_TRUE(fs::is_directory(fs::path(path_) / "inside"));
  EXPECT_EQ(FilesInDir(), 1u);  // the directory; the temporary file is gone
}

TEST_F(AtomicFileTest, AnUnwritableDirectoryIsRefusedWhenOpened) {
  EXPECT_ANY_THROW(AtomicFile((dir_ / "missing" / "out.onnx").string()));
}

}  // namespace
}  // namespace kiln
