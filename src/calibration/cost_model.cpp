// The per-space cost model: fit, prediction, break-even (docs/calibration.md).

#include <kbt/calibration/calibration.hpp>
#include <kbt/core/error.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <set>

namespace kbt {
namespace {

constexpr std::size_t kTerms = 4;  // fixed, base, per_instruction, per_window_read
using Coefficients = std::array<double, kTerms>;

// Row of the design matrix: seconds = c0 + c1 * B*N + c2 * B*N*instr + c3 * B*N*reads.
Coefficients design_row(const TimingPoint& p) {
  const double work = p.bars * p.combos;
  return {1.0, work, work * p.complexity.instructions, work * p.complexity.window_reads};
}

// Solves the (weighted, column-scaled) least-squares problem restricted to the
// columns in `active` by the normal equations; false when singular.
bool solve_subset(const std::vector<Coefficients>& rows, const std::vector<double>& rhs, const Coefficients& scale,
                  unsigned active, Coefficients& out) {
  std::array<std::size_t, kTerms> cols{};
  std::size_t m = 0;
  for (std::size_t j = 0; j < kTerms; ++j)
    if (active & (1u << j)) cols[m++] = j;
  out = {};
  if (m == 0) return true;
  // Normal equations A^T A x = A^T b on the scaled columns, in long double.
  long double ata[kTerms][kTerms + 1] = {};
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (std::size_t a = 0; a < m; ++a) {
      const long double xa = rows[r][cols[a]] / scale[cols[a]];
      for (std::size_t b = 0; b < m; ++b) ata[a][b] += xa * (rows[r][cols[b]] / scale[cols[b]]);
      ata[a][m] += xa * rhs[r];
    }
  long double trace = 0;
  for (std::size_t a = 0; a < m; ++a) trace += ata[a][a];
  // Gaussian elimination with partial pivoting.
  for (std::size_t c = 0; c < m; ++c) {
    std::size_t piv = c;
    for (std::size_t r = c + 1; r < m; ++r)
      if (std::fabs(ata[r][c]) > std::fabs(ata[piv][c])) piv = r;
    if (std::fabs(ata[piv][c]) <= 1e-12L * trace) return false;  // collinear columns
    for (std::size_t k = 0; k <= m; ++k) std::swap(ata[c][k], ata[piv][k]);
    for (std::size_t r = 0; r < m; ++r) {
      if (r == c) continue;
      const long double f = ata[r][c] / ata[c][c];
      for (std::size_t k = c; k <= m; ++k) ata[r][k] -= f * ata[c][k];
    }
  }
  for (std::size_t a = 0; a < m; ++a) out[cols[a]] = static_cast<double>(ata[a][m] / ata[a][a]) / scale[cols[a]];
  return true;
}

}  // namespace

SpaceCostModel fit_cost_model(const std::string& space, const std::vector<TimingPoint>& all_points) {
  std::vector<TimingPoint> points;
  for (const auto& p : all_points)
    if (p.space == space && p.seconds > 0 && std::isfinite(p.seconds)) points.push_back(p);
  if (points.size() < kTerms)
    throw Error(ErrorCategory::internal, "cannot fit the cost model of '" + space + "': " +
                                             std::to_string(points.size()) + " timing points (need at least 4)");

  // Relative error: every row divided by its measured seconds.
  std::vector<Coefficients> rows;
  std::vector<double> rhs;
  Coefficients scale{};
  for (const auto& p : points) {
    Coefficients row = design_row(p);
    for (auto& x : row) x /= p.seconds;
    for (std::size_t j = 0; j < kTerms; ++j) scale[j] += row[j] * row[j];
    rows.push_back(row);
    rhs.push_back(1.0);
  }
  for (auto& s : scale) s = s > 0 ? std::sqrt(s) : 1.0;

  // Exact non-negative least squares for four unknowns: the best feasible
  // unconstrained solution over every subset of the columns (the optimum of a
  // convex problem with x >= 0 is the unconstrained optimum on its support).
  Coefficients best{};
  double best_sse = std::numeric_limits<double>::infinity();
  for (unsigned active = 1; active < (1u << kTerms); ++active) {
    Coefficients x;
    if (!solve_subset(rows, rhs, scale, active, x)) continue;
    if (std::any_of(x.begin(), x.end(), [](double v) { return v < 0 || !std::isfinite(v); })) continue;
    double sse = 0;
    for (std::size_t r = 0; r < rows.size(); ++r) {
      double pred = 0;
      for (std::size_t j = 0; j < kTerms; ++j) pred += rows[r][j] * x[j];
      sse += (pred - rhs[r]) * (pred - rhs[r]);
    }
    if (sse < best_sse) best_sse = sse, best = x;
  }

  SpaceCostModel m;
  m.space = space;
  m.fixed_seconds = best[0];
  m.per_bar_combo_base = best[1];
  m.per_instruction = best[2];
  m.per_window_read = best[3];
  m.n_points = points.size();
  for (const auto& p : points)
    m.max_relative_residual = std::max(
        m.max_relative_residual, std::fabs(m.predict_seconds(p.combos, p.bars, p.complexity) - p.seconds) / p.seconds);
  return m;
}

std::optional<double> break_even_combos(const SpaceCostModel& host, const SpaceCostModel& other, double bars,
                                        const Complexity& complexity) {
  // host.fixed + ch * B * N  >  other.fixed + co * B * N  <=>  N * B * (ch - co) > other.fixed - host.fixed
  const double dfixed = other.fixed_seconds - host.fixed_seconds;
  const double dslope = (host.per_bar_combo_seconds(complexity) - other.per_bar_combo_seconds(complexity)) * bars;
  if (dfixed <= 0 && dslope >= 0) return 0.0;  // other never slower
  if (dslope <= 0) return std::nullopt;        // other never faster
  if (dfixed <= 0) return 0.0;
  return std::ceil(dfixed / dslope);
}

bool is_host_space(const std::string& space) { return space == "serial" || space == "openmp"; }

namespace {
// serial, then openmp, then device spaces: a pair's `host` is its lower rank.
int space_rank(const std::string& space) { return space == "serial" ? 0 : space == "openmp" ? 1 : 2; }
}  // namespace

std::vector<BreakEven> break_even_table(const std::vector<SpaceCostModel>& models, const std::vector<double>& bars,
                                        const std::vector<NamedComplexity>& complexities) {
  std::vector<BreakEven> table;
  for (const auto& h : models) {
    if (!is_host_space(h.space)) continue;
    for (const auto& o : models) {
      // Each pair once: serial vs openmp, serial vs cuda, openmp vs cuda.
      if (space_rank(o.space) <= space_rank(h.space)) continue;
      for (double b : bars)
        for (const auto& k : complexities)
          table.push_back({h.space, o.space, k.workload, b, k.complexity, break_even_combos(h, o, b, k.complexity)});
    }
  }
  return table;
}

const SpaceCostModel* Calibration::model(const std::string& space) const {
  for (const auto& m : models)
    if (m.space == space) return &m;
  return nullptr;
}

Calibration make_calibration(const std::vector<TimingPoint>& points, const MachineIdentity& machine) {
  Calibration c;
  c.machine = machine;
  c.points = points;
  std::vector<std::string> spaces;
  std::set<double> bars;
  std::vector<NamedComplexity> complexities;
  for (const auto& p : points) {
    if (std::find(spaces.begin(), spaces.end(), p.space) == spaces.end()) spaces.push_back(p.space);
    bars.insert(p.bars);
    const bool seen = std::any_of(complexities.begin(), complexities.end(), [&](const NamedComplexity& k) {
      return k.workload == p.workload && k.complexity.instructions == p.complexity.instructions &&
             k.complexity.window_reads == p.complexity.window_reads;
    });
    if (!seen) complexities.push_back({p.workload, p.complexity});
  }
  for (const auto& s : spaces) {
    SpaceCostModel m = fit_cost_model(s, points);
    for (const auto& id : machine.spaces)
      if (id.name == s) m.concurrency = id.concurrency;
    c.models.push_back(m);
  }
  c.break_even = break_even_table(c.models, {bars.begin(), bars.end()}, complexities);
  return c;
}

}  // namespace kbt
