// The `validation` section (docs/validation.md): a held-out test window, the
// candidates studied, their return periods and the PBO blocks.

#include "config/loader.hpp"

#include <kbt/core/error.hpp>

#include "config/number_text.hpp"

namespace kbt::detail {

namespace {

const std::vector<std::string> validation_keys = {"holdout", "top_k", "period", "pbo_blocks"};

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
    } else if (k == "pbo_blocks") {
      v.pbo_blocks = integer(item, what, 2);
      if (v.pbo_blocks % 2 != 0 || v.pbo_blocks > 26) bad(item, what, "an even number of blocks from 2 to 26");
    }
  }
}

}  // namespace kbt::detail
