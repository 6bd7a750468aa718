// Run-config loader: YAML text -> kbt::RunConfig, with file:line:col on every error.
// Key reference: docs/config.md. This file: the entry points, the root keys, `data`
// and `symbols`; the Loader class is declared in config/loader.hpp.

#include <kbt/config/config_loader.hpp>
#include <kbt/core/error.hpp>

#include "config/loader.hpp"
#include "config/yaml_document.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_set>

namespace kbt {

namespace detail {

namespace {

const std::vector<std::string> root_keys = {"job",        "data",  "symbols", "external_data", "strategy",
                                            "simulation", "sweep", "verify",  "validation",    "output",
                                            "label",      "simulate"};

// The root keys each job takes beside data, symbols, external_data and output.
const std::vector<std::string>& job_keys(Job job) {
  static const std::vector<std::string> sweep = {"strategy", "simulation", "sweep", "verify", "validation"};
  static const std::vector<std::string> label = {"label"};
  static const std::vector<std::string> simulate = {"simulation", "simulate"};
  return job == Job::sweep ? sweep : job == Job::label ? label : simulate;
}

const char* job_name(Job job) { return job == Job::sweep ? "sweep" : job == Job::label ? "label" : "simulate"; }

}  // namespace

void Loader::load(const std::string& base_dir) {
  const YAML::Node& root = doc_.root();
  if (!root.IsDefined() || root.IsNull())
    throw Error(ErrorCategory::config, doc_.source_name() + ":1:1: the config is empty; it needs at least "
                                                            "'data' and 'strategy'");
  const auto top = doc_.entries(root, "the run config", root_keys);
  if (const auto* e = find_entry(top, "job")) job(*e);
  // Each section belongs to one or two jobs: another job's is refused, naming both.
  for (const Job other : {Job::sweep, Job::label, Job::simulate}) {
    if (other == cfg_.job) continue;
    const auto& mine = job_keys(cfg_.job);
    for (const auto& key : job_keys(other)) {
      const auto* e = find_entry(top, key);
      if (!e || std::find(mine.begin(), mine.end(), key) != mine.end()) continue;
      doc_.fail(ErrorCategory::config, e->key,
                "'" + key + "' belongs to " + (other == Job::sweep ? std::string("sweeps") : "`job: " + std::string(job_name(other)) + "`") +
                    "; this " + (cfg_.job == Job::sweep ? std::string("sweep") : "`job: " + std::string(job_name(cfg_.job)) + "`") +
                    " takes data, symbols, external_data, " + join(mine) + " and output (docs/config.md \"Top level\")");
    }
  }
  // sweep first: its limits bound the work of expanding the parameter axes.
  if (const auto* e = find_entry(top, "sweep")) sweep(*e);
  const YamlEntry* data_entry = find_entry(top, "data");
  if (!data_entry && !given_.data)
    doc_.fail(ErrorCategory::config, root, "missing required key 'data' (the HDF5 or CSV market data file)");
  if (data_entry) data(*data_entry, base_dir);
  if (const auto* e = find_entry(top, "symbols")) symbols(*e);
  if (const auto* e = find_entry(top, "external_data")) {
    note(*e, "external_data");
    cfg_.external_data =
        choice(*e, "external_data", {"refuse", "follow"}) == "follow" ? ExternalData::follow : ExternalData::refuse;
  }
  if (cfg_.job == Job::simulate) {
    const YamlEntry* simulate_entry = find_entry(top, "simulate");
    if (!simulate_entry && !given_.actions)
      doc_.fail(ErrorCategory::config, root, "missing required key 'simulate' (the actions and what to write)");
    if (simulate_entry) simulate(*simulate_entry, base_dir);
    if (const auto* e = find_entry(top, "simulation")) simulation(*e);
    cfg_.output.path = "results/simulate.h5";
    cfg_.output.csv = false;
    if (const auto* e = find_entry(top, "output")) output(*e);
    return;
  }
  if (cfg_.job == Job::label) {
    const YamlEntry* label_entry = find_entry(top, "label");
    if (!label_entry)
      doc_.fail(ErrorCategory::config, root, "missing required key 'label' (the volatility and the barriers)");
    label(*label_entry);
    cfg_.output.path = "results/labels.h5";
    cfg_.output.csv = false;  // one row per event and setting: asked for, not by default
    if (const auto* e = find_entry(top, "output")) output(*e);
    return;
  }
  const YamlEntry* strategy_entry = find_entry(top, "strategy");
  if (!strategy_entry)
    doc_.fail(ErrorCategory::config, root, "missing required key 'strategy' (params, signals and position rules)");
  strategy(*strategy_entry);
  if (const auto* e = find_entry(top, "simulation")) simulation(*e);
  if (const auto* e = find_entry(top, "verify")) verify(*e);
  if (const auto* e = find_entry(top, "validation")) validation(*e);
  if (const auto* e = find_entry(top, "output")) output(*e);
}

void Loader::data(const YamlEntry& e, const std::string& base_dir) {
  const std::string path = text(e, "data", "a file path (HDF5, or CSV to import on the fly)");
  note(e, "data");
  cfg_.data_origin = doc_.source_text(e.value);
  std::filesystem::path p(path);
  if (p.is_relative() && !base_dir.empty()) p = (std::filesystem::path(base_dir) / p).lexically_normal();
  cfg_.data_path = p.string();
}

void Loader::job(const YamlEntry& e) {
  note(e, "job");
  const std::string job = choice(e, "job", {"sweep", "label", "simulate"});
  if (job == "sweep") return;
  if (!any_job_)
    doc_.fail(ErrorCategory::config, e.value,
              job == "label" ? "this is a labelling job (job: label); `kbt run` and `kbt check` take it, this "
                               "command takes sweeps (docs/label.md)"
                             : "this is an action-driven simulation (job: simulate); `kbt run` and `kbt check` take "
                               "it, this command takes sweeps (docs/simulate.md)");
  cfg_.job = job == "label" ? Job::label : Job::simulate;
}

void Loader::symbols(const YamlEntry& e) {
  note(e, "symbols");
  if (e.value.IsNull()) return;
  if (e.value.IsScalar()) {
    cfg_.symbols.push_back(text(e, "symbols", "a list of symbol names"));
    return;
  }
  if (!e.value.IsSequence()) bad(e, "symbols", "a list of symbol names");
  std::unordered_set<std::string> listed;  // a million names: no quadratic scan
  for (const auto& s : e.value) {
    if (!s.IsScalar() || s.Scalar().empty()) bad(s, "each of symbols", "a symbol name");
    if (!listed.insert(s.Scalar()).second)
      doc_.fail(ErrorCategory::config, s, "symbol '" + s.Scalar() + "' is listed twice in symbols");
    cfg_.symbols.push_back(s.Scalar());
  }
}

}  // namespace detail

using detail::Loader;
using detail::YamlDocument;

namespace {

RunConfig parse_config(const std::string& yaml_text, const std::string& source_name, const std::string& base_dir,
                       bool any_job, const CallerInputs& given = {}) {
  YamlDocument doc(yaml_text, source_name);
  RunConfig config;
  config.source_path = source_name;
  config.source_yaml = yaml_text;
  Loader(doc, config, any_job, given).load(base_dir);
  return config;
}

std::string read_config_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw Error(ErrorCategory::io, path + ": cannot read the config file: " +
                                       (std::filesystem::exists(path, ec) ? "not a regular file" : "no such file"));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCategory::io, path + ": cannot read the config file: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw Error(ErrorCategory::io, path + ": error while reading the config file");
  return text.str();
}

}  // namespace

RunConfig parse_run_config(const std::string& yaml_text, const std::string& source_name,
                           const std::string& base_dir) {
  return parse_config(yaml_text, source_name, base_dir, false);
}

RunConfig parse_job_config(const std::string& yaml_text, const std::string& source_name,
                           const std::string& base_dir) {
  return parse_config(yaml_text, source_name, base_dir, true);
}

RunConfig parse_caller_job_config(const std::string& yaml_text, const std::string& source_name,
                                  const std::string& base_dir, const CallerInputs& given) {
  return parse_config(yaml_text, source_name, base_dir, true, given);
}

RunConfig load_run_config(const std::string& path) {
  return parse_run_config(read_config_file(path), path, std::filesystem::path(path).parent_path().string());
}

RunConfig load_job_config(const std::string& path) {
  return parse_job_config(read_config_file(path), path, std::filesystem::path(path).parent_path().string());
}

}  // namespace kbt
