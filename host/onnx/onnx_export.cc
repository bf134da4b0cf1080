#include "onnx/onnx_export.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <streambuf>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <onnx/onnx_pb.h>

#include "ir/buffer.h"
#include "ir/model.h"
#include "ir/topo_order.h"
#include "onnx/annotations_key.h"
#include "onnx/proto_convert.h"
#include "onnx/proto_wire.h"
#include "support/atomic_file.h"
#include "support/error.h"
#include "support/page_advice.h"

namespace kiln {
namespace {

// The annotations of the main graph tree as the JSON object written under kAnnotationsMetadataKey (sorted keys,
// compact, so that a model read and written again gets the same text); empty when there are none.
std::string AnnotationsJson(const Model& m) {
  nlohmann::json nodes = nlohmann::json::object(), values = nlohmann::json::object();
  auto add = [](nlohmann::json& section, const std::string& name, const std::map<std::string, std::string>& a) {
    for (const auto& [k, v] : a)
      if (!IsTemporaryMark(k)) section[name][k] = v;
  };
  ForEachGraphIn(m.graph(), [&](const Graph& g) {
    for (const auto& n : g.nodes())
      if (!n->annotations().empty() && !n->name().empty()) add(nodes, n->name(), n->annotations());
    for (const auto& v : g.value_list())
      if (!v->annotations().empty() && !v->name().empty()) add(values, v->name(), v->annotations());
  });
  if (nodes.empty() && values.empty()) return {};
  nlohmann::json j = nlohmann::json::object();
  if (!nodes.empty()) j["nodes"] = std::move(nodes);
  if (!values.empty()) j["values"] = std::move(values);
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);  // a name need not be UTF-8
}

// What the writer streams of the model instead of holding it as protos: the model's functions serialized (each with
// its field's tag), and the main graph's nodes (in topological order), value_info entries and initializers, which
// WriteStreamed serializes one at a time (on the generated 1M-node chain, protos or bytes of those held beside the
// IR were the write's peak memory). The file is the same byte for byte as the protos' own serialization.
struct StreamedParts {
  std::string functions;
  std::vector<Node*> nodes;
  const Graph* graph = nullptr;  // its value_info entries (ForEachValueInfo) and initializers are read from it
  // Called before a node or function is serialized: gives the tensors its export left to be streamed (a
  // subgraph's initializers) their bytes.
  std::function<void()> settle;
};

// Calls fn(value) for each value_info entry of `g` as the file lists them: the graph's own (value_info), less those
// removed, then the values a pass typed (shape inference) that the input did not declare, in `order` (the nodes'
// topological order). A listed value has in_value_info set, which a graph's entries set on its own values only.
template <typename Fn>
void ForEachValueInfo(const Graph& g, const std::vector<Node*>& order, Fn&& fn) {
  for (Value* v : g.value_infos())
    if (!v->is_deleted()) fn(*v);
  for (Node* n : order)
    for (Value* v : n->outputs())
      if (v && v->type().kind != Type::Kind::kNone && !v->is_graph_output() && !v->in_value_info()) fn(*v);
}

class Exporter {
 public:
  explicit Exporter(const ExternalSink* sink) : sink_(sink) {}

  // With `parts` (the main graph only), its nodes, value_info entries and initializers are listed there for
  // WriteStreamed instead of exported into `gp`.
  void ExportGraph(const Graph& g, onnx::GraphProto* gp, StreamedParts* parts = nullptr) {
    if (!g.name().empty()) gp->set_name(g.name());
    if (!g.doc_string().empty()) gp->set_doc_string(g.doc_string());
    TopoResult topo = TopologicalOrder(g);
    if (!topo.cycle_nodes.empty())
      throw InternalError("graph '" + g.name() + "' became cyclic at node '" + topo.cycle_nodes[0]->name() + "'");
    if (parts) {
      parts->nodes = std::move(topo.order);
      parts->graph = &g;
    } else {
      for (Node* n : topo.order) ExportNode(*n, gp->add_node());
      for (Value* v : g.initializers()) ExportInitializer(*v, gp->add_initializer(), sink_);
    }
    for (Value* v : g.sparse_initializers()) SparseTensorToProto(*v->sparse_initializer(), gp->add_sparse_initializer());
    for (Value* v : g.inputs()) ExportValueInfo(*v, gp->add_input());
    for (Value* v : g.outputs()) ExportValueInfo(*v, gp->add_output());
    if (!parts) ForEachValueInfo(g, topo.order, [&](const Value& v) { ExportValueInfo(v, gp->add_value_info()); });
    for (const TensorAnnotation& a : g.quantization_annotation) {
      auto* qa = gp->add_quantization_annotation();
      qa->set_tensor_name(a.tensor_name);
      for (const auto& [k, val] : a.quant_parameter_tensor_names) {
        auto* e = qa->add_quant_parameter_tensor_names();
        e->set_key(k);
        e->set_value(val);
      }
    }
  }

