// `kbt run` of a labelling config: label, write every output or none, and
// print one line per barrier setting.

#include "cli/label_job_command.hpp"

#include <kbt/core/atomic_output.hpp>
#include <kbt/label/label_job.hpp>
#include <kbt/output/labels.hpp>
#include <kbt/output/run_lock.hpp>
#include <kbt/sweep/run_sweep.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "output/number_format.hpp"

namespace kbt::cli {
namespace {

std::string percent(std::uint64_t part, std::uint64_t whole) {
  if (whole == 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return buf;
}

// One row per setting: its barriers, events, how they ended, the mean return.
std::string setting_table(const LabelJobResult& r, std::size_t n_cells, std::size_t show) {
  using detail::format_table_number;
  std::vector<std::vector<std::string>> rows = {
      {"setting", "profit_take", "stop", "horizon", "events", "profit", "stop", "vertical", "mean ret"}};
  for (std::size_t s = 0; s < std::min(show, r.settings.size()); ++s) {
    std::uint64_t by[4] = {0, 0, 0, 0};
    double sum = 0;
    for (std::size_t i = s * n_cells; i < (s + 1) * n_cells; ++i) {
      ++by[r.labels.barrier[i]];
      if (r.labels.barrier[i] != detail::barrier_none) sum += r.labels.ret[i];
    }
    const std::uint64_t events = r.events[s];
    rows.push_back({std::to_string(s), format_table_number(r.settings[s].profit_take),
                    format_table_number(r.settings[s].stop), std::to_string(r.settings[s].horizon),
                    std::to_string(events), percent(by[detail::barrier_profit], events),
                    percent(by[detail::barrier_stop], events), percent(by[detail::barrier_vertical], events),
                    events ? format_table_number(sum / static_cast<double>(events)) : "-"});
  }
  return detail::format_table(rows);
}

}  // namespace

void run_label_config(const RunConfig& config, const JobRunOptions& o) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const BarData bars = load_run_data(config);
  const double load_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  const std::string out = o.out.empty() ? config.output.path : o.out;
  const std::string csv = config.output.csv ? labels_csv_path_for(out) : std::string();
  const RunLock lock(out);  // one job per output at a time (docs/results.md "Faults")
  for (const std::string& p : {out, csv})
    if (!p.empty()) remove_orphaned_temporaries(p);

  const LabelJobResult r = run_label_job(config, bars, o.device);
  RunProfile profile = job_profile("label", r.device, config, load_seconds);
  profile.set("seconds_expressions", r.seconds_expressions);
  profile.set("seconds_labels", r.seconds_labels);
  profile.set("settings", static_cast<double>(r.settings.size()));
  const auto t_write = Clock::now();
  {
    AtomicOutputSet outputs;  // all outputs or none, the labels file last
    if (!csv.empty()) write_labels_csv(outputs.add(csv), bars, r);
    write_labels_hdf5(outputs.add(out), bars, r, config.source_yaml, profile);
    outputs.commit();
  }
  const double write_seconds = std::chrono::duration<double>(Clock::now() - t_write).count();

  std::printf("labels: %zu barrier setting%s x %zu symbol%s x %zu bars, device %s\n", r.settings.size(),
              r.settings.size() == 1 ? "" : "s", bars.n_symbols(), bars.n_symbols() == 1 ? "" : "s", bars.n_bars(),
              r.device.c_str());
  std::fputs(setting_table(r, bars.n_symbols() * bars.n_bars(), o.show).c_str(), stdout);
  if (r.settings.size() > o.show) std::printf("  (%zu more settings in the file)\n", r.settings.size() - o.show);
  std::printf("labels: %s%s%s\n", out.c_str(), csv.empty() ? "" : "  CSV: ", csv.c_str());
  if (o.profile) print_job_profile(profile, write_seconds);
}

}  // namespace kbt::cli
