// Faults seen through the real binary (docs/testing.md "Faults"): a write
// that fails part-way (a file-size limit, as a full disk does), an output
// that cannot be moved into place, readers holding the live checkpoint open
// with HDF5's default file locking, a second writer on the same output, a
// stale lock of a killed run, temporaries orphaned by killed runs, data
// edited in place, a verification that disagrees with the sweep.

#include <gtest/gtest.h>
#include <hdf5.h>
#include <kbt/core/error.hpp>
#include <kbt/output/checkpoint.hpp>
#include <kbt/output/results.hpp>
#include <kbt/output/run_lock.hpp>

#include <chrono>
#include <cstdlib>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include "support/cli_runner.hpp"
#include "support/scratch_dir.hpp"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// libhdf5 1.10 leaks small internal buffers on some error paths of a file
// caught mid-write (the same leaks tests/fuzz/lsan.supp names for corrupt
// files). A reader of the live checkpoint, standing in for h5dump or h5py,
// meets them by design; the leak checker ignores what is allocated while one
// of these lives, which is only such a read.
struct IgnoreLeaksOfForeignReads {
#if defined(__SANITIZE_ADDRESS__)
  IgnoreLeaksOfForeignReads() { __lsan_disable(); }
  ~IgnoreLeaksOfForeignReads() { __lsan_enable(); }
#else
  IgnoreLeaksOfForeignReads() {}
#endif
  IgnoreLeaksOfForeignReads(const IgnoreLeaksOfForeignReads&) = delete;
  IgnoreLeaksOfForeignReads& operator=(const IgnoreLeaksOfForeignReads&) = delete;
};

struct Scratch : kbt::test::ScratchDir {
  explicit Scratch(const std::string& name) : ScratchDir("faults_" + name) {}
};

std::string read_text(const std::string& p) {
  std::ifstream f(p);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// A synthetic data file and a config over it; `bars` sets how long a run takes.
std::string make_run(const Scratch& s, int bars, int checkpoint_combos, bool csv) {
  const auto synth = kbt::test::run_kbt("data synth --out " + (s / "synth.h5") + " --symbols 1 --bars " +
                                        std::to_string(bars) + " --freq 1h --seed 7");
  EXPECT_EQ(synth.exit_code, 0) << synth.output;
  const std::string cfg = s / "cfg.yaml";
  std::ofstream(cfg) << "data: synth.h5\nstrategy:\n  params:\n    fast: {range: [2, 40, 2]}\n"
                        "    slow: {range: [10, 200, 10]}\n  constraints: [\"fast < slow\"]\n"
                        "  signals:\n    f: ema(close, fast)\n    s: sma(close, slow)\n"
                        "  position: where(f > s, 1, -1)\n"
                        "simulation: {fee_bps: 5}\n"
                        "sweep: {top_k: 500, checkpoint_combos: "
                     << checkpoint_combos
                     << ", objective: {metric: sharpe, min_trades: 5}}\n"
                        "verify: {top_n: 10}\n"
                        "output: {csv: "
                     << (csv ? "true" : "false") << "}\n";
  return cfg;
}

// `kbt args...` with RLIMIT_FSIZE = `max_file_bytes` and SIGXFSZ ignored: a
// write past the limit fails with EFBIG, as one fails with ENOSPC on a full
// disk. Returns the raw wait status; the output goes to `log`.
int run_with_file_limit(const std::vector<std::string>& args, rlim_t max_file_bytes, const std::string& log) {
  const pid_t pid = kbt::test::spawn_kbt(args, log, [max_file_bytes] {
    const struct rlimit limit {max_file_bytes, max_file_bytes};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    ::signal(SIGXFSZ, SIG_IGN);
  });
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

// The names in `dir` that start with `prefix`.
std::vector<std::string> entries_starting(const fs::path& dir, const std::string& prefix) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n.compare(0, prefix.size(), prefix) == 0) names.push_back(n);
  }
  return names;
}

