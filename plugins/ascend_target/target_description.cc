// The parts of target_description.h that are not YAML: names, look-ups, the list of every number, and the JSON
// form for details_json.
#include "target_description.h"

#include <nlohmann/json.hpp>

namespace kiln::ascend {

std::string_view TagName(Tag tag) {
  switch (tag) {
    case Tag::kFact: return "fact";
    case Tag::kDerived: return "derived";
    case Tag::kAssumed: return "assumed";
  }
  return "?";
}

namespace {
constexpr std::pair<CostRule, std::string_view> kRules[] = {
    {CostRule::kConv, "conv"},
    {CostRule::kConvTranspose, "conv_transpose"},
    {CostRule::kMatMul, "matmul"},
    {CostRule::kGemm, "gemm"},
    {CostRule::kElementwise, "elementwise"},
    {CostRule::kReduction, "reduction"},
    {CostRule::kNorm, "norm"},
    {CostRule::kSoftmax, "softmax"},
    {CostRule::kPooling, "pooling"},
    {CostRule::kDataMovement, "data_movement"},
    {CostRule::kView, "view"},
    {CostRule::kInputElements, "input_elements"},
    {CostRule::kShape, "shape"},
    {CostRule::kConstant, "constant"},
};
}  // namespace

std::string_view CostRuleName(CostRule rule) {
  for (const auto& [r, name] : kRules)
    if (r == rule) return name;
  return "?";
}

std::optional<CostRule> CostRuleFromName(std::string_view name) {
  for (const auto& [r, n] : kRules)
    if (n == name) return r;
  return std::nullopt;
}

const CoreKind* TargetDescription::FindCoreKind(std::string_view n) const {
  for (const CoreKind& k : core_kinds)
    if (k.name == n) return &k;
  return nullptr;
}
const Engine* TargetDescription::FindEngine(std::string_view n) const {
  for (const Engine& e : engines)
    if (e.name == n) return &e;
  return nullptr;
}
const Buffer* TargetDescription::FindBuffer(std::string_view n) const {
  for (const Buffer& b : buffers)
    if (b.name == n) return &b;
  return nullptr;
}
const OpClass* TargetDescription::FindClass(std::string_view n) const {
  for (const OpClass& c : classes)
    if (c.name == n) return &c;
  return nullptr;
}

std::vector<std::pair<std::string, const Number*>> TargetDescription::AllNumbers() const {
  std::vector<std::pair<std::string, const Number*>> out;
  out.emplace_back("clock", &clock);
  for (const CoreKind& k : core_kinds) {
    out.emplace_back("core_kinds." + k.name + ".count", &k.count);
    if (k.clock) out.emplace_back("core_kinds." + k.name + ".clock", &*k.clock);
  }
  for (const Engine& e : engines) {
    for (const auto& [type, rate] : e.peak) out.emplace_back("engines." + e.name + ".peak." + type, &rate.given);
    if (e.launch) out.emplace_back("engines." + e.name + ".launch", &*e.launch);
  }
  for (const Buffer& b : buffers) out.emplace_back("buffers." + b.name + ".size", &b.bytes);
  out.emplace_back("memory.offchip.capacity", &offchip.capacity);
  out.emplace_back("memory.offchip.bandwidth", &offchip.bandwidth);
  if (l2_bandwidth_vs_offchip) out.emplace_back("memory.l2_bandwidth_vs_offchip", &*l2_bandwidth_vs_offchip);
  out.emplace_back("sync.launch", &sync.launch);
  for (const Barrier& b : sync.barriers) out.emplace_back("sync.barriers." + b.a + "-" + b.b, &b.cost);
  if (engine_rules.topk_large_k) out.emplace_back("engine_rules.topk_large_k.min_k", &engine_rules.topk_large_k->min_k);
  if (engine_rules.small_int_to_host)
    out.emplace_back("engine_rules.small_int_to_host.max_elements", &engine_rules.small_int_to_host->max_elements);
  if (tile.reserved) out.emplace_back("tile_model.reserved", &*tile.reserved);
  out.emplace_back("tile_model.min_tile", &tile.min_tile_bytes);
  out.emplace_back("tile_model.block", &tile.block_bytes);
  out.emplace_back("tile_model.double_buffer", &tile.double_buffer);
  out.emplace_back("assumptions.symbolic_dim", &assumptions.symbolic_dim);
  return out;
}

namespace {
using Json = nlohmann::ordered_json;

Json ProvenanceJson(const Provenance& p) {
  Json j;
  j["tag"] = TagName(p.tag);
  j["source"] = p.source;
  if (!p.note.empty()) j["note"] = p.note;
  return j;
}

Json NumberJson(const Number& n, std::string_view si_unit) {
  Json j;
  j["value"] = n.written;
  if (!n.unit.empty()) j["unit"] = n.unit;
  j["si"] = n.value;
  if (!si_unit.empty()) j["si_unit"] = si_unit;
  j.update(ProvenanceJson(n.from));
  return j;
}

Json TableJson(const NumberTable& t) {
  Json j;
  Json values = Json::object();
  for (const auto& [k, v] : t.values) values[k] = v;
  j["values"] = values;
  j.update(ProvenanceJson(t.from));
  return j;
}
}  // namespace

std::string DescriptionJson(const TargetDescription& d) {
  Json j;
  j["name"] = d.name;
  j["description"] = d.description;
  j["soc"] = d.soc;
  j["file"] = d.file;
  j["arch"] = Json::object();
  for (const auto& [k, v] : d.arch) j["arch"][k] = v;
  j["clock"] = NumberJson(d.clock, "Hz");
  for (const CoreKind& k : d.core_kinds) {
    Json c;
    c["description"] = k.description;
    c["count"] = NumberJson(k.count, "");
    if (k.clock) c["clock"] = NumberJson(*k.clock, "Hz");
    j["core_kinds"][k.name] = c;
  }
  for (const Engine& e : d.engines) {
    Json c;
    c["description"] = e.description;
    c["runs_on"] = e.device ? "device" : "host";
    c["fuses"] = e.fuses;
    if (!e.core_kind.empty()) c["core_kind"] = e.core_kind;
    for (const auto& [type, rate] : e.peak) c["peak"][type] = NumberJson(rate.given, "op/s");
    if (e.launch) c["launch"] = NumberJson(*e.launch, "s");
    j["engines"][e.name] = c;
  }
  for (const Buffer& b : d.buffers) {
    Json c = NumberJson(b.bytes, "B");
    c["per"] = b.per;
    j["buffers"][b.name] = c;
  }
  j["memory"]["offchip"] = {{"kind", d.offchip.kind},
                            {"capacity", NumberJson(d.offchip.capacity, "B")},
                            {"bandwidth", NumberJson(d.offchip.bandwidth, "B/s")}};
  if (d.l2_bandwidth_vs_offchip) j["memory"]["l2_bandwidth_vs_offchip"] = NumberJson(*d.l2_bandwidth_vs_offchip, "");
  if (!d.memory_rates.empty()) j["memory"]["rates_bytes_per_cycle"] = TableJson(d.memory_rates);
  j["sync"]["launch"] = NumberJson(d.sync.launch, "s");
  if (!d.sync.cube_to_vector.empty()) j["sync"]["cube_to_vector"] = d.sync.cube_to_vector;
  j["sync"]["barriers"] = Json::array();
  for (const Barrier& b : d.sync.barriers)
    j["sync"]["barriers"].push_back({{"between", {b.a, b.b}}, {"cost", NumberJson(b.cost, "s")}});
  j["formats"]["supported"] = d.formats.supported;
  j["formats"]["c0"] = TableJson(d.formats.c0);
  for (const OpClass& c : d.classes) {
    Json k;
    k["engine"] = c.engine;
    k["cost"] = CostRuleName(c.cost);
    if (!c.input_formats.empty() || !c.output_formats.empty()) {
      k["formats"]["inputs"] = c.input_formats;
      k["formats"]["outputs"] = c.output_formats;
      if (!c.formats_source.empty()) k["formats"]["source"] = c.formats_source;
    }
    if (!c.factors.empty()) k["factors"] = TableJson(c.factors);
    k["ops"] = c.ops;
    j["op_classes"][c.name] = k;
  }
  const EngineRules& r = d.engine_rules;
  j["engine_rules"]["default_engine"] = r.default_engine;
  j["engine_rules"]["overrides"] = Json::object();
  for (const auto& [op, engine] : r.overrides) j["engine_rules"]["overrides"][op] = engine;
  if (r.topk_large_k)
    j["engine_rules"]["topk_large_k"] = {{"min_k", NumberJson(r.topk_large_k->min_k, "")},
                                         {"engine", r.topk_large_k->engine}};
  if (r.small_int_to_host)
    j["engine_rules"]["small_int_to_host"] = {{"max_elements", NumberJson(r.small_int_to_host->max_elements, "")},
                                              {"engine", r.small_int_to_host->engine},
                                              {"elem_types", r.small_int_to_host->elem_types},
                                              {"classes", r.small_int_to_host->classes}};
  j["tile_model"] = {{"buffer", d.tile.buffer},
                     {"engines", d.tile.engines},
                     {"min_tile", NumberJson(d.tile.min_tile_bytes, "B")},
                     {"block", NumberJson(d.tile.block_bytes, "B")},
                     {"double_buffer", NumberJson(d.tile.double_buffer, "")}};
  if (d.tile.reserved) j["tile_model"]["reserved"] = NumberJson(*d.tile.reserved, "B");
  j["assumptions"]["symbolic_dim"] = NumberJson(d.assumptions.symbolic_dim, "");
  return j.dump();
}

std::string_view ElemTypeName(int32_t t) {
  switch (t) {
    case 1: return "fp32";
    case 2: return "uint8";
    case 3: return "int8";
    case 4: return "uint16";
    case 5: return "int16";
    case 6: return "int32";
    case 7: return "int64";
    case 8: return "string";
    case 9: return "bool";
    case 10: return "fp16";
    case 11: return "fp64";
    case 12: return "uint32";
    case 13: return "uint64";
    case 14: return "complex64";
    case 15: return "complex128";
    case 16: return "bf16";
    default: return "undefined";
  }
}

int ElemTypeBytes(int32_t t) {
  switch (t) {
    case 2: case 3: case 9: return 1;
    case 4: case 5: case 10: case 16: return 2;
    case 1: case 6: case 12: return 4;
    case 7: case 11: case 13: case 14: return 8;
    case 15: return 16;
    default: return 0;
  }
}

}  // namespace kiln::ascend
