// Reading a target description from YAML (schema: configs/targets/README.md). Every mapping is checked for
// unknown keys, every number must be a tagged number {value, unit, tag, source, note} (or sit in a tagged table),
// units are converted to SI, and names that refer to each other (engines, core kinds, classes, formats, buffers)
// must resolve. Each problem is one DescriptionError "file:line:column: what was expected".
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "target_description.h"

namespace kiln::ascend {
namespace {

enum class Dim { kCount, kFrequency, kBytes, kBandwidth, kTime, kRate, kRatio };

std::string_view DimName(Dim d) {
  switch (d) {
    case Dim::kCount: return "a count (no unit)";
    case Dim::kFrequency: return "a frequency (Hz, kHz, MHz, GHz)";
    case Dim::kBytes: return "a size (B, KiB, MiB, GiB, KB, MB, GB)";
    case Dim::kBandwidth: return "a bandwidth (B/s, KB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s)";
    case Dim::kTime: return "a time (s, ms, us, ns)";
    case Dim::kRate: return "a rate (op/s, Gop/s, Top/s, FLOP/s, GFLOP/s, TFLOP/s, op/cycle/core)";
    case Dim::kRatio: return "a ratio (no unit, or x)";
  }
  return "?";
}

// The SI factor of unit for dimension d; nullopt when the unit is not one of d's. op/cycle/core is handled by
// the rate reader (it needs the engine's cores and clock).
std::optional<double> UnitFactor(Dim d, std::string_view unit) {
  struct U {
    std::string_view name;
    double factor;
  };
  static const std::vector<U> kFrequency = {{"Hz", 1}, {"kHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9}};
  static const std::vector<U> kBytes = {{"B", 1},       {"KiB", 1024.0},       {"MiB", 1048576.0},
                                        {"GiB", 1073741824.0}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}};
  static const std::vector<U> kBandwidth = {{"B/s", 1},   {"KB/s", 1e3},         {"MB/s", 1e6},
                                            {"GB/s", 1e9}, {"TB/s", 1e12},        {"KiB/s", 1024.0},
                                            {"MiB/s", 1048576.0}, {"GiB/s", 1073741824.0}};
  static const std::vector<U> kTime = {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};
  static const std::vector<U> kRate = {{"op/s", 1},      {"Gop/s", 1e9},      {"Top/s", 1e12},
                                       {"FLOP/s", 1},    {"GFLOP/s", 1e9},    {"TFLOP/s", 1e12}};
  const std::vector<U>* table = nullptr;
  switch (d) {
    case Dim::kCount: return unit.empty() ? std::optional<double>(1) : std::nullopt;
    case Dim::kRatio: return unit.empty() || unit == "x" ? std::optional<double>(1) : std::nullopt;
    case Dim::kFrequency: table = &kFrequency; break;
    case Dim::kBytes: table = &kBytes; break;
    case Dim::kBandwidth: table = &kBandwidth; break;
    case Dim::kTime: table = &kTime; break;
    case Dim::kRate: table = &kRate; break;
  }
  for (const U& u : *table)
    if (u.name == unit) return u.factor;
  return std::nullopt;
}

class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void Fail(const YAML::Node& at, const std::string& message) const {
    YAML::Mark m = YAML::Mark::null_mark();
    try {
      if (at.IsDefined()) m = at.Mark();
    } catch (const YAML::Exception&) {  // a node for a missing key has no place
    }
    if (m.line < 0) throw DescriptionError(source_ + ": " + message);
    throw DescriptionError(source_ + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1) + ": " +
                           message);
  }
  [[noreturn]] void FailAt(const Provenance& p, const std::string& message) const {
    throw DescriptionError(source_ + ":" + std::to_string(p.line) + ":" + std::to_string(p.column) + ": " + message);
  }

