#include "onnx/onnx_import.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>

#include <google/protobuf/io/coded_stream.h>
#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <deque>
#include <unordered_map>

#include "ir/topo_order.h"
#include "onnx/annotations_key.h"
#include "onnx/external_data.h"
#include "onnx/proto_convert.h"
#include "onnx/weight_split.h"
#include "support/error.h"

namespace kiln {
namespace {

// The tensors of the main graph's small weights, whose bytes already share one block (WeightSplit::packed), kept in
// one array that they share too (aliasing shared_ptrs): 48 bytes a weight where a make_shared each took 64 (the
// 1M-node chain's 667k weights: 10 MiB). Like their bytes, they go when the last of them does.
class TensorBlock {
 public:
  explicit TensorBlock(size_t n) : tensors_(n > 0 ? std::make_shared<Tensor[]>(n) : nullptr), size_(n) {}
  std::shared_ptr<const Tensor> Keep(Tensor&& t) {
    if (used_ == size_) throw InternalError("TensorBlock: more tensors than it was made for");
    Tensor* at = &tensors_[used_++];
    *at = std::move(t);
    return std::shared_ptr<const Tensor>(tensors_, at);
  }

 private:
  std::shared_ptr<Tensor[]> tensors_;
  size_t size_, used_ = 0;
};

class Importer {
 public:
  // `streamed`: the main graph's initializers and nodes, when the weight split took them out of its GraphProto.
  Importer(Model& model, std::string name, ExternalDataReader* ext, WeightSplit* streamed)
      : model_(model), name_(std::move(name)), ext_(ext), streamed_(streamed) {}

  // Phase one: creates every value and node of `g` and, recursively, of its subgraphs.
  void Declare(onnx::GraphProto& gp, Graph& g) {
    g.set_name(gp.name());  // first: the messages below name the graph
    g.set_doc_string(gp.doc_string());
    const std::string where = Where(g);
    WeightSplit* streamed = &g == &model_.graph() ? streamed_ : nullptr;  // its initializers and nodes, if split out
    size_t values = static_cast<size_t>(gp.initializer_size() + gp.input_size());
    for (const auto& np : gp.node()) values += static_cast<size_t>(np.output_size());
    if (streamed != nullptr) values += streamed->raw.size() + streamed->nodes.size();  // nodes: one output, mostly
    g.ReserveValues(values);
    for (auto& tp : *gp.mutable_initializer()) DeclareInitializer(std::move(tp), g, where);
    // Converted: their protos are freed now rather than held beside the nodes built next (the load's peak).
    google::protobuf::RepeatedPtrField<onnx::TensorProto>().Swap(gp.mutable_initializer());
    if (streamed != nullptr) DeclareStreamedInitializers(*streamed, g, where);
    for (auto& sp : *gp.mutable_sparse_initializer()) {
      std::string sname = sp.values().name();
      if (sname.empty() || g.FindValue(sname))
        throw ModelError(name_ + ": " + where + ": sparse initializer '" + sname + "' is unnamed or defined twice");
      g.AddSparseInitializer(SparseFromProto(std::move(sp), where + ": sparse initializer '" + sname + "'"));
    }
    for (const auto& in : gp.input()) {
      Value* v = g.FindValue(in.name());
      if (v == nullptr) {
        v = g.AddInput(in.name(), TypeFromProto(in.type()));
      } else {
        if (!v->is_initializer())
          throw ModelError(name_ + ": " + where + ": graph input '" + in.name() + "' is declared twice");
        if (in.has_type()) v->SetType(TypeFromProto(in.type()));
        List(g, v, &Graph::AppendInput);
      }
      v->set_doc_string(in.doc_string());
    }
    if (streamed != nullptr)
      DeclareStreamedNodes(*streamed, g, where);
    else
      DeclareNodes(*gp.mutable_node(), g, where);
  }

  // Declares a function: its body's inputs and nodes (resolved with everything else in Resolve).
  void DeclareFunction(onnx::FunctionProto& fp, Function& f) {
    Graph& g = f.body();
    const std::string where = Where(g);
    g.ReserveValues(static_cast<size_t>(fp.input_size() + fp.node_size()));
    for (const auto& in : fp.input()) {
      if (g.FindValue(in)) throw ModelError(name_ + ": " + where + ": input '" + in + "' is declared twice");
      g.AddInput(in, Type());
    }
    DeclareNodes(*fp.mutable_node(), g, where);
    functions_.emplace_back(&fp, &f);
  }

