// TargetFormatPass: see target_format_pass.h.
#include "target_format_pass.h"

#include <kiln/kiln_plugin_parts.hpp>

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "blocked_layout.h"
#include "format_regions.h"

namespace kiln::layout {
namespace {

constexpr std::string_view kDomain = sdk::kFormatDomain;
// Conversions and anchors are convex by construction (format_regions.h), and equal bodies share one function.
constexpr uint32_t kOutlineFlags = KILN_OUTLINE_REUSE_BODY | KILN_OUTLINE_ASSUME_CONVEX;

bool IsMainGraph(const sdk::Graph& g) { return !g.ParentNode() && !g.AsFunctionBody(); }

// A call of one of this pass's conversions: kiln.format::To<format>... or From<format>...
bool IsConversion(const sdk::Node& n, std::string_view direction) {
  if (!n) return false;
  sdk::Function f = n.CalledFunction();
  if (!f || f.Domain() != kDomain || !f.Name().starts_with(direction)) return false;
  std::string_view rest = f.Name().substr(direction.size());
  return rest.starts_with("NC1HWC0_") || rest.starts_with("NDC1HWC0_");
}

bool SameType(const sdk::Value& a, const sdk::Value& b) {
  return a.ElemType() == b.ElemType() && a.Shape() && b.Shape() && *a.Shape() == *b.Shape();
}

std::string FreeValueName(const sdk::Graph& g, const std::string& base) {
  if (!g.FindValue(base)) return base;
  for (int i = 2;; ++i)
    if (std::string n = base + "_" + std::to_string(i); !g.FindValue(n)) return n;
}

std::string FreeFunctionName(const sdk::Model& m, const std::string& base) {
  if (!m.FindFunction(kDomain, base)) return base;
  for (int i = 2;; ++i)
    if (std::string n = base + "_" + std::to_string(i); !m.FindFunction(kDomain, n)) return n;
}

// GE's TransOpSymmetryEliminationPass on this pass's conversions: From(To(x)) -> x; To(From(t)) -> t when t has
// the To's output type (its padding lanes may differ, and no reader of a blocked tensor reads them).
size_t CancelPairs(const sdk::Graph& g) {
  size_t cancelled = 0;
  for (const sdk::Node& outer : g.TopoOrder()) {
    if (outer.IsDeleted()) continue;
    const bool to = IsConversion(outer, "To");
    if (!to && !IsConversion(outer, "From")) continue;
    sdk::Node inner = outer.Input(0) ? outer.Input(0).Producer() : sdk::Node();
    if (!IsConversion(inner, to ? "From" : "To")) continue;
    sdk::Value source = inner.Input(0), result = outer.Output(0);
    if (!source || !result || result.IsGraphOutput() || !SameType(source, result)) continue;
    result.ReplaceAllUsesWith(source);
    outer.Delete();
    ++cancelled;
    if (inner.Output(0).ConsumerCount() == 0 && !inner.Output(0).IsGraphOutput()) inner.Delete();
  }
  return cancelled;
}

class Materializer {
 public:
  explicit Materializer(sdk::Graph g) : g_(g), model_(g.OwnerModel()) {}

  void Anchor(const FormatMember& m) {
    sdk::Node n = m.node;
    std::vector<sdk::Node> body;
    for (const auto& [i, layout] : m.blocked_inputs) {
      sdk::Value x = n.Input(i);
      sdk::Value xb = BlockedOf(x);
      if (!xb) xb = To(x, layout);  // input 0 of a region's first anchor; the others are blocked already
      Emitted from = EmitFromBlocked(g_, xb, layout, "from" + std::to_string(i));
      n.SetInput(i, from.out);
      body.insert(body.end(), from.nodes.begin(), from.nodes.end());
    }
    body.push_back(n);
    const std::string base = std::string(n.CalledFunction() ? n.CalledFunction().Name() : n.OpType());
    if (!m.output_blocked) {
      std::vector<sdk::Value> outputs;
      for (size_t i = 0; i < n.OutputCount(); ++i)
        if (n.Output(i)) outputs.push_back(n.Output(i));
      Outline(body, base + "_" + m.input_layout.format, outputs);
      return;
    }
    sdk::Value y = n.Output(0);
    const std::string name(y.Name());
    std::vector<sdk::Use> readers = y.Consumers();
    Emitted to = EmitToBlocked(g_, y, m.output_layout);
    body.insert(body.end(), to.nodes.begin(), to.nodes.end());
    y.SetName(FreeValueName(g_, name + "_nd"));  // goes into the body
    to.out.SetName(FreeValueName(g_, name + "_" + m.output_layout.format));
    sdk::Value nd = From(to.out, m.output_layout, name);
    MoveReaders(y, readers, nd);
    nd.SetName(name);
    sdk::Node call = Outline(body, base + "_" + m.output_layout.format, {to.out});
    Annotate(call.Output(0), m.output_layout);
    blocked_of_[nd.raw()] = call.Output(0);
  }

