// kbt command-line entry point: registers the sub-commands, runs one, and
// turns every kbt::Error into one clear message and a non-zero exit.

#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <hdf5.h>
#include <kbt/core/detail/thread_binding.hpp>
#include <kbt/core/error.hpp>
#include <kbt/core/version.hpp>

#include <cstdio>
#include <cstring>
#include <vector>
#include <exception>

#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "cli/mpi_session.hpp"
#include "cli/usage_errors.hpp"
#include "data/hdf5_support.hpp"

namespace {

int run_cli(int argc, char* argv[]);

}  // namespace

int main(int argc, char* argv[]) {
  // HDF5 terminates at exit only when every file closed (a full disk can make
  // a close fail, and HDF5 1.10 then crashes in its own exit handler).
  H5dont_atexit();
  // Under mpirun: MPI before Kokkos, finalised after it (docs/mpi.md).
  const kbt::cli::MpiSession mpi(&argc, &argv);
  const int status = run_cli(argc, argv);
  kbt::detail::finish_hdf5();
  return status;
}

namespace {

int run_cli(int argc, char* argv[]) {
  // Kokkos gets only the --kokkos-* arguments (e.g. --kokkos-num-threads=2):
  // Kokkos 3.4 would otherwise answer a plain --help with its own help text.
  std::vector<char*> kokkos_args{argv[0]}, kbt_args{argv[0]};
  for (int i = 1; i < argc; ++i)
    (std::strncmp(argv[i], "--kokkos-", 9) == 0 ? kokkos_args : kbt_args).push_back(argv[i]);
  kbt::cli::add_device_argument(kokkos_args);
  int kokkos_argc = static_cast<int>(kokkos_args.size());
  kokkos_args.push_back(nullptr);
  kbt::detail::leave_threads_unbound_unless_chosen();
  Kokkos::ScopeGuard kokkos(kokkos_argc, kokkos_args.data());
  argc = static_cast<int>(kbt_args.size());
  kbt_args.push_back(nullptr);
  argv = kbt_args.data();

  CLI::App app{"kbt — backtest parameter sweeps on Kokkos"};
  app.set_version_flag("--version", std::string("kbt ") + kbt::version_string);
  app.require_subcommand(1);
  kbt::cli::add_info_command(app);
  kbt::cli::add_run_command(app);
  kbt::cli::add_backtest_command(app);
  kbt::cli::add_show_command(app);
  kbt::cli::add_data_command(app);
  kbt::cli::add_check_command(app);
  kbt::cli::add_eval_command(app);
  kbt::cli::add_verify_command(app);
  kbt::cli::add_validate_command(app);
  kbt::cli::add_plot_command(app);
  kbt::cli::add_calibrate_command(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return kbt::cli::is_root_rank() ? app.exit(e) : 0;  // --help, --version
    // A usage error (docs/cli.md "Exit codes"): one line with the kbt: prefix,
    // a guess at a misspelt subcommand or flag, and where the help is. Every
    // rank of an mpirun sees the same arguments; the first one says it.
    if (!kbt::cli::is_root_rank()) return kbt::cli::exit_usage;
    std::fprintf(stderr, "kbt: usage error: %s\nkbt: see '%s --help'\n", kbt::cli::usage_message(app, e.what()).c_str(),
                 kbt::cli::command_path(app).c_str());
    return kbt::cli::exit_usage;
  } catch (const kbt::cli::Interrupted& e) {
    std::fprintf(stderr, "%s\n", e.message.c_str());
    return kbt::cli::exit_interrupted;
  } catch (const kbt::Error& e) {
    // Under mpirun: an error every rank agreed on is the first rank's to say;
    // one rank's own failure stops them all (docs/mpi.md "Faults").
    const std::string line = std::string("error [") + kbt::to_string(e.category()) + "]: " + e.what();
    if (!dynamic_cast<const kbt::AgreedError*>(&e)) kbt::cli::abort_other_ranks(line, kbt::cli::exit_error);
    if (kbt::cli::is_root_rank()) std::fprintf(stderr, "kbt: %s\n", line.c_str());
    return kbt::cli::exit_error;
  } catch (const std::exception& e) {
    const std::string line = std::string("error [internal]: ") + e.what();
    kbt::cli::abort_other_ranks(line, kbt::cli::exit_error);
    std::fprintf(stderr, "kbt: %s\n", line.c_str());
    return kbt::cli::exit_error;
  }
  return kbt::cli::exit_success;
}

}  // namespace
