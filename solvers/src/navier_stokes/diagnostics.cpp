#include "undertow/solvers/navier_stokes/diagnostics.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/halo.hpp"
#include "undertow/core/log.hpp"
#include "undertow/core/reductions.hpp"
#include "undertow/solvers/navier_stokes/operators.hpp"

#include <algorithm>
#include <cmath>

namespace undertow {
namespace navier_stokes {

double max_divergence(NavierStokes& ns) {
  std::array<Field, 3>& u = ns.velocity();
  ns.prepare(u);
  const Velocity v = velocity_views(u);
  const Domain& domain = ns.domain();
  const int dim = domain.dim();
  const GridSpacing sp = ns.spacing();
  return domain.comm().max(local_max(
      "ns::max_divergence", ns.pressure().owned(),
      KOKKOS_LAMBDA(long i, long j, long k, double& m) {
        const double d = math::abs(divergence(v, dim, sp, i, j, k));
        m = d > m ? d : m;
      }));
}

double kinetic_energy(const NavierStokes& ns) {
  return kinetic_energy(ns.domain(), ns.velocity());
}

double enstrophy(NavierStokes& ns) {
  std::array<Field, 3>& u = ns.velocity();
  ns.prepare(u);
  return enstrophy(ns.domain(), u);
}

namespace {

/// Sum over the owned points of f of (f^2 or 1) times the point's control volume. Local.
double volume_sum(const Field& f, int dim, bool squares) {
  const FieldView v = f.view();
  const GridGeometry g = f.geometry();
  return local_sum(
      "ns::volume_sum", f.owned(), KOKKOS_LAMBDA(long i, long j, long k, double& acc) {
        const double volume = g.control_volume(dim, i, j, k);
        acc += (squares ? v(i, j, k) * v(i, j, k) : 1.0) * volume;
      });
}

} // namespace

double total_control_volume(const Domain& d, const Field& f) {
  return d.comm().sum(volume_sum(f, d.dim(), false));
}

double kinetic_energy(const Domain& d, const std::array<Field, 3>& u) {
  double twice = 0;
  for (int c = 0; c < d.dim(); ++c)
    twice += d.all_uniform()
                 ? global_dot(d.comm(), u[c], u[c]) / double(u[c].layout().global.size())
                 : d.comm().sum(volume_sum(u[c], d.dim(), true)) /
                       total_control_volume(d, u[c]); // volume-weighted mean
  return 0.5 * twice;
}

double enstrophy(const Domain& d, const std::array<Field, 3>& u) {
  Velocity v;
  for (int c = 0; c < 3; ++c)
    v.u[c] = u[c].view();
  const int dim = d.dim();
  const double ih[3] = {1.0 / d.spacing(0), 1.0 / d.spacing(1), 1.0 / d.spacing(2)};
  const FieldLayout cells = d.layout(Location::Cell, u[0].layout().ghost);
  if (!d.all_uniform()) {
    // The edge values times the cells' volumes, over the box's volume.
    const GridSpacing sp = grid_spacing(d, cells);
    const GridGeometry g = cells.geometry;
    const double sum = local_sum(
        "ns::enstrophy_stretched", cells.owned, KOKKOS_LAMBDA(long i, long j, long k, double& acc) {
          const double volume = g.control_volume(dim, i, j, k);
          for (int a = (dim == 2 ? 2 : 0); a < 3; ++a) {
            const double w = edge_vorticity(v, a, sp, i, j, k);
            acc += w * w * volume;
          }
        });
    return 0.5 * d.comm().sum(sum) / d.box_volume();
  }
  const double sum = local_sum(
      "ns::enstrophy", cells.owned, KOKKOS_LAMBDA(long i, long j, long k, double& acc) {
        for (int a = (dim == 2 ? 2 : 0); a < 3; ++a) {
          const double w = edge_vorticity(v, a, ih, i, j, k);
          acc += w * w;
        }
      });
  return 0.5 * d.comm().sum(sum) / double(cells.global.size());
}

void cell_velocity(NavierStokes& ns, int c, Field& out) {
  std::array<Field, 3>& vel = ns.velocity();
  ns.prepare(vel);
  const FieldView u = vel[c].view(), o = out.view();
  const IndexShift sh = index_shift(out, vel[c]);
  for_each(
      "ns::cell_velocity", out.owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        const long fi = i + sh.s[0], fj = j + sh.s[1], fk = k + sh.s[2];
        o(i, j, k) = 0.5 * (u(fi, fj, fk) + at(u, fi, fj, fk, c, 1));
      });
}

void cell_vorticity(NavierStokes& ns, int a, Field& out) {
  std::array<Field, 3>& vel = ns.velocity();
  ns.prepare(vel);
  const Velocity v = velocity_views(vel);
  const GridSpacing sp = ns.spacing();
  const FieldView o = out.view();
  const IndexShift sh = index_shift(out, vel[0]); // every component has the same ghost width
  for_each(
      "ns::cell_vorticity", out.owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        o(i, j, k) = cell_centre_vorticity(v, a, sp, i + sh.s[0], j + sh.s[1], k + sh.s[2]);
      });
}