  void Agnostic(const FormatMember& m) {
    sdk::Node n = m.node;
    for (size_t i = 0; i < n.InputCount(); ++i)
      if (sdk::Value b = BlockedOf(n.Input(i))) n.SetInput(i, b);
    sdk::Value y = n.Output(0);
    const std::string name(y.Name());
    std::vector<sdk::Use> readers = y.Consumers();
    y.SetTensorType(y.ElemType(), StorageShape(*y.Shape(), m.output_layout));
    y.SetName(FreeValueName(g_, name + "_" + m.output_layout.format));
    sdk::Value nd = From(y, m.output_layout, name);
    MoveReaders(y, readers, nd);
    nd.SetName(name);
    Annotate(y, m.output_layout);
    blocked_of_[nd.raw()] = y;
  }

  // From calls nothing reads (their readers all run blocked) go, their blocked tensor taking back the name it had
  // as an ND tensor, and conversion functions left uncalled go too.
  void Finish() {
    for (const FromCall& f : from_calls_) {
      if (f.call.Output(0).ConsumerCount() != 0 || f.call.Output(0).IsGraphOutput()) continue;
      sdk::Value blocked = f.call.Input(0);
      f.call.Delete();
      if (blocked && !g_.FindValue(f.name)) blocked.SetName(f.name);
    }
    for (const sdk::Function& f : model_.Functions())
      if (f.Domain() == kDomain && f.CallCount() == 0) f.Remove();
  }

  size_t Conversions() const {
    size_t n = to_memo_.size();
    for (const FromCall& f : from_calls_) n += f.call.IsDeleted() ? 0 : 1;
    return n;
  }

 private:
  // GE's StorageFormat of a blocked tensor, for targets and readers of the written model.
  static void Annotate(const sdk::Value& v, const BlockedLayout& l) {
    v.SetAnnotation(sdk::kFormatAnnotation, l.format);
  }

  sdk::Value BlockedOf(const sdk::Value& v) const {
    auto it = v ? blocked_of_.find(v.raw()) : blocked_of_.end();
    return it == blocked_of_.end() ? sdk::Value() : it->second;
  }

  sdk::Value To(const sdk::Value& x, const BlockedLayout& l) {
    auto key = std::make_pair(x.raw(), l.Tag());
    if (auto it = to_memo_.find(key); it != to_memo_.end()) return it->second;
    Emitted e = EmitToBlocked(g_, x, l);
    e.out.SetName(FreeValueName(g_, std::string(x.Name()) + "_" + l.format));
    sdk::Value out = Outline(e.nodes, "To" + l.Tag(), {e.out}).Output(0);
    Annotate(out, l);
    to_memo_[key] = out;
    return out;
  }

  // A From call of y; name: the ND tensor's name, which its output takes (MoveReaders frees it first).
  sdk::Value From(const sdk::Value& y, const BlockedLayout& l, const std::string& name) {
    Emitted e = EmitFromBlocked(g_, y, l);
    sdk::Node call = Outline(e.nodes, "From" + l.Tag(), {e.out});
    from_calls_.push_back({call, name});
    return call.Output(0);
  }

  // Outlines nodes into a call of kiln.format::name (or of an existing function with an equal body). Every
  // initializer stays an input of the call: weights are data, not part of what the function does.
  sdk::Node Outline(const std::vector<sdk::Node>& nodes, const std::string& name, std::vector<sdk::Value> outputs) {
    sdk::OutlineSpec spec;
    spec.domain = std::string(kDomain);
    spec.name = FreeFunctionName(model_, name);
    spec.outputs = std::move(outputs);
    spec.flags = kOutlineFlags;
    spec.embed_constant_max_bytes = 0;
    return sdk::Outline(g_, nodes, spec).call;
  }

