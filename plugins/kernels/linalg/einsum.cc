// Einsum (opset 12): the general equation. Each operand's repeated labels become diagonals, labels no one else
// needs are summed out early, and the operands are folded left to right, each pair as transposes around one
// batched GEMM ([batch, left, contracted] x [batch, contracted, right]). Ellipsis dims broadcast (right-aligned);
// a size-1 dim facing a larger one elsewhere is dropped from its operand, which is what broadcasting means here.
#include <kiln/kiln_plugin_parts.hpp>
#include "core/nn_util.h"

#include <map>
#include <set>

namespace kiln::kernels {
namespace {

using nn::Invalid;
using Labels = std::vector<int>;  // 0..51 letters, 100+ ellipsis dims

template <typename C>
struct Operand {
  std::vector<C> data;
  Dims dims;
  Labels labels;
};

// out[i] = src[sum_k idx_k * src_strides[k]] over the row-major index of out_dims.
template <typename C>
std::vector<C> StridedGather(const std::vector<C>& src, const Dims& out_dims, const Dims& src_strides) {
  const size_t n = out_dims.size();
  const int64_t count = NumElements(out_dims);
  std::vector<C> out(static_cast<size_t>(count));
  if (count == 0) return out;
  Dims idx(n, 0);
  int64_t off = 0;
  for (int64_t i = 0; i < count; ++i) {
    out[i] = src[off];
    for (size_t k = n; k-- > 0;) {
      off += src_strides[k];
      if (++idx[k] < out_dims[k]) break;
      off -= src_strides[k] * idx[k];
      idx[k] = 0;
    }
  }
  return out;
}

template <typename C>
void Permute(Operand<C>& t, const Labels& order) {
  if (order == t.labels) return;
  Dims strides = Strides(t.dims), od, os;
  for (int l : order) {
    size_t k = std::find(t.labels.begin(), t.labels.end(), l) - t.labels.begin();
    od.push_back(t.dims[k]);
    os.push_back(strides[k]);
  }
  t.data = StridedGather(t.data, od, os);
  t.dims = od;
  t.labels = order;
}

// Sums out the dim at position k.
template <typename C>
void SumOut(Operand<C>& t, size_t k) {
  int64_t outer = 1, inner = 1;
  for (size_t i = 0; i < k; ++i) outer *= t.dims[i];
  for (size_t i = k + 1; i < t.dims.size(); ++i) inner *= t.dims[i];
  const int64_t n = t.dims[k];
  std::vector<C> out(static_cast<size_t>(outer * inner), C(0));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < n; ++j) {
      const C* src = t.data.data() + (o * n + j) * inner;
      C* dst = out.data() + o * inner;
      for (int64_t i = 0; i < inner; ++i) dst[i] += src[i];
    }
  t.data = std::move(out);
  t.dims.erase(t.dims.begin() + k);
  t.labels.erase(t.labels.begin() + k);
}

// Makes each label appear once: a repeated label keeps the diagonal.
template <typename C>
void TakeDiagonals(Operand<C>& t) {
  for (size_t i = 0; i < t.labels.size(); ++i)
    for (size_t j = i + 1; j < t.labels.size();) {
      if (t.labels[j] != t.labels[i]) {
        ++j;
        continue;
      }
      if (t.dims[i] != t.dims[j]) Invalid("Einsum", "a repeated label has different dim sizes");
      Dims strides = Strides(t.dims);
      strides[i] += strides[j];
      strides.erase(strides.begin() + j);
      Dims od = t.dims;
      od.erase(od.begin() + j);
      t.data = StridedGather(t.data, od, strides);
      t.dims = od;
      t.labels.erase(t.labels.begin() + j);
    }
}

// Sums out the labels of t that are not in `keep`.
template <typename C>
void SumUnkept(Operand<C>& t, const std::set<int>& keep) {
  for (size_t k = t.labels.size(); k-- > 0;)
    if (!keep.count(t.labels[k])) SumOut(t, k);
}

template <typename C>
Operand<C> Contract(Operand<C> a, Operand<C> b, const std::set<int>& keep) {
  std::set<int> a_keep = keep, b_keep = keep;
  a_keep.insert(b.labels.begin(), b.labels.end());
  b_keep.insert(a.labels.begin(), a.labels.end());
  SumUnkept(a, a_keep);
  SumUnkept(b, b_keep);
  auto in = [](const Operand<C>& t, int l) { return std::find(t.labels.begin(), t.labels.end(), l) != t.labels.end(); };
  Labels batch, left, right, contracted;
  Dims bd, ld, rd;
  int64_t K = 1;
  for (size_t k = 0; k < a.labels.size(); ++k) {
    int l = a.labels[k];
    if (in(b, l)) {
      if (keep.count(l)) batch.push_back(l), bd.push_back(a.dims[k]);
      else contracted.push_back(l), K *= a.dims[k];
    } else {
      left.push_back(l), ld.push_back(a.dims[k]);
    }
  }
  for (size_t k = 0; k < b.labels.size(); ++k)
    if (!in(a, b.labels[k])) right.push_back(b.labels[k]), rd.push_back(b.dims[k]);
  Labels a_order = batch, b_order = batch;
  a_order.insert(a_order.end(), left.begin(), left.end());
  a_order.insert(a_order.end(), contracted.begin(), contracted.end());
  b_order.insert(b_order.end(), contracted.begin(), contracted.end());
  b_order.insert(b_order.end(), right.begin(), right.end());
  Permute(a, a_order);
  Permute(b, b_order);
  const int64_t nb = NumElements(bd), M = NumElements(ld), N = NumElements(rd);
  Operand<C> r;
  r.labels = batch;
  r.labels.insert(r.labels.end(), left.begin(), left.end());
  r.labels.insert(r.labels.end(), right.begin(), right.end());
  r.dims = bd;
  r.dims.insert(r.dims.end(), ld.begin(), ld.end());
  r.dims.insert(r.dims.end(), rd.begin(), rd.end());
  r.data.assign(static_cast<size_t>(nb * M * N), C(0));
  for (int64_t i = 0; i < nb; ++i)
    nn::Gemm<C>(false, false, M, N, K, C(1), a.data.data() + i * M * K, b.data.data() + i * K * N, C(0),
                r.data.data() + i * M * N);
  return r;
}

struct Equation {
  std::vector<Labels> inputs;
  Labels output;
};

int LetterLabel(char c) {
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= 'A' && c <= 'Z') return 26 + (c - 'A');
  Invalid("Einsum", std::string("bad character '") + c + "' in the equation");
}

