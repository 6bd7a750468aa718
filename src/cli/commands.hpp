#pragma once
// Each kbt sub-command lives in its own cmd_<name>.cpp and registers itself
// on the root CLI11 app through one of these functions (called from main.cpp).

namespace CLI {
class App;
}

namespace kbt::cli {

void add_info_command(CLI::App& app);
void add_show_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_backtest_command(CLI::App& app);
void add_data_command(CLI::App& app);
void add_check_command(CLI::App& app);
void add_eval_command(CLI::App& app);
void add_verify_command(CLI::App& app);
void add_validate_command(CLI::App& app);
void add_plot_command(CLI::App& app);
void add_calibrate_command(CLI::App& app);

}  // namespace kbt::cli
