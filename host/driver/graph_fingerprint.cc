#include "driver/graph_fingerprint.h"

#include <array>
#include <cstring>
#include <functional>
#include <string_view>
#include <unordered_map>

#include "ir/model.h"
#include "ir/topo_order.h"

namespace kiln {
namespace {

uint64_t Mix(uint64_t h, uint64_t v) {
  // boost::hash_combine's mixing on 64 bits.
  return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 12) + (h >> 4));
}

uint64_t Str(std::string_view s) { return std::hash<std::string_view>{}(s); }

uint64_t TensorHash(const Tensor& t) {
  uint64_t h = Mix(Str("tensor"), static_cast<uint64_t>(t.type()));
  for (int64_t d : t.dims()) h = Mix(h, static_cast<uint64_t>(d));
  // Size plus a sample of the bytes: cheap on large weights, and exact on the small constants passes create.
  // A computed constant's (ABI 1.10) are read through Buffer::Read, so that fingerprinting never makes one whole;
  // the same bytes are read whether it is still computed or not, so its hash does not change when it is made.
  const Buffer* buffer = t.buffer().get();
  const size_t size = buffer ? buffer->size() : 0;
  h = Mix(h, size);
  constexpr size_t kWhole = 4096, kWindows = 16, kWindow = 32;
  std::array<std::byte, kWhole> sample;
  auto mix = [&](size_t offset, size_t n) {
    buffer->Read(offset, {sample.data(), n});
    for (size_t i = 0; i < n; ++i) h = Mix(h, static_cast<uint64_t>(sample[i]));
  };
  if (size <= kWhole) {
    if (size > 0) mix(0, size);
  } else {
    for (size_t w = 0; w < kWindows; ++w) mix((size - kWindow) / (kWindows - 1) * w, kWindow);
  }
  for (const auto& s : t.strings()) h = Mix(h, Str(s));
  return h;
}

uint64_t GraphHash(const Graph& g, int depth);

uint64_t AttrHash(const Attribute& a, int depth) {
  uint64_t h = Mix(Str(a.name), static_cast<uint64_t>(a.kind));
  if (a.i) h = Mix(h, static_cast<uint64_t>(*a.i));
  if (a.f) {
    uint32_t bits;
    std::memcpy(&bits, &*a.f, sizeof bits);
    h = Mix(h, bits);
  }
  if (a.s) h = Mix(h, Str(*a.s));
  if (a.t) h = Mix(h, TensorHash(*a.t));
  for (int64_t v : a.ints) h = Mix(h, static_cast<uint64_t>(v));
  for (float f : a.floats) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    h = Mix(h, bits);
  }
  for (const auto& s : a.strings) h = Mix(h, Str(s));
  if (!a.ref_attr_name.empty()) h = Mix(h, Str(a.ref_attr_name));
  for (const auto& g : a.graphs) h = Mix(h, GraphHash(*g, depth));
  return h;
}

uint64_t GraphHash(const Graph& g, int depth) {
  std::unordered_map<const Value*, uint64_t> value_hash;
  auto hash_of = [&](const Value* v) -> uint64_t {
    if (v == nullptr) return 0;
    auto it = value_hash.find(v);
    if (it != value_hash.end()) return it->second;
    // Graph inputs and outer values by name (they do not change); constants by content.
    uint64_t h = v->initializer() ? TensorHash(*v->initializer()) : Str(v->name());
    value_hash.emplace(v, h);
    return h;
  };
  uint64_t total = 0;
  TopoResult topo = TopologicalOrder(g);
  for (const Node* n : topo.order) {
    const Function* f = depth < 16 ? g.model()->CalledFunction(*n) : nullptr;
    uint64_t h = f ? Mix(Str("call"), GraphHash(f->body(), depth + 1)) : Mix(Str(n->op_type()), Str(n->domain()));
    for (const Attribute& a : n->attributes()) h = Mix(h, AttrHash(a, depth));
    for (const Value* in : n->inputs()) h = Mix(h, hash_of(in));
    for (size_t i = 0; i < n->num_outputs(); ++i)
      if (const Value* out = n->output(i)) value_hash[out] = Mix(h, i + 1);
    total += h;  // a sum: the order nodes are stored in does not matter
  }
  for (const Value* out : g.outputs()) total = Mix(total, hash_of(out));
  return Mix(total, topo.cycle_nodes.size());
}

}  // namespace

uint64_t StructuralFingerprint(const Graph& g) { return GraphHash(g, 0); }

uint64_t ModelFingerprint(const Model& m) {
  uint64_t total = StructuralFingerprint(m.graph());
  for (const auto& f : m.functions()) total += Mix(Str("function"), StructuralFingerprint(f->body()));
  return total;
}

}  // namespace kiln
