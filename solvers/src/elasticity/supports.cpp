#include "undertow/solvers/elasticity/supports.hpp"

#include "undertow/core/error.hpp"

#include "node_kernels.hpp"

#include <cmath>

namespace undertow {
namespace elasticity {

using namespace detail;

namespace {

using HostNodeView = Kokkos::View<double***, FieldLayoutTag, Kokkos::HostSpace>;

/// Throws ConfigError if the supported components (`fixed`, host copies of a node mask laid out
/// as `like`) leave a rigid-body motion free: the Gram matrix of the rigid-body modes restricted
/// to them is singular. Collective.
void check_rigid_body_motions(const Domain& domain, const Field& like,
                              const std::array<HostNodeView, 3>& fixed) {
  const int dim = domain.dim();
  // Gram matrix of the rigid-body modes restricted to the supported components: singular if
  // some combination of the modes moves no supported component. Coordinates are centred and
  // scaled by the box size so that rotations and translations weigh alike.
  const int modes = dim == 2 ? 3 : 6;
  const char* names[6] = {"translation along x", "translation along y", "translation along z",
                          "rotation about z",    "rotation about x",    "rotation about y"};
  const std::vector<int> mode_ids =
      dim == 2 ? std::vector<int>{0, 1, 3} : std::vector<int>{0, 1, 2, 3, 4, 5};
  double centre[3], size = 0;
  for (int a = 0; a < 3; ++a) {
    centre[a] = domain.spec().origin[a] + 0.5 * domain.spec().length[a];
    if (a < dim)
      size = std::max(size, domain.spec().length[a]);
  }
  std::vector<double> gram(modes * modes, 0.0);
  const GridGeometry g = like.geometry();
  const IndexSpace s = like.owned();
  for (long k = s.begin[2]; k < s.end[2]; ++k)
    for (long j = s.begin[1]; j < s.end[1]; ++j)
      for (long i = s.begin[0]; i < s.end[0]; ++i) {
        double x[3] = {0, 0, 0};
        for (int a = 0; a < dim; ++a)
          x[a] = (g.coordinate(a, a == 0 ? i : a == 1 ? j : k) - centre[a]) / size;
        for (int c = 0; c < dim; ++c) {
          if (fixed[c](i, j, k) == 0.0)
            continue;
          // Component c of each mode at x.
          double m[6] = {c == 0 ? 1.0 : 0.0,
                         c == 1 ? 1.0 : 0.0,
                         c == 2 ? 1.0 : 0.0,
                         c == 0   ? -x[1]
                         : c == 1 ? x[0]
                                  : 0.0,
                         c == 1   ? -x[2]
                         : c == 2 ? x[1]
                                  : 0.0,
                         c == 2   ? -x[0]
                         : c == 0 ? x[2]
                                  : 0.0};
          for (int a = 0; a < modes; ++a)
            for (int b = 0; b < modes; ++b)
              gram[a * modes + b] += m[mode_ids[a]] * m[mode_ids[b]];
        }
      }
  MPI_Allreduce(MPI_IN_PLACE, gram.data(), modes * modes, MPI_DOUBLE, MPI_SUM, domain.comm().raw());
  // Cholesky: a vanishing pivot names a mode that the earlier ones and the supports leave free.
  double largest = 0;
  for (int a = 0; a < modes; ++a)
    largest = std::max(largest, gram[a * modes + a]);
  for (int a = 0; a < modes; ++a) {
    double pivot = gram[a * modes + a];
    for (int q = 0; q < a; ++q)
      pivot -= gram[a * modes + q] * gram[a * modes + q];
    if (!(pivot > 1e-10 * std::max(largest, 1.0)))
      throw ConfigError(std::string("elasticity: the supports leave a rigid-body motion free (") +
                        names[mode_ids[a]] +
                        "), so the stiffness is singular; hold more components or more nodes "
                        "(a rotation needs two held nodes, or a held edge or face)");
    const double l = std::sqrt(pivot);
    gram[a * modes + a] = l;
    for (int b = a + 1; b < modes; ++b) {
      double v = gram[b * modes + a];
      for (int q = 0; q < a; ++q)
        v -= gram[b * modes + q] * gram[a * modes + q];
      gram[b * modes + a] = v / l;
    }
  }
}

} // namespace

Supports::Supports(const Domain& domain, const std::vector<Support>& supports,
                   const NodeNumbering& numbering, HaloPlan& node_halo)
    : m_mask(make_node_vector(domain, "elasticity::fixed")) {
  const int dim = domain.dim();
  const double tol = box_tolerance(domain);
  std::array<HostNodeView, 3> fixed, value;
  for (int c = 0; c < dim; ++c) {
    fixed[c] = Kokkos::create_mirror_view(m_mask[c].view());
    value[c] = HostNodeView("elasticity::fixed_value", fixed[c].extent(0), fixed[c].extent(1),
                            fixed[c].extent(2));
    Kokkos::deep_copy(fixed[c], 0.0);
  }
  const GridGeometry g = m_mask[0].geometry();
  const IndexSpace s = m_mask[0].owned();
  const KernelBox owned(s);
  for (std::size_t q = 0; q < supports.size(); ++q) {
    const Support& sup = supports[q];
    long selected = 0;
    for (long k = s.begin[2]; k < s.end[2]; ++k)
      for (long j = s.begin[1]; j < s.end[1]; ++j)
        for (long i = s.begin[0]; i < s.end[0]; ++i) {
          const double x[3] = {g.coordinate(0, i), g.coordinate(1, j), g.coordinate(2, k)};
          if (!in_box(sup.box.lo.data(), sup.box.hi.data(), tol, dim, x))
            continue;
          ++selected;
          for (int c = 0; c < dim; ++c)
            if (sup.fixed[c]) {
              fixed[c](i, j, k) = 1.0;
              value[c](i, j, k) = sup.value[c];
            }
        }
    if (domain.comm().sum(double(selected)) == 0)
      throw ConfigError("elasticity: support " + std::to_string(q + 1) + " (box " +
                        describe(sup.box, dim) +
                        ") holds no node; widen the box to reach the grid's nodes");
  }
  check_rigid_body_motions(domain, m_mask[0], fixed);
  for (long k = s.begin[2]; k < s.end[2]; ++k)
    for (long j = s.begin[1]; j < s.end[1]; ++j)
      for (long i = s.begin[0]; i < s.end[0]; ++i)
        for (int c = 0; c < dim; ++c)
          if (fixed[c](i, j, k) != 0.0) {
            m_rows.push_back(
                static_cast<PetscInt>(dim * (numbering.first_node() + owned.packed(i, j, k)) + c));
            m_values.push_back(value[c](i, j, k));
          }
  for (int c = 0; c < dim; ++c) {
    Kokkos::deep_copy(m_mask[c].view(), fixed[c]);
    node_halo.fill(m_mask[c]);
  }
  m_zeros.assign(m_rows.size(), 0.0);
}

} // namespace elasticity
} // namespace undertow
