#pragma once
// Loading and validating a run config (docs/config.md). The reference of every key, its
// type, default and meaning is docs/config.md.
//
// Every problem is a kbt::Error whose message starts with "file:line:col: ":
//   config  YAML syntax, unknown or duplicate key, wrong type or value
//   grid    a parameter axis that is empty or malformed (step <= 0, start > stop, n < 1)
//   limit   the grid has more combos than sweep.max_combos (before constraints)
//   io      the config file cannot be read (load_run_config)
// Expressions are not compiled here: they are kept as SourceText with the file,
// line and column of their first character, for the strategy language.

#include <kbt/config/run_config.hpp>

#include <string>

namespace kbt {

// Reads and validates the YAML file at `path`, a sweep (the default job); a
// labelling job (`job: label`) is a config error naming its `job` line. A
// relative `data:` path is resolved against the directory of the config file.
RunConfig load_run_config(const std::string& path);

// Validates YAML text. `source_name` is used in messages and SourceText::file;
// a relative `data:` path is resolved against `base_dir` (left as written when
// base_dir is empty).
RunConfig parse_run_config(const std::string& yaml_text, const std::string& source_name,
                           const std::string& base_dir);

// The same for any job (RunConfig::job says which): for `kbt run` and
// `kbt check`, which run or check every kind.
RunConfig load_job_config(const std::string& path);
RunConfig parse_job_config(const std::string& yaml_text, const std::string& source_name,
                           const std::string& base_dir);

// What a caller (the Python module, a host code) hands over in memory instead
// of naming it in the config: then the config may leave the key out, and a
// value it gives anyway is replaced by the caller's.
struct CallerInputs {
  bool data = false;     // the bars: `data` is optional
  bool actions = false;  // a simulate job's actions: `simulate` and its `actions`/`random` are optional
};
RunConfig parse_caller_job_config(const std::string& yaml_text, const std::string& source_name,
                                  const std::string& base_dir, const CallerInputs& given);

}  // namespace kbt
