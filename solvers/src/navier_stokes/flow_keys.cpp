#include "undertow/solvers/navier_stokes/flow_keys.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/log.hpp"
#include "undertow/solvers/linear/petsc_options.hpp"

#include <algorithm>
#include <cmath>

namespace undertow {
namespace navier_stokes {

namespace {
constexpr double kPi = 3.14159265358979323846;
}

void declare_flow_keys(ConfigSchema& s) {
  s.add("fluid.nu", ValueType::Real, "0.01", "kinematic viscosity [m^2/s]").above(0);
  s.add("fluid.body_force", ValueType::RealList, "0 0 0",
        "uniform body force per unit mass, one entry per axis [m/s^2]")
      .items(2, 3);
  control::TimeSignal::declare_keys(s, "fluid.body_force_signal", "fluid.body_force");
  BoundarySet::declare_keys(s);
  ObstacleSet::declare_keys(s);
  declare_actuator_keys(s);
  control::FeedbackPolicy::declare_keys(s);
  s.add("initial.type", ValueType::Choice, "rest",
        "initial velocity field: rest, taylor_green, abc, poiseuille, or file (the velocity of "
        "the restart file initial.file, from a run on any grid, interpolated onto this one and "
        "made divergence-free: e.g. a finer run started from a coarser run's developed flow)")
      .one_of({"rest", "taylor_green", "abc", "poiseuille", "file"});
  s.add("initial.file", ValueType::String, "",
        "with initial.type = file: a Navier-Stokes restart file (<output>/restart/"
        "restart_<step>.h5, path as given) whose box covers this one, with the same dimension and "
        "periodicity; its grid may differ. Times count from 0 (the file's time is logged)");
  s.add("initial.amplitude", ValueType::Real, "1",
        "velocity scale of the initial field (peak velocity for poiseuille) [m/s]");
  s.add("time.scheme", ValueType::Choice, "explicit",
        "time integration of the flow: explicit (SSP-RK3, every term explicit: dt is limited by "
        "diffusion, 2.5 h^2 / (16/3 nu dim), as well as by advection) or imex (RK3 for "
        "advection, Crank-Nicolson for the viscous terms, solved by BiCGStab: dt is limited by "
        "advection only; second order in time; the pressure is carried from step to step)")
      .one_of({"explicit", "imex"});
  s.add("time.imex_projection", ValueType::Choice, "every_substep",
        "time.scheme = imex: which of the three substeps are projected onto divergence-free "
        "fields. every_substep (three pressure solves a step) or last_substep (one: the first two "
        "substeps keep the step's starting pressure and are not divergence-free; about half the "
        "time per step where the pressure dominates, still second order in time but with larger "
        "temporal errors, 1.6 to 65 times in our tests: for runs to a steady state)")
      .one_of({"every_substep", "last_substep"});
  s.add("viscous.rtol", ValueType::Real, "1e-10",
        "time.scheme = imex: relative residual of the implicit viscous solves")
      .range(1e-15, 0.1);
  s.add("viscous.max_iterations", ValueType::Integer, "200",
        "time.scheme = imex: iteration limit of the implicit viscous solves")
      .at_least(1);
  s.add("pressure.rtol", ValueType::Real, "1e-10",
        "relative residual reduction of the pressure Poisson solve")
      .range(1e-15, 0.1);
  s.add("pressure.atol", ValueType::Real, "0",
        "absolute tolerance of the pressure Poisson solve: it also stops once the norm it tests "
        "(the 2-norm of the preconditioned residual, as PETSc's -ksp_atol) falls below this; 0 "
        "for none. At a steady state the projection's right-hand side shrinks and a relative "
        "reduction alone keeps every solve iterating; the divergence this leaves is printed as "
        "max|div u|. Forward runs only: gradient and optimize refuse it")
      .range(0.0, 1.0);
  s.add("pressure.max_iterations", ValueType::Integer, "1000",
        "iteration limit of the pressure Poisson solve")
      .at_least(1);
  s.add("pressure.preconditioner", ValueType::Choice, "auto",
        "preconditioner of the pressure CG: multigrid (our geometric multigrid), hypre "
        "(BoomerAMG), gamg, or auto (multigrid where the grid allows it, else hypre; hypre on "
        "stretched grids with PETSc's CG, where it is faster on CPUs). On 3D grids hypre gets "
        "HMIS coarsening, ext+i interpolation and P_max 4 unless PETSc options choose otherwise")
      .one_of({"auto", "multigrid", "hypre", "gamg"});
  s.add("pressure.smoother", ValueType::Choice, "auto",
        "smoother of the geometric multigrid: points (red-black Gauss-Seidel), lines "
        "(alternating zebra line relaxation: iterations independent of the stretching in 2D), or "
        "auto (points on uniform grids, lines on stretched ones)")
      .one_of({"auto", "points", "lines"});
  const long coarsest = linear::MultigridSpec::kDefaultMaxCoarsestCells;
  s.add("pressure.coarsest_cells", ValueType::Integer, std::to_string(coarsest),
        "the geometric multigrid halves its grid until it has at most this many cells (odd "
        "cell counts too, where no axis is even), then solves that grid directly. The default "
        "keeps a direct solve of up to 8192 cells (results as before); 1024 coarsens odd grids "
        "further at the same iterations, which makes the solve cheaper where the coarsest grid "
        "would otherwise be large (34% on 220x41, 1 rank; much smaller limits cost an iteration: "
        "docs/performance.md). Results change at the solver's tolerance")
      .range(1, double(coarsest));
  s.add("pressure.krylov", ValueType::Choice, "auto",
        "the pressure CG: petsc (PETSc's KSPCG on host vectors, any preconditioner), kokkos "
        "(our CG on the fields' own memory with the geometric multigrid: nothing crosses to the "
        "host), or auto (petsc on CPUs, kokkos on GPUs)")
      .one_of({"auto", "petsc", "kokkos"});
  s.add("pressure.petsc_options", ValueType::String, "",
        "PETSc options for the pressure solver, without prefix (e.g. '-pc_type hypre')");
}

namespace {

/// The policy keys: sensors inside the domain, a policy only with actuators, which then follow
/// it instead of signals.
void feedback_from_config(const Config& cfg, const Domain& domain, NavierStokesParams& params) {
  const auto points = cfg.get_real_list("policy.sensors");
  const int dim = domain.dim();
  if (cfg.get_string("policy.kind") == "none") {
    for (const char* key :
         {"policy.sensors", "policy.weights", "policy.hidden", "policy.saturate", "policy.seed"})
      if (cfg.is_given(key))
        throw ConfigError(std::string(key) +
                          " is given but policy.kind = none: set policy.kind (linear or "
                          "network), or remove the key");
    return;
  }
  if (params.actuators.empty())
    throw ConfigError("policy.kind is set but no body has an actuator for it to drive: give "
                      "obstacleK.jet_angles and .jet_velocity, or obstacleK.rotation_rate");
  if (points.empty() || points.size() % dim != 0)
    throw ConfigError("policy.sensors needs " + std::to_string(dim) +
                      " coordinates per sensor (x y" + (dim == 3 ? " z" : "") +
                      "), at least one "
                      "sensor; it has " +
                      std::to_string(points.size()) + " values");
  const DomainSpec& spec = domain.spec();
  for (std::size_t i = 0; i < points.size(); i += dim) {
    std::array<double, 3> x{0, 0, 0};
    for (int a = 0; a < dim; ++a) {
      x[a] = points[i + a];
      if (!(x[a] >= spec.origin[a] && x[a] <= spec.origin[a] + spec.length[a]))
        throw ConfigError("policy.sensors: sensor " + std::to_string(i / dim + 1) +
                          " lies outside the domain (its coordinate " + "xyz"[a] +
                          format(" = %g, the domain spans [%g, %g]); move it inside", x[a],
                                 spec.origin[a], spec.origin[a] + spec.length[a]));
    }
    params.sensors.push_back(x);
  }
  for (const Actuator& a : params.actuators)
    if (a.signal.varies())
      throw ConfigError(a.name() + "_signal is given but policy.kind drives " + a.name() +
                        ": the policy replaces the signal in time; remove one of them");
  params.policy =
      control::FeedbackPolicy::from_config(cfg, static_cast<int>(params.sensors.size()) * dim,
                                           static_cast<int>(params.actuators.size()));
}

} // namespace

NavierStokesParams flow_parameters(const Config& cfg, const Domain& domain) {
  NavierStokesParams params;
  params.nu = cfg.get_real("fluid.nu");
  const auto force = cfg.get_real_list("fluid.body_force");
  for (int a = 0; a < domain.dim() && a < static_cast<int>(force.size()); ++a)
    params.body_force[a] = force[a];
  params.body_force_signal = control::TimeSignal::from_config(cfg, "fluid.body_force_signal");
  if (params.body_force_signal.varies() && params.body_force == std::array<double, 3>{0, 0, 0})
    throw ConfigError("fluid.body_force_signal multiplies fluid.body_force, which is zero: set "
                      "fluid.body_force, or remove fluid.body_force_signal");
  params.boundaries = BoundarySet::from_config(cfg, domain.spec());
  params.obstacles = ObstacleSet::from_config(cfg, domain.dim());
  params.actuators = actuators_from_config(cfg, params.obstacles);
  feedback_from_config(cfg, domain, params);
  params.scheme =
      cfg.get_string("time.scheme") == "imex" ? TimeScheme::Rk3CrankNicolson : TimeScheme::SspRk3;
  params.imex_projection = cfg.get_string("time.imex_projection") == "last_substep"
                               ? ImexProjection::LastSubstep
                               : ImexProjection::EverySubstep;
  if (params.imex_projection == ImexProjection::LastSubstep &&
      params.scheme != TimeScheme::Rk3CrankNicolson)
    throw ConfigError("time.imex_projection = last_substep selects the projections of "
                      "time.scheme = imex, but time.scheme is explicit (SSP-RK3 projects every "
                      "stage): set time.scheme = imex, or remove time.imex_projection");
  params.viscous_rtol = cfg.get_real("viscous.rtol");
  params.viscous_max_iterations = static_cast<int>(cfg.get_int("viscous.max_iterations"));
  params.pressure.rtol = cfg.get_real("pressure.rtol");
  params.pressure.atol = std::max(cfg.get_real("pressure.atol"), params.pressure.atol); // 0: none
  params.pressure.max_iterations = static_cast<int>(cfg.get_int("pressure.max_iterations"));
  params.pressure.coarsest_cells = cfg.get_int("pressure.coarsest_cells");
  params.pressure.options = cfg.get_string("pressure.petsc_options");
  linear::option_names("pressure.petsc_options", params.pressure.options); // checked now
  {
    using P = linear::PressurePreconditioner;
    const std::string pc = cfg.get_string("pressure.preconditioner");
    params.pressure.preconditioner = pc == "multigrid" ? P::Multigrid
                                     : pc == "hypre"   ? P::Hypre
                                     : pc == "gamg"    ? P::Gamg
                                                       : P::Auto;
    const std::string smoother = cfg.get_string("pressure.smoother");
    params.pressure.smoother = smoother == "points"  ? linear::MultigridSmoother::Points
                               : smoother == "lines" ? linear::MultigridSmoother::Lines
                                                     : linear::MultigridSmoother::Auto;
    const std::string krylov = cfg.get_string("pressure.krylov");
    params.pressure.krylov = krylov == "petsc"    ? linear::PressureKrylov::Petsc
                             : krylov == "kokkos" ? linear::PressureKrylov::Kokkos
                                                  : linear::PressureKrylov::Auto;
  }
  return params;
}

VelocityFunction initial_field(const std::string& type, double amplitude, const Domain& d,
                               double nu, bool& exact) {
  const double k[3] = {2 * kPi / d.spec().length[0], 2 * kPi / d.spec().length[1],
                       2 * kPi / d.spec().length[2]};
  const double o[3] = {d.spec().origin[0], d.spec().origin[1], d.spec().origin[2]};
  exact = false;
  if (type == "taylor_green") {
    exact = d.dim() == 2; // the 3D Taylor-Green vortex has no closed-form solution
    const bool three = d.dim() == 3;
    return [=](int c, double x, double y, double z, double t) {
      const double X = k[0] * (x - o[0]), Y = k[1] * (y - o[1]), Z = k[2] * (z - o[2]);
      const double decay = three ? 1.0 : std::exp(-nu * (k[0] * k[0] + k[1] * k[1]) * t);
      const double cz = three ? std::cos(Z) : 1.0;
      if (c == 0)
        return amplitude * std::sin(X) * std::cos(Y) * cz * decay;
      if (c == 1)
        return -amplitude * k[0] / k[1] * std::cos(X) * std::sin(Y) * cz * decay;
      return 0.0;
    };
  }
  if (type == "abc") {
    if (d.dim() != 3 || k[0] != k[1] || k[1] != k[2])
      throw ConfigError("initial.type = abc needs a 3D cube (domain.dim = 3, equal lengths)");
    exact = true;
    return [=](int c, double x, double y, double z, double t) {
      const double X = k[0] * (x - o[0]), Y = k[0] * (y - o[1]), Z = k[0] * (z - o[2]);
      const double decay = std::exp(-nu * k[0] * k[0] * t);
      const double v[3] = {std::sin(Z) + 0.4 * std::cos(Y), 0.7 * std::sin(X) + std::cos(Z),
                           0.4 * std::sin(Y) + 0.7 * std::cos(X)};
      return amplitude * v[c] * decay;
    };
  }
  if (type == "poiseuille") {
    exact = true; // steady when driven consistently (body force 8 nu U / H^2, or inflow)
    const double H = d.spec().length[1];
    return [=](int c, double, double y, double, double) {
      const double s = (y - o[1]) / H;
      return c == 0 ? 4.0 * amplitude * s * (1.0 - s) : 0.0;
    };
  }
  return [](int, double, double, double, double) {
    return 0.0;
  };
}

} // namespace navier_stokes
} // namespace undertow
