// CommonSubexpressionEliminationPass: see common_subexpression_elimination_pass.h.
//
// Constants are bucketed by (element type, dimensions, hash of the bytes) and compared in full within a bucket;
// nodes by a hash of (op, domain, input values, attribute names/types/scalar values) and compared in full,
// subgraphs included, within a bucket. The hash keys only narrow the search; equality is always checked exactly.
#include "common_subexpression_elimination_pass.h"

#include <kiln/kiln_plugin_parts.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace kiln::folding {
namespace {

bool IsDefaultDomain(std::string_view d) { return d.empty() || d == "ai.onnx" || d == "ai.onnx.ml"; }

bool IsNonDeterministic(const sdk::Node& n) {
  static const std::unordered_set<std::string_view> kOps = {
      "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial", "Bernoulli", "Dropout"};
  return kOps.count(n.OpType()) != 0;
}

bool IsReadableAttrType(int32_t t) {
  switch (t) {
    case KILN_ATTR_FLOAT: case KILN_ATTR_INT: case KILN_ATTR_STRING: case KILN_ATTR_TENSOR: case KILN_ATTR_GRAPH:
    case KILN_ATTR_FLOATS: case KILN_ATTR_INTS: case KILN_ATTR_STRINGS:
      return true;
    default:
      return false;
  }
}

// ---- tensors

bool TensorsEqual(const sdk::TensorView& a, const sdk::TensorView& b) {
  if (!a || !b) return false;
  if (a.ElemType() != b.ElemType() || a.ByteSize() != b.ByteSize()) return false;
  if (!std::ranges::equal(a.Dims(), b.Dims())) return false;
  if (a.ElemType() == KILN_ELEM_STRING) {
    size_t n = static_cast<size_t>(a.ElementCount());
    for (size_t i = 0; i < n; ++i)
      if (a.StringAt(i) != b.StringAt(i)) return false;
    return true;
  }
  return a.ByteSize() == 0 || std::memcmp(a.Data(), b.Data(), a.ByteSize()) == 0;
}

// Hashes all of a small tensor's bytes but only samples a large one's (its ends and 64 windows spread evenly
// across it): hashing every byte of ResNet-50's 100 MB of weights took a tenth of an O2 compile. Equal tensors
// still hash equal, and the buckets' exact comparison (TensorsEqual) stops at the first differing byte.
// read(offset, n) gives bytes [offset, offset + n).
constexpr size_t kHashedWhole = size_t{16} << 10, kHashedEnd = 1024;
template <class Read>
size_t HashSampledBytes(size_t size, Read read) {
  constexpr size_t kWindow = 64, kWindows = 64;
  std::hash<std::string_view> hash;
  if (size <= kHashedWhole) return hash(read(0, size));
  size_t h = hash(read(0, kHashedEnd)) ^ (hash(read(size - kHashedEnd, kHashedEnd)) * 31) ^ size;
  const size_t stride = (size - kWindow) / kWindows;
  for (size_t i = 1; i < kWindows; ++i) h = h * 1099511628211ULL ^ hash(read(i * stride, kWindow));
  return h;
}

// boost::hash_combine's mixing.
void Mix(size_t& h, size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); }

size_t TensorHash(const sdk::TensorView& t) {
  size_t h = std::hash<int32_t>()(t.ElemType());
  for (int64_t d : t.Dims()) Mix(h, std::hash<int64_t>()(d));
  if (t.ElemType() == KILN_ELEM_STRING) {
    for (const KilnString& s : t.Values<KilnString>())
      Mix(h, std::hash<std::string_view>()(std::string_view(s.data, static_cast<size_t>(s.size))));
  } else if (t.ByteSize()) {
    const char* bytes = static_cast<const char*>(t.Data());
    Mix(h, HashSampledBytes(t.ByteSize(), [bytes](size_t at, size_t n) { return std::string_view(bytes + at, n); }));
  }
  return h;
}

// The byte size of a constant of numbers with a static shape (its group fixes the type and dims), whose bytes are
// read a range at a time through the host (a computed constant, a folded weight, makes only those); nullopt for
// any other constant, which is read whole.
std::optional<size_t> StaticByteSize(const sdk::Value& v) {
  if (v.ElemType() == KILN_ELEM_STRING || !v.HasStaticShape()) return std::nullopt;
  size_t size = kiln_elem_type_size(v.ElemType());
  for (int64_t d : v.Dims()) size *= static_cast<size_t>(d);
  return size;
}

