// kiln_helper_thread.hpp: a helper thread leaves its creator's CPU where another may be used (moving itself, or moved
// by its creator before it runs), and stays where it was otherwise.
#include <kiln/kiln_helper_thread.hpp>

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <thread>

namespace {

cpu_set_t AffinityOf(pthread_t t) {
  cpu_set_t s;
  CPU_ZERO(&s);
  EXPECT_EQ(pthread_getaffinity_np(t, sizeof s, &s), 0);
  return s;
}

TEST(HelperThread, LeavesItsCreatorsCpuWhenAnotherIsAllowed) {
  const int creator = kiln::sdk::CurrentCpu();
  ASSERT_GE(creator, 0);
  const cpu_set_t before = AffinityOf(pthread_self());
  cpu_set_t after;
  std::thread([&] {
    kiln::sdk::MoveOffCpu(creator);
    after = AffinityOf(pthread_self());
  }).join();
  if (CPU_COUNT(&before) < 2) {  // one CPU allowed: nowhere else to go, and the thread must still run there
    EXPECT_TRUE(CPU_EQUAL(&before, &after));
    return;
  }
  EXPECT_FALSE(CPU_ISSET(creator, &after));
  EXPECT_EQ(CPU_COUNT(&after), CPU_COUNT(&before) - 1);  // every other allowed CPU stays allowed
  const cpu_set_t creator_now = AffinityOf(pthread_self());
  EXPECT_TRUE(CPU_EQUAL(&before, &creator_now));  // the creator itself is not restricted
}

TEST(HelperThread, OffCreatorCpuLeavesTheCpuTheWrapperWasMadeOn) {
  const cpu_set_t before = AffinityOf(pthread_self());
  const int cpu_before = kiln::sdk::CurrentCpu();
  auto wrapped = kiln::sdk::OffCreatorCpu([] { return AffinityOf(pthread_self()); });  // reads the CPU here
  const int cpu_after = kiln::sdk::CurrentCpu();
  ASSERT_GE(cpu_before, 0);
  cpu_set_t after;
  std::thread([&] { after = wrapped(); }).join();  // fn's value comes back through the wrapper
  if (CPU_COUNT(&before) < 2) {
    EXPECT_TRUE(CPU_EQUAL(&before, &after));
    return;
  }
  EXPECT_EQ(CPU_COUNT(&after), CPU_COUNT(&before) - 1);
  // The CPU left is the one this thread ran on when it made the wrapper (it may have moved once meanwhile).
  EXPECT_TRUE(!CPU_ISSET(cpu_before, &after) || !CPU_ISSET(cpu_after, &after));
}

TEST(HelperThread, StartOffCreatorCpuRestrictsTheThreadFromItsCreator) {
  const cpu_set_t before = AffinityOf(pthread_self());
  const int cpu_before = kiln::sdk::CurrentCpu();
  ASSERT_GE(cpu_before, 0);
  std::atomic<bool> go{false};
  cpu_set_t seen;
  // The thread does nothing to its own placement and reads it only once the creator is done: what it sees is what
  // the creator set.
  std::thread t = kiln::sdk::StartOffCreatorCpu([&] {
    while (!go.load()) std::this_thread::yield();
    seen = AffinityOf(pthread_self());
  });
  const int cpu_after = kiln::sdk::CurrentCpu();
  go = true;
  t.join();
  const cpu_set_t creator_now = AffinityOf(pthread_self());
  EXPECT_TRUE(CPU_EQUAL(&before, &creator_now));  // the creator itself is not restricted
  if (CPU_COUNT(&before) < 2) {
    EXPECT_TRUE(CPU_EQUAL(&before, &seen));
    return;
  }
  EXPECT_EQ(CPU_COUNT(&seen), CPU_COUNT(&before) - 1);
  EXPECT_TRUE(!CPU_ISSET(cpu_before, &seen) || !CPU_ISSET(cpu_after, &seen));
}

TEST(HelperThread, StaysPutWhenItsCreatorsCpuIsUnknown) {
  const cpu_set_t before = AffinityOf(pthread_self());
  cpu_set_t after;
  std::thread([&] {
    kiln::sdk::MoveOffCpu(-1);
    after = AffinityOf(pthread_self());
  }).join();
  EXPECT_TRUE(CPU_EQUAL(&before, &after));
}

TEST(HelperThread, StaysPutWhenItsCreatorsCpuIsTheOnlyOne) {
  const int cpu = kiln::sdk::CurrentCpu();
  ASSERT_GE(cpu, 0);
  cpu_set_t only;
  CPU_ZERO(&only);
  CPU_SET(cpu, &only);
  cpu_set_t after;
  std::thread([&] {
    ASSERT_EQ(pthread_setaffinity_np(pthread_self(), sizeof only, &only), 0);
    kiln::sdk::MoveOffCpu(cpu);
    after = AffinityOf(pthread_self());
  }).join();
  EXPECT_TRUE(CPU_EQUAL(&only, &after));
}

}  // namespace
