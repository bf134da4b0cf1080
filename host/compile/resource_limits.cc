// The resource limits of a compile; see resource_limits.h.
#include "compile/resource_limits.h"

#include <stdexcept>

#include "ir/model.h"
#include "options/option_registry.h"
#include "options/option_resolver.h"
#include "support/error.h"

namespace kiln {
namespace {

thread_local CreatedTensorScope* t_scope = nullptr;

std::string Bytes(uint64_t n) {
  std::string s = std::to_string(n) + " bytes";
  if (n >= (uint64_t{1} << 20)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, " (%.1f MiB)", static_cast<double>(n) / (1 << 20));
    s += buf;
  }
  return s;
}

uint64_t TensorBytes(const Tensor& t) {
  if (!t.strings().empty()) {
    uint64_t n = 0;
    for (const std::string& s : t.strings()) n += s.size();
    return n;
  }
  return t.byte_size();
}

struct Tally {
  uint64_t nodes = 0, total_bytes = 0, depth = 0;
  uint64_t largest = 0;
  std::string largest_name;
};

// `where` names the tensor; it is called only for the largest so far (a 1M-node graph has 667k initializers).
template <typename Where>
void NoteTensor(Tally& t, const Tensor& tensor, Where&& where) {
  uint64_t b = TensorBytes(tensor);
  t.total_bytes += b;
  if (b > t.largest) t.largest = b, t.largest_name = where();
}

// Walks a graph tree; `depth` is the graph's own nesting (0 for the top graph or a function body). Stops going
// deeper than one past the limit, so a pathological nesting costs no more than the limit to find.
void Count(const Graph& g, uint64_t depth, uint64_t max_depth, Tally& t) {
  t.depth = std::max(t.depth, depth);
  if (depth > max_depth) return;
  for (const Value* v : g.initializers())
    if (v->initializer()) NoteTensor(t, *v->initializer(), [&] { return "initializer '" + v->name() + "'"; });
  for (const auto& n : g.nodes()) {
    ++t.nodes;
    for (const Attribute& a : n->attributes()) {
      auto where = [&] { return "attribute '" + a.name + "' of node '" + n->name() + "' (" + n->op_type() + ")"; };
      if (a.t) NoteTensor(t, *a.t, where);
      for (const Tensor& x : a.tensors) NoteTensor(t, x, where);
    }
    for (const Graph* sub : n->subgraphs()) Count(*sub, depth + 1, max_depth, t);
  }
}

void Over(const std::string& model_name, std::string_view option, const std::string& what, uint64_t limit) {
  throw ModelError(model_name + ": " + what + ", over the limit of " + std::to_string(limit) + " (option " +
                   std::string(option) + "; raise it with --" + std::string(option) + "=N)");
}

uint64_t IntOption(const ResolvedOptions& options, std::string_view name, uint64_t fallback) {
  const ResolvedOption* o = options.Find(name);
  if (o == nullptr || !std::holds_alternative<int64_t>(o->value)) return fallback;
  return static_cast<uint64_t>(std::get<int64_t>(o->value));
}

}  // namespace

ResourceLimits ResourceLimits::From(const ResolvedOptions& options) {
  ResourceLimits l;
  l.max_nodes = IntOption(options, kMaxNodesOption, l.max_nodes);
  l.max_tensor_bytes = IntOption(options, kMaxTensorBytesOption, l.max_tensor_bytes);
  l.max_initializer_bytes = IntOption(options, kMaxInitializerBytesOption, l.max_initializer_bytes);
  l.max_subgraph_depth = IntOption(options, kMaxSubgraphDepthOption, l.max_subgraph_depth);
  l.max_folded_bytes = IntOption(options, kMaxFoldedBytesOption, l.max_folded_bytes);
  if (const ResolvedOption* o = options.Find(kPassSecondsOption); o && std::holds_alternative<double>(o->value))
    l.pass_seconds = std::get<double>(o->value);
  return l;
}

