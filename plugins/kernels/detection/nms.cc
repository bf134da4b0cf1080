// NonMaxSuppression (opset 10, 11+): greedy per-batch, per-class selection by descending score (ties: lower
// box index first), suppressing boxes whose IoU with a selected one exceeds iou_threshold; boxes as corners
// (center_point_box 0, either diagonal) or centre + size (center_point_box 1). Output [selected, 3] int64 rows
// (batch, class, box), as ONNX Runtime orders them.
#include <kiln/kiln_plugin_parts.hpp>
#include "core/seq_util.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace kiln::kernels {
namespace {

using seq::Invalid;

struct Box {
  float y1, x1, y2, x2;  // y1 <= y2, x1 <= x2
};

Box MakeBox(const float* b, bool center) {
  if (center) {
    const float xc = b[0], yc = b[1], w = b[2], h = b[3];
    return {yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2};
  }
  return {std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]), std::max(b[1], b[3])};
}

bool Suppresses(const Box& a, const Box& b, float iou_threshold) {
  const float iy1 = std::max(a.y1, b.y1), ix1 = std::max(a.x1, b.x1);
  const float iy2 = std::min(a.y2, b.y2), ix2 = std::min(a.x2, b.x2);
  const float inter = std::max(0.f, iy2 - iy1) * std::max(0.f, ix2 - ix1);
  if (inter <= 0) return false;
  const float area_a = (a.y2 - a.y1) * (a.x2 - a.x1), area_b = (b.y2 - b.y1) * (b.x2 - b.x1);
  const float uni = area_a + area_b - inter;
  if (area_a <= 0 || area_b <= 0 || uni <= 0) return false;
  return inter / uni > iou_threshold;
}

void Nms(sdk::KernelContext& ctx) {
  sdk::TensorView boxes_t = ctx.RequiredInput(0), scores_t = ctx.RequiredInput(1);
  if (boxes_t.Rank() != 3 || boxes_t.Dims()[2] != 4) Invalid("NonMaxSuppression: boxes must be [batch, boxes, 4]");
  if (scores_t.Rank() != 3) Invalid("NonMaxSuppression: scores must be [batch, classes, boxes]");
  const int64_t nb = boxes_t.Dims()[0], nbox = boxes_t.Dims()[1], ncls = scores_t.Dims()[1];
  if (scores_t.Dims()[0] != nb || scores_t.Dims()[2] != nbox)
    Invalid("NonMaxSuppression: scores do not match boxes in batch or box count");
  int64_t max_out = 0;
  float iou = 0;
  bool has_score_threshold = false;
  float score_threshold = 0;
  if (sdk::TensorView t = seq::OptionalInput(ctx, 2)) max_out = seq::ReadScalar<int64_t>(t, "max_output_boxes_per_class");
  if (sdk::TensorView t = seq::OptionalInput(ctx, 3)) iou = seq::ReadScalar<float>(t, "iou_threshold");
  if (sdk::TensorView t = seq::OptionalInput(ctx, 4)) {
    has_score_threshold = true;
    score_threshold = seq::ReadScalar<float>(t, "score_threshold");
  }
  if (iou < 0 || iou > 1) Invalid("NonMaxSuppression: iou_threshold must be in [0, 1]");
  const bool center = ctx.GetInt("center_point_box", 0) != 0;
  const std::vector<float> boxes = seq::ReadAs<float>(boxes_t), scores = seq::ReadAs<float>(scores_t);

  std::vector<int64_t> selected;  // triples
  std::vector<int64_t> order;
  std::vector<Box> kept;
  for (int64_t b = 0; b < nb && max_out > 0; ++b) {
    std::vector<Box> bx(nbox);
    for (int64_t i = 0; i < nbox; ++i) bx[i] = MakeBox(&boxes[(b * nbox + i) * 4], center);
    for (int64_t c = 0; c < ncls; ++c) {
      const float* s = &scores[(b * ncls + c) * nbox];
      order.clear();
      for (int64_t i = 0; i < nbox; ++i)
        if (!has_score_threshold || s[i] > score_threshold) order.push_back(i);
      std::stable_sort(order.begin(), order.end(), [s](int64_t x, int64_t y) { return s[x] > s[y]; });
      kept.clear();
      int64_t count = 0;
      for (int64_t i : order) {
        if (count >= max_out) break;
        bool suppressed = false;
        for (const Box& k : kept)
          if (Suppresses(k, bx[i], iou)) {
            suppressed = true;
            break;
          }
        if (suppressed) continue;
        kept.push_back(bx[i]);
        selected.insert(selected.end(), {b, c, i});
        ++count;
      }
    }
  }
  const int64_t n = static_cast<int64_t>(selected.size() / 3);
  auto out = seq::AllocOut<int64_t>(ctx, 0, Dims{n, 3});
  std::copy(selected.begin(), selected.end(), out.begin());
}

}  // namespace
}  // namespace kiln::kernels

KILN_PLUGIN_PART(NonMaxSuppression) {
  reg.AddKernelFn({.op_type = "NonMaxSuppression", .since_version = 10}, kiln::kernels::Nms);
}
