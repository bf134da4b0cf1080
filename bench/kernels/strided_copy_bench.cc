// StridedCopy transposing a 2-D float tensor (what folding Transpose(W) into a MatMul's weight does), beside
// memcpy of the same bytes, the bound a transpose can approach. Shapes from the bench models: LLaMA's 4096 x 4096
// and 4096 x 11008 projections, BERT's 768 x 3072, and one that is no power of two. The source sits one byte off
// alignment, as a weight can in a model file.
//   build/bench/kernels/bench_strided_copy --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/tensor_util.h"

namespace {

struct Source {
  std::vector<std::byte> bytes;
  std::vector<uint32_t> out;
  const std::byte* data() const { return bytes.data() + 1; }
};

Source MakeSource(int64_t rows, int64_t cols) {
  Source s;
  const size_t n = static_cast<size_t>(rows * cols);
  s.bytes.resize(n * sizeof(uint32_t) + 1);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t v = static_cast<uint32_t>(i * 2654435761u);
    std::memcpy(s.bytes.data() + 1 + i * sizeof v, &v, sizeof v);
  }
  s.out.resize(n);
  return s;
}

// Source rows x cols, dense; out cols x rows.
void BM_Transpose(benchmark::State& state) {
  const int64_t rows = state.range(0), cols = state.range(1);
  Source s = MakeSource(rows, cols);
  const std::vector<int64_t> dims = {cols, rows}, strides = {1, cols};
  for (auto _ : state) {
    kiln::kernels::tx::StridedCopy(s.data(), 0, dims, strides, s.out.data());
    benchmark::DoNotOptimize(s.out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * rows * cols * 4);
}

void BM_Memcpy(benchmark::State& state) {
  const int64_t rows = state.range(0), cols = state.range(1);
  Source s = MakeSource(rows, cols);
  for (auto _ : state) {
    std::memcpy(s.out.data(), s.data(), s.out.size() * sizeof(uint32_t));
    benchmark::DoNotOptimize(s.out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * rows * cols * 4);
}

void Shapes(benchmark::internal::Benchmark* b) {
  for (auto [r, c] : {std::pair<int64_t, int64_t>{4096, 4096}, {4096, 11008}, {768, 3072}, {1000, 1000}})
    b->Args({r, c});
  b->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_Transpose)->Apply(Shapes);
BENCHMARK(BM_Memcpy)->Apply(Shapes);

}  // namespace