  // A mapping whose keys are checked: Take() marks a key used, Done() fails on any key not taken.
  class Map {
   public:
    Map(const Reader& r, const YAML::Node& node, std::string what) : r_(r), node_(node), what_(std::move(what)) {
      if (!node.IsMap()) r.Fail(node, what_ + " must be a mapping");
    }
    YAML::Node Take(const std::string& key) {
      taken_.insert(key);
      const YAML::Node& node = node_;  // const: looking a key up never adds it
      return node[key];
    }
    YAML::Node Require(const std::string& key) {
      YAML::Node n = Take(key);
      if (!n) r_.Fail(node_, what_ + " has no '" + key + "'");
      return n;
    }
    void Done() const {
      for (const auto& kv : node_) {
        std::string key = kv.first.Scalar();
        if (!taken_.count(key)) r_.Fail(kv.first, what_ + " has an unknown key '" + key + "'");
      }
    }
    const YAML::Node& node() const { return node_; }
    const std::string& what() const { return what_; }

   private:
    const Reader& r_;
    YAML::Node node_;
    std::string what_;
    std::set<std::string> taken_;
  };

  std::string String(const YAML::Node& n, const std::string& what) const {
    if (!n || !n.IsScalar()) Fail(n ? n : YAML::Node(), what + " must be a string");
    return n.Scalar();
  }
  std::string OptionalString(const YAML::Node& n, const std::string& what) const {
    return n ? String(n, what) : std::string();
  }
  std::vector<std::string> Strings(const YAML::Node& n, const std::string& what) const {
    if (!n || !n.IsSequence()) Fail(n, what + " must be a list of strings");
    std::vector<std::string> out;
    for (const YAML::Node& e : n) out.push_back(String(e, what + " entry"));
    return out;
  }
  double Double(const YAML::Node& n, const std::string& what) const {
    if (!n.IsScalar()) Fail(n, what + " must be a number");
    std::string s = n.Scalar();
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v)) Fail(n, what + " must be a number, not '" + s + "'");
    return v;
  }
  Provenance ReadProvenance(Map& m) const {
    Provenance p;
    YAML::Mark mark = m.node().Mark();
    p.line = mark.line + 1;
    p.column = mark.column + 1;
    YAML::Node tag = m.Require("tag");
    std::string t = String(tag, m.what() + ".tag");
    if (t == "fact") p.tag = Tag::kFact;
    else if (t == "derived") p.tag = Tag::kDerived;
    else if (t == "assumed") p.tag = Tag::kAssumed;
    else Fail(tag, m.what() + ".tag must be fact, derived or assumed, not '" + t + "'");
    p.source = String(m.Require("source"), m.what() + ".source");
    if (p.source.empty()) Fail(m.node(), m.what() + ".source is empty");
    p.note = OptionalString(m.Take("note"), m.what() + ".note");
    if (p.tag != Tag::kFact && p.note.empty())
      Fail(m.node(), m.what() + " is " + std::string(TagName(p.tag)) +
                         ": it needs a note (the formula of a derived number, the reasoning of an assumption)");
    return p;
  }
  // A tagged number of dimension d. cycles_per_core: for rates, the factor of op/cycle/core (cores x clock);
  // 0 when that unit is not allowed here.
  Number ReadNumber(const YAML::Node& n, Dim d, const std::string& what, double cycles_per_core = 0) const {
    if (!n) Fail(n, what + " is missing");
    if (!n.IsMap())
      Fail(n, what + " must be a tagged number {value, unit, tag: fact|derived|assumed, source, note}");
    Map m(*this, n, what);
    Number num;
    YAML::Node value = m.Require("value");
    num.written = Double(value, what + ".value");
    num.unit = OptionalString(m.Take("unit"), what + ".unit");
    num.from = ReadProvenance(m);
    m.Done();
    if (d == Dim::kRate && num.unit == "op/cycle/core") {
      if (cycles_per_core <= 0) Fail(n, what + ": op/cycle/core needs an engine with cores and a clock");
      num.value = num.written * cycles_per_core;
    } else {
      std::optional<double> f = UnitFactor(d, num.unit);
      if (!f) Fail(n, what + ": unit '" + num.unit + "' is not " + std::string(DimName(d)));
      num.value = num.written * *f;
    }
    if (num.value < 0) Fail(value, what + " must not be negative");
    return num;
  }
  Number ReadPositive(const YAML::Node& n, Dim d, const std::string& what, double cycles_per_core = 0) const {
    Number num = ReadNumber(n, d, what, cycles_per_core);
    if (!(num.value > 0)) Fail(n, what + " must be greater than 0");
    return num;
  }
  NumberTable ReadTable(const YAML::Node& n, const std::string& what) const {
    if (!n || !n.IsMap()) Fail(n, what + " must be a tagged table {values: {...}, unit, tag, source, note}");
    Map m(*this, n, what);
    NumberTable t;
    YAML::Node values = m.Require("values");
    m.Take("unit");
    t.from = ReadProvenance(m);
    m.Done();
    if (!values.IsMap()) Fail(values, what + ".values must be a mapping of numbers");
    for (const auto& kv : values) t.values[kv.first.Scalar()] = Double(kv.second, what + "." + kv.first.Scalar());
    return t;
  }

 private:
  std::string source_;
};

