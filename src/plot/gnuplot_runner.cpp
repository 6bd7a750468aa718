// Finding and running gnuplot (internal to src/plot).

#include <kbt/core/atomic_output.hpp>
#include <kbt/core/error.hpp>

#include <atomic>
#include <cerrno>
#include <fcntl.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plot/gnuplot_runner.hpp"
#include "plot/plots.hpp"

extern char** environ;

namespace kbt::plot {

std::string find_gnuplot() {
  const char* path = std::getenv("PATH");
  if (!path) return {};
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    const auto candidate = std::filesystem::path(dir) / "gnuplot";
    if (::access(candidate.c_str(), X_OK) == 0 && !std::filesystem::is_directory(candidate)) return candidate.string();
  }
  return {};
}

namespace detail {

ScratchDirectory::ScratchDirectory() {
  static std::atomic<unsigned> counter{0};
  path_ = (std::filesystem::temp_directory_path() /
           ("kbt_plot_" + std::to_string(::getpid()) + "_" + std::to_string(counter++)))
              .string();
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
  if (!std::filesystem::create_directories(path_, ec) || ec)
    throw Error(ErrorCategory::io, "cannot create the temporary directory '" + path_ + "'");
}

ScratchDirectory::~ScratchDirectory() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string ScratchDirectory::file(const std::string& name) const {
  return (std::filesystem::path(path_) / name).string();
}

std::string quote(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') out += "\\n";
    else out += c;
  }
  return out + "\"";
}

void run_gnuplot(const std::string& script_body, const std::string& out_path, const ScratchDirectory& scratch) {
  const std::string gnuplot = find_gnuplot();
  if (gnuplot.empty())
    throw Error(ErrorCategory::unsupported,
                "cannot draw '" + out_path +
                    "': gnuplot is not on PATH (unsupported:gnuplot_missing); install it, e.g. apt-get install "
                    "gnuplot-nox");
  const auto parent = std::filesystem::path(out_path).parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    if (ec) throw Error(ErrorCategory::io, "cannot create directory '" + parent.string() + "': " + ec.message());
  }
  AtomicOutput out(out_path);
  const std::string script_path = scratch.file("plot.gp"), log_path = scratch.file("gnuplot.log");
  {
    std::ofstream script(script_path);
    script << "set terminal pngcairo size 1000,760 enhanced font 'sans,10'\n";
    script << "set output " << quote(out.temp_path()) << "\n";
    script << script_body;
    script << "unset output\n";
    if (!script.flush()) throw Error(ErrorCategory::io, "cannot write '" + script_path + "'");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::string arg0 = gnuplot, arg1 = script_path;
  char* argv[] = {arg0.data(), arg1.data(), nullptr};
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, gnuplot.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) throw Error(ErrorCategory::io, "cannot run '" + gnuplot + "'");
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw Error(ErrorCategory::io, "lost track of gnuplot (waitpid failed)");
  }
  std::ifstream log(log_path);
  std::stringstream messages;
  messages << log.rdbuf();
  const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  std::error_code ec;
  if (!ok || !std::filesystem::exists(out.temp_path(), ec) || std::filesystem::file_size(out.temp_path(), ec) == 0)
    throw Error(ErrorCategory::internal, "gnuplot failed to draw '" + out_path + "': " + messages.str());
  out.commit();
}

std::ofstream open_data(const std::string& path) {
  std::ofstream f(path);
  f.precision(17);
  return f;
}

void finish_data(std::ofstream& f, const std::string& path) {
  if (!f.flush()) throw Error(ErrorCategory::io, "cannot write '" + path + "'");
}

}  // namespace detail
}  // namespace kbt::plot