// Bytes [at, at + n) of v, read into `piece`.
std::string_view ReadBytes(const sdk::Value& v, size_t at, size_t n, std::string& piece) {
  piece.resize(n);
  v.ReadConstantBytes(at, std::as_writable_bytes(std::span<char>(piece)));
  return piece;
}

// The hash of a constant from the bytes it samples alone (StaticByteSize), or from its data; nullopt when it has
// none.
std::optional<size_t> ConstantHash(const sdk::Value& v) {
  const std::optional<size_t> size = StaticByteSize(v);
  if (!size) {
    sdk::TensorView data = v.ConstantData();
    return data ? std::optional<size_t>(TensorHash(data)) : std::nullopt;
  }
  std::string piece;
  return HashSampledBytes(*size, [&](size_t at, size_t n) { return ReadBytes(v, at, n, piece); });
}

// A large constant's first KiB hashed with its size (nullopt for the constants ConstantHash reads whole anyway):
// a cheap first look, so that a large constant whose group has no other of the same start is never sampled
// further. Each sampled window is a page touched, and touching a page first costs microseconds on a virtual
// machine: the 65 windows of each of ResNet-50's folded weights took 15 ms of an O2 compile.
std::optional<size_t> HeadHash(const sdk::Value& v) {
  const std::optional<size_t> size = StaticByteSize(v);
  if (!size || *size <= kHashedWhole) return std::nullopt;
  std::string piece;
  return std::hash<std::string_view>()(ReadBytes(v, 0, kHashedEnd, piece)) ^ *size;
}

// ---- attributes and subgraphs

bool GraphsEqual(const sdk::Graph& a, const sdk::Graph& b);

bool AttrEqual(const sdk::Attribute& x, const sdk::Attribute& y) {
  if (x.Type() != y.Type()) return false;
  switch (x.Type()) {
    case KILN_ATTR_INT: return x.Int() == y.Int();
    case KILN_ATTR_FLOAT: {
      float a = x.Float(), b = y.Float();
      return std::memcmp(&a, &b, sizeof a) == 0;
    }
    case KILN_ATTR_STRING: return x.String() == y.String();
    case KILN_ATTR_INTS: return std::ranges::equal(x.Ints(), y.Ints());
    case KILN_ATTR_FLOATS: {
      auto a = x.Floats(), b = y.Floats();
      return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size_bytes()) == 0);
    }
    case KILN_ATTR_STRINGS: return x.Strings() == y.Strings();
    case KILN_ATTR_TENSOR: return TensorsEqual(x.Tensor(), y.Tensor());
    case KILN_ATTR_GRAPH: return GraphsEqual(x.Subgraph(), y.Subgraph());
    default: return false;
  }
}

bool AttrsEqual(const sdk::Node& a, const sdk::Node& b) {
  std::vector<sdk::Attribute> xs = a.Attrs();
  if (xs.size() != b.Attrs().size()) return false;
  for (const sdk::Attribute& x : xs) {
    sdk::Attribute y = b.Attr(x.Name());
    if (!y || !AttrEqual(x, y)) return false;
  }
  return true;
}

// Structural equality of two subgraphs: `map` pairs a's local values with b's.
class GraphMatcher {
 public:
  bool Match(const sdk::Graph& a, const sdk::Graph& b) {
    std::vector<sdk::Value> ia = a.Inputs(), ib = b.Inputs();
    if (ia.size() != ib.size()) return false;
    for (size_t i = 0; i < ia.size(); ++i) {
      if (ia[i].Kind() != ib[i].Kind() || ia[i].ElemType() != ib[i].ElemType() || ia[i].Rank() != ib[i].Rank() ||
          !std::ranges::equal(ia[i].Dims(), ib[i].Dims()))
        return false;
      map_[ia[i].raw()] = ib[i].raw();
    }
    std::vector<sdk::Node> na = a.Nodes(), nb = b.Nodes();
    if (na.size() != nb.size()) return false;
    for (size_t k = 0; k < na.size(); ++k) {
      const sdk::Node &x = na[k], &y = nb[k];
      if (x.OpType() != y.OpType() || x.Domain() != y.Domain() || x.InputCount() != y.InputCount() ||
          x.OutputCount() != y.OutputCount() || !AttrsEqual(x, y))
        return false;
      for (size_t i = 0; i < x.InputCount(); ++i)
        if (!Correspond(x.Input(i), y.Input(i))) return false;
      for (size_t i = 0; i < x.OutputCount(); ++i) {
        sdk::Value ox = x.Output(i), oy = y.Output(i);
        if (static_cast<bool>(ox) != static_cast<bool>(oy)) return false;
        if (ox) map_[ox.raw()] = oy.raw();
      }
    }
    std::vector<sdk::Value> oa = a.Outputs(), ob = b.Outputs();
    if (oa.size() != ob.size()) return false;
    for (size_t i = 0; i < oa.size(); ++i)
      if (!Correspond(oa[i], ob[i])) return false;
    return true;
  }

