// Custom-op schemas in ONNX's registry (plugin_schema.h) and the shape-inference context slots a plugin's shape
// callback reads its inputs from and sets its outputs through (ONNX's InferenceContext underneath).
#include <map>
#include <optional>
#include <stdexcept>
#include <tuple>

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>

#include "ir/attribute.h"
#include "onnx/proto_convert.h"
#include "plugin/host_api.h"
#include "plugin/host_api_values.h"
#include "plugin/plugin_schema.h"
#include "shape/schema_registry.h"
#include "support/error.h"

struct KilnShapeContext {
  onnx::InferenceContext* ctx = nullptr;
  std::vector<std::optional<kiln::Type>> input_types;  // converted on first use
};

namespace kiln::plugin {
namespace {

// ---- the shape context
const Type* InputType(KilnShapeContext* c, size_t i) {
  if (!c || i >= c->ctx->getNumInputs()) return nullptr;
  if (c->input_types.size() < c->ctx->getNumInputs()) c->input_types.resize(c->ctx->getNumInputs());
  if (!c->input_types[i]) {
    const onnx::TypeProto* p = c->ctx->getInputType(i);
    c->input_types[i] = p ? TypeFromProto(*p) : Type{};
  }
  return &*c->input_types[i];
}

size_t InferInputCount(KilnShapeContext* c) { return c ? c->ctx->getNumInputs() : 0; }

int32_t InferInputElemType(KilnShapeContext* c, size_t i) {
  return GuardedValue<int32_t>(0, [&] {
    const Type* t = InputType(c, i);
    return t ? ElemTypeOf(*t) : 0;
  });
}

int64_t InferInputShape(KilnShapeContext* c, size_t i, const int64_t** out_dims) {
  return GuardedValue<int64_t>(-1, [&] {
    const Type* t = InputType(c, i);
    return t ? ShapeOf(*t, out_dims) : int64_t{-1};
  });
}

const char* InferInputDimSymbol(KilnShapeContext* c, size_t i, size_t dim) {
  return GuardedValue<const char*>(nullptr, [&] {
    const Type* t = InputType(c, i);
    return t ? DimSymbolOf(*t, dim) : nullptr;
  });
}

const KilnTensorView* InferInputConstant(KilnShapeContext* c, size_t i) {
  return GuardedValue<const KilnTensorView*>(nullptr, [&]() -> const KilnTensorView* {
    if (!c || i >= c->ctx->getNumInputs()) return nullptr;
    const onnx::TensorProto* p = c->ctx->getInputData(i);
    if (!p) return nullptr;
    onnx::TensorProto copy = *p;
    auto t = std::make_shared<const Tensor>(TensorFromProto(std::move(copy), nullptr, "input " + std::to_string(i)));
    return CallFrame::Current().View(t);
  });
}

// An ONNX attribute as the IR holds one (the kinds a shape function reads; graphs are not carried over).
Attribute AttributeFrom(const onnx::AttributeProto& p) {
  Attribute a;
  a.name = p.name();
  a.kind = static_cast<AttrKind>(p.type());
  if (p.has_f()) a.f = p.f();
  if (p.has_i()) a.i = p.i();
  if (p.has_s()) a.s = p.s();
  if (p.has_t()) {
    onnx::TensorProto copy = p.t();
    a.t = TensorFromProto(std::move(copy), nullptr, "attribute " + p.name());
  }
  a.floats.assign(p.floats().begin(), p.floats().end());
  a.ints.assign(p.ints().begin(), p.ints().end());
  a.strings.assign(p.strings().begin(), p.strings().end());
  return a;
}

const KilnAttribute* InferAttribute(KilnShapeContext* c, const char* name) {
  return GuardedValue<const KilnAttribute*>(nullptr, [&]() -> const KilnAttribute* {
    if (!c || !name) return nullptr;
    const onnx::AttributeProto* p = c->ctx->getAttribute(name);
    if (!p) return nullptr;
    return ToKiln(&CallFrame::Current().Make<Attribute>(AttributeFrom(*p)));
  });
}

size_t InferOutputCount(KilnShapeContext* c) { return c ? c->ctx->getNumOutputs() : 0; }

KilnStatus* InferSetOutput(KilnShapeContext* c, size_t i, int32_t elem_type, int64_t rank, const int64_t* dims,
                           const char* const* symbols) {
  return Guarded([&] {
    if (!c) throw std::invalid_argument("ctx is NULL");
    if (i >= c->ctx->getNumOutputs())
      throw std::out_of_range("output " + std::to_string(i) + " of " + std::to_string(c->ctx->getNumOutputs()));
    Type t = TensorTypeFrom(elem_type, rank, dims, symbols);
    onnx::TypeProto* out = c->ctx->getOutputType(i);
    if (!out) throw SlotError(KILN_STATUS_INTERNAL, "ONNX gave no output type to fill");
    out->Clear();
    TypeToProto(t, out);
  });
}

// ---- schema registration
using SchemaKey = std::tuple<std::string, std::string, int>;  // domain, op type, since version

std::mutex& BindingsMutex() {
  static std::mutex mu;
  return mu;
}
std::map<SchemaKey, std::shared_ptr<SchemaBinding>>& Bindings() {
  static auto* bindings = new std::map<SchemaKey, std::shared_ptr<SchemaBinding>>();  // never destroyed: ONNX
  return *bindings;  // keeps calling the inference functions that hold these until exit
}

void RunBinding(SchemaBinding& b, const std::string& op, onnx::InferenceContext& ic) {
  std::lock_guard<std::recursive_mutex> lock(b.mu);
  if (!b.active || !b.infer) return;
  KilnShapeContext ctx;
  ctx.ctx = &ic;
  KilnStatus* status = CallPlugin(b.services, "the shape function", [&] { return b.infer(b.user_data, &ctx); });
  if (status) fail_shape_inference("plugin ", b.plugin, ": shape inference of ", op, " failed: ", TakeStatusText(status));
}

void DeclareParameters(onnx::OpSchema& s, bool inputs, int min, int max) {
  const auto& types = [] {
    static std::vector<std::string> all = [] {
      std::vector<std::string> v = onnx::OpSchema::all_tensor_types_with_bfloat();
      for (const auto& t : onnx::OpSchema::all_tensor_sequence_types_with_bfloat()) v.push_back(t);
      for (const auto& t : onnx::OpSchema::all_optional_types_with_bfloat()) v.push_back(t);
      return v;
    }();
    return all;
  }();
  const std::string side = inputs ? "input" : "output";
  auto declare = [&](int i, onnx::OpSchema::FormalParameterOption option, int min_arity) {
    std::string type = "T_" + side + std::to_string(i);
    if (inputs)
      s.Input(i, side + std::to_string(i), "", type, option, option != onnx::OpSchema::Variadic, min_arity);
    else
      s.Output(i, side + std::to_string(i), "", type, option, option != onnx::OpSchema::Variadic, min_arity);
    s.TypeConstraint(type, types, "any type");
  };
  int i = 0;
  for (; i < min; ++i) declare(i, onnx::OpSchema::Single, 1);
  if (max < 0) {
    declare(i, onnx::OpSchema::Variadic, 0);
    return;
  }
  for (; i < max; ++i) declare(i, onnx::OpSchema::Optional, 1);
}

}  // namespace

void EnsureDomainVersions(const std::string& domain, int max_since, const std::string& plugin) {
  auto& ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance();
  auto map = ranges.Map();
  auto it = map.find(domain);
  if (it == map.end()) {
    ranges.AddDomainToVersion(domain, 1, max_since);
    return;
  }
  if (it->second.second >= max_since) return;
#ifdef NDEBUG
  ranges.AddDomainToVersion(domain, it->second.first, max_since);  // widens (the header's check is an assert)
#else
  throw PluginError("plugin " + plugin + ": domain '" + domain + "' is known to ONNX up to version " +
                    std::to_string(it->second.second) + " and cannot be widened to " + std::to_string(max_since));
#endif
}

std::shared_ptr<SchemaBinding> BindOpSchema(const OpSchemaSpec& spec, const std::string& plugin,
                                            KilnInferShapesFn infer, void* user_data, const HostServices* services,
                                            std::string* kept_from) {
  std::lock_guard<std::mutex> lock(BindingsMutex());
  SchemaKey key{spec.domain, spec.op_type, spec.since_version};
  auto& bindings = Bindings();
  if (auto it = bindings.find(key); it != bindings.end()) {
    SchemaBinding& b = *it->second;
    std::lock_guard<std::recursive_mutex> block(b.mu);
    if (b.active) {
      if (kept_from) *kept_from = b.plugin;
      return nullptr;
    }
    b.active = true, b.plugin = plugin, b.infer = infer, b.user_data = user_data, b.services = services;
    return it->second;
  }
  EnsureOnnxSchemas();  // ONNX's registry is about to hold a plugin's schema: every lookup must read it from now on
  const onnx::OpSchema* existing = onnx::OpSchemaRegistry::Schema(spec.op_type, spec.since_version, spec.domain);
  if (existing && existing->SinceVersion() == spec.since_version) {
    if (kept_from) *kept_from = "ONNX's registry (" + existing->file() + ")";
    return nullptr;
  }
  auto binding = std::make_shared<SchemaBinding>();
  binding->active = true, binding->plugin = plugin, binding->infer = infer, binding->user_data = user_data;
  binding->services = services;
  onnx::OpSchema schema(spec.op_type, "kiln plugin " + plugin, 0);
  schema.SetDomain(spec.domain);
  schema.SinceVersion(spec.since_version);
  schema.SetDoc(spec.doc);
  DeclareParameters(schema, true, spec.min_inputs, spec.max_inputs);
  DeclareParameters(schema, false, spec.min_outputs, spec.max_outputs);
  std::string op = (spec.domain.empty() ? "" : spec.domain + ".") + spec.op_type;
  schema.TypeAndShapeInferenceFunction(
      [binding, op](onnx::InferenceContext& ic) { RunBinding(*binding, op, ic); });
  onnx::OpSchemaRegistry::OpSchemaRegisterOnce once(schema);
  const onnx::OpSchema* made = onnx::OpSchemaRegistry::Schema(spec.op_type, spec.since_version, spec.domain);
  if (!made || made->SinceVersion() != spec.since_version)
    throw PluginError("plugin " + plugin + ": ONNX refused the schema of " + op + " version " +
                      std::to_string(spec.since_version));
  bindings[key] = binding;
  return binding;
}

void Deactivate(SchemaBinding& binding) {
  std::lock_guard<std::recursive_mutex> lock(binding.mu);
  binding.active = false;
  binding.infer = nullptr;
  binding.user_data = nullptr;
}

void FillSchemaSlots(KilnHostApi& api) {
  api.infer_input_count = InferInputCount;
  api.infer_input_elem_type = InferInputElemType;
  api.infer_input_shape = InferInputShape;
  api.infer_input_dim_symbol = InferInputDimSymbol;
  api.infer_input_constant = InferInputConstant;
  api.infer_attribute = InferAttribute;
  api.infer_output_count = InferOutputCount;
  api.infer_set_output = InferSetOutput;
}

}  // namespace kiln::plugin
