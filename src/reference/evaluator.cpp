// Reference evaluator: interprets a Program instruction by instruction over whole
// columns (all symbols x all bars). Plain loops, no cleverness: it is the source of
// truth that kernels are tested against (docs/language.md has the semantics).

#include <kbt/core/error.hpp>
#include <kbt/lang/op_table.hpp>
#include <kbt/lang/scalar_ops.hpp>
#include <kbt/reference/evaluator.hpp>

#include "reference/evaluator_series_ops.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace kbt {

namespace {

const double nan = kbt::math::quiet_nan<double>();
constexpr std::int64_t ns_per_day = 86400LL * 1000000000LL;
constexpr std::int64_t ns_per_week = 7 * ns_per_day;
// Whole-week timeframes start on Monday 00:00 UTC (1970-01-05); all others are
// aligned to the epoch, so days start at 00:00 UTC and 4h buckets at 00, 04, ...
constexpr std::int64_t monday_origin_ns = 4 * ns_per_day;

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

}  // namespace

TimeframeGrid timeframe_grid(const std::vector<std::int64_t>& ts, std::int64_t tf_ns) {
  TimeframeGrid g;
  g.visible.assign(ts.size(), -1);
  const std::int64_t origin = tf_ns % ns_per_week == 0 ? monday_origin_ns : 0;
  std::int64_t current = 0;
  for (std::size_t b = 0; b < ts.size(); ++b) {
    const std::int64_t bucket = floor_div(ts[b] - origin, tf_ns);
    if (b == 0 || bucket != current) {
      if (b > 0) g.end.push_back(b);
      g.begin.push_back(b);
      current = bucket;
    }
    // The bucket holding bar b is still open: expose the one before it.
    g.visible[b] = static_cast<long>(g.begin.size()) - 2;
  }
  if (!ts.empty()) g.end.push_back(ts.size());
  return g;
}

struct ReferenceSeriesCache::Impl {
  std::size_t max_bytes;
  mutable std::mutex mutex;
  const Program* program = nullptr;
  const BarData* data = nullptr;
  std::map<std::pair<std::int32_t, long>, std::shared_ptr<const std::vector<double>>> series;
  std::size_t bytes = 0;
  std::size_t hits = 0;
};

ReferenceSeriesCache::ReferenceSeriesCache(std::size_t max_bytes) : impl_(std::make_unique<Impl>()) {
  impl_->max_bytes = max_bytes;
}
ReferenceSeriesCache::~ReferenceSeriesCache() = default;

std::size_t ReferenceSeriesCache::bytes_held() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->bytes;
}
std::size_t ReferenceSeriesCache::hits() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->hits;
}

// The evaluator's view of a cache: look up, or store, the values of a register
// for a window value (-1 for registers that depend on no param).
class ReferenceCacheAccess {
 public:
  ReferenceCacheAccess(ReferenceSeriesCache* cache, const Program& p, const BarData& d)
      : impl_(cache ? cache->impl_.get() : nullptr) {
    if (!impl_) return;
    std::lock_guard<std::mutex> lock(impl_->mutex);
    if (!impl_->program) {
      impl_->program = &p;
      impl_->data = &d;
    } else if (impl_->program != &p || impl_->data != &d) {
      throw Error(ErrorCategory::internal, "a ReferenceSeriesCache was used with another program or data set");
    }
  }
  bool enabled() const { return impl_ != nullptr; }

  std::shared_ptr<const std::vector<double>> find(std::int32_t reg, long window) const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    auto it = impl_->series.find({reg, window});
    if (it == impl_->series.end()) return nullptr;
    ++impl_->hits;
    return it->second;
  }

  void store(std::int32_t reg, long window, const std::vector<double>& values) const {
    const std::size_t size = values.size() * sizeof(double);
    std::lock_guard<std::mutex> lock(impl_->mutex);
    if (impl_->bytes + size > impl_->max_bytes || impl_->series.count({reg, window})) return;
    impl_->series.emplace(std::make_pair(reg, window), std::make_shared<const std::vector<double>>(values));
    impl_->bytes += size;
  }

 private:
  ReferenceSeriesCache::Impl* impl_;
};