 private:
  bool Correspond(const sdk::Value& x, const sdk::Value& y) {
    if (!x || !y) return !x && !y;
    if (auto it = map_.find(x.raw()); it != map_.end()) return it->second == y.raw();
    if (x == y) return true;  // the same outer value
    return x.IsConstant() && y.IsConstant() && TensorsEqual(x.ConstantData(), y.ConstantData());
  }
  std::unordered_map<KilnValue*, KilnValue*> map_;
};

bool GraphsEqual(const sdk::Graph& a, const sdk::Graph& b) {
  if (!a || !b) return false;
  return GraphMatcher().Match(a, b);
}

// ---- nodes

bool Mergeable(const sdk::Node& n) {
  if (!IsDefaultDomain(n.Domain()) || IsNonDeterministic(n) || n.OutputCount() == 0) return false;
  for (const sdk::Attribute& a : n.Attrs())
    if (!IsReadableAttrType(a.Type())) return false;
  return true;
}

// A hash key: equal nodes hash equal (op, domain, input values, attribute names, types and scalar values; the
// attributes combined in any order); NodesEqual then compares exactly. A number, not a string built per node: on
// the generated 1M-node chain the strings' allocation and hashing took most of the pass.
size_t NodeHash(const sdk::Node& n) {
  std::hash<std::string_view> text;
  size_t h = text(n.OpType());
  Mix(h, text(n.Domain()));
  for (const sdk::Value& v : n.Inputs()) Mix(h, std::hash<const void*>()(v.raw()));
  size_t attrs = 0;
  for (const sdk::Attribute& a : n.Attrs()) {
    size_t ah = text(a.Name());
    Mix(ah, static_cast<size_t>(a.Type()));
    if (a.Type() == KILN_ATTR_INT) Mix(ah, std::hash<int64_t>()(a.Int()));
    if (a.Type() == KILN_ATTR_STRING) Mix(ah, text(a.String()));
    if (a.Type() == KILN_ATTR_TENSOR && a.Tensor()) Mix(ah, TensorHash(a.Tensor()));
    attrs += ah;
  }
  Mix(h, attrs);
  return h;
}

bool NodesEqual(const sdk::Node& a, const sdk::Node& b) {
  if (a.OpType() != b.OpType() || a.Domain() != b.Domain() || a.InputCount() != b.InputCount() ||
      a.OutputCount() != b.OutputCount())
    return false;
  for (size_t i = 0; i < a.InputCount(); ++i)
    if (!(a.Input(i) == b.Input(i))) return false;
  for (size_t i = 0; i < a.OutputCount(); ++i)
    if (static_cast<bool>(a.Output(i)) != static_cast<bool>(b.Output(i))) return false;
  return AttrsEqual(a, b);
}

bool HasGraphOutput(const sdk::Node& n) {
  for (const sdk::Value& v : n.Outputs())
    if (v && v.IsGraphOutput()) return true;
  return false;
}

// `gone`'s readers read `kept` instead; `gone` is deleted.
void Merge(const sdk::Node& gone, const sdk::Node& kept) {
  for (size_t i = 0; i < gone.OutputCount(); ++i)
    if (sdk::Value v = gone.Output(i)) v.ReplaceAllUsesWith(kept.Output(i));
  gone.Delete();
}

// ---- constants

// Drops a constant left without uses. A Constant node is deleted; an initializer has no deleting slot in the SDK,
// but the host drops every constant a deleted node read once it has no uses left, so a throwaway reader is made
// and deleted.
void DropConstant(const sdk::Graph& graph, const sdk::Value& v) {
  if (v.ConsumerCount() != 0 || v.IsGraphOutput()) return;
  if (sdk::Node producer = v.Producer()) {
    producer.Delete();
    return;
  }
  graph.CreateNode("Identity", {v}, 1).Delete();
}

