// Which calibration file applies, and whether it belongs to this machine.

#include <kbt/calibration/calibration.hpp>
#include <kbt/core/error.hpp>

#include <cstdlib>
#include <filesystem>

namespace kbt {

std::string default_calibration_path() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  if (xdg && *xdg) return (std::filesystem::path(xdg) / "kbt" / "calibration.yaml").string();
  const char* home = std::getenv("HOME");
  if (home && *home) return (std::filesystem::path(home) / ".config" / "kbt" / "calibration.yaml").string();
  return {};
}

CalibrationLocation resolve_calibration_location(const std::string& option) {
  if (!option.empty()) return {option, "--calibration"};
  const char* env = std::getenv("KBT_CALIBRATION");
  if (env && *env) return {env, "KBT_CALIBRATION"};
  return {default_calibration_path(), "default"};
}

CalibrationStatus load_calibration_status(const std::string& option, const MachineIdentity& here) {
  CalibrationStatus st;
  st.location = resolve_calibration_location(option);
  if (st.location.path.empty()) return st;
  std::error_code ec;
  st.exists = std::filesystem::exists(st.location.path, ec);
  if (!st.exists) {
    if (st.location.is_explicit())
      throw Error(ErrorCategory::io, "calibration file '" + st.location.path + "' (from " + st.location.source +
                                         ") does not exist; run `kbt calibrate --out " + st.location.path + "`");
    return st;
  }
  st.calibration = read_calibration_file(st.location.path);
  st.mismatches = identity_mismatches(st.calibration->machine, here);
  return st;
}

std::string CalibrationStatus::describe() const {
  const std::string where = location.path.empty() ? std::string("(no default location: HOME is not set)")
                                                  : location.path + " (" + location.source + ")";
  if (!exists) return "no calibration file at " + where;
  if (!mismatches.empty()) {
    std::string s = where + " was made on another machine (";
    for (std::size_t i = 0; i < mismatches.size(); ++i) s += (i ? "; " : "") + mismatches[i];
    return s + ")";
  }
  return where + " matches this machine (created " + (calibration->created_utc.empty() ? "?" : calibration->created_utc) +
         ", " + std::to_string(calibration->models.size()) + " space(s))";
}

}  // namespace kbt