namespace {

using Column = std::vector<double>;

class Evaluator {
 public:
  Evaluator(const Program& p, const BarData* d, const double* params)
      : p_(p), d_(d), params_(params), regs_(p.code.size()), scan_outputs_(p.scans.size()) {
    if (!d_) return;
    n_sym_ = d_->n_symbols();
    if (d_->symbols != p.symbol_names)
      throw Error(ErrorCategory::data_format,
                  "the data's symbols differ from those the strategy was compiled for");
    for (const auto& c : p.column_names)
      if (!d_->has_column(c))
        throw Error(ErrorCategory::data_format, "the data has no column '" + c + "' that the strategy reads");
    for (const auto& e : p.exo_names)
      if (!d_->exo.count(e))
        throw Error(ErrorCategory::data_format, "the data has no exo series '" + e + "' that the strategy reads");
    grids_.resize(p.frame_ns.size());
    for (std::size_t f = 1; f < p.frame_ns.size(); ++f) grids_[f] = timeframe_grid(d_->timestamps, p.frame_ns[f]);
  }

  // Which registers run_all computes.
  enum class Only { everything, scalars, param_free_series };

  void run_all(Only only, const ReferenceCacheAccess* cache = nullptr) {
    for (std::size_t r = 0; r < p_.code.size(); ++r) {
      const Instr& i = p_.code[r];
      if (only == Only::scalars && i.is_series) continue;
      if (only == Only::param_free_series && i.is_series && i.depends_on_params) continue;
      long key = 0;
      if (cache && cache->enabled() && cacheable(i, key)) {
        const auto reg = static_cast<std::int32_t>(r);
        if (auto hit = cache->find(reg, key)) {
          regs_[r] = *hit;
        } else {
          regs_[r] = compute(i);
          cache->store(reg, key, regs_[r]);
        }
        continue;
      }
      regs_[r] = compute(i);
    }
  }

  std::vector<Column>& registers() { return regs_; }

  // A register broadcast to [n_sym * n_bars] (scalars repeated).
  Column full(std::int32_t r) const {
    const Column& v = regs_[static_cast<std::size_t>(r)];
    const std::size_t n = n_sym_ * d_->n_bars();
    if (v.size() == n) return v;
    return Column(n, v.empty() ? nan : v[0]);
  }

 private:
  std::size_t bars(std::int32_t frame) const {
    return frame <= 0 ? d_->n_bars() : grids_[static_cast<std::size_t>(frame)].begin.size();
  }

  const Column& reg(std::int32_t r) const { return regs_[static_cast<std::size_t>(r)]; }

  // A series that is the same for every combo (key -1), or a windowed op over
  // param-free inputs whose window is a param (key = the window value).
  bool cacheable(const Instr& i, long& key) const {
    if (!i.is_series) return false;
    if (!i.depends_on_params) {
      key = -1;
      return true;
    }
    if (!window_varies(i.window_kind)) return false;
    for (std::int32_t x : {i.a, i.b, i.c})
      if (x >= 0 && p_.code[static_cast<std::size_t>(x)].depends_on_params) return false;
    key = window(i);
    return true;
  }

  long window(const Instr& i) const {
    if (i.window_kind == WindowKind::constant) return i.window;
    // A param, or a window expression: the value of its scalar register.
    const bool param = i.window_kind == WindowKind::param;
    const double v = param ? params_[i.window] : reg(i.window)[0];
    if (!(v == std::floor(v)) || v < 0 || v > 1e9)
      throw Error(ErrorCategory::language,
                  (param ? "param '" + p_.param_names[static_cast<std::size_t>(i.window)] + "'"
                         : std::string("a window expression")) +
                      " = " + std::to_string(v) + " is used as a window; expected a non-negative integer");
    return static_cast<long>(v);
  }

