#pragma once
// The verification stage (docs/verify.md, docs/verify.md): the top-N candidates of a
// sweep re-run one by one through the reference engine in fp64, in parallel on
// host threads, optionally on another scoring window and objective. The result
// never depends on the thread count: every candidate is simulated on its own
// and written to its own slot.

#include <kbt/data/bar_data.hpp>
#include <kbt/config/run_config.hpp>
#include <kbt/reference/simulator.hpp>
#include <kbt/output/results.hpp>
#include <kbt/sweep/chunk_exchange.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace kbt {

// verify.top_n: auto: the best 1 % of the sweep's rows, at least 20 (or every
// row of a smaller sweep) and at most 1,000 (docs/verify.md "How many"). The
// reference engine re-runs a candidate on one thread, so verifying a fixed share
// of the grid keeps the stage a fixed share of the run's time.
std::uint64_t automatic_verify_count(std::uint64_t rows);
constexpr std::uint64_t max_automatic_verify_count = 1000;

struct VerifyRequest {
  std::optional<std::int64_t> top_n;  // candidates, best first by the sweep's objective; absent: auto
  int threads = 0;            // host threads; 0 = all cores
  // Scoring window: a bar index or a UTC timestamp (ns) for each end (not both).
  // An absent start keeps simulation.score_start; an absent end is the data's end.
  std::optional<std::int64_t> score_start_bar, score_start_time_ns;
  std::optional<std::int64_t> score_end_bar, score_end_time_ns;
  std::optional<Objective> objective;  // ranks after; default: the sweep's objective
  std::string sweep_precision = "fp64";  // "fp32" sweeps are checked by rank, not bits
  std::int64_t rank_threshold = 10;      // rank_moved: |after - before| above this
  // Called after each candidate with (done, total), from one thread at a time.
  std::function<void(std::size_t, std::size_t)> progress;
  // Shared among processes (docs/mpi.md): every process calls
  // verify_candidates with the same config, bars and request; the root's
  // sweep holds the candidates, which it hands to the others; each process
  // re-runs every size-th of them; the root's result is the single
  // process's, the others' are partial. Not owned.
  ChunkExchange* exchange = nullptr;
};

// The request that `verify:` in the run config describes (top_n, threads,
// score_start, score_end).
VerifyRequest verify_request_from_config(const RunConfig& config);

// The verification window of `request` on `bars` (bar indices [begin, end));
// kbt::Error(config) naming the verify keys when it is empty or out of range.
// `kbt run` calls it before sweeping, so that a bad window fails fast.
ScoringWindow resolve_verify_window(const RunConfig& config, const BarData& bars, const VerifyRequest& request);

// Verifies the top request.top_n (or automatic_verify_count) eligible rows of `sweep` (ordered by
// config.sweep.objective, ties by combo id) on `bars`, which must be the data
// the sweep ran on: the first rows of sweep.best when it holds that many,
// else selected from sweep.rows a block at a time. periods_per_year is resolved once from all the bars, as the
// sweep does. Throws kbt::Error(config) for a bad window, objective or
// top_n < 0, kbt::Error(data_format) when `sweep` lacks a strategy param.
VerificationResults verify_candidates(const RunConfig& config, const BarData& bars, const SweepResults& sweep,
                                      const VerifyRequest& request);

// A few lines for the terminal: counts, window, objective, mismatches, rank
// correlation and the best `show` candidates by verified rank with their rank
// before.
// Throws kbt::Error(verification) when a verified candidate's metrics differ
// from the sweep's (by bits, where checked): the results cannot be trusted.
// `results_path` names the file whose /verify records the mismatches.
void check_no_mismatch(const VerificationResults& verification, const std::string& results_path);

std::string format_verification_summary(const VerificationResults& verification, std::size_t show = 10);

// Spearman rank correlation between rank_before and rank_after over the
// candidates that are still eligible after verification (NaN below 2).
double verification_rank_correlation(const VerificationResults& verification);

// What re-running the combos of a results file needs: the file, its /config
// (parsed; data_path replaced by the profile's absolute data_path) and the
// data it ran on (kbt::Error(io) when the file is gone, kbt::Error(data_format)
// when its bar count differs from the run's).
struct ResultsRerun {
  LoadedResults loaded;
  RunConfig config;
  BarData bars;
};
ResultsRerun open_results_for_rerun(const std::string& results_path);

// Parses a window bound given on the command line: an integer is a bar index,
// anything else an ISO-8601 UTC timestamp. Exactly one of bar / time_ns is set.
// Throws kbt::Error(config) naming `what` when it is neither.
void parse_window_bound(const std::string& text, const std::string& what, std::optional<std::int64_t>& bar,
                        std::optional<std::int64_t>& time_ns);

}  // namespace kbt
