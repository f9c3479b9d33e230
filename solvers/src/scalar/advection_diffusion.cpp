#include "undertow/solvers/scalar/advection_diffusion.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/grid_spacing.hpp"
#include "undertow/core/reductions.hpp"
#include "undertow/solvers/scalar/advection_diffusion_terms.hpp"

#include <cmath>

namespace undertow {
namespace scalar {

namespace {
constexpr int kGhost = 1; // the stencil reaches one cell
const Location kFaces[3] = {Location::FaceX, Location::FaceY, Location::FaceZ};

/// Computed minus exact value at the centre of cell (i, j, k).
KOKKOS_INLINE_FUNCTION double pointwise_error(const FieldView& c, const FourierMode& exact,
                                              const GridGeometry& geo, double t, long i, long j,
                                              long k) {
  return c(i, j, k) -
         exact.value(geo.coordinate(0, i), geo.coordinate(1, j), geo.coordinate(2, k), t);
}

// Kernels live in free functions: CUDA's extended lambdas may not sit in private member functions.

/// Ghost values in `slab` (one layer beyond the wall at `wall` along axis `a`, `shift` cells from
/// the first interior layer) such that the wall value interpolates the exact solution at time t.
void dirichlet_ghosts(Field& field, const FourierMode& exact, const IndexSpace& slab, int a,
                      double wall, long shift, double t) {
  const FieldView c = field.view();
  const GridGeometry geo = field.geometry();
  for_each(
      "advdiff::dirichlet", slab, KOKKOS_LAMBDA(long i, long j, long k) {
        double x[3] = {geo.coordinate(0, i), geo.coordinate(1, j), geo.coordinate(2, k)};
        x[a] = wall;
        const long ii = a == 0 ? i + shift : i, jj = a == 1 ? j + shift : j,
                   kk = a == 2 ? k + shift : k;
        c(i, j, k) = dirichlet_ghost(exact.value(x[0], x[1], x[2], t), c(ii, jj, kk));
      });
}

/// rhs := -div(u c - kappa grad c) over the owned cells; ghosts of `field` must be set. Each
/// cell's flux difference is divided by its width, each face's gradient by the distance
/// between the centres across it (the same numbers on a uniform axis).
template <class S>
void flux_divergence_kernel(const Field& field, const std::array<Field, 3>& face_velocity,
                            double kappa, const S& sp, bool three_d, Field& rhs) {
  const FieldView c = field.view(), r = rhs.view();
  const FieldView u = face_velocity[0].view(), v = face_velocity[1].view(),
                  w = face_velocity[2].view();
  for_each(
      "advdiff::tendency", field.owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        const double cc = c(i, j, k);
        double divergence =
            (face_flux(u(i + 1, j, k), kappa, sp.link(0, i + 1), cc, c(i + 1, j, k)) -
             face_flux(u(i, j, k), kappa, sp.link(0, i), c(i - 1, j, k), cc)) *
                sp.cell(0, i) +
            (face_flux(v(i, j + 1, k), kappa, sp.link(1, j + 1), cc, c(i, j + 1, k)) -
             face_flux(v(i, j, k), kappa, sp.link(1, j), c(i, j - 1, k), cc)) *
                sp.cell(1, j);
        if (three_d)
          divergence += (face_flux(w(i, j, k + 1), kappa, sp.link(2, k + 1), cc, c(i, j, k + 1)) -
                         face_flux(w(i, j, k), kappa, sp.link(2, k), c(i, j, k - 1), cc)) *
                        sp.cell(2, k);
        r(i, j, k) = -divergence;
      });
}
void flux_divergence(const Field& field, const std::array<Field, 3>& face_velocity, double kappa,
                     const GridSpacing& spacing, bool three_d, Field& rhs) {
  with_spacing(spacing, [&](const auto& sp) {
    flux_divergence_kernel(field, face_velocity, kappa, sp, three_d, rhs);
  });
}
} // namespace

void AdvectionDiffusionParams::declare_keys(ConfigSchema& s) {
  s.add("advdiff.kappa", ValueType::Real, "0.01", "diffusivity [length^2/time]").at_least(0);
  s.add("advdiff.velocity", ValueType::RealList, "1 0 0",
        "uniform advecting velocity, one entry per axis [length/time]")
      .items(2, 3);
  s.add("advdiff.mode", ValueType::IntegerList, "1 1 0",
        "initial Fourier mode: periods per box length along each axis (0 = constant)")
      .items(2, 3)
      .at_least(0);
  s.add("advdiff.amplitude", ValueType::Real, "1", "initial amplitude [scalar unit]");
}

AdvectionDiffusionParams AdvectionDiffusionParams::from_config(const Config& c, int dim) {
  AdvectionDiffusionParams p;
  p.kappa = c.get_real("advdiff.kappa");
  p.amplitude = c.get_real("advdiff.amplitude");
  const auto velocity = c.get_real_list("advdiff.velocity");
  const auto mode = c.get_int_list("advdiff.mode");
  for (const auto& [key, n] :
       {std::pair<std::string, std::size_t>{"advdiff.velocity", velocity.size()},
        {"advdiff.mode", mode.size()}})
    if (c.is_given(key) && static_cast<int>(n) != dim)
      throw ConfigError(key + " has " + std::to_string(n) + " entries but domain.dim = " +
                        std::to_string(dim) + "; give one entry per axis.");
  for (int a = 0; a < 3; ++a) {
    p.velocity[a] = a < dim && a < static_cast<int>(velocity.size()) ? velocity[a] : 0.0;
    p.mode[a] = a < dim && a < static_cast<int>(mode.size()) ? mode[a] : 0;
  }
  return p;
}

AdvectionDiffusion::AdvectionDiffusion(const Domain& domain, const AdvectionDiffusionParams& p)
    : m_domain(domain), m_c(domain, Location::Cell, kGhost, "advdiff::c"),
      m_stage1(domain, Location::Cell, kGhost, "advdiff::stage1"),
      m_stage2(domain, Location::Cell, kGhost, "advdiff::stage2"),
      m_rhs(domain, Location::Cell, kGhost, "advdiff::rhs"), m_halo(domain, Location::Cell, kGhost),
      m_spacing(grid_spacing(domain, m_c.layout())) {
  m_exact.amplitude = p.amplitude;
  m_exact.kappa = p.kappa;
  for (int a = 0; a < 3; ++a) {
    m_exact.k[a] = 2.0 * math::pi * double(p.mode[a]) / domain.spec().length[a];
    m_exact.velocity[a] = p.velocity[a];
  }
  for (int a = 0; a < domain.dim(); ++a) {
    m_face_velocity[a] = Field(domain, kFaces[a], kGhost, "advdiff::face_velocity");
    fill_value(m_face_velocity[a], m_face_velocity[a].ghosted(), p.velocity[a]);
  }
}

void AdvectionDiffusion::initialise(double t0) {
  const FieldView c = m_c.view();
  const GridGeometry geo = m_c.geometry();
  const FourierMode exact = m_exact;
  for_each(
      "advdiff::initialise", m_c.owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        c(i, j, k) =
            exact.value(geo.coordinate(0, i), geo.coordinate(1, j), geo.coordinate(2, k), t0);
      });
  m_time = t0;
  m_steps = 0;
}