  Column compute(const Instr& i) {
    switch (i.op) {
      case OpCode::constant: return {i.constant};
      case OpCode::param: return {params_[i.aux]};
      case OpCode::column: return load_column(p_.column_names[static_cast<std::size_t>(i.aux)], i.frame, false);
      case OpCode::exo: return load_column(p_.exo_names[static_cast<std::size_t>(i.aux)], i.frame, true);
      case OpCode::lag: case OpCode::lead: case OpCode::rolling_mean: case OpCode::rolling_sum:
      case OpCode::rolling_std: case OpCode::rolling_min: case OpCode::rolling_max:
      case OpCode::zscore: case OpCode::ema: case OpCode::rsi: case OpCode::roc: case OpCode::atr:
        return per_row(i);
      case OpCode::cs_rank: case OpCode::cs_zscore: case OpCode::cs_demean: return per_bar(i);
      case OpCode::symbol_read: {
        const std::size_t nb = bars(i.frame);
        const Column& x = reg(i.a);
        Column out(n_sym_ * nb);
        for (std::size_t s = 0; s < n_sym_; ++s)
          for (std::size_t b = 0; b < nb; ++b) out[s * nb + b] = x[static_cast<std::size_t>(i.aux) * nb + b];
        return out;
      }
      case OpCode::symbol_is: {
        const std::size_t nb = bars(i.frame);
        Column out(n_sym_ * nb, 0.0);
        std::fill_n(out.begin() + static_cast<long>(static_cast<std::size_t>(i.aux) * nb), nb, 1.0);
        return out;
      }
      case OpCode::scan_output: {
        auto& outs = scan_outputs_[static_cast<std::size_t>(i.aux)];
        if (outs.empty()) outs = run_scan(static_cast<std::size_t>(i.aux));
        return outs[static_cast<std::size_t>(i.aux2)];
      }
      case OpCode::htf: {
        const TimeframeGrid& g = grids_[static_cast<std::size_t>(i.aux)];
        const std::size_t nb = d_->n_bars(), nh = g.begin.size();
        const Column& x = reg(i.a);
        Column out(n_sym_ * nb, nan);
        for (std::size_t s = 0; s < n_sym_; ++s)
          for (std::size_t b = 0; b < nb; ++b)
            if (g.visible[b] >= 0) out[s * nb + b] = x[s * nh + static_cast<std::size_t>(g.visible[b])];
        return out;
      }
      case OpCode::scan_input:
      case OpCode::scan_state:
        throw Error(ErrorCategory::internal, "scan opcode in the main program");
      default: return pointwise(i);
    }
  }

  Column pointwise(const Instr& i) {
    const Column* ops[3] = {nullptr, nullptr, nullptr};
    const std::int32_t idx[3] = {i.a, i.b, i.c};
    std::size_t n = 1;
    for (int k = 0; k < 3; ++k) {
      if (idx[k] < 0) continue;
      ops[k] = &reg(idx[k]);
      if (ops[k]->size() > n) n = ops[k]->size();
    }
    auto at = [&](int k, std::size_t e) {
      if (!ops[k]) return 0.0;
      return ops[k]->size() == 1 ? (*ops[k])[0] : (*ops[k])[e];
    };
    Column out(n);
    for (std::size_t e = 0; e < n; ++e) out[e] = ops::apply_pointwise(i.op, at(0, e), at(1, e), at(2, e));
    return out;
  }

  Column load_column(const std::string& name, std::int32_t frame, bool exo) {
    const std::size_t nb = d_->n_bars();
    Column base(n_sym_ * nb);
    for (std::size_t s = 0; s < n_sym_; ++s)
      for (std::size_t b = 0; b < nb; ++b)
        base[s * nb + b] = exo ? d_->exo.at(name)[b] : d_->columns.at(name)[s * nb + b];
    if (frame <= 0) return base;
    return resample(base, name, exo, grids_[static_cast<std::size_t>(frame)]);
  }

  // OHLCV aggregation over each higher-timeframe bucket, skipping NaN bars:
  // open first, high max, low min, close (and every other column, and exo) last,
  // volume and funding_rate summed in bar order. An all-NaN bucket is NaN.
  Column resample(const Column& base, const std::string& name, bool exo, const TimeframeGrid& g) {
    enum class Agg { first, max, min, last, sum };
    Agg agg = Agg::last;
    if (!exo) {
      if (name == "open") agg = Agg::first;
      else if (name == "high") agg = Agg::max;
      else if (name == "low") agg = Agg::min;
      else if (name == "volume" || name == "funding_rate") agg = Agg::sum;
    }
    const std::size_t nb = d_->n_bars(), nh = g.begin.size();
    Column out(n_sym_ * nh, nan);
    for (std::size_t s = 0; s < n_sym_; ++s) {
      for (std::size_t j = 0; j < nh; ++j) {
        double acc = nan;
        for (std::size_t b = g.begin[j]; b < g.end[j]; ++b) {
          const double v = base[s * nb + b];
          if (kbt::math::isnan(v)) continue;
          if (kbt::math::isnan(acc)) {
            acc = v;
            continue;
          }
          switch (agg) {
            case Agg::first: break;
            case Agg::max: acc = v > acc ? v : acc; break;
            case Agg::min: acc = v < acc ? v : acc; break;
            case Agg::last: acc = v; break;
            case Agg::sum: acc += v; break;
          }
        }
        out[s * nh + j] = acc;
      }
    }
    return out;
  }

