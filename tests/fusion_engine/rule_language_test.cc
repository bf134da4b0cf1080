// The rule language on its own (plugins/fusion's pattern, expression and pack loader, compiled into this test): what
// parses into what, and every error with its file:line:column.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "expr.h"
#include "pattern.h"
#include "rule_loader.h"

namespace kiln::fusion {
namespace {

std::string ErrorOf(const std::string& yaml) {
  try {
    LoadRulePack(yaml, "pack.yaml");
  } catch (const RuleError& e) {
    return e.what();
  }
  return "";
}

TEST(Pattern, ParsesOpsVariablesAlternativesOptionalsAttributesAndLabels) {
  auto p = ParsePattern("Mul(Cast?(x), Pow(d, two) | Mul(d, d), ReduceMean{axes: [-1], keepdims: 1}(x), Add@b(y, ...), _)");
  ASSERT_EQ(p->kind, Pattern::Kind::kOp);
  EXPECT_EQ(p->op_type, "Mul");
  ASSERT_EQ(p->args.size(), 5u);
  EXPECT_TRUE(p->args[0]->optional);
  EXPECT_EQ(p->args[0]->args[0]->var, "x");
  EXPECT_EQ(p->args[1]->kind, Pattern::Kind::kAlt);
  EXPECT_EQ(p->args[1]->args.size(), 2u);
  ASSERT_EQ(p->args[2]->attrs.size(), 2u);
  EXPECT_EQ(p->args[2]->attrs[0].value.list, std::vector<double>{-1});
  EXPECT_EQ(p->args[2]->attrs[1].value.number, 1);
  EXPECT_EQ(p->args[3]->label, "b");
  EXPECT_TRUE(p->args[3]->more_inputs);
  EXPECT_EQ(p->args[4]->kind, Pattern::Kind::kAny);
  EXPECT_EQ(CountOps(*p), 5);
  EXPECT_EQ(RootOpTypes(*ParsePattern("Relu(c) | Clip(c, a, b)")), (std::vector<std::string>{"Clip", "Relu"}));
  auto d = ParsePattern("com.microsoft.Gelu(x)");
  EXPECT_EQ(d->domain, "com.microsoft");
  EXPECT_EQ(d->op_type, "Gelu");
}

TEST(Pattern, ReportsWhereItFails) {
  auto offset = [](const char* text) {
    try {
      ParsePattern(text);
    } catch (const PatternError& e) {
      return static_cast<int>(e.offset);
    }
    return -1;
  };
  EXPECT_EQ(offset("Add(x, y"), 8);
  EXPECT_EQ(offset("Add(x,, y)"), 6);
  EXPECT_EQ(offset("Cast?(x, y)"), 11);
  EXPECT_EQ(offset("Add(x) extra"), 7);
  EXPECT_EQ(offset("Add{axis -1}(x)"), 9);
}

TEST(Expr, EvaluatesConstantsFunctionsAndBoundVariables) {
  ExprContext ctx;
  ctx.dim = [](const std::string& v, int64_t i) -> std::optional<double> {
    if (v == "q" && i == -1) return 64;
    return std::nullopt;
  };
  EXPECT_NEAR(*Expr::Parse("sqrt(2)").Eval(ctx), 1.41421356, 1e-8);
  EXPECT_NEAR(*Expr::Parse("1/sqrt(dim(q, -1))").Eval(ctx), 0.125, 1e-12);
  EXPECT_NEAR(*Expr::Parse("sqrt(2/pi)").Eval(ctx), 0.7978845608, 1e-9);
  EXPECT_NEAR(*Expr::Parse("-2^3 + max(1, 4)").Eval(ctx), -4, 1e-12);
  EXPECT_FALSE(Expr::Parse("dim(k, 0)").Eval(ctx).has_value());
  EXPECT_FALSE(Expr::Parse("1/0").Eval(ctx).has_value());
  EXPECT_THROW(Expr::Parse("cbrt(8)"), PatternError);
  EXPECT_THROW(Expr::Parse("1 +"), PatternError);
}

TEST(RulePack, LoadsRulesWithDefaultsAndActions) {
  RulePack pack = LoadRulePack(R"(pack: p
rules:
  - name: silu
    pattern: Mul(x, Sigmoid(x))
    fuse: SiLU
  - name: div_const
    pattern: Div(x, c)
    where:
      c: {constant: true, dtype: [float]}
    benefit: 7
    rewrite: 'Mul{alpha: 1.5, n: 2, s: $(value(c) * 2)}(x, $recip(c))'
    opset: {min: 13}
)", "p.yaml");
  ASSERT_EQ(pack.rules.size(), 2u);
  EXPECT_EQ(pack.rules[0].benefit, 2);  // two ops
  EXPECT_EQ(pack.rules[0].action, Rule::Action::kFuse);
  EXPECT_EQ(pack.rules[0].fuse_name, "SiLU");
  const Rule& r = pack.rules[1];
  EXPECT_EQ(r.benefit, 7);
  EXPECT_EQ(r.min_opset, 13);
  EXPECT_EQ(r.where.at("c").elem_types, std::vector<int32_t>{1});
  ASSERT_EQ(r.rewrite->attrs.size(), 3u);
  EXPECT_TRUE(r.rewrite->attrs[0].literal_is_float);
  EXPECT_FALSE(r.rewrite->attrs[1].literal_is_float);
  EXPECT_EQ(r.rewrite->attrs[2].kind, Replacement::Attr::Kind::kFloatExpr);
  EXPECT_EQ(r.rewrite->args[1]->kind, Replacement::Kind::kFunction);
}

TEST(RulePack, RequiredOperandOpsAreTheRootOperandsThatMustBeOps) {
  // What PatternFusionPass uses to skip a rule at a node whose operands no such op makes (RootOperands): an op
  // operand, or a variable whose let is one; never one that may be absent or another alternative.
  RulePack pack = LoadRulePack(R"(pack: p
rules:
  - {name: op, pattern: 'Add(MatMul(a, w), b)', fuse: T}
  - {name: let, pattern: 'Add(x, Relu(y))', let: {x: 'Sigmoid(z)'}, fuse: T}
  - {name: optional_operand, pattern: 'Add(Cast?(x), y)', fuse: T}
  - {name: alternative_operand, pattern: 'Add(MatMul(a, w) | Gemm(a, w, c), b)', fuse: T}
  - {name: alternative_let, pattern: 'Add(q, y)', let: {q: 'x | Sigmoid(x)'}, fuse: T}
  - {name: optional_root, pattern: 'Cast?(Relu(Sigmoid(x)))', fuse: T}
  - {name: alternative_root, pattern: 'Relu(Sigmoid(x)) | Sigmoid(Relu(x))', fuse: T}
)", "p.yaml");
  ASSERT_EQ(pack.rules.size(), 7u);
  using Ops = std::vector<std::string>;
  EXPECT_EQ(pack.rules[0].operand_ops, (Ops{"MatMul"}));
  EXPECT_EQ(pack.rules[1].operand_ops, (Ops{"Sigmoid", "Relu"}));
  for (size_t i = 2; i < pack.rules.size(); ++i) EXPECT_EQ(pack.rules[i].operand_ops, Ops{}) << pack.rules[i].name;
}

TEST(RulePack, EveryProblemNamesItsFileLineAndColumn) {
  EXPECT_EQ(ErrorOf("pack: p\nrules: [\n"), "pack.yaml:3:1: end of sequence flow not found");
  EXPECT_EQ(ErrorOf("pack: p\nrule: []\n"), "pack.yaml:2:1: unknown key 'rule' (expected one of: pack, description, rules, version)");
  EXPECT_EQ(ErrorOf("pack: p\nrules:\n  - name: a\n    pattern: Add(x, y\n    fuse: A\n"),
            "pack.yaml:4:22: in the pattern of rule 'a': expected ')'");
  EXPECT_EQ(ErrorOf("pack: p\nrules:\n  - name: a\n    pattern: Add(x, y)\n"),
            "pack.yaml:3:5: rule 'a' needs exactly one action: fuse or rewrite");
  EXPECT_EQ(ErrorOf("pack: p\nrules:\n  - name: a\n    pattern: Add(x, y)\n    where:\n      z: {const: 1}\n    fuse: A\n"),
            "pack.yaml:6:7: 'z' is not a variable of the pattern");
  EXPECT_EQ(ErrorOf("pack: p\nrules:\n  - name: a\n    pattern: Add(x, y)\n    where:\n      x: {cosnt: 1}\n    fuse: A\n"),
            "pack.yaml:6:11: unknown key 'cosnt' (expected one of: const, tol, constant, scalar, rank, dtype, shape, "
            "static, same_shape_as, single_use)");
  EXPECT_EQ(ErrorOf("pack: p\nrules:\n  - name: a\n    pattern: Add(x, y)\n    rewrite: Mul(x, z)\n"),
            "pack.yaml:5:14: the rewrite uses 'z', which the pattern does not bind");
  EXPECT_EQ(ErrorOf("pack: p\nrules:\n  - name: a\n    pattern: x\n    fuse: A\n"),
            "pack.yaml:4:14: the pattern of rule 'a' must start with an op");
  EXPECT_EQ(ErrorOf("pack: p\nrules:\n  - {name: a, pattern: 'Relu(x)', fuse: A}\n  - {name: a, pattern: 'Relu(x)', fuse: B}\n"),
            "pack.yaml:4:5: rule 'a' is defined twice");
  EXPECT_EQ(ErrorOf("pack: p\nrules:\n  - name: a\n    pattern: Div(x, c)\n    where:\n      c: {const: cbrt(2)}\n    fuse: A\n"),
            "pack.yaml:6:18: in expression: unknown function 'cbrt'");
}

const char* const kShippedPacks[] = {"norms", "activations", "attention", "conv", "linear", "elementwise", "algebra"};

std::string ShippedPackPath(const std::string& pack) {
  return std::string(KILN_SOURCE_DIR) + "/configs/fusion/" + pack + ".yaml";
}

std::vector<std::string> ShippedPackPaths() {
  std::vector<std::string> paths;
  for (const char* pack : kShippedPacks) paths.push_back(ShippedPackPath(pack));
  return paths;
}

// Pack files written into a folder of their own under the test's temporary directory.
class TempPacks {
 public:
  explicit TempPacks(const std::string& folder) : dir_(std::filesystem::path(::testing::TempDir()) / folder) {
    std::filesystem::create_directories(dir_);
  }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  std::string Write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
    return Path(name);
  }
  std::string WriteGood() const {
    return Write("good.yaml", "pack: good\nrules:\n  - {name: g, pattern: 'Relu(x)', fuse: G}\n");
  }
  // Refused for its key "rule", at 2:1.
  std::string WriteBadKey(const std::string& name) const { return Write(name, "pack: a\nrule: []\n"); }

