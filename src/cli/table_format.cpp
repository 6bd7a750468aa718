#include "cli/table_format.hpp"

#include <cmath>
#include <cstdio>

#include "output/number_format.hpp"

namespace kbt::cli {
namespace {
constexpr const char* not_computed = "n/c";
}  // namespace

const std::vector<std::string>& default_table_metrics() {
  static const std::vector<std::string> names{"sharpe",   "total_return", "cagr",
                                              "max_drawdown", "n_trades", "win_rate",
                                              "final_equity"};
  return names;
}

std::string format_result_table(const std::vector<std::string>& param_names, const RowTable& rows,
                                const std::vector<std::string>& metrics) {
  std::vector<std::string> header{"rank", "combo"};
  for (const auto& p : param_names) header.push_back(p);
  for (const auto& m : metrics) header.push_back(m);

  std::vector<std::vector<std::string>> cells;
  for (std::size_t rank = 0; rank < rows.size(); ++rank) {
    std::vector<std::string> line{std::to_string(rank + 1), std::to_string(rows.combo_ids[rank])};
    for (std::size_t p = 0; p < param_names.size(); ++p) line.push_back(detail::format_table_number(rows.params_of(rank)[p]));
    for (const auto& m : metrics) {
      const int index = metric_index(m);
      // A metric outside the rows' metric set is not NaN but absent (docs/metrics.md "Metric sets").
      line.push_back(has_metric(rows.metric_mask, index) ? detail::format_table_number(rows.metrics_of(rank)[index])
                                                         : std::string(not_computed));
    }
    cells.push_back(std::move(line));
  }
  std::string absent;
  for (const auto& m : metrics)
    if (!has_metric(rows.metric_mask, metric_index(m))) absent += (absent.empty() ? "" : ", ") + m;
  std::vector<std::size_t> width(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) {
    width[c] = header[c].size();
    for (const auto& line : cells) width[c] = std::max(width[c], line[c].size());
  }
  std::string out;
  auto emit = [&](const std::vector<std::string>& line) {
    for (std::size_t c = 0; c < line.size(); ++c) {
      out += std::string(width[c] - line[c].size(), ' ') + line[c];
      out += c + 1 < line.size() ? "  " : "\n";
    }
  };
  emit(header);
  for (const auto& line : cells) emit(line);
  if (!absent.empty() && !cells.empty())
    out += std::string(not_computed) + ": not computed by this run (" + absent +
           "): the run's sweep.metrics left them out; set sweep.metrics: all and run again to rank by them\n";
  return out;
}

}  // namespace kbt::cli
