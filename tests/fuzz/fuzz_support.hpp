#pragma once
// Shared by the libFuzzer targets: the "expected outcome" rule and scratch files.
//
// A target calls kbt code inside run_expecting_kbt_errors(). kbt::Error is the
// documented answer to bad input and is swallowed; any other exception escaping
// kbt is a bug, reported by aborting (libFuzzer saves the input as a crash).
// ASan/UBSan findings, aborts and timeouts are caught by libFuzzer itself.

#include <kbt/core/error.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <typeinfo>
#include <unistd.h>

namespace kbt::fuzz {

template <class F>
void run_expecting_kbt_errors(F&& body) {
  try {
    body();
  } catch (const kbt::Error& e) {
    if (e.category() == kbt::ErrorCategory::internal) {
      // An internal error is kbt admitting a bug: worth a crash report.
      std::fprintf(stderr, "kbt internal error: %s\n", e.what());
      std::abort();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "non-kbt exception escaped (%s): %s\n", typeid(e).name(), e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "unknown exception escaped\n");
    std::abort();
  }
}

// A private directory for the scratch files of this process, created on first
// use (under /dev/shm when present: the loaders read real files, keep it cheap).
inline const std::string& scratch_dir() {
  static const std::string dir = [] {
    const char* base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    std::string pattern = std::string(base) + "/kbt-fuzz-XXXXXX";
    if (!mkdtemp(pattern.data())) {
      std::perror("mkdtemp");
      std::abort();
    }
    static std::string for_cleanup;
    for_cleanup = pattern;
    std::atexit([] { std::filesystem::remove_all(for_cleanup); });
    return pattern;
  }();
  return dir;
}

// Writes `size` bytes to scratch_dir()/name and returns the path.
inline std::string write_scratch_file(const std::string& name, const std::uint8_t* data, std::size_t size) {
  const std::string path = scratch_dir() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) {
    std::perror(path.c_str());
    std::abort();
  }
  return path;
}

// A target that makes its own seed input (so that the seed always has today's
// format): with KBT_FUZZ_WRITE_SEED=PATH set, writes it there and exits
// (scripts/fuzz.sh); otherwise returns and the fuzzing starts.
inline void write_seed_if_asked(void (*write_seed)(const char* path)) {
  if (const char* seed = std::getenv("KBT_FUZZ_WRITE_SEED")) {
    write_seed(seed);
    std::exit(0);
  }
}

}  // namespace kbt::fuzz
