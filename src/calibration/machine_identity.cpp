// Which machine a calibration belongs to: host name, CPU model, GPU, Kokkos
// version and the enabled execution spaces with their concurrency.

#include <kbt/calibration/calibration.hpp>
#include <kbt/core/execution_spaces.hpp>

#include <Kokkos_Core.hpp>

#include <fstream>
#include <unistd.h>

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime.h>
#endif

namespace kbt {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon));
    if (key == "model name" || key == "Model" || key == "cpu model") return trim(line.substr(colon + 1));
  }
  return "unknown";
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == 0) return "unknown";
  return buf;
}

std::string gpu_name() {
#ifdef KOKKOS_ENABLE_CUDA
  int device = 0;
  cudaDeviceProp prop;
  if (cudaGetDevice(&device) == cudaSuccess && cudaGetDeviceProperties(&prop, device) == cudaSuccess) return prop.name;
  return "unknown";
#else
  return "none";
#endif
}

std::string quoted(const std::string& s) { return "'" + s + "'"; }

}  // namespace

MachineIdentity this_machine_identity() {
  MachineIdentity id;
  id.host = host_name();
  id.cpu = cpu_model();
  id.gpu = gpu_name();
  id.kokkos_version = kokkos_version_string();
  for (const auto& s : enabled_execution_spaces()) id.spaces.push_back({s.name, s.concurrency});
  return id;
}

std::vector<std::string> identity_mismatches(const MachineIdentity& file, const MachineIdentity& here) {
  std::vector<std::string> out;
  auto field = [&](const char* name, const std::string& f, const std::string& h) {
    if (f != h) out.push_back(std::string(name) + ": " + quoted(h) + " here, " + quoted(f) + " in the file");
  };
  field("host", file.host, here.host);
  field("cpu", file.cpu, here.cpu);
  field("gpu", file.gpu, here.gpu);
  field("kokkos_version", file.kokkos_version, here.kokkos_version);
  auto spaces = [](const std::vector<SpaceIdentity>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x.name + "/" + std::to_string(x.concurrency);
    return s;
  };
  if (file.spaces != here.spaces) field("spaces (name/concurrency)", spaces(file.spaces), spaces(here.spaces));
  return out;
}

}  // namespace kbt
