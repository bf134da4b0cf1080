// target_description.h - one Ascend SoC as plain data: core kinds, engines and their peak rates, on-chip buffers,
// off-chip memory, launch and barrier costs, data formats, the op -> class -> engine mapping and the tile model's
// parameters. Read from a YAML file of configs/targets/ (schema: configs/targets/README.md) by
// ParseDescription / LoadDescription; nothing here knows the plugin ABI, so tests link it directly.
//
// Every number carries where it comes from (Provenance): fact (read from a cited source), derived (arithmetic on
// facts, formula in the note) or assumed (no source: the note says why the value was chosen). Numbers are stored
// in SI units (Hz, bytes, bytes/s, seconds, operations/s) whatever unit the file wrote them in.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::ascend {

enum class Tag { kFact, kDerived, kAssumed };
std::string_view TagName(Tag tag);

// Where a number comes from, and where it was written (line/column 1-based, 0 when not from a file).
struct Provenance {
  Tag tag = Tag::kAssumed;
  std::string source;
  std::string note;
  int line = 0;
  int column = 0;
};

// A number in SI units, with the value and unit as written.
struct Number {
  double value = 0;          // SI
  double written = 0;        // as in the file
  std::string unit;          // as in the file ("MHz", "KiB", "op/cycle/core", "" for a plain count)
  Provenance from;
};

// A table of numbers sharing one provenance (C0 per element type, vector ops per element per op type).
struct NumberTable {
  std::map<std::string, double, std::less<>> values;
  Provenance from;
  bool empty() const { return values.empty(); }
};

struct CoreKind {
  std::string name;  // "aic", "aiv", "aicore", "vector_core", "aicpu"
  std::string description;
  Number count;
  std::optional<Number> clock;  // its own clock; else the chip's
};

// A peak rate of one engine for one element type, converted to operations per second for the whole engine.
struct Rate {
  Number given;  // as written: op/cycle/core (times cores and clock) or op/s
  double ops_per_second = 0;
};

struct Engine {
  std::string name;       // "cube", "vector", "aicpu", "host"
  std::string core_kind;  // "" for the host
  std::string description;
  bool device = true;     // false: work done on the host, no kernel launch, no device memory traffic
  bool fuses = true;      // whether its nodes may share one fused kernel with other nodes (AI CPU: no)
  std::map<std::string, Rate, std::less<>> peak;  // element type name ("fp16", "int8") -> rate
  std::optional<Number> launch;  // its own launch cost; else Sync::launch
};

struct Buffer {
  std::string name;  // "ub", "l1", "l0a", "l0b", "l0c", "l2"
  Number bytes;
  std::string per;   // the core kind that has one each, "chip" for a shared one
};

struct OffchipMemory {
  std::string kind;  // "HBM", "DDR"
  Number capacity;
  Number bandwidth;  // bytes/s, chip aggregate
};

struct Barrier {
  std::string a, b;  // engines; symmetric
  Number cost;       // seconds
};

struct Sync {
  Number launch;  // seconds per kernel launch
  std::vector<Barrier> barriers;
  std::string cube_to_vector;  // "via_gm" (split AI Core: through global memory / L2), "l0c_to_ub" (coupled)
};

// The counting rule of an op class.
enum class CostRule {
  kConv,
  kConvTranspose,
  kMatMul,
  kGemm,
  kElementwise,
  kReduction,
  kNorm,
  kSoftmax,
  kPooling,
  kDataMovement,
  kView,      // metadata only (Reshape, Squeeze, ...): no work, engine-neutral inside a group
  kInputElements,  // input 0's elements times factor (AI CPU ops, sorting)
  kShape,     // Shape, Size: reads only metadata
  kConstant,  // Constant: no work; inside a group its output is an input read from memory
};
std::string_view CostRuleName(CostRule rule);
std::optional<CostRule> CostRuleFromName(std::string_view name);

