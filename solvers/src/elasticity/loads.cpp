#include "undertow/solvers/elasticity/loads.hpp"

#include "undertow/core/error.hpp"

#include "node_kernels.hpp"

#include <cmath>

namespace undertow {
namespace elasticity {

using namespace detail;

namespace {

/// Number of owned nodes of `f`'s layout inside the box.
double count_nodes(const Field& f, const Box& box, double tol, int dim) {
  const GridGeometry g = f.geometry();
  const double lo[3] = {box.lo[0], box.lo[1], box.lo[2]}, hi[3] = {box.hi[0], box.hi[1], box.hi[2]};
  return local_sum(
      "elasticity::count_nodes", f.owned(), KOKKOS_LAMBDA(long i, long j, long k, double& acc) {
        const double x[3] = {g.coordinate(0, i), g.coordinate(1, j), g.coordinate(2, k)};
        if (in_box(lo, hi, tol, dim, x))
          acc += 1.0;
      });
}

/// f += force on each owned node inside the box.
void add_point_load(NodeVector& f, const Box& box, double tol, int dim,
                    const std::array<double, 3>& force) {
  const NodeViews w = views_of(f);
  const GridGeometry g = f[0].geometry();
  const double lo[3] = {box.lo[0], box.lo[1], box.lo[2]}, hi[3] = {box.hi[0], box.hi[1], box.hi[2]};
  const double v[3] = {force[0], force[1], force[2]};
  for_each(
      "elasticity::point_load", f[0].owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        const double x[3] = {g.coordinate(0, i), g.coordinate(1, j), g.coordinate(2, k)};
        if (in_box(lo, hi, tol, dim, x))
          for (int c = 0; c < dim; ++c)
            w.c[c](i, j, k) += v[c];
      });
}

/// The measure of the owned cell (i, j, k) along the active axes other than `skip` (-1: none),
/// from the cell widths of a stretched grid, or `uniform_measure` on a uniform one [m^(dim or
/// dim - 1)].
KOKKOS_INLINE_FUNCTION double cell_measure(const GridGeometry& g, bool uniform,
                                           double uniform_measure, int dim, int skip, long i,
                                           long j, long k) {
  if (uniform)
    return uniform_measure;
  const long local[3] = {i, j, k};
  double m = 1.0;
  for (int a = 0; a < dim; ++a)
    if (a != skip)
      m *= g.control_width(a, local[a]);
  return m;
}

/// Consistent nodal forces of a uniform traction on the boundary face (axis, side) of the owned
/// cells whose face centres lie in the box: a quarter (3D) or half (2D) of traction x the face's
/// area to each of its nodes. `wall` is the boundary's coordinate. Returns the loaded area on
/// this rank [m^2].
double add_traction(const Field& cells, NodeVector& f, const Box& box, double tol, int dim,
                    int axis, int side, long last_cell, double wall,
                    const std::array<double, 3>& traction, bool uniform, const double h[3]) {
  const NodeViews w = views_of(f);
  const IndexShift t = index_shift(cells, f[0]);
  const GridGeometry g = cells.geometry();
  const double lo[3] = {box.lo[0], box.lo[1], box.lo[2]}, hi[3] = {box.hi[0], box.hi[1], box.hi[2]};
  double uniform_area = 1.0;
  for (int a = 0; a < dim; ++a)
    if (a != axis)
      uniform_area *= h[a];
  const int face_nodes = nodes_per_element(dim) / 2;
  const double value[3] = {traction[0], traction[1], traction[2]};
  const long global_index = side == 0 ? 0 : last_cell;
  const long offset = g.global_offset[axis];
  const double loaded = local_sum(
      "elasticity::traction", cells.owned(), KOKKOS_LAMBDA(long i, long j, long k, double& acc) {
        const long local[3] = {i, j, k};
        if (local[axis] + offset != global_index)
          return;
        double x[3] = {g.coordinate(0, i), g.coordinate(1, j), g.coordinate(2, k)};
        x[axis] = wall;
        if (!in_box(lo, hi, tol, dim, x))
          return;
        const double area = cell_measure(g, uniform, uniform_area, dim, axis, i, j, k);
        acc += area;
        for (int n = 0; n < nodes_per_element(dim); ++n) {
          if (node_offset(n, axis) != side)
            continue;
          for (int c = 0; c < dim; ++c)
            Kokkos::atomic_add(&w.c[c](i + t.s[0] + node_offset(n, 0),
                                       j + t.s[1] + node_offset(n, 1),
                                       k + t.s[2] + node_offset(n, 2)),
                               value[c] * area / face_nodes);
        }
      });
  return loaded;
}

/// Consistent nodal forces of a uniform body force on the owned elements whose centres lie in
/// the box: 1/2^dim of force x the element's volume to each node. Returns the loaded volume on
/// this rank.
double add_body_force(const Field& cells, NodeVector& f, const Box& box, double tol, int dim,
                      const std::array<double, 3>& force, bool uniform, const double h[3]) {
  const NodeViews w = views_of(f);
  const IndexShift t = index_shift(cells, f[0]);
  const GridGeometry g = cells.geometry();
  const double lo[3] = {box.lo[0], box.lo[1], box.lo[2]}, hi[3] = {box.hi[0], box.hi[1], box.hi[2]};
  double uniform_volume = 1.0;
  for (int a = 0; a < dim; ++a)
    uniform_volume *= h[a];
  const int nn = nodes_per_element(dim);
  const double value[3] = {force[0], force[1], force[2]};
  return local_sum(
      "elasticity::body_force", cells.owned(), KOKKOS_LAMBDA(long i, long j, long k, double& acc) {
        const double x[3] = {g.coordinate(0, i), g.coordinate(1, j), g.coordinate(2, k)};
        if (!in_box(lo, hi, tol, dim, x))
          return;
        const double volume = cell_measure(g, uniform, uniform_volume, dim, -1, i, j, k);
        acc += volume;
        double share[kMaxElementDofs];
        for (int n = 0; n < nn; ++n)
          for (int c = 0; c < dim; ++c)
            share[dim * n + c] = value[c] * volume / nn;
        scatter_element(w, dim, i + t.s[0], j + t.s[1], k + t.s[2], share);
      });
}

} // namespace

void add_loads(const Domain& domain, const std::vector<Load>& loads, const Field& cells,
               HaloPlan& node_halo, NodeVector& f) {
  const int dim = domain.dim();
  const Communicator& comm = domain.comm();
  const double h[3] = {domain.spacing(0), domain.spacing(1), domain.spacing(2)};
  const double tol = box_tolerance(domain);
  for (std::size_t q = 0; q < loads.size(); ++q) {
    const Load& load = loads[q];
    const std::string name =
        "elasticity: load " + std::to_string(q + 1) + " (box " + describe(load.box, dim) + ")";
    if (load.kind == LoadKind::Point) {
      const double count = comm.sum(count_nodes(f[0], load.box, tol, dim));
      if (count == 0)
        throw ConfigError(name + " holds no node; widen the box to reach the grid's nodes");
      std::array<double, 3> share{};
      for (int c = 0; c < 3; ++c)
        share[c] = load.value[c] / count;
      add_point_load(f, load.box, tol, dim, share);
    } else if (load.kind == LoadKind::Traction) {
      int axis = -1, side = -1;
      for (int a = 0; a < dim; ++a) {
        if (std::abs(load.box.hi[a] - load.box.lo[a]) > tol)
          continue;
        const double lo = domain.spec().origin[a], hi = lo + domain.spec().length[a];
        if (std::abs(load.box.lo[a] - lo) <= tol)
          axis = a, side = 0;
        else if (std::abs(load.box.lo[a] - hi) <= tol)
          axis = a, side = 1;
      }
      if (axis < 0)
        throw ConfigError(name + ": a traction needs a box that is flat along one axis and lies "
                                 "on the domain's boundary there (lo = hi = the boundary "
                                 "coordinate)");
      const long last_cell = domain.global_cells(axis) - 1;
      const std::vector<double>& faces = domain.spec().faces[std::size_t(axis)];
      const double wall = domain.spec().origin[axis] +
                          (side == 0 ? 0.0 : double(last_cell + 1) * domain.spacing(axis));
      const double area =
          comm.sum(add_traction(cells, f, load.box, tol, dim, axis, side, last_cell,
                                faces.empty() ? wall : (side == 0 ? faces.front() : faces.back()),
                                load.value, domain.all_uniform(), h));
      if (area == 0)
        throw ConfigError(name + " covers no boundary face of an element; widen the box");
    } else {
      const double volume = comm.sum(
          add_body_force(cells, f, load.box, tol, dim, load.value, domain.all_uniform(), h));
      if (volume == 0)
        throw ConfigError(name + " holds no element centre; widen the box");
    }
  }
  for (int c = 0; c < dim; ++c) {
    node_halo.scatter_add(f[c]);
    node_halo.fill(f[c]);
  }
}

} // namespace elasticity
} // namespace undertow