 private:
  std::filesystem::path dir_;
};

std::string BadKeyError(const std::string& path) {
  return path + ":2:1: unknown key 'rule' (expected one of: pack, description, rules, version)";
}

TEST(RulePack, ShippedPacksLoad) {
  for (const char* pack : kShippedPacks) {
    RulePack p = LoadRulePackFile(ShippedPackPath(pack));
    EXPECT_EQ(p.name, pack);
    EXPECT_FALSE(p.rules.empty()) << ShippedPackPath(pack);
  }
}

// The packs read side by side come back in the order given, and a failure is the first failing file's in that
// order, whichever thread met which file first.
TEST(RulePack, PacksReadSideBySideKeepTheirOrderAndTheFirstFailure) {
  const std::vector<std::string> paths = ShippedPackPaths();
  std::vector<RulePack> packs = LoadRulePackFiles(paths);
  ASSERT_EQ(packs.size(), paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    EXPECT_EQ(packs[i].source, paths[i]);
    EXPECT_EQ(packs[i].rules.size(), LoadRulePackFile(paths[i]).rules.size()) << paths[i];
  }

  const TempPacks dir("packs_side_by_side");
  std::string good = dir.WriteGood();
  std::string bad_key = dir.WriteBadKey("bad_key.yaml");
  std::string bad_syntax = dir.Write("bad_syntax.yaml", "pack: b\nrules: [\n");
  std::string missing = dir.Path("missing.yaml");
  // On as many threads as there are cores, and on this thread alone (max_threads 1, as the read-ahead of the
  // built-in packs does): the same first failure.
  for (size_t threads : {size_t{0}, size_t{1}}) {
    SCOPED_TRACE("max_threads " + std::to_string(threads));
    auto error_of = [threads](const std::vector<std::string>& files) {
      try {
        LoadRulePackFiles(files, threads);
      } catch (const RuleError& e) {
        return std::string(e.what());
      }
      return std::string();
    };
    // Many good files before the failing ones, so that the threads reach the later files first at least sometimes.
    std::vector<std::string> files(16, good);
    files.insert(files.end(), {bad_key, bad_syntax, missing});
    EXPECT_EQ(error_of(files), BadKeyError(bad_key));
    files = std::vector<std::string>(16, good);
    files.insert(files.end(), {missing, bad_key});
    EXPECT_EQ(error_of(files), missing + ": cannot read the rule pack");
  }
  EXPECT_EQ(LoadRulePackFiles({}).size(), 0u);
  EXPECT_EQ(LoadRulePackFiles(paths, 1).size(), paths.size());
}

// One reading shared by a helper and the thread that needs the packs (PackPrefetch's use): whichever thread reads
// which file, Finish gives the packs in the order of the paths and the first failing path's error, although the
// largest file is read first.
TEST(RulePack, ASharedReadingFinishesOnTheThreadThatNeedsIt) {
  const TempPacks dir("packs_shared_reading");
  std::string good = dir.WriteGood();
  std::string bad_small = dir.WriteBadKey("bad_small.yaml");
  std::string bad_large = dir.Write("bad_large.yaml", std::string(4096, '#') + "\npack: b\nrules: [\n");
  const std::vector<std::string> shipped = ShippedPackPaths();

  for (bool helper : {false, true}) {
    SCOPED_TRACE(helper ? "with a helper" : "Finish alone");
    RulePackReading reading(shipped);
    EXPECT_EQ(reading.paths(), shipped);
    std::thread t;
    if (helper) t = std::thread([&] { reading.Work(); });
    std::vector<RulePack> packs = reading.Finish();
    if (t.joinable()) t.join();
    ASSERT_EQ(packs.size(), shipped.size());
    for (size_t i = 0; i < shipped.size(); ++i) EXPECT_EQ(packs[i].source, shipped[i]);

    RulePackReading failing({good, bad_small, good, bad_large});
    if (helper) t = std::thread([&] { failing.Work(); });
    std::string error;
    try {
      failing.Finish();
    } catch (const RuleError& e) {
      error = e.what();
    }
    if (t.joinable()) t.join();
    EXPECT_EQ(error, BadKeyError(bad_small));
  }
}

}  // namespace
}  // namespace kiln::fusion
