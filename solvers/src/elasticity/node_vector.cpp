#include "undertow/solvers/elasticity/node_vector.hpp"

#include "undertow/core/log.hpp"

#include "node_kernels.hpp"

namespace undertow {
namespace elasticity {

void combine(int dim, double a, const NodeVector& x, double b, const NodeVector* y,
             NodeVector& out) {
  for (int c = 0; c < dim; ++c) {
    const FieldView o = out[c].view(), xv = x[c].view();
    const FieldView yv = y ? (*y)[c].view() : xv;
    const double wy = y ? b : 0.0;
    for_each(
        "elasticity::combine", out[c].ghosted(),
        KOKKOS_LAMBDA(long i, long j, long k) { o(i, j, k) = a * xv(i, j, k) + wy * yv(i, j, k); });
  }
}

NodeVector make_node_vector(const Domain& domain, const std::string& name) {
  NodeVector v;
  for (int c = 0; c < 3; ++c)
    v[c] = Field(domain, Location::Node, 1, name + "_" + "xyz"[c]);
  return v;
}

double dot(const Communicator& comm, int dim, const NodeVector& a, const NodeVector& b) {
  double sum = 0;
  for (int c = 0; c < dim; ++c) {
    const FieldView x = a[c].view(), y = b[c].view();
    sum += local_sum(
        "elasticity::dot", a[c].owned(),
        KOKKOS_LAMBDA(long i, long j, long k, double& acc) { acc += x(i, j, k) * y(i, j, k); });
  }
  return comm.sum(sum);
}

namespace detail {

std::string describe(const Box& b, int dim) {
  std::string s = "[";
  for (int a = 0; a < dim; ++a)
    s += format("%g..%g", b.lo[a], b.hi[a]) + (a + 1 < dim ? ", " : "]");
  return s;
}

} // namespace detail
} // namespace elasticity
} // namespace undertow