void AdvectionDiffusion::apply_dirichlet(Field& field, double t) {
  for (int a = 0; a < m_domain.dim(); ++a) {
    if (m_domain.periodic(a))
      continue;
    for (int side = 0; side < 2; ++side) {
      const bool on_wall = m_domain.touches_boundary(a, side);
      if (!on_wall)
        continue;
      IndexSpace slab = field.owned();
      const long ghost = side == 0 ? slab.begin[a] - 1 : slab.end[a];
      const long inner = side == 0 ? slab.begin[a] : slab.end[a] - 1;
      slab.begin[a] = ghost;
      slab.end[a] = ghost + 1;
      const double wall = m_domain.spec().origin[a] + (side == 0 ? 0.0 : m_domain.spec().length[a]);
      const long shift = inner - ghost;
      dirichlet_ghosts(field, m_exact, slab, a, wall, shift, t);
    }
  }
}

void AdvectionDiffusion::tendency(Field& field, double t, Field& rhs) {
  {
    auto scope = m_timers.scope("halo");
    m_halo.fill(field);
  }
  {
    auto scope = m_timers.scope("boundary");
    apply_dirichlet(field, t);
  }
  auto scope = m_timers.scope("tendency");
  flux_divergence(field, m_face_velocity, m_exact.kappa, m_spacing, m_domain.dim() == 3, rhs);
}