void ReadCoreKinds(const Reader& r, const YAML::Node& n, TargetDescription& d) {
  if (!n.IsMap() || n.size() == 0) r.Fail(n, "core_kinds must be a non-empty mapping");
  for (const auto& kv : n) {
    CoreKind k;
    k.name = kv.first.Scalar();
    Reader::Map m(r, kv.second, "core_kinds." + k.name);
    k.description = r.OptionalString(m.Take("description"), m.what() + ".description");
    k.count = r.ReadPositive(m.Require("count"), Dim::kCount, m.what() + ".count");
    if (YAML::Node c = m.Take("clock")) k.clock = r.ReadPositive(c, Dim::kFrequency, m.what() + ".clock");
    m.Done();
    d.core_kinds.push_back(std::move(k));
  }
}

void ReadEngines(const Reader& r, const YAML::Node& n, TargetDescription& d) {
  if (!n.IsMap() || n.size() == 0) r.Fail(n, "engines must be a non-empty mapping");
  for (const auto& kv : n) {
    Engine e;
    e.name = kv.first.Scalar();
    Reader::Map m(r, kv.second, "engines." + e.name);
    e.description = r.OptionalString(m.Take("description"), m.what() + ".description");
    std::string place = r.OptionalString(m.Take("runs_on"), m.what() + ".runs_on");
    if (place.empty() || place == "device") e.device = true;
    else if (place == "host") e.device = false;
    else r.Fail(m.node()["runs_on"], m.what() + ".runs_on must be device or host");
    e.fuses = e.device;
    if (YAML::Node f = m.Take("fuses")) {
      std::string v = r.String(f, m.what() + ".fuses");
      if (v != "true" && v != "false") r.Fail(f, m.what() + ".fuses must be true or false");
      e.fuses = v == "true";
    }
    double cycles_per_core = 0;
    if (YAML::Node ck = m.Take("core_kind")) {
      e.core_kind = r.String(ck, m.what() + ".core_kind");
      const CoreKind* kind = d.FindCoreKind(e.core_kind);
      if (!kind) r.Fail(ck, m.what() + ".core_kind '" + e.core_kind + "' is not one of core_kinds");
      cycles_per_core = kind->count.value * (kind->clock ? kind->clock->value : d.clock.value);
    } else if (e.device) {
      r.Fail(m.node(), m.what() + " runs on the device: it needs a core_kind");
    }
    YAML::Node peak = m.Require("peak");
    if (!peak.IsMap() || peak.size() == 0) r.Fail(peak, m.what() + ".peak must map element types to rates");
    for (const auto& p : peak) {
      std::string type = p.first.Scalar();
      Rate rate;
      rate.given = r.ReadPositive(p.second, Dim::kRate, m.what() + ".peak." + type, cycles_per_core);
      rate.ops_per_second = rate.given.value;
      e.peak[type] = rate;
    }
    if (YAML::Node l = m.Take("launch")) e.launch = r.ReadNumber(l, Dim::kTime, m.what() + ".launch");
    m.Done();
    if (d.FindEngine(e.name)) r.Fail(kv.first, "engine '" + e.name + "' is defined twice");
    d.engines.push_back(std::move(e));
  }
}

void ReadBuffers(const Reader& r, const YAML::Node& n, TargetDescription& d) {
  if (!n.IsMap() || n.size() == 0) r.Fail(n, "buffers must be a non-empty mapping");
  for (const auto& kv : n) {
    Buffer b;
    b.name = kv.first.Scalar();
    Reader::Map m(r, kv.second, "buffers." + b.name);
    YAML::Node per = m.Require("per");
    b.per = r.String(per, m.what() + ".per");
    if (b.per != "chip" && !d.FindCoreKind(b.per))
      r.Fail(per, m.what() + ".per must be 'chip' or one of core_kinds, not '" + b.per + "'");
    b.bytes = r.ReadPositive(m.Require("size"), Dim::kBytes, m.what() + ".size");
    m.Done();
    d.buffers.push_back(std::move(b));
  }
}

