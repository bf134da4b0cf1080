// Where a helper thread runs: a thread started to work beside the one that started it (reading a plugin's files,
// building a table it will need) does better on another CPU than its creator's. Linux starts a new thread on its
// creator's CPU, and on a small machine the two may share that CPU for several milliseconds while another idles:
// measured in `kiln compile` on 2 CPUs, whose helper threads (ONNX's schemas, the fusion rule packs) then added their
// time to the compile's instead of overlapping it. Header-only, part of the SDK; needs no host.
//
//   std::thread helper(kiln::sdk::OffCreatorCpu([] { ... }));   // or std::async(std::launch::async, ...)
#ifndef KILN_HELPER_THREAD_HPP_
#define KILN_HELPER_THREAD_HPP_

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

#include <utility>

namespace kiln::sdk {

// The CPU the calling thread runs on now, or -1 where that cannot be known.
inline int CurrentCpu() {
#if defined(__linux__)
  return sched_getcpu();
#else
  return -1;
#endif
}

// Lets the calling thread run on any CPU it may use but `cpu` (CurrentCpu() of the thread that started it), for the
// rest of its life: meant for short-lived helpers. Does nothing when `cpu` is -1, when no other CPU is allowed, or
// off Linux; a failure leaves the thread where it was (placement is a hint, never needed for correctness).
inline void MoveOffCpu(int cpu) {
#if defined(__linux__)
  cpu_set_t allowed;
  if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
  CPU_CLR(cpu, &allowed);
  if (CPU_COUNT(&allowed) > 0) (void)pthread_setaffinity_np(pthread_self(), sizeof allowed, &allowed);
#else
  (void)cpu;
#endif
}

// `fn` wrapped to run off the CPU of the thread that wraps it: the creator's CPU is read here, in the creator, and
// the new thread moves off it before it calls `fn`. Pass the result to std::thread or std::async.
template <typename Fn>
auto OffCreatorCpu(Fn fn) {
  return [creator_cpu = CurrentCpu(), fn = std::move(fn)]() mutable {
    MoveOffCpu(creator_cpu);
    return fn();
  };
}

}  // namespace kiln::sdk

#endif  // KILN_HELPER_THREAD_HPP_
