// Results HDF5 writer. Layout (docs/results.md):
//   /combo_id            uint64  [n]
//   /params/<name>       float64 [n]   (group attribute `order`: names in declaration order)
//   /metrics/<name>      float64 [n]
//   /topk/row            uint64  [k]   rows of the datasets above, best first
//   /topk/combo_id       uint64  [k]
//   /topk/metrics/<name> float64 [k]
//   /topk/params/<name>  float64 [k]
//   /config              string        the YAML as run
//   /profile             group; one attribute per profile entry
//   /verify              group, optional: the verification stage (docs/verify.md)
// Root attributes: kbt_version, complete = 1 (written last).

#include <hdf5.h>
#include <kbt/core/atomic_output.hpp>
#include <kbt/core/error.hpp>
#include <kbt/output/results.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <fstream>

#include "config/number_text.hpp"
#include "output/dataset_descriptions.hpp"
#include "output/results_io.hpp"

namespace kbt {
namespace detail {

void ensure_parent_directory(const std::string& path) {
  const auto parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec) throw Error(ErrorCategory::io, "cannot create directory '" + parent.string() + "': " + ec.message());
}

}  // namespace detail

using detail::ensure_parent_directory;
using detail::H5Id;

std::size_t VerificationResults::n_mismatches() const {
  return static_cast<std::size_t>(std::count(mismatch.begin(), mismatch.end(), std::uint8_t{1}));
}

std::size_t VerificationResults::n_rank_moved() const {
  return static_cast<std::size_t>(std::count(rank_moved.begin(), rank_moved.end(), std::uint8_t{1}));
}

void write_results_hdf5(const std::string& path, const SweepResults& results,
                        const std::string& config_yaml, const RunProfile& profile,
                        const VerificationResults* verification, const ValidationResults* validation) {
  ensure_parent_directory(path);
  AtomicOutput out(path);
  write_results_hdf5(out, results, config_yaml, profile, verification, validation);
  out.commit();
}

void write_results_hdf5(AtomicOutput& out, const SweepResults& results, const std::string& config_yaml,
                        const RunProfile& profile, const VerificationResults* verification,
                        const ValidationResults* validation) {
  const std::string& path = out.final_path();
  ensure_parent_directory(path);
  if (!results.rows) throw Error(ErrorCategory::internal, path + ": results without rows");
  if (results.rows->param_names() != results.param_names)
    throw Error(ErrorCategory::internal, path + ": the rows' params differ from the results'");
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  {
    H5Id file(detail::checked_create(H5Fcreate(out.temp_path().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT),
                                     "file", path),
              H5Fclose);
    const ResultRows& rows = *results.rows;
    detail::create_row_datasets(
        file, results.param_names, results.integer_params, rows.size(), rows.metric_mask(),
        [&](std::uint64_t first, std::uint64_t count, std::uint64_t* ids, double* params) {
          rows.read(first, count, ids, params, nullptr);
        },
        path);
    for_each_row_block(rows, 65536, RowParts{false, false, true},
                       [&](std::uint64_t first, std::uint64_t count, const std::uint64_t*, const double*,
                           const double* metrics) {
                         detail::write_metric_rows(file, first, count, metrics, rows.metric_mask(), path);
                       });
    detail::write_string(file, "config", config_yaml, path, false);
    detail::write_final_groups(file, results, profile, verification, validation, path);
    detail::check_write(H5Fflush(file, H5F_SCOPE_GLOBAL), "file", path);
    detail::check_write(file.close(), "file", path);  // the last metadata is written here
  }
}

namespace {

// Copies the finished results file `in_path` to `out_path` (atomically; the
// same path is fine) with one group rewritten by `rewrite(file)`.
void copy_with_group(const std::string& in_path, const std::string& out_path,
                     const std::function<void(hid_t file)>& rewrite) {
  read_results_hdf5(in_path);  // refuses what is not a finished results file
  ensure_parent_directory(out_path);
  AtomicOutput out(out_path);
  std::error_code ec;
  std::filesystem::copy_file(in_path, out.temp_path(), std::filesystem::copy_options::overwrite_existing, ec);
  if (ec) throw Error(ErrorCategory::io, "cannot copy '" + in_path + "' to '" + out.temp_path() + "': " + ec.message());
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  {
    H5Id file(detail::checked_create(H5Fopen(out.temp_path().c_str(), H5F_ACC_RDWR, H5P_DEFAULT), "file", out_path),
              H5Fclose);
    // The old group's space is not reclaimed (HDF5 never shrinks a file); its
    // size is small next to the sweep's datasets.
    rewrite(file);
    detail::describe_results_datasets(file, out_path);
    detail::check_write(H5Fflush(file, H5F_SCOPE_GLOBAL), "file", out_path);
    detail::check_write(file.close(), "file", out_path);
  }
  out.commit();
}

}  // namespace

void write_verification_hdf5(const std::string& in_path, const std::string& out_path,
                             const VerificationResults& verification) {
  copy_with_group(in_path, out_path, [&](hid_t file) { detail::write_verify_group(file, verification, out_path); });
}

void write_validation_hdf5(const std::string& in_path, const std::string& out_path,
                           const ValidationResults& validation) {
  copy_with_group(in_path, out_path, [&](hid_t file) { detail::write_validation_group(file, validation, out_path); });
}

std::string companion_path(const std::string& results_path, const std::string& suffix) {
  const auto dot = results_path.rfind(".h5");
  return (dot == std::string::npos ? results_path : results_path.substr(0, dot)) + suffix;
}

std::string top_k_csv_path_for(const std::string& results_path) { return companion_path(results_path, "_topk.csv"); }

void write_top_k_csv(const std::string& path, const SweepResults& results) {
  ensure_parent_directory(path);
  AtomicOutput out(path);
  write_top_k_csv(out, results);
  out.commit();
}

void write_top_k_csv(AtomicOutput& out, const SweepResults& results) {
  const std::string& path = out.final_path();
  ensure_parent_directory(path);
  {
    std::ofstream csv(out.temp_path());
    if (!csv) throw Error(ErrorCategory::io, path + ": cannot write the top-K CSV");
    // Shortest round-trip numbers: 0.1, not 0.10000000000000001 (docs/results.md).
    csv << "rank,combo_id";
    for (const auto& p : results.param_names) csv << ',' << p;
    for (const auto* m : metric_names()) csv << ',' << m;
    csv << '\n';
    const RowTable top = results.top_k_rows();
    for (std::size_t rank = 0; rank < top.size(); ++rank) {
      csv << rank + 1 << ',' << top.combo_ids[rank];
      for (std::size_t p = 0; p < top.n_params; ++p) csv << ',' << detail::format_number(top.params_of(rank)[p]);
      for (std::size_t m = 0; m < n_metrics; ++m) csv << ',' << detail::format_number(top.metrics_of(rank)[m]);
      csv << '\n';
    }
    if (!csv.flush()) throw Error(ErrorCategory::io, path + ": cannot write the top-K CSV");
    csv.close();
    if (csv.fail()) throw Error(ErrorCategory::io, path + ": cannot write the top-K CSV");
  }
}

}  // namespace kbt