namespace {
/// out := a * c0 + b * (c + dt * rhs) over the owned cells.
void stage(const std::string& label, double a, const Field& c0, double b, const Field& c, double dt,
           const Field& rhs, Field& out) {
  const FieldView c0v = c0.view(), cv = c.view(), rv = rhs.view(), ov = out.view();
  for_each(
      label, out.owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        ov(i, j, k) = rk_stage(a, c0v(i, j, k), b, cv(i, j, k), dt, rv(i, j, k));
      });
}
} // namespace

void AdvectionDiffusion::step(double dt) {
  const double t = m_time;
  // SSP-RK3 (Shu & Osher 1988), stage times t, t + dt, t + dt/2.
  tendency(m_c, t, m_rhs);
  {
    auto scope = m_timers.scope("update");
    stage("advdiff::rk3_stage1", 0.0, m_c, 1.0, m_c, dt, m_rhs, m_stage1);
  }
  tendency(m_stage1, t + dt, m_rhs);
  {
    auto scope = m_timers.scope("update");
    stage("advdiff::rk3_stage2", 0.75, m_c, 0.25, m_stage1, dt, m_rhs, m_stage2);
  }
  tendency(m_stage2, t + 0.5 * dt, m_rhs);
  {
    auto scope = m_timers.scope("update");
    stage("advdiff::rk3_stage3", 1.0 / 3.0, m_c, 2.0 / 3.0, m_stage2, dt, m_rhs, m_c);
  }
  m_time = t + dt;
  ++m_steps;
}

double AdvectionDiffusion::courant(double dt) const {
  double sum = 0;
  for (int a = 0; a < m_domain.dim(); ++a)
    sum += std::abs(m_exact.velocity[a]) / m_domain.min_spacing(a);
  return dt * sum;
}

double AdvectionDiffusion::stable_dt(double cfl) const {
  double advective = 0, diffusive = 0;
  for (int a = 0; a < m_domain.dim(); ++a) {
    const double h = m_domain.min_spacing(a); // the narrowest cells set the limits
    advective += std::abs(m_exact.velocity[a]) / h;
    diffusive += 4.0 * m_exact.kappa / (h * h);
  }
  const double limit_adv = advective > 0 ? std::sqrt(3.0) / advective : HUGE_VAL;
  const double limit_diff = diffusive > 0 ? 2.5 / diffusive : HUGE_VAL;
  const double limit = std::min(limit_adv, limit_diff);
  require(std::isfinite(limit), "advection-diffusion: no velocity and no diffusion, so no time "
                                "scale to choose dt from; set time.dt");
  return cfl * limit;
}

ErrorNorms AdvectionDiffusion::error() const {
  const FieldView c = m_c.view();
  const GridGeometry geo = m_c.geometry();
  const FourierMode exact = m_exact;
  const double t = m_time;
  const int dim = m_domain.dim();
  const bool uniform = m_domain.all_uniform();
  // The root mean square over the cells, volume-weighted on a stretched grid.
  const double squares = local_sum(
      "advdiff::error_l2", m_c.owned(), KOKKOS_LAMBDA(long i, long j, long k, double& acc) {
        const double e = pointwise_error(c, exact, geo, t, i, j, k);
        acc += uniform ? e * e : e * e * geo.control_volume(dim, i, j, k);
      });
  const double largest = local_max(
      "advdiff::error_linf", m_c.owned(), KOKKOS_LAMBDA(long i, long j, long k, double& m) {
        const double e = math::abs(pointwise_error(c, exact, geo, t, i, j, k));
        m = e > m ? e : m;
      });
  const Communicator& comm = m_domain.comm();
  const double measure = uniform ? double(m_c.layout().global.size()) : m_domain.box_volume();
  return {std::sqrt(comm.sum(squares) / measure), comm.max(largest)};
}

double AdvectionDiffusion::max_abs() const {
  const FieldView c = m_c.view();
  // NaN compares false with everything, so count non-finite values explicitly.
  const double bad = local_sum(
      "advdiff::count_nonfinite", m_c.owned(), KOKKOS_LAMBDA(long i, long j, long k, double& acc) {
        acc += math::isfinite(c(i, j, k)) ? 0.0 : 1.0;
      });
  if (m_domain.comm().sum(bad) > 0)
    return std::nan("");
  return global_max_abs(m_domain.comm(), m_c);
}

} // namespace scalar
} // namespace undertow