// Parses one term; "..." stands for `ell` dims, labelled 100 + (max_ell - ell) .. 100 + max_ell - 1.
Labels ParseTerm(const std::string& term, int64_t rank, int64_t* ell_rank, int64_t max_ell) {
  Labels l;
  size_t dots = term.find("...");
  int64_t letters = static_cast<int64_t>(term.size()) - (dots == std::string::npos ? 0 : 3);
  int64_t ell = dots == std::string::npos ? 0 : (rank >= 0 ? rank - letters : max_ell);
  if (ell < 0 || (dots == std::string::npos && rank >= 0 && letters != rank))
    Invalid("Einsum", "term '" + term + "' does not match its input's rank " + std::to_string(rank));
  if (ell_rank) *ell_rank = ell;
  for (size_t i = 0; i < term.size(); ++i) {
    if (i == dots) {
      int64_t top = max_ell >= 0 ? max_ell : ell;
      for (int64_t e = top - ell; e < top; ++e) l.push_back(100 + static_cast<int>(e));
      i += 2;
    } else {
      l.push_back(LetterLabel(term[i]));
    }
  }
  return l;
}

Equation ParseEquation(std::string eq, const std::vector<sdk::TensorView>& ins) {
  eq.erase(std::remove_if(eq.begin(), eq.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
           eq.end());
  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t s = 0;;) {
    size_t c = lhs.find(',', s);
    terms.push_back(lhs.substr(s, c == std::string::npos ? std::string::npos : c - s));
    if (c == std::string::npos) break;
    s = c + 1;
  }
  if (terms.size() != ins.size())
    Invalid("Einsum", "the equation has " + std::to_string(terms.size()) + " terms for " +
                          std::to_string(ins.size()) + " inputs");
  std::vector<int64_t> ell(terms.size());
  int64_t max_ell = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    ParseTerm(terms[i], static_cast<int64_t>(ins[i].Rank()), &ell[i], -1);
    max_ell = std::max(max_ell, ell[i]);
  }
  Equation e;
  for (size_t i = 0; i < terms.size(); ++i) {
    // Re-parse with the common ellipsis rank so that ellipsis dims align on the right.
    Labels l;
    size_t dots = terms[i].find("...");
    for (size_t k = 0; k < terms[i].size(); ++k) {
      if (k == dots) {
        for (int64_t j = max_ell - ell[i]; j < max_ell; ++j) l.push_back(100 + static_cast<int>(j));
        k += 2;
      } else {
        l.push_back(LetterLabel(terms[i][k]));
      }
    }
    e.inputs.push_back(l);
  }
  if (arrow != std::string::npos) {
    e.output = ParseTerm(eq.substr(arrow + 2), -1, nullptr, max_ell);
  } else {
    for (int64_t j = 0; j < max_ell; ++j) e.output.push_back(100 + static_cast<int>(j));
    std::map<int, int> counts;
    for (const Labels& l : e.inputs)
      for (int x : l)
        if (x < 100) ++counts[x];
    for (auto [x, c] : counts)
      if (c == 1) e.output.push_back(x);
  }
  return e;
}

