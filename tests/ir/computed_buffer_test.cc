// Buffer::Computed (host/ir/buffer.h): any range is made on demand and equals the same range of the whole; a
// range that splits elements is widened through a scratch copy; data() makes the whole once and drops the
// function; a computation that throws leaves the buffer computable; SettleComputed makes every live one whole, or
// leaves the one that fails failing each read with its message, its function (and what it holds) gone.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#include "driver/graph_fingerprint.h"
#include "ir/buffer.h"
#include "ir/model.h"
#include "support/golden.h"
#include "support/error.h"

namespace kiln {
namespace {

// Element i of the made buffer is i * 3 + 1 (uint32), so every byte says where it belongs.
struct Counting {
  std::shared_ptr<std::atomic<size_t>> calls = std::make_shared<std::atomic<size_t>>(0);
  std::shared_ptr<std::atomic<size_t>> bytes = std::make_shared<std::atomic<size_t>>(0);
  Buffer::ComputeFn Fn() const {
    return [calls = calls, bytes = bytes](size_t offset, std::span<std::byte> out) {
      EXPECT_EQ(offset % 4, 0u);
      EXPECT_EQ(out.size() % 4, 0u);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(out.data()) % alignof(uint32_t), 0u);
      for (size_t i = 0; i < out.size() / 4; ++i) {
        uint32_t v = static_cast<uint32_t>((offset / 4 + i) * 3 + 1);
        std::memcpy(out.data() + i * 4, &v, 4);
      }
      ++*calls;
      *bytes += out.size();
    };
  }
};

std::vector<std::byte> Expected(size_t elements) {
  std::vector<std::byte> all(elements * 4);
  for (size_t i = 0; i < elements; ++i) {
    uint32_t v = static_cast<uint32_t>(i * 3 + 1);
    std::memcpy(all.data() + i * 4, &v, 4);
  }
  return all;
}

TEST(ComputedBuffer, MakesAnyRangeOnDemandWithoutTheWhole) {
  Counting c;
  auto b = Buffer::Computed(4000, 4, c.Fn());
  const std::vector<std::byte> all = Expected(1000);
  std::vector<std::byte> out(40);
  ASSERT_TRUE(b->ComputeInto(400, out));
  EXPECT_EQ(0, std::memcmp(out.data(), all.data() + 400, 40));
  // Bytes 6..17 split elements 1 and 4: widened to elements 1..4 (bytes 4..20) through a scratch copy, then cut.
  std::vector<std::byte> odd(11);
  ASSERT_TRUE(b->ComputeInto(6, odd));
  EXPECT_EQ(0, std::memcmp(odd.data(), all.data() + 6, 11));
  EXPECT_EQ(*c.bytes, 40u + 16u);
  EXPECT_EQ(b->size(), 4000u);
  EXPECT_THROW(b->ComputeInto(3990, out), Error);  // past the end
}

TEST(ComputedBuffer, ReadingItWholeMakesItOnceAndDropsTheFunction) {
  Counting c;
  auto b = Buffer::Computed(4000, 4, c.Fn());
  const std::vector<std::byte> all = Expected(1000);
  const std::byte* first = b->data();
  EXPECT_EQ(0, std::memcmp(first, all.data(), all.size()));
  EXPECT_EQ(b->data(), first);
  EXPECT_EQ(b->raw_bytes().data(), first);
  EXPECT_EQ(*c.calls, 1u);
  std::vector<std::byte> out(8);
  EXPECT_FALSE(b->ComputeInto(0, out));  // whole now: raw_bytes() serve
  EXPECT_EQ(c.calls.use_count(), 1) << "the function and what it captured are gone";
}

TEST(ComputedBuffer, AComputationThatThrowsLeavesItComputable) {
  auto fail = std::make_shared<bool>(true);
  auto b = Buffer::Computed(8, 4, [fail](size_t, std::span<std::byte> out) {
    if (*fail) throw PluginError("constant 'w': no");
    std::memset(out.data(), 7, out.size());
  });
  EXPECT_THROW(b->data(), Error);
  *fail = false;
  EXPECT_EQ(static_cast<int>(b->data()[5]), 7);
}

TEST(ComputedBuffer, SettlingMakesAnOwnersLiveBuffersWholeOrLeavesTheirFailure) {
  const int owner = 0, other = 0;
  Counting c, c_other;
  auto ok = Buffer::Computed(16, 4, c.Fn(), &owner);
  auto refuse = [](size_t, std::span<std::byte>) -> void {
    throw PluginError("computed constant 'w2': the plugin said no");
  };
  auto failing = Buffer::Computed(16, 4, refuse, &owner);
  auto others = Buffer::Computed(16, 4, c_other.Fn(), &other);
  auto hosts = Buffer::Computed(16, 4, c_other.Fn());
  std::weak_ptr<const Buffer> gone;
  {
    auto dropped = Buffer::Computed(16, 4, c.Fn(), &owner);
    gone = dropped;
  }
  Buffer::SettleComputed(&owner);
  EXPECT_TRUE(gone.expired());
  std::vector<std::byte> out(4);
  EXPECT_TRUE(others->ComputeInto(0, out)) << "another owner's buffer is left as it was";
  EXPECT_TRUE(hosts->ComputeInto(0, out)) << "a buffer without an owner is left as it was";
  EXPECT_FALSE(ok->ComputeInto(0, out));  // made whole
  EXPECT_EQ(0, std::memcmp(ok->data(), Expected(4).data(), 16));
  EXPECT_EQ(c.calls.use_count(), 1) << "settled buffers hold no function";
  try {
    (void)failing->data();
    FAIL() << "a failed computation must keep failing";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kPlugin);
    EXPECT_NE(std::string(e.what()).find("'w2': the plugin said no"), std::string::npos) << e.what();
  }
}

