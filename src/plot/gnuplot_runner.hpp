#pragma once
// Running gnuplot on a generated script (internal to src/plot).

#include <fstream>
#include <string>

namespace kbt::plot::detail {

// A temporary directory for data and script files, removed with its contents.
class ScratchDirectory {
 public:
  ScratchDirectory();
  ~ScratchDirectory();
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  std::string file(const std::string& name) const;

 private:
  std::string path_;
};

// A data file for gnuplot, numbers written with 17 significant digits.
std::ofstream open_data(const std::string& path);
// Flushes it; kbt::Error(io) naming `path` when that fails (a full disk).
void finish_data(std::ofstream& f, const std::string& path);

// A gnuplot string literal: double-quoted, with \\, \" and \n escapes.
std::string quote(const std::string& text);

// Runs gnuplot on `script_body` after a pngcairo terminal whose output is a
// temporary sibling of `out_path`, renamed into place when gnuplot succeeded.
// kbt::Error(unsupported) when gnuplot is not on PATH; kbt::Error(internal)
// with gnuplot's messages when it fails.
void run_gnuplot(const std::string& script_body, const std::string& out_path, const ScratchDirectory& scratch);

}  // namespace kbt::plot::detail
