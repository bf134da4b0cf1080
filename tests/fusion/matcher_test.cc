// The matcher (plugins/fusion/matcher.cc) on small rules of a pack of the test's own (fusion.builtinPacks off):
// it revisits an early choice (an operand order, an alternative) when something later does not fit it, a
// predicate included; and an optional node at a pattern's root may be absent, but when it is there the match
// includes it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "fusion/fusion_test_util.h"
#include "fusion/golden_case.h"
#include "support/golden.h"

namespace kiln::testing {
namespace {
namespace fs = std::filesystem;

// Runs pattern fusion with only `pack_yaml`'s rules.
class MatcherTest : public ::testing::Test {
 protected:
  nlohmann::json Run(Model& m, const std::string& pack_yaml) {
    std::ofstream(pack_) << pack_yaml;
    return RunPatternFusion(m, {{"fusion.builtinPacks", "false"}, {"fusion.packs", pack_.string()}});
  }
  void TearDown() override { fs::remove(pack_); }
  fs::path pack_ = fs::temp_directory_path() / ("kiln_matcher_test_" + std::to_string(::getpid()) + ".yaml");
};

std::string Rule(const std::string& body) { return "pack: t\nrules:\n  - name: r\n" + body; }

TEST_F(MatcherTest, RevisitsAnOperandOrderWhenALaterOperandDoesNotFit) {
  // Mul(x, y) first binds x = a, y = b; Neg(x) then reads b: only the other order fits.
  auto m = ParseModel(OnnxModel(R"(g (float[2] a, float[2] b) => (float[2] z) {
    p = Mul(a, b)
    n = Neg(b)
    z = Add(p, n)
  })"));
  ASSERT_TRUE(m);
  auto report = Run(*m, Rule("    pattern: Add(Mul(x, y), Neg(x))\n    fuse: T\n"));
  ASSERT_EQ(CandidatesOf(report, "r").size(), 1u) << DescribeCandidates(report);
  EXPECT_EQ(CandidatesOf(report, "r")[0].decision, "fused");
  EXPECT_EQ(FunctionBodyOps(*m, "T"), "Mul Neg Add");
}

TEST_F(MatcherTest, RevisitsAnOperandOrderWhenAPredicateFails) {
  // Add(x, a) with `a` constant: the constant is the first operand here.
  auto m = ParseModel(OnnxModel(R"(g (float[2] v) => (float[2] z) <float[2] k = {1, 2}, float[2] c = {3, 4}> {
    s = Add(k, v)
    z = Mul(s, c)
  })"));
  ASSERT_TRUE(m);
  auto report = Run(*m, Rule("    pattern: Mul(Add(x, a), b)\n    where:\n      a: {constant: true}\n    fuse: T\n"));
  ASSERT_EQ(CandidatesOf(report, "r").size(), 1u) << DescribeCandidates(report);
  EXPECT_EQ(FunctionBodyOps(*m, "T"), "Constant Constant Add Mul");  // the small constants are embedded
  EXPECT_EQ(PrintGraph(*m), Canonical(FusedModel(R"(g (float[2] v) => (float[2] z) {
    z = kiln.fused.T <value_c0 = float[2] {1, 2}, value_c1 = float[2] {3, 4}> (v)
  })")));
}

TEST_F(MatcherTest, RevisitsAnAlternativeWhenALaterPieceDoesNotFit) {
  // q: x | Sigmoid(x): the first alternative binds x to the Sigmoid's output, which Neg does not read.
  auto m = ParseModel(OnnxModel(R"(g (float[2] a) => (float[2] z) {
    s = Sigmoid(a)
    r = Relu(s)
    n = Neg(a)
    z = Add(r, n)
  })"));
  ASSERT_TRUE(m);
  auto report = Run(*m, Rule("    pattern: Add(Relu(q), Neg(x))\n    let:\n      q: x | Sigmoid(x)\n    fuse: T\n"));
  ASSERT_EQ(CandidatesOf(report, "r").size(), 1u) << DescribeCandidates(report);
  EXPECT_EQ(FunctionBodyOps(*m, "T"), "Sigmoid Relu Neg Add");
}

TEST_F(MatcherTest, AnOperandOpIsFoundInEitherPlaceAndBehindALet) {
  // The pass tries a rule at a node only when its operands' producers include every op the rule's root needs
  // there (Rule::operand_ops): the MatMul is the second operand here, in both rules.
  auto m = ParseModel(OnnxModel(R"(g (float[2,2] a, float[2,2] w, float[2,2] c) => (float[2,2] z, float[2,2] y) {
    p = MatMul(a, w)
    z = Add(c, p)
    q = MatMul(w, a)
    y = Sub(c, q)
  })"));
  ASSERT_TRUE(m);
  auto report = Run(*m, "pack: t\nrules:\n"
                        "  - {name: add, pattern: 'Add(MatMul(x, y), b)', fuse: A}\n"
                        "  - {name: sub, pattern: 'Sub(b, r)', let: {r: 'MatMul(x, y)'}, fuse: S}\n");
  ASSERT_EQ(CandidatesOf(report, "add").size(), 1u) << DescribeCandidates(report);
  ASSERT_EQ(CandidatesOf(report, "sub").size(), 1u) << DescribeCandidates(report);
  EXPECT_EQ(MainGraphOps(*m), "kiln.fused.A kiln.fused.S");
}

TEST_F(MatcherTest, AnOptionalRootMayBeAbsent) {
  auto m = ParseModel(OnnxModel(R"(g (float[2] a) => (float[2] z) {
    s = Sigmoid(a)
    z = Relu(s)
  })"));
  ASSERT_TRUE(m);
  auto report = Run(*m, Rule("    pattern: Cast?(Relu(Sigmoid(x)))\n    fuse: T\n"));
  ASSERT_EQ(CandidatesOf(report, "r").size(), 1u) << DescribeCandidates(report);
  EXPECT_EQ(FunctionBodyOps(*m, "T"), "Sigmoid Relu");
}

TEST_F(MatcherTest, AnOptionalRootThatIsThereIsInTheMatch) {
  // The Relu is read by the Cast alone: the match is the Cast's, with it.
  auto m = ParseModel(OnnxModel(R"(g (float[2] a) => (double[2] z) {
    s = Sigmoid(a)
    r = Relu(s)
    z = Cast <to = 11> (r)
  })"));
  ASSERT_TRUE(m);
  auto report = Run(*m, Rule("    pattern: Cast?(Relu(Sigmoid(x)))\n    fuse: T\n"));
  ASSERT_EQ(CandidatesOf(report, "r").size(), 1u) << DescribeCandidates(report);
  EXPECT_EQ(CandidatesOf(report, "r")[0].root, "Cast#3");
  EXPECT_EQ(FunctionBodyOps(*m, "T"), "Sigmoid Relu Cast");
}

TEST_F(MatcherTest, AnOptionalRootIsLeftOutWhenTheValueHasOtherReaders) {
  // The Relu is read by the Cast and by Neg: with the Cast the group would leak; without it, it does not.
  auto m = ParseModel(OnnxModel(R"(g (float[2] a) => (double[2] z, float[2] w) {
    s = Sigmoid(a)
    r = Relu(s)
    z = Cast <to = 11> (r)
    w = Neg(r)
  })"));
  ASSERT_TRUE(m);
  auto report = Run(*m, Rule("    pattern: Cast?(Relu(Sigmoid(x)))\n    fuse: T\n"));
  EXPECT_EQ(FunctionBodyOps(*m, "T"), "Sigmoid Relu") << DescribeCandidates(report);
  EXPECT_EQ(MainGraphOps(*m), "kiln.fused.T Cast Neg");
}

// A `const:` predicate reads the constant a block of 4 KB at a time (value_constant_read, nothing left lent): a
// constant over several blocks matches when every element is the value, and does not when only its last one, in
// the second block, differs; int64 elements as floats.
TEST_F(MatcherTest, AConstantValueIsComparedInEveryBlock) {
  auto list = [](size_t n, const std::string& value, const std::string& last) {
    std::string out;
    for (size_t i = 0; i < n; ++i) out += (i ? ", " : "") + (i + 1 == n ? last : value);
    return out;
  };
  auto m = ParseModel(OnnxModel("g (float[1500] v, int64[600] i) => (float[1500] z, float[1500] y, int64[600] w) "
                                "<float[1500] ones = {" + list(1500, "1", "1") + "}, float[1500] almost = {" +
                                list(1500, "1", "2") + "}, int64[600] sevens = {" + list(600, "7", "7") + R"(}> {
    a = Mul(v, ones)
    z = Relu(a)
    b = Mul(v, almost)
    y = Relu(b)
    c = Mul(i, sevens)
    w = Neg(c)
  })"));
  ASSERT_TRUE(m);
  const std::string pack = "pack: t\nrules:\n"
                           "  - name: one\n    pattern: Mul@r(x, k)\n    where:\n      k: {const: 1, tol: 0}\n"
                           "    rewrite: x\n"
                           "  - name: seven\n    pattern: Mul@r(x, k)\n    where:\n      k: {const: 7, tol: 0}\n"
                           "    rewrite: Neg(x)\n";
  auto report = Run(*m, pack);
  ASSERT_EQ(CandidatesOf(report, "one").size(), 1u) << DescribeCandidates(report);
  EXPECT_EQ(CandidatesOf(report, "one")[0].decision, "rewritten");
  ASSERT_EQ(CandidatesOf(report, "seven").size(), 1u) << DescribeCandidates(report);
  EXPECT_EQ(CandidatesOf(report, "seven")[0].decision, "rewritten");
  EXPECT_EQ(MainGraphOps(*m), "Relu Mul Relu Neg Neg");
  for (const auto& n : m->graph().nodes()) {
    if (n->op_type() == "Mul") {
      EXPECT_EQ(n->input(1)->name(), "almost");  // the one left
    }
  }
}

}  // namespace
}  // namespace kiln::testing
