#pragma once
// NumPy arrays in and out of the native module (docs/python.md "Copies").
// Out: a vector's storage handed to NumPy (moved, not copied), or a
// read-only view of storage another object owns (kept alive as the array's
// base). In: a one-dimensional array as a contiguous copy of the wanted type.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <kbt/core/error.hpp>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace kbt::python {

namespace py = pybind11;

// A contiguous copy of `array` as T (NumPy converts when needed).
template <class T>
std::vector<T> to_vector(const py::handle& array, const std::string& what) {
  const auto a = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(array);
  if (!a || a.ndim() != 1) throw Error(ErrorCategory::data_format, what + ": expected a one-dimensional array");
  return std::vector<T>(a.data(), a.data() + a.size());
}

// `values` as a [rows][cols] row-major array that owns them.
template <class T>
py::array_t<T> matrix(std::vector<T>&& values, std::size_t rows, std::size_t cols) {
  auto* owner = new std::vector<T>(std::move(values));
  py::capsule free_when_done(owner, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>({rows, cols}, {cols * sizeof(T), sizeof(T)}, owner->data(), free_when_done);
}

template <class T>
py::array_t<T> vector(std::vector<T>&& values) {
  const std::size_t n = values.size();
  auto* owner = new std::vector<T>(std::move(values));
  py::capsule free_when_done(owner, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>({n}, {sizeof(T)}, owner->data(), free_when_done);
}

// A read-only [rows][cols] view of `data`, which `owner` keeps alive.
template <class T>
py::array_t<T> read_only_view(const T* data, std::size_t rows, std::size_t cols, const py::object& owner) {
  py::array_t<T> a({rows, cols}, {cols * sizeof(T), sizeof(T)}, data, owner);
  a.attr("setflags")(py::arg("write") = false);
  return a;
}

}  // namespace kbt::python
