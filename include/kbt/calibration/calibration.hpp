#pragma once
// The calibration of a machine (docs/sweep.md, docs/calibration.md): a cost model per
// Kokkos execution space,
//
//     seconds = fixed + per_bar_combo(complexity) * bars * combos
//     per_bar_combo(complexity) = base + per_instruction * instructions
//                                      + per_window_read * window_reads
//
// fitted by non-negative least squares on whole sweeps timed by `kbt calibrate`,
// the per-machine YAML file that holds it, and the `device: auto` selection
// that reads it. Everything here except this_machine_identity() and the timing
// helpers is plain host code that needs no Kokkos.

#include <kbt/data/bar_data.hpp>
#include <kbt/config/run_config.hpp>
#include <kbt/lang/program.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kbt {

// ---------------------------------------------------------------------------
// Complexity: the work per bar per combo, from the compiled program, in two
// kinds that cost differently: interpreted instructions (one dispatch each) and
// the element reads of streamed rolling windows (a tight loop over the ring).

struct Complexity {
  // n_symbols * (1 + streamed + hoisted + scan_tape + stops): the 1 is the
  // portfolio step of one symbol.
  double instructions = 0;
  // n_symbols * sum over streamed windowed ops of their reads per bar: w for
  // rolling_sum/mean/min/max, 2w for rolling_std and zscore (mean, then
  // deviations), 0 for the O(1) lag/roc/ema/rsi; a swept window counts the mean
  // of its axis values.
  double window_reads = 0;
};

struct StrategyComplexity {
  std::size_t n_symbols = 0;
  std::size_t streamed = 0;   // series registers evaluated in-thread bar by bar
  std::size_t hoisted = 0;    // hoisted series read per bar (one row per combo)
  std::size_t scan_tape = 0;  // update-tape instructions of in-thread scans
  std::size_t stops = 0;      // stop-loss, take-profit, trailing stop set (0..3)
  double window_reads_per_symbol = 0;
  Complexity work;
};

StrategyComplexity strategy_complexity(const Program& program, std::size_t n_symbols,
                                       const SimulationSettings& sim);

// "12 instructions + 70 window reads"
std::string to_string(const Complexity& c);

// ---------------------------------------------------------------------------
// Cost model.

// One timed whole sweep (plan + upload + kernel + download).
struct TimingPoint {
  std::string space;     // "serial", "openmp", "cuda"
  std::string workload;  // calibration strategy name
  double combos = 0, bars = 0;
  Complexity complexity;
  double seconds = 0;
};

struct SpaceCostModel {
  std::string space;
  int concurrency = 0;                // threads the space ran with when calibrated
  double fixed_seconds = 0;           // >= 0
  double per_bar_combo_base = 0;      // seconds per bar-combo whatever the strategy, >= 0
  double per_instruction = 0;         // seconds per bar-combo per instruction, >= 0
  double per_window_read = 0;         // seconds per bar-combo per window read, >= 0
  std::size_t n_points = 0;
  double max_relative_residual = 0;   // max |predicted - measured| / measured over the points

  double per_bar_combo_seconds(const Complexity& k) const {
    return per_bar_combo_base + per_instruction * k.instructions + per_window_read * k.window_reads;
  }
  double predict_seconds(double combos, double bars, const Complexity& k) const {
    return fixed_seconds + per_bar_combo_seconds(k) * bars * combos;
  }
};

// Fits one space's model to its points (points of other spaces are ignored):
// non-negative least squares on the relative error, i.e. rows weighted by
// 1 / measured seconds, so that 1 ms and 10 s points count alike. Throws
// kbt::Error(internal) with fewer than 3 points of that space.
SpaceCostModel fit_cost_model(const std::string& space, const std::vector<TimingPoint>& points);

// Combos from which `other` is predicted faster than `host` at (bars,
// complexity): 0 when `other` is never slower, nullopt when it is never faster.
std::optional<double> break_even_combos(const SpaceCostModel& host, const SpaceCostModel& other, double bars,
                                        const Complexity& complexity);

struct BreakEven {
  std::string host, other;  // host: serial/openmp; other: any other calibrated space
  std::string workload;     // whose complexity this row is for
  double bars = 0;
  Complexity complexity;
  std::optional<double> combos;  // see break_even_combos
};

// A complexity at which to tabulate break-even, named by its workload.
struct NamedComplexity {
  std::string workload;
  Complexity complexity;
};

