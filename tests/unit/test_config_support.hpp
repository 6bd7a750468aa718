#pragma once
// Checking a config error: its category, location prefix and text.

#include <gtest/gtest.h>
#include <kbt/config/config_loader.hpp>
#include <kbt/core/error.hpp>

#include <string>

namespace kbt::test {

// Parses `yaml` (as file `name`) with `parse` (parse_run_config or
// parse_job_config) and checks that it fails with `category` and a message
// that starts with `prefix` (the location) and contains `text`.
inline void expect_config_error(kbt::RunConfig (*parse)(const std::string&, const std::string&, const std::string&),
                                const std::string& name, const std::string& yaml, kbt::ErrorCategory category,
                                const std::string& prefix, const std::string& text) {
  try {
    parse(yaml, name, "");
    ADD_FAILURE() << "no error for:\n" << yaml;
  } catch (const kbt::Error& e) {
    const std::string msg = e.what();
    EXPECT_EQ(e.category(), category) << msg;
    EXPECT_EQ(msg.rfind(prefix, 0), 0u) << "expected prefix '" << prefix << "' in: " << msg;
    EXPECT_NE(msg.find(text), std::string::npos) << "expected '" << text << "' in: " << msg;
  }
}

}  // namespace kbt::test
