#include "onnx/weight_split.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

#include <google/protobuf/io/coded_stream.h>

#include "ir/data_type.h"
#include "onnx/proto_wire.h"

namespace kiln {
namespace {

using google::protobuf::io::CodedInputStream;

using namespace onnx_field;

// Skips the value of a field whose tag was just read; false on groups (deprecated, never in ONNX) or truncation.
bool SkipValue(CodedInputStream& in, uint32_t tag) {
  switch (tag & 7) {
    case kWireVarint: {
      uint64_t v;
      return in.ReadVarint64(&v);
    }
    case kWireFixed64: return in.Skip(8);
    case kWireFixed32: return in.Skip(4);
    case kWireLengthDelimited: {
      uint32_t n;
      return in.ReadVarint32(&n) && in.Skip(static_cast<int>(n));
    }
    default: return false;
  }
}

class Splitter {
 public:
  explicit Splitter(const std::shared_ptr<const Buffer>& file)
      : file_(file), base_(reinterpret_cast<const uint8_t*>(file->data())),
        in_(base_, static_cast<int>(file->size())) {
    in_.SetTotalBytesLimit(std::numeric_limits<int>::max());
  }

  std::optional<WeightSplit> Run() {
    WeightSplit out;
    out.skeleton.reserve(file_->size());  // an upper bound: growing by doubling faulted in fresh pages each time
    out.file = file_;
    if (!Walk(file_->size(), out.skeleton, [&](uint32_t field, uint32_t len) {
          if (field != kModelGraph) return std::optional<bool>();
          std::string graph;
          graph.reserve(len);
          if (!Graph(len, graph, out)) return std::optional<bool>(false);
          AppendLengthDelimited(out.skeleton, kModelGraph, graph);
          return std::optional<bool>(true);
        }))
      return std::nullopt;
    if (!any_raw_) return std::nullopt;
    out.node_runs = NodeRuns(out.nodes);
    Lend(out.raw, out.packed, out.node_runs);
    return out;
  }

 private:
  // Walks `len` bytes of fields, copying each verbatim to `out` unless `nested` (called for length-delimited
  // fields with the field number and length, before the body is read) takes it: nullopt = not mine, copy it;
  // true = consumed; false = malformed.
  template <typename Nested>
  bool Walk(size_t len, std::string& out, Nested nested) {
    const int end = in_.CurrentPosition() + static_cast<int>(len);
    while (in_.CurrentPosition() < end) {
      const int start = in_.CurrentPosition();
      uint32_t tag = in_.ReadTag();
      if (tag == 0) return false;
      if ((tag & 7) == kWireLengthDelimited) {
        uint32_t n;
        if (!in_.ReadVarint32(&n) || n > static_cast<uint32_t>(end - in_.CurrentPosition())) return false;
        auto limit = in_.PushLimit(static_cast<int>(n));
        std::optional<bool> taken = nested(tag >> 3, n);
        if (taken && !*taken) return false;
        if (!taken && !in_.Skip(static_cast<int>(n))) return false;
        if (in_.BytesUntilLimit() != 0) return false;
        in_.PopLimit(limit);
        if (taken) continue;
      } else if (!SkipValue(in_, tag)) {
        return false;
      }
      if (in_.CurrentPosition() > end) return false;
      out.append(reinterpret_cast<const char*>(base_ + start), static_cast<size_t>(in_.CurrentPosition() - start));
    }
    return in_.CurrentPosition() == end;
  }

  bool Graph(size_t len, std::string& out, WeightSplit& split) {
    std::vector<std::shared_ptr<const Buffer>>& raw = split.raw;
    return Walk(len, out, [&](uint32_t field, uint32_t n) {
      if (field == kGraphNode) {
        split.nodes.emplace_back(static_cast<uint32_t>(in_.CurrentPosition()), n);
        return std::optional<bool>(in_.Skip(static_cast<int>(n)));
      }
      if (field != kGraphInitializer) return std::optional<bool>();
      raw.emplace_back();
      if (!Tensor(n, split.initializer_bytes, raw.size() - 1)) return std::optional<bool>(false);
      split.initializer_ends.push_back(static_cast<uint32_t>(split.initializer_bytes.size()));
      return std::optional<bool>(true);
    });
  }

  bool Tensor(size_t len, std::string& out, size_t index) {
    const int end = in_.CurrentPosition() + static_cast<int>(len);
    int64_t data_type = 0;
    size_t raw_offset = 0, raw_size = 0;
    bool has_raw = false;
    while (in_.CurrentPosition() < end) {
      const int start = in_.CurrentPosition();
      uint32_t tag = in_.ReadTag();
      if (tag == 0) return false;
      if (tag == WireTag(kTensorRawData, kWireLengthDelimited)) {
        uint32_t n;
        if (!in_.ReadVarint32(&n) || n > static_cast<uint32_t>(end - in_.CurrentPosition())) return false;
        raw_offset = static_cast<size_t>(in_.CurrentPosition());  // the last raw_data wins, as in protobuf
        raw_size = n;
        has_raw = true;
        if (!in_.Skip(static_cast<int>(n))) return false;
        continue;
      }
      if (tag == WireTag(kTensorDataType, kWireVarint)) {
        uint64_t v;
        if (!in_.ReadVarint64(&v)) return false;
        data_type = static_cast<int64_t>(v);
      } else if (!SkipValue(in_, tag)) {
        return false;
      }
      if (in_.CurrentPosition() > end) return false;
      out.append(reinterpret_cast<const char*>(base_ + start), static_cast<size_t>(in_.CurrentPosition() - start));
    }
    if (in_.CurrentPosition() != end) return false;
    if (has_raw) {
      lent_.push_back({index, raw_offset, raw_size, data_type});
      any_raw_ = true;
    }
    return true;
  }

