// Shape inference over the IR by ONNX's own inference; see shape_inference.h for the contract.
#include "shape/shape_inference.h"

#include <algorithm>
#include <exception>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include "ir/graph.h"
#include "ir/topo_order.h"
#include "onnx/onnx_export.h"
#include "onnx/proto_convert.h"
#include "support/logging.h"

namespace kiln {
namespace {

// ONNX's inference names a dimension it cannot relate to anything "unk__N": a name the model's own symbol beats.
bool IsMadeUpSymbol(const std::string& s) { return s.rfind("unk__", 0) == 0; }

// Refines `have` with `got`; returns true when anything was learned. Never drops what `have` knew.
bool Refine(Type& have, const Type& got) {
  if (got.kind == Type::Kind::kNone) return false;
  if (have.kind == Type::Kind::kNone) {
    have = got;
    return true;
  }
  if (have.kind != got.kind) return false;  // conflicting: trust the IR
  if (have.kind != Type::Kind::kTensor && have.kind != Type::Kind::kSparseTensor) return false;
  bool changed = false;
  if (have.elem == DataType::kUndefined && got.elem != DataType::kUndefined) {
    have.elem = got.elem;
    have.elem_declared = true;
    changed = true;
  }
  if (!got.shape) return changed;
  if (!have.shape) {
    have.shape = got.shape;
    return true;
  }
  if (have.shape->rank() != got.shape->rank()) return changed;  // conflicting rank: keep the IR's
  for (size_t i = 0; i < have.shape->rank(); ++i) {
    Dim& h = have.shape->dims[i];
    const Dim& g = got.shape->dims[i];
    if (h.is_known()) continue;
    if (g.is_known()) {
      h.value = g.value;
      h.symbol.clear();
      changed = true;
    } else if (g.is_symbol() && (!h.is_symbol() || (IsMadeUpSymbol(h.symbol) && !IsMadeUpSymbol(g.symbol)))) {
      h.symbol = g.symbol;
      changed = true;
    }
  }
  return changed;
}

void CollectTypes(const onnx::GraphProto& gp, std::unordered_map<std::string, const onnx::TypeProto*>& out) {
  for (const auto& vi : gp.input())
    if (vi.has_type()) out[vi.name()] = &vi.type();
  for (const auto& vi : gp.value_info())
    if (vi.has_type()) out[vi.name()] = &vi.type();
  for (const auto& vi : gp.output())
    if (vi.has_type()) out.emplace(vi.name(), &vi.type());
}

// Inference needs the type of a large initializer, never its data (data propagation reads small shape-like
// constants only): large ones of the top graph become typed graph inputs, so inference does not walk their
// bytes. (Not in subgraphs: a Loop or Scan body's inputs are positional.)
constexpr int64_t kLargeInitializerElements = 4096;

void DropLargeInitializers(onnx::GraphProto* gp) {
  std::unordered_set<std::string> inputs;
  for (const auto& vi : gp->input()) inputs.insert(vi.name());
  auto* inits = gp->mutable_initializer();
  int kept = 0;
  for (int i = 0; i < inits->size(); ++i) {
    const onnx::TensorProto& t = inits->Get(i);
    int64_t n = 1;
    for (int64_t d : t.dims()) n *= d;
    if (n <= kLargeInitializerElements) {
      if (kept != i) inits->SwapElements(kept, i);
      ++kept;
      continue;
    }
    if (inputs.insert(t.name()).second) {
      auto* in = gp->add_input();
      in->set_name(t.name());
      auto* tt = in->mutable_type()->mutable_tensor_type();
      tt->set_elem_type(t.data_type());
      auto* shape = tt->mutable_shape();
      for (int64_t d : t.dims()) shape->add_dim()->set_dim_value(d);
    }
  }
  while (inits->size() > kept) inits->RemoveLast();
}

size_t CopyBack(Graph& g, const onnx::GraphProto& gp) {
  size_t refined = 0;
  std::unordered_map<std::string, const onnx::TypeProto*> types;
  CollectTypes(gp, types);
  for (Value* v : g.values()) {
    if (v->is_deleted() || v->is_initializer()) continue;
    auto it = types.find(v->name());
    if (it == types.end()) continue;
    Type t = v->type();
    if (Refine(t, TypeFromProto(*it->second))) {
      v->SetType(std::move(t));
      ++refined;
    }
  }
  // Subgraphs: the exporter writes nodes in TopologicalOrder, so the proto's nodes line up with it.
  TopoResult topo = TopologicalOrder(g);
  if (!topo.cycle_nodes.empty() || static_cast<int>(topo.order.size()) != gp.node_size()) return refined;
  for (size_t k = 0; k < topo.order.size(); ++k) {
    Node* n = topo.order[k];
    if (!n->has_subgraphs()) continue;
    const onnx::NodeProto& np = gp.node(static_cast<int>(k));
    for (const Attribute& a : n->attributes()) {
      std::vector<Graph*> subs = a.subgraphs();
      if (subs.empty()) continue;
      for (const auto& ap : np.attribute()) {
        if (ap.name() != a.name) continue;
        if (ap.has_g() && subs.size() == 1) refined += CopyBack(*subs[0], ap.g());
        if (ap.graphs_size() == static_cast<int>(subs.size()))
          for (size_t j = 0; j < subs.size(); ++j) refined += CopyBack(*subs[j], ap.graphs(static_cast<int>(j)));
      }
    }
  }
  return refined;
}

// ---- shape values: what ONNX 1.12's data propagation misses
// A 1-D int64 tensor computed from shapes (Shape -> Gather -> Unsqueeze -> Concat) is tracked as a list of
// dimensions, numbers or symbols, so that Reshape(x, that) gets its output shape with the batch symbol kept
// (libonnx 1.12 gives such a Reshape no shape at all when a dimension is symbolic).
using ShapeValue = std::vector<Dim>;

std::optional<ShapeValue> ConstantShapeValue(const Value& v) {
  const Tensor* t = nullptr;
  std::optional<Tensor> from_attr;
  if (v.initializer() && !v.is_graph_input()) {
    t = v.initializer().get();
  } else if (const Node* p = v.producer(); p && p->op_type() == "Constant" && p->domain().empty()) {
    if (const Attribute* a = p->FindAttribute("value"); a && a->t) t = &*a->t;
    else if (const Attribute* b = p->FindAttribute("value_ints")) {
      ShapeValue out;
      for (int64_t x : b->ints) out.push_back(Dim::Known(x));
      return out;
    } else if (const Attribute* c = p->FindAttribute("value_int"); c && c->i) {
      return ShapeValue{Dim::Known(*c->i)};
    }
  }
  if (!t || t->dims().size() > 1 || t->num_elements() > 16) return std::nullopt;
  ShapeValue out;
  if (t->type() == DataType::kInt64)
    for (int64_t x : t->values<int64_t>()) out.push_back(Dim::Known(x));
  else if (t->type() == DataType::kInt32)
    for (int32_t x : t->values<int32_t>()) out.push_back(Dim::Known(x));
  else
    return std::nullopt;
  if (static_cast<int64_t>(out.size()) != t->num_elements()) return std::nullopt;
  return out;
}

// Reshape's output dims from its input's and the target's: 0 copies (allowzero=0), -1 is what is left.
std::optional<Shape> ReshapeResult(const Shape& in, const ShapeValue& target, bool allowzero) {
  Shape out;
  int minus_one = -1;
  for (size_t i = 0; i < target.size(); ++i) {
    Dim d = target[i];
    if (d.is_known() && *d.value == 0 && !allowzero) {
      if (i >= in.rank()) return std::nullopt;
      d = in.dims[i];
    } else if (d.is_known() && *d.value == -1) {
      if (minus_one >= 0) return std::nullopt;
      minus_one = static_cast<int>(i);
      d = Dim{};
    }
    out.dims.push_back(d);
  }
  if (minus_one < 0) return out;
  // Cancel equal symbols, then divide the known products.
  std::vector<std::string> in_syms, out_syms;
  int64_t in_prod = 1, out_prod = 1;
  for (const Dim& d : in.dims) {
    if (d.is_known()) in_prod *= *d.value;
    else if (d.is_symbol()) in_syms.push_back(d.symbol);
    else return out;
  }
  for (size_t i = 0; i < out.dims.size(); ++i) {
    if (static_cast<int>(i) == minus_one) continue;
    const Dim& d = out.dims[i];
    if (d.is_known()) out_prod *= *d.value;
    else if (d.is_symbol()) out_syms.push_back(d.symbol);
    else return out;
  }
  for (const std::string& sy : out_syms) {
    auto it = std::find(in_syms.begin(), in_syms.end(), sy);
    if (it == in_syms.end()) return out;
    in_syms.erase(it);
  }
  if (out_prod == 0) return out;
  if (in_syms.empty() && in_prod % out_prod == 0) out.dims[minus_one] = Dim::Known(in_prod / out_prod);
  else if (in_syms.size() == 1 && in_prod == out_prod) out.dims[minus_one] = Dim::Symbol(in_syms[0]);
  return out;
}

// Tracks shape values through the top graph in topological order and refines Reshape outputs.
size_t PropagateShapeValues(Graph& g) {
  TopoResult topo = TopologicalOrder(g);
  if (!topo.cycle_nodes.empty()) return 0;
  std::unordered_map<const Value*, ShapeValue> vals;
  auto value_of = [&](const Value* v) -> std::optional<ShapeValue> {
    if (!v) return std::nullopt;
    if (auto it = vals.find(v); it != vals.end()) return it->second;
    return ConstantShapeValue(*v);
  };
  size_t refined = 0;
  for (Node* n : topo.order) {
    if (!n->domain().empty() || n->num_outputs() < 1 || !n->output(0)) continue;
    const std::string& op = n->op_type();
    Value* out = n->output(0);
    if (op == "Shape") {
      const Type& t = n->input(0)->type();
      if (!t.is_tensor() || !t.shape) continue;
      const int64_t r = static_cast<int64_t>(t.shape->rank());
      auto clamp = [&](int64_t a) { return std::clamp(a < 0 ? a + r : a, int64_t{0}, r); };
      int64_t start = clamp(n->GetInt("start", 0)), end = clamp(n->GetInt("end", r));
      ShapeValue sv;
      for (int64_t i = start; i < end; ++i) sv.push_back(t.shape->dims[static_cast<size_t>(i)]);
      vals[out] = sv;
    } else if (op == "Gather" && n->GetInt("axis", 0) == 0) {
      auto data = value_of(n->input(0));
      auto idx = n->input(1) ? ConstantShapeValue(*n->input(1)) : std::nullopt;
      if (!data || !idx || !vals.count(n->input(0))) continue;
      ShapeValue sv;
      const int64_t size = static_cast<int64_t>(data->size());
      bool ok = true;
      for (const Dim& i : *idx) {
        int64_t k = *i.value < 0 ? *i.value + size : *i.value;
        if (k < 0 || k >= size) { ok = false; break; }
        sv.push_back((*data)[static_cast<size_t>(k)]);
      }
      if (ok) vals[out] = sv;
    } else if (op == "Unsqueeze" || op == "Squeeze" || op == "Cast" || op == "Identity") {
      if (op == "Cast" && n->GetInt("to", 0) != static_cast<int64_t>(DataType::kInt64)) continue;
      if (auto it = vals.find(n->input(0)); it != vals.end() && it->second.size() == 1) vals[out] = it->second;
      else if (op == "Identity" || op == "Cast")
        if (it != vals.end()) vals[out] = it->second;
    } else if (op == "Concat" && n->GetInt("axis", 0) == 0) {
      ShapeValue sv;
      bool ok = true, any_tracked = false;
      for (Value* in : n->inputs()) {
        auto part = value_of(in);
        if (!part) { ok = false; break; }
        any_tracked |= vals.count(in) > 0;
        sv.insert(sv.end(), part->begin(), part->end());
      }
      if (ok && any_tracked) vals[out] = sv;
    } else if (op == "Reshape") {
      auto target = value_of(n->input(1));
      const Type& t = n->input(0)->type();
      if (!target || !t.is_tensor() || !t.shape) continue;
      auto shape = ReshapeResult(*t.shape, *target, n->GetInt("allowzero", 0) != 0);
      if (!shape) continue;
      Type have = out->type();
      if (Refine(have, Type::Tensor(t.elem, *shape))) {
        out->SetType(std::move(have));
        ++refined;
      }
    }
  }
  return refined;
}

}  // namespace

size_t InferShapes(Model& model) {
  size_t refined = 0;
  // ONNX's inference, then the shape values it misses; a Reshape that got its shape lets ONNX go further, so
  // repeat while that happens (a few rounds at most).
  for (int round = 0; round < 4; ++round) {
    onnx::ModelProto mp = ExportModelProto(model);
    DropLargeInitializers(mp.mutable_graph());
    onnx::ShapeInferenceOptions options{/*check_type=*/false, /*error_mode=*/0, /*enable_data_propagation=*/true};
    try {
      onnx::shape_inference::InferShapes(mp, onnx::OpSchemaRegistry::Instance(), options);
    } catch (const std::exception& e) {
      // error_mode 0 already skips nodes that fail; what reaches here stopped inference part-way. Whatever it had
      // inferred up to then is still in the proto, so copy that back too.
      Logger("shape")->debug("ONNX shape inference stopped: {}", e.what());
    }
    refined += CopyBack(model.graph(), mp.graph());
    size_t learned = PropagateShapeValues(model.graph());
    refined += learned;
    if (learned == 0) break;
  }
  return refined;
}

}  // namespace kiln
