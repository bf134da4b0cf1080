#include "exec/compare.h"

#include <Eigen/Core>
#include <cmath>

#include "exec/value_io.h"

namespace kiln {
namespace {

// Element k of a tensor as double, for every numeric element type.
double At(const Tensor& t, size_t k) {
  switch (t.type()) {
    case DataType::kFloat: return t.values<float>()[k];
    case DataType::kDouble: return t.values<double>()[k];
    case DataType::kFloat16: return static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(t.values<uint16_t>()[k]));
    case DataType::kBFloat16:
      return static_cast<float>(Eigen::numext::bit_cast<Eigen::bfloat16>(t.values<uint16_t>()[k]));
    case DataType::kInt8: return t.values<int8_t>()[k];
    case DataType::kUInt8:
    case DataType::kBool: return t.values<uint8_t>()[k];
    case DataType::kInt16: return t.values<int16_t>()[k];
    case DataType::kUInt16: return t.values<uint16_t>()[k];
    case DataType::kInt32: return t.values<int32_t>()[k];
    case DataType::kUInt32: return t.values<uint32_t>()[k];
    case DataType::kInt64: return static_cast<double>(t.values<int64_t>()[k]);
    case DataType::kUInt64: return static_cast<double>(t.values<uint64_t>()[k]);
    case DataType::kComplex64: return t.values<float>()[k];
    case DataType::kComplex128: return t.values<double>()[k];
    default: return 0;
  }
}

size_t Scalars(const Tensor& t) {
  size_t n = static_cast<size_t>(t.num_elements());
  return t.type() == DataType::kComplex64 || t.type() == DataType::kComplex128 ? 2 * n : n;
}

bool IsFloat(DataType t) {
  return t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16 || t == DataType::kBFloat16 ||
         t == DataType::kComplex64 || t == DataType::kComplex128;
}

Comparison CompareTensors(const Tensor& e, const Tensor& a, double rtol, double atol) {
  Comparison c;
  if (e.type() != a.type()) {
    c.match = false;
    c.message = "type " + std::string(DataTypeName(a.type())) + ", expected " + std::string(DataTypeName(e.type()));
    return c;
  }
  if (e.dims() != a.dims()) {
    c.match = false;
    c.message = "shape " + Describe(RtValue::Of(std::make_shared<const Tensor>(a))) + ", expected " +
                Describe(RtValue::Of(std::make_shared<const Tensor>(e)));
    return c;
  }
  if (e.type() == DataType::kString) {
    for (size_t k = 0; k < e.strings().size(); ++k)
      if (e.strings()[k] != a.strings()[k]) {
        c.match = false;
        c.worst_index = static_cast<int64_t>(k);
        c.message = "element " + std::to_string(k) + " is '" + a.strings()[k] + "', expected '" + e.strings()[k] + "'";
        return c;
      }
    return c;
  }
  const bool fp = IsFloat(e.type());
  double worst_excess = -1;
  for (size_t k = 0, n = Scalars(e); k < n; ++k) {
    double x = At(e, k), y = At(a, k);
    if (std::isnan(x) && std::isnan(y)) continue;
    if (std::isinf(x) && x == y) continue;
    double diff = std::fabs(x - y);
    double allowed = fp ? atol + rtol * std::fabs(x) : 0;
    double excess = std::isnan(diff) ? 1e300 : diff - allowed;
    if (excess > worst_excess || c.worst_index < 0) {
      worst_excess = excess;
      c.worst_index = static_cast<int64_t>(k);
      c.worst_abs = diff;
      c.worst_rel = x != 0 ? diff / std::fabs(x) : diff;
      c.expected_at_worst = x;
      c.actual_at_worst = y;
    }
    if (excess > 0) c.match = false;
  }
  if (c.worst_index >= 0)
    c.message = "worst element " + std::to_string(c.worst_index) + ": " + std::to_string(c.actual_at_worst) +
                " vs expected " + std::to_string(c.expected_at_worst) + " (abs diff " + std::to_string(c.worst_abs) + ")";
  return c;
}

}  // namespace

Comparison CompareValues(const RtValue& expected, const RtValue& actual, double rtol, double atol) {
  Comparison c;
  if (expected.kind != actual.kind) {
    c.match = false;
    c.message = "got " + Describe(actual) + ", expected " + Describe(expected);
    return c;
  }
  if (expected.is_tensor()) return CompareTensors(*expected.tensor, *actual.tensor, rtol, atol);
  if (expected.kind == RtValue::Kind::kSequence) {
    if (expected.sequence.size() != actual.sequence.size()) {
      c.match = false;
      c.message = "sequence of " + std::to_string(actual.sequence.size()) + ", expected " +
                  std::to_string(expected.sequence.size());
      return c;
    }
    for (size_t i = 0; i < expected.sequence.size(); ++i) {
      Comparison e = CompareTensors(*expected.sequence[i], *actual.sequence[i], rtol, atol);
      if (!e.match) {
        e.message = "sequence element " + std::to_string(i) + ": " + e.message;
        return e;
      }
    }
  }
  return c;
}

}  // namespace kiln
