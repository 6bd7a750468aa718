// A host code that runs under MPI already hands kbt its communicator
// (docs/mpi.md "The C++ API"): one sweep shared among the ranks of a
// communicator the application made, against the same sweep on one process.
// Built only when the installed kbt has MPI (KBT_HAVE_MPI).
#include <kbt/kbt.hpp>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cstdio>
#include <cstring>

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);  // the application's, before Kokkos
  int status = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    MPI_Comm app;  // the host code's own communicator
    MPI_Comm_dup(MPI_COMM_WORLD, &app);
    int rank = 0, size = 1;
    MPI_Comm_rank(app, &rank);
    MPI_Comm_size(app, &size);

    kbt::SynthOptions synth;
    synth.n_symbols = 1;
    synth.n_bars = 800;
    const kbt::BarData bars = kbt::synth_bars(synth);
    const kbt::RunConfig config = kbt::parse_run_config(R"(data: unused.h5
strategy:
  params:
    fast: {range: [2, 20, 2]}
    slow: {range: [25, 60, 5]}
  signals:
    f: sma(close, fast)
    s: sma(close, slow)
  position: where(f > s, 1, -1)
sweep: {objective: {metric: sharpe}, top_k: 5}
)", "<downstream mpi>", "");
    kbt::SweepJobOptions options;
    options.device = kbt::enabled_execution_spaces().front().name;
    options.quiet = true;
    options.checkpoint_combos = 4;
    {
      kbt::MpiExchange exchange(app);  // collective
      options.exchange = &exchange;
      const kbt::SweepJobResult shared = kbt::run_sweep_job(config, bars, options);
      if (rank == 0) {
        options.exchange = nullptr;
        const kbt::SweepJobResult alone = kbt::run_sweep_job(config, bars, options);
        const kbt::RowTable a = kbt::read_all_rows(*shared.sweep.results.rows);
        const kbt::RowTable b = kbt::read_all_rows(*alone.sweep.results.rows);
        const bool same = a.size() > 0 && a.combo_ids == b.combo_ids &&
                          std::memcmp(a.metrics.data(), b.metrics.data(), a.metrics.size() * sizeof(double)) == 0 &&
                          shared.sweep.results.top_k_rows().rows == alone.sweep.results.top_k_rows().rows;
        std::printf("kbt downstream mpi: ranks=%d combos=%zu top=%zu same=%s\n", size, a.size(),
                    shared.sweep.results.top_k, same ? "yes" : "no");
        status = same ? 0 : 1;
      }
    }
    MPI_Comm_free(&app);
  }
  MPI_Finalize();
  return status;
}
