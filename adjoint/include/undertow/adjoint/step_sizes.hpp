#pragma once
/// \file
/// The time steps of a run, dt_0 ... dt_{N-1} [s], stored as runs of equal values: a run with a
/// fixed time step takes a few bytes whatever its length, so that the memory of a checkpointed
/// gradient does not grow with its horizon. CFL-chosen steps, all different, take 16 bytes each.

#include <cstddef>
#include <vector>

namespace undertow {
namespace adjoint {

class StepSizes {
 public:
  StepSizes() = default;
  /// The steps of a list (implicit, so that a list can be passed where steps are expected).
  StepSizes(const std::vector<double>& dts) { // NOLINT(google-explicit-constructor)
    for (double h : dts)
      append(1, h);
  }
  /// `count` steps of size dt.
  StepSizes(long count, double dt) { append(count, dt); }

  /// Appends `count` steps of size dt (merged into the last run if it has the same size).
  void append(long count, double dt) {
    if (count <= 0)
      return;
    if (m_dt.empty() || m_dt.back() != dt) {
      m_first.push_back(m_size);
      m_dt.push_back(dt);
    }
    m_size += count;
  }
  std::size_t size() const { return static_cast<std::size_t>(m_size); }
  bool empty() const { return m_size == 0; }
  /// dt_k, k < size(): a binary search over the runs.
  double operator[](std::size_t k) const {
    std::size_t lo = 0, hi = m_first.size();
    while (hi - lo > 1) {
      const std::size_t mid = (lo + hi) / 2;
      if (m_first[mid] <= static_cast<long>(k))
        lo = mid;
      else
        hi = mid;
    }
    return m_dt[lo];
  }
  /// The sum of the steps, added in order (as a run's clock adds them).
  double total() const {
    double t = 0;
    for (std::size_t r = 0; r < m_dt.size(); ++r) {
      const long end = r + 1 < m_first.size() ? m_first[r + 1] : m_size;
      for (long k = m_first[r]; k < end; ++k)
        t += m_dt[r];
    }
    return t;
  }
  /// t_k = dt_0 + ... + dt_{k-1}, by runs (count x dt: not bitwise the clock's sum; for
  /// progress and reports).
  double start_time(std::size_t k) const {
    double t = 0;
    for (std::size_t r = 0; r < m_dt.size() && m_first[r] < static_cast<long>(k); ++r) {
      const long end = r + 1 < m_first.size() ? m_first[r + 1] : m_size;
      t += double((end < static_cast<long>(k) ? end : static_cast<long>(k)) - m_first[r]) * m_dt[r];
    }
    return t;
  }
  /// The steps as a list (for interfaces that step through a list).
  std::vector<double> to_vector() const {
    std::vector<double> out;
    out.reserve(size());
    for (std::size_t r = 0; r < m_dt.size(); ++r) {
      const long end = r + 1 < m_first.size() ? m_first[r + 1] : m_size;
      out.insert(out.end(), static_cast<std::size_t>(end - m_first[r]), m_dt[r]);
    }
    return out;
  }

 private:
  std::vector<long> m_first; ///< the first step of each run
  std::vector<double> m_dt;  ///< its step size
  long m_size = 0;
};

} // namespace adjoint
} // namespace undertow
