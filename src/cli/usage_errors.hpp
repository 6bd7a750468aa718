#pragma once
// Exit codes and usage errors of the kbt CLI (docs/cli.md "Exit codes").

#include <CLI/CLI.hpp>

#include <string>

namespace kbt::cli {

constexpr int exit_success = 0;
constexpr int exit_error = 1;  // a kbt::Error: bad input, a failed write, a verification mismatch...
constexpr int exit_usage = 2;  // the command line itself: unknown subcommand or flag, missing argument

// The message of a failed parse of `app`: CLI11's, with a guess at a misspelt
// flag ("...; did you mean '--out'?"), or "unknown subcommand 'shwo'; did you
// mean 'show'?" where a subcommand was due.
std::string usage_message(const CLI::App& app, const std::string& parse_error);

// "kbt run" (the deepest subcommand parsed) or "kbt", for "see 'kbt run --help'".
std::string command_path(const CLI::App& app);

}  // namespace kbt::cli
