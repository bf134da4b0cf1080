// Fuzz harness: a fusion rule pack (YAML) reaching the fusion plugin the way `kiln compile --fusion-pack FILE`
// does: through the embedding API (kiln/kiln.h), as the fusion.packs option of a build, with the shipped packs
// off. The pack parser lives in the fusion plugin, so it is reached through the host and the plugin ABI. Each
// input is written to a file of its own (the plugin caches packs by path and time) and a small model that the
// usual rules match is compiled by a pipeline of InferShapePass and PatternFusionPass, strictly, so a bad pack
// ends the build with its status. A crash, a sanitizer report or an internal error (status code 5: an exception
// that is no kiln error, or a broken graph after fusion) is a bug.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "fuzz_support.h"
#include "kiln/kiln.h"
#include "support/logging.h"

namespace {

namespace fs = std::filesystem;

// MatMul+Add (constant weights)+Relu, x*sigmoid(x), a transpose pair, Softmax and LayerNormalization-like arithmetic: something for
// the rules of configs/fusion to match.
constexpr const char* kModel = R"(
<ir_version: 8, opset_import: ["" : 17]>
fuzz (float[2,4,8] x) => (float[2,4,8] y, float[2,4,8] z)
  <float[8,8] w = {-0.5, -0.3125, -0.125, 0.0625, 0.25, 0.4375, -0.4375, -0.25,
      -0.0625, 0.125, 0.3125, 0.5, -0.375, -0.1875, 0, 0.1875,
      0.375, -0.5, -0.3125, -0.125, 0.0625, 0.25, 0.4375, -0.4375,
      -0.25, -0.0625, 0.125, 0.3125, 0.5, -0.375, -0.1875, 0,
      0.1875, 0.375, -0.5, -0.3125, -0.125, 0.0625, 0.25, 0.4375,
      -0.4375, -0.25, -0.0625, 0.125, 0.3125, 0.5, -0.375, -0.1875,
      0, 0.1875, 0.375, -0.5, -0.3125, -0.125, 0.0625, 0.25,
      0.4375, -0.4375, -0.25, -0.0625, 0.125, 0.3125, 0.5, -0.375},
   float[8] b = {-0.375, 0.25, 0, -0.25, 0.375, 0.125, -0.125, -0.375}>
{
  m = MatMul(x, w)
  a = Add(m, b)
  r = Relu(a)
  s = Sigmoid(r)
  g = Mul(r, s)
  t = Transpose<perm = [0, 2, 1]>(g)
  u = Transpose<perm = [0, 2, 1]>(t)
  y = Softmax<axis = -1>(u)
  mean = ReduceMean<axes = [-1]>(y)
  d = Sub(y, mean)
  d2 = Mul(d, d)
  var = ReduceMean<axes = [-1]>(d2)
  e = Constant<value = float {0.00001}>()
  ve = Add(var, e)
  sd = Sqrt(ve)
  n = Div(d, sd)
  h = Erf(n)
  z = Tanh(h)
}
)";

constexpr const char* kPipeline = R"(level: O2
description: fuzzing fusion packs
plugins: [folding, fusion]
stages:
  - name: Autofuse
    passes:
      - InferShapePass
      - PatternFusionPass
)";

struct Setup {
  fs::path dir;
  std::string model;
  std::unique_ptr<kiln::Session> session;
};

Setup& Shared() {
  static Setup* setup = [] {
    kiln::SetLogLevel("off");
    auto* s = new Setup();
    s->dir = fs::temp_directory_path() / ("kiln-fuzz-pack-" + std::to_string(getpid()));
    fs::create_directories(s->dir);
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(Shared().dir, ec);
    });
    std::ofstream(s->dir / "pipeline.yaml") << kPipeline;
    s->model = kiln::fuzz::ModelBytesFromText(kModel);
    kiln::SessionConfig config;
    config.pipeline_file = (s->dir / "pipeline.yaml").string();
    config.strict = true;
    kiln::Status st = kiln::Session::Create(config, &s->session);
    if (!st.ok()) kiln::fuzz::Fail("Session::Create", st.ToString());
    // The model compiles without a pack of ours.
    kiln::BuildResult result;
    st = s->session->BuildModelFromBytes(s->model, {{"fusion.builtinPacks", "true"}}, &result, "fuzz.onnx");
    if (!st.ok()) kiln::fuzz::Fail("the fusion harness's own model", st.ToString());
    return s;
  }();
  return *setup;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > kiln::fuzz::kMaxInputBytes) return -1;
  Setup& s = Shared();
  static uint64_t counter = 0;
  fs::path pack = s.dir / ("pack-" + std::to_string(counter++) + ".yaml");
  {
    std::ofstream out(pack, std::ios::binary);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  kiln::BuildResult result;
  kiln::Status st = s.session->BuildModelFromBytes(
      s.model, {{"fusion.packs", pack.string()}, {"fusion.builtinPacks", "false"}}, &result, "fuzz.onnx");
  std::error_code ec;
  fs::remove(pack, ec);
  if (kiln::fuzz::Verbose()) 
    std::fprintf(stderr, "fusion_pack: %s, %zu -> %zu nodes\n", st.ToString().c_str(), result.nodes_before,
                 result.nodes_after);
  if (st.code() == kiln::StatusCode::kInternal) kiln::fuzz::Fail("a fusion pack", st.ToString());
  return 0;
}