  Column per_row(const Instr& i) {
    const std::size_t nb = bars(i.frame);
    const long w = window(i);
    const long min_w = min_window(i.op);  // the op table
    if (w < min_w)
      throw Error(ErrorCategory::language, std::string("window ") + std::to_string(w) + " of " +
                                               to_string(i.op) + " is below its minimum " +
                                               std::to_string(min_w));
    Column out(n_sym_ * nb);
    auto row_of = [&](std::int32_t r, std::size_t s) {
      const Column& x = reg(r);
      return reference::Row(x.begin() + static_cast<long>(s * nb), x.begin() + static_cast<long>((s + 1) * nb));
    };
    for (std::size_t s = 0; s < n_sym_; ++s) {
      reference::Row y;
      const reference::Row x = row_of(i.a, s);
      switch (i.op) {
        case OpCode::lag: y = reference::lag(x, w); break;
        case OpCode::lead: y = reference::lead(x, w); break;
        case OpCode::rolling_mean: y = reference::rolling_mean(x, w); break;
        case OpCode::rolling_sum: y = reference::rolling_sum(x, w); break;
        case OpCode::rolling_std: y = reference::rolling_std(x, w); break;
        case OpCode::rolling_min: y = reference::rolling_min(x, w); break;
        case OpCode::rolling_max: y = reference::rolling_max(x, w); break;
        case OpCode::zscore: y = reference::zscore(x, w); break;
        case OpCode::ema: y = reference::ema(x, w); break;
        case OpCode::rsi: y = reference::rsi(x, w); break;
        case OpCode::roc: y = reference::roc(x, w); break;
        case OpCode::atr: y = reference::atr(x, row_of(i.b, s), row_of(i.c, s), w); break;
        default: throw Error(ErrorCategory::internal, "not a series op");
      }
      std::copy(y.begin(), y.end(), out.begin() + static_cast<long>(s * nb));
    }
    return out;
  }

  Column per_bar(const Instr& i) {
    const std::size_t nb = bars(i.frame);
    const Column& x = reg(i.a);
    Column out(n_sym_ * nb);
    reference::Row cross(n_sym_);
    for (std::size_t b = 0; b < nb; ++b) {
      for (std::size_t s = 0; s < n_sym_; ++s) cross[s] = x[s * nb + b];
      reference::Row y;
      if (i.op == OpCode::cs_rank) y = reference::cs_rank(cross);
      else if (i.op == OpCode::cs_zscore) y = reference::cs_zscore(cross);
      else y = reference::cs_demean(cross);
      for (std::size_t s = 0; s < n_sym_; ++s) out[s * nb + b] = y[s];
    }
    return out;
  }

  // Runs one tape over slots; `inputs` and `state` feed scan_input/scan_state.
  void run_tape(std::int32_t begin, std::int32_t end, const double* inputs, const double* state,
                std::vector<double>& slots) const {
    slots.assign(static_cast<std::size_t>(end - begin), 0.0);
    for (std::int32_t k = begin; k < end; ++k) {
      const Instr& t = p_.scan_tape[static_cast<std::size_t>(k)];
      double v;
      switch (t.op) {
        case OpCode::constant: v = t.constant; break;
        case OpCode::param: v = params_[t.aux]; break;
        case OpCode::scan_input: v = inputs[t.aux]; break;
        case OpCode::scan_state: v = state[t.aux]; break;
        default: {
          auto slot = [&](std::int32_t r) { return r < 0 ? 0.0 : slots[static_cast<std::size_t>(r)]; };
          v = ops::apply_pointwise(t.op, slot(t.a), slot(t.b), slot(t.c));
        }
      }
      slots[static_cast<std::size_t>(k - begin)] = v;
    }
  }

