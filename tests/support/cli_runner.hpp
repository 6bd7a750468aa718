#pragma once
// Runs the kbt executable in a child process and captures what a user sees.

#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

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

}  // namespace kbt::test
