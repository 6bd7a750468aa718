#include "core/large_stack.hpp"

#include <kbt/core/error.hpp>

#include <pthread.h>

#include <cstring>
#include <string>

namespace kbt::detail {
namespace {

struct Job {
  const std::function<void()>* work;
  std::exception_ptr error;
};

void* run_job(void* arg) {
  Job* job = static_cast<Job*>(arg);
  try {
    (*job->work)();
  } catch (...) {
    job->error = std::current_exception();
  }
  return nullptr;
}

}  // namespace

void call_with_large_stack(const std::function<void()>& work, std::size_t stack_bytes) {
  Job job{&work, nullptr};
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) throw Error(ErrorCategory::internal, "pthread_attr_init failed");
  int rc = pthread_attr_setstacksize(&attr, stack_bytes);
  pthread_t thread;
  if (rc == 0) rc = pthread_create(&thread, &attr, run_job, &job);
  pthread_attr_destroy(&attr);
  if (rc != 0)
    throw Error(ErrorCategory::internal, "cannot start the compiler thread with a " +
                                             std::to_string(stack_bytes >> 20) + " MiB stack: " + std::strerror(rc));
  pthread_join(thread, nullptr);
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace kbt::detail
