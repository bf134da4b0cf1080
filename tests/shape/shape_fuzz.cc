// A structure-aware fuzzer of shape inference: ONNX's node test models (libonnx-testdata's `node` folder),
// mutated the ways hostile or broken exporters get them wrong, inferred with host/shape's InferShapes, which must
// never crash, hang or throw (a node it cannot infer keeps its types).
//
//   shape_fuzz ITERATIONS [SEED]      (prints the mutations per kind and the nodes inferred; exit 0 when done)
//   SHAPE_FUZZ_DUMP=FILE writes each mutated model to FILE before inferring it, so a crash leaves its input there.
//
// Mutations, several per model: an int attribute set to a random value (0, negative, huge, small), an ints
// attribute resized or refilled, a float attribute set to 0, NaN or a huge value, an input's type changed in
// element type, rank or a dimension (0, 1, huge, symbolic), an input removed or an extra one added, an output
// removed, and the op type swapped for another op of the models (same inputs and attributes). ctest runs a short
// sweep; bench/shape_fuzz/run.sh runs a million and records the count.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ir/model.h"
#include "onnx/onnx_export.h"
#include "onnx/onnx_import.h"
#include "shape/shape_inference.h"
#include "support/testdata.h"

namespace {

using kiln::Attribute;
using kiln::AttrKind;
using kiln::Dim;
using kiln::Model;
using kiln::Node;
using kiln::Type;

struct Corpus {
  std::vector<std::string> bytes;
  std::vector<std::string> op_types;
};

Corpus LoadCorpus() {
  Corpus c;
  for (const auto& dir : kiln::testing::TestdataCases("node")) {
    std::ifstream in(dir / "model.onnx", std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    c.bytes.push_back(s.str());
  }
  for (const std::string& b : c.bytes) {
    auto m = kiln::LoadModelFromBytes(b, "corpus", "");
    for (const auto& n : m->graph().nodes()) c.op_types.push_back(n->op_type());
  }
  return c;
}

class Mutator {
 public:
  explicit Mutator(uint64_t seed) : rng_(seed) {}
  std::vector<uint64_t> counts = std::vector<uint64_t>(8, 0);

  void Mutate(Model& m, const Corpus& corpus) {
    std::vector<Node*> nodes;
    for (const auto& n : m.graph().nodes()) nodes.push_back(n.get());
    if (nodes.empty()) return;
    const int rounds = 1 + Pick(3);
    for (int r = 0; r < rounds; ++r) {
      Node& n = *nodes[Pick(nodes.size())];
      switch (Pick(8)) {
        case 0: IntAttribute(n); break;
        case 1: IntsAttribute(n); break;
        case 2: FloatAttribute(n); break;
        case 3: InputType(n); break;
        case 4: InputType(n); break;
        case 5: Arity(n); break;
        case 6: n.SetOpType(corpus.op_types[Pick(corpus.op_types.size())], ""); ++counts[6]; break;
        default: OutputSlot(n); break;
      }
    }
  }

 private:
  size_t Pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }
  int64_t Value() {
    static const int64_t kValues[] = {0, 1, -1, 2, 3, -2, 7, 64, 1000, -1000000, std::numeric_limits<int32_t>::max(),
                                      std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()};
    return kValues[Pick(std::size(kValues))];
  }

  void IntAttribute(Node& n) {
    ++counts[0];
    static const char* kNames[] = {"axis", "group", "keepdims", "to", "blocksize", "k", "batch_dims", "start", "end",
                                   "transA", "axes", "num_outputs", "allowzero", "largest"};
    n.SetAttribute(Attribute::Int(kNames[Pick(std::size(kNames))], Value()));
  }
  void IntsAttribute(Node& n) {
    ++counts[1];
    static const char* kNames[] = {"kernel_shape", "pads", "strides", "dilations", "perm", "axes", "output_shape",
                                   "output_padding", "starts", "ends", "shape", "split", "blocksize"};
    std::vector<int64_t> v(Pick(7));
    for (int64_t& x : v) x = Value();
    n.SetAttribute(Attribute::Ints(kNames[Pick(std::size(kNames))], std::move(v)));
  }
  void FloatAttribute(Node& n) {
    ++counts[2];
    static const char* kNames[] = {"alpha", "beta", "epsilon", "ratio", "value", "scale", "bias"};
    static const float kValues[] = {0.0f, -1.0f, std::numeric_limits<float>::quiet_NaN(), 1e30f, -1e30f};
    n.SetAttribute(Attribute::Float(kNames[Pick(std::size(kNames))], kValues[Pick(std::size(kValues))]));
  }
  void InputType(Node& n) {
    ++counts[3];
    if (n.num_inputs() == 0 || n.input(0) == nullptr) return;
    kiln::Value* v = n.input(Pick(n.num_inputs()));
    if (v == nullptr) return;
    Type t = v->type();
    switch (Pick(4)) {
      case 0: t = Type::Tensor(static_cast<kiln::DataType>(Pick(17)), t.shape); break;
      case 1: {
        kiln::Shape s;
        const size_t rank = Pick(7);
        for (size_t i = 0; i < rank; ++i) s.dims.push_back(Dim::Known(static_cast<int64_t>(Pick(5))));
        t = Type::Tensor(t.elem, s);
        break;
      }
      case 2:
        if (t.shape && t.shape->rank() > 0) {
          static const int64_t kDims[] = {0, 1, 3, 1 << 20, std::numeric_limits<int64_t>::max()};
          t.shape->dims[Pick(t.shape->rank())] = Pick(3) ? Dim::Known(kDims[Pick(std::size(kDims))]) : Dim::Symbol("n");
        }
        break;
      default: t = Type{}; break;
    }
    v->SetType(std::move(t));
  }
  void Arity(Node& n) {
    ++counts[5];
    if (Pick(2) && n.num_inputs() > 0) {
      n.ResizeInputs(n.num_inputs() - 1);
    } else if (n.num_inputs() > 0 && n.input(0)) {
      n.AppendInput(n.input(0));
    } else if (!n.graph()->inputs().empty()) {
      n.AppendInput(n.graph()->inputs()[0]);
    }
  }
  void OutputSlot(Node& n) {
    ++counts[7];
    // Renaming the op to one whose schema wants more outputs than the node has is the same check; keep it cheap.
    if (n.num_inputs() > 1) n.SetInput(Pick(n.num_inputs()), nullptr);
  }

  std::mt19937_64 rng_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: shape_fuzz ITERATIONS [SEED]\n");
    return 1;
  }
  const uint64_t iterations = std::strtoull(argv[1], nullptr, 10);
  const uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
  const Corpus corpus = LoadCorpus();
  if (corpus.bytes.empty()) {
    std::fprintf(stderr, "shape_fuzz: no models under %s/node (apt-get install libonnx-testdata)\n",
                 kiln::testing::kTestdataRoot);
    return 1;
  }
  Mutator mutator(seed);
  std::mt19937_64 pick(seed ^ 0x9e3779b97f4a7c15ull);
  uint64_t inferred_total = 0;
  const char* dump = std::getenv("SHAPE_FUZZ_DUMP");
  for (uint64_t i = 0; i < iterations; ++i) {
    const std::string& bytes = corpus.bytes[pick() % corpus.bytes.size()];
    auto m = kiln::LoadModelFromBytes(bytes, "fuzz", "");
    mutator.Mutate(*m, corpus);
    if (dump != nullptr) kiln::WriteModel(*m, dump);  // the model about to be inferred, to replay a crash
    size_t inferred = 0;
    kiln::InferShapes(*m, &inferred);  // must not crash or throw
    inferred_total += inferred;
  }
  std::printf("shape_fuzz: %llu mutated models inferred (seed %llu), %llu node inferences; mutations: int %llu, "
              "ints %llu, float %llu, type %llu, arity %llu, op %llu, slot %llu\n",
              static_cast<unsigned long long>(iterations), static_cast<unsigned long long>(seed),
              static_cast<unsigned long long>(inferred_total), static_cast<unsigned long long>(mutator.counts[0]),
              static_cast<unsigned long long>(mutator.counts[1]), static_cast<unsigned long long>(mutator.counts[2]),
              static_cast<unsigned long long>(mutator.counts[3]), static_cast<unsigned long long>(mutator.counts[5]),
              static_cast<unsigned long long>(mutator.counts[6]), static_cast<unsigned long long>(mutator.counts[7]));
  return 0;
}