void expect_one_io_error(int status, const std::string& log_text, const std::string& what) {
  ASSERT_TRUE(WIFEXITED(status)) << what << ": ended by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0)
                                 << "\n" << log_text;
  EXPECT_EQ(WEXITSTATUS(status), 1) << what << "\n" << log_text;
  std::size_t errors = 0;
  for (std::size_t at = log_text.find("error ["); at != std::string::npos; at = log_text.find("error [", at + 1))
    ++errors;
  EXPECT_EQ(errors, 1u) << what << "\n" << log_text;
  EXPECT_NE(log_text.find("error [io]"), std::string::npos) << what << "\n" << log_text;
}

pid_t a_dead_pid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return pid;
}

}  // namespace

// A write that fails at the end of the run (the results file) or at its
// start (the checkpoint) ends in one [io] error and exit 1, never a signal,
// and leaves nothing at a final path; the sweep's checkpoint survives a
// failed final write, so --resume then finishes the run.
TEST(CliFaults, FailedWritesEndInOneIoErrorAndLeaveNoFinalFile) {
  const Scratch s("write");
  const std::string cfg = make_run(s, 3000, 64, true);
  const std::string out = s / "r.h5", csv = s / "r_topk.csv", ckpt = out + ".partial.h5";
  const std::vector<std::string> args{"run", cfg, "--device", "reference", "--threads", "2", "--quiet", "--out", out};

  // The size of a finished run's results file.
  const std::string ref = s / "ref.h5";
  {
    std::vector<std::string> a = args;
    a.back() = ref;
    const int status = run_with_file_limit(a, RLIM_INFINITY, s / "ref.log");
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << read_text(s / "ref.log");
  }
  const auto results_bytes = static_cast<rlim_t>(fs::file_size(ref));

  // The results cannot be written whole: the checkpoint (the rows, nearly
  // the whole results file) fits, the space finishing it needs does not, so
  // the run fails at its last step with the checkpoint untouched.
  {
    const int status = run_with_file_limit(args, results_bytes, s / "late.log");
    const std::string log = read_text(s / "late.log");
    expect_one_io_error(status, log, "results write");
    EXPECT_NE(log.find(ckpt + ": cannot write the results"), std::string::npos) << log;
    EXPECT_FALSE(fs::exists(out));
    EXPECT_FALSE(fs::exists(csv));
    EXPECT_EQ(entries_starting(s.dir, "r.h5.partial.").size(), 1u) << "only the checkpoint";
    EXPECT_TRUE(entries_starting(s.dir, "r_topk.csv.").empty());
    ASSERT_TRUE(fs::exists(ckpt)) << "the sweep's checkpoint is kept for --resume";
    const auto resumed = kbt::test::run_kbt("run " + cfg + " --device reference --quiet --resume --out " + out);
    ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
    EXPECT_TRUE(fs::exists(out) && fs::exists(csv));
    EXPECT_FALSE(fs::exists(ckpt));
    fs::remove(out);
    fs::remove(csv);
  }
  // Not even the checkpoint fits: the run fails before it sweeps.
  {
    const int status = run_with_file_limit(args, 8192, s / "early.log");
    const std::string log = read_text(s / "early.log");
    expect_one_io_error(status, log, "checkpoint write");
    EXPECT_NE(log.find(ckpt + ": cannot write"), std::string::npos) << log;
    EXPECT_TRUE(entries_starting(s.dir, "r.h5").empty()) << "nothing of r.h5, not even a temporary";
    EXPECT_TRUE(entries_starting(s.dir, "r_topk").empty());
  }
  // The CSV cannot be moved into place (a folder is in its way): the results
  // file, written and ready, is not moved either.
  {
    fs::create_directories(fs::path(csv) / "in_the_way");
    const auto r = kbt::test::run_kbt("run " + cfg + " --device reference --quiet --out " + out);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("error [io]"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(out));
    EXPECT_TRUE(fs::exists(ckpt));
    fs::remove_all(csv);
    const auto resumed = kbt::test::run_kbt("run " + cfg + " --device reference --quiet --resume --out " + out);
    ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
    EXPECT_TRUE(fs::is_regular_file(csv));
    EXPECT_EQ(kbt::read_results_hdf5(out).results.n_rows(), kbt::read_results_hdf5(ref).results.n_rows());
  }
}