// Constants are grouped by element type and dims first, which the values' types tell without their data: only a
// constant that shares both with another one is hashed and compared. Asking for a weight's data can cost a copy
// (the host aligns a weight that sits misaligned in the file when it is first read typed), and most weights
// (BERT's 94 MB word embeddings) have no twin to merge with.
//
// Within a group, constants are keyed by hash in a sorted array and merged a run of equal hashes at a time, each run
// in the group's order: merging constants changes nothing another run reads, so the result is the one of taking
// them one by one in the group's order. Hash tables with a node per constant took most of the pass's peak (the
// generated 1M-node chain's 666,666 weights, all of one type and shape: 110 MB).
int64_t MergeConstants(const sdk::Graph& graph) {
  std::unordered_map<std::string, std::vector<sdk::Value>> groups;
  std::vector<std::vector<sdk::Value>*> order;  // groups in the order their first member was met
  std::unordered_set<KilnValue*> seen;          // the constants met that have more than one reader
  std::vector<sdk::Node> nodes = graph.Nodes();
  for (const sdk::Node& n : nodes) {
    if (n.IsDeleted()) continue;
    for (const sdk::Value& v : n.Inputs()) {
      if (!v || !v.IsConstant() || v.IsGraphInput() || !(v.OwnerGraph() == graph)) continue;
      // A constant read once is met once: only one read more often is looked up (the 1M-node chain's 666,666
      // weights, each read by one node, took a 21 MB set).
      if (v.ConsumerCount() > 1 && !seen.insert(v.raw()).second) continue;
      // A value whose shape is not static (not expected of a constant) gets a group of its own kind, compared by data.
      const bool static_shape = v.HasStaticShape();
      std::string key = std::to_string(v.ElemType()) + (static_shape ? ":" : "?");
      if (static_shape)
        for (int64_t d : v.Dims()) key += std::to_string(d) + ",";
      auto [it, inserted] = groups.try_emplace(std::move(key));
      if (inserted) order.push_back(&it->second);
      it->second.push_back(v);
    }
  }
  std::unordered_set<KilnValue*>().swap(seen);
  std::vector<sdk::Node>().swap(nodes);
  // A hash's low 32 bits and the member's place in its group, 8 bytes (the 1M-node chain: 5 MB): hashes that
  // agree only there cost a comparison of data, as any equal hashes do.
  using Keyed = std::pair<uint32_t, uint32_t>;
  // The runs of equal hashes in `keys`, sorted: fn(begin, end) for each run of two or more.
  auto runs = [](std::vector<Keyed>& keys, auto&& fn) {
    std::sort(keys.begin(), keys.end());
    for (size_t i = 0, j; i < keys.size(); i = j) {
      for (j = i + 1; j < keys.size() && keys[j].first == keys[i].first;) ++j;
      if (j - i > 1) fn(keys.begin() + static_cast<std::ptrdiff_t>(i), keys.begin() + static_cast<std::ptrdiff_t>(j));
    }
  };
  int64_t merged = 0;
  for (std::vector<sdk::Value>* group : order) {
    if (group->size() < 2) continue;
    // Equal constants start equal: one whose start no other in the group shares has no twin.
    std::vector<Keyed> heads;
    std::vector<bool> compared(group->size(), true);
    for (size_t i = 0; i < group->size(); ++i)
      if (std::optional<size_t> head = HeadHash((*group)[i])) {
        heads.emplace_back(static_cast<uint32_t>(*head), static_cast<uint32_t>(i));
        compared[i] = false;
      }
    runs(heads, [&](auto begin, auto end) {
      for (auto it = begin; it != end; ++it) compared[it->second] = true;
    });
    std::vector<Keyed>().swap(heads);
    std::vector<Keyed> keys;
    for (size_t i = 0; i < group->size(); ++i)
      if (compared[i])
        if (std::optional<size_t> hash = ConstantHash((*group)[i]))
          keys.emplace_back(static_cast<uint32_t>(*hash), static_cast<uint32_t>(i));
    runs(keys, [&](auto begin, auto end) {
      std::vector<sdk::Value> kept;  // the run's constants kept so far, in the group's order
      for (auto it = begin; it != end; ++it) {
        const sdk::Value& v = (*group)[it->second];
        auto same = std::ranges::find_if(  // the data only for a run's candidates: hashes rarely collide
            kept, [&](const sdk::Value& r) { return TensorsEqual(r.ConstantData(), v.ConstantData()); });
        if (same == kept.end() || v.IsGraphOutput()) {
          kept.push_back(v);
          continue;
        }
        v.ReplaceAllUsesWith(*same);
        DropConstant(graph, v);
        ++merged;
      }
    });
  }
  return merged;
}