  // `block`, when not null, keeps the tensor (see TensorBlock). The tensor holds no name: the proto's went to the
  // value.
  void DeclareInitializer(onnx::TensorProto&& tp, Graph& g, const std::string& where, TensorBlock* block = nullptr) {
    std::string tname;
    tname.swap(*tp.mutable_name());  // the value's, not the tensor's (Graph::AddInitializerNamed)
    if (tname.empty()) throw ModelError(name_ + ": " + where + ": an initializer has no name");
    if (g.FindValue(tname)) throw ModelError(name_ + ": " + where + ": initializer '" + tname + "' is defined twice");
    Tensor t = TensorFromProto(std::move(tp), ext_, where + ": initializer '" + tname + "'");
    if (block == nullptr)
      g.AddInitializerNamed(std::move(tname), std::move(t));
    else
      g.AddInitializerNamed(std::move(tname), block->Keep(std::move(t)));
  }

  // The main graph's initializers as the weight split left them (weight_split.h), parsed one at a time into one
  // message, each lent its raw bytes just before it is converted.
  void DeclareStreamedInitializers(WeightSplit& split, Graph& g, const std::string& where) {
    onnx::TensorProto tp;
    TensorBlock block(static_cast<size_t>(std::count(split.packed.begin(), split.packed.end(), true)));
    for (size_t i = 0; i < split.raw.size(); ++i) {
      ParseStreamed(tp, split.Initializer(i), where, "initializer", i);
      if (split.raw[i]) ext_->Lend(&tp, std::move(split.raw[i]));
      DeclareInitializer(std::move(tp), g, where, split.packed[i] ? &block : nullptr);
    }
    // Read no more (each raw buffer moved to its tensor): freed before the nodes are built, the load's peak.
    std::string().swap(split.initializer_bytes);
    std::vector<uint32_t>().swap(split.initializer_ends);
    std::vector<std::shared_ptr<const Buffer>>().swap(split.raw);
    std::vector<bool>().swap(split.packed);
  }

  void DeclareNodes(google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes, Graph& g, const std::string& where) {
    int64_t order = 0;
    for (auto& np : nodes) {
      // Nothing reads a proto not kept again: its strings are freed now, and the nodes declared next reuse their
      // memory.
      if (!DeclareNode(np, g, where, order++)) onnx::NodeProto().Swap(&np);
    }
  }

  // Parses `m` (cleared first) from the bytes of the weight split's `index`th `kind` ("node", "initializer") of
  // the graph at `where`. The message naming it is made only on failure: this runs once per node and initializer.
  void ParseStreamed(google::protobuf::MessageLite& m, std::string_view bytes, const std::string& where,
                     const char* kind, size_t index) const {
    if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
        !m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
      throw ModelError(name_ + ": not a valid ONNX protobuf (truncated or corrupt): " + where + ": " + kind + " " +
                       std::to_string(index));
  }

  // The main graph's nodes as the weight split left them (weight_split.h), parsed one at a time: only the protos
  // read again later stay (kept_). A proto not kept is parsed into again (parsing clears it), so its strings'
  // memory serves the next node.
  void DeclareStreamedNodes(WeightSplit& split, Graph& g, const std::string& where) {
    int64_t order = 0;
    bool last_kept = true;
    const char* bytes = reinterpret_cast<const char*>(split.file->data());
    for (const auto& [offset, size] : split.nodes) {
      if (last_kept) kept_.emplace_back();
      onnx::NodeProto& np = kept_.back();
      ParseStreamed(np, {bytes + offset, size}, where, "node", static_cast<size_t>(order));
      last_kept = DeclareNode(np, g, where, order++);
      split.ReleaseNodeBytesBefore(size_t{offset} + size);  // parsing copied what the node keeps
    }
    split.ReleaseNodeBytesBefore(SIZE_MAX);
    if (!last_kept) kept_.pop_back();
    // Read no more: freed before Resolve and the acyclicity check allocate (the load's peak is at its end).
    std::vector<std::pair<uint32_t, uint32_t>>().swap(split.nodes);
  }