// Readers that open the live checkpoint with HDF5's default file locking
// (as h5dump and h5py do) — one holding it open for the whole run, one
// opening and closing it in a loop — do not stop the sweep, and each sees a
// consistent state: combos_done only grows, in whole chunks.
TEST(CliFaults, ReadersOfTheLiveCheckpointDoNotStopTheRun) {
  const Scratch s("readers");
  const std::string cfg = make_run(s, 40000, 8, false);
  const std::string out = s / "r.h5", ckpt = out + ".partial.h5";
  const pid_t pid = kbt::test::spawn_kbt({"run", cfg, "--device", "reference", "--threads", "1", "--quiet", "--out", out},
                                         s / "run.log");
  ASSERT_GT(pid, 0);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  // The holder: another process (in this one, every open would share the
  // first open's cached state), like an h5py session left open.
  const pid_t holder = ::fork();
  if (holder == 0) {
    const auto until = Clock::now() + std::chrono::seconds(120);
    while (Clock::now() < until && !fs::exists(ckpt)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const hid_t held = H5Fopen(ckpt.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (held < 0) ::_exit(3);
    for (;;) ::pause();  // until killed, the file open
  }
  ASSERT_GT(holder, 0);
  int opens = 0, commits_seen = 0, status = 0;
  std::uint64_t last_done = 0;
  bool exited = false;
  const auto deadline = Clock::now() + std::chrono::seconds(120);
  while (Clock::now() < deadline) {
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      break;
    }
    const IgnoreLeaksOfForeignReads foreign_read;
    const hid_t f = fs::exists(ckpt) ? H5Fopen(ckpt.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT) : -1;
    if (f >= 0) {
      ++opens;
      std::uint64_t done = 0, total = 0;
      const hid_t total_attr = H5Aopen(f, "combos_total", H5P_DEFAULT);
      if (total_attr >= 0) H5Aread(total_attr, H5T_NATIVE_UINT64, &total), H5Aclose(total_attr);
      const hid_t attr = H5Aopen(f, "combos_done", H5P_DEFAULT);
      if (attr >= 0 && H5Aread(attr, H5T_NATIVE_UINT64, &done) >= 0) {
        EXPECT_GE(done, last_done) << "combos_done went back";
        EXPECT_TRUE(done % 8 == 0 || done == total) << "a partial chunk is visible: " << done << " of " << total;
        commits_seen += done > last_done;
        last_done = done;
      }
      if (attr >= 0) H5Aclose(attr);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // hold it a while
      H5Fclose(f);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!exited) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
  int holder_status = 0;
  const bool holder_alive = ::waitpid(holder, &holder_status, WNOHANG) == 0;
  ::kill(holder, SIGKILL);
  ::waitpid(holder, nullptr, 0);
  ASSERT_TRUE(exited) << "the run did not finish in 120 s";
  const std::string log = read_text(s / "run.log");
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << log;
  EXPECT_TRUE(holder_alive) << "the holding reader could not open the checkpoint (exit " << WEXITSTATUS(holder_status) << ")";
  EXPECT_GE(opens, 5) << "too few reads of the live checkpoint to mean anything";
  EXPECT_GE(commits_seen, 2) << "the readers saw fewer than two commits";
  EXPECT_TRUE(fs::exists(out));
  EXPECT_FALSE(fs::exists(ckpt));
}

// While a run of an output lives, a second run (or --resume) of the same
// output is refused with the holder named, and touches nothing; a lock left
// by a killed run does not block the resume.
TEST(CliFaults, ASecondWriterIsRefusedAndAStaleLockIsNot) {
  const Scratch s("writers");
  const std::string cfg = make_run(s, 40000, 8, false);
  const std::string out = s / "r.h5", ckpt = out + ".partial.h5", lock = kbt::RunLock::path_for(out);
  const std::vector<std::string> args{"run", cfg, "--device", "reference", "--threads", "1", "--quiet", "--out", out};
  const pid_t first = kbt::test::spawn_kbt(args, s / "first.log");
  ASSERT_GT(first, 0);
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  while (Clock::now() < deadline && !fs::exists(ckpt)) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_TRUE(fs::exists(ckpt)) << read_text(s / "first.log");
  for (const std::string extra : {"", " --resume"}) {
    const auto second = kbt::test::run_kbt("run " + cfg + " --device reference --quiet --out " + out + extra);
    EXPECT_EQ(second.exit_code, 1) << second.output;
    EXPECT_NE(second.output.find("error [io]: " + lock + ": another kbt run of " + out + " is running (pid " +
                                 std::to_string(first)),
              std::string::npos)
        << second.output;
  }
  // The first run is still sweeping: kill it; its lock file stays behind.
  int status = 0;
  ASSERT_EQ(::waitpid(first, &status, WNOHANG), 0) << "the first run ended before the second was tried";
  ::kill(first, SIGKILL);
  ::waitpid(first, &status, 0);
  ASSERT_TRUE(fs::exists(lock));
  ASSERT_TRUE(fs::exists(ckpt));
  EXPECT_NE(read_text(lock).find("pid " + std::to_string(first)), std::string::npos);
  const auto resumed = kbt::test::run_kbt("run " + cfg + " --device reference --quiet --resume --out " + out);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_TRUE(fs::exists(out));
  EXPECT_FALSE(fs::exists(ckpt));
  EXPECT_FALSE(fs::exists(lock)) << "a finished run removes its lock file";
}

// Temporaries of killed runs (`<path>.partial.<pid>` of the results, the CSV
// and the checkpoint) are removed by the next run of that output; one of a
// live process is kept.
TEST(CliFaults, TheNextRunRemovesOrphanedTemporaries) {
  const Scratch s("orphans");
  const std::string cfg = make_run(s, 2000, 64, true);
  const std::string out = s / "r.h5";
  const std::string dead = std::to_string(a_dead_pid()), live = std::to_string(::getpid());
  const std::vector<std::string> orphans{out + ".partial." + dead, s / ("r_topk.csv.partial." + dead),
                                         out + ".partial.h5.partial." + dead};
  for (const auto& p : orphans) std::ofstream(p) << "left by a killed run";
  const std::string kept = out + ".partial." + live;
  std::ofstream(kept) << "being written by a live process";
  const auto r = kbt::test::run_kbt("run " + cfg + " --device reference --quiet --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const auto& p : orphans) EXPECT_FALSE(fs::exists(p)) << p;
  EXPECT_TRUE(fs::exists(kept));
  EXPECT_TRUE(fs::exists(out));
}

namespace {

// Flattens /bars/close of symbol 0 from bar `from` on (every value the one
// before it), in place, and restores the file's size and modification time:
// the edit the size+mtime identity could not see. (The dataset is compressed:
// flat values compress better, so the file does not grow, and zero padding
// after HDF5's end of allocation restores the size.)
void edit_close_in_place(const std::string& path, std::size_t from) {
  const auto mtime = fs::last_write_time(path);
  const auto size = fs::file_size(path);
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  const hid_t set = H5Dopen2(file, "/bars/close", H5P_DEFAULT);
  ASSERT_GE(set, 0);
  const hid_t space = H5Dget_space(set);
  hsize_t dims[2] = {0, 0};
  H5Sget_simple_extent_dims(space, dims, nullptr);
  std::vector<double> v(dims[0] * dims[1]);
  ASSERT_GE(H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0);
  ASSERT_GT(dims[1], from);
  ASSERT_GT(from, 0u);
  for (std::size_t t = from; t < dims[1]; ++t) v[t] = v[from - 1];
  ASSERT_GE(H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0);
  H5Sclose(space);
  H5Dclose(set);
  H5Fclose(file);
  ASSERT_LE(fs::file_size(path), size) << "the edit grew the file: the case would not test the digest";
  fs::resize_file(path, size);
  fs::last_write_time(path, mtime);
  ASSERT_EQ(fs::file_size(path), size);
  ASSERT_EQ(fs::last_write_time(path), mtime);
}

// Adds `delta` to /metrics/<metric> at `row` of a results file.
void nudge_metric(const std::string& path, const std::string& metric, std::uint64_t row, double delta) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  const hid_t set = H5Dopen2(file, ("/metrics/" + metric).c_str(), H5P_DEFAULT);
  ASSERT_GE(set, 0);
  const hid_t space = H5Dget_space(set);
  hsize_t n = 0;
  H5Sget_simple_extent_dims(space, &n, nullptr);
  std::vector<double> v(n);
  ASSERT_GE(H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0);
  ASSERT_LT(row, n);
  v[row] += delta;
  ASSERT_GE(H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0);
  H5Sclose(space);
  H5Dclose(set);
  H5Fclose(file);
}

}  // namespace

// The data is identified by its content: a data file edited in place with its
// size and modification time kept is refused by --resume and by kbt verify.
TEST(CliFaults, DataEditedInPlaceIsRefusedByResumeAndVerify) {
  const Scratch s("digest");
  const std::string cfg = make_run(s, 40000, 8, false);
  const std::string data = s / "synth.h5", out = s / "r.h5", ckpt = out + ".partial.h5";
  // A finished run first (for kbt verify), then one killed after a commit.
  const std::string done = s / "done.h5";
  const auto full = kbt::test::run_kbt("run " + cfg + " --device reference --quiet --out " + done);
  ASSERT_EQ(full.exit_code, 0) << full.output;
  const pid_t pid = kbt::test::spawn_kbt({"run", cfg, "--device", "reference", "--threads", "1", "--quiet", "--out", out},
                                         s / "run.log");
  ASSERT_GT(pid, 0);
  bool killed = false;
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  while (!killed && Clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) break;
    try {
      if (fs::exists(ckpt) && kbt::read_checkpoint_status(ckpt).combos_done >= 8) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
        killed = true;
      }
    } catch (const kbt::Error&) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ASSERT_TRUE(killed) << "no commit seen before the run ended: " << read_text(s / "run.log");

  edit_close_in_place(data, 15000);
  const auto resumed = kbt::test::run_kbt("run " + cfg + " --device reference --quiet --resume --out " + out);
  EXPECT_EQ(resumed.exit_code, 1) << resumed.output;
  EXPECT_NE(resumed.output.find("cannot resume: the checkpoint's data_digest is"), std::string::npos) << resumed.output;
  EXPECT_FALSE(fs::exists(out));
  const auto verified = kbt::test::run_kbt("verify " + done);
  EXPECT_EQ(verified.exit_code, 1) << verified.output;
  EXPECT_NE(verified.output.find(data + ": the data changed since the run of " + done), std::string::npos)
      << verified.output;
}

// A verified candidate whose metrics differ from the sweep's fails the
// command (exit 1, category verification), after /verify is written.
TEST(CliFaults, AVerificationMismatchFailsTheCommand) {
  const Scratch s("mismatch");
  const std::string cfg = make_run(s, 2000, 64, false);
  const std::string out = s / "r.h5", checked = s / "v.h5";
  const auto run = kbt::test::run_kbt("run " + cfg + " --device reference --quiet --out " + out);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  std::uint64_t best_row = 0;
  {
    const auto loaded = kbt::read_results_hdf5(out);  // holds the file open while it lives
    ASSERT_GT(loaded.results.top_k, 0u);
    best_row = loaded.results.best.rows.front();
  }
  nudge_metric(out, "total_return", best_row, 1e-9);
  const auto r = kbt::test::run_kbt("verify " + out + " --out " + checked);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("error [verification]: " + checked + ": verification: the metrics of 1 of 10 candidates differ"),
            std::string::npos)
      << r.output;
  ASSERT_TRUE(fs::exists(checked));
  const auto v = kbt::read_results_hdf5(checked);
  ASSERT_TRUE(v.verification);
  EXPECT_EQ(v.verification->n_mismatches(), 1u);
}

