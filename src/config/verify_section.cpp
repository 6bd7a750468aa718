// The `verify` section: how many candidates the reference engine re-runs, on how
// many threads, and the scoring window of the verification.

#include "config/loader.hpp"
#include "config/number_text.hpp"

#include <kbt/core/error.hpp>

namespace kbt::detail {

namespace {

const std::vector<std::string> verify_keys = {"top_n", "threads", "score_start", "score_end"};

}  // namespace

void Loader::verify(const YamlEntry& e) {
  if (e.value.IsNull()) return;
  VerifySettings& v = cfg_.verify;
  const YamlEntry* start = nullptr;
  const YamlEntry* end = nullptr;
  // Named: `start`/`end` point into it after the loop.
  const auto items = doc_.entries(e, "verify", verify_keys);
  for (const auto& item : items) {
    const std::string what = "verify." + item.name;
    note(item, what);
    if (item.name == "top_n") {
      if (item.value.IsScalar() && item.value.Scalar() == "auto") {
        v.top_n.reset();
      } else {
        const auto n = item.value.IsScalar() ? detail::parse_integer(item.value.Scalar()) : std::nullopt;
        if (!n || *n < 0) bad(item, what, "an integer >= 0 or auto");
        v.top_n = *n;
      }
    }
    else if (item.name == "threads") v.threads = static_cast<int>(integer(item, what, 0));
    else if (item.name == "score_start") time_point(item, what, v.score_start_bar, v.score_start_time_ns), start = &item;
    else if (item.name == "score_end") time_point(item, what, v.score_end_bar, v.score_end_time_ns), end = &item;
  }
  if (start && end) {
    const bool bars = v.score_start_bar && v.score_end_bar, times = v.score_start_time_ns && v.score_end_time_ns;
    if ((bars && *v.score_end_bar <= *v.score_start_bar) || (times && *v.score_end_time_ns <= *v.score_start_time_ns))
      doc_.fail(ErrorCategory::config, *end, "verify.score_end must come after verify.score_start");
  }
}

}  // namespace kbt::detail
