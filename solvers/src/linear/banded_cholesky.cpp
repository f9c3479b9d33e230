#include "undertow/solvers/linear/banded_cholesky.hpp"

#include "undertow/core/error.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace undertow {
namespace linear {

BandedCholesky::BandedCholesky(long n, long bandwidth)
    : m_n(n), m_band(bandwidth), m_l(static_cast<std::size_t>(n * (bandwidth + 1)), 0.0) {
  require(n > 0 && bandwidth >= 0 && bandwidth < std::max(n, 1L),
          "BandedCholesky: bad size " + std::to_string(n) + " or bandwidth " +
              std::to_string(bandwidth));
}

void BandedCholesky::add(long row, long col, double value) {
  require(!m_factored, "BandedCholesky::add after factor()");
  if (col > row)
    std::swap(row, col);
  require(row - col <= m_band && col >= 0 && row < m_n,
          "BandedCholesky::add: entry outside the band");
  at(row, col) += value;
}

void BandedCholesky::factor() {
  // Column-oriented (left-looking) Cholesky restricted to the band.
  for (long j = 0; j < m_n; ++j) {
    const long first = std::max(0L, j - m_band);
    double d = at(j, j);
    for (long k = first; k < j; ++k)
      d -= at(j, k) * at(j, k);
    if (!(d > 0.0))
      throw Error("BandedCholesky: the matrix is not positive definite at row " +
                  std::to_string(j) + " (pivot " + std::to_string(d) + ")");
    const double ljj = std::sqrt(d);
    at(j, j) = ljj;
    const long last = std::min(m_n - 1, j + m_band);
    for (long i = j + 1; i <= last; ++i) {
      double s = at(i, j);
      for (long k = std::max(first, i - m_band); k < j; ++k)
        s -= at(i, k) * at(j, k);
      at(i, j) = s / ljj;
    }
  }
  m_factored = true;
}

void BandedCholesky::solve(std::vector<double>& b) const {
  require(m_factored && static_cast<long>(b.size()) == m_n,
          "BandedCholesky::solve: not factored or wrong size");
  for (long i = 0; i < m_n; ++i) { // L y = b
    double s = b[static_cast<std::size_t>(i)];
    for (long k = std::max(0L, i - m_band); k < i; ++k)
      s -= at(i, k) * b[static_cast<std::size_t>(k)];
    b[static_cast<std::size_t>(i)] = s / at(i, i);
  }
  for (long i = m_n - 1; i >= 0; --i) { // L^T x = y
    double s = b[static_cast<std::size_t>(i)];
    for (long k = i + 1; k <= std::min(m_n - 1, i + m_band); ++k)
      s -= at(k, i) * b[static_cast<std::size_t>(k)];
    b[static_cast<std::size_t>(i)] = s / at(i, i);
  }
}

} // namespace linear
} // namespace undertow
