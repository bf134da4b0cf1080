// Immutable tensor bytes, held once and shared. A Buffer is either bytes the host owns (taken from a parsed
// model without copying, or made by a pass) or a window onto a memory-mapped external-data file. Tensors hold
// `std::shared_ptr<const Buffer>`, so copying a Tensor or reading its data never copies the bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace kiln {

class Buffer {
 public:
  virtual ~Buffer() = default;
  // The bytes, aligned for their element type (kernels and passes read them typed).
  virtual const std::byte* data() const = 0;
  virtual size_t size() const = 0;
  std::span<const std::byte> bytes() const { return {data(), size()}; }
  // The same bytes where they lie, for byte-wise use only (writing, hashing, comparing): never a copy, and no
  // alignment promised. Differs from bytes() only for an AlignedSlice whose window is not aligned.
  virtual std::span<const std::byte> raw_bytes() const { return bytes(); }
  // True when the bytes live in a memory-mapped file rather than on the heap.
  virtual bool is_mapped() const { return false; }
  // Where raw_bytes() lie in a file this buffer keeps open: a mapped file and windows onto one (the first 256
  // mappings alive keep their descriptor); nullopt for any other. A writer can then copy them file to file in the
  // kernel (AtomicFile::CopyFrom), without reading them through this process's page tables.
  struct FileSpan {
    int fd;
    uint64_t offset;
  };
  virtual std::optional<FileSpan> file_span() const { return std::nullopt; }
  // For a memory-mapped file and windows onto one (others ignore both): ReleasePages drops the whole pages inside
  // [offset, offset + size) from the resident set (a later read faults them back in from the file: nothing writes
  // to the mapping); PopulatePages maps every page touching that range in one call (MADV_POPULATE_READ, a hint
  // that kernels before 5.14 ignore), where reading it would fault them in a few at a time.
  virtual void ReleasePages(size_t /*offset*/, size_t /*size*/) const {}
  virtual void PopulatePages(size_t /*offset*/, size_t /*size*/) const {}
  // For bytes computed on demand (Buffer::Computed) and not yet made whole: writes bytes [offset, offset +
  // out.size()) to `out` and returns true, so that a writer streams them through a small buffer; false for any
  // other buffer, whose raw_bytes() are at hand. Throws what the computation throws (kiln::Error).
  virtual bool ComputeInto(size_t /*offset*/, std::span<std::byte> /*out*/) const { return false; }
  // Copies bytes [offset, offset + out.size()) to `out`: made by the computation where the buffer is computed and
  // not yet whole (never making it whole), copied from raw_bytes() otherwise, read from the file at any size where
  // they lie in a mapped one (a window onto a model file maps no page until read: a fault costs tens of
  // microseconds here, pread one or two; CommonSubexpressionEliminationPass reading the first KiB of each of
  // ResNet-50's weights: 2.4 -> 0.3 ms). The range must lie inside the buffer.
  void Read(size_t offset, std::span<std::byte> out) const {
    if (!out.empty() && !ComputeInto(offset, out)) CopyStored(raw_bytes().data() + offset, out, 0);
  }
  // memcpy(out, at, out.size()) for bytes that may lie in a mapped file (MapFile): where all of them do, the file
  // keeps its descriptor and the range is `from_file_at_least` bytes or more, it is read from the file (pread)
  // instead, which touches none of the mapping's pages. Bytes read once go several times faster so: under
  // virtualisation every 4 KiB page of a mapping costs a fault and a nested page walk, where pread copies from the
  // page cache through the kernel's own mapping (100 MB of ResNet-50's weights: 8 ms read, 40-50 ms through the
  // mapping). Below the default a system call costs more than the few pages it would spare where they are mapped
  // already. The bytes must stay alive for the call.
  static constexpr size_t kFileReadBytes = size_t{64} << 10;
  static void CopyStored(const void* at, std::span<std::byte> out, size_t from_file_at_least = kFileReadBytes);
  static size_t PageSize();

  // Takes the string's storage without copying it.
  static std::shared_ptr<const Buffer> FromString(std::string&& bytes);
  static std::shared_ptr<const Buffer> Copy(std::span<const std::byte> bytes);
  static std::shared_ptr<const Buffer> Zeros(size_t n);
  // Copies each piece into one shared block and returns a buffer per piece, in order. A piece's bytes are aligned
  // for any element type and sit behind a 16-byte header in the block; every piece keeps the whole block alive and
  // costs no allocation of its own. For a model's many small weights: a 64-byte weight took 128 bytes as a slice
  // object and its bytes in an arena, and takes 80 packed. The block is mapped in huge pages where large (Zeros).
  static std::vector<std::shared_ptr<const Buffer>> Pack(std::span<const std::span<const std::byte>> pieces);
  // A window [offset, offset+size) onto another buffer; keeps `whole` alive.
  static std::shared_ptr<const Buffer> Slice(std::shared_ptr<const Buffer> whole, size_t offset, size_t size);
  // A window like Slice whose data() is aligned to `align` (a power of two): the window itself where it is aligned,
  // else a copy made when data() is first called, thread-safely. raw_bytes() reads the window and copies nothing,
  // so a weight that is only written out again is never copied (protobuf places raw_data at any offset).
  static std::shared_ptr<const Buffer> AlignedSlice(std::shared_ptr<const Buffer> whole, size_t offset, size_t size,
                                                    size_t align);
  // The bytes AlignedSlice windows have copied so far in this process: a test can tell that a compile read a
  // weight typed only where it had to.
  static uint64_t AlignedCopyBytes();
  // Bytes made when first needed (computed constants, ABI 1.10): compute(offset, out) fills bytes [offset,
  // offset + out.size()), both multiples of `granule` (the element size), `out` aligned for any element type; it is
  // called for any range, in any order, from any thread. data() and raw_bytes() make the whole once, thread-safely,
  // and then drop `compute` (and what it holds); until then ComputeInto makes any range, widened to whole granules
  // through a scratch copy where it must be. A compute that throws leaves the buffer as it was, to be asked again.
  // `owner` names what the function's code belongs to, for SettleComputed (a plugin set; null for the host's own).
  using ComputeFn = std::function<void(size_t offset, std::span<std::byte> out)>;
  static std::shared_ptr<const Buffer> Computed(size_t size, size_t granule, ComputeFn compute,
                                                const void* owner = nullptr);
  // Makes every computed buffer of `owner` still alive whole and drops its function: the code behind the functions
  // is about to go away (the owner's plugins unloading). One whose computation fails then fails every later read
  // with its message.
  static void SettleComputed(const void* owner);
  // Forgets every computed buffer, so that no SettleComputed makes it whole: for a process about to end that keeps
  // its model unfreed (kiln compile), where making bytes nobody will read would cost as much as the fold itself.
  static void AbandonComputed();
  // Maps a whole file read-only. Throws kiln::Error (invalid model) naming the file when it cannot.
  static std::shared_ptr<const Buffer> MapFile(const std::string& path);
};

}  // namespace kiln
