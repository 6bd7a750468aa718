// The `validation` section (docs/validation.md): a held-out test window, the
// candidates studied, their return periods and the PBO blocks.

#include "config/loader.hpp"

#include <kbt/core/error.hpp>

#include "config/number_text.hpp"

#include <kbt/data/time_format.hpp>

namespace kbt::detail {

namespace {

const std::vector<std::string> validation_keys = {"holdout", "walk_forward", "top_k", "period", "pbo_blocks", "pbo_configs"};
const std::vector<std::string> walk_forward_keys = {"train", "test", "step", "anchored", "purge", "embargo"};

}  // namespace

void Loader::validation(const YamlEntry& e) {
  ValidationSettings& v = cfg_.validation;
  v.enabled = true;
  if (e.value.IsNull()) return;
  for (const auto& item : doc_.entries(e, "validation", validation_keys)) {
    const std::string what = "validation." + item.name;
    note(item, what);
    const std::string& k = item.name;
    if (k == "holdout") {
      // 0.3: a fraction of the window; 5000: bars; '2023-01-01': where the test starts.
      const std::string expected =
          "a fraction of the scoring window in (0, 1), a number of bars >= 1, or the ISO-8601 UTC timestamp "
          "where the test window starts";
      if (!item.value.IsScalar()) bad(item, what, expected);
      const std::string& text = item.value.Scalar();
      if (const auto i = detail::parse_integer(text)) {
        if (*i < 1) bad(item, what, expected);
        v.holdout_bars = *i;
      } else if (const auto x = as_number(item.value)) {
        if (!(*x > 0 && *x < 1)) bad(item, what, expected);
        v.holdout_fraction = *x;
      } else {
        std::optional<std::int64_t> bar;
        time_point(item, what, bar, v.holdout_time_ns);
        if (!v.holdout_time_ns) bad(item, what, expected);
      }
    } else if (k == "top_k") {
      v.top_k = integer(item, what, 2);
    } else if (k == "period") {
      const std::string expected = "day, week, month, or a number of bars >= 2";
      if (!item.value.IsScalar()) bad(item, what, expected);
      const std::string& text = item.value.Scalar();
      if (const auto i = detail::parse_integer(text)) {
        if (*i < 2) bad(item, what, expected);
        v.period_bars = *i;
        v.period = "bars";
      } else {
        v.period = choice(item, what, {"day", "week", "month"});
      }
    } else if (k == "walk_forward") {
      // Its stitched run splices the folds' choices into one simulation, whose
      // settings would change at each fold: not built yet.
      if (cfg_.simulation.swept.any())
        doc_.fail(ErrorCategory::unsupported, item.value,
                  "validation.walk_forward with swept simulation settings (a stop, cost or leverage that names a "
                  "param) is not supported yet; give those settings as numbers, or use validation.holdout");
      walk_forward(item);
    } else if (k == "pbo_blocks") {
      v.pbo_blocks = integer(item, what, 2);
      if (v.pbo_blocks % 2 != 0 || v.pbo_blocks > 26) bad(item, what, "an even number of blocks from 2 to 26");
    } else if (k == "pbo_configs") {
      v.pbo_configs = integer(item, what, 2);
    }
  }
  if (v.walk_forward && v.has_holdout())
    doc_.fail(ErrorCategory::config, e.value, "validation: give holdout or walk_forward, not both");
}

WindowLength Loader::window_length(const YamlEntry& e, const std::string& what) const {
  const std::string expected = "a number of bars >= 1, or a span of time such as 90d, 6mo, 2y";
  if (!e.value.IsScalar()) bad(e, what, expected);
  WindowLength w;
  const std::string& text = e.value.Scalar();
  if (const auto i = detail::parse_integer(text)) {
    if (*i < 1) bad(e, what, expected);
    w.bars = *i;
  } else if (parse_calendar_span(text)) {
    w.span = text;
  } else {
    bad(e, what, expected);
  }
  return w;
}

void Loader::walk_forward(const YamlEntry& e) {
  WalkForwardSettings w;
  const YamlEntry* train = nullptr;
  const YamlEntry* test = nullptr;
  const auto items = doc_.entries(e, "validation.walk_forward", walk_forward_keys);
  for (const auto& item : items) {
    const std::string what = "validation.walk_forward." + item.name;
    note(item, what);
    if (item.name == "train") w.train = window_length(item, what), train = &item;
    else if (item.name == "test") w.test = window_length(item, what), test = &item;
    else if (item.name == "step") w.step = window_length(item, what);
    else if (item.name == "anchored") w.anchored = boolean(item, what);
    else if (item.name == "purge") w.purge = integer(item, what, 0);
    else if (item.name == "embargo") w.embargo = integer(item, what, 0);
  }
  if (!train || !test)
    doc_.fail(ErrorCategory::config, e.value, "validation.walk_forward needs train and test (and optionally step)");
  if (w.step.bars == 0 && w.step.span.empty()) w.step = w.test;  // consecutive test windows
  cfg_.validation.walk_forward = w;
}

}  // namespace kbt::detail
