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
#include <unordered_map>
#include <vector>
#include <unordered_set>

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
    for (const Value* v : g.values())
      if (!v->annotations().empty() && !v->name().empty()) add(values, v->name(), v->annotations());
  });
  if (nodes.empty() && values.empty()) return {};
  nlohmann::json j = nlohmann::json::object();
  if (!nodes.empty()) j["nodes"] = std::move(nodes);
  if (!values.empty()) j["values"] = std::move(values);
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);  // a name need not be UTF-8
}

// The main graph's nodes and value_info entries and the model's functions, serialized as they are exported (each
// with its field's tag) instead of held as protos until the model is written: on the generated 1M-node chain those
// protos beside the IR were a compile's peak memory. WriteStreamed puts them where the protos' own serialization
// would have, so the file is the same byte for byte.
struct SerializedParts {
  std::string nodes, value_infos, functions;
  // Called before a node or function is serialized: gives the tensors its export left to be streamed (a
  // subgraph's initializers) their bytes, as WriteStreamed does for those it does not stream.
  std::function<void()> settle;
};

class Exporter {
 public:
  explicit Exporter(const ExternalSink* sink) : sink_(sink) {}

  // With `parts` (the main graph only), nodes and value_info entries go there serialized instead of into `gp`.
  void ExportGraph(const Graph& g, onnx::GraphProto* gp, SerializedParts* parts = nullptr) {
    if (!g.name().empty()) gp->set_name(g.name());
    if (!g.doc_string().empty()) gp->set_doc_string(g.doc_string());
    TopoResult topo = TopologicalOrder(g);
    if (!topo.cycle_nodes.empty())
      throw InternalError("graph '" + g.name() + "' became cyclic at node '" + topo.cycle_nodes[0]->name() + "'");
    for (Node* n : topo.order) {
      if (!parts) {
        ExportNode(*n, gp->add_node());
        continue;
      }
      onnx::NodeProto np;
      ExportNode(*n, &np);
      if (parts->settle) parts->settle();
      AppendMessageField(parts->nodes, onnx_field::kGraphNode, np);
    }
    auto value_info = [&](const Value& v) {
      if (!parts) return ExportValueInfo(v, gp->add_value_info());
      onnx::ValueInfoProto vp;
      ExportValueInfo(v, &vp);
      AppendMessageField(parts->value_infos, onnx_field::kGraphValueInfo, vp);
    };
    for (Value* v : g.initializers()) {
      auto* tp = gp->add_initializer();
      TensorToProto(*v->initializer(), tp, sink_);
      tp->set_name(v->name());
    }
    for (Value* v : g.sparse_initializers()) SparseTensorToProto(*v->sparse_initializer(), gp->add_sparse_initializer());
    for (Value* v : g.inputs()) ExportValueInfo(*v, gp->add_input());
    for (Value* v : g.outputs()) ExportValueInfo(*v, gp->add_output());
    std::unordered_set<const Value*> written;
    for (Value* v : g.value_infos()) {
      if (v->is_deleted()) continue;
      value_info(*v);
      written.insert(v);
    }
    // Values a pass typed (shape inference) but the input did not declare.
    for (Node* n : topo.order)
      for (Value* v : n->outputs())
        if (v && v->type().kind != Type::Kind::kNone && !v->is_graph_output() && !written.count(v)) value_info(*v);
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

 private:
  void ExportValueInfo(const Value& v, onnx::ValueInfoProto* p) {
    p->set_name(v.name());
    if (v.type().kind != Type::Kind::kNone || !v.type().denotation().empty()) TypeToProto(v.type(), p->mutable_type());
    if (!v.doc_string().empty()) p->set_doc_string(v.doc_string());
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

 public:
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

// The model as a proto; with `parts`, the main graph's nodes and value_info entries and the functions go there
// serialized instead (SerializedParts).
onnx::ModelProto Export(const Model& m, const ExternalSink* sink, SerializedParts* parts = nullptr) {
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

// A stream buffer that appends to a string (an ostringstream would copy its bytes out at the end).
class StringAppendBuf final : public std::streambuf {
 public:
  explicit StringAppendBuf(std::string& s) : s_(s) {}

 protected:
  std::streamsize xsputn(const char* p, std::streamsize n) override {
    s_.append(p, static_cast<size_t>(n));
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
  std::span<const std::byte> rest = b->raw_bytes().subspan(at);
  os.write(reinterpret_cast<const char*>(rest.data()), static_cast<std::streamsize>(rest.size()));
}

// Gives the tensors left in `streamed` (not the main graph's initializers) their bytes in their protos.
void SettleStreamed(std::unordered_map<const onnx::TensorProto*, const Buffer*>& streamed) {
  for (auto& [p, buffer] : streamed) {
    std::span<const std::byte> bytes = buffer ? buffer->raw_bytes() : std::span<const std::byte>();
    const_cast<onnx::TensorProto*>(p)->set_raw_data(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
  streamed.clear();
}

// Serializes `proto` and `parts` to `out` with the raw bytes in `streamed` (keyed by the tensor proto that lacks
// them) written straight from the tensors' buffers, so that writing never holds a second copy of the weights.
// Protobuf reads fields in any order: the model's other fields come first, then the graph, whose initializers come
// last; everything else in field order, as protobuf would write it. Tensors of subgraphs get their bytes in the
// proto instead (they are small and nested deeper).
void WriteStreamed(onnx::ModelProto& proto, const SerializedParts& parts,
                   std::unordered_map<const onnx::TensorProto*, const Buffer*>& streamed, const Output& out) {
  std::ostream& os = out.os;
  const std::string& path = out.name;
  using google::protobuf::io::CodedOutputStream;
  std::unique_ptr<onnx::GraphProto> graph(proto.release_graph());
  google::protobuf::RepeatedPtrField<onnx::TensorProto> inits;
  inits.Swap(graph->mutable_initializer());
  // The graph's fields after value_info (13), written after the serialized entries.
  std::string tail;
  for (const auto& qa : graph->quantization_annotation())
    AppendMessageField(tail, onnx_field::kGraphQuantizationAnnotation, qa);
  for (const auto& sp : graph->sparse_initializer())
    AppendMessageField(tail, onnx_field::kGraphSparseInitializer, sp);
  graph->clear_quantization_annotation();
  graph->clear_sparse_initializer();
  std::vector<std::optional<const Buffer*>> raw(static_cast<size_t>(inits.size()));
  for (int i = 0; i < inits.size(); ++i)
    if (auto it = streamed.find(&inits.Get(i)); it != streamed.end()) {
      raw[static_cast<size_t>(i)] = it->second;
      streamed.erase(it);
    }
  SettleStreamed(streamed);
  auto size_of = [](const Buffer* b) -> uint64_t { return b ? b->size() : 0; };
  constexpr uint32_t kGraphTag = WireTag(onnx_field::kModelGraph, kWireLengthDelimited),
                     kInitializerTag = WireTag(onnx_field::kGraphInitializer, kWireLengthDelimited),
                     kRawDataTag = WireTag(onnx_field::kTensorRawData, kWireLengthDelimited);
  auto field = [](uint64_t body) { return 1 + CodedOutputStream::VarintSize64(body) + body; };
  std::vector<uint64_t> bodies(raw.size());
  uint64_t graph_bytes = graph->ByteSizeLong() + parts.nodes.size() + parts.value_infos.size() + tail.size();
  for (size_t i = 0; i < raw.size(); ++i) {
    bodies[i] = inits.Get(static_cast<int>(i)).ByteSizeLong() + (raw[i] ? field(size_of(*raw[i])) : 0);
    graph_bytes += field(bodies[i]);
  }
  const uint64_t model_bytes = proto.ByteSizeLong() + parts.functions.size() + field(graph_bytes);
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
  auto write_direct = [&](const Buffer* bytes) {
    if (co->HadError()) throw UsageError(path + ": writing failed");
    co.reset();  // hands its unused block back
    zero_copy.Flush();
    WriteBufferBytes(bytes, out, piece);
    co = std::make_unique<CodedOutputStream>(&zero_copy);
  };
  constexpr size_t kDirect = size_t{64} << 10;
  auto write = [&](const std::string& bytes) { co->WriteRaw(bytes.data(), static_cast<int>(bytes.size())); };
  proto.SerializeWithCachedSizes(co.get());  // functions (25) are the model's last field
  write(parts.functions);
  co->WriteTag(kGraphTag);
  co->WriteVarint64(graph_bytes);
  write(parts.nodes);  // the graph's first field
  graph->SerializeWithCachedSizes(co.get());
  write(parts.value_infos);
  write(tail);
  for (size_t i = 0; i < raw.size(); ++i) {
    co->WriteTag(kInitializerTag);
    co->WriteVarint64(bodies[i]);
    inits.Get(static_cast<int>(i)).SerializeWithCachedSizes(co.get());
    if (!raw[i]) continue;
    const uint64_t size = size_of(*raw[i]);
    co->WriteTag(kRawDataTag);
    co->WriteVarint64(size);
    if (size >= kDirect) {
      write_direct(*raw[i]);
    } else if (size != 0) {
      std::span<const std::byte> bytes = (*raw[i])->raw_bytes();
      co->WriteRaw(bytes.data(), static_cast<int>(bytes.size()));
    }
  }
  if (co->HadError()) throw UsageError(path + ": writing failed");
  co.reset();
  if (!zero_copy.Flush() || !os) throw UsageError(path + ": writing failed");
}

// Streams the model to `out`, raw tensor bytes straight from their buffers (WriteStreamed); `external` (may be
// empty) claims the tensors that go to an external-data file first.
void StreamModel(const Model& model, const ExternalSink& external, const Output& out) {
  std::unordered_map<const onnx::TensorProto*, const Buffer*> streamed;
  ExternalSink stream_or_external = [&](const Tensor& t, onnx::TensorProto* p) {
    if (external && external(t, p)) return true;
    if (t.storage() == Tensor::Storage::kTyped && ElementSize(t.type()) != 0) return false;
    streamed[p] = t.buffer().get();  // raw bytes: written straight from the tensor's buffer below, never copied
    return true;
  };
  SerializedParts parts;
  parts.settle = [&] { SettleStreamed(streamed); };
  onnx::ModelProto proto = Export(model, &stream_or_external, &parts);
  WriteStreamed(proto, parts, streamed, out);
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