  // Per symbol, bar by bar: a bar with any NaN input keeps the state and outputs NaN;
  // the first bar with all inputs present runs init, then (like every bar) update.
  std::vector<Column> run_scan(std::size_t index) {
    const ScanProgram& sp = p_.scans[index];
    const std::size_t nb = d_->n_bars();
    std::vector<Column> outs(static_cast<std::size_t>(sp.n_outputs), Column(n_sym_ * nb, nan));
    auto ref = [&](std::int32_t off, std::int32_t k) { return p_.scan_refs[static_cast<std::size_t>(off + k)]; };
    std::vector<double> in(static_cast<std::size_t>(sp.n_inputs)), state(static_cast<std::size_t>(sp.n_states));
    std::vector<double> slots;
    for (std::size_t s = 0; s < n_sym_; ++s) {
      bool seeded = false;
      for (std::size_t b = 0; b < nb; ++b) {
        bool valid = true;
        for (std::int32_t k = 0; k < sp.n_inputs; ++k) {
          const Column& x = reg(ref(sp.inputs, k));
          const double v = x.size() == 1 ? x[0] : x[s * nb + b];
          in[static_cast<std::size_t>(k)] = v;
          valid = valid && !kbt::math::isnan(v);
        }
        if (!valid) continue;
        if (!seeded) {
          run_tape(sp.init_begin, sp.init_end, in.data(), state.data(), slots);
          for (std::int32_t j = 0; j < sp.n_states; ++j)
            state[static_cast<std::size_t>(j)] = slots[static_cast<std::size_t>(ref(sp.init_state, j))];
          seeded = true;
        }
        run_tape(sp.update_begin, sp.update_end, in.data(), state.data(), slots);
        for (std::int32_t k = 0; k < sp.n_outputs; ++k)
          outs[static_cast<std::size_t>(k)][s * nb + b] = slots[static_cast<std::size_t>(ref(sp.outputs, k))];
        for (std::int32_t j = 0; j < sp.n_states; ++j)
          state[static_cast<std::size_t>(j)] = slots[static_cast<std::size_t>(ref(sp.update_state, j))];
      }
    }
    return outs;
  }

  const Program& p_;
  const BarData* d_;
  const double* params_;
  std::size_t n_sym_ = 0;
  std::vector<TimeframeGrid> grids_;
  std::vector<Column> regs_;
  std::vector<std::vector<Column>> scan_outputs_;
};

}  // namespace

StrategyOutputs evaluate_strategy_reference(const Program& program, const BarData& data,
                                            const double* param_values, ReferenceSeriesCache* cache) {
  Evaluator ev(program, &data, param_values);
  const ReferenceCacheAccess access(cache, program, data);
  ev.run_all(Evaluator::Only::everything, &access);
  StrategyOutputs out;
  out.form = program.form;
  out.n_symbols = data.n_symbols();
  out.n_bars = data.n_bars();
  if (program.form == StrategyOutputs::Form::position) {
    if (program.position < 0) throw Error(ErrorCategory::internal, "program has no position output");
    out.target = ev.full(program.position);
  } else {
    if (program.long_entry >= 0) out.long_entry = ev.full(program.long_entry);
    if (program.long_exit >= 0) out.long_exit = ev.full(program.long_exit);
    if (program.short_entry >= 0) out.short_entry = ev.full(program.short_entry);
    if (program.short_exit >= 0) out.short_exit = ev.full(program.short_exit);
  }
  return out;
}

bool constraints_hold(const Program& program, const double* param_values) {
  if (program.constraints.empty()) return true;
  Evaluator ev(program, nullptr, param_values);
  ev.run_all(Evaluator::Only::scalars);
  for (std::int32_t r : program.constraints) {
    const auto& v = ev.registers()[static_cast<std::size_t>(r)];
    if (v.empty() || !(v[0] == 1.0)) return false;
  }
  return true;
}

std::vector<double> scalar_registers_reference(const Program& program, const double* param_values) {
  Evaluator ev(program, nullptr, param_values);
  ev.run_all(Evaluator::Only::scalars);
  std::vector<double> out(program.code.size(), std::numeric_limits<double>::quiet_NaN());
  for (std::size_t r = 0; r < out.size(); ++r) {
    const auto& v = ev.registers()[r];
    if (!program.code[r].is_series && !v.empty()) out[r] = v[0];
  }
  return out;
}

std::vector<double> evaluate_expression_reference(const Program& program, const BarData& data,
                                                  const double* param_values) {
  if (program.expression < 0) throw Error(ErrorCategory::internal, "program has no expression output");
  Evaluator ev(program, &data, param_values);
  ev.run_all(Evaluator::Only::everything);
  return ev.full(program.expression);
}

std::vector<std::vector<double>> evaluate_registers_reference(const Program& program, const BarData& data,
                                                              const double* param_values) {
  Evaluator ev(program, &data, param_values);
  ev.run_all(Evaluator::Only::everything);
  return std::move(ev.registers());
}

std::vector<std::vector<double>> evaluate_param_free_registers_reference(const Program& program, const BarData& data,
                                                                         const double* param_values) {
  Evaluator ev(program, &data, param_values);
  ev.run_all(Evaluator::Only::param_free_series);
  return std::move(ev.registers());
}

}  // namespace kbt
