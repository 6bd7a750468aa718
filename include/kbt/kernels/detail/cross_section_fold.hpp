#pragma once
// Hoisted cross-sections (docs/kernels.md "Hoisted cross-sections"): a fold
// series whose request carries a CrossSectionChain is transformed in place,
// bar by bar, by cross_section_ops.hpp — the code a combo's thread runs for
// the same op, so the bits are the same — once per distinct input instead of
// once per combo.
//
// A work item (a team of one thread) takes a chunk of consecutive bars of one
// series: on host spaces 64, where cs_rank sorts the first bar's cross-section
// (heap sort) and every later bar by insertion from the previous bar's order,
// which a slowly changing signal (a momentum) barely disturbs; past a budget of
// shifts it heap-sorts after all, and heap-sorts the next 16 bars before trying
// insertion again (an order that churns would pay for both on every bar). On a
// GPU a work item is one bar. The order
// only decides how the tie groups are found: the ranks have the same bits.
// Team scratch: per cs_rank of the chain its sorted entries (2 * n_sym Reals,
// kept from bar to bar), and n_sym ints marking the entries already taken.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>

#include <kbt/kernels/detail/cross_section_ops.hpp>
#include <kbt/kernels/detail/fold_task.hpp>

namespace kbt::kernels {

// The series a chain transforms, and the chain.
struct CrossSectionTask {
  int series = 0;
  CrossSectionChain chain{};
};

// Bars per work item of CrossSectionFold on ExecSpace.
template <class ExecSpace>
constexpr int cross_section_chunk() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible ? 64 : 1;
}

template <class ExecSpace, class Real>
struct CrossSectionFold {
  using memory_space = typename ExecSpace::memory_space;
  using policy = Kokkos::TeamPolicy<ExecSpace>;
  using member = typename policy::member_type;
  template <class T>
  using scratch_view = Kokkos::View<T*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  static constexpr int capacity = CrossSectionChain::capacity;
  // Bars heap-sorted after an insertion gives up, before insertion is tried again.
  static constexpr int cold_bars = 16;

  typename FoldViews<ExecSpace, Real>::series_view series;  // [n_series][n_sym][n_bars], transformed in place
  Kokkos::View<const CrossSectionTask*, memory_space> tasks;
  int n_sym = 0, n_bars = 0;
  int chunk = cross_section_chunk<ExecSpace>();

  // One cs_rank's sorted entries (sorted_counts.hpp's accessor).
  struct Keys {
    Real* room;
    int n_sym;
    KOKKOS_FORCEINLINE_FUNCTION Real& value(int k) const { return room[k]; }
    KOKKOS_FORCEINLINE_FUNCTION Real& symbol(int k) const { return room[n_sym + k]; }
  };

  KOKKOS_INLINE_FUNCTION int n_chunks() const { return (n_bars + chunk - 1) / chunk; }

  // Every task's series on `exec` (not fenced).
  void launch(const ExecSpace& exec) const {
    const int league = static_cast<int>(tasks.extent(0)) * n_chunks();
    if (league == 0 || n_sym == 0) return;
    const std::size_t bytes = scratch_view<Real>::shmem_size(static_cast<std::size_t>(2 * n_sym * capacity)) +
                              scratch_view<int>::shmem_size(static_cast<std::size_t>(n_sym));
    Kokkos::parallel_for("kbt::fold::cross_section",
                         policy(exec, league, 1).set_scratch_size(1, Kokkos::PerTeam(bytes)), *this);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member& team) const {
    const int task_index = team.league_rank() / n_chunks();
    const int b0 = (team.league_rank() % n_chunks()) * chunk;
    const int b1 = b0 + chunk < n_bars ? b0 + chunk : n_bars;
    const scratch_view<Real> room(team.team_scratch(1), static_cast<std::size_t>(2 * n_sym * capacity));
    const scratch_view<int> taken(team.team_scratch(1), static_cast<std::size_t>(n_sym));
    for (int s = 0; s < n_sym; ++s) taken(s) = -1;
    const CrossSectionTask task = tasks(task_index);
    int sorted[capacity];  // per op: entries kept from the previous bar, -1 none
    int cold[capacity];    // per op: bars left to heap-sort after an insertion gave up
    for (int j = 0; j < capacity; ++j) sorted[j] = -1, cold[j] = 0;
    for (int b = b0; b < b1; ++b) {
      const auto get = [&](int s) { return series(task.series, s, b); };
      const auto put = [&](int s, Real y) { series(task.series, s, b) = y; };
      for (int j = 0; j < task.chain.n; ++j) {
        const OpCode op = task.chain.ops[j];
        if (op != OpCode::cs_rank) {
          detail::cs_moment_op<Real>(op, n_sym, get, put);
          continue;
        }
        const Keys keys{room.data() + 2 * n_sym * j, n_sym};
        if (sorted[j] < 0 || cold[j] > 0) {
          cold[j] = cold[j] > 0 ? cold[j] - 1 : 0;
          sorted[j] = detail::cs_rank_of<Real>(n_sym, get, put, keys);
        } else {
          bool gave_up = false;
          sorted[j] = rank_in_previous_order(sorted[j], (b - b0) * capacity + j, get, put, keys, taken, gave_up);
          if (gave_up) cold[j] = cold_bars;  // the order churns: do not pay for insertion on every bar
        }
      }
    }
  }

  // cs_rank with the previous bar's `previous` sorted entries as the starting
  // order: those symbols still valid first, in that order, then the symbols
  // that became valid; sorted by insertion (heap sort past the budget).
  template <class Get, class Put>
  KOKKOS_INLINE_FUNCTION int rank_in_previous_order(int previous, int stamp, const Get& get, const Put& put,
                                                    const Keys& keys, const scratch_view<int>& taken,
                                                    bool& gave_up) const {
    int valid = 0;
    for (int k = 0; k < previous; ++k) {  // writes entry valid <= k: nothing unread is overwritten
      const int s = int(keys.symbol(k));
      const Real v = get(s);
      if (math::isnan(v)) continue;
      keys.value(valid) = v;
      keys.symbol(valid) = Real(s);
      taken(s) = stamp;
      ++valid;
    }
    for (int s = 0; s < n_sym; ++s) {
      const Real v = get(s);
      put(s, ops::nan<Real>());
      if (math::isnan(v) || taken(s) == stamp) continue;
      keys.value(valid) = v;
      keys.symbol(valid) = Real(s);
      ++valid;
    }
    int log2 = 1;
    while ((1 << log2) < valid) ++log2;
    gave_up = !kbt::detail::insertion_sort(keys, valid, 4L * valid * log2);
    if (gave_up) kbt::detail::heap_sort(keys, valid);
    detail::put_ranks<Real>(valid, put, keys);
    return valid;
  }
};

}  // namespace kbt::kernels