  struct Lent {
    size_t index, offset, size;
    int64_t data_type;
  };

  // The nodes' bytes as runs of adjacent nodes (only a field's tag and length between two), in file order.
  static std::vector<std::pair<size_t, size_t>> NodeRuns(const std::vector<std::pair<uint32_t, uint32_t>>& nodes) {
    constexpr size_t kFraming = 16;  // a tag and a length
    std::vector<std::pair<size_t, size_t>> runs;
    for (const auto& [offset32, size] : nodes) {
      const size_t offset = offset32;
      if (!runs.empty() && offset >= runs.back().second && offset <= runs.back().second + kFraming)
        runs.back().second = offset + size;
      else
        runs.emplace_back(offset, offset + size);
    }
    return runs;
  }

  // Windows onto the mapping for weights of a page or more; one at an offset not aligned for its element type
  // copies itself, aligned, only when something reads it typed (Buffer::AlignedSlice), so a weight that is only
  // written out again is never copied (113 of BERT's 126 MB sit at such offsets). Smaller weights are copied into
  // one block (Buffer::Pack: huge pages where the kernel gives them, one page fault per 2 MB instead of 512). Then
  // every mapped page that the main graph's nodes do not cover is given back: the walk read the file around every
  // weight and the skeleton is a copy, so those pages would otherwise stay resident for the whole compile (a
  // 100k-node graph's 15 MB, its 64-byte weights spread over every page, were all held). The nodes' pages go as they
  // are parsed.
  void Lend(std::vector<std::shared_ptr<const Buffer>>& raw, std::vector<bool>& packed,
            const std::vector<std::pair<size_t, size_t>>& node_runs) {
    std::vector<const Lent*> copies;
    std::vector<std::span<const std::byte>> copied;
    for (const Lent& l : lent_) {
      if (l.size == 0 || l.size >= Buffer::PageSize()) {
        raw[l.index] = Buffer::AlignedSlice(file_, l.offset, l.size, Alignment(l.data_type));
      } else {
        copies.push_back(&l);
        copied.emplace_back(reinterpret_cast<const std::byte*>(base_) + l.offset, l.size);
      }
    }
    std::vector<std::shared_ptr<const Buffer>> pieces = Buffer::Pack(copied);
    packed.assign(raw.size(), false);
    for (size_t i = 0; i < copies.size(); ++i) {
      raw[copies[i]->index] = std::move(pieces[i]);
      packed[copies[i]->index] = true;
    }
    // Every page but the nodes' (node_runs is in file order) is given back, the windows' too: the walk touched the
    // bytes around each weight, and the kernel maps a large folio of the page cache whole. A window's pages are
    // mapped again only where something reads it through the mapping; a weight written out unchanged goes file to
    // file in the kernel (AtomicFile::CopyFrom), and one a pass reads comes mostly by pread. Mapping every window's
    // pages here instead (MADV_POPULATE_READ, from when the writer read weights through the mapping) held the whole
    // file resident: without it BERT's O2 peak RSS is 158 -> 71 MB and its compile 105 -> 98 ms, ResNet-50's 134 ->
    // 40 MB and 78 -> 74 ms. The writer maps a window in one call where it must read it (WriteBufferBytes).
    size_t from = 0;
    for (const auto& [begin, end] : node_runs) {
      if (begin > from) file_->ReleasePages(from, begin - from);
      from = std::max(from, end);
    }
    if (file_->size() > from) file_->ReleasePages(from, file_->size() - from);
  }

  static size_t Alignment(int64_t data_type) {
    if (data_type <= 0 || data_type > std::numeric_limits<int32_t>::max()) return 8;
    return ElementAlignment(static_cast<DataType>(data_type));
  }

  std::shared_ptr<const Buffer> file_;
  const uint8_t* base_;
  CodedInputStream in_;
  std::vector<Lent> lent_;
  bool any_raw_ = false;
};

}  // namespace

void WeightSplit::ReleaseNodeBytesBefore(size_t offset) {
  constexpr size_t kStep = size_t{4} << 20;
  if (offset != SIZE_MAX && offset < released_to + kStep) return;
  for (; released_runs < node_runs.size(); ++released_runs) {
    auto& [begin, end] = node_runs[released_runs];
    if (begin >= offset) break;
    if (end > offset) {  // the run goes on past `offset`: its whole pages before it go, the rest later
      const size_t page_start = offset / Buffer::PageSize() * Buffer::PageSize();
      if (page_start > begin) {
        file->ReleasePages(begin, page_start - begin);
        begin = page_start;
      }
      break;
    }
    file->ReleasePages(begin, end - begin);
  }
  released_to = offset;
}

std::optional<WeightSplit> SplitWeights(const std::shared_ptr<const Buffer>& file) {
  if (file->size() == 0 || file->size() > static_cast<size_t>(std::numeric_limits<int>::max())) return std::nullopt;
  return Splitter(file).Run();
}

}  // namespace kiln
