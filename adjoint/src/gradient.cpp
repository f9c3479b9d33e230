#include "undertow/adjoint/gradient.hpp"

#include "navier_stokes_support.hpp"
#include "undertow/core/error.hpp"
#include "undertow/solvers/navier_stokes/diagnostics.hpp"
#include "undertow/solvers/navier_stokes/transposes.hpp"

namespace undertow {
namespace adjoint {

using navier_stokes::add_at;
using navier_stokes::design_on_face_gather;
using navier_stokes::NavierStokes;
using navier_stokes::StepTape;

GradientDriver::GradientDriver(const Domain& domain, ObjectiveBuilder objective, const Log& log,
                               long progress_every)
    : m_domain(domain), m_objective(std::move(objective)), m_log(log), m_every(progress_every) {}

std::unique_ptr<NavierStokes> GradientDriver::start(const Control& m) {
  auto ns = std::make_unique<NavierStokes>(m_domain, m.flow);
  for (int c = 0; c < m_domain.dim(); ++c) {
    fill_value(ns->velocity(c), ns->velocity(c).ghosted(), 0.0);
    axpy(1.0, m.initial[c], ns->velocity(c));
  }
  ns->project_initial();
  if (!m.initial_state.empty()) {
    for (const auto& named : ns->state_fields())
      for (const auto& given : m.initial_state)
        if (given.first == named.first)
          copy(given.second, *named.second);
    ns->restore_clock(0.0, 0, m.initial_psi_scale);
  }
  return ns;
}

StepSizes GradientDriver::choose_steps(const Control& m, double t_end, double dt, double cfl) {
  StepSizes dts;
  if (dt > 0) {
    const std::string warning = navier_stokes::unstable_dt_warning(*start(m), dt);
    if (!warning.empty())
      m_log.info(warning);
    // A fixed dt needs no run: the same clock arithmetic as NavierStokes::step.
    for (double t = 0; t < t_end * (1 - 1e-12);) {
      const double h = t + dt > t_end ? t_end - t : dt;
      dts.append(1, h);
      t += h;
    }
    return dts;
  }
  auto ns = start(m);
  SteppedModel<NavierStokes> stepper(*ns);
  Clock clock;
  clock.t_end = t_end;
  clock.cfl = cfl;
  Simulation sim(m_domain.comm(), stepper, clock);
  sim.add_callback("record dt", Cadence::steps(1), [&](Simulation& s) {
    if (has_nonfinite(*ns))
      throw CollectiveError(format("the forward run diverged at t = %.6e (dt = %.3e); reduce "
                                   "time.cfl or time.dt",
                                   ns->time(), s.dt()));
    dts.append(1, s.dt());
  });
  sim.run();
  return dts;
}

double GradientDriver::objective(const Control& m, const StepSizes& dts,
                                 std::vector<double>* terms) {
  auto ns = start(m);
  ObjectiveSum J = m_objective(*ns);
  if (terms)
    terms->assign(J.terms(), 0.0);
  Velocity3 state = ns->make_velocity("adj::state");
  double sum = 0;
  if (!dts.empty()) {
    SteppedModel<NavierStokes> stepper(*ns);
    Clock clock;
    clock.steps = dts.to_vector();
    Simulation sim(m_domain.comm(), stepper, clock);
    sim.add_callback("objective", Cadence::steps(1), [&](Simulation& s) {
      prepared_state(*ns, state);
      sum += J.value(StepState::after_step(*ns, s.step(), s.dt(), s.last_step(), state), terms);
    });
    sim.run();
  }
  if (!std::isfinite(sum))
    throw CollectiveError("the objective is not finite: the forward run diverged; reduce "
                          "time.cfl or time.dt");
  return sum;
}

namespace {

/// dchi/dmask_k (k = skip >= 0) or dchi/d(design on the face) (skip < 0) on the free faces of
/// component c, from chi = 1 - (1 - design) prod_k (1 - mask_k): the product of the factors
/// other than the one differentiated.
void chi_partial(const NavierStokes& ns, int c, int skip, Field& out) {
  const FieldView o = out.view();
  const IndexSpace& free = ns.free_faces(c);
  if (skip >= 0 && ns.params().obstacles.has_design()) {
    const FieldView rho = ns.design_face(c).view();
    for_each(
        "adj::chi_partial_design", free,
        KOKKOS_LAMBDA(long i, long j, long k) { o(i, j, k) = 1.0 - rho(i, j, k); });
  } else {
    fill_value(out, free, 1.0);
  }
  for (std::size_t k = 0; k < ns.obstacle_count(); ++k) {
    if (static_cast<int>(k) == skip)
      continue;
    const FieldView m = ns.mask(static_cast<int>(k), c).view();
    for_each(
        "adj::chi_partial", free,
        KOKKOS_LAMBDA(long i, long j, long kk) { o(i, j, kk) *= 1.0 - m(i, j, kk); });
  }
}

/// dJ/dmask_k on the free faces of component c: through the penalty (dJ/dchi dchi/dmask_k) and
/// through the force term of obstacle k. What the shape and viscosity gradients weight the
/// mask's derivatives with.
void mask_weight(const NavierStokes& ns, const NavierStokesAdjoint& adjoint, int k, int c,
                 Field& out) {
  chi_partial(ns, c, k, out);
  const FieldView w = out.view(), dchi = adjoint.chi_gradient()[c].view(),
                  dmask = adjoint.mask_force_gradient()[static_cast<std::size_t>(k)][c].view();
  for_each(
      "adj::mask_weight", ns.free_faces(c), KOKKOS_LAMBDA(long i, long j, long kk) {
        w(i, j, kk) = dchi(i, j, kk) * w(i, j, kk) + dmask(i, j, kk);
      });
}

} // namespace

std::vector<std::vector<double>> shape_gradient(const NavierStokes& ns,
                                                const NavierStokesAdjoint& adjoint) {
  const Domain& d = ns.domain();
  const navier_stokes::MaskSpec spec = ns.params().obstacles.mask_spec(d, ns.params().nu);
  std::vector<std::vector<double>> out;
  std::array<Field, 3> weights;
  for (int c = 0; c < d.dim(); ++c)
    weights[c] = Field(ns.total_mask(c).layout(), "adj::dJ_dmask");
  for (std::size_t k = 0; k < ns.obstacle_count(); ++k) {
    const navier_stokes::Shape& shape = ns.params().obstacles.shapes[k];
    for (int c = 0; c < d.dim(); ++c) // once per body, for all of its parameters
      mask_weight(ns, adjoint, static_cast<int>(k), c, weights[c]);
    std::vector<double> grad;
    for (const auto& p : navier_stokes::shape_parameters(shape, d.dim())) {
      const navier_stokes::BasicShape<Dual> ds = navier_stokes::seeded(shape, p.index);
      double local = 0;
      for (int c = 0; c < d.dim(); ++c) {
        const FieldView w = weights[c].view();
        const GridGeometry g = ns.total_mask(c).geometry();
        local += local_sum(
            "adj::shape_gradient", ns.free_faces(c),
            KOKKOS_LAMBDA(long i, long j, long kk, double& acc) {
              const Dual m = navier_stokes::face_mask(ds, g, i, j, kk, spec);
              if (m.d == 0.0)
                return;
              acc += w(i, j, kk) * m.d;
            });
      }
      grad.push_back(d.comm().sum(local));
    }
    out.push_back(grad);
  }
  return out;
}

double mask_viscosity_gradient(const NavierStokes& ns, const NavierStokesAdjoint& adjoint) {
  const navier_stokes::ObstacleSet& obstacles = ns.params().obstacles;
  if (obstacles.mask != navier_stokes::MaskKind::Interpolated || ns.obstacle_count() == 0)
    return 0.0;
  const Domain& d = ns.domain();
  const double nu = ns.params().nu;
  double local = 0;
  for (int c = 0; c < d.dim(); ++c) {
    Field weight(ns.total_mask(c).layout(), "adj::dJ_dmask");
    for (std::size_t k = 0; k < ns.obstacle_count(); ++k) {
      mask_weight(ns, adjoint, static_cast<int>(k), c, weight);
      const FieldView w = weight.view(), m = ns.mask(static_cast<int>(k), c).view();
      // mask = Q / (Q + phi / (eta nu)): dmask/dnu = mask (1 - mask) / nu.
      local += local_sum(
          "adj::mask_viscosity_gradient", ns.free_faces(c),
          KOKKOS_LAMBDA(long i, long j, long kk, double& acc) {
            acc += w(i, j, kk) * m(i, j, kk) * (1.0 - m(i, j, kk)) / nu;
          });
    }
  }
  return d.comm().sum(local);
}

Field design_gradient(NavierStokes& ns, const NavierStokesAdjoint& adjoint) {
  const Domain& d = ns.domain();
  Field g(d, Location::Cell, 1, "dJ_ddesign");
  const FieldView gv = g.view();
  for (int c = 0; c < d.dim(); ++c) {
    Field partial(ns.total_mask(c).layout(), "adj::dchi_ddesign");
    chi_partial(ns, c, -1, partial);
    const FieldView dchi_drho = partial.view(), dchi = adjoint.chi_gradient()[c].view();
    // Over the cells the free faces reach, in gather form (deterministic on every backend).
    const IndexSpace faces = ns.free_faces(c);
    IndexSpace cells = faces;
    cells.begin[c] -= 1;
    const long lo = faces.begin[c], hi = faces.end[c];
    for_each(
        "adj::design_on_face", cells, KOKKOS_LAMBDA(long i, long j, long k) {
          design_on_face_gather(gv, dchi, dchi_drho, c, lo, hi, i, j, k);
        });
  }
  // Transposes of the ghosts the forward solver gave the design field: boundary ghosts copy the
  // cell inside, halo ghosts come from the neighbours.
  const FieldView v = g.view();
  for (int a = d.dim() - 1; a >= 0; --a) {
    if (d.periodic(a))
      continue;
    for (int side = 1; side >= 0; --side) {
      if (!d.touches_boundary(a, side))
        continue;
      const long inward = side == 0 ? 1 : -1;
      const long ghost = side == 0 ? g.owned().begin[a] - 1 : g.owned().end[a];
      for_each(
          "adj::design_ghost", navier_stokes::layer(g.ghosted(), a, ghost),
          KOKKOS_LAMBDA(long i, long j, long k) {
            add_at(v, i, j, k, a, inward, v(i, j, k));
            v(i, j, k) = 0.0;
          });
    }
  }
  ns.cell_halo().scatter_add(g);
  return g;
}

} // namespace adjoint
} // namespace undertow
