// kbt command-line entry point: registers the sub-commands, runs one, and
// turns every kbt::Error into one clear message and a non-zero exit.

#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <kbt/error.hpp>
#include <kbt/version.hpp>

#include <cstdio>
#include <exception>

#include "cli/commands.hpp"

int main(int argc, char* argv[]) {
  // Kokkos consumes its own --kokkos-* arguments (e.g. --kokkos-num-threads=N)
  // before CLI11 sees the rest.
  Kokkos::ScopeGuard kokkos(argc, argv);

  CLI::App app{"kbt — backtest parameter sweeps on Kokkos"};
  app.set_version_flag("--version", std::string("kbt ") + kbt::version_string);
  app.require_subcommand(1);
  kbt::cli::add_info_command(app);
  kbt::cli::add_check_command(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const kbt::Error& e) {
    std::fprintf(stderr, "kbt: error [%s]: %s\n", kbt::to_string(e.category()), e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kbt: error [internal]: %s\n", e.what());
    return 1;
  }
  return 0;
}