void ReadMemory(const Reader& r, const YAML::Node& n, TargetDescription& d) {
  Reader::Map m(r, n, "memory");
  Reader::Map off(r, m.Require("offchip"), "memory.offchip");
  d.offchip.kind = r.String(off.Require("kind"), "memory.offchip.kind");
  d.offchip.capacity = r.ReadPositive(off.Require("capacity"), Dim::kBytes, "memory.offchip.capacity");
  d.offchip.bandwidth = r.ReadPositive(off.Require("bandwidth"), Dim::kBandwidth, "memory.offchip.bandwidth");
  off.Done();
  if (YAML::Node l2 = m.Take("l2_bandwidth_vs_offchip"))
    d.l2_bandwidth_vs_offchip = r.ReadPositive(l2, Dim::kRatio, "memory.l2_bandwidth_vs_offchip");
  if (YAML::Node rates = m.Take("rates_bytes_per_cycle"))
    d.memory_rates = r.ReadTable(rates, "memory.rates_bytes_per_cycle");
  m.Done();
}

void ReadSync(const Reader& r, const YAML::Node& n, TargetDescription& d) {
  Reader::Map m(r, n, "sync");
  d.sync.launch = r.ReadNumber(m.Require("launch"), Dim::kTime, "sync.launch");
  d.sync.cube_to_vector = r.OptionalString(m.Take("cube_to_vector"), "sync.cube_to_vector");
  if (!d.sync.cube_to_vector.empty() && d.sync.cube_to_vector != "via_gm" && d.sync.cube_to_vector != "l0c_to_ub")
    r.Fail(n["cube_to_vector"], "sync.cube_to_vector must be via_gm or l0c_to_ub");
  if (YAML::Node barriers = m.Take("barriers")) {
    if (!barriers.IsSequence()) r.Fail(barriers, "sync.barriers must be a list of {between: [a, b], cost}");
    for (const YAML::Node& b : barriers) {
      Reader::Map bm(r, b, "sync.barriers entry");
      YAML::Node between = bm.Require("between");
      std::vector<std::string> pair = r.Strings(between, "sync.barriers.between");
      if (pair.size() != 2 || pair[0] == pair[1]) r.Fail(between, "sync.barriers.between must name two engines");
      for (const std::string& e : pair)
        if (!d.FindEngine(e)) r.Fail(between, "sync.barriers.between: '" + e + "' is not one of engines");
      Barrier barrier{pair[0], pair[1], r.ReadNumber(bm.Require("cost"), Dim::kTime, "sync.barriers.cost")};
      bm.Done();
      d.sync.barriers.push_back(std::move(barrier));
    }
  }
  m.Done();
}

void ReadFormats(const Reader& r, const YAML::Node& n, TargetDescription& d) {
  Reader::Map m(r, n, "formats");
  d.formats.supported = r.Strings(m.Require("supported"), "formats.supported");
  if (std::find(d.formats.supported.begin(), d.formats.supported.end(), "ND") == d.formats.supported.end())
    r.Fail(n["supported"], "formats.supported must include ND");
  d.formats.c0 = r.ReadTable(m.Require("c0"), "formats.c0");
  for (const auto& [type, c0] : d.formats.c0.values)
    if (!(c0 >= 1) || c0 != std::floor(c0)) r.Fail(n["c0"], "formats.c0." + type + " must be a positive integer");
  m.Done();
}

void CheckFormats(const Reader& r, const YAML::Node& at, const TargetDescription& d, const std::vector<std::string>& f,
                  const std::string& what) {
  for (const std::string& name : f)
    if (name != "any" && std::find(d.formats.supported.begin(), d.formats.supported.end(), name) ==
                             d.formats.supported.end())
      r.Fail(at, what + ": format '" + name + "' is not in formats.supported");
}

