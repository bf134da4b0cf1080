#include "kernels/kernel_registry.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "ir/node.h"
#include "support/error.h"

namespace kiln {

OutputTensor AllocateTensor(DataType type, std::vector<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) throw ModelError("cannot allocate a tensor with dims of overflowing size");
  }
  if (type == DataType::kString) {
    auto t = std::make_shared<Tensor>(Tensor::FromStrings(std::move(dims), std::vector<std::string>(static_cast<size_t>(n))));
    return {t, nullptr};
  }
  size_t bytes = static_cast<size_t>(n) * ElementSize(type);
  auto buffer = Buffer::Zeros(bytes);
  auto* data = const_cast<std::byte*>(buffer->data());
  return {std::make_shared<const Tensor>(type, std::move(dims), std::move(buffer)), data};
}

const RtValue& KernelCall::input(size_t i) const {
  static const RtValue kNone;
  return i < inputs_.size() ? inputs_[i] : kNone;
}

const Tensor& KernelCall::tensor(size_t i) const {
  const RtValue& v = input(i);
  if (!v.is_tensor())
    throw ModelError("node '" + node_.name() + "' (" + node_.op_type() + "): input " + std::to_string(i) +
                     " is " + (v.is_none() ? "missing" : "not a tensor"));
  return *v.tensor;
}

std::byte* KernelCall::AllocateOutput(size_t i, DataType type, std::vector<int64_t> dims) {
  OutputTensor o = AllocateTensor(type, std::move(dims));
  outputs_.at(i) = RtValue::Of(o.tensor);
  return o.data;
}

void KernelCall::SetOutput(size_t i, RtValue v) { outputs_.at(i) = std::move(v); }

void KernelRegistry::Add(KernelDef def) {
  auto& list = kernels_[Key{def.domain == "ai.onnx" ? "" : def.domain, def.op_type}];
  // Plugin kernels before built-ins; within a level, first registered first.
  auto pos = std::find_if(list.begin(), list.end(), [&](const KernelDef& k) { return k.level > def.level; });
  list.insert(pos, std::move(def));
}

namespace {

DataType FirstTensorType(const KernelCall& call) {
  for (size_t i = 0; i < call.num_inputs(); ++i) {
    const RtValue& v = call.input(i);
    if (v.is_tensor()) return v.tensor->type();
    if (v.kind == RtValue::Kind::kSequence) return v.sequence_elem;
  }
  return DataType::kUndefined;
}

}  // namespace

bool KernelRegistry::Compute(KernelCall& call, std::string* why) const {
  const Node& n = call.node();
  auto it = kernels_.find(Key{n.domain() == "ai.onnx" ? "" : n.domain(), n.op_type()});
  std::string tried;
  if (it != kernels_.end()) {
    DataType t = FirstTensorType(call);
    for (const KernelDef& k : it->second) {
      if (call.opset() < k.since || call.opset() > k.until) continue;
      if (!k.types.empty() && t != DataType::kUndefined && std::find(k.types.begin(), k.types.end(), t) == k.types.end())
        continue;
      auto t0 = std::chrono::steady_clock::now();
      KernelResult r = k.fn(call);
      double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      {
        std::lock_guard<std::mutex> lock(stats_mu_);
        KernelStats& s = stats_[{static_cast<int>(k.level), n.op_type()}];
        ++s.calls;
        s.seconds += secs;
        if (r == KernelResult::kUnsupported) ++s.unsupported;
      }
      if (r == KernelResult::kDone) return true;
      tried += (tried.empty() ? "" : ", ") + k.owner;
      for (auto& o : call.outputs()) o = RtValue::None();
    }
  }
  if (why) {
    *why = tried.empty() ? "no kernel for " + (n.domain().empty() ? std::string() : n.domain() + ".") + n.op_type() +
                               " at opset " + std::to_string(call.opset()) + " and element type " +
                               std::string(DataTypeName(FirstTensorType(call)))
                         : "the kernels of " + tried + " answered unsupported for " + n.op_type();
  }
  return false;
}

bool KernelRegistry::Has(std::string_view domain, std::string_view op_type, int64_t opset) const {
  auto it = kernels_.find(Key{std::string(domain == "ai.onnx" ? "" : domain), std::string(op_type)});
  if (it == kernels_.end()) return false;
  return std::any_of(it->second.begin(), it->second.end(),
                     [&](const KernelDef& k) { return opset >= k.since && opset <= k.until; });
}

bool KernelRegistry::IsDeterministic(std::string_view domain, std::string_view op_type, int64_t opset) const {
  auto it = kernels_.find(Key{std::string(domain == "ai.onnx" ? "" : domain), std::string(op_type)});
  if (it == kernels_.end()) return false;
  for (const KernelDef& k : it->second)
    if (opset >= k.since && opset <= k.until && !k.deterministic) return false;
  return true;
}

nlohmann::json KernelRegistry::StatsJson() const {
  std::lock_guard<std::mutex> lock(stats_mu_);
  nlohmann::json j = {{"plugin", nlohmann::json::object()}, {"builtin", nlohmann::json::object()}};
  for (const auto& [key, s] : stats_) {
    j[key.first == 0 ? "plugin" : "builtin"][key.second] = {
        {"calls", s.calls}, {"unsupported", s.unsupported}, {"seconds", s.seconds}};
  }
  return j;
}

void KernelRegistry::ResetStats() const {
  std::lock_guard<std::mutex> lock(stats_mu_);
  stats_.clear();
}

}  // namespace kiln
