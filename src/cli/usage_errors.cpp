// Usage errors: a guess at what a misspelt word meant.

#include "cli/usage_errors.hpp"

#include <vector>

#include "config/suggest.hpp"

namespace kbt::cli {
namespace {

// The deepest subcommand that the parse selected, or `app`.
const CLI::App& deepest(const CLI::App& app) {
  const CLI::App* at = &app;
  while (!at->get_subcommands().empty()) at = at->get_subcommands().front();
  return *at;
}

}  // namespace

std::string usage_message(const CLI::App& app, const std::string& parse_error) {
  const CLI::App& at = deepest(app);
  std::vector<std::string> subcommands, flags;
  for (const CLI::App* sub : at.get_subcommands([](const CLI::App*) { return true; }))
    subcommands.push_back(sub->get_name());
  for (const CLI::Option* option : at.get_options())
    for (const std::string& name : option->get_lnames()) flags.push_back("--" + name);
  for (std::string word : at.remaining()) {
    const bool flag = word.rfind("-", 0) == 0;
    if (!flag && !subcommands.empty()) {  // where a subcommand was due
      const std::string guess = kbt::detail::closest_match(word, subcommands);
      return "unknown subcommand '" + word + "'" + (guess.empty() ? "" : "; did you mean '" + guess + "'?");
    }
    if (flag) word = word.substr(0, word.find('='));
    const std::string guess = kbt::detail::closest_match(word, flags);
    if (flag && !guess.empty()) return parse_error + "; did you mean '" + guess + "'?";
  }
  return parse_error;
}

std::string command_path(const CLI::App& app) {
  std::string path = "kbt";
  for (const CLI::App* at = &app; !at->get_subcommands().empty();) {
    at = at->get_subcommands().front();
    path += " " + at->get_name();
  }
  return path;
}

}  // namespace kbt::cli
