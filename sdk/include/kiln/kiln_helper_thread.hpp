// Where a helper thread runs: a thread started to work beside the one that started it (reading a plugin's files,
// building a table it will need) does better on another CPU than its creator's. Linux starts a new thread on its
// creator's CPU, and on a small machine the two may share that CPU for several milliseconds while another idles:
// measured in `kiln compile` on 2 CPUs, whose helper threads (ONNX's schemas, the fusion rule packs) then added their
// time to the compile's instead of overlapping it. Header-only, part of the SDK; needs no host.
//
//   std::thread helper = kiln::sdk::StartOffCreatorCpu([] { ... });   // placed before it first runs
//   std::thread helper(kiln::sdk::OffCreatorCpu([] { ... }));          // moves itself first; or with std::async
//
// StartOffCreatorCpu is the better of the two where a std::thread will do: a thread that moves itself must first run
// where it was put, on its creator's CPU, and waits there until the creator is preempted (0.7 ms on the 2-CPU VM
// here, `perf sched timehist`, an O2 compile of a one-node model); one the creator moves is taken off that CPU's
// queue before it runs.
#ifndef KILN_HELPER_THREAD_HPP_
#define KILN_HELPER_THREAD_HPP_

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

#include <thread>
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

#if defined(__linux__)
// Lets thread `t` of this process run on any CPU it may use but `cpu`, for the rest of its life. Does nothing when
// `cpu` is -1 or no other CPU is allowed; a failure leaves the thread where it was (placement is a hint, never needed
// for correctness).
inline void MoveThreadOffCpu(pthread_t t, int cpu) {
  cpu_set_t allowed;
  if (cpu < 0 || cpu >= CPU_SETSIZE || pthread_getaffinity_np(t, sizeof allowed, &allowed) != 0) return;
  CPU_CLR(cpu, &allowed);
  if (CPU_COUNT(&allowed) > 0) (void)pthread_setaffinity_np(t, sizeof allowed, &allowed);
}
#endif

// Lets the calling thread run on any CPU it may use but `cpu` (CurrentCpu() of the thread that started it), for the
// rest of its life: meant for short-lived helpers. Does nothing when `cpu` is -1, when no other CPU is allowed, or
// off Linux; a failure leaves the thread where it was (placement is a hint, never needed for correctness).
inline void MoveOffCpu(int cpu) {
#if defined(__linux__)
  MoveThreadOffCpu(pthread_self(), cpu);
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

// Starts `fn` on a new thread that may run on any CPU its creator may but the one the creator runs on now: the
// creator restricts it before it first runs, so the kernel moves it off that CPU's queue at once (see the top of this
// file). Off Linux, or where the CPU cannot be known or no other is allowed, a plain std::thread. Throws what
// std::thread's constructor throws (std::system_error when no thread is to be had).
template <typename Fn>
std::thread StartOffCreatorCpu(Fn fn) {
  const int creator_cpu = CurrentCpu();
  std::thread t(std::move(fn));
#if defined(__linux__)
  MoveThreadOffCpu(t.native_handle(), creator_cpu);
#else
  (void)creator_cpu;
#endif
  return t;
}

}  // namespace kiln::sdk

#endif  // KILN_HELPER_THREAD_HPP_