  void ExportValueInfo(const Value& v, onnx::ValueInfoProto* p) {
    p->set_name(v.name());
    if (v.type().kind != Type::Kind::kNone || !v.type().denotation().empty()) TypeToProto(v.type(), p->mutable_type());
    if (!v.doc_string().empty()) p->set_doc_string(v.doc_string());
  }

  static void ExportInitializer(const Value& v, onnx::TensorProto* tp, const ExternalSink* sink) {
    TensorToProto(*v.initializer(), tp, sink);
    tp->set_name(v.name());
  }

  void ExportNode(const Node& n, onnx::NodeProto* np) {
    for (Value* in : n.inputs()) np->add_input(in ? in->name() : std::string());
    for (Value* out : n.outputs()) np->add_output(out ? out->name() : std::string());
    if (!n.name().empty()) np->set_name(n.name());
    np->set_op_type(n.op_type());
    if (!n.domain().empty()) np->set_domain(n.domain());
    if (!n.doc_string().empty()) np->set_doc_string(n.doc_string());
    for (const Attribute& a : n.attributes())
      if (!IsTemporaryMark(a.name)) ExportAttribute(a, np->add_attribute());
  }

  // A model-local function: signature, imports, the body's nodes in topological order (constants a pass put in
  // the body as initializers become Constant nodes: a function has no initializers), and the fields this ONNX
  // does not know, as they were read.
  void ExportFunction(const Function& f, onnx::FunctionProto* fp) {
    const Graph& body = f.body();
    fp->set_name(f.name());
    fp->set_domain(f.domain());
    for (const Value* in : body.inputs()) fp->add_input(in->name());
    for (const Value* out : body.outputs()) fp->add_output(out->name());
    for (const std::string& a : f.attribute_names()) fp->add_attribute(a);
    for (const Value* init : body.initializers()) {
      onnx::NodeProto* np = fp->add_node();
      np->add_output(init->name());
      np->set_op_type("Constant");
      onnx::AttributeProto* ap = np->add_attribute();
      ap->set_name("value");
      ap->set_type(onnx::AttributeProto::TENSOR);
      TensorToProto(*init->initializer(), ap->mutable_t(), nullptr);
    }
    TopoResult topo = TopologicalOrder(body);
    if (!topo.cycle_nodes.empty())
      throw InternalError("function '" + f.name() + "' became cyclic at node '" + topo.cycle_nodes[0]->name() + "'");
    for (Node* n : topo.order) ExportNode(*n, fp->add_node());
    if (!f.doc_string.empty()) fp->set_doc_string(f.doc_string);
    for (const OpsetImport& o : f.opset_imports()) {
      auto* op = fp->add_opset_import();
      op->set_domain(o.domain);
      op->set_version(o.version);
    }
    if (!f.unknown_fields.empty()) fp->MergeFromString(f.unknown_fields);
  }

 private:

  void ExportAttribute(const Attribute& a, onnx::AttributeProto* ap) {
    AttributeValueToProto(a, ap);
    size_t first_of_list = 0;
    if (a.has_g && !a.graphs.empty()) {
      ExportGraph(*a.graphs[0], ap->mutable_g());
      first_of_list = 1;
    }
    for (size_t i = first_of_list; i < a.graphs.size(); ++i) ExportGraph(*a.graphs[i], ap->add_graphs());
  }