template <typename T>
void EinsumTyped(sdk::KernelContext& ctx, const std::vector<sdk::TensorView>& ins, const Equation& eq) {
  using C = Compute<T>;
  std::map<int, int64_t> size;
  for (size_t i = 0; i < ins.size(); ++i)
    for (size_t k = 0; k < eq.inputs[i].size(); ++k) {
      int64_t d = ins[i].Dims()[k];
      int64_t& s = size.try_emplace(eq.inputs[i][k], d).first->second;
      if (s == 1) s = d;
      else if (d != 1 && d != s) Invalid("Einsum", "a label has dim sizes " + std::to_string(s) + " and " + std::to_string(d));
    }
  for (int l : eq.output)
    if (!size.count(l)) Invalid("Einsum", "an output label appears in no input");
  std::vector<Operand<C>> ops(ins.size());
  for (size_t i = 0; i < ins.size(); ++i) {
    Operand<C>& t = ops[i];
    t.data = nn::Widen(nn::In<T>(ins[i]), ins[i].ElementCount());
    t.dims.assign(ins[i].Dims().begin(), ins[i].Dims().end());
    t.labels = eq.inputs[i];
    TakeDiagonals(t);
    for (size_t k = t.dims.size(); k-- > 0;)  // broadcast: drop a size-1 dim that is larger elsewhere
      if (t.dims[k] == 1 && size[t.labels[k]] != 1) {
        t.dims.erase(t.dims.begin() + k);
        t.labels.erase(t.labels.begin() + k);
      }
  }
  Operand<C> cur = std::move(ops[0]);
  for (size_t i = 1; i < ops.size(); ++i) {
    std::set<int> keep(eq.output.begin(), eq.output.end());
    for (size_t j = i + 1; j < ops.size(); ++j) keep.insert(ops[j].labels.begin(), ops[j].labels.end());
    cur = Contract(std::move(cur), std::move(ops[i]), keep);
  }
  SumUnkept(cur, std::set<int>(eq.output.begin(), eq.output.end()));
  Dims yd;
  for (int l : eq.output) yd.push_back(size[l]);
  for (int l : eq.output)  // an output label with size 1 that every operand dropped: add it back
    if (std::find(cur.labels.begin(), cur.labels.end(), l) == cur.labels.end()) {
      cur.labels.push_back(l);
      cur.dims.push_back(1);
    }
  Permute(cur, eq.output);
  sdk::MutableTensor Y = ctx.AllocOutput(0, ins[0].ElemType(), yd);
  if (static_cast<int64_t>(cur.data.size()) != Y.ElementCount()) Invalid("Einsum", "internal size mismatch");
  nn::Convert(cur.data.data(), nn::Out<T>(Y), Y.ElementCount());
}

void Einsum(sdk::KernelContext& ctx) {
  std::vector<sdk::TensorView> ins;
  for (size_t i = 0; i < ctx.InputCount(); ++i) ins.push_back(ctx.RequiredInput(i));
  if (ins.empty()) Invalid("Einsum", "no inputs");
  for (const auto& t : ins)
    if (t.ElemType() != ins[0].ElemType()) Invalid("Einsum", "inputs have different element types");
  Equation eq = ParseEquation(ctx.GetString("equation", ""), ins);
  Dispatch<kNumericTypes>(ins[0].ElemType(), [&]<typename T>() { EinsumTyped<T>(ctx, ins, eq); });
}

}  // namespace
}  // namespace kiln::kernels

KILN_PLUGIN_PART(Einsum) {
  using namespace kiln::kernels;
  reg.AddKernelFn({.op_type = "Einsum", .since_version = 12}, Einsum);
}