struct OpClass {
  std::string name;
  std::string engine;
  CostRule cost = CostRule::kElementwise;
  std::vector<std::string> input_formats;   // by input index; "any" = format-agnostic; past the end: ND
  std::vector<std::string> output_formats;
  std::string formats_source;
  NumberTable factors;  // operations per element, by op type; "default" for the others (absent: 1)
  std::vector<std::string> ops;  // "Conv", or "domain::Op" for another domain
};

// The rule that moves TopK with a large k to another engine.
struct TopKRule {
  Number min_k;
  std::string engine;
};

// The rule that moves small integer computations (shape arithmetic) to the host.
struct SmallIntRule {
  Number max_elements;
  std::string engine;
  std::vector<std::string> elem_types;  // "int64", "int32"
  std::vector<std::string> classes;     // the op classes it applies to
};

struct EngineRules {
  std::string default_engine;  // an op no class lists
  std::map<std::string, std::string, std::less<>> overrides;  // op -> engine, beating its class
  std::optional<TopKRule> topk_large_k;
  std::optional<SmallIntRule> small_int_to_host;
};

struct Formats {
  std::vector<std::string> supported;
  NumberTable c0;  // element type name -> C0
};

// The tile model of the group feasibility check (cost_model.h says how it is used).
struct TileModel {
  std::string buffer;                // the buffer checked ("ub")
  std::vector<std::string> engines;  // the engines whose tensors live in it ("vector")
  std::optional<Number> reserved;    // bytes of it the runtime keeps
  Number min_tile_bytes;  // the smallest tile of one tensor
  Number block_bytes;     // UB allocation granule: tiles round up to it
  Number double_buffer;   // factor on tiles streamed in or out (off-chip memory, or from another engine)
};

struct Assumptions {
  Number symbolic_dim;  // the size a symbolic or unknown dimension counts as
};

struct TargetDescription {
  std::string file;  // where it was read from
  std::string name;
  std::string description;
  std::string soc;
  std::map<std::string, std::string, std::less<>> arch;  // npu_arch, cube_vector, ...
  Number clock;
  std::vector<CoreKind> core_kinds;
  std::vector<Engine> engines;
  std::vector<Buffer> buffers;
  OffchipMemory offchip;
  std::optional<Number> l2_bandwidth_vs_offchip;  // informational
  NumberTable memory_rates;                         // informational, bytes/cycle per core
  Sync sync;
  Formats formats;
  std::vector<OpClass> classes;
  EngineRules engine_rules;
  TileModel tile;
  Assumptions assumptions;

  const CoreKind* FindCoreKind(std::string_view name) const;
  const Engine* FindEngine(std::string_view name) const;
  const Buffer* FindBuffer(std::string_view name) const;
  const OpClass* FindClass(std::string_view name) const;
  // Every Number in the description, with a path naming it ("engines.cube.peak.fp16").
  std::vector<std::pair<std::string, const Number*>> AllNumbers() const;
};

// A description that does not parse or does not hold together; what() is "file:line:column: message" (line and
// column 1-based; without them when the problem has no one place).
class DescriptionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses the YAML text of one target; source names it in errors.
TargetDescription ParseDescription(std::string_view yaml, const std::string& source);
// Reads and parses one file.
TargetDescription LoadDescription(const std::string& path);
// The *.yaml and *.yml files of a directory, sorted by name; empty when it does not exist.
std::vector<std::string> DescriptionFiles(const std::string& dir);

// The description as a JSON object (every number with its unit, SI value, tag and source), for details_json.
std::string DescriptionJson(const TargetDescription& d);

// Element type names used as rate and C0 keys: ONNX TensorProto numbers -> "fp16", "bf16", "fp32", "int8", ...
std::string_view ElemTypeName(int32_t elem_type);
// Bytes per element; 0 when unknown (strings, undefined).
int ElemTypeBytes(int32_t elem_type);

}  // namespace kiln::ascend
