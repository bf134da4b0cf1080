// A test plugin that uses every ABI 1.2 slot but the analyses (which analysis_plugin covers) through the C++
// wrapper, so each slot crosses a real shared-library boundary. Its graph pass Abi12ProbePass, run on the main
// graph of tests/plugins/abi12_model (built by the test), takes `mode`:
//   read    records what it reads as counters (opsets, metadata, functions, a call's function, initializers, ids,
//           attribute kinds, the rule packs registered) and a report entry;
//   build   changes the model with every building slot, so the test can read the output file back;
//   fail    outlines and creates a function, then throws: the host must roll all of it back.
// A second pack of fusion rules is registered so fusion_rule_pack_* has something to list.
#include <kiln/kiln_plugin.hpp>

#include <string>
#include <vector>

namespace {

using namespace kiln::sdk;

Node FindOp(Graph g, std::string_view op) {
  for (const Node& n : g.Nodes())
    if (n.OpType() == op) return n;
  throw Error("no " + std::string(op) + " node in graph '" + std::string(g.Name()) + "'");
}

void Read(PassContext& ctx, Graph g) {
  Model m = g.OwnerModel();
  ctx.AddCounter("ir_version", m.IrVersion());
  ctx.AddCounter("opsets", static_cast<int64_t>(m.Opsets().size()));
  for (const auto& [domain, version] : m.Opsets())
    if (domain == "test") ctx.AddCounter("test_opset", version);
  for (const auto& [k, v] : m.Metadata())
    if (k == "author") ctx.AddCounter("metadata_author_chars", static_cast<int64_t>(v.size()));
  ctx.AddCounter("functions", static_cast<int64_t>(m.Functions().size()));
  Function scale = m.FindFunction("test", "Scale");
  if (!scale) throw Error("no test.Scale");
  ctx.AddCounter("scale_attributes", static_cast<int64_t>(scale.AttributeNames().size()));
  ctx.AddCounter("scale_body_nodes", static_cast<int64_t>(scale.Body().NodeCount()));
  ctx.AddCounter("scale_body_inputs", static_cast<int64_t>(scale.Body().Inputs().size()));
  ctx.AddCounter("scale_calls", static_cast<int64_t>(scale.CallCount()));
  ctx.AddCounter("body_knows_function", scale.Body().AsFunctionBody() == scale ? 1 : 0);
  ctx.AddCounter("main_is_no_body", g.AsFunctionBody() ? 0 : 1);
  Node call = FindOp(g, "Scale");
  ctx.AddCounter("call_resolves", call.CalledFunction() == scale ? 1 : 0);
  ctx.AddCounter("ref_attribute", FindOp(scale.Body(), "Constant").Attr("value_float").RefName() == "alpha" ? 1 : 0);
  // node_call_instance (1.3): the body expanded for this call, its reference bound and its values typed.
  Graph instance = call.CallInstance();
  ctx.AddCounter("instance_nodes", static_cast<int64_t>(instance.NodeCount()));
  Attribute alpha = FindOp(instance, "Constant").Attr("value_float");
  ctx.AddCounter("instance_alpha_bound", alpha.RefName().empty() && alpha.Float() == 2.0f ? 1 : 0);
  const Value result = instance.Outputs().at(0);
  ctx.AddCounter("instance_output_typed", result.Rank() == 1 && result.Dims()[0] == 2 ? 1 : 0);
  try {
    (void)FindOp(g, "Add").CallInstance();
  } catch (const Error&) {
    ctx.AddCounter("instance_of_non_call_fails", 1);
  }
  ctx.AddCounter("initializers", static_cast<int64_t>(g.Initializers().size()));
  ctx.AddCounter("id_round_trip", m.FindNode(call.Id()) == call ? 1 : 0);
  ctx.AddCounter("ids_differ", FindOp(g, "Add").Id() != call.Id() ? 1 : 0);
  Node split = FindOp(g, "Split");  // holds no graph: its subgraph count is 0
  ctx.AddCounter("split_graphs", static_cast<int64_t>(split.SubgraphCount()));
  int64_t packs = 0;
  for (const RegisteredRulePack& p : RegisteredFusionRulePacks())
    if (p.name == "abi12_rules" && p.yaml.find("rules:") != std::string_view::npos) ++packs;
  ctx.AddCounter("rule_packs_seen", packs);
  ctx.AddReport("probe", R"({"functions": ["Scale"]})");
  ctx.AddReport("probe_list", R"([1, 2])");
  ctx.AddReport("probe_list", R"([3])");
}

void Build(PassContext& ctx, Graph g) {
  Model m = g.OwnerModel();
  m.EnsureOpset("kiln.test", 2);
  m.SetMetadata("built_by", std::string("abi12"));
  m.SetMetadata("author", std::nullopt);
  // A function built from nothing, called in place of the Add.
  Function twice = m.CreateFunction({.domain = "kiln.test", .name = "Twice", .inputs = {"t"}, .attributes = {"k"}});
  Graph body = twice.Body();
  Node add = body.CreateNode("Add", {body.Inputs()[0], body.Inputs()[0]}, 1);
  Node scaled = body.CreateNode("Mul", {add.Output(0), body.CreateNode("Constant", {}, 1).Output(0)}, 1);
  scaled.Input(1).Producer().SetAttrRef("value_float", KILN_ATTR_FLOAT, "k");
  body.AddOutput(scaled.Output(0));
  Node old_add = FindOp(g, "Add");
  Node call = g.CreateNode("Twice", {old_add.Input(0)}, 1, "kiln.test", "twice_call");
  call.SetFloat("k", 0.5f);
  old_add.Output(0).ReplaceAllUsesWith(call.Output(0));
  old_add.Delete();
  // Renames, annotations, ids.
  call.SetName("twice_call_renamed");
  call.SetAnnotation("kiln.engine", std::string("vector"));
  call.SetAnnotation("__kiln_scratch", std::string("dropped on export"));
  FindOp(g, "Split").SetAnnotation("kiln.note", std::string("unnamed nodes get a name"));
  Value y = g.Inputs()[1];
  y.SetAnnotation("kiln.memory", std::string("hbm"));
  call.Output(0).SetName("twice_out");
  // GRAPH, GRAPHS, TENSORS attributes on a node of a custom domain (never run).
  Node holder = g.CreateNode("Holder", {}, 0, "kiln.test", "holder");
  Graph inner = holder.SetGraphAttr("body", Graph());
  Value in = inner.AddInput("h_in", KILN_ELEM_FLOAT, TensorShape{{2, ""}});
  inner.AddOutput(inner.CreateNode("Neg", {in}, 1).Output(0));
  holder.SetGraphsAttr("bodies", {inner, inner});
  int64_t dims[] = {2};
  float data[] = {1, 2};
  KilnTensorView t{sizeof(KilnTensorView), KILN_ELEM_FLOAT, 1, dims, data, sizeof data};
  holder.SetTensorsAttr("tensors", {TensorView(&t), TensorView(&t)});
  ctx.AddCounter("holder_graphs", static_cast<int64_t>(holder.Attr("bodies").Graphs().size()));
  ctx.AddCounter("holder_tensors", static_cast<int64_t>(holder.Attr("tensors").Tensors().size()));
  holder.Delete();
  // Outline Sqrt -> Neg into a function, inline the Scale call, drop the function nothing calls then.
  Node sqrt = FindOp(g, "Sqrt");
  Outlined o = Outline(g, {sqrt, FindOp(g, "Neg")},
                       {.domain = "kiln.test", .name = "SqrtNeg", .flags = KILN_OUTLINE_REUSE_BODY});
  ctx.AddCounter("outlined_inputs", static_cast<int64_t>(o.call.InputCount()));
  FindOp(g, "Scale").InlineFunction();
  Function scale = m.FindFunction("test", "Scale");
  ctx.AddCounter("scale_calls_after_inline", static_cast<int64_t>(scale.CallCount()));
  scale.Remove();
  // A graph output added and one removed again; an initializer nothing reads removed.
  Value extra = g.AddInput("extra", KILN_ELEM_FLOAT, TensorShape{{2, ""}});
  g.AddOutput(extra);
  g.RemoveOutput(g.Outputs().size() - 1);
  extra.Remove();
  for (const Value& v : g.Initializers())
    if (v.Name() == "unused_weight") v.Remove();
}

void Fail(PassContext&, Graph g) {
  Model m = g.OwnerModel();
  Outline(g, {FindOp(g, "Sqrt")}, {.domain = "kiln.test", .name = "Doomed"});
  m.CreateFunction({.domain = "kiln.test", .name = "AlsoDoomed", .inputs = {"t"}});
  m.SetMetadata("doomed", std::string("yes"));
  throw Error("Abi12ProbePass fails on purpose after outlining");
}

class Abi12ProbePass final : public GraphPass {
 public:
  static constexpr std::string_view kName = "Abi12ProbePass";
  static constexpr std::string_view kDescription = "exercises the ABI 1.2 slots (test plugin)";
  static std::vector<OptionSpec> Options() {
    return {OptionSpec::String("mode", "read", "read, build or fail", {"read", "build", "fail"})};
  }
  void Run(PassContext& ctx, Graph g) override {
    if (g.ParentNode()) return;  // the main graph only
    std::string mode = ctx.OptionString("mode");
    if (mode == "read") Read(ctx, g);
    if (mode == "build") Build(ctx, g);
    if (mode == "fail") Fail(ctx, g);
  }
};

}  // namespace

KILN_PLUGIN("abi12_probe", "1.0.0", "uses every ABI 1.2 slot (test)") {
  reg.AddGraphPass<Abi12ProbePass>();
  reg.AddFusionRules("abi12_rules", "rules: []\n", "abi12_rules.yaml");
}