  // Declares one node of `g` and binds the inputs `g` already defines. Returns whether its proto is read again
  // (Resolve binds inputs defined later or in an enclosing scope; DeclareSubgraphs reads its subgraphs), and must
  // then outlive the import.
  bool DeclareNode(onnx::NodeProto& np, Graph& g, const std::string& where, int64_t order) {
    std::vector<std::string> outs(np.output().begin(), np.output().end());
    for (const auto& o : outs) {
      if (o.empty()) continue;
      if (Value* prior = g.FindValue(o)) {
        std::string by = prior->producer() ? "node '" + prior->producer()->name() + "'" : std::string("an input or initializer");
        throw ModelError(name_ + ": " + where + ": node '" + np.name() + "' (" + np.op_type() + ") writes '" + o +
                         "', which " + by + " already defines");
      }
    }
    model_.insertion_order = order;
    Node* n = g.AddNodeWithOutputs(np.op_type(), np.domain(), np.name(), {}, outs);
    n->set_doc_string(np.doc_string());
    for (auto& ap : *np.mutable_attribute()) {
      // A second attribute of one name would replace the first, and with it a subgraph already queued for
      // declaring (found by fuzzing: a use after free).
      if (n->FindAttribute(ap.name()) != nullptr)
        throw ModelError(name_ + ": " + where + ": node '" + np.name() + "' (" + np.op_type() +
                         ") has two attributes named '" + ap.name() + "'");
      n->SetAttribute(ImportAttribute(std::move(ap), n, where));
    }
    // Inputs this graph already defines (all of them, for a node of a topologically sorted graph) are bound now,
    // while the values just made are still in cache; Resolve binds the rest (outer values, later nodes' outputs).
    // A local value found now is the one Resolve would find: it looks in the node's own graph first, and a graph
    // defines a name once. On the generated 1M-node chain, name lookups were a third of the load.
    n->ResizeInputs(static_cast<size_t>(np.input_size()));
    if (BindInputs(*n, np, false) != nullptr) {
      pending_.push_back({n, &np});
      return true;
    }
    return n->has_subgraphs();
  }

  // Phase two: binds every node input Declare left unbound to its value, looking through enclosing scopes.
  void Resolve() {
    for (auto& [n, np] : pending_)
      if (const std::string* in = BindInputs(*n, *np, true))
        throw ModelError(name_ + ": " + Where(*n->graph()) + ": node '" + np->name() + "' (" + np->op_type() +
                         ") reads '" + *in + "', which no node, graph input or initializer defines");
  }

  // Binds the inputs of `n` (sized to its proto's) still unbound to the values their names find: in its own graph,
  // or with `outer` through the enclosing scopes too. An absent optional input's slot stays null. Returns the first
  // name nothing defined, or null when every input is bound.
  static const std::string* BindInputs(Node& n, const onnx::NodeProto& np, bool outer) {
    const Graph& g = *n.graph();
    const std::string* missing = nullptr;
    for (int i = 0; i < np.input_size(); ++i) {
      const std::string& in = np.input(i);
      if (in.empty() || n.input(static_cast<size_t>(i)) != nullptr) continue;
      if (Value* v = outer ? g.LookupValue(in) : g.FindValue(in))
        n.SetInput(static_cast<size_t>(i), v);
      else if (missing == nullptr)
        missing = &in;
    }
    return missing;
  }

  void Finish(onnx::GraphProto& gp, Graph& g) {
    const std::string where = Where(g);
    for (const auto& out : gp.output()) {
      Value* v = g.LookupValue(out.name());
      if (v == nullptr)
        throw ModelError(name_ + ": " + where + ": graph output '" + out.name() +
                         "' is not produced by any node, graph input or initializer");
      if (out.has_type()) {
        if (v->graph() == &g) v->SetType(TypeFromProto(out.type()));
      }
      if (!out.doc_string().empty()) v->set_doc_string(out.doc_string());
      List(g, v, &Graph::AppendOutput);
    }
    for (const auto& vi : gp.value_info()) {
      Value* v = g.FindValue(vi.name());
      if (v == nullptr) v = g.AddValue(vi.name());  // value_info naming nothing: kept as written
      if (vi.has_type()) v->SetType(TypeFromProto(vi.type()));
      if (!vi.doc_string().empty()) v->set_doc_string(vi.doc_string());
      g.AppendValueInfo(v);
    }
    for (const auto& qa : gp.quantization_annotation()) {
      TensorAnnotation a;
      a.tensor_name = qa.tensor_name();
      for (const auto& kv : qa.quant_parameter_tensor_names()) a.quant_parameter_tensor_names.emplace_back(kv.key(), kv.value());
      g.quantization_annotation.push_back(std::move(a));
    }
  }

