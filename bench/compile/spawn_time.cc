// bench_spawn_time: runs one command and writes its wall seconds and peak resident set to a file, as GNU time's
// `-o FILE -f '%e %M'` does, for bench/compile/run.sh's whole-process figures.
//
//   bench_spawn_time -o FILE COMMAND [ARGS...]     FILE gets "SECONDS MAX_RSS_KB\n"; exits with COMMAND's status
//
// The clock spans posix_spawn to wait4 and nothing else. Timed from bash around GNU time, as run.sh did before, the
// figure also held bash's fork of itself (bash forks, then execs; posix_spawn does not copy the parent) and GNU
// time's own start and exec: on this 2-core VM a whole-process O2 compile of the 1k-node chain read 50 ms from bash
// and 40 ms from here (run.sh, 7 runs). ORT's session creation, the figure beside it, is timed inside its process.
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

extern char** environ;

int main(int argc, char** argv) {
  if (argc < 4 || std::strcmp(argv[1], "-o") != 0) {
    std::fprintf(stderr, "usage: bench_spawn_time -o FILE COMMAND [ARGS...]\n");
    return 125;
  }
  const char* out_path = argv[2];
  char** command = argv + 3;
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  if (int err = posix_spawnp(&pid, command[0], nullptr, nullptr, command, environ); err != 0) {
    std::fprintf(stderr, "bench_spawn_time: %s: %s\n", command[0], std::strerror(err));
    return 127;
  }
  int status = 0;
  rusage usage{};
  pid_t waited = 0;
  while ((waited = wait4(pid, &status, 0, &usage)) < 0 && errno == EINTR) {
  }
  const auto end = std::chrono::steady_clock::now();
  if (waited != pid) {
    std::fprintf(stderr, "bench_spawn_time: wait4: %s\n", std::strerror(errno));
    return 125;
  }
  std::FILE* out = std::fopen(out_path, "w");
  if (out == nullptr) {
    std::fprintf(stderr, "bench_spawn_time: %s: %s\n", out_path, std::strerror(errno));
    return 125;
  }
  std::fprintf(out, "%.6f %ld\n", std::chrono::duration<double>(end - start).count(), usage.ru_maxrss);
  if (std::fclose(out) != 0) return 125;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 125;
}
