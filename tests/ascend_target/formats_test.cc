// Engines of nodes (classes, overrides, the TopK and small-integer rules), barriers, format conversions as
// memory-bound copies, and preferred formats by op class; on the test chip and on the shipped descriptions.
#include <gtest/gtest.h>

#include "ascend_test_util.h"

namespace kiln::ascend {
namespace {

using namespace testing;

class EnginesTest : public ::testing::Test {
 protected:
  CostModel model{TestChip()};
};

TEST_F(EnginesTest, ClassesPickTheEngine) {
  EXPECT_EQ(model.EngineOf(Op("Conv", {T("x", kF16, {1, 3, 8, 8}), T("w", kF16, {4, 3, 3, 3})}, {})), "cube");
  EXPECT_EQ(model.EngineOf(Op("Gemm", {}, {})), "cube");
  EXPECT_EQ(model.EngineOf(Op("Softmax", {}, {})), "vector");
  EXPECT_EQ(model.EngineOf(Op("NonMaxSuppression", {}, {})), "aicpu");
  EXPECT_EQ(model.EngineOf(Op("Shape", {}, {})), "host");
}

TEST_F(EnginesTest, AnUnlistedOpFallsBackToTheDefaultEngine) {
  OpNode n = Op("Einsum", {T("x", kF32, {4})}, {T("y", kF32, {4})});
  EXPECT_EQ(model.EngineOf(n), "aicpu");
  Cost c = model.EstimateNode(n);
  EXPECT_NE(c.reason.find("no op class lists Einsum: aicpu (engine_rules.default_engine)"), std::string::npos)
      << c.reason;
  OpNode custom = Op("Double", {}, {});
  custom.domain = "hello";
  EXPECT_EQ(custom.Key(), "hello::Double");
  EXPECT_EQ(model.EngineOf(custom), "aicpu");
}

TEST_F(EnginesTest, TopKWithALargeKGoesToTheAiCpu) {
  auto topk = [](int64_t k) {
    return Op("TopK", {T("x", kF32, {1, 100000}), Ints("k", {k})}, {T("v", kF32, {1, k}), T("i", kI64, {1, k})});
  };
  EXPECT_EQ(model.EngineOf(topk(8)), "vector");
  EXPECT_EQ(model.EngineOf(topk(4095)), "vector");
  EXPECT_EQ(model.EngineOf(topk(4096)), "aicpu");
  OpNode unknown_k = topk(8);
  unknown_k.inputs[1]->int_values.reset();  // k computed at run time: the class's engine
  EXPECT_EQ(model.EngineOf(unknown_k), "vector");
}

TEST_F(EnginesTest, SmallIntegerComputationsRunOnTheHost) {
  // int64 Add on 2 elements: shape arithmetic; the same on floats, or on 100 int64 elements, stays on the vector.
  EXPECT_EQ(model.EngineOf(Op("Add", {T("a", kI64, {2}), T("b", kI64, {2})}, {T("y", kI64, {2})})), "host");
  EXPECT_EQ(model.EngineOf(Op("Add", {T("a", kF32, {2}), T("b", kF32, {2})}, {T("y", kF32, {2})})), "vector");
  EXPECT_EQ(model.EngineOf(Op("Add", {T("a", kI64, {100})}, {T("y", kI64, {100})})), "vector");
  EXPECT_EQ(model.EngineOf(Op("Concat", {T("a", kI64, {2}), T("b", kI64, {2})}, {T("y", kI64, {4})})), "host");
  TensorInfo sym = T("y", kI64, {-1});
  EXPECT_EQ(model.EngineOf(Op("Add", {sym}, {sym})), "vector");  // not known to be small
  // Reductions are not in the rule's classes on the test chip.
  EXPECT_EQ(model.EngineOf(Op("ReduceSum", {T("a", kI64, {2})}, {T("y", kI64, {1})})), "vector");
}

TEST(Engines, OverridesBeatClasses) {
  TargetDescription d = TestChip();
  d.engine_rules.overrides["Cast"] = "aicpu";
  CostModel model(std::move(d));
  EXPECT_EQ(model.EngineOf(Op("Cast", {T("x", kF32, {4})}, {T("y", kF16, {4})})), "aicpu");
  EXPECT_EQ(model.EngineOf(Op("Relu", {T("x", kF32, {4})}, {T("y", kF32, {4})})), "vector");
}

TEST_F(EnginesTest, BarriersOnlyBetweenCubeAndVector) {
  EXPECT_EQ(model.SyncCost("cube", "vector"), 1e-6);
  EXPECT_EQ(model.SyncCost("vector", "cube"), 1e-6);
  EXPECT_EQ(model.SyncCost("vector", "vector"), 0);
  EXPECT_EQ(model.SyncCost("cube", "aicpu"), 0);
  EXPECT_THROW(model.SyncCost("cube", "tensor_core"), std::invalid_argument);
}

TEST(ShippedEngines, TheSplitChipsBarrierCostsMoreThanTheCoupledOnes) {
  CostModel b1(Shipped("ascend910b1")), a(Shipped("ascend910a")), p3(Shipped("ascend310p3"));
  EXPECT_GT(b1.SyncCost("cube", "vector"), a.SyncCost("cube", "vector"));
  EXPECT_GT(a.SyncCost("cube", "vector"), 0);
  EXPECT_EQ(p3.SyncCost("cube", "vector"), a.SyncCost("cube", "vector"));
  // The same op maps the same way on each shipped chip.
  for (CostModel* m : {&b1, &a, &p3}) {
    EXPECT_EQ(m->EngineOf(Op("QLinearConv", {}, {})), "cube");
    EXPECT_EQ(m->EngineOf(Op("LayerNormalization", {}, {})), "vector");
    EXPECT_EQ(m->EngineOf(Op("Unique", {}, {})), "aicpu");
    EXPECT_EQ(m->EngineOf(Op("Size", {}, {})), "host");
    OpNode le = Op("LabelEncoder", {}, {});
    le.domain = "ai.onnx.ml";
    EXPECT_EQ(m->EngineOf(le), "aicpu");
  }
}

class FormatsTest : public EnginesTest {};

TEST_F(FormatsTest, TransferIsAMemoryBoundCopy) {
  // fp16 [1,3,224,224]: ND is 301056 B; NC1HWC0 pads C to 16: 1*16*224*224*2 = 1605632 B. Read + write at 1 TB/s,
  // plus one launch.
  TensorInfo x = T("x", kF16, {1, 3, 224, 224});
  EXPECT_EQ(model.FormatBytes(x, "ND"), 301056);
  EXPECT_EQ(model.FormatBytes(x, "NC1HWC0"), 1605632);
  EXPECT_NEAR(model.TransferCost(x, "ND", "NC1HWC0"), (301056 + 1605632) / 1e12 + 5e-6, 1e-15);
  EXPECT_EQ(model.TransferCost(x, "NC1HWC0", "NC1HWC0"), 0);
  EXPECT_EQ(model.TransferCost(x, "", "ND"), 0);
  EXPECT_THROW(model.TransferCost(x, "ND", "NHWC"), std::invalid_argument);  // not on the test chip
  EXPECT_THROW(model.TransferCost(x, "ND", "FRACTAL_ZZ"), std::invalid_argument);
  // fp32 pads C to 8.
  EXPECT_EQ(model.FormatBytes(T("x", kF32, {1, 3, 4, 4}), "NC1HWC0"), 1 * 8 * 16 * 4);
}

// GE's StorageShape of each format (ABI 1.6's storage_shape), and its bytes are what FormatBytes counts.
TEST_F(FormatsTest, StorageShapesFollowTheLayouts) {
  auto bytes = [](const std::vector<int64_t>& dims, int64_t elem) {
    int64_t n = elem;
    for (int64_t d : dims) n *= d;
    return static_cast<double>(n);
  };
  const TensorInfo x = T("x", kF16, {1, 3, 224, 224});
  EXPECT_EQ(model.StorageShape(x, "NC1HWC0"), (std::vector<int64_t>{1, 1, 224, 224, 16}));  // GE-FMT's example
  EXPECT_EQ(model.StorageShape(x, ""), (std::vector<int64_t>{1, 3, 224, 224}));
  EXPECT_EQ(model.StorageShape(T("x", kF32, {2, 20, 5, 6}), "NC1HWC0"), (std::vector<int64_t>{2, 3, 5, 6, 8}));
  EXPECT_EQ(model.StorageShape(T("x", kF16, {2, 20, 4, 5, 6}), "NDC1HWC0"),
            (std::vector<int64_t>{2, 4, 2, 5, 6, 16}));
  const TensorInfo w = T("w", kF16, {64, 3, 7, 7});
  EXPECT_EQ(model.StorageShape(w, "FRACTAL_Z"), (std::vector<int64_t>{49, 4, 16, 16}));
  EXPECT_EQ(bytes(model.StorageShape(w, "FRACTAL_Z"), 2), model.FormatBytes(w, "FRACTAL_Z"));
  const TensorInfo a = T("a", kF16, {8, 100, 30});  // hiascend: ND {8,100,30} <-> NZ {8,2,112,16}
  EXPECT_EQ(model.StorageShape(a, "FRACTAL_NZ"), (std::vector<int64_t>{8, 2, 7, 16, 16}));
  EXPECT_EQ(bytes(model.StorageShape(a, "FRACTAL_NZ"), 2), model.FormatBytes(a, "FRACTAL_NZ"));
  EXPECT_EQ(bytes(model.StorageShape(x, "NC1HWC0"), 2), model.FormatBytes(x, "NC1HWC0"));
  // An unknown batch stays unknown; an unknown channel count makes C1 unknown.
  EXPECT_EQ(model.StorageShape(T("x", kF16, {-1, 32, 7, 7}), "NC1HWC0"), (std::vector<int64_t>{-1, 2, 7, 7, 16}));
  EXPECT_EQ(model.StorageShape(T("x", kF16, {1, -1, 7, 7}), "NC1HWC0"), (std::vector<int64_t>{1, -1, 7, 7, 16}));
  EXPECT_THROW(model.StorageShape(T("v", kF16, {8}), "NC1HWC0"), std::invalid_argument);
  EXPECT_THROW(model.StorageShape(T("v", kF16, {1, 2, 3, 4}), "NDC1HWC0"), std::invalid_argument);
  EXPECT_THROW(model.StorageShape(x, "NHWC"), std::invalid_argument);  // not on the test chip
  TensorInfo unranked = x;
  unranked.dims.reset();
  EXPECT_THROW(model.StorageShape(unranked, "NC1HWC0"), std::invalid_argument);
}

TEST_F(FormatsTest, FractalLayoutsPadAsTheSourcesShow) {
  // hiascend TransdataOperation: ND {8,100,30} <-> NZ {8,2,112,16} for fp16.
  EXPECT_EQ(model.FormatBytes(T("a", kF16, {8, 100, 30}), "FRACTAL_NZ"), 8 * 2 * 112 * 16 * 2);
  // int8: n0 = 32.
  EXPECT_EQ(model.FormatBytes(T("a", kI8, {100, 30}), "FRACTAL_NZ"), 1 * 112 * 32);
  // A conv filter [Cout=64, Cin=3, 7, 7] fp16 in FRACTAL_Z: C1*kh*kw x N1 x N0 x C0 = 1*49 x 4 x 16 x 16.
  EXPECT_EQ(model.FormatBytes(T("w", kF16, {64, 3, 7, 7}), "FRACTAL_Z"), 49 * 64 * 16 * 2);
  EXPECT_THROW(model.FormatBytes(T("v", kF16, {8}), "NC1HWC0"), std::invalid_argument);
}

TEST_F(FormatsTest, PreferredFormatsByOpClass) {
  OpNode conv = Op("Conv", {T("x", kF16, {1, 3, 8, 8}), T("w", kF16, {4, 3, 3, 3}), T("b", kF16, {4})},
                   {T("y", kF16, {1, 4, 6, 6})});
  EXPECT_EQ(model.PreferredFormat(conv, false, 0), "NC1HWC0");
  EXPECT_EQ(model.PreferredFormat(conv, false, 1), "FRACTAL_Z");
  EXPECT_EQ(model.PreferredFormat(conv, false, 2), "ND");
  EXPECT_EQ(model.PreferredFormat(conv, true, 0), "NC1HWC0");
  EXPECT_EQ(model.PreferredFormat(conv, false, 7), "ND");  // past the list
  // 3-D convolution: the 3-D formats.
  OpNode conv3d = Op("Conv", {T("x", kF16, {1, 3, 4, 8, 8}), T("w", kF16, {4, 3, 3, 3, 3})}, {T("y", kF16, {1, 4, 2, 6, 6})});
  EXPECT_EQ(model.PreferredFormat(conv3d, false, 0), "NDC1HWC0");
  EXPECT_EQ(model.PreferredFormat(conv3d, false, 1), "FRACTAL_Z_3D");
  // QLinearConv's weight is input 3.
  OpNode q = Op("QLinearConv", {T("x", kI8, {1, 3, 8, 8}), std::nullopt, std::nullopt, T("w", kI8, {4, 3, 3, 3})}, {});
  EXPECT_EQ(model.PreferredFormat(q, false, 3), "FRACTAL_Z");
  EXPECT_EQ(model.PreferredFormat(q, false, 1), "ND");
  OpNode mm = Op("MatMul", {T("a", kF16, {16, 32}), T("b", kF16, {32, 16})}, {T("y", kF16, {16, 16})});
  EXPECT_EQ(model.PreferredFormat(mm, false, 1), "FRACTAL_NZ");
  EXPECT_EQ(model.PreferredFormat(mm, false, 0), "ND");
  OpNode mv = Op("MatMul", {T("a", kF16, {32}), T("b", kF16, {32})}, {T("y", kF16, {})});
  EXPECT_EQ(model.PreferredFormat(mv, false, 1), "ND");  // a vector has no fractal layout
  EXPECT_EQ(model.PreferredFormat(Op("Add", {}, {}), false, 0), "");  // format-agnostic
  EXPECT_EQ(model.PreferredFormat(Op("Softmax", {}, {}), true, 0), "ND");
  EXPECT_EQ(model.PreferredFormat(Op("Einsum", {}, {}), false, 0), "ND");
}

TEST(ShippedFormats, ConvAndMatMulPreferTheFractalLayouts) {
  CostModel b1(Shipped("ascend910b1"));
  OpNode conv = Op("Conv", {T("x", kF16, {1, 3, 8, 8}), T("w", kF16, {4, 3, 3, 3})}, {T("y", kF16, {1, 4, 6, 6})});
  EXPECT_EQ(b1.PreferredFormat(conv, false, 0), "NC1HWC0");
  EXPECT_EQ(b1.PreferredFormat(conv, false, 1), "FRACTAL_Z");
  OpNode gemm = Op("Gemm", {T("a", kF16, {16, 32}), T("b", kF16, {32, 16})}, {T("y", kF16, {16, 16})});
  EXPECT_EQ(b1.PreferredFormat(gemm, false, 1), "FRACTAL_NZ");
  EXPECT_EQ(b1.PreferredFormat(Op("Relu", {}, {}), false, 0), "");
  EXPECT_EQ(b1.PreferredFormat(Op("ReduceMean", {}, {}), false, 0), "ND");
}

}  // namespace
}  // namespace kiln::ascend