  void FinishAll(onnx::GraphProto& top) {
    Finish(top, model_.graph());
    for (auto& [gp, g] : subgraphs_) Finish(*gp, *g);
    for (auto& [fp, f] : functions_) {
      Graph& g = f->body();
      for (const auto& out : fp->output()) {
        Value* v = g.FindValue(out);
        if (v == nullptr)
          throw ModelError(name_ + ": " + Where(g) + ": output '" + out + "' is not produced by any node or input");
        List(g, v, &Graph::AppendOutput);
      }
    }
  }

  // Each graph must be acyclic (subgraph reads of outer values count as edges of the node holding them).
  void CheckAcyclicAll() {
    CheckAcyclic(model_.graph());
    for (auto& [fp, f] : functions_) CheckAcyclic(f->body());
  }

  void CheckAcyclic(const Graph& g) {
    // IsAcyclic builds no order for a graph whose reads all go forward, as an exported one's do (the 1M-node
    // chain: an 8 MB array at the load's peak); the order's search names the cycle otherwise.
    if (!IsAcyclic(g)) TopologicalOrderOrThrow(g, name_ + ": " + Where(g));
    if (!g.holds_subgraphs()) return;
    for (const auto& n : g.nodes())
      for (Graph* sub : n->subgraphs()) CheckAcyclic(*sub);
  }

  void DeclareSubgraphs() {
    // Subgraphs are declared after their parent so that outer names exist when Resolve runs.
    for (size_t i = 0; i < subgraphs_.size(); ++i) Declare(*subgraphs_[i].first, *subgraphs_[i].second);
  }

 private:
  // Appends v to g's inputs or outputs. The graph refuses a value's 65,536th listing (its count is 16 bits); the
  // error names the file too.
  void List(Graph& g, Value* v, void (Graph::*append)(Value*)) {
    try {
      (g.*append)(v);
    } catch (const Error& e) {
      if (e.code() != ExitCode::kInvalidModel) throw;
      throw ModelError(name_ + ": " + e.what());
    }
  }

  std::string Where(const Graph& g) const {
    if (const Function* f = g.function()) return "function '" + f->domain() + "." + f->name() + "'";
    if (g.owner_node() == nullptr) return "graph '" + g.name() + "'";
    const Node* owner = g.owner_node();
    return "subgraph '" + g.name() + "' of node '" + owner->name() + "' (" + owner->op_type() + ")";
  }

  Attribute ImportAttribute(onnx::AttributeProto&& ap, Node* n, const std::string& where) {
    Attribute a;
    a.name = ap.name();
    a.kind = static_cast<AttrKind>(ap.type());
    a.kind_declared = ap.has_type();
    a.ref_attr_name = ap.ref_attr_name();
    a.doc_string = ap.doc_string();
    const std::string at = where + ": node '" + n->name() + "' attribute '" + a.name + "'";
    if (ap.has_f()) a.f = ap.f();
    if (ap.has_i()) a.i = ap.i();
    if (ap.has_s()) a.s = std::move(*ap.mutable_s());
    if (ap.has_t()) a.t = TensorFromProto(std::move(*ap.mutable_t()), ext_, at);
    if (ap.has_sparse_tensor()) a.sparse_tensor = SparseFromProto(std::move(*ap.mutable_sparse_tensor()), at);
    if (ap.has_tp()) a.tp = TypeFromProto(ap.tp());
    a.floats.assign(ap.floats().begin(), ap.floats().end());
    a.ints.assign(ap.ints().begin(), ap.ints().end());
    for (auto& s : *ap.mutable_strings()) a.strings.push_back(std::move(s));
    for (auto& t : *ap.mutable_tensors()) a.tensors.push_back(TensorFromProto(std::move(t), ext_, at));
    for (auto& sp : *ap.mutable_sparse_tensors()) a.sparse_tensors.push_back(SparseFromProto(std::move(sp), at));
    for (const auto& tp : ap.type_protos()) a.type_protos.push_back(TypeFromProto(tp));
    if (ap.has_g()) {
      a.has_g = true;
      a.graphs.push_back(NewSubgraph(ap.mutable_g(), n));
    }
    for (auto& gp : *ap.mutable_graphs()) a.graphs.push_back(NewSubgraph(&gp, n));
    // A declared single-value type needs its value (ONNX's checker: one value field), unless the attribute refers to
    // a function's; else the kernels and the passes would each take their own default for it.
    if (a.kind_declared && a.ref_attr_name.empty()) {
      const char* missing = nullptr;
      switch (ap.type()) {
        case onnx::AttributeProto::INT: missing = ap.has_i() ? nullptr : "i"; break;
        case onnx::AttributeProto::FLOAT: missing = ap.has_f() ? nullptr : "f"; break;
        case onnx::AttributeProto::STRING: missing = ap.has_s() ? nullptr : "s"; break;
        case onnx::AttributeProto::TENSOR: missing = ap.has_t() ? nullptr : "t"; break;
        case onnx::AttributeProto::GRAPH: missing = ap.has_g() ? nullptr : "g"; break;
        default: break;
      }
      if (missing)
        throw ModelError(at + " is declared " + onnx::AttributeProto::AttributeType_Name(ap.type()) +
                         " but has no value (field " + missing + ")");
    }
    return a;
  }