void cell_mean_of_faces(const Domain& domain, const Field& faces, int c, Field& out) {
  Field copy(domain, faces.location(), 1, "ns::faces_copy");
  copy_owned(faces, copy);
  HaloPlan(domain, faces.location(), 1).fill(copy);
  const FieldView f = copy.view(), o = out.view();
  const IndexShift sh = index_shift(out, copy);
  for_each(
      "ns::cell_mean_of_faces", out.owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        const long fi = i + sh.s[0], fj = j + sh.s[1], fk = k + sh.s[2];
        o(i, j, k) = 0.5 * (f(fi, fj, fk) + at(f, fi, fj, fk, c, 1));
      });
}

void cell_q_criterion(NavierStokes& ns, Field& out) {
  require(ns.domain().dim() == 3, "the Q-criterion is defined for 3D flows");
  std::array<Field, 3>& vel = ns.velocity();
  ns.prepare(vel);
  const Velocity v = velocity_views(vel);
  const GridSpacing sp = ns.spacing();
  const FieldView o = out.view();
  const IndexShift sh = index_shift(out, vel[0]);
  for_each(
      "ns::cell_q_criterion", out.owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        o(i, j, k) = cell_centre_q_criterion(v, sp, i + sh.s[0], j + sh.s[1], k + sh.s[2]);
      });
}

void cell_design(const NavierStokes& ns, Field& out) {
  fill_value(out, out.owned(), 0.0);
  if (ns.params().obstacles.has_design())
    copy_owned(ns.params().obstacles.design, out);
}

void cell_mask(const NavierStokes& ns, Field& out) {
  fill_value(out, out.owned(), 0.0);
  if (!ns.penalised())
    return;
  const int dim = ns.domain().dim();
  const FieldView o = out.view();
  for (int c = 0; c < dim; ++c) {
    const FieldView m = ns.total_mask(c).view();
    const IndexShift sh = index_shift(out, ns.total_mask(c));
    for_each(
        "ns::cell_mask", out.owned(), KOKKOS_LAMBDA(long i, long j, long k) {
          const long fi = i + sh.s[0], fj = j + sh.s[1], fk = k + sh.s[2];
          o(i, j, k) += 0.5 * (m(fi, fj, fk) + at(m, fi, fj, fk, c, 1)) / double(dim);
        });
  }
}

double probe(const Domain& domain, const Field& f, const std::array<double, 3>& x) {
  const FieldLayout& l = f.layout();
  double value = 0;
  bool inside = true;
  long idx[3];
  for (int a = 0; a < 3; ++a) {
    const long global = a < domain.dim() ? domain.cell_containing(a, x[a]) : 0;
    idx[a] = global - l.global_offset[a];
    inside = inside && idx[a] >= l.owned.begin[a] && idx[a] < l.owned.end[a];
  }
  if (inside) {
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.view());
    value = host(idx[0], idx[1], idx[2]);
  }
  return domain.comm().sum(value);
}

std::array<double, 3> max_velocity(const NavierStokes& ns) {
  const Domain& domain = ns.domain();
  std::array<double, 3> out{0, 0, 0};
  for (int c = 0; c < domain.dim(); ++c)
    out[c] = global_max_abs(domain.comm(), ns.velocity(c));
  return out;
}

std::array<double, 3> max_boundary_velocity(const NavierStokes& ns) {
  std::array<double, 3> out{0, 0, 0};
  for (const auto& face : ns.params().boundaries.face)
    for (int c = 0; c < 3; ++c)
      out[c] = std::max(out[c], std::abs(face.velocity[c]) * face.signal.bound());
  return out;
}

double courant(const NavierStokes& ns, double dt) {
  const Domain& domain = ns.domain();
  const auto umax = max_velocity(ns);
  double sum = 0;
  for (int c = 0; c < domain.dim(); ++c)
    sum += umax[c] / domain.min_spacing(c);
  return dt * sum;
}

double linear_stability_dt(const NavierStokes& ns) {
  const Domain& domain = ns.domain();
  double advective = 0;
  const auto umax = max_velocity(ns), ubc = max_boundary_velocity(ns);
  for (int c = 0; c < domain.dim(); ++c)
    advective += std::max(umax[c], ubc[c]) / domain.min_spacing(c);
  return std::min(ns.stable_dt(1.0), advective > 0 ? kAdvectiveCourantLimit / advective : HUGE_VAL);
}

std::string unstable_dt_warning(const NavierStokes& ns, double dt) {
  const double limit = linear_stability_dt(ns);
  if (!(dt > limit))
    return {};
  return format("warning: time.dt = %.3e exceeds the linear stability limit %.3e of ", dt, limit) +
         (ns.params().scheme == TimeScheme::Rk3CrankNicolson
              ? std::string("the explicit (RK3) advection of time.scheme = imex")
              : std::string("SSP-RK3")) +
         " for the initial field and the boundary velocities; expect the run to diverge";
}

bool has_nonfinite(const NavierStokes& ns) {
  const Domain& domain = ns.domain();
  double bad = 0;
  for (int c = 0; c < domain.dim(); ++c) {
    const FieldView v = ns.velocity(c).view();
    bad += local_sum(
        "ns::count_nonfinite", ns.velocity(c).owned(),
        KOKKOS_LAMBDA(long i, long j, long k, double& acc) {
          acc += math::isfinite(v(i, j, k)) ? 0.0 : 1.0;
        });
  }
  return domain.comm().sum(bad) > 0;
}

} // namespace navier_stokes
} // namespace undertow
