// The /validation group of a results file (docs/results.md, docs/validation.md).

#include <kbt/core/error.hpp>

#include <cmath>
#include <kbt/validation/validation.hpp>

#include "output/results_io.hpp"

namespace kbt::detail {
namespace {

void write_u64s(hid_t g, const std::string& name, const std::vector<std::uint64_t>& v, const std::string& path) {
  write_small_1d(g, name, H5T_NATIVE_UINT64, v.data(), v.size(), path);
}

void write_doubles(hid_t g, const std::string& name, const std::vector<double>& v, const std::string& path) {
  write_small_1d(g, name, H5T_NATIVE_DOUBLE, v.data(), v.size(), path);
}

// Column c of a [n][stride] row-major table.
std::vector<double> column(const std::vector<double>& table, std::size_t stride, std::size_t c) {
  std::vector<double> out;
  for (std::size_t i = c; i < table.size(); i += stride) out.push_back(table[i]);
  return out;
}

// The per-candidate columns and the numbers of /validation, by name (the
// writer and the reader share them).
const std::pair<const char*, std::vector<double> ValidationResults::*> candidate_columns[] = {
    {"sharpe", &ValidationResults::sharpe}, {"skewness", &ValidationResults::skewness},
    {"kurtosis", &ValidationResults::kurtosis}, {"psr", &ValidationResults::psr},
    {"dsr", &ValidationResults::dsr}, {"min_trl", &ValidationResults::min_trl}};
const std::pair<const char*, double ValidationResults::*> numbers[] = {
    {"periods_per_year", &ValidationResults::periods_per_year}, {"mean_correlation", &ValidationResults::mean_correlation},
    {"effective_trials", &ValidationResults::effective_trials}, {"effective_rank", &ValidationResults::effective_rank},
    {"sharpe_variance", &ValidationResults::sharpe_variance}, {"expected_max_sharpe", &ValidationResults::expected_max_sharpe},
    {"seconds", &ValidationResults::seconds}};
const std::pair<const char*, double PboResult::*> pbo_numbers[] = {
    {"pbo", &PboResult::pbo}, {"prob_oos_loss", &PboResult::prob_oos_loss},
    {"degradation_slope", &PboResult::degradation_slope}, {"degradation_intercept", &PboResult::degradation_intercept}};
const std::pair<const char*, std::vector<double> PboResult::*> pbo_columns[] = {
    {"pbo_logits", &PboResult::logits}, {"pbo_is_sharpe", &PboResult::is_sharpe},
    {"pbo_oos_sharpe", &PboResult::oos_sharpe}};

// Counts as int64 (write_metric_column); a table with NaN placeholders (a fold
// that chose nothing) keeps float64 throughout instead (`typed` false).
void write_metric_table(hid_t parent, const std::string& name, const std::vector<double>& table, const std::string& path,
                        bool typed = true) {
  H5Id g = make_group(parent, name, path);
  for (std::size_t m = 0; m < n_metrics; ++m) {
    if (typed) write_metric_column(g, m, column(table, n_metrics, m), path);
    else write_doubles(g, metric_names()[m], column(table, n_metrics, m), path);
  }
}

// A [n][params] table as one column per param, integer params as int64 (as in /params).
void write_param_table(hid_t parent, const std::string& name, const std::vector<std::string>& param_names,
                       const std::vector<double>& table, const std::string& path) {
  H5Id g = make_group(parent, name, path);
  const std::vector<bool> integer = integer_params_of_file(g, param_names);
  for (std::size_t p = 0; p < param_names.size(); ++p)
    write_param_column(g, param_names[p], column(table, param_names.size(), p), integer[p], path);
}

// /validation/walk_forward: per fold its windows and choice (and its top-K
// in folds/<f>/), the stitched out-of-sample run, efficiency and stability.
void write_walk_forward(hid_t parent, const WalkForwardResults& wf, const std::vector<std::string>& param_names,
                        const std::string& path) {
  H5Id g = make_group(parent, "walk_forward", path);
  const std::size_t np = param_names.size();
  std::vector<std::uint64_t> train_begin, train_end, test_begin, test_end, chosen_row, chosen_id;
  std::vector<double> chosen_params, train_metrics, test_metrics, correlation;
  for (const WalkForwardFold& f : wf.folds) {
    train_begin.push_back(f.train.begin), train_end.push_back(f.train.end);
    test_begin.push_back(f.test.begin), test_end.push_back(f.test.end);
    correlation.push_back(f.rank_correlation);
    const bool chose = f.best.size() > 0;
    chosen_row.push_back(chose ? f.best.rows[0] : 0);
    chosen_id.push_back(chose ? f.best.combo_ids[0] : 0);
    for (std::size_t p = 0; p < np; ++p) chosen_params.push_back(chose ? f.best.params_of(0)[p] : 0.0 / 0.0);
    for (std::size_t m = 0; m < n_metrics; ++m) {
      train_metrics.push_back(chose ? f.best.metrics_of(0)[m] : 0.0 / 0.0);
      test_metrics.push_back(chose ? f.test_metrics[m] : 0.0 / 0.0);
    }
  }
  for (const auto& [name, v] : {std::pair<const char*, const std::vector<std::uint64_t>*>{"train_begin", &train_begin},
                                {"train_end", &train_end}, {"test_begin", &test_begin}, {"test_end", &test_end},
                                {"chosen_row", &chosen_row}, {"chosen_combo_id", &chosen_id}})
    write_u64s(g, name, *v, path);
  // Folds that chose nothing hold NaN: these three tables stay float64.
  {
    H5Id gp = make_group(g, "chosen_params", path);
    for (std::size_t p = 0; p < np; ++p) write_doubles(gp, param_names[p], column(chosen_params, np, p), path);
  }
  write_metric_table(g, "train_metrics", train_metrics, path, false);
  write_metric_table(g, "test_metrics", test_metrics, path, false);
  write_doubles(g, "rank_correlation", correlation, path);
  {
    H5Id gs = make_group(g, "stitched_metrics", path);
    for (std::size_t m = 0; m < wf.stitched_metrics.size(); ++m) write_metric_column(gs, m, {wf.stitched_metrics[m]}, path);
  }
  write_doubles(g, "stitched_equity", wf.stitched_equity, path);
  write_number_attribute(g, "stitched_begin", static_cast<double>(wf.stitched.begin), path);
  write_number_attribute(g, "stitched_end", static_cast<double>(wf.stitched.end), path);
  write_number_attribute(g, "efficiency", wf.efficiency, path);
  write_number_attribute(g, "stability", wf.stability, path);
  write_number_attribute(g, "distinct_choices", static_cast<double>(wf.distinct_choices), path);
  write_doubles(g, "param_drift", wf.param_drift, path);
}

void write_window(hid_t g, const std::string& name, const ScoringWindow& w, const std::string& text,
                  const std::string& path) {
  write_string(g, name, text, path, true);
  write_number_attribute(g, name + "_begin", static_cast<double>(w.begin), path);
  write_number_attribute(g, name + "_end", static_cast<double>(w.end), path);
}

}  // namespace

void write_validation_group(hid_t file, const ValidationResults& v, const std::string& path) {
  if (H5Lexists(file, "validation", H5P_DEFAULT) > 0)
    check_write(H5Ldelete(file, "validation", H5P_DEFAULT), "(delete) group /validation", path);
  H5Id g = make_group(file, "validation", path);
  const std::size_t k = v.n(), p = v.n_periods();
  write_u64s(g, "row", v.rows, path);
  write_u64s(g, "combo_id", v.combo_ids, path);
  write_param_table(g, "params", v.param_names, v.params, path);
  write_metric_table(g, "metrics", v.metrics, path);
  for (const auto& [name, member] : candidate_columns) write_doubles(g, name, v.*member, path);
  write_small_1d(g, "period_start_ns", H5T_NATIVE_INT64, v.period_start_ns.data(), p, path);
  {
    // [periods][candidates]
    const hsize_t dims[2] = {static_cast<hsize_t>(p), static_cast<hsize_t>(k)};
    H5Id space(checked_create(H5Screate_simple(2, dims, nullptr), "dataspace", path), H5Sclose);
    H5Id set(checked_create(H5Dcreate2(g, "period_returns", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                            "dataset period_returns", path),
             H5Dclose);
    if (p * k > 0)
      check_write(H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.period_returns.data()),
                  "dataset period_returns", path);
  }
  write_string(g, "objective", v.objective.metric, path, true);
  write_string(g, "direction", v.objective.maximize ? "max" : "min", path, true);
  write_string(g, "period", v.period, path, true);
  write_window(g, "train", v.train, v.train_text, path);
  if (v.test) {
    write_window(g, "test", *v.test, v.test_text, path);
    write_metric_table(g, "test_metrics", v.test_metrics, path);
    write_u64s(g, "rank_in_sample", v.rank_in_sample, path);
    write_u64s(g, "rank_out_of_sample", v.rank_out_of_sample, path);
    write_number_attribute(g, "rank_correlation", v.rank_correlation, path);
  }
  write_number_attribute(g, "n_trials", static_cast<double>(v.n_trials), path);
  for (const auto& [name, member] : numbers) write_number_attribute(g, name, v.*member, path);
  write_string(g, "sharpe_variance_from", v.sharpe_variance_from, path, true);
  if (v.pbo) {
    const PboResult& r = *v.pbo;
    for (const auto& [name, member] : pbo_numbers) write_number_attribute(g, name, r.*member, path);
    write_number_attribute(g, "pbo_blocks", static_cast<double>(r.blocks), path);
    write_number_attribute(g, "pbo_splits", static_cast<double>(r.splits), path);
    write_number_attribute(g, "pbo_periods_used", static_cast<double>(r.periods_used), path);
    write_number_attribute(g, "pbo_configurations", static_cast<double>(v.pbo_configurations), path);
    if (v.pbo_configurations < v.n_trials)
      write_number_attribute(g, "pbo_sample_seed", static_cast<double>(v.pbo_sample_seed), path);
    for (const auto& [name, member] : pbo_columns) write_doubles(g, name, r.*member, path);
  } else {
    write_string(g, "pbo_skipped", v.pbo_skipped, path, true);
  }
  if (v.walk_forward) write_walk_forward(g, *v.walk_forward, v.param_names, path);
}

namespace {

std::vector<double> read_doubles(hid_t g, const std::string& name, const std::string& path) {
  return read_small_1d<double>(g, name, H5T_NATIVE_DOUBLE, path);
}

std::vector<double> read_metric_table(hid_t g, const std::string& name, std::size_t n, const std::string& path) {
  std::vector<double> table(n * n_metrics, 0.0);
  for (std::size_t m = 0; m < n_metrics; ++m) {
    const auto col = read_doubles(g, name + "/" + metric_names()[m], path);
    if (col.size() != n) throw Error(ErrorCategory::data_format, path + ": /validation/" + name + " has the wrong length");
    for (std::size_t i = 0; i < n; ++i) table[i * n_metrics + m] = col[i];
  }
  return table;
}

ScoringWindow read_window(hid_t g, const std::string& name, const std::string& path) {
  return ScoringWindow{static_cast<std::size_t>(read_number_attribute(g, name + "_begin", path)),
                       static_cast<std::size_t>(read_number_attribute(g, name + "_end", path))};
}

}  // namespace

namespace {

// /validation/walk_forward read back: per fold its windows and its choice
// (one row: params, train metrics; test_metrics its test metrics), not the
// fold's whole top-K; the stitched run, efficiency, stability, drift.
WalkForwardResults read_walk_forward(hid_t parent, const std::vector<std::string>& param_names,
                                     const std::string& where) {
  H5Id g(H5Gopen2(parent, "walk_forward", H5P_DEFAULT), H5Gclose);
  WalkForwardResults wf;
  const auto u64 = [&](const char* name) { return read_small_1d<std::uint64_t>(g, name, H5T_NATIVE_UINT64, where); };
  const auto train_begin = u64("train_begin"), train_end = u64("train_end"), test_begin = u64("test_begin"),
             test_end = u64("test_end"), chosen_row = u64("chosen_row"), chosen_id = u64("chosen_combo_id");
  const std::size_t folds = train_begin.size();
  const auto train_metrics = read_metric_table(g, "train_metrics", folds, where);
  const auto test_metrics = read_metric_table(g, "test_metrics", folds, where);
  const auto correlation = read_doubles(g, "rank_correlation", where);
  const std::size_t np = param_names.size();
  std::vector<double> chosen_params(folds * np);
  for (std::size_t p = 0; p < np; ++p) {
    const auto col = read_doubles(g, "chosen_params/" + param_names[p], where);
    for (std::size_t f = 0; f < folds && f < col.size(); ++f) chosen_params[f * np + p] = col[f];
  }
  for (std::size_t f = 0; f < folds; ++f) {
    WalkForwardFold fold;
    fold.train = ScoringWindow{train_begin[f], train_end[f]};
    fold.test = ScoringWindow{test_begin[f], test_end[f]};
    fold.rank_correlation = f < correlation.size() ? correlation[f] : 0.0 / 0.0;
    fold.best.n_params = np;
    // A fold that chose nothing holds NaN params (write_walk_forward).
    const bool chose = np == 0 || !std::isnan(chosen_params[f * np]);
    if (chose) {
      fold.best.append(chosen_row[f], chosen_id[f], chosen_params.data() + f * np, train_metrics.data() + f * n_metrics);
      fold.test_metrics.assign(test_metrics.begin() + static_cast<std::ptrdiff_t>(f * n_metrics),
                               test_metrics.begin() + static_cast<std::ptrdiff_t>((f + 1) * n_metrics));
    }
    wf.folds.push_back(std::move(fold));
  }
  wf.stitched = ScoringWindow{static_cast<std::size_t>(read_number_attribute(g, "stitched_begin", where)),
                              static_cast<std::size_t>(read_number_attribute(g, "stitched_end", where))};
  wf.stitched_metrics = read_metric_table(g, "stitched_metrics", 1, where);
  wf.stitched_equity = read_doubles(g, "stitched_equity", where);
  wf.efficiency = read_number_attribute(g, "efficiency", where);
  wf.stability = read_number_attribute(g, "stability", where);
  wf.distinct_choices = static_cast<std::size_t>(read_number_attribute(g, "distinct_choices", where));
  wf.param_drift = read_doubles(g, "param_drift", where);
  return wf;
}

}  // namespace

std::optional<ValidationResults> read_validation_group(hid_t file, const std::vector<std::string>& param_names,
                                                       const std::string& path) {
  if (H5Lexists(file, "validation", H5P_DEFAULT) <= 0) return std::nullopt;
  H5Id g(H5Gopen2(file, "validation", H5P_DEFAULT), H5Gclose);
  const std::string where = path + " /validation";
  ValidationResults v;
  v.rows = read_small_1d<std::uint64_t>(g, "row", H5T_NATIVE_UINT64, where);
  v.combo_ids = read_small_1d<std::uint64_t>(g, "combo_id", H5T_NATIVE_UINT64, where);
  const std::size_t k = v.rows.size();
  v.param_names = param_names;
  v.params.assign(k * param_names.size(), 0.0);
  for (std::size_t q = 0; q < param_names.size(); ++q) {
    const auto col = read_doubles(g, "params/" + param_names[q], where);
    for (std::size_t i = 0; i < k && i < col.size(); ++i) v.params[i * param_names.size() + q] = col[i];
  }
  v.metrics = read_metric_table(g, "metrics", k, where);
  for (const auto& [name, member] : candidate_columns) {
    v.*member = read_doubles(g, name, where);
    if ((v.*member).size() != k)
      throw Error(ErrorCategory::data_format, where + "/" + name + ": the wrong length (one value per candidate)");
  }
  v.period_start_ns = read_small_1d<std::int64_t>(g, "period_start_ns", H5T_NATIVE_INT64, where);
  v.objective.metric = read_string_attribute(g, "objective", where);
  v.objective.maximize = read_string_attribute(g, "direction", where) == "max";
  v.period = read_string_attribute(g, "period", where);
  v.train = read_window(g, "train", where);
  v.train_text = read_string_attribute(g, "train", where);
  if (has_attribute(g, "test")) {
    v.test = read_window(g, "test", where);
    v.test_text = read_string_attribute(g, "test", where);
    v.test_metrics = read_metric_table(g, "test_metrics", k, where);
    v.rank_in_sample = read_small_1d<std::uint64_t>(g, "rank_in_sample", H5T_NATIVE_UINT64, where);
    v.rank_out_of_sample = read_small_1d<std::uint64_t>(g, "rank_out_of_sample", H5T_NATIVE_UINT64, where);
    v.rank_correlation = read_number_attribute(g, "rank_correlation", where);
  }
  v.n_trials = static_cast<std::uint64_t>(read_number_attribute(g, "n_trials", where));
  for (const auto& [name, member] : numbers) v.*member = read_number_attribute(g, name, where);
  v.sharpe_variance_from = read_string_attribute(g, "sharpe_variance_from", where);
  if (H5Lexists(g, "walk_forward", H5P_DEFAULT) > 0) v.walk_forward = read_walk_forward(g, param_names, where);
  if (has_attribute(g, "pbo")) {
    PboResult r;
    for (const auto& [name, member] : pbo_numbers) r.*member = read_number_attribute(g, name, where);
    r.blocks = static_cast<std::size_t>(read_number_attribute(g, "pbo_blocks", where));
    r.splits = static_cast<std::size_t>(read_number_attribute(g, "pbo_splits", where));
    r.periods_used = static_cast<std::size_t>(read_number_attribute(g, "pbo_periods_used", where));
    // Files before PBO ranked every configuration ranked the candidates.
    v.pbo_configurations = has_attribute(g, "pbo_configurations")
                               ? static_cast<std::uint64_t>(read_number_attribute(g, "pbo_configurations", where))
                               : k;
    if (has_attribute(g, "pbo_sample_seed"))
      v.pbo_sample_seed = static_cast<std::uint64_t>(read_number_attribute(g, "pbo_sample_seed", where));
    r.candidates = static_cast<std::size_t>(v.pbo_configurations);
    for (const auto& [name, member] : pbo_columns) r.*member = read_doubles(g, name, where);
    v.pbo = r;
  } else {
    v.pbo_skipped = read_string_attribute(g, "pbo_skipped", where);
  }
  return v;
}

}  // namespace kbt::detail
