#pragma once
// Runs the kbt executable in a child process and captures what a user sees.

#include "kbt_test_paths.hpp"  // KBT_CLI_PATH, KBT_SOURCE_DIR, KBT_TEST_DIR
#include <array>
#include <cstdio>
#include <fcntl.h>
#include <functional>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace kbt::test {

struct CliResult {
  int exit_code;
  std::string output;  // stdout and stderr together
};

// Runs a shell command line (caller quotes) with stderr joined to stdout.
inline CliResult run_command(const std::string& command) {
  const std::string cmd = command + " 2>&1";
  CliResult result{-1, {}};
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) result.output.append(buf.data(), n);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

// `args` is appended to the kbt path as-is (caller quotes).
inline CliResult run_kbt(const std::string& args) { return run_command(std::string(KBT_CLI_PATH) + " " + args); }

// Starts `kbt args...` (no shell) with stdout and stderr to the file `log`
// (none when empty); `in_child` runs in the child just before exec (limits,
// signal dispositions, other descriptors). Returns its pid, for tests that
// signal, race or wait for a running kbt.
inline pid_t spawn_kbt(const std::vector<std::string>& args, const std::string& log,
                       const std::function<void()>& in_child = {}) {
  std::vector<std::string> argv_s{KBT_CLI_PATH};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : argv_s) argv.push_back(s.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (!log.empty()) {
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) ::dup2(fd, 1), ::dup2(fd, 2);
    }
    if (in_child) in_child();
    ::execv(KBT_CLI_PATH, argv.data());
    ::_exit(127);
  }
  return pid;
}

}  // namespace kbt::test