  SparseTensor SparseFromProto(onnx::SparseTensorProto&& sp, const std::string& where) {
    SparseTensor st;
    st.values = TensorFromProto(std::move(*sp.mutable_values()), ext_, where);
    st.indices = TensorFromProto(std::move(*sp.mutable_indices()), ext_, where + " indices");
    st.dims.assign(sp.dims().begin(), sp.dims().end());
    return st;
  }

  std::unique_ptr<Graph> NewSubgraph(onnx::GraphProto* gp, Node* owner) {
    auto g = std::make_unique<Graph>(&model_, owner->graph(), owner);
    subgraphs_.emplace_back(gp, g.get());
    return g;
  }

  struct Pending {
    Node* node;
    onnx::NodeProto* proto;
  };

  Model& model_;
  std::string name_;
  ExternalDataReader* ext_;
  WeightSplit* streamed_;
  std::deque<onnx::NodeProto> kept_;  // streamed nodes' protos read again later (a deque: they never move)
  std::vector<Pending> pending_;
  std::vector<std::pair<onnx::GraphProto*, Graph*>> subgraphs_;
  std::vector<std::pair<onnx::FunctionProto*, Function*>> functions_;
};

// A function's signature and imports; its fields this ONNX does not know are kept as bytes.
Function* ImportFunctionHeader(Model& m, const onnx::FunctionProto& fp, const std::string& name) {
  if (fp.name().empty()) throw ModelError(name + ": a model-local function has no name");
  if (m.FindFunction(fp.domain(), fp.name()))
    throw ModelError(name + ": function '" + fp.domain() + "." + fp.name() + "' is defined twice");
  Function* f = m.AddFunction(fp.domain(), fp.name());
  f->SetAttributeNames(std::vector<std::string>(fp.attribute().begin(), fp.attribute().end()));
  std::vector<OpsetImport> imports;
  for (const auto& o : fp.opset_import()) imports.push_back({o.domain(), o.version()});
  f->SetOpsetImports(std::move(imports));
  f->doc_string = fp.doc_string();
  onnx::FunctionProto rest(fp);
  rest.clear_name();
  rest.clear_domain();
  rest.clear_input();
  rest.clear_output();
  rest.clear_attribute();
  rest.clear_node();
  rest.clear_doc_string();
  rest.clear_opset_import();
  f->unknown_fields = rest.SerializeAsString();
  return f;
}

// Annotations written by an earlier export (metadata_props[KILN_ANNOTATIONS_METADATA_KEY]) go back on their nodes
// and values; an entry that does not parse stays a plain metadata entry.
void ImportAnnotations(Model& m) {
  auto it = std::find_if(m.metadata_props.begin(), m.metadata_props.end(),
                         [](const auto& kv) { return kv.first == kAnnotationsMetadataKey; });
  if (it == m.metadata_props.end()) return;
  nlohmann::json j = nlohmann::json::parse(it->second, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return;
  std::unordered_map<std::string, Node*> nodes;
  std::unordered_map<std::string, Value*> values;
  ForEachGraphIn(m.graph(), [&](const Graph& g) {
    for (const auto& n : g.nodes())
      if (!n->name().empty()) nodes.emplace(n->name(), n.get());
    for (const auto& v : g.value_list()) values.emplace(v->name(), v.get());
  });
  auto apply = [](const nlohmann::json& section, auto& by_name) {
    if (!section.is_object()) return;
    for (const auto& [name, entries] : section.items()) {
      auto target = by_name.find(name);
      if (target == by_name.end() || !entries.is_object()) continue;
      for (const auto& [k, v] : entries.items())
        if (v.is_string()) target->second->SetAnnotation(k, v.template get<std::string>());
    }
  };
  if (j.contains("nodes")) apply(j["nodes"], nodes);
  if (j.contains("values")) apply(j["values"], values);
  m.metadata_props.erase(it);
}

void CheckModelPath(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  auto st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw ModelError(path + ": no such file");
  if (fs::is_directory(st)) throw ModelError(path + ": is a directory, not a model file");
  if (!fs::is_regular_file(st)) throw ModelError(path + ": not a regular file");
}

}  // namespace

namespace {

std::unique_ptr<Model> Import(onnx::ModelProto&& proto, const std::string& name, const std::string& base_dir,
                              WeightSplit* split) {
  if (!proto.has_graph())
    throw ModelError(name + ": not an ONNX model (no graph); is this the right file?");
  if (proto.ir_version() <= 0)
    throw ModelError(name + ": not an ONNX model (ir_version " + std::to_string(proto.ir_version()) + ")");
  auto model = std::make_unique<Model>();
  model->source_path = name;
  model->ir_version = proto.ir_version();
  for (const auto& o : proto.opset_import()) model->opset_imports.push_back({o.domain(), o.version()});
  if (proto.has_producer_name()) model->producer_name = proto.producer_name();
  if (proto.has_producer_version()) model->producer_version = proto.producer_version();
  if (proto.has_domain()) model->domain = proto.domain();
  if (proto.has_doc_string()) model->doc_string = proto.doc_string();
  if (proto.has_model_version()) model->model_version = proto.model_version();
  for (const auto& kv : proto.metadata_props()) model->metadata_props.emplace_back(kv.key(), kv.value());
  for (const auto& t : proto.training_info()) model->training_info.push_back(t.SerializeAsString());

  ExternalDataReader ext(name, base_dir);
  if (split != nullptr && (proto.graph().node_size() != 0 || proto.graph().initializer_size() != 0))
    throw InternalError(name + ": the weight split left " + std::to_string(proto.graph().node_size()) +
                        " nodes and " + std::to_string(proto.graph().initializer_size()) +
                        " initializers in the skeleton");
  Importer imp(*model, name, &ext, split);
  imp.Declare(*proto.mutable_graph(), model->graph());
  for (auto& fp : *proto.mutable_functions()) imp.DeclareFunction(fp, *ImportFunctionHeader(*model, fp, name));
  imp.DeclareSubgraphs();
  imp.Resolve();
  imp.FinishAll(*proto.mutable_graph());
  imp.CheckAcyclicAll();
  ImportAnnotations(*model);
  model->insertion_order = std::numeric_limits<int64_t>::max() / 2;
  return model;
}

onnx::ModelProto ParseModelBytes(std::string_view bytes, const std::string& name) {
  if (bytes.empty()) throw ModelError(name + ": the file is empty");
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    throw ModelError(name + ": over 2 GB; large models must keep their weights in external data");
  onnx::ModelProto proto;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()), static_cast<int>(bytes.size()));
  in.SetTotalBytesLimit(std::numeric_limits<int>::max());
  if (!proto.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage())
    throw ModelError(name + ": not a valid ONNX protobuf (truncated or corrupt)");
  return proto;
}

}  // namespace

std::unique_ptr<Model> ImportModel(onnx::ModelProto&& proto, const std::string& name, const std::string& base_dir) {
  return Import(std::move(proto), name, base_dir, nullptr);
}

std::unique_ptr<Model> LoadModelFromBytes(std::string_view bytes, const std::string& name, const std::string& base_dir) {
  return ImportModel(ParseModelBytes(bytes, name), name, base_dir);
}

std::unique_ptr<Model> LoadModel(const std::string& path) {
  CheckModelPath(path);
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  std::shared_ptr<const Buffer> file = Buffer::MapFile(path);
  if (std::optional<WeightSplit> split = SplitWeights(file)) {
    onnx::ModelProto proto = ParseModelBytes(split->skeleton, path);
    std::string().swap(split->skeleton);  // parsed: freed before the IR is built beside the proto (the load's peak)
    return Import(std::move(proto), path, dir, &*split);
  }
  auto bytes = file->bytes();
  return ImportModel(ParseModelBytes({reinterpret_cast<const char*>(bytes.data()), bytes.size()}, path), path, dir);
}

}  // namespace kiln