void ReadClasses(const Reader& r, const YAML::Node& n, TargetDescription& d) {
  if (!n.IsMap() || n.size() == 0) r.Fail(n, "op_classes must be a non-empty mapping");
  std::map<std::string, std::string> owner;  // op -> class
  for (const auto& kv : n) {
    OpClass c;
    c.name = kv.first.Scalar();
    Reader::Map m(r, kv.second, "op_classes." + c.name);
    YAML::Node engine = m.Require("engine");
    c.engine = r.String(engine, m.what() + ".engine");
    if (!d.FindEngine(c.engine)) r.Fail(engine, m.what() + ".engine '" + c.engine + "' is not one of engines");
    YAML::Node cost = m.Require("cost");
    std::optional<CostRule> rule = CostRuleFromName(r.String(cost, m.what() + ".cost"));
    if (!rule)
      r.Fail(cost, m.what() + ".cost must be one of conv, conv_transpose, matmul, gemm, elementwise, reduction, "
                              "norm, softmax, pooling, data_movement, view, input_elements, shape, constant");
    c.cost = *rule;
    if (YAML::Node formats = m.Take("formats")) {
      Reader::Map fm(r, formats, m.what() + ".formats");
      if (YAML::Node in = fm.Take("inputs")) c.input_formats = r.Strings(in, fm.what() + ".inputs");
      if (YAML::Node out = fm.Take("outputs")) c.output_formats = r.Strings(out, fm.what() + ".outputs");
      c.formats_source = r.OptionalString(fm.Take("source"), fm.what() + ".source");
      fm.Done();
      CheckFormats(r, formats, d, c.input_formats, fm.what() + ".inputs");
      CheckFormats(r, formats, d, c.output_formats, fm.what() + ".outputs");
    }
    if (YAML::Node factors = m.Take("factors")) c.factors = r.ReadTable(factors, m.what() + ".factors");
    YAML::Node ops = m.Require("ops");
    c.ops = r.Strings(ops, m.what() + ".ops");
    m.Done();
    for (const std::string& op : c.ops) {
      auto [it, fresh] = owner.emplace(op, c.name);
      if (!fresh) r.Fail(ops, m.what() + ": op '" + op + "' is already in class '" + it->second + "'");
    }
    d.classes.push_back(std::move(c));
  }
}

void ReadEngineRules(const Reader& r, const YAML::Node& n, TargetDescription& d) {
  Reader::Map m(r, n, "engine_rules");
  auto engine_ref = [&](const YAML::Node& e, const std::string& what) {
    std::string name = r.String(e, what);
    if (!d.FindEngine(name)) r.Fail(e, what + " '" + name + "' is not one of engines");
    return name;
  };
  d.engine_rules.default_engine = engine_ref(m.Require("default_engine"), "engine_rules.default_engine");
  if (YAML::Node o = m.Take("overrides")) {
    if (!o.IsMap()) r.Fail(o, "engine_rules.overrides must map op types to engines");
    for (const auto& kv : o)
      d.engine_rules.overrides[kv.first.Scalar()] = engine_ref(kv.second, "engine_rules.overrides." + kv.first.Scalar());
  }
  if (YAML::Node t = m.Take("topk_large_k")) {
    Reader::Map tm(r, t, "engine_rules.topk_large_k");
    TopKRule rule{r.ReadPositive(tm.Require("min_k"), Dim::kCount, tm.what() + ".min_k"),
                  engine_ref(tm.Require("engine"), tm.what() + ".engine")};
    tm.Done();
    d.engine_rules.topk_large_k = rule;
  }
  if (YAML::Node s = m.Take("small_int_to_host")) {
    Reader::Map sm(r, s, "engine_rules.small_int_to_host");
    SmallIntRule rule;
    rule.max_elements = r.ReadPositive(sm.Require("max_elements"), Dim::kCount, sm.what() + ".max_elements");
    rule.engine = engine_ref(sm.Require("engine"), sm.what() + ".engine");
    rule.elem_types = r.Strings(sm.Require("elem_types"), sm.what() + ".elem_types");
    YAML::Node classes = sm.Require("classes");
    rule.classes = r.Strings(classes, sm.what() + ".classes");
    for (const std::string& c : rule.classes)
      if (!d.FindClass(c)) r.Fail(classes, sm.what() + ".classes: '" + c + "' is not one of op_classes");
    sm.Done();
    d.engine_rules.small_int_to_host = rule;
  }
  m.Done();
}