  // The readers of y (taken before a From of y was added) and its graph-output slots move to nd (which then takes
  // y's old name: the model's interface keeps its names and ND shapes).
  void MoveReaders(const sdk::Value& y, const std::vector<sdk::Use>& readers, const sdk::Value& nd) {
    for (const sdk::Use& u : readers) u.node.SetInput(u.input_index, nd);
    if (!y.IsGraphOutput()) return;
    std::vector<sdk::Value> outs = g_.Outputs();
    for (size_t i = 0; i < outs.size(); ++i)
      if (outs[i] == y) g_.SetOutput(i, nd);
  }

  static sdk::TensorShape StorageShape(const sdk::TensorShape& nd, const BlockedLayout& l) {
    sdk::TensorShape split = {nd[0]};
    split.insert(split.end(), nd.begin() + 2, nd.end());
    split.push_back(sdk::Dim{(l.channels + l.c0 - 1) / l.c0, ""});
    split.push_back(sdk::Dim{l.c0, ""});
    sdk::TensorShape out;
    for (int64_t i : l.StoragePerm()) out.push_back(split[static_cast<size_t>(i)]);
    return out;
  }

  sdk::Graph g_;
  sdk::Model model_;
  std::map<KilnValue*, sdk::Value> blocked_of_;  // a From's ND output -> the blocked tensor it converts
  std::map<std::pair<KilnValue*, std::string>, sdk::Value> to_memo_;
  struct FromCall {
    sdk::Node call;
    std::string name;  // of the ND tensor it gives back
  };
  std::vector<FromCall> from_calls_;
};

std::string ReportJson(const FormatPlan& plan, size_t cancelled, size_t written, size_t saved) {
  nlohmann::json regions = nlohmann::json::array();
  for (const FormatRegion& r : plan.regions)
    regions.push_back({{"anchors", r.anchors}, {"agnostic", r.agnostic}, {"to", r.to_conversions},
                       {"from", r.from_conversions}, {"blocked_seconds", r.blocked_seconds},
                       {"nd_seconds", r.nd_seconds}, {"chosen", r.chosen}});
  nlohmann::json j = {{"target", sdk::active_target::ActiveName()},
                      {"format", plan.format},
                      {"pairs_cancelled", cancelled},
                      {"conversions", written},
                      {"conversions_saved", saved},
                      {"regions", regions}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

void TargetFormatPass::Run(sdk::PassContext& ctx, sdk::Graph graph) {
  if (!IsMainGraph(graph) || sdk::active_target::ActiveName().empty()) return;
  if (graph.OpsetVersion("") < 11) {  // Pad takes its pads as an input from opset 11
    ctx.Log(KILN_LOG_INFO, "target formats need a default-domain opset of 11 or more; the model keeps ND");
    return;
  }
  const size_t cancelled = CancelPairs(graph);
  const FormatPlan plan = PlanFormats(graph);
  Materializer out(graph);
  size_t anchors = 0, agnostic = 0, own_conversions = 0;
  for (const FormatMember& m : plan.members) {
    if (!plan.regions[m.region].chosen) continue;
    if (m.anchor) {
      ++anchors;
      own_conversions += m.output_blocked ? 2 : 1;
      out.Anchor(m);
    } else {
      ++agnostic;
      out.Agnostic(m);
    }
  }
  out.Finish();
  const size_t written = out.Conversions();
  const size_t saved = own_conversions > written ? own_conversions - written : 0;
  ctx.AddCounter("format_anchors", static_cast<int64_t>(anchors));
  ctx.AddCounter("format_agnostic", static_cast<int64_t>(agnostic));
  ctx.AddCounter("format_conversions", static_cast<int64_t>(written));
  ctx.AddCounter("format_conversions_saved", static_cast<int64_t>(saved));
  ctx.AddCounter("format_pairs_cancelled", static_cast<int64_t>(cancelled));
  if (!plan.members.empty() || cancelled) ctx.AddReport("target_formats", ReportJson(plan, cancelled, written, saved));
}

}  // namespace kiln::layout

KILN_PLUGIN_PART(TargetFormatPass) { reg.AddGraphPass<kiln::layout::TargetFormatPass>(); }