  const ExternalSink* sink_;
};

// The model as a proto; with `parts`, the functions go there serialized and the main graph's nodes, value_info
// entries and initializers listed, for WriteStreamed (StreamedParts).
onnx::ModelProto Export(const Model& m, const ExternalSink* sink, StreamedParts* parts = nullptr) {
  onnx::ModelProto p;
  p.set_ir_version(m.ir_version);
  for (const OpsetImport& o : m.opset_imports) {
    auto* op = p.add_opset_import();
    op->set_domain(o.domain);
    op->set_version(o.version);
  }
  if (m.producer_name) p.set_producer_name(*m.producer_name);
  if (m.producer_version) p.set_producer_version(*m.producer_version);
  if (m.domain) p.set_domain(*m.domain);
  if (m.model_version) p.set_model_version(*m.model_version);
  if (m.doc_string) p.set_doc_string(*m.doc_string);
  // With `parts` the functions come first: settling a function's tensors must not reach the main graph's
  // initializers, which stay to be streamed.
  Exporter functions(sink);
  if (parts)
    for (const auto& f : m.functions()) {
      onnx::FunctionProto fp;
      functions.ExportFunction(*f, &fp);
      if (parts->settle) parts->settle();
      AppendMessageField(parts->functions, onnx_field::kModelFunctions, fp);
    }
  Exporter(sink).ExportGraph(m.graph(), p.mutable_graph(), parts);
  if (!parts)
    for (const auto& f : m.functions()) functions.ExportFunction(*f, p.add_functions());
  auto add_metadata = [&](const std::string& k, const std::string& v) {
    auto* e = p.add_metadata_props();
    e->set_key(k);
    e->set_value(v);
  };
  for (const auto& [k, v] : m.metadata_props)
    if (k != kAnnotationsMetadataKey) add_metadata(k, v);
  if (std::string annotations = AnnotationsJson(m); !annotations.empty())
    add_metadata(std::string(kAnnotationsMetadataKey), annotations);
  for (const auto& t : m.training_info) p.add_training_info()->ParseFromString(t);
  return p;
}

// A serialized model at least this large has its string's pages mapped before it is written (PrefaultForWrite).
constexpr uint64_t kPrefaultBytes = uint64_t{256} << 10;

// Where the writer's bytes go: a stream, named in messages. Where it is a file, mapped weights are copied into it
// by the kernel (AtomicFile::CopyFrom); where it appends to a string, the string is reserved at the model's size.
struct Output {
  std::ostream& os;
  const std::string& name;
  AtomicFile* file = nullptr;
  std::string* string = nullptr;
};

// A stream buffer that appends to a string (an ostringstream would copy its bytes out at the end). Bytes come
// through Buffer::CopyStored, which reads a large range lying in a mapped model file with pread rather than through
// the mapping (ERNIE's 5 MB of weights: 0.4 ms against 2.6 ms on this VM).
class StringAppendBuf final : public std::streambuf {
 public:
  explicit StringAppendBuf(std::string& s) : s_(s) {}

 protected:
  std::streamsize xsputn(const char* p, std::streamsize n) override {
    const size_t end = s_.size();
    s_.resize(end + static_cast<size_t>(n));
    Buffer::CopyStored(p, std::as_writable_bytes(std::span(s_).subspan(end)));
    return n;
  }
  int_type overflow(int_type c) override {
    if (!traits_type::eq_int_type(c, traits_type::eof())) s_.push_back(traits_type::to_char_type(c));
    return traits_type::not_eof(c);
  }

