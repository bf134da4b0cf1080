// warm_compile: compiles one model RUNS times in one process through the embedding API (kiln/kiln.h), the way a
// compile server or an application embedding Kiln would, and prints the time of each build. ONNX Runtime's session
// creation, the peer of bench/compile/run.sh, is also timed inside a running process; `kiln compile` pays the
// process's start (loader, libraries' constructors, plugins) on every file, which this leaves out.
//
//   bench_warm_compile MODEL.onnx RUNS [LEVEL]      (LEVEL: O0..O3, default O2)
//
// Prints "session_ms=... first_ms=... warm_median_ms=... warm_min_ms=... nodes=A->B bytes=N": the session's
// creation (plugins loaded, registries built), the first build (the ONNX schemas and the plugins' lazy state are
// built there), and the median and minimum of the later builds. A build here ends with the optimised model
// serialized in memory (BuildResult::model_bytes), where `kiln compile` writes it to a file.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "kiln/kiln.h"

namespace {

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

int Fail(const kiln::Status& s) {
  std::cerr << "bench_warm_compile: " << s.ToString() << "\n";
  return s.exit_code();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: bench_warm_compile MODEL.onnx RUNS [LEVEL]\n";
    return 1;
  }
  const std::string model = argv[1];
  const int runs = std::atoi(argv[2]);
  const std::string level = argc > 3 ? argv[3] : "O2";
  if (runs < 2) {
    std::cerr << "bench_warm_compile: RUNS must be at least 2 (the first build is reported apart)\n";
    return 1;
  }

  auto start = Clock::now();
  std::unique_ptr<kiln::Session> session;
  kiln::Status s = kiln::Session::Create({{"oo.level", level}}, /*plugins=*/{}, &session);
  if (!s.ok()) return Fail(s);
  const double session_ms = MsSince(start);

  std::vector<double> warm;
  double first_ms = 0;
  kiln::BuildResult result;
  for (int i = 0; i < runs; ++i) {
    result = {};  // the previous build's bytes are freed untimed
    start = Clock::now();
    s = session->BuildModel(model, {}, &result);
    const double ms = MsSince(start);
    if (!s.ok()) return Fail(s);
    if (i == 0)
      first_ms = ms;
    else
      warm.push_back(ms);
  }
  std::sort(warm.begin(), warm.end());
  const size_t n = warm.size();
  const double median = n % 2 ? warm[n / 2] : (warm[n / 2 - 1] + warm[n / 2]) / 2;
  std::printf("session_ms=%.2f first_ms=%.2f warm_median_ms=%.2f warm_min_ms=%.2f nodes=%zu->%zu bytes=%zu\n",
              session_ms, first_ms, median, warm.front(), result.nodes_before, result.nodes_after,
              result.model_bytes.size());
  s = session->Finalize();
  return s.ok() ? 0 : Fail(s);
}