// "serial" and "openmp" run on the host; "cuda" (and anything else) does not.
bool is_host_space(const std::string& space);

// Every (host space, other space) pair of `models`, at every bars x complexity.
std::vector<BreakEven> break_even_table(const std::vector<SpaceCostModel>& models, const std::vector<double>& bars,
                                        const std::vector<NamedComplexity>& complexities);

// ---------------------------------------------------------------------------
// Machine identity and the calibration file.

struct SpaceIdentity {
  std::string name;
  int concurrency = 0;
  bool operator==(const SpaceIdentity& o) const { return name == o.name && concurrency == o.concurrency; }
};

struct MachineIdentity {
  std::string host;            // gethostname()
  std::string cpu;             // first "model name" of /proc/cpuinfo
  std::string gpu;             // CUDA device 0's name, "none" without CUDA
  std::string kokkos_version;  // kokkos_version_string()
  std::vector<SpaceIdentity> spaces;  // enabled_execution_spaces(), with concurrency
};

// Requires Kokkos to be initialized.
MachineIdentity this_machine_identity();

// One line per differing field ("host: 'a' here, 'b' in the file"); empty = same machine.
std::vector<std::string> identity_mismatches(const MachineIdentity& file, const MachineIdentity& here);

struct Calibration {
  int format = 1;
  std::string kbt_version;
  std::string created_utc;  // ISO 8601
  std::string mode;         // full | quick | tiny
  MachineIdentity machine;
  std::vector<SpaceCostModel> models;
  std::vector<TimingPoint> points;
  std::vector<BreakEven> break_even;

  const SpaceCostModel* model(const std::string& space) const;
};

// Fits every space of `points` (concurrency from `machine`), and the
// break-even table at the points' bar counts and workloads' complexities.
Calibration make_calibration(const std::vector<TimingPoint>& points, const MachineIdentity& machine);

// YAML text of a calibration (docs/calibration.md), and back. Parse errors are
// kbt::Error(data_format) "source:line:col: ..." (a damaged file kbt wrote).
std::string format_calibration(const Calibration& calibration);
Calibration parse_calibration(const std::string& yaml_text, const std::string& source_name);
// io error when unreadable or not a regular file; data_format when far larger
// than any calibration file.
Calibration read_calibration_file(const std::string& path);
void write_calibration_file(const std::string& path, const Calibration& calibration);  // atomic

// ---------------------------------------------------------------------------
// Which file applies.

struct CalibrationLocation {
  std::string path;    // empty when no default location can be formed (no HOME)
  std::string source;  // "--calibration", "KBT_CALIBRATION", "default"
  bool is_explicit() const { return source != "default"; }
};

// $XDG_CONFIG_HOME/kbt/calibration.yaml, else ~/.config/kbt/calibration.yaml.
std::string default_calibration_path();

// `option` (a --calibration value) wins, then $KBT_CALIBRATION, then the default.
CalibrationLocation resolve_calibration_location(const std::string& option);

struct CalibrationStatus {
  CalibrationLocation location;
  bool exists = false;
  std::optional<Calibration> calibration;  // parsed when the file exists
  std::vector<std::string> mismatches;     // identity_mismatches(file, here)
  bool usable() const { return calibration && mismatches.empty(); }
  std::string describe() const;            // one line for `kbt info` and `kbt run`
};

// Resolves and reads the file. A malformed file is an error (file:line:col); so
// is an explicitly named file (--calibration, KBT_CALIBRATION) that does not
// exist. A missing default file is not an error: exists = false.
CalibrationStatus load_calibration_status(const std::string& option, const MachineIdentity& here);

// ---------------------------------------------------------------------------
// Device selection.

// `device: auto` without a usable calibration: cuda when enabled and the grid
// has at least 10,000 combos, else openmp when enabled, else serial.
std::string conservative_device_choice(const std::vector<std::string>& enabled_spaces, double combos);

struct DeviceChoice {
  std::string device;
  std::string rule;  // "cost_model" | "conservative" | "requested"
  std::vector<std::pair<std::string, double>> predicted_seconds;  // enabled spaces with a model
  std::vector<std::string> notes;  // what to print (the prediction and the choice)
  std::optional<std::string> warning;  // a requested space predicted slower than another
};

// `requested` is "auto" or an enabled Kokkos space name (checked by the caller).
DeviceChoice select_device(const std::string& requested, const std::vector<std::string>& enabled_spaces,
                           const CalibrationStatus& status, double combos, double bars, const Complexity& complexity);

}  // namespace kbt
