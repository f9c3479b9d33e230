#include "undertow/solvers/navier_stokes/solver.hpp"

#include "undertow/solvers/navier_stokes/diagnostics.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/math.hpp"
#include "undertow/core/reductions.hpp"

#include <cmath>
#include <vector>

namespace undertow {
namespace navier_stokes {

namespace {

constexpr int kGhost = 1;
const Location kFaces[3] = {Location::FaceX, Location::FaceY, Location::FaceZ};

// The constructor's kernels live in free functions: CUDA's extended lambdas may not sit in a
// constructor or a private member function.

/// The Brinkman mask of one body at every local point of `loc`, ghosts included (the mask is
/// analytic, so no halo exchange is needed).
Field body_mask(const Domain& domain, Location loc, const Shape& shape, const MaskSpec& spec) {
  Field mask(domain, loc, kGhost, "ns::mask");
  const FieldView m = mask.view();
  const GridGeometry g = mask.geometry();
  for_each(
      "ns::obstacle_mask", mask.ghosted(),
      KOKKOS_LAMBDA(long i, long j, long k) { m(i, j, k) = face_mask(shape, g, i, j, k, spec); });
  return mask;
}

/// Pattern G of one actuator on every local point of `loc`, component c (pattern_on_face).
Field actuator_field(const Domain& domain, Location loc, int c, const Actuator& a) {
  Field f(domain, loc, kGhost, "ns::actuator_pattern");
  const FieldView v = f.view();
  const GridGeometry g = f.geometry();
  const ActuatorPattern p = a.pattern;
  for_each(
      "ns::actuator_pattern", f.ghosted(),
      KOKKOS_LAMBDA(long i, long j, long k) { v(i, j, k) = pattern_on_face(p, g, c, i, j); });
  return f;
}

/// out := sum_k amplitude[k] pattern[k] over the owned points (up to kMaxObstacles * 2 terms).
void combine_patterns(const std::vector<std::array<Field, 3>>& patterns,
                      const std::vector<double>& amplitude, int c, Field& out) {
  fill_value(out, out.ghosted(), 0.0);
  for (std::size_t k = 0; k < patterns.size(); ++k)
    axpy(amplitude[k], patterns[k][c], out);
}

/// Smallest owned value of `f` on any rank. Collective.
double global_min(const Communicator& comm, const Field& f) {
  const FieldView v = f.view();
  return -comm.max(local_max(
      "ns::global_min", f.owned(),
      KOKKOS_LAMBDA(long i, long j, long k, double& m) { m = -v(i, j, k) > m ? -v(i, j, k) : m; }));
}

/// The design field on the faces of component c, and the fluid fraction 1 - design there.
void design_fluid_fraction(const Field& design, int c, Field& design_face, Field& fluid) {
  const FieldView rho = design.view(), rho_face = design_face.view(), total = fluid.view();
  for_each(
      "ns::design_mask", fluid.owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        rho_face(i, j, k) = design_on_face(rho, c, i, j, k);
        total(i, j, k) = 1.0 - rho_face(i, j, k);
      });
}

/// total *= 1 - mask over the owned points.
void multiply_by_complement(const Field& mask, Field& total_field) {
  const FieldView m = mask.view(), total = total_field.view();
  for_each(
      "ns::total_mask", total_field.owned(),
      KOKKOS_LAMBDA(long i, long j, long k) { total(i, j, k) *= 1.0 - m(i, j, k); });
}

/// total := 1 - total over the owned points.
void complement(Field& total_field) {
  const FieldView total = total_field.view();
  for_each(
      "ns::total_mask_union", total_field.owned(),
      KOKKOS_LAMBDA(long i, long j, long k) { total(i, j, k) = 1.0 - total(i, j, k); });
}

/// The momentum tendency of one component with the component and dimension known at compile
/// time, so that the stencil offsets fold into constants. Writes the unpenalised update
/// out = a u0 + b (us + dt R) if `chi` is empty, else the penalised us_p = (us + dt R) / (1 + dt
/// chi / eta) into `out`.
struct MomentumUpdate {
  Velocity v;
  FieldView u0, us, out, chi;
  double a, b, dt, dt_over_eta, nu, force;
  GridSpacing spacing;
  FieldView target = FieldView(); ///< the actuators' target velocity (empty: bodies at rest)
};

/// S: UniformSpacing where every axis is uniform (the stretched grid's tables compiled out).
template <int C, int Dim, class S>
void momentum_kernel(const MomentumUpdate& m, const S& sp, const IndexSpace& space) {
  // for_each_rows: out is written at its own point only and read nowhere else (it may be u0).
  if (m.chi.data() == nullptr)
    for_each_rows(
        "ns::momentum", space, KOKKOS_LAMBDA(long i, long j, long k) {
          const double r = momentum_tendency(m.v, C, Dim, sp, m.nu, m.force, i, j, k);
          m.out(i, j, k) = m.a * m.u0(i, j, k) + m.b * (m.us(i, j, k) + m.dt * r);
        });
  else
    for_each_rows(
        "ns::momentum_penalised", space, KOKKOS_LAMBDA(long i, long j, long k) {
          const double r = momentum_tendency(m.v, C, Dim, sp, m.nu, m.force, i, j, k);
          const double drive =
              m.target.data() ? m.dt_over_eta * m.chi(i, j, k) * m.target(i, j, k) : 0.0;
          m.out(i, j, k) =
              (m.us(i, j, k) + m.dt * r + drive) / (1.0 + m.dt_over_eta * m.chi(i, j, k));
        });
}

template <int C, int Dim>
void momentum_kernel(const MomentumUpdate& m, const IndexSpace& space) {
  with_spacing(m.spacing, [&](const auto& sp) { momentum_kernel<C, Dim>(m, sp, space); });
}

void momentum(int c, int dim, const MomentumUpdate& m, const IndexSpace& space);

/// The momentum update of component c, except on convective outflow faces, where the normal
/// velocity follows du/dt = -U_c (u_face - u_inner) / h instead. Those values are computed first,
/// into `scratch`, because the momentum kernel may write over u0 (last stage).
void momentum_with_outflow(int c, int dim, const MomentumUpdate& m, const IndexSpace& space,
                           const std::vector<ConvectiveFace>& faces, const FieldView& scratch) {
  for (const ConvectiveFace& f : faces) {
    const double rate = f.speed * f.inv_h;
    const long inward = f.inward;
    for_each(
        "ns::convective_outflow", f.layer, KOKKOS_LAMBDA(long i, long j, long k) {
          const double r = -rate * (m.us(i, j, k) - at(m.us, i, j, k, c, inward));
          const double euler = m.us(i, j, k) + m.dt * r;
          const double drive =
              m.target.data() ? m.dt_over_eta * m.chi(i, j, k) * m.target(i, j, k) : 0.0;
          scratch(i, j, k) = m.chi.data() == nullptr
                                 ? m.a * m.u0(i, j, k) + m.b * euler
                                 : (euler + drive) / (1.0 + m.dt_over_eta * m.chi(i, j, k));
        });
  }
  momentum(c, dim, m, space);
  for (const ConvectiveFace& f : faces)
    for_each(
        "ns::convective_outflow_store", f.layer,
        KOKKOS_LAMBDA(long i, long j, long k) { m.out(i, j, k) = scratch(i, j, k); });
}

void momentum(int c, int dim, const MomentumUpdate& m, const IndexSpace& space) {
  if (dim == 2)
    (c == 0 ? momentum_kernel<0, 2> : momentum_kernel<1, 2>)(m, space);
  else
    (c == 0   ? momentum_kernel<0, 3>
     : c == 1 ? momentum_kernel<1, 3>
              : momentum_kernel<2, 3>)(m, space);
}
const char* kNames[3] = {"ns::u", "ns::v", "ns::w"};

linear::PoissonSpec pressure_spec(const NavierStokesParams& p) {
  linear::PoissonSpec s = p.pressure;
  s.faces = p.boundaries.pressure_faces();
  return s;
}

} // namespace

NavierStokes::NavierStokes(const Domain& domain, const NavierStokesParams& params)
    : m_domain(domain), m_params(params),
      m_spacing(grid_spacing(domain, domain.layout(Location::Cell, kGhost))),
      m_face_rules(boundary_rules(domain, params.boundaries, true)),
      m_ghost_rules(boundary_rules(domain, params.boundaries, false)),
      m_face_rules_zero(m_face_rules), m_ghost_rules_zero(m_ghost_rules),
      m_p(domain, Location::Cell, kGhost, "ns::p"),
      m_psi(domain, Location::Cell, kGhost, "ns::psi"),
      m_div(domain, Location::Cell, kGhost, "ns::div"),
      m_cell_halo(std::make_unique<HaloPlan>(domain, Location::Cell, kGhost)),
      m_poisson(domain, pressure_spec(params)) {
  for (BoundaryRule& r : m_face_rules_zero)
    r.value = 0.0;
  for (BoundaryRule& r : m_ghost_rules_zero)
    r.value = 0.0;
  for (int a = 0; a < domain.dim(); ++a)
    if (!domain.periodic(a) && domain.global_cells(a) < 2)
      throw ConfigError("the Navier-Stokes solver needs at least 2 cells across a non-periodic "
                        "axis (domain.cells)");
  for (int c = 0; c < domain.dim(); ++c) {
    m_u[c] = Field(domain, kFaces[c], kGhost, kNames[c]);
    m_stage1[c] = Field(domain, kFaces[c], kGhost, std::string(kNames[c]) + "_stage1");
    m_stage2[c] = Field(domain, kFaces[c], kGhost, std::string(kNames[c]) + "_stage2");
    m_velocity_halo[c] = std::make_unique<HaloPlan>(domain, kFaces[c], kGhost);
    if (params.boundaries.face[2 * c].kind == BoundaryKind::Convective ||
        params.boundaries.face[2 * c + 1].kind == BoundaryKind::Convective)
      m_outflow_scratch[c] = Field(domain, kFaces[c], kGhost, "ns::outflow_scratch");
    IndexSpace free = m_u[c].owned();
    if (!domain.periodic(c)) {
      if (domain.coord(c) == 0 && params.boundaries.fixes_normal_velocity(c, 0))
        free.begin[c] += 1;
      if (domain.coord(c) == domain.ranks_along(c) - 1 &&
          params.boundaries.fixes_normal_velocity(c, 1))
        free.end[c] -= 1;
    }
    m_free[c] = free;
    for (int side = 0; side < 2 && !domain.periodic(c); ++side) {
      const FaceBoundary& f = params.boundaries.face[2 * c + side];
      if (f.kind != BoundaryKind::Convective || !domain.touches_boundary(c, side))
        continue;
      const long at_face = side == 0 ? free.begin[c] : free.end[c] - 1;
      m_convective[c].push_back({layer(free, c, at_face), side == 0 ? 1L : -1L,
                                 std::abs(f.velocity[c]),
                                 m_spacing.cell(c, side == 0 ? at_face : at_face - 1)});
    }
  }
  // Obstacle masks are analytic, so they are evaluated on every local face, ghosts included.
  double h_min = domain.min_spacing(0);
  for (int a = 1; a < domain.dim(); ++a)
    h_min = std::min(h_min, domain.min_spacing(a));
  const MaskSpec spec = params.obstacles.mask_spec(domain, params.nu);
  for (const Shape& shape : params.obstacles.shapes) {
    std::array<Field, 3> masks;
    for (int c = 0; c < domain.dim(); ++c)
      masks[c] = body_mask(domain, kFaces[c], shape, spec);
    // A body that contains no velocity face is a misplaced centre or a body below the grid
    // spacing, not an obstacle: the run would compute the empty channel, or a smear.
    double seen = 0;
    for (int c = 0; c < domain.dim(); ++c)
      seen = std::max(seen, global_max(domain.comm(), masks[c]));
    if (!(seen >= 0.5))
      throw ConfigError(format("obstacle%.0f contains no velocity face of the grid (its mask is ",
                               double(m_masks.size() + 1)) +
                        format("at most %.3g): it lies outside the domain or is smaller than a "
                               "cell (h = %g). Put its centre inside the box (domain.origin, "
                               "domain.length), make it larger, or refine the grid",
                               seen, h_min));
    m_masks.push_back(masks);
  }
  m_penalised_flow = !m_masks.empty() || params.obstacles.has_design();
  Field design;
  if (params.obstacles.has_design()) {
    const double lowest = global_min(domain.comm(), params.obstacles.design);
    const double highest = global_max(domain.comm(), params.obstacles.design);
    if (!(lowest >= 0.0 && highest <= 1.0))
      throw ConfigError(format("the Brinkman design field (obstacles.design) has values in "
                               "[%g, %g]; it must lie in [0, 1], 0 fluid and 1 solid (below 0 "
                               "the penalty would amplify the flow)",
                               lowest, highest));
    // Its ghosts: halo values, and beyond the boundaries a copy of the cell inside.
    design = Field(domain, Location::Cell, kGhost, "ns::design");
    copy(params.obstacles.design, design);
    m_cell_halo->fill(design);
    reflect_into_boundary_ghosts(domain, {1, 1, 1, 1, 1, 1}, design); // the cell inside
  }
  // chi = 1 - (1 - design) prod_k (1 - mask_k): the union of the bodies, smooth in each mask
  // (overlapping bodies stay at chi = 1), and chi = mask for a single body.
  for (int c = 0; c < domain.dim() && m_penalised_flow; ++c) {
    m_total_mask[c] = Field(domain, kFaces[c], kGhost, "ns::total_mask");
    m_penalised[c] = Field(domain, kFaces[c], kGhost, "ns::penalised");
    if (design.view().data()) {
      m_design_face[c] = Field(domain, kFaces[c], kGhost, "ns::design_face");
      design_fluid_fraction(design, c, m_design_face[c], m_total_mask[c]);
    } else {
      fill_value(m_total_mask[c], m_total_mask[c].owned(), 1.0);
    }
    for (const auto& masks : m_masks)
      multiply_by_complement(masks[c], m_total_mask[c]);
    complement(m_total_mask[c]);
    m_velocity_halo[c]->fill(m_total_mask[c]);
  }
  m_forces.assign(m_masks.size(), {0.0, 0.0, 0.0});
  for (const Actuator& a : params.actuators) {
    std::array<Field, 3> pattern;
    for (int c = 0; c < domain.dim(); ++c)
      pattern[c] = actuator_field(domain, kFaces[c], c, a);
    m_patterns.push_back(pattern);
  }
  for (int c = 0; c < domain.dim() && !m_patterns.empty(); ++c)
    m_target[c] = Field(domain, kFaces[c], kGhost, "ns::target");
  for (const auto& x : params.sensors)
    for (int c = 0; c < domain.dim(); ++c)
      m_sensors.add(c, probe_faces(domain, x, c, kGhost));
  m_feedback.assign(params.actuators.size(), 0.0);
}

void NavierStokes::update_feedback() {
  if (m_params.policy.active())
    m_feedback = m_params.policy.evaluate(read_sensors(m_u));
}

void NavierStokes::update_target() {
  std::vector<double> amplitude;
  for (std::size_t k = 0; k < m_params.actuators.size(); ++k)
    amplitude.push_back(actuator_amplitude(k));
  for (int c = 0; c < m_domain.dim(); ++c)
    combine_patterns(m_patterns, amplitude, c, m_target[c]);
}

void NavierStokes::prepare(std::array<Field, 3>& u) {
  auto scope = m_timers.scope("boundary+halo");
  apply_boundary_rules(u, m_face_rules, m_ghost_rules);
}

void NavierStokes::prepare_homogeneous(std::array<Field, 3>& u) {
  apply_boundary_rules(u, m_face_rules_zero, m_ghost_rules_zero);
}

void NavierStokes::apply_boundary_rules(std::array<Field, 3>& u,
                                        const std::vector<BoundaryRule>& face_rules,
                                        const std::vector<BoundaryRule>& ghost_rules) {
  const std::array<double, 6> amplitude = m_params.boundaries.amplitudes(m_boundary_time);
  // 1. Prescribed normal velocity on the boundary faces this rank owns.
  for (const BoundaryRule& r : face_rules) {
    Field& f = u[r.component];
    const FieldView v = f.view();
    const GridGeometry g = f.geometry();
    const Profile prof = r.profile;
    const double value = r.value * amplitude[r.face()];
    for_each(
        "ns::bc_normal_face", r.layer_of(f.owned(), f.ghosted()),
        KOKKOS_LAMBDA(long i, long j, long k) { v(i, j, k) = value * prof.factor(g, i, j, k); });
  }
  // 2. Halo exchange: ghosts between ranks and across periodic axes.
  for (int c = 0; c < m_domain.dim(); ++c)
    m_velocity_halo[c]->fill(u[c]);
  // 3. Ghosts beyond the physical boundaries.
  for (const BoundaryRule& r : ghost_rules) {
    Field& f = u[r.component];
    const FieldView v = f.view();
    const int a = r.axis;
    const long inward = r.inward;
    if (r.kind == BoundaryRule::Kind::NormalGhost) {
      // Normal component beyond the boundary face: zero gradient (used by outflow faces).
      for_each(
          "ns::bc_normal_ghost", r.layer_of(f.owned(), f.ghosted()),
          KOKKOS_LAMBDA(long i, long j, long k) { v(i, j, k) = at(v, i, j, k, a, inward); });
      continue;
    }
    // Tangential component: ghost layer just outside the wall.
    const bool dirichlet = r.kind == BoundaryRule::Kind::TangentialDirichlet;
    const double wall = r.value * amplitude[r.face()];
    const GridGeometry g = f.geometry();
    const Profile prof = r.profile;
    const bool scaled = r.scaled, stretched = r.stretched;
    const double w0 = r.weights[0], w1 = r.weights[1], w2 = r.weights[2];
    for_each(
        "ns::bc_tangential_ghost", r.layer_of(f.owned(), f.ghosted()),
        KOKKOS_LAMBDA(long i, long j, long k) {
          const double first = at(v, i, j, k, a, inward);
          if (dirichlet) {
            const double value = scaled ? wall * prof.factor(g, i, j, k) : wall;
            const double second = at(v, i, j, k, a, 2 * inward);
            v(i, j, k) = stretched ? w0 * value + w1 * first + w2 * second
                                   : no_slip_ghost(value, first, second);
          } else {
            v(i, j, k) = first;
          }
        });
  }
}

void NavierStokes::euler_combination(double a, const std::array<Field, 3>& u0, double b,
                                     const std::array<Field, 3>& us, double dt,
                                     std::array<Field, 3>& out, double force_weight) {
  auto scope = m_timers.scope("momentum");
  const Velocity v = velocity_views(us);
  const int dim = m_domain.dim();
  const double nu = m_params.nu;
  if (!m_patterns.empty())
    update_target(); // at the stage's time
  for (int c = 0; c < dim; ++c) {
    const FieldView u0v = u0[c].view(), ov = out[c].view();
    MomentumUpdate m{v, u0v, us[c].view(), ov, FieldView(),   a,
                     b, dt,  0.0,          nu, body_force(c), m_spacing};
    const std::vector<ConvectiveFace>& convective = convective_faces(c);
    const FieldView scratch = m_outflow_scratch[c].view();
    if (!m_penalised_flow) {
      momentum_with_outflow(c, dim, m, m_free[c], convective, scratch);
      continue;
    }
    // Implicit Brinkman penalty: u_p = (u + dt R) / (1 + dt chi / eta), kept in m_penalised
    // because `out` may be `u0` (last stage); written straight into `out` when only u_p is
    // asked for (a = 0, b = 1, no force).
    const bool only_up = a == 0.0 && b == 1.0 && force_weight == 0.0;
    const FieldView up = only_up ? ov : m_penalised[c].view();
    m.chi = m_total_mask[c].view();
    m.target = m_target[c].view();
    m.out = up;
    m.dt_over_eta = dt / m_params.obstacles.eta;
    momentum_with_outflow(c, dim, m, m_free[c], convective, scratch);
    if (only_up)
      continue;
    // Force on each body: the momentum the penalty removes, sum of (chi_k / eta) u_p dV.
    const double weight = masked_sum_weight(m_domain);
    for (std::size_t k = 0; k < m_masks.size(); ++k)
      m_forces[k][c] +=
          force_weight * weight / m_params.obstacles.eta *
          m_domain.comm().sum(masked_sum(m_free[c], m_masks[k][c], up, dim, m_target[c].view()));
    for_each_rows( // each point reads only itself, even where out is u0
        "ns::stage_combination", m_free[c], KOKKOS_LAMBDA(long i, long j, long k) {
          ov(i, j, k) = a * u0v(i, j, k) + b * up(i, j, k);
        });
  }
}

void NavierStokes::project(std::array<Field, 3>& u, double scale) {
  prepare(u);
  const int dim = m_domain.dim();
  const GridSpacing sp = m_spacing;
  {
    auto scope = m_timers.scope("projection");
    const Velocity v = velocity_views(u);
    const FieldView div = m_div.view();
    for_each_rows(
        "ns::divergence", m_div.owned(),
        KOKKOS_LAMBDA(long i, long j, long k) { div(i, j, k) = divergence(v, dim, sp, i, j, k); });
  }
  {
    auto scope = m_timers.scope("poisson");
    // psi = scale * p: the last solve's psi, rescaled to this stage, is the initial guess. It
    // only changes how many iterations the solve takes, not what it converges to.
    if (m_psi_scale > 0.0 && scale > 0.0 && scale != m_psi_scale) {
      const FieldView psi = m_psi.view();
      const double ratio = scale / m_psi_scale;
      for_each(
          "ns::psi_guess", m_psi.owned(),
          KOKKOS_LAMBDA(long i, long j, long k) { psi(i, j, k) *= ratio; });
    }
    m_psi_scale = scale;
    m_poisson_iterations += m_poisson.solve(m_div, m_psi).iterations;
  }
  auto scope = m_timers.scope("projection");
  potential_ghosts(m_psi);
  const FieldView psi = m_psi.view();
  for (int c = 0; c < dim; ++c) {
    const FieldView uv = u[c].view();
    for_each_rows( // u is written at its own point only; psi is read
        "ns::pressure_correction", m_free[c], KOKKOS_LAMBDA(long i, long j, long k) {
          uv(i, j, k) -= face_gradient(psi, c, sp, i, j, k);
        });
  }
}

void NavierStokes::potential_ghosts(Field& field) {
  const int dim = m_domain.dim();
  m_cell_halo->fill(field);
  // Outflow faces take the gradient against p = 0 on the face: ghost = -inner.
  const FieldView psi = field.view();
  for (int a = 0; a < dim; ++a) {
    if (m_domain.periodic(a))
      continue;
    for (int side = 0; side < 2; ++side) {
      const bool mine = m_domain.touches_boundary(a, side);
      if (!mine || !is_outflow(m_params.boundaries.face[2 * a + side].kind))
        continue;
      const IndexSpace& own = field.owned();
      const long inward = side == 0 ? 1 : -1;
      const long ghost = side == 0 ? own.begin[a] - 1 : own.end[a];
      for_each(
          "ns::psi_outflow_ghost", layer(field.ghosted(), a, ghost),
          KOKKOS_LAMBDA(long i, long j, long k) { psi(i, j, k) = -at(psi, i, j, k, a, inward); });
    }
  }
}

void NavierStokes::project_initial() {
  project(m_u, 0.0);
  fill_value(m_psi, m_psi.ghosted(), 0.0);
  m_psi_scale = 0.0;
}

std::array<Field, 3> NavierStokes::make_velocity(const std::string& name) const {
  std::array<Field, 3> u;
  for (int c = 0; c < m_domain.dim(); ++c)
    u[c] = Field(m_domain, kFaces[c], kGhost, name + "_" + "uvw"[c]);
  return u;
}

void keep_copy(const Field& src, Field& dst) {
  if (dst.view().data() == nullptr)
    dst = Field(src.layout(), src.name() + "_tape", false); // written just below
  copy(src, dst);
}

void keep_copy(const Domain& domain, const std::array<Field, 3>& src, std::array<Field, 3>& dst) {
  for (int c = 0; c < domain.dim(); ++c)
    keep_copy(src[c], dst[c]);
}

void NavierStokes::step(double dt, StepTape* tape) {
  m_poisson_iterations = 0;
  m_viscous_iterations = 0;
  for (auto& f : m_forces)
    f = {0.0, 0.0, 0.0};
  if (m_params.scheme == TimeScheme::Rk3CrankNicolson) {
    step_rk3_crank_nicolson(dt, tape); // the pressure is part of its state
  } else {
    step_ssp_rk3(dt, tape);
    // psi = b dt p for the last stage.
    auto scope = m_timers.scope("projection");
    const FieldView p = m_p.view(), psi = m_psi.view();
    const double scale = 1.0 / (kSspRk3[2].b * dt);
    for_each(
        "ns::pressure", m_p.owned(),
        KOKKOS_LAMBDA(long i, long j, long k) { p(i, j, k) = scale * psi(i, j, k); });
  }
  m_time += dt;
  m_boundary_time = m_time;
  ++m_steps;
  if (tape)
    tape->forces = m_forces;
}

void NavierStokes::step_ssp_rk3(double dt, StepTape* tape) {
  // SSP-RK3 (kSspRk3) with a projection after every stage; the stages' weights in the final
  // combination also weight their forces.
  const double t0 = m_time;
  m_boundary_time = t0;
  prepare(m_u);
  update_feedback();
  if (tape) {
    tape->time = m_time;
    tape->dt = dt;
    keep_copy(m_domain, m_u, tape->u0);
  }
  std::array<Field, 3>* stage_out[3] = {&m_stage1, &m_stage2, &m_u};
  std::array<Field, 3>* taped[2] = {tape ? &tape->stage1 : nullptr, tape ? &tape->stage2 : nullptr};
  const std::array<Field, 3>* previous = &m_u;
  for (int s = 0; s < 3; ++s) {
    const RungeKuttaStage& r = kSspRk3[s];
    m_force_time = t0 + ssp_stage_start(s) * dt;
    m_boundary_time = t0 + r.c * dt; // the stage's time: its penalty target, its boundaries
    euler_combination(r.a, m_u, r.b, *previous, dt, *stage_out[s], r.force_weight);
    project(*stage_out[s], r.b * dt);
    if (s == 2)
      break;
    prepare(*stage_out[s]);
    if (tape)
      keep_copy(m_domain, *stage_out[s], *taped[s]);
    previous = stage_out[s];
  }
}

std::vector<std::pair<std::string, Field*>> NavierStokes::state_fields() {
  std::vector<std::pair<std::string, Field*>> out;
  for (int c = 0; c < m_domain.dim(); ++c)
    out.push_back({std::string(1, "uvw"[c]), &m_u[c]});
  out.push_back({"psi", &m_psi});
  out.push_back({"p", &m_p});
  return out;
}

void NavierStokes::restore_clock(double time, long steps, double psi_scale) {
  m_time = time;
  m_boundary_time = time;
  m_steps = steps;
  m_psi_scale = psi_scale;
}

double NavierStokes::stable_dt(double cfl) const {
  auto umax = max_velocity(*this);
  const bool imex = m_params.scheme == TimeScheme::Rk3CrankNicolson;
  // RK3-CN has no diffusive limit to fall back on: a flow at rest takes its scale from the
  // boundaries (a lid, an inflow) that will set it moving.
  const auto boundaries = max_boundary_velocity(*this);
  for (int c = 0; c < m_domain.dim() && imex; ++c)
    umax[c] = std::max(umax[c], boundaries[c]);
  double advective = 0, diffusive = 0;
  for (int c = 0; c < m_domain.dim(); ++c) {
    // On a stretched axis the narrowest cell bounds the limit (wherever the fastest flow is).
    const double h = m_domain.min_spacing(c);
    advective += umax[c] / h;
    // Rows next to a no-slip wall reach 16/3 / h^2 (quadratic ghost) instead of 4 / h^2. The
    // implicit viscous terms of RK3-CN have no such limit.
    if (!imex)
      diffusive += m_params.nu * (16.0 / 3.0) / (h * h);
  }
  const double limit_adv = advective > 0 ? std::sqrt(3.0) / advective : HUGE_VAL;
  const double limit_diff = diffusive > 0 ? 2.5 / diffusive : HUGE_VAL;
  const double limit = std::min(limit_adv, limit_diff);
  if (!std::isfinite(limit))
    throw ConfigError(imex ? "the flow is at rest and no boundary moves: time.scheme = imex has "
                             "no time scale to choose dt from; set time.dt"
                           : "the flow is at rest and inviscid: no time scale to choose dt from; "
                             "set time.dt");
  return cfl * limit;
}

double masked_sum_weight(const Domain& domain) {
  double volume = 1.0;
  for (int d = 0; d < domain.dim(); ++d)
    volume *= domain.spacing(d);
  return domain.all_uniform() ? volume : 1.0;
}

double masked_sum(const IndexSpace& space, const Field& mask, const FieldView& u, int dim,
                  const FieldView& target) {
  const FieldView m = mask.view();
  const GridGeometry g = mask.geometry();
  if (target.data())
    return local_sum(
        "ns::obstacle_force_actuated", space, KOKKOS_LAMBDA(long i, long j, long k, double& acc) {
          const double volume =
              g.uniform[0] && g.uniform[1] && g.uniform[2] ? 1.0 : g.control_volume(dim, i, j, k);
          acc += m(i, j, k) * (u(i, j, k) - target(i, j, k)) * volume;
        });
  if (g.uniform[0] && g.uniform[1] && g.uniform[2])
    return local_sum(
        "ns::obstacle_force", space,
        KOKKOS_LAMBDA(long i, long j, long k, double& acc) { acc += m(i, j, k) * u(i, j, k); });
  return local_sum(
      "ns::obstacle_force_stretched", space, KOKKOS_LAMBDA(long i, long j, long k, double& acc) {
        const double volume = g.control_volume(dim, i, j, k);
        acc += m(i, j, k) * u(i, j, k) * volume;
      });
}

void set_velocity(NavierStokes& ns, const VelocityFunction& f, double t) {
  for (int c = 0; c < ns.domain().dim(); ++c) {
    Field& u = ns.velocity(c);
    auto host = Kokkos::create_mirror_view(u.view());
    const GridGeometry g = u.geometry();
    const IndexSpace& o = u.owned();
    for (long k = o.begin[2]; k < o.end[2]; ++k)
      for (long j = o.begin[1]; j < o.end[1]; ++j)
        for (long i = o.begin[0]; i < o.end[0]; ++i)
          host(i, j, k) = f(c, g.coordinate(0, i), g.coordinate(1, j), g.coordinate(2, k), t);
    Kokkos::deep_copy(u.view(), host);
  }
}

std::pair<double, double> velocity_error(const NavierStokes& ns, const VelocityFunction& f,
                                         double t) {
  double squares = 0, worst = 0, count = 0;
  for (int c = 0; c < ns.domain().dim(); ++c) {
    const Field& u = ns.velocity(c);
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), u.view());
    const GridGeometry g = u.geometry();
    const IndexSpace& o = u.owned();
    for (long k = o.begin[2]; k < o.end[2]; ++k)
      for (long j = o.begin[1]; j < o.end[1]; ++j)
        for (long i = o.begin[0]; i < o.end[0]; ++i) {
          const double e =
              host(i, j, k) - f(c, g.coordinate(0, i), g.coordinate(1, j), g.coordinate(2, k), t);
          squares += e * e;
          worst = std::max(worst, std::abs(e));
          count += 1;
        }
  }
  const Communicator& comm = ns.domain().comm();
  return {std::sqrt(comm.sum(squares) / comm.sum(count)), comm.max(worst)};
}

} // namespace navier_stokes
} // namespace undertow
