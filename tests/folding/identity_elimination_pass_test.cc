// IdentityEliminationPass: one golden test (ONNX text before and after) per no-op form, the graph-output rule,
// and graphs it leaves alone (near-misses of each rule).
#include <gtest/gtest.h>

#include "folding_test_util.h"

namespace kiln {
namespace {

using kiln::testing::Canonical;
using kiln::testing::Counter;
using kiln::testing::ParseModel;
using kiln::testing::PrintGraph;
using kiln::testing::RunPasses;

constexpr const char* kPass = "IdentityEliminationPass";

std::string M(const std::string& graph, int opset = 17) {
  return "<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + "]>\n" + graph;
}

// `before` loses its no-op node `y0 = ...(x)`: the reader `y = Relu(y0)` reads x instead.
void ExpectRemoved(const std::string& inputs, const std::string& noop, const std::string& counter, int opset = 17) {
  SCOPED_TRACE(noop);
  auto m = ParseModel(M("g (" + inputs + ") => (y) {\n  " + noop + "\n  y = Relu(y0)\n}", opset));
  ASSERT_TRUE(m);
  auto run = RunPasses(*m, {kPass});
  EXPECT_TRUE(run.changed());
  EXPECT_EQ(Counter(run, kPass, counter), 1);
  EXPECT_EQ(PrintGraph(*m), Canonical(M("g (" + inputs + ") => (y) {\n  y = Relu(x)\n}", opset)));
}

void ExpectKept(const std::string& inputs, const std::string& node, int opset = 17) {
  SCOPED_TRACE(node);
  const std::string text = M("g (" + inputs + ") => (y) {\n  " + node + "\n  y = Relu(y0)\n}", opset);
  auto m = ParseModel(text);
  ASSERT_TRUE(m);
  auto run = RunPasses(*m, {kPass});
  EXPECT_FALSE(run.changed());
  EXPECT_EQ(PrintGraph(*m), Canonical(text));
}

TEST(IdentityEliminationPass, RemovesIdentity) { ExpectRemoved("float[2] x", "y0 = Identity(x)", "identities_removed"); }

TEST(IdentityEliminationPass, RemovesInferenceDropout) {
  ExpectRemoved("float[2] x", "y0 = Dropout(x)", "dropouts_removed");
  ExpectRemoved("float[2] x, float r", "y0, mask = Dropout(x, r)", "dropouts_removed");  // mask unused
  ExpectRemoved("float[2] x", "r = Constant <value = float {0.5}> ()\n  f = Constant <value = bool {0}> ()\n"
                "  y0 = Dropout(x, r, f)",
                "dropouts_removed");
}

TEST(IdentityEliminationPass, RemovesCastToItsOwnType) {
  ExpectRemoved("float[2] x", "y0 = Cast <to = 1> (x)", "casts_removed");
}

TEST(IdentityEliminationPass, RemovesReshapeToItsOwnShape) {
  ExpectRemoved("float[2,3] x", "s = Constant <value = int64[2] {2, 3}> ()\n  y0 = Reshape(x, s)", "reshapes_removed");
  // 0 copies the (symbolic) dimension, -1 takes the rest.
  ExpectRemoved("float[N,3] x", "s = Constant <value = int64[2] {0, -1}> ()\n  y0 = Reshape(x, s)",
                "reshapes_removed");
}

TEST(IdentityEliminationPass, RemovesIdentityTranspose) {
  ExpectRemoved("float[2,3,4] x", "y0 = Transpose <perm = [0, 1, 2]> (x)", "transposes_removed");
  ExpectRemoved("float[5] x", "y0 = Transpose(x)", "transposes_removed");
}

TEST(IdentityEliminationPass, RemovesExpandToItsOwnShape) {
  ExpectRemoved("float[2,3] x", "s = Constant <value = int64[2] {1, 3}> ()\n  y0 = Expand(x, s)", "expands_removed");
  ExpectRemoved("float[N,3] x", "s = Constant <value = int64[1] {1}> ()\n  y0 = Expand(x, s)", "expands_removed");
}

TEST(IdentityEliminationPass, RemovesFullRangeSlice) {
  ExpectRemoved("float[4,6] x",
                "b = Constant <value = int64[2] {0, -100}> ()\n  e = Constant <value = int64[2] {4, 9223372036854775807}> ()\n"
                "  y0 = Slice(x, b, e)",
                "slices_removed");
  ExpectRemoved("float[N,6] x",
                "b = Constant <value = int64[1] {0}> ()\n  e = Constant <value = int64[1] {9223372036854775807}> ()\n"
                "  a = Constant <value = int64[1] {0}> ()\n  st = Constant <value = int64[1] {1}> ()\n"
                "  y0 = Slice(x, b, e, a, st)",
                "slices_removed");
  ExpectRemoved("float[4,6] x", "y0 = Slice <starts = [0], ends = [6], axes = [1]> (x)", "slices_removed", 9);
}

TEST(IdentityEliminationPass, RemovesZeroPad) {
  ExpectRemoved("float[2,3] x", "p = Constant <value = int64[4] {0, 0, 0, 0}> ()\n  y0 = Pad <mode = \"reflect\"> (x, p)",
                "pads_removed");
  ExpectRemoved("float[2,3] x", "y0 = Pad <pads = [0, 0, 0, 0]> (x)", "pads_removed", 10);
}

TEST(IdentityEliminationPass, KeepsANoOpWhoseOutputIsAGraphOutput) {
  const std::string text = M("g (float[2] x) => (y) {\n  y = Identity(x)\n}");
  auto m = ParseModel(text);
  ASSERT_TRUE(m);
  EXPECT_FALSE(RunPasses(*m, {kPass}).changed());
  EXPECT_EQ(PrintGraph(*m), Canonical(text));
}

TEST(IdentityEliminationPass, ChangesNothingWhenNoNodeIsANoOp) {
  ExpectKept("float[2] x, float r", "y0, mask = Dropout(x, r)\n  z = Relu(mask)");  // mask used
  ExpectKept("float[2] x, float r", "t = Constant <value = bool {1}> ()\n  y0 = Dropout(x, r, t)");  // training
  ExpectKept("float[2] x, float r, bool t", "y0 = Dropout(x, r, t)");  // maybe training
  ExpectKept("float[2] x", "y0 = Cast <to = 11> (x)");
  ExpectKept("float[2,3] x", "s = Constant <value = int64[2] {3, 2}> ()\n  y0 = Reshape(x, s)");
  ExpectKept("float[N,3] x", "s = Constant <value = int64[2] {2, 3}> ()\n  y0 = Reshape(x, s)");
  ExpectKept("float[2,3] x, int64[2] s", "y0 = Reshape(x, s)");
  ExpectKept("float[2,3] x", "y0 = Transpose <perm = [1, 0]> (x)");
  ExpectKept("float[2,3] x", "y0 = Transpose(x)");
  ExpectKept("float[N,3] x", "s = Constant <value = int64[2] {2, 3}> ()\n  y0 = Expand(x, s)");
  ExpectKept("float[1,3] x", "s = Constant <value = int64[2] {2, 3}> ()\n  y0 = Expand(x, s)");
  ExpectKept("float[3] x", "s = Constant <value = int64[2] {1, 3}> ()\n  y0 = Expand(x, s)");
  ExpectKept("float[4,6] x",
             "b = Constant <value = int64[1] {1}> ()\n  e = Constant <value = int64[1] {6}> ()\n"
             "  a = Constant <value = int64[1] {1}> ()\n  y0 = Slice(x, b, e, a)");
  ExpectKept("float[N,6] x",
             "b = Constant <value = int64[1] {0}> ()\n  e = Constant <value = int64[1] {100}> ()\n  y0 = Slice(x, b, e)");
  ExpectKept("float[4,6] x",
             "b = Constant <value = int64[1] {0}> ()\n  e = Constant <value = int64[1] {6}> ()\n"
             "  a = Constant <value = int64[1] {1}> ()\n  st = Constant <value = int64[1] {2}> ()\n"
             "  y0 = Slice(x, b, e, a, st)");
  ExpectKept("float[2,3] x", "p = Constant <value = int64[4] {0, 1, 0, 0}> ()\n  y0 = Pad(x, p)");
}

}  // namespace
}  // namespace kiln