TEST(ComputedBuffer, AbandonedBuffersAreNotMadeWholeWhenTheirOwnerSettles) {
  const int owner = 0;
  Counting c;
  auto b = Buffer::Computed(16, 4, c.Fn(), &owner);
  Buffer::AbandonComputed();
  Buffer::SettleComputed(&owner);
  EXPECT_EQ(*c.calls, 0u);
  std::vector<std::byte> out(4);
  EXPECT_TRUE(b->ComputeInto(0, out)) << "made whole though abandoned";
}

// The driver's graph fingerprint (rewrite-cycle detection) reads a computed constant's samples through ComputeInto:
// fingerprinting never makes it whole, and its fingerprint is the same before and after it is made, and the same
// as a stored constant of the same bytes. Small constants are hashed whole, large ones sampled.
TEST(ComputedBuffer, FingerprintsReadSamplesWithoutMakingTheConstantWhole) {
  for (size_t elements : {size_t{100}, size_t{100'000}}) {
    auto m = testing::ParseModel(R"(<ir_version: 8, opset_import: ["" : 17]>
      g (float[1] x) => (float[1] y) <float[1] w = {1.0}> {
        y = Add (x, w)
      })");
    ASSERT_TRUE(m);
    Value* w = m->graph().FindValue("w");
    const std::vector<int64_t> dims{static_cast<int64_t>(elements)};
    const std::vector<std::byte> expected = Expected(elements);
    m->graph().SetInitializer(w, std::make_shared<const Tensor>(DataType::kFloat, dims, Buffer::Copy(expected)));
    const uint64_t stored = ModelFingerprint(*m);
    Counting c;
    auto computed = Buffer::Computed(elements * 4, 4, c.Fn());
    m->graph().SetInitializer(w, std::make_shared<const Tensor>(DataType::kFloat, dims, computed));
    EXPECT_EQ(ModelFingerprint(*m), stored) << elements;
    std::vector<std::byte> probe(4);
    EXPECT_TRUE(computed->ComputeInto(0, probe)) << elements << " elements: made whole by fingerprinting";
    if (elements > 1024) {
      EXPECT_LT(*c.bytes, elements) << "read beyond its samples";
    }
    (void)computed->data();
    EXPECT_EQ(ModelFingerprint(*m), stored) << elements << " elements, made whole";
    std::vector<std::byte> changed = expected;
    changed[1] ^= std::byte{1};
    m->graph().SetInitializer(w, std::make_shared<const Tensor>(DataType::kFloat, dims, Buffer::Copy(changed)));
    EXPECT_NE(ModelFingerprint(*m), stored) << elements;
  }
}

}  // namespace
}  // namespace kiln
