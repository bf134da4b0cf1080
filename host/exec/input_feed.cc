#include "exec/input_feed.h"

#include <Eigen/Core>
#include <filesystem>
#include <random>

#include "exec/executor.h"
#include "exec/value_io.h"
#include "ir/graph.h"
#include "support/error.h"

namespace kiln {
namespace fs = std::filesystem;

namespace {

void CheckAgainstDeclaration(const Value& v, const RtValue& r, const std::string& from) {
  const Type& t = v.type();
  if (t.kind == Type::Kind::kTensor) {
    if (!r.is_tensor())
      throw ModelError("input '" + v.name() + "' (" + from + "): expected a tensor " + t.ToString() + ", got " + Describe(r));
    const Tensor& x = *r.tensor;
    if (t.elem_declared && t.elem != x.type())
      throw ModelError("input '" + v.name() + "' (" + from + "): expected " + t.ToString() + ", got " + Describe(r));
    if (t.shape) {
      bool ok = t.shape->rank() == x.dims().size();
      for (size_t i = 0; ok && i < x.dims().size(); ++i)
        if (t.shape->dims[i].is_known() && *t.shape->dims[i].value != x.dims()[i]) ok = false;
      if (!ok) throw ModelError("input '" + v.name() + "' (" + from + "): expected " + t.ToString() + ", got " + Describe(r));
    }
  } else if (t.kind == Type::Kind::kSequence && r.kind != RtValue::Kind::kSequence) {
    throw ModelError("input '" + v.name() + "' (" + from + "): expected a sequence, got " + Describe(r));
  }
}

}  // namespace

std::vector<RtValue> ReadInputs(const Graph& g, const InputSpec& spec) {
  auto required = Executor::RequiredInputs(g);
  std::vector<RtValue> out(required.size());
  std::vector<bool> have(required.size(), false);
  for (const auto& [name, file] : spec.named) {
    // A copy of the binding for the lambda: clang before 16 cannot capture a structured binding.
    auto it = std::find_if(required.begin(), required.end(),
                           [&, &wanted = name](const Value* v) { return v->name() == wanted; });
    if (it == required.end()) {
      std::string names;
      for (const Value* v : required) names += (names.empty() ? "" : ", ") + v->name();
      throw ModelError("--input " + name + ": the model has no input of that name (its inputs: " + names + ")");
    }
    size_t i = static_cast<size_t>(it - required.begin());
    out[i] = ReadValueFile(file, required[i]->type());
    CheckAgainstDeclaration(*required[i], out[i], file);
    have[i] = true;
  }
  if (!spec.inputs_dir.empty()) {
    if (!fs::is_directory(spec.inputs_dir)) throw ModelError(spec.inputs_dir + ": not a directory");
    for (size_t i = 0; i < required.size(); ++i) {
      fs::path p = fs::path(spec.inputs_dir) / ("input_" + std::to_string(i) + ".pb");
      if (have[i] || !fs::exists(p)) continue;
      out[i] = ReadValueFile(p.string(), required[i]->type());
      CheckAgainstDeclaration(*required[i], out[i], p.string());
      have[i] = true;
    }
    fs::path extra = fs::path(spec.inputs_dir) / ("input_" + std::to_string(required.size()) + ".pb");
    if (fs::exists(extra))
      throw ModelError(extra.string() + ": extra input; the model takes " + std::to_string(required.size()) + " inputs");
  }
  for (size_t i = 0; i < required.size(); ++i) {
    const bool optional = required[i]->type().kind == Type::Kind::kOptional;
    if (!have[i] && !optional)
      throw ModelError("input '" + required[i]->name() + "' (input_" + std::to_string(i) + ".pb) is missing");
  }
  return out;
}

std::vector<RtValue> RandomInputs(const Graph& g, uint64_t seed, const std::map<std::string, int64_t>& dims) {
  std::mt19937_64 rng(seed);
  std::vector<RtValue> out;
  for (const Value* v : Executor::RequiredInputs(g)) {
    const Type& t = v->type();
    if (t.kind != Type::Kind::kTensor || !t.shape)
      throw UsageError("input '" + v->name() + "' is not a tensor of known rank; give it with --inputs-dir");
    std::vector<int64_t> shape;
    for (const Dim& d : t.shape->dims) {
      if (d.is_known()) shape.push_back(*d.value);
      else if (auto it = dims.find(d.symbol()); !d.symbol().empty() && it != dims.end()) shape.push_back(it->second);
      else throw UsageError("input '" + v->name() + "' has dimension '" + (d.symbol().empty() ? "?" : d.symbol()) +
                            "'; set it with --dim " + (d.symbol().empty() ? "NAME" : d.symbol()) + "=VALUE");
    }
    OutputTensor o = AllocateTensor(t.elem, shape);
    const int64_t n = o.tensor->num_elements();
    std::uniform_real_distribution<float> real(-1.0f, 1.0f);
    std::uniform_int_distribution<int> small(0, 9);
    auto fill = [&]<typename T>(auto gen) {
      T* p = reinterpret_cast<T*>(o.data);
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(gen());
    };
    switch (t.elem) {
      case DataType::kFloat: fill.template operator()<float>([&] { return real(rng); }); break;
      case DataType::kDouble: fill.template operator()<double>([&] { return real(rng); }); break;
      case DataType::kFloat16: fill.template operator()<Eigen::half>([&] { return Eigen::half(real(rng)); }); break;
      case DataType::kInt64: fill.template operator()<int64_t>([&] { return small(rng); }); break;
      case DataType::kInt32: fill.template operator()<int32_t>([&] { return small(rng); }); break;
      case DataType::kInt8: fill.template operator()<int8_t>([&] { return small(rng); }); break;
      case DataType::kUInt8: fill.template operator()<uint8_t>([&] { return small(rng); }); break;
      case DataType::kBool: fill.template operator()<uint8_t>([&] { return small(rng) % 2; }); break;
      default: throw UsageError("input '" + v->name() + "': cannot make up " + t.ToString() + " values; give it with --inputs-dir");
    }
    out.push_back(RtValue::Of(o.tensor));
  }
  return out;
}

}  // namespace kiln