void ReadTileModel(const Reader& r, const YAML::Node& n, TargetDescription& d) {
  Reader::Map m(r, n, "tile_model");
  YAML::Node buffer = m.Require("buffer");
  d.tile.buffer = r.String(buffer, "tile_model.buffer");
  if (!d.FindBuffer(d.tile.buffer)) r.Fail(buffer, "tile_model.buffer '" + d.tile.buffer + "' is not one of buffers");
  YAML::Node engines = m.Require("engines");
  d.tile.engines = r.Strings(engines, "tile_model.engines");
  for (const std::string& e : d.tile.engines)
    if (!d.FindEngine(e)) r.Fail(engines, "tile_model.engines: '" + e + "' is not one of engines");
  if (YAML::Node reserved = m.Take("reserved"))
    d.tile.reserved = r.ReadNumber(reserved, Dim::kBytes, "tile_model.reserved");
  d.tile.min_tile_bytes = r.ReadPositive(m.Require("min_tile"), Dim::kBytes, "tile_model.min_tile");
  d.tile.block_bytes = r.ReadPositive(m.Require("block"), Dim::kBytes, "tile_model.block");
  d.tile.double_buffer = r.ReadPositive(m.Require("double_buffer"), Dim::kRatio, "tile_model.double_buffer");
  m.Done();
  if (d.tile.reserved && d.tile.reserved->value >= d.FindBuffer(d.tile.buffer)->bytes.value)
    r.Fail(n["reserved"], "tile_model.reserved leaves nothing of buffer '" + d.tile.buffer + "'");
}

TargetDescription Read(const YAML::Node& root, const Reader& r, const std::string& source) {
  TargetDescription d;
  d.file = source;
  Reader::Map m(r, root, "the target description");
  YAML::Node schema = m.Require("schema");
  if (r.String(schema, "schema") != "kiln-target-1") r.Fail(schema, "schema must be kiln-target-1");
  d.name = r.String(m.Require("name"), "name");
  if (d.name.empty() || d.name.find_first_of(" \t/") != std::string::npos)
    r.Fail(root["name"], "name must be one word (no spaces or slashes)");
  d.description = r.OptionalString(m.Take("description"), "description");
  d.soc = r.OptionalString(m.Take("soc"), "soc");
  if (YAML::Node arch = m.Take("arch")) {
    if (!arch.IsMap()) r.Fail(arch, "arch must be a mapping of strings");
    for (const auto& kv : arch) d.arch[kv.first.Scalar()] = r.String(kv.second, "arch." + kv.first.Scalar());
  }
  d.clock = r.ReadPositive(m.Require("clock"), Dim::kFrequency, "clock");
  ReadCoreKinds(r, m.Require("core_kinds"), d);
  ReadEngines(r, m.Require("engines"), d);
  ReadBuffers(r, m.Require("buffers"), d);
  ReadMemory(r, m.Require("memory"), d);
  ReadSync(r, m.Require("sync"), d);
  ReadFormats(r, m.Require("formats"), d);
  ReadClasses(r, m.Require("op_classes"), d);
  ReadEngineRules(r, m.Require("engine_rules"), d);
  ReadTileModel(r, m.Require("tile_model"), d);
  Reader::Map a(r, m.Require("assumptions"), "assumptions");
  d.assumptions.symbolic_dim = r.ReadPositive(a.Require("symbolic_dim"), Dim::kCount, "assumptions.symbolic_dim");
  a.Done();
  m.Done();
  return d;
}

}  // namespace

TargetDescription ParseDescription(std::string_view yaml, const std::string& source) {
  Reader r(source);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    throw DescriptionError(source + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                           ": " + e.msg);
  }
  if (!root || root.IsNull()) throw DescriptionError(source + ": the file is empty");
  try {
    return Read(root, r, source);
  } catch (const YAML::Exception& e) {  // a conversion yaml-cpp itself refused
    throw DescriptionError(source + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                           ": " + e.msg);
  }
}

TargetDescription LoadDescription(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DescriptionError(path + ": cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return ParseDescription(text.str(), path);
}

std::vector<std::string> DescriptionFiles(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    std::string ext = e.path().extension().string();
    if ((ext == ".yaml" || ext == ".yml") && e.is_regular_file(ec)) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace kiln::ascend