// Errors that only the data or the grid reveal still name the config line of
// the setting at fault.
TEST(CliFaults, LateConfigErrorsNameTheirLine) {
  const Scratch s("late_config");
  make_run(s, 500, 64, false);  // the data file
  const auto write = [&](const std::string& name, const std::string& tail) {
    std::ofstream(s / name) << "data: synth.h5\nstrategy:\n  params:\n    fast: {range: [2, 40, 2]}\n"
                               "  constraints: [\"fast > 100\"]\n"  // line 5, column 18 for g1
                               "  signals:\n    f: ema(close, fast)\n  position: where(f > close, 1, -1)\n"
                            << tail;
    return s / name;
  };
  struct Case {
    std::string file, tail, category, where;
  };
  const std::vector<Case> cases = {
      {"constraints.yaml", "", "grid", "constraints.yaml:5:18: the constraints reject every one of the 20 combos"},
      {"budget.yaml", "sweep: {device: serial, memory_budget_mb: 0.000001}\n", "limit", "budget.yaml:9:"},
      {"start.yaml", "simulation: {score_start: \"2031-01-01\"}\n", "config", "start.yaml:9:"},
  };
  for (const auto& c : cases) {
    std::string tail = c.tail;
    std::string path = write(c.file, tail);
    if (c.file != "constraints.yaml") {  // a grid the constraints do not empty
      std::string text = read_text(path);
      text.replace(text.find("fast > 100"), 10, "fast > 1");
      std::ofstream(path) << text;
    }
    const auto r = kbt::test::run_kbt("run " + path + " --quiet --out " + (s / (c.file + ".h5")));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("error [" + c.category + "]: " + (s / c.where)), std::string::npos) << r.output;
  }
}

