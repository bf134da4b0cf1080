// Host slots that read the IR: graphs (nodes in topological order, inputs, outputs, scopes), nodes, values
// (types, symbolic shapes, producers and consumers, constant data) and, since ABI 1.1, subgraphs. None of them
// changes the graph; a NULL handle or an index out of range reads as "nothing" (NULL, 0, -1).
#include <algorithm>
#include <cstring>
#include <span>
#include <string>

#include "analysis/topo_cache.h"
#include "ir/buffer.h"
#include "ir/graph.h"
#include "ir/model.h"
#include "ir/topo_order.h"
#include "plugin/host_api.h"
#include "plugin/host_api_values.h"

namespace kiln::plugin {
namespace {

// ---- graphs
const char* GraphName(KilnGraph* g) { return g ? FromKiln(g)->name().c_str() : ""; }
size_t GraphNodeCount(KilnGraph* g) { return g ? FromKiln(g)->num_nodes() : 0; }

size_t GraphNodes(KilnGraph* g, KilnNode** out, size_t capacity) {
  return GuardedValue<size_t>(0, [&]() -> size_t {
    if (!g) return 0;
    // A cyclic graph (never produced by the host) still lists every node: the cycle's nodes come last.
    const std::vector<Node*>& order = ListedTopoOrder(*FromKiln(g));
    if (out != nullptr)
      for (size_t i = 0; i < order.size() && i < capacity; ++i) out[i] = ToKiln(order[i]);
    return order.size();
  });
}

size_t GraphInputCount(KilnGraph* g) { return g ? FromKiln(g)->inputs().size() : 0; }
KilnValue* GraphInput(KilnGraph* g, size_t i) {
  return g && i < FromKiln(g)->inputs().size() ? ToKiln(FromKiln(g)->inputs()[i]) : nullptr;
}
size_t GraphOutputCount(KilnGraph* g) { return g ? FromKiln(g)->outputs().size() : 0; }
KilnValue* GraphOutput(KilnGraph* g, size_t i) {
  return g && i < FromKiln(g)->outputs().size() ? ToKiln(FromKiln(g)->outputs()[i]) : nullptr;
}
KilnValue* GraphFindValue(KilnGraph* g, const char* name) {
  return g && name ? ToKiln(FromKiln(g)->LookupValue(name)) : nullptr;
}
int64_t GraphOpsetVersion(KilnGraph* g, const char* domain) {
  if (!g) return 0;
  return FromKiln(g)->model()->OpsetVersion(domain ? domain : "").value_or(0);
}

// ---- nodes
const char* NodeOpType(KilnNode* n) { return n ? FromKiln(n)->op_type().c_str() : ""; }
const char* NodeDomain(KilnNode* n) { return n ? FromKiln(n)->domain().c_str() : ""; }
const char* NodeName(KilnNode* n) { return n ? FromKiln(n)->name().c_str() : ""; }
KilnGraph* NodeGraph(KilnNode* n) { return n ? ToKiln(FromKiln(n)->graph()) : nullptr; }
size_t NodeInputCount(KilnNode* n) { return n ? FromKiln(n)->num_inputs() : 0; }
KilnValue* NodeInput(KilnNode* n, size_t i) { return n ? ToKiln(FromKiln(n)->input(i)) : nullptr; }
size_t NodeOutputCount(KilnNode* n) { return n ? FromKiln(n)->num_outputs() : 0; }
KilnValue* NodeOutput(KilnNode* n, size_t i) { return n ? ToKiln(FromKiln(n)->output(i)) : nullptr; }

// ---- values
const char* ValueName(KilnValue* v) { return v ? FromKiln(v)->name().c_str() : ""; }
int32_t ValueTypeKind(KilnValue* v) { return v ? TypeKindOf(FromKiln(v)->type()) : KILN_TYPE_KIND_NONE; }
int32_t ValueElemType(KilnValue* v) { return v ? ElemTypeOf(FromKiln(v)->type()) : 0; }

int64_t ValueShape(KilnValue* v, const int64_t** out_dims) {
  return GuardedValue<int64_t>(-1, [&] { return v ? ShapeOf(FromKiln(v)->type(), out_dims) : int64_t{-1}; });
}

const char* ValueDimSymbol(KilnValue* v, size_t index) { return v ? DimSymbolOf(FromKiln(v)->type(), index) : nullptr; }

KilnNode* ValueProducer(KilnValue* v, size_t* out_index) {
  if (!v || !FromKiln(v)->producer()) return nullptr;
  if (out_index) *out_index = FromKiln(v)->producer_output();
  return ToKiln(FromKiln(v)->producer());
}

// Whether the first `n` uses of v are all by nodes of v's own graph (then use i is consumer i, with no list built).
bool HomeUses(const Value& v, size_t n) {
  const auto& uses = v.uses();
  for (size_t i = 0; i < n && i < uses.size(); ++i)
    if (uses[i].node->graph() != v.graph()) return false;
  return true;
}

size_t ValueConsumerCount(KilnValue* v) {
  return GuardedValue<size_t>(0, [&] {
    if (!v) return size_t{0};
    const Value& value = *FromKiln(v);
    return HomeUses(value, value.uses().size()) ? value.uses().size() : ConsumersOf(value).size();
  });
}

KilnNode* ValueConsumer(KilnValue* v, size_t index, size_t* out_input_index) {
  return GuardedValue<KilnNode*>(nullptr, [&]() -> KilnNode* {
    if (!v) return nullptr;
    const Value& value = *FromKiln(v);
    if (index < value.uses().size() && HomeUses(value, index + 1)) {
      if (out_input_index) *out_input_index = value.uses()[index].slot;
      return ToKiln(value.uses()[index].node);
    }
    std::vector<ConsumerSlot> uses = ConsumersOf(*FromKiln(v));
    if (index >= uses.size()) return nullptr;
    if (out_input_index) *out_input_index = uses[index].input_index;
    return ToKiln(uses[index].node);
  });
}

int ValueIsGraphInput(KilnValue* v) { return v && FromKiln(v)->is_graph_input() ? 1 : 0; }
int ValueIsGraphOutput(KilnValue* v) { return v && FromKiln(v)->is_graph_output() ? 1 : 0; }
int ValueIsConstant(KilnValue* v) { return v && IsConstantValue(*FromKiln(v)) ? 1 : 0; }

const KilnTensorView* ValueConstantData(KilnValue* v) {
  return GuardedValue<const KilnTensorView*>(nullptr, [&]() -> const KilnTensorView* {
    if (!v) return nullptr;
    std::shared_ptr<const Tensor> t = ConstantTensorOf(*FromKiln(v));
    return t ? CallFrame::Current().View(t) : nullptr;
  });
}

// ---- 1.8
const KilnTensorView* ValueConstantBytes(KilnValue* v) {
  return GuardedValue<const KilnTensorView*>(nullptr, [&]() -> const KilnTensorView* {
    if (!v) return nullptr;
    std::shared_ptr<const Tensor> t = ConstantTensorOf(*FromKiln(v));
    return t ? CallFrame::Current().View(t, CallFrame::Bytes::kStored) : nullptr;
  });
}

// ---- 1.10
KilnStatus* ValueConstantRead(KilnValue* v, uint64_t offset, uint64_t size, void* out) {
  return Guarded([&] {
    if (!v) throw std::invalid_argument("value is NULL");
    std::shared_ptr<const Tensor> t = ConstantTensorOf(*FromKiln(v));
    if (!t || t->type() == DataType::kString)
      throw std::invalid_argument("value '" + FromKiln(v)->name() + "' is not a constant of numbers");
    const std::shared_ptr<const Buffer>& b = t->buffer();
    const uint64_t total = b ? b->size() : 0;
    if (offset > total || size > total - offset)
      throw SlotError(KILN_STATUS_OUT_OF_RANGE, "bytes " + std::to_string(offset) + ".." +
                                                    std::to_string(offset + size) + " of constant '" +
                                                    FromKiln(v)->name() + "' of " + std::to_string(total) + " bytes");
    if (size == 0) return;
    if (!out) throw std::invalid_argument("out is NULL");
    b->Read(static_cast<size_t>(offset), {static_cast<std::byte*>(out), static_cast<size_t>(size)});
  });
}

// ---- 1.11
void StoredBytesRead(const void* at, uint64_t size, void* out) {
  try {
    // At any size: a plugin asks for stored bytes it reads once (a computed constant's source, often a few KiB for
    // CommonSubexpressionEliminationPass's sample), whose pages are likely not mapped (Buffer::Read).
    Buffer::CopyStored(at, {static_cast<std::byte*>(out), static_cast<size_t>(size)}, 0);
  } catch (...) {  // the registry's lock failing: the slot cannot fail, so copy as the caller would have
    std::memcpy(out, at, static_cast<size_t>(size));
  }
}

// ---- subgraphs (1.1)
size_t NodeSubgraphCount(KilnNode* n) {
  return GuardedValue<size_t>(0, [&] { return n ? FromKiln(n)->subgraphs().size() : size_t{0}; });
}

KilnGraph* NodeSubgraph(KilnNode* n, size_t index, const char** out_attr_name) {
  if (!n) return nullptr;
  size_t i = 0;
  for (const Attribute& a : FromKiln(n)->attributes()) {
    for (const auto& g : a.graphs) {
      if (i++ != index) continue;
      if (out_attr_name) *out_attr_name = a.name.c_str();
      return ToKiln(g.get());
    }
  }
  return nullptr;
}

KilnGraph* AttrGraph(const KilnAttribute* attr) {
  if (!attr || FromKiln(attr)->kind != AttrKind::kGraph) return nullptr;
  return ToKiln(FromKiln(attr)->graph());
}
KilnNode* GraphParentNode(KilnGraph* g) { return g ? ToKiln(FromKiln(g)->owner_node()) : nullptr; }
KilnGraph* ValueGraph(KilnValue* v) { return v ? ToKiln(FromKiln(v)->graph()) : nullptr; }

}  // namespace

void FillGraphSlots(KilnHostApi& api) {
  api.graph_name = GraphName;
  api.graph_node_count = GraphNodeCount;
  api.graph_nodes = GraphNodes;
  api.graph_input_count = GraphInputCount;
  api.graph_input = GraphInput;
  api.graph_output_count = GraphOutputCount;
  api.graph_output = GraphOutput;
  api.graph_find_value = GraphFindValue;
  api.graph_opset_version = GraphOpsetVersion;
  api.node_op_type = NodeOpType;
  api.node_domain = NodeDomain;
  api.node_name = NodeName;
  api.node_graph = NodeGraph;
  api.node_input_count = NodeInputCount;
  api.node_input = NodeInput;
  api.node_output_count = NodeOutputCount;
  api.node_output = NodeOutput;
  api.value_name = ValueName;
  api.value_type_kind = ValueTypeKind;
  api.value_elem_type = ValueElemType;
  api.value_shape = ValueShape;
  api.value_dim_symbol = ValueDimSymbol;
  api.value_producer = ValueProducer;
  api.value_consumer_count = ValueConsumerCount;
  api.value_consumer = ValueConsumer;
  api.value_is_graph_input = ValueIsGraphInput;
  api.value_is_graph_output = ValueIsGraphOutput;
  api.value_is_constant = ValueIsConstant;
  api.value_constant_data = ValueConstantData;
  api.value_constant_bytes = ValueConstantBytes;
  api.value_constant_read = ValueConstantRead;
  api.stored_bytes_read = StoredBytesRead;
  api.node_subgraph_count = NodeSubgraphCount;
  api.node_subgraph = NodeSubgraph;
  api.attr_graph = AttrGraph;
  api.graph_parent_node = GraphParentNode;
  api.value_graph = ValueGraph;
}

}  // namespace kiln::plugin
