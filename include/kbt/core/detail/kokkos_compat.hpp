#pragma once
// kbt::kx — the one place where kbt adapts to the Kokkos version it is built
// against (Debian's 3.4.01, 4.x, 5.x). Every `#if KOKKOS_VERSION` of the project
// lives here; code elsewhere calls kx:: and stays version-free.
// Facts behind each wrapper: docs/building.md.

#include <Kokkos_Core.hpp>
#include <Kokkos_Sort.hpp>  // also sort_by_key from 4.3

#include <cstdio>
#include <type_traits>

namespace kbt::kx {

// ---- math ------------------------------------------------------------------
// Kokkos::{sqrt,exp,...} from 3.7; only Kokkos::Experimental:: before; the
// Experimental aliases were removed in 4.3. kx::math names whichever exists.
// Never call std:: math inside kernels.
#if KOKKOS_VERSION >= 30700
namespace math = ::Kokkos;
#else
namespace math = ::Kokkos::Experimental;
#endif

template <class T>
KOKKOS_INLINE_FUNCTION T sqrt(T x) {
  return math::sqrt(x);
}
template <class T>
KOKKOS_INLINE_FUNCTION T fabs(T x) {
  return math::fabs(x);
}
// 3.4 has no Kokkos::abs(double): abs of a floating-point value is fabs
// (which clears the sign bit: abs(-0.0) is +0.0, as std::abs gives).
template <class T>
KOKKOS_INLINE_FUNCTION T abs(T x) {
  if constexpr (std::is_floating_point<T>::value) return math::fabs(x);
  else return x < T(0) ? -x : x;
}
template <class T>
KOKKOS_INLINE_FUNCTION bool isnan(T x) {
  return math::isnan(x);
}
template <class T>
KOKKOS_INLINE_FUNCTION bool isinf(T x) {
  return math::isinf(x);
}
template <class T>
KOKKOS_INLINE_FUNCTION bool isfinite(T x) {
  return math::isfinite(x);
}
// min/max/clamp are missing from 3.4 (Kokkos::min/max arrived in 3.7). Plain
// comparisons: with a NaN argument the result is the first argument
// (std::min/std::max semantics), unlike fmin/fmax.
template <class T>
KOKKOS_INLINE_FUNCTION constexpr const T& min(const T& a, const T& b) {
  return b < a ? b : a;
}
template <class T>
KOKKOS_INLINE_FUNCTION constexpr const T& max(const T& a, const T& b) {
  return a < b ? b : a;
}
template <class T>
KOKKOS_INLINE_FUNCTION constexpr const T& clamp(const T& v, const T& lo, const T& hi) {
  return v < lo ? lo : (hi < v ? hi : v);
}
// fmin/fmax: IEEE minNum/maxNum (a NaN argument loses).
template <class T>
KOKKOS_INLINE_FUNCTION T fmin(T a, T b) {
  return math::fmin(a, b);
}
template <class T>
KOKKOS_INLINE_FUNCTION T fmax(T a, T b) {
  return math::fmax(a, b);
}

// Limits usable in kernels (std::numeric_limits is not, before C++20 on CUDA).
template <class T>
KOKKOS_INLINE_FUNCTION constexpr T infinity() {
  return Kokkos::Experimental::infinity<T>::value;
}
template <class T>
KOKKOS_INLINE_FUNCTION constexpr T epsilon() {
  return Kokkos::Experimental::epsilon<T>::value;
}
template <class T>
KOKKOS_INLINE_FUNCTION constexpr T finite_max() {
  return Kokkos::Experimental::finite_max<T>::value;
}
template <class T>
KOKKOS_INLINE_FUNCTION constexpr T finite_min() {
  return Kokkos::Experimental::finite_min<T>::value;
}

// printf callable from kernels (Kokkos::printf from 4.2).
template <class... Args>
KOKKOS_INLINE_FUNCTION void printf(const char* format, Args... args) {
#if KOKKOS_VERSION >= 40200
  Kokkos::printf(format, args...);
#else
  ::printf(format, args...);
#endif
}

// ---- execution spaces ------------------------------------------------------

// Labelled fences from 3.5; 3.4 fences take no label.
template <class ExecutionSpace>
void fence(const ExecutionSpace& exec, const char* label) {
#if KOKKOS_VERSION >= 30500
  exec.fence(label);
#else
  (void)label;
  exec.fence();
#endif
}
inline void fence(const char* label) {
#if KOKKOS_VERSION >= 30500
  Kokkos::fence(label);
#else
  (void)label;
  Kokkos::fence();
#endif
}

// Threads of a host space, resident threads of a device (always on an
// instance: the static form is gone in 4.x).
template <class ExecutionSpace>
int concurrency(const ExecutionSpace& exec) {
  return static_cast<int>(exec.concurrency());
}

// ---- views -----------------------------------------------------------------

template <class View>
using host_mirror_t = typename View::host_mirror_type;

// A host copy of any view (no copy when it already lives in HostSpace).
template <class View>
auto to_host(const View& view) {
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
}

// A copy of a host view in `Space`'s memory (no copy when already accessible).
template <class Space, class View>
auto to_space(const Space& space, const View& view) {
  return Kokkos::create_mirror_view_and_copy(space, view);
}

// Rank of a view type as an int (V::rank is a constant in 3.4, an object
// convertible to size_t in 4.1+; rank() and Rank are not portable).
template <class View>
constexpr int rank_v = static_cast<int>(View::rank);

// ---- reducers ----------------------------------------------------------------
// Kokkos::MinMax / MinMaxLoc are the same in every version; aliases so that
// kernels spell them one way.
template <class T, class Space>
using MinMax = Kokkos::MinMax<T, Space>;
template <class T>
using MinMaxValue = Kokkos::MinMaxScalar<T>;
template <class T, class Index, class Space>
using MinMaxLoc = Kokkos::MinMaxLoc<T, Index, Space>;
template <class T, class Index>
using MinMaxLocValue = Kokkos::MinMaxLocScalar<T, Index>;

// ---- sorting -----------------------------------------------------------------

// Sorts a rank-1 view ascending on `exec` (4.0+), or on the view's default
// instance followed by a fence (3.4).
template <class ExecutionSpace, class View>
void sort(const ExecutionSpace& exec, const View& view) {
#if KOKKOS_VERSION >= 40000
  Kokkos::sort(exec, view);
#else
  exec.fence();
  Kokkos::sort(view);
  Kokkos::fence();
#endif
}

namespace detail {
template <class KeyView>
struct KeyExtent {
  using value_type = Kokkos::MinMaxScalar<typename KeyView::non_const_value_type>;
  KeyView keys;
  KOKKOS_INLINE_FUNCTION void operator()(const int i, value_type& v) const {
    if (keys(i) < v.min_val) v.min_val = keys(i);
    if (keys(i) > v.max_val) v.max_val = keys(i);
  }
};
}  // namespace detail

// Sorts keys ascending and applies the same permutation to values (rank-1
// views of equal extent). Not stable: equal keys come out in an unspecified
// order, so callers that need a deterministic order must make keys unique
// (e.g. fold the index into the key). Keys must not be NaN.
template <class ExecutionSpace, class KeyView, class ValueView>
void sort_by_key(const ExecutionSpace& exec, const KeyView& keys, const ValueView& values) {
#if KOKKOS_VERSION >= 40300
  Kokkos::Experimental::sort_by_key(exec, keys, values);
#else
  // 3.4: BinSort with one bin per two keys, sorted within bins.
  const int n = static_cast<int>(keys.extent(0));
  if (n <= 1) return;
  using Key = typename KeyView::non_const_value_type;
  using Space = typename KeyView::execution_space;
  Kokkos::MinMaxScalar<Key> extent;
  Kokkos::parallel_reduce("kbt::kx::sort_by_key::extent", Kokkos::RangePolicy<Space>(0, n),
                          detail::KeyExtent<KeyView>{keys}, Kokkos::MinMax<Key, Kokkos::HostSpace>(extent));
  if (!(extent.min_val < extent.max_val)) return;  // all keys equal
  exec.fence();
  using Op = Kokkos::BinOp1D<KeyView>;
  Kokkos::BinSort<KeyView, Op> bins(keys, Op(n / 2 > 0 ? n / 2 : 1, extent.min_val, extent.max_val), true);
  bins.create_permute_vector();
  bins.sort(keys);
  bins.sort(values);
  Kokkos::fence();
#endif
}

}  // namespace kbt::kx
