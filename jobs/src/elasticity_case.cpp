/// The elasticity model for `undertow run`: one static solve, minimum-compliance topology
/// optimisation (topology.enabled, topology_case.cpp) or a Newmark run (dynamics.enabled,
/// elastodynamics_case.cpp); fields to HDF5/XDMF, the solve to diagnostics.csv, figures for
/// --report, and the case's reference check.

#include "elasticity_case.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/reductions.hpp"
#include "undertow/core/version.hpp"
#include "undertow/io/csv.hpp"
#include "undertow/io/files.hpp"
#include "undertow/io/snapshot_series.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>

namespace undertow {
namespace jobs {

namespace {

using elasticity::LinearElasticity;

const char* kComponents[6] = {"xx", "yy", "zz", "xy", "yz", "zx"};

void declare_elasticity_keys(ConfigSchema& s) {
  elasticity::ElasticitySpec::declare_keys(s);
  optimisation::TopologySettings::declare_keys(s);
  s.add("output.snapshot_every", ValueType::Integer, "10",
        "topology: write the densities (XDMF series and PNG) every this many iterations; the "
        "first and last are always written (0: those only)")
      .at_least(0);
  s.add("output.png", ValueType::Boolean, "true",
        "topology: also write each density snapshot as a greyscale PNG (2D; mid-plane in 3D)");
  s.add("check.compliance", ValueType::Real, "0",
        "--check: the reference compliance [J] (0: not checked)")
      .at_least(0);
  s.add("check.compliance_rtol", ValueType::Real, "1e-6",
        "--check: allowed relative deviation from check.compliance")
      .above(0);
  s.add("check.iterations", ValueType::Integer, "0",
        "--check: the reference number of topology iterations (0: not checked)")
      .at_least(0);
  s.add("check.probe", ValueType::RealList, "0 0 0",
        "--check and report: a node [m] whose displacement is reported, one entry per axis")
      .items(2, 3);
  s.add("check.probe_displacement", ValueType::RealList, "0 0 0",
        "--check: the reference displacement [m] at check.probe (components to check: those "
        "nonzero)")
      .items(2, 3);
  s.add("check.probe_rtol", ValueType::Real, "0.01",
        "--check: allowed relative deviation of each nonzero component of "
        "check.probe_displacement")
      .above(0);
  declare_elastodynamics_keys(s);
}

} // namespace

ElasticityFieldWriter::ElasticityFieldWriter(const RunContext& ctx, const std::string& time_meaning,
                                             long continued_from)
    : m_attributes{{"undertow_version", UNDERTOW_VERSION_STRING},
                   {"config_hash", ctx.config.hash()},
                   {"units", "lengths and displacements m, velocity m/s, stress Pa (per unit "
                             "thickness in 2D), strain 1 (tensor components), density 1; 'time' "
                             "is " +
                                 time_meaning},
                   {"layout", "global arrays, slowest axis first (z, y, x); displacement and "
                              "velocity on the vertices, the rest on the elements"}},
      m_series(ctx.domain, ctx.output_dir, "fields", m_attributes, continued_from),
      m_vm(ctx.domain, Location::Cell, 0, "von_mises") {
  for (int q = 0; q < 6; ++q) {
    m_strain[q] = Field(ctx.domain, Location::Cell, 0, "strain");
    m_stress[q] = Field(ctx.domain, Location::Cell, 0, "stress");
  }
}

bool ElasticityFieldWriter::write(long step, double time, const LinearElasticity& s,
                                  const elasticity::NodeVector& u,
                                  const elasticity::NodeVector* v) {
  if (!m_series.begin(step, time))
    return false;
  const int dim = s.dim();
  for (int c = 0; c < dim; ++c)
    m_series.node(std::string("displacement_") + "xyz"[c], u[c]);
  if (v)
    for (int c = 0; c < dim; ++c)
      m_series.node(std::string("velocity_") + "xyz"[c], (*v)[c]);
  s.strain_and_stress(u, m_strain, m_stress, m_vm);
  const int components = dim == 2 ? 4 : 6; // 2D: xx yy zz xy
  for (int q = 0; q < components; ++q) {
    m_series.cell(std::string("strain_") + kComponents[q], m_strain[q]);
    m_series.cell(std::string("stress_") + kComponents[q], m_stress[q]);
  }
  m_series.cell("von_mises", m_vm);
  m_series.cell("density", s.density());
  m_series.commit();
  return true;
}

ElasticityProbe ElasticityProbe::from_config(const Config& cfg, int dim) {
  ElasticityProbe p;
  p.given = cfg.is_given("check.probe");
  p.has_reference = cfg.is_given("check.probe_displacement");
  const auto point = cfg.get_real_list("check.probe");
  const auto ref = cfg.get_real_list("check.probe_displacement");
  if (p.given && static_cast<int>(point.size()) != dim)
    throw ConfigError("check.probe needs " + std::to_string(dim) + " coordinates [m]");
  if (p.has_reference && !p.given)
    throw ConfigError("check.probe_displacement is given without check.probe: name the node");
  for (int a = 0; a < dim && a < static_cast<int>(point.size()); ++a)
    p.point[a] = point[a];
  for (int a = 0; a < dim && a < static_cast<int>(ref.size()); ++a)
    p.reference[a] = ref[a];
  if (p.has_reference && p.reference[0] == 0 && p.reference[1] == 0 && p.reference[2] == 0)
    throw ConfigError("check.probe_displacement is zero in every component, so --check would "
                      "compare nothing: give the nonzero reference components [m]");
  return p;
}

void ElasticityProbe::check(const Config& cfg, int dim, const std::array<double, 3>& measured,
                            bool& ok, std::string& summary) const {
  if (!has_reference)
    return;
  const double allowed = cfg.get_real("check.probe_rtol");
  for (int c = 0; c < dim; ++c) {
    const double ref = reference[c];
    if (ref == 0)
      continue;
    const double rel = std::abs(measured[c] - ref) / std::abs(ref);
    ok = ok && rel <= allowed;
    summary += (summary.empty() ? "" : "; ") + std::string("u_") + "xyz"[c] +
               format(" at the probe %.6e m against %.6e (relative deviation %.2e", measured[c],
                      ref, rel) +
               format(", allowed %.1e)", allowed);
  }
}

namespace {

/// Why this elasticity run writes no restart files (empty: a dynamic run writes them). Not
/// collective.
std::string elasticity_without_restart_files(const Config& cfg) {
  if (cfg.get_bool("dynamics.enabled") || cfg.get_bool("topology.enabled"))
    return "";
  return "a static elasticity solve writes no restart files: it has one solve, no steps to stop "
         "between (dynamic runs and topology optimisation write them)";
}

/// The case's keys that a static or topology run refuses, and the references --check needs.
/// Throws ConfigError. Not collective.
void validate_elasticity_case(const RunContext& ctx, const ElasticityProbe& probe) {
  const Config& cfg = ctx.config;
  const bool topology = cfg.get_bool("topology.enabled");
  const bool dynamic = cfg.get_bool("dynamics.enabled");
  if (!ctx.restart_file.empty() && !dynamic && !topology)
    throw ConfigError("--restart: " + elasticity_without_restart_files(cfg) +
                      "; run the case again without --restart");
  if (!dynamic && !topology)
    for (const char* key : {"restart.every", "restart.at_step", "restart.keep"})
      if (cfg.is_given(key))
        throw ConfigError(std::string(key) +
                          " applies to the restart files of a dynamic run or a topology "
                          "optimisation, and this is a static solve: remove it");
  const double c_ref = cfg.get_real("check.compliance");
  const long iterations_ref = cfg.get_int("check.iterations");
  if (topology && dynamic)
    throw ConfigError("topology.enabled and dynamics.enabled are both set: topology "
                      "optimisation is static (minimum compliance); enable one of them");
  if (dynamic && (c_ref > 0 || iterations_ref > 0))
    throw ConfigError("check.compliance and check.iterations refer to a static run or topology "
                      "iterations; a dynamic run checks check.frequency, "
                      "check.energy_balance_max or check.probe_displacement");
  const bool has_reference = c_ref > 0 || iterations_ref > 0 || probe.has_reference;
  if (ctx.check_requested && !dynamic && !has_reference)
    throw ConfigError("--check needs a reference: set check.compliance, check.iterations or "
                      "check.probe_displacement in [check]");
  if (!dynamic)
    for (const char* key :
         {"time.t_end", "time.dt", "time.cfl", "fields.every", "dynamics.beta", "dynamics.gamma",
          "dynamics.rayleigh_mass", "dynamics.rayleigh_stiffness", "dynamics.load_history",
          "dynamics.load_period", "check.frequency", "check.frequency_rtol",
          "check.frequency_after", "check.energy_balance_max"})
      if (cfg.is_given(key))
        throw ConfigError(std::string(key) + " applies to a dynamic run, but dynamics.enabled = "
                                             "false: set dynamics.enabled = true or remove it");
  if (iterations_ref > 0 && !topology)
    throw ConfigError("check.iterations counts topology iterations: set topology.enabled = true "
                      "or remove it");
}

/// One static solve: its compliance, in the log, diagnostics.csv and the figures. Collective.
double static_solve(const RunContext& ctx, LinearElasticity& solver, RunResult& result) {
  const auto start = std::chrono::steady_clock::now();
  const elasticity::SolveInfo info = solver.solve();
  result.timers.add("solve", seconds_since(start));
  const double compliance = solver.compliance();
  ctx.log.info(format("solved in %.0f iterations (residual %.3e): compliance %.10e J",
                      double(info.iterations), info.residual, compliance));
  result.figures["solver_iterations"] = double(info.iterations);
  io::CsvSeries csv(ctx.domain.comm(), ctx.output_dir + "/diagnostics.csv",
                    {"iteration", "compliance", "solver_iterations"});
  csv.append({0.0, compliance, double(info.iterations)});
  return compliance;
}

/// The --check of a static or topology run: compliance, iterations, the probe's displacement.
/// Not collective.
void check_elasticity(const RunContext& ctx, const ElasticityProbe& probe, double compliance,
                      long design_iterations, const std::array<double, 3>& u_probe,
                      RunResult& result) {
  const Config& cfg = ctx.config;
  const double c_ref = cfg.get_real("check.compliance");
  const long iterations_ref = cfg.get_int("check.iterations");
  result.has_reference = c_ref > 0 || iterations_ref > 0 || probe.has_reference;
  if (!result.has_reference)
    return;
  bool ok = true;
  std::string summary;
  if (c_ref > 0) {
    const double rel = std::abs(compliance - c_ref) / c_ref;
    const double allowed = cfg.get_real("check.compliance_rtol");
    ok = ok && rel <= allowed;
    summary +=
        format("compliance %.10e against %.10e (relative deviation %.2e", compliance, c_ref, rel) +
        format(", allowed %.1e)", allowed);
  }
  if (iterations_ref > 0) {
    ok = ok && design_iterations == iterations_ref;
    summary +=
        (summary.empty() ? "" : "; ") +
        format("%.0f iterations against %.0f", double(design_iterations), double(iterations_ref));
  }
  probe.check(cfg, ctx.domain.dim(), u_probe, ok, summary);
  result.check_passed = ok;
  result.check_summary = summary;
}

} // namespace

io::InSituFrame elasticity_frame(io::InSituBuilder& builder, const LinearElasticity& solver,
                                 const elasticity::NodeVector& u, const elasticity::NodeVector* v,
                                 long step, double time) {
  const Domain& d = solver.domain();
  io::InSituFrame frame = builder.begin(step, time);
  Field zero(d, Location::Node, 0, "insitu::zero");
  auto vector = [&](const elasticity::NodeVector& x) {
    return std::vector<const Field*>{&x[0], &x[1], d.dim() == 3 ? &x[2] : &zero};
  };
  builder.point(frame, "displacement", vector(u));
  if (v)
    builder.point(frame, "velocity", vector(*v));
  std::array<Field, 6> strain, stress;
  for (int q = 0; q < 6; ++q) {
    strain[q] = Field(d, Location::Cell, 0, "insitu::strain");
    stress[q] = Field(d, Location::Cell, 0, "insitu::stress");
  }
  Field von_mises(d, Location::Cell, 0, "insitu::von_mises");
  solver.strain_and_stress(u, strain, stress, von_mises);
  builder.cell(frame, "von_mises", {&von_mises});
  builder.maximum(frame, "von_mises");
  builder.maximum(frame, "displacement");
  builder.cell(frame, "density", {&solver.density()});
  frame.metadata["units"] = "lengths and displacements m, velocity m/s, von Mises stress Pa "
                            "(per unit thickness in 2D), density 1";
  return frame;
}

std::unique_ptr<InSituOutput> elasticity_insitu(const RunContext& ctx) {
  return std::make_unique<InSituOutput>(ctx.config, ctx.domain, ctx.case_file, ctx.output_dir,
                                        insitu_metadata(ctx.config, ctx.case_file, "run"), ctx.log);
}

namespace {

RunResult run_elasticity(const RunContext& ctx) {
  const Config& cfg = ctx.config;
  const int dim = ctx.domain.dim();
  const ElasticityProbe probe = ElasticityProbe::from_config(cfg, dim);
  validate_elasticity_case(ctx, probe);
  const auto spec = elasticity::ElasticitySpec::from_config(cfg, dim);
  LinearElasticity solver(ctx.domain, spec);
  if (probe.given) // a probe between nodes is refused now, not after the run
    solver.node_value_at(solver.displacement(), probe.point);
  ctx.log.info(format("elasticity: %.0f displacement unknowns, E0 = %g Pa, nu = %g",
                      double(solver.global_dofs()), spec.simp.E0, spec.poisson) +
               (dim == 2 ? (spec.plane_stress ? ", plane stress" : ", plane strain") : "") +
               (spec.solver == elasticity::LinearSolver::Direct ? ", MUMPS LU" : ", CG + GAMG"));

  if (cfg.get_bool("dynamics.enabled"))
    return run_elastodynamics(ctx, solver, probe);
  std::unique_ptr<TopologyRun> topology;
  if (cfg.get_bool("topology.enabled"))
    topology = std::make_unique<TopologyRun>(ctx, solver); // reads a restart file
  ctx.accept();
  ElasticityFieldWriter fields(ctx, "the design iteration");
  const auto insitu = elasticity_insitu(ctx);
  RunResult result;
  auto& f = result.figures;
  long design_iterations = 0;
  double compliance = 0;
  if (!topology) {
    // The pipelines see the unloaded body first (a broken script stops the run before the
    // solve), then the solution as step 1.
    const auto frame = [&](io::InSituBuilder& b, long step, double time) {
      return elasticity_frame(b, solver, solver.displacement(), nullptr, step, time);
    };
    insitu->execute(frame, 0, 0.0);
    compliance = static_solve(ctx, solver, result);
    insitu->execute(frame, 1, 1.0);
  } else {
    design_iterations = topology->run(fields, *insitu, result, compliance);
  }
  if (insitu->active())
    ctx.log.info(insitu->summary());
  f["compliance"] = compliance;
  f["unknowns"] = double(solver.global_dofs());
  f["solver_iterations_total"] = double(solver.total_iterations());
  fields.write(design_iterations, double(design_iterations), solver, solver.displacement(),
               nullptr);
  f["von_mises_max"] = global_max(ctx.domain.comm(), fields.von_mises());
  ctx.log.info("fields: " + fields.xdmf_path());

  std::array<double, 3> u_probe{0, 0, 0};
  if (probe.given) {
    u_probe = solver.node_value_at(solver.displacement(), probe.point);
    for (int c = 0; c < dim; ++c)
      f["probe_displacement"][std::string(1, "xyz"[c])] = u_probe[c];
    ctx.log.info(format("displacement at the probe: (%.10e, %.10e, %.10e) m", u_probe[0],
                        u_probe[1], u_probe[2]));
  }
  check_elasticity(ctx, probe, compliance, design_iterations, u_probe, result);
  return result;
}

} // namespace

Model elasticity_model() {
  return {"elasticity",
          "linear elasticity, Q1 finite elements, CG + GAMG; static solve or SIMP topology "
          "optimisation (OC, density filter)",
          &declare_elasticity_keys,
          &run_elasticity,
          [](int dim) { return dim == 2 ? 4000.0 : 30000.0; },
          &elasticity_without_restart_files};
}

} // namespace jobs
} // namespace undertow