void RegisterLimitOptions(OptionRegistry& registry) {
  const ResourceLimits d;
  constexpr double kMaxInt = 9.2e18;
  registry.Add(OptionDef::Int(std::string(kMaxNodesOption))
                   .Default(std::to_string(d.max_nodes))
                   .Range(1, kMaxInt)
                   .Help("Most nodes an input model may have, subgraphs and function bodies included; a model "
                         "with more is refused before anything else runs (exit code 2)."));
  registry.Add(OptionDef::Int(std::string(kMaxTensorBytesOption))
                   .Default(std::to_string(d.max_tensor_bytes))
                   .Range(1, kMaxInt)
                   .Help("Most bytes of one tensor: an initializer or tensor attribute of the input model (exit "
                         "code 2), or a constant a pass creates (the pass fails: rolled back with a warning, exit "
                         "code 4 under --strict)."));
  registry.Add(OptionDef::Int(std::string(kMaxInitializerBytesOption))
                   .Default(std::to_string(d.max_initializer_bytes))
                   .Range(1, kMaxInt)
                   .Help("Most bytes of all the input model's initializers and tensor attributes together (exit "
                         "code 2)."));
  registry.Add(OptionDef::Int(std::string(kMaxSubgraphDepthOption))
                   .Default(std::to_string(d.max_subgraph_depth))
                   .Range(0, 100000)
                   .Help("Deepest nesting of subgraphs (If, Loop, Scan bodies) in the input model; 0 allows none "
                         "(exit code 2)."));
  registry.Add(OptionDef::Int(std::string(kMaxFoldedBytesOption))
                   .Default(std::to_string(d.max_folded_bytes))
                   .Range(0, kMaxInt)
                   .Help("Most bytes of constants that passes (constant folding above all) may create in one "
                         "compile; the pass call that would go over fails: rolled back with a warning, exit code "
                         "4 under --strict."));
  registry.Add(OptionDef::Float(std::string(kPassSecondsOption))
                   .Default("600")
                   .Range(0, 1e9)
                   .Help("Seconds one pass may spend in one walk or graph-pass step (0: no limit). A pass over it "
                         "fails when its call returns: rolled back with a warning, exit code 4 under --strict."));
}

uint64_t CheckModelLimits(const Model& model, const ResourceLimits& limits, const std::string& model_name) {
  Tally t;
  Count(model.graph(), 0, limits.max_subgraph_depth, t);
  const uint64_t graph_nodes = t.nodes;
  for (const auto& f : model.functions()) Count(f->body(), 0, limits.max_subgraph_depth, t);
  if (t.depth > limits.max_subgraph_depth)
    Over(model_name, kMaxSubgraphDepthOption, "subgraphs nest " + std::to_string(t.depth) + " deep",
         limits.max_subgraph_depth);
  if (t.nodes > limits.max_nodes)
    Over(model_name, kMaxNodesOption, "the model has " + std::to_string(t.nodes) + " nodes (subgraphs included)",
         limits.max_nodes);
  if (t.largest > limits.max_tensor_bytes)
    Over(model_name, kMaxTensorBytesOption, t.largest_name + " holds " + Bytes(t.largest), limits.max_tensor_bytes);
  if (t.total_bytes > limits.max_initializer_bytes)
    Over(model_name, kMaxInitializerBytesOption, "initializers and tensor attributes hold " + Bytes(t.total_bytes),
         limits.max_initializer_bytes);
  return graph_nodes;
}

CreatedTensorScope::CreatedTensorScope(const ResourceLimits& limits) : limits_(limits), outer_(t_scope) {
  t_scope = this;
}
CreatedTensorScope::~CreatedTensorScope() { t_scope = outer_; }

void ChargeCreatedTensor(Model* model, uint64_t bytes) {
  CreatedTensorScope* s = t_scope;
  if (s == nullptr) return;
  if (bytes > s->limits_.max_tensor_bytes)
    throw std::length_error("a constant of " + Bytes(bytes) + " is over the limit of " +
                            std::to_string(s->limits_.max_tensor_bytes) + " bytes for one tensor (option " +
                            std::string(kMaxTensorBytesOption) + ")");
  if (s->created_ + bytes > s->limits_.max_folded_bytes)
    throw std::length_error("a constant of " + Bytes(bytes) + " would take the constants passes created in this "
                            "compile to " + Bytes(s->created_ + bytes) + ", over the limit of " +
                            std::to_string(s->limits_.max_folded_bytes) + " bytes (option " +
                            std::string(kMaxFoldedBytesOption) + ")");
  s->created_ += bytes;
  if (model) model->journal().Record([s, bytes] { s->created_ -= bytes; });
}

}  // namespace kiln