// A window longer than the data, an htf timeframe longer than the data and an
// output that is NaN everywhere run to zero trades: `kbt run` and `kbt check
// --data` warn, naming the expression; a sound strategy gets no warning.
TEST(CliFaults, NonsenseThatRunsToZeroTradesIsWarnedAbout) {
  const Scratch s("nonsense");
  const std::string sound = make_run(s, 500, 64, false);
  struct Case {
    std::string name, strategy, warning;
  };
  const std::vector<Case> cases = {
      {"window", "  params:\n    fast: {range: [2, 4, 2]}\n  signals:\n    f: sma(close, 1000000000)\n"
                 "  position: where(f > close, 1, -1)\n",
       "warning: `rolling_mean(close, 1000000000)` is NaN on every bar: its window 1000000000 is longer than the data "
       "(500 bars)"},
      {"param_window", "  params:\n    slow: {range: [100, 1000, 300]}\n  signals:\n    s: sma(close, slow)\n"
                       "  position: where(close > s, 1, -1)\n",
       "warning: `rolling_mean(close, slow)` is NaN on every bar for 2 of the 4 values of slow: the window is longer "
       "than the data (500 bars)"},
      {"htf", "  params:\n    fast: {range: [2, 4, 2]}\n  signals:\n    d: htf(close, \"100000d\")\n"
              "  position: where(close > d, 1, -1)\n",
       "warning: `htf(close, \"100000d\")`: its timeframe 100000d is longer than the data's time span"},
      {"position", "  params:\n    fast: {range: [2, 4, 2]}\n  position: 1/0\n",
       "warning: position `(1 / 0)` is NaN on every bar: no trades"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string cfg = s / (c.name + ".yaml");
    std::ofstream(cfg) << "data: synth.h5\nstrategy:\n" << c.strategy;
    const auto run = kbt::test::run_kbt("run " + cfg + " --device reference --no-verify --out " + (s / (c.name + ".h5")));
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_NE(run.output.find("kbt: " + c.warning), std::string::npos) << run.output;
    const auto check = kbt::test::run_kbt("check " + cfg + " --data");
    EXPECT_EQ(check.exit_code, 0) << check.output;
    EXPECT_NE(check.output.find(c.warning), std::string::npos) << check.output;
  }
  const auto clean = kbt::test::run_kbt("check " + sound + " --data");
  EXPECT_EQ(clean.exit_code, 0) << clean.output;
  EXPECT_EQ(clean.output.find("warning"), std::string::npos) << clean.output;
}

// A grid whose rows cannot fit on the disk of the output is refused before
// the sweep, with the estimate and the knobs (it would otherwise fail hours
// later, at a full disk).
TEST(CliFaults, AGridTooLargeForTheDiskIsRefusedUpFront) {
  const Scratch s("huge");
  make_run(s, 500, 64, false);
  const std::string cfg = s / "huge.yaml";
  std::ofstream(cfg) << "data: synth.h5\nstrategy:\n  params:\n    a: {range: [1, 1000000, 1]}\n"
                        "    b: {range: [1, 1000000, 1]}\n"
                        "  position: where(close > a + b, 1, -1)\nsweep: {max_combos: 1000000000000}\n";
  const auto r = kbt::test::run_kbt("run " + cfg + " --device reference --quiet --out " + (s / "r.h5"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("error [limit]: " + (s / "r.h5.partial.h5") +
                          ": this run's results need about 80000.00 GB on disk for the rows of its 1000000000000 combos"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("--sample N"), std::string::npos) << r.output;
  EXPECT_TRUE(entries_starting(s.dir, "r.h5").empty()) << "nothing of r.h5, not even a checkpoint";
}

// The peak resident memory of a run does not grow with its grid: its rows
// stream to the checkpoint chunk by chunk, and only the best rows stay (it
// used to hold ids, params and 21 metrics of every combo: 200 bytes each,
// 96 MB more for the larger grid here).
TEST(CliFaults, ResidentMemoryDoesNotGrowWithTheGrid) {
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer holds freed memory in quarantine (256 MB by default), so a
  // longer run's peak would measure the quarantine, not kbt: the runs here reuse
  // freed memory at once, as the plain allocator does.
  const char* asan = std::getenv("ASAN_OPTIONS");
  ::setenv("ASAN_OPTIONS", (std::string(asan ? asan : "") + ":quarantine_size_mb=0").c_str(), 1);
#endif
  const Scratch s("rss");
  make_run(s, 64, 64, false);
  const auto peak_rss = [&](int a_values) {
    const std::string cfg = s / ("grid" + std::to_string(a_values) + ".yaml");
    std::ofstream(cfg) << "data: synth.h5\nstrategy:\n  params:\n    a: {range: [1, " << a_values << ", 1]}\n"
                          "    b: {range: [1, 500, 1]}\n  signals:\n    m: sma(close, 5)\n"
                          "  position: where(close > m * (1 + a / 1e6 - b / 1e6), 1, -1)\n"
                          "sweep: {checkpoint_combos: 4096, top_k: 20}\nverify: {top_n: 100}\n";
    const std::string out = s / ("grid" + std::to_string(a_values) + ".h5");
    const auto r = kbt::test::run_kbt("run " + cfg + " --device serial --quiet --out " + out);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    double rss = 0, combos = 0;
    for (const auto& [k, v] : kbt::read_results_hdf5(out).profile.numbers) {
      if (k == "host_peak_rss_bytes") rss = v;
      if (k == "combos") combos = v;
    }
    EXPECT_EQ(combos, 500.0 * a_values);
    return rss;
  };
  const double small = peak_rss(20), large = peak_rss(1000);  // 10,000 and 500,000 combos
  ASSERT_GT(small, 0);
  EXPECT_LT(large - small, 16e6) << "peak RSS " << small << " -> " << large << " bytes";
}
