#pragma once
/// \file
/// Cholesky factorisation of a symmetric positive definite band matrix, on the host. The coarsest
/// multigrid level uses it as its direct solver: a few thousand unknowns with a band of the
/// shortest grid side, factored once and solved in O(n * bandwidth) per V-cycle.

#include <vector>

namespace undertow {
namespace linear {

class BandedCholesky {
 public:
  /// An n x n matrix with entries only where |row - col| <= bandwidth, all zero until set.
  BandedCholesky(long n, long bandwidth);

  long size() const { return m_n; }
  long bandwidth() const { return m_band; }

  /// Adds `value` to the symmetric pair A(row, col) = A(col, row): the matrix is stored once, so
  /// each off-diagonal pair is added once, not once per row. Requires |row - col| <= bandwidth.
  /// Call before factor().
  void add(long row, long col, double value);

  /// Factors A = L L^T in place. Throws Error naming the row if A is not positive definite.
  void factor();

  /// Solves A x = b in place (b becomes x). Requires factor().
  void solve(std::vector<double>& b) const;

 private:
  double& at(long row, long col) {
    return m_l[static_cast<std::size_t>(row * (m_band + 1) + (row - col))];
  }
  double at(long row, long col) const {
    return m_l[static_cast<std::size_t>(row * (m_band + 1) + (row - col))];
  }

  long m_n;
  long m_band;
  bool m_factored = false;
  std::vector<double> m_l; ///< row r holds A(r, r - d) for d = 0..band (lower triangle)
};

} // namespace linear
} // namespace undertow
