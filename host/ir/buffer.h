// Immutable tensor bytes, held once and shared. A Buffer is either bytes the host owns (taken from a parsed
// model without copying, or made by a pass) or a window onto a memory-mapped external-data file. Tensors hold
// `std::shared_ptr<const Buffer>`, so copying a Tensor or reading its data never copies the bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

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
  // For a memory-mapped file and windows onto one (others ignore both): ReleasePages drops the whole pages inside
  // [offset, offset + size) from the resident set (a later read faults them back in from the file: nothing writes
  // to the mapping); PopulatePages maps every page touching that range in one call (MADV_POPULATE_READ, a hint
  // that kernels before 5.14 ignore), where reading it would fault them in a few at a time.
  virtual void ReleasePages(size_t /*offset*/, size_t /*size*/) const {}
  virtual void PopulatePages(size_t /*offset*/, size_t /*size*/) const {}
  static size_t PageSize();

  // Takes the string's storage without copying it.
  static std::shared_ptr<const Buffer> FromString(std::string&& bytes);
  static std::shared_ptr<const Buffer> Copy(std::span<const std::byte> bytes);
  static std::shared_ptr<const Buffer> Zeros(size_t n);
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
  // Maps a whole file read-only. Throws kiln::Error (invalid model) naming the file when it cannot.
  static std::shared_ptr<const Buffer> MapFile(const std::string& path);
};

}  // namespace kiln