 private:
  std::string& s_;
};

// Writes a tensor's bytes to `out`: bytes of a mapped file copied file to file by the kernel where `out` is a file
// and the kernel can (AtomicFile::CopyFrom), a computed buffer not yet made whole a piece at a time through `piece`
// (so a rewritten weight goes from the model file to the output without ever being held whole), any other at once
// from where its bytes lie.
void WriteBufferBytes(const Buffer* b, const Output& out, std::vector<std::byte>& piece) {
  if (!b || b->size() == 0) return;
  std::ostream& os = out.os;
  size_t at = 0;  // the bytes written so far; the rest is written from where it lies
  if (std::optional<Buffer::FileSpan> span = out.file ? b->file_span() : std::nullopt) {
    at = out.file->CopyFrom(span->fd, span->offset, b->size());
  } else {
    constexpr size_t kPiece = size_t{256} << 10;  // stays in the core's cache between computing and writing
    for (; at < b->size(); at += kPiece) {
      const size_t n = std::min(kPiece, b->size() - at);
      if (piece.size() < n) piece.resize(kPiece);
      std::span<std::byte> out(piece.data(), n);
      if (!b->ComputeInto(at, out)) break;  // not computed, or made whole meanwhile: the rest is at hand
      os.write(reinterpret_cast<const char*>(out.data()), static_cast<std::streamsize>(n));
    }
  }
  if (at >= b->size()) return;  // all computed: raw_bytes() would make the whole for nothing
  // A file the kernel could not copy into (another file system) reads the bytes through their mapping: its pages
  // mapped in one call rather than faulted in a few at a time (BERT's 126 MB onto tmpfs: 152 -> 125 ms). A string
  // output reads them with pread (StringAppendBuf).
  if (!out.string) b->PopulatePages(at, b->size() - at);
  std::span<const std::byte> rest = b->raw_bytes().subspan(at);
  os.write(reinterpret_cast<const char*>(rest.data()), static_cast<std::streamsize>(rest.size()));
}

// Gives the tensors left in `streamed` (those of subgraphs and functions) their bytes in their protos.
void SettleStreamed(std::unordered_map<const onnx::TensorProto*, const Buffer*>& streamed) {
  for (auto& [p, buffer] : streamed) {
    std::span<const std::byte> bytes = buffer ? buffer->raw_bytes() : std::span<const std::byte>();
    const_cast<onnx::TensorProto*>(p)->set_raw_data(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
  streamed.clear();
}

// Whether a tensor that stays in the model is written as raw bytes (streamed from its buffer), not typed fields.
bool WritesRawBytes(const Tensor& t) { return t.storage() != Tensor::Storage::kTyped || ElementSize(t.type()) == 0; }

// A length-delimited field's bytes: tag, length, body.
uint64_t FieldBytes(uint64_t body) { return 1 + google::protobuf::io::CodedOutputStream::VarintSize64(body) + body; }

// The main graph's entries in the order WriteStreamed writes them, sized first (the graph's length comes before
// its body) and serialized one at a time: each node, value_info entry and initializer header (the TensorProto
// without its raw bytes) is exported twice into one proto reused (its strings' storage kept), once to size it and
// once to write it, so that nothing of the kind is held whole, and only the three sections' totals are kept (sizes
// a node and an entry took 4 to 8 bytes each, and the lists of entries 8 more: the 1M-node chain's write peak).
// Each section's bytes as written are checked against its total. A node holding subgraphs is exported once and kept
// serialized: its subgraphs' tensors may have gone to the external-data file, which must happen once; so is the
// header of an initializer the external-data sink claimed, for the same reason.
class GraphEntries {
 public:
  GraphEntries(const StreamedParts& parts, Exporter& exporter, const ExternalSink& external)
      : parts_(parts), exporter_(exporter), graph_(*parts.graph) {
    for (const Node* n : parts.nodes) node_bytes_ += FieldBytes(Checked(SizeNode(*n)));
    ForEachValueInfo(graph_, parts.nodes, [&](const Value& v) {
      FillValueInfo(v);
      value_info_bytes_ += FieldBytes(Checked(value_info_.ByteSizeLong()));
    });
    const std::vector<Value*>& initializers = graph_.initializers();
    for (size_t i = 0; i < initializers.size(); ++i) {
      const bool claimed = ExportHeader(*initializers[i], &external);
      const uint32_t header_size = Checked(tensor_.ByteSizeLong());
      if (claimed) {
        if (external_headers_.empty()) external_headers_.resize(initializers.size());
        external_headers_[i] = {KeepHeader(tensor_, header_size), header_size};
      }
      initializer_bytes_ += FieldBytes(Body(header_size));
    }
  }

  // The bytes of the graph's fields these entries make (each with its tag and length).
  uint64_t bytes() const { return node_bytes_ + value_info_bytes_ + initializer_bytes_; }

  void WriteNodes(google::protobuf::io::CodedOutputStream& co) {
    constexpr uint32_t kTag = WireTag(onnx_field::kGraphNode, kWireLengthDelimited);
    uint64_t written = 0;
    for (const Node* n : parts_.nodes) {
      co.WriteTag(kTag);
      if (auto it = kept_.find(n); it != kept_.end()) {
        co.WriteVarint32(static_cast<uint32_t>(it->second.size()));
        co.WriteString(it->second);
        written += FieldBytes(it->second.size());
        continue;
      }
      node_.Clear();
      exporter_.ExportNode(*n, &node_);
      const uint32_t size = Checked(node_.ByteSizeLong());
      co.WriteVarint32(size);
      node_.SerializeWithCachedSizes(&co);
      written += FieldBytes(size);
    }
    if (written != node_bytes_) throw InternalError("the nodes' export changed while writing");
  }

  void WriteValueInfos(google::protobuf::io::CodedOutputStream& co) {
    constexpr uint32_t kTag = WireTag(onnx_field::kGraphValueInfo, kWireLengthDelimited);
    uint64_t written = 0;
    ForEachValueInfo(graph_, parts_.nodes, [&](const Value& v) {
      FillValueInfo(v);
      const uint32_t size = Checked(value_info_.ByteSizeLong());
      co.WriteTag(kTag);
      co.WriteVarint32(size);
      value_info_.SerializeWithCachedSizes(&co);
      written += FieldBytes(size);
    });
    if (written != value_info_bytes_) throw InternalError("the value_info entries' export changed while writing");
  }

  // Calls write_raw(buffer) where an initializer's raw bytes go, after its header and the raw_data field's tag and
  // length.
  // `co` may be replaced by write_raw (which writes around it).
  template <typename WriteRaw>
  void WriteInitializers(std::unique_ptr<google::protobuf::io::CodedOutputStream>& co, WriteRaw&& write_raw) {
    constexpr uint32_t kTag = WireTag(onnx_field::kGraphInitializer, kWireLengthDelimited),
                       kRawDataTag = WireTag(onnx_field::kTensorRawData, kWireLengthDelimited);
    const std::vector<Value*>& initializers = graph_.initializers();
    uint64_t written = 0;
    for (size_t i = 0; i < initializers.size(); ++i) {
      co->WriteTag(kTag);
      if (!external_headers_.empty() && external_headers_[i].data() != nullptr) {
        const std::string_view kept = external_headers_[i];  // went to the external-data file: no raw bytes here
        co->WriteVarint32(static_cast<uint32_t>(kept.size()));
        co->WriteRaw(kept.data(), static_cast<int>(kept.size()));
        written += FieldBytes(kept.size());
        continue;
      }
      // Not claimed by the external-data sink when sized: exported again without it, to the same header.
      ExportHeader(*initializers[i], nullptr);
      const uint32_t body = Body(Checked(tensor_.ByteSizeLong()));
      co->WriteVarint32(body);
      tensor_.SerializeWithCachedSizes(co.get());
      written += FieldBytes(body);
      if (!streamed_) continue;
      co->WriteTag(kRawDataTag);
      co->WriteVarint64(raw_ ? raw_->size() : 0);
      if (raw_ && raw_->size() != 0) write_raw(raw_);
    }
    if (written != initializer_bytes_) throw InternalError("the initializers' export changed while writing");
  }

 private:
  // Exports `v`'s tensor into tensor_, its raw bytes left to be streamed from raw_ (streamed_) unless `external`
  // (may be null or empty) claims the tensor for the external-data file. Returns whether it did.
  bool ExportHeader(const Value& v, const ExternalSink* external) {
    tensor_.Clear();
    external_ = external;
    raw_ = nullptr;
    streamed_ = claimed_ = false;
    Exporter::ExportInitializer(v, &tensor_, &sink_);
    return claimed_;
  }

  // The initializer field's body for the header just exported (ExportHeader): the header, and the raw_data field
  // when its bytes are streamed.
  uint32_t Body(uint32_t header_size) const {
    return Checked(header_size + (streamed_ ? FieldBytes(raw_ ? raw_->size() : 0) : 0));
  }

  // Keeps `tp` serialized (`size` bytes, its ByteSizeLong just computed) in pieces of 1 MB or more, never moved.
  const char* KeepHeader(const onnx::TensorProto& tp, uint32_t size) {
    constexpr size_t kPiece = size_t{1} << 20;
    if (headers_.empty() || kPiece - header_used_ < size) {
      headers_.push_back(std::make_unique_for_overwrite<char[]>(std::max<size_t>(kPiece, size)));
      header_used_ = 0;
    }
    char* at = headers_.back().get() + header_used_;
    tp.SerializeWithCachedSizesToArray(reinterpret_cast<uint8_t*>(at));
    header_used_ += size;
    return at;
  }

  // The 2 GB check comes later, on the whole; a single entry past it must not wrap here first.
  static uint32_t Checked(uint64_t size) {
    if (size > static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
      throw ModelError("the model would be over 2 GB, past protobuf's limit");
    return static_cast<uint32_t>(size);
  }

  uint64_t SizeNode(const Node& n) {
    node_.Clear();
    exporter_.ExportNode(n, &node_);
    if (parts_.settle) parts_.settle();
    if (!n.has_subgraphs()) return node_.ByteSizeLong();
    std::string& bytes = kept_[&n];
    node_.SerializeToString(&bytes);
    return bytes.size();
  }

  void FillValueInfo(const Value& v) {
    value_info_.Clear();
    exporter_.ExportValueInfo(v, &value_info_);
  }

  const StreamedParts& parts_;
  Exporter& exporter_;
  const Graph& graph_;
  onnx::NodeProto node_;
  onnx::ValueInfoProto value_info_;
  uint64_t node_bytes_ = 0, value_info_bytes_ = 0, initializer_bytes_ = 0;
  std::unordered_map<const Node*, std::string> kept_;
  std::vector<std::unique_ptr<char[]>> headers_;
  size_t header_used_ = 0;  // in the last piece
  // By initializer, the header kept for one that went to the external-data file (null data for any other); empty
  // when none did.
  std::vector<std::string_view> external_headers_;
  // ExportHeader's state, read by sink_ (made once: a std::function per initializer would cost as much again).
  onnx::TensorProto tensor_;
  const ExternalSink* external_ = nullptr;
  const Buffer* raw_ = nullptr;
  bool streamed_ = false, claimed_ = false;
  ExternalSink sink_ = [this](const Tensor& t, onnx::TensorProto* p) {
    if (external_ && *external_ && (*external_)(t, p)) return claimed_ = true;
    if (!WritesRawBytes(t)) return false;
    raw_ = t.buffer().get();  // written straight from the tensor's buffer, never copied
    return streamed_ = true;
  };
};

// Serializes `proto` and `parts` to `out`, the main graph's entries one at a time and raw tensor bytes straight
// from the tensors' buffers (GraphEntries), so that writing never holds a second copy of the graph or the weights.
// Protobuf reads fields in any order: the model's other fields come first, then the graph, whose initializers come
// last; everything else in field order, as protobuf would write it.
void WriteStreamed(onnx::ModelProto& proto, GraphEntries& entries, const StreamedParts& parts, const Output& out) {
  std::ostream& os = out.os;
  const std::string& path = out.name;
  using google::protobuf::io::CodedOutputStream;
  std::unique_ptr<onnx::GraphProto> graph(proto.release_graph());
  // The graph's fields after value_info (13), written after its entries.
  std::string tail;
  for (const auto& qa : graph->quantization_annotation())
    AppendMessageField(tail, onnx_field::kGraphQuantizationAnnotation, qa);
  for (const auto& sp : graph->sparse_initializer())
    AppendMessageField(tail, onnx_field::kGraphSparseInitializer, sp);
  graph->clear_quantization_annotation();
  graph->clear_sparse_initializer();
  constexpr uint32_t kGraphTag = WireTag(onnx_field::kModelGraph, kWireLengthDelimited);
  const uint64_t graph_bytes = graph->ByteSizeLong() + entries.bytes() + tail.size();
  const uint64_t model_bytes = proto.ByteSizeLong() + parts.functions.size() + FieldBytes(graph_bytes);
  if (model_bytes > static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
    throw ModelError(path + ": the model would be over 2 GB, past protobuf's limit" +
                     (out.file ? "; pass --external-data-threshold (for example 1024) to keep large tensors in an "
                                 "external-data file"
                               : ""));
  if (out.string) {
    const size_t at = out.string->size();
    out.string->reserve(at + model_bytes);
    if (model_bytes >= kPrefaultBytes) PrefaultForWrite(out.string->data() + at, model_bytes);
  }
  // protobuf's OstreamOutputStream cannot be flushed midway; its adaptor over a copying stream can.
  class Sink final : public google::protobuf::io::CopyingOutputStream {
   public:
    explicit Sink(std::ostream& os) : os_(os) {}
    bool Write(const void* buffer, int size) override {
      os_.write(static_cast<const char*>(buffer), size);
      return static_cast<bool>(os_);
    }

   private:
    std::ostream& os_;
  } sink(os);
  google::protobuf::io::CopyingOutputStreamAdaptor zero_copy(&sink);
  auto co = std::make_unique<CodedOutputStream>(&zero_copy);
  // Large raw bytes go to the stream directly (the file buffer passes a large write straight to the kernel):
  // copied through protobuf's 8 KB blocks they cost a second copy of every weight.
  std::vector<std::byte> piece;
  constexpr size_t kDirect = size_t{64} << 10;
  auto write_raw = [&](const Buffer* bytes) {
    if (bytes->size() < kDirect) {
      std::span<const std::byte> b = bytes->raw_bytes();
      co->WriteRaw(b.data(), static_cast<int>(b.size()));
      return;
    }
    if (co->HadError()) throw UsageError(path + ": writing failed");
    co.reset();  // hands its unused block back
    zero_copy.Flush();
    WriteBufferBytes(bytes, out, piece);
    co = std::make_unique<CodedOutputStream>(&zero_copy);
  };
  auto write = [&](const std::string& bytes) { co->WriteRaw(bytes.data(), static_cast<int>(bytes.size())); };
  proto.SerializeWithCachedSizes(co.get());  // functions (25) are the model's last field
  write(parts.functions);
  co->WriteTag(kGraphTag);
  co->WriteVarint64(graph_bytes);
  entries.WriteNodes(*co);  // the graph's first field
  graph->SerializeWithCachedSizes(co.get());
  entries.WriteValueInfos(*co);
  write(tail);
  entries.WriteInitializers(co, write_raw);
  if (co->HadError()) throw UsageError(path + ": writing failed");
  co.reset();
  if (!zero_copy.Flush() || !os) throw UsageError(path + ": writing failed");
}

// Streams the model to `out` (WriteStreamed); `external` (may be empty) claims the tensors that go to an
// external-data file first.
void StreamModel(const Model& model, const ExternalSink& external, const Output& out) {
  std::unordered_map<const onnx::TensorProto*, const Buffer*> streamed;
  // Tensors of functions and subgraphs: raw bytes given to their protos just before these are serialized.
  ExternalSink stream_or_external = [&](const Tensor& t, onnx::TensorProto* p) {
    if (external && external(t, p)) return true;
    if (!WritesRawBytes(t)) return false;
    streamed[p] = t.buffer().get();
    return true;
  };
  StreamedParts parts;
  parts.settle = [&] { SettleStreamed(streamed); };
  onnx::ModelProto proto = Export(model, &stream_or_external, &parts);
  Exporter exporter(&stream_or_external);
  GraphEntries entries(parts, exporter, external);
  WriteStreamed(proto, entries, parts, out);
}

}  // namespace

onnx::ModelProto ExportModelProto(const Model& model) { return Export(model, nullptr); }

void WriteModel(const Model& model, const std::string& path, const ExportOptions& options) {
  AtomicFile out(path);
  WriteModel(model, out, options);
}

void WriteModel(const Model& model, AtomicFile& out, const ExportOptions& options) {
  namespace fs = std::filesystem;
  const std::string& path = out.path();
  const std::string data_name = fs::path(path).filename().string() + ".data";
  const std::string data_path = (fs::path(path).parent_path() / data_name).string();
  std::unique_ptr<AtomicFile> data;
  uint64_t offset = 0;
  std::vector<std::byte> piece;
  ExternalSink sink = [&](const Tensor& t, onnx::TensorProto* p) {
    bool external = options.external_data_threshold ? t.byte_size() >= *options.external_data_threshold
                                                    : t.storage() == Tensor::Storage::kExternal;
    if (!external) return false;
    if (!data) data = std::make_unique<AtomicFile>(data_path);
    const uint64_t size = t.buffer() ? t.buffer()->size() : 0;
    uint64_t pad = (64 - offset % 64) % 64;  // 64-byte alignment keeps mapped tensors aligned for SIMD loads
    for (uint64_t i = 0; i < pad; ++i) data->stream().put('\0');
    offset += pad;
    WriteBufferBytes(t.buffer().get(), Output{data->stream(), data->path(), data.get()}, piece);
    p->set_data_location(onnx::TensorProto::EXTERNAL);
    auto add = [p](const std::string& k, const std::string& v) {
      auto* e = p->add_external_data();
      e->set_key(k);
      e->set_value(v);
    };
    add("location", data_name);
    add("offset", std::to_string(offset));
    add("length", std::to_string(size));
    offset += size;
    return true;
  };
  StreamModel(model, sink, Output{out.stream(), out.path(), &out});
  if (data) data->Commit();
  out.Commit();
}

std::string SerializeModel(const Model& model, const std::string& name) {
  std::string bytes;
  StringAppendBuf buf(bytes);
  std::ostream os(&buf);
  StreamModel(model, nullptr, Output{os, name, nullptr, &bytes});
  return bytes;
}

}  // namespace kiln