// The nodes kept so far, by hash, for MergeNodes: open addressing with linear probing over one array of 8-byte
// slots, each the low 32 bits of a hash and a kept node's place in the pass's node list (plus one; 0: empty). Nodes
// that hash alike but differ take a slot each, met in the order they came. At most three quarters used, where a hash
// map from hash to a vector of nodes took about 80 bytes a node (the generated 1M-node chain: 70 MB, the largest
// transient of its O2 compile). The slot count is not rounded up to a power of two (a hash's home slot is its low 32
// bits scaled to the count, not masked): rounding took up to half as many slots again (the chain: 16 MB, now 10.7).
class KeptNodes {
 public:
  explicit KeptNodes(size_t most) : slots_(std::max<size_t>(16, most + most / 3 + 1), 0) {}
  // Calls `visit` with the place of each kept node whose hash has `hash`'s low 32 bits, in the order they were kept,
  // until it returns true; returns whether it did. `visit` may set the place to another node's.
  template <typename Visit>
  bool Find(size_t hash, Visit&& visit) {
    for (size_t i = Home(hash); slots_[i] != 0; i = Next(i)) {
      if (static_cast<uint32_t>(slots_[i] >> 32) != static_cast<uint32_t>(hash)) continue;
      uint32_t place = static_cast<uint32_t>(slots_[i]) - 1;
      const bool done = visit(place);
      slots_[i] = Slot(hash, place);
      if (done) return true;
    }
    return false;
  }
  // At most `most` (the constructor's) in all, each place below 2^32 - 1.
  void Keep(size_t hash, uint32_t place) {
    size_t i = Home(hash);
    while (slots_[i] != 0) i = Next(i);
    slots_[i] = Slot(hash, place);
  }

 private:
  // The hash's low 32 bits, scrambled (times 2^32 / phi: every bit reaches the top ones), times the slot count,
  // over 2^32. Scaling takes a hash's top bits, and NodeHash's low 32 bits vary little there: scaled unscrambled,
  // the 100k-node chain's probes ran long and the pass took 2-3 times as long.
  size_t Home(size_t hash) const {
    const uint32_t h = static_cast<uint32_t>(hash) * 0x9E3779B9u;
    return static_cast<size_t>((static_cast<unsigned __int128>(h) * slots_.size()) >> 32);
  }
  size_t Next(size_t i) const { return i + 1 == slots_.size() ? 0 : i + 1; }
  static uint64_t Slot(size_t hash, uint32_t place) {
    return (uint64_t{static_cast<uint32_t>(hash)} << 32) | (uint64_t{place} + 1);
  }
  std::vector<uint64_t> slots_;
};

int64_t MergeNodes(const sdk::Graph& graph) {
  const std::vector<sdk::Node> nodes = graph.Nodes();
  // Places are 32-bit: a graph of four billion nodes (which no memory holds) is left as it is.
  if (nodes.size() >= std::numeric_limits<uint32_t>::max()) return 0;
  KeptNodes kept(nodes.size());
  int64_t merged = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const sdk::Node& n = nodes[i];
    if (n.IsDeleted() || n.Is("Constant") || !Mergeable(n)) continue;
    const size_t hash = NodeHash(n);
    // The first kept node equal to n (equal nodes hash alike) absorbs it, or is absorbed by it when only it is a
    // graph output; two graph outputs stay apart.
    const bool done = kept.Find(hash, [&](uint32_t& place) {
      const sdk::Node& c = nodes[place];
      if (!NodesEqual(c, n)) return false;
      if (!HasGraphOutput(n)) {
        Merge(n, c);
      } else if (!HasGraphOutput(c)) {
        Merge(c, n);
        place = static_cast<uint32_t>(i);
      } else {
        return false;
      }
      ++merged;
      return true;
    });
    if (!done) kept.Keep(hash, static_cast<uint32_t>(i));
  }
  return merged;
}

}  // namespace

void CommonSubexpressionEliminationPass::Run(sdk::PassContext& ctx, sdk::Graph graph) {
  if (int64_t n = MergeConstants(graph)) ctx.AddCounter("constants_merged", n);
  if (int64_t n = MergeNodes(graph)) ctx.AddCounter("nodes_merged", n);
}

}  // namespace kiln::folding

KILN_PLUGIN_PART(CommonSubexpressionEliminationPass) {
  using kiln::folding::CommonSubexpressionEliminationPass;
  reg.AddOption(kiln::sdk::OptionSpec::Bool(std::string(CommonSubexpressionEliminationPass::kSwitchOption), true,
                                            "Merge identical nodes and identical constants.")
                    .MinLevel(1));
  reg.AddGraphPass<kiln::folding::CommonSubexpressionEliminationPass>();
}
