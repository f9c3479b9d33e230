/// `undertow optimize CASE.ini [--resume DIR] [--taylor] [--set k=v ...] [--output DIR]
///  [--report FILE.json]`: shape optimisation of a Navier-Stokes case with TAO and adjoint
/// gradients (docs/optimization.md).

#include "adjoint_job.hpp"
#include "checkpoint_plan.hpp"
#include "command_line.hpp"
#include "commands.hpp"
#include "field_output.hpp"
#include "models.hpp"
#include "navier_stokes_setup.hpp"

#include "undertow/adjoint/parameters.hpp"
#include "undertow/adjoint/shape_optimiser.hpp"
#include "undertow/core/error.hpp"
#include "undertow/core/version.hpp"
#include "undertow/io/csv.hpp"
#include "undertow/io/files.hpp"
#include "undertow/io/json.hpp"

#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace po = boost::program_options;

namespace undertow {
namespace jobs {

namespace {

using adjoint::Control;
using adjoint::Evaluation;
using adjoint::IterationRecord;

struct OptimizeOptions {
  std::string case_file, output, report, resume;
  std::vector<std::string> overrides;
  bool taylor = false;
  long stop_after_evaluations = -1, fail_evaluation = -1;
};

bool parse(const Communicator& comm, const std::vector<std::string>& args, OptimizeOptions& o) {
  po::options_description d("Options of 'undertow optimize CASE.ini'");
  d.add_options()("set", po::value<std::vector<std::string>>()->composing(),
                  "override a case-file key: --set section.key=value (repeatable)")(
      "output", po::value<std::string>(), "output directory (overrides output.dir)")(
      "report", po::value<std::string>(), "write the optimisation's summary to this JSON file")(
      "resume", po::value<std::string>(),
      "continue an interrupted optimisation from the evaluation journal in this directory "
      "(its output directory); same case, --set options and rank count")(
      "taylor", po::bool_switch(),
      "Taylor remainder tests of J(x) at the initial and the final design; exit 1 if a rate is "
      "below adjoint.taylor_min_rate")("help,h", "print this help");
  po::options_description hidden;
  hidden.add_options()("stop-after-evaluations", po::value<long>(),
                       "testing aid: stop (as a killed run) after this many new evaluations")(
      "fail-evaluation", po::value<long>(),
      "testing aid: the flow solve of this evaluation (1-based) fails as a diverged one");
  po::variables_map vm;
  if (!parse_case_command(comm, args, "optimize",
                          "undertow optimize CASE.ini [--resume DIR] [--taylor] [--set "
                          "section.key=value ...] [--output DIR] [--report FILE.json]",
                          d, hidden, vm))
    return false;
  o.case_file = vm["case"].as<std::string>();
  if (vm.count("set"))
    o.overrides = vm["set"].as<std::vector<std::string>>();
  if (vm.count("output"))
    o.output = vm["output"].as<std::string>();
  if (vm.count("report"))
    o.report = vm["report"].as<std::string>();
  if (vm.count("resume"))
    o.resume = vm["resume"].as<std::string>();
  if (vm.count("fail-evaluation"))
    o.fail_evaluation = vm["fail-evaluation"].as<long>();
  if (vm.count("stop-after-evaluations"))
    o.stop_after_evaluations = vm["stop-after-evaluations"].as<long>();
  o.taylor = vm["taylor"].as<bool>();
  return true;
}

/// Bounds of each variable: radius_bounds for r0, +-coefficient_bound for the coefficients.
void bounds_from(const Config& cfg, const adjoint::ShapeDesign& design, std::vector<double>& lo,
                 std::vector<double>& hi) {
  const auto radius = cfg.get_real_list("design.radius_bounds");
  if (radius.size() != 2 || !(radius[0] > 0) || !(radius[1] > radius[0]))
    throw ConfigError("design.radius_bounds needs two numbers 0 < lower < upper [m]");
  const double c = cfg.get_real("design.coefficient_bound");
  const auto weights = cfg.get_real_list("design.weight_bounds");
  const auto angle = cfg.get_real_list("design.angle_bounds");
  if (!(weights[1] > weights[0]) || !(angle[1] > angle[0]))
    throw ConfigError("design.weight_bounds and design.angle_bounds need lower < upper");
  const auto ends_with = [](const std::string& s, const std::string& tail) {
    return s.size() > tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  for (const std::string& name : design.names()) {
    if (ends_with(name, ".r0")) {
      lo.push_back(radius[0]);
      hi.push_back(radius[1]);
    } else if (ends_with(name, ".angle_of_attack")) {
      lo.push_back(angle[0] * M_PI / 180);
      hi.push_back(angle[1] * M_PI / 180);
    } else if (name.find(".cst_") != std::string::npos) {
      lo.push_back(weights[0]);
      hi.push_back(weights[1]);
    } else {
      lo.push_back(-c);
      hi.push_back(c);
    }
  }
}

/// The outline as CSV (x,y per line), written atomically by rank 0.
void write_outline(const Communicator& comm, const adjoint::ShapeDesign& design,
                   const std::vector<double>& x, int points, const std::string& path) {
  run_on_root(comm, [&] {
    std::string text = "x,y\n";
    char line[96];
    for (const auto& p : design.outline(x, points)) {
      std::snprintf(line, sizeof line, "%.10g,%.10g\n", p[0], p[1]);
      text += line;
    }
    io::write_file_atomic(path, text);
  });
}

/// --set options that give `undertow run` the design x (the star's radius and coefficients).
std::string design_as_settings(const Control& m, int obstacle) {
  const navier_stokes::Shape& s = m.flow.obstacles.shapes[static_cast<std::size_t>(obstacle)];
  const std::string key = "obstacle" + std::to_string(obstacle + 1);
  if (s.kind == navier_stokes::ShapeKind::Cst) {
    std::string upper, lower;
    for (int i = 0; i < s.harmonics; ++i) {
      upper += (i ? "," : "") + format("%.17g", s.cos_coeff[i]);
      lower += (i ? "," : "") + format("%.17g", s.sin_coeff[i]);
    }
    return "--set " + key + format(".angle=%.17g", s.angle * 180 / M_PI) + " --set " + key +
           ".cst_upper=" + upper + " --set " + key + ".cst_lower=" + lower;
  }
  std::string out = "--set " + key + format(".radius=%.17g --set ", s.radius) + key + ".fourier=";
  for (int k = 0; k < s.harmonics; ++k)
    out += (k ? "," : "") + format("%.17g,", s.cos_coeff[k]) + format("%.17g", s.sin_coeff[k]);
  return out;
}

} // namespace

void declare_optimize_keys(ConfigSchema& s) {
  s.add("design.parameterisation", ValueType::Choice, "fourier_star",
        "undertow optimize: how the design variables set the shape; fourier_star: the radius "
        "r0 and Fourier coefficients of a star obstacle (shape = star); cst_airfoil: the "
        "angle of attack and Bernstein weights of a CST airfoil (shape = cst)")
      .one_of({"fourier_star", "cst_airfoil"});
  s.add("design.obstacle", ValueType::Integer, "1", "undertow optimize: the obstacle designed")
      .at_least(1);
  s.add("design.variables", ValueType::String, "cos_coeff_2 cos_coeff_3 cos_coeff_4",
        "undertow optimize: the design variables, of r0, cos_coeff_K, sin_coeff_K (K up to the "
        "star's harmonics; K = 1 is a translation); r0 only without optimize.area = fixed, "
        "which sets it from the area");
  s.add("design.radius_bounds", ValueType::RealList, "0.01 100",
        "undertow optimize: lower and upper bound of r0 [m]")
      .items(2, 2);
  s.add("design.coefficient_bound", ValueType::Real, "1",
        "undertow optimize: bound of each Fourier coefficient, |a_k|, |b_k| <= this [m]")
      .above(0);
  s.add("design.weight_bounds", ValueType::RealList, "0.02 0.6",
        "undertow optimize: lower and upper bound of each CST weight (dimensionless)")
      .items(2, 2);
  s.add("design.angle_bounds", ValueType::RealList, "-10 15",
        "undertow optimize: lower and upper bound of a CST airfoil's angle of attack [deg]")
      .items(2, 2);
  s.add("design.min_thickness", ValueType::Real, "0",
        "undertow optimize: the least thickness [m] at each of design.thickness_stations, an "
        "inequality constraint of TAOALMM (0: none)")
      .at_least(0);
  s.add("design.thickness_stations", ValueType::RealList, "",
        "undertow optimize: where design.min_thickness holds: chord fractions psi in (0, 1) of "
        "a CST airfoil (its surfaces' distance there), directions theta [deg] of a star (its "
        "width r(theta) + r(theta + 180) through the centre); empty: psi = 0.1 ... 0.6, or "
        "every 10 degrees")
      .items(0, 64);
  s.add("optimize.objective", ValueType::Choice, "weighted",
        "undertow optimize: weighted minimises the [objective] sum; lift_to_drag maximises "
        "lift/drag (minimises -C_L/C_D; two forward runs and one adjoint sweep per design); "
        "drag_at_lift minimises C_D with C_L = optimize.lift_target, an equality constraint of "
        "TAOALMM (two forward runs and two adjoint sweeps per design); both with "
        "objective.terms = lift drag, each averaged or final as objective.time says")
      .one_of({"weighted", "lift_to_drag", "drag_at_lift"});
  s.add("optimize.lift_target", ValueType::String, "initial",
        "undertow optimize, objective = drag_at_lift: the lift coefficient the design keeps, a "
        "number, or initial for that of the initial design");
  s.add("optimize.area", ValueType::Choice, "fixed",
        "undertow optimize: fixed holds the body's area at its initial value exactly, r0 "
        "following from the coefficients (TAOBLMVM on them); almm holds it as an equality "
        "constraint of TAO's augmented Lagrangian (TAOALMM, BLMVM subproblems; r0 a variable); "
        "free has bounds only (TAOBLMVM)")
      .one_of({"fixed", "almm", "free"});
  s.add("optimize.max_iterations", ValueType::Integer, "20",
        "undertow optimize: the most design iterations (of BLMVM, or of each augmented "
        "Lagrangian subproblem)")
      .at_least(1);
  s.add("optimize.gradient_tolerance", ValueType::Real, "1e-3",
        "undertow optimize: stop when the projected gradient's norm (of the Lagrangian) falls "
        "below this [units of J per unit of x], and, with constraints (TAOALMM), each "
        "constraint's violation too (the relative area deviation, |C_L - C_L*|, a thickness's "
        "relative shortfall)")
      .above(0);
  s.add("optimize.petsc_options", ValueType::String, "",
        "undertow optimize: PETSc options for the TAO solver, with the prefix optimize_ (e.g. "
        "-optimize_tao_ls_type armijo, or -optimize_tao_almm_type classic "
        "-optimize_tao_almm_mu_init 100 for the classic augmented Lagrangian)");
  s.add("optimize.fields_every", ValueType::Integer, "0",
        "undertow optimize: write the flow of the design (its state at time.t_end, one more "
        "forward run) to <output>/flow/ every this many design iterations, as an XDMF series "
        "over the iterations; the final design's is always written")
      .at_least(0);
  s.add("optimize.shape_points", ValueType::Integer, "256",
        "undertow optimize: points of each outline written to shapes/")
      .at_least(8);
}

int command_optimize(const Communicator& comm, const std::vector<std::string>& args) {
  OptimizeOptions opt;
  if (!parse(comm, args, opt))
    return kSuccess;
  const LoadedCase loaded =
      load_case(comm, opt.case_file, opt.overrides, !opt.resume.empty() ? opt.resume : opt.output);
  AdjointJob job(comm, loaded, "optimize", opt.case_file, "", 0);
  const Config& cfg = loaded.config;
  const Domain& domain = job.domain;
  const int dim = domain.dim();
  const Log& log = job.log;
  const std::string& dir = loaded.output_dir;
  run_on_root(comm, [&] { io::make_directories(dir + "/shapes"); });
  adjoint::GradientDriver& driver = job.driver;
  const Control m0 = job.m;
  const int obstacle = static_cast<int>(cfg.get_int("design.obstacle")) - 1;
  const std::string area_mode = cfg.get_string("optimize.area");
  const bool cst = cfg.get_string("design.parameterisation") == "cst_airfoil";
  if (cst && area_mode == "fixed")
    throw ConfigError("optimize.area = fixed holds a star's area through r0; a CST airfoil "
                      "holds it with optimize.area = almm, or leaves it free");
  const auto design =
      cst ? adjoint::make_cst_design(m0, dim, obstacle, cfg.get_words("design.variables"))
          : adjoint::make_star_design(m0, dim, obstacle, cfg.get_words("design.variables"),
                                      area_mode == "fixed",
                                      cfg.get_real("design.coefficient_bound"));
  adjoint::OptimiserSettings settings;
  bounds_from(cfg, *design, settings.lower, settings.upper);
  settings.hold_area = area_mode == "almm";
  settings.min_thickness = cfg.get_real("design.min_thickness");
  settings.thickness_stations = cfg.get_real_list("design.thickness_stations");
  if (settings.thickness_stations.empty())
    settings.thickness_stations = design->default_thickness_stations();
  for (double station : settings.thickness_stations)
    if (cst ? !(station > 0 && station < 1) : !(station >= 0 && station < 360))
      throw ConfigError(format("design.thickness_stations: %g is not ", station) +
                        (cst ? "a chord fraction in (0, 1)" : "a direction in [0, 360) degrees"));
  settings.max_iterations = cfg.get_int("optimize.max_iterations");
  settings.gradient_tolerance = cfg.get_real("optimize.gradient_tolerance");
  settings.petsc_options = cfg.get_string("optimize.petsc_options");
  settings.stop_after_evaluations = opt.stop_after_evaluations;
  settings.fail_evaluation = opt.fail_evaluation;

  const std::string goal = cfg.get_string("optimize.objective");
  const bool ratio = goal == "lift_to_drag", at_lift = goal == "drag_at_lift";
  if ((ratio || at_lift) &&
      cfg.get_words("objective.terms") != std::vector<std::string>{"lift", "drag"})
    throw ConfigError("optimize.objective = " + goal +
                      " needs objective.terms = lift drag (in that order; objective.weights are "
                      "then not used)");
  if (at_lift)
    settings.flow_constraints = {"lift_deviation"};
  const bool almm = settings.hold_area || at_lift || settings.min_thickness > 0;
  log.info("design: " + design->describe() +
           (area_mode == "fixed"  ? "; area held exactly"
            : area_mode == "almm" ? "; area held by TAOALMM"
                                  : "; area free") +
           (at_lift ? "; lift held by TAOALMM" : "") +
           (settings.min_thickness > 0
                ? format("; thickness >= %g m at %.0f stations (TAOALMM)", settings.min_thickness,
                         double(settings.thickness_stations.size()))
                : std::string()) +
           (almm ? " (BLMVM subproblems)" : " (TAOBLMVM)"));
  // The time steps of the initial design, frozen for every design: J(x) must be smooth, and a
  // CFL-chosen dt would jump with the shape.
  const std::vector<double> dts = driver.choose_steps(
      m0, cfg.get_real("time.t_end"), cfg.get_real("time.dt"), cfg.get_real("time.cfl"));
  log.info(format("time steps: %.0f (frozen for every design)", double(dts.size())));
  {
    navier_stokes::NavierStokes ns(domain, m0.flow);
    driver.set_checkpointing(checkpointing_from(cfg, ns, static_cast<long>(dts.size()), dir, ""));
  }
  const double h = [&] {
    double least = 1e300;
    for (int a = 0; a < dim; ++a)
      least = std::min(least, domain.spacing(a));
    return least;
  }();

  adjoint::EvaluationJournal journal(comm, dir + "/evaluations.journal",
                                     cfg.hash() + "-ranks" + std::to_string(comm.size()));
  if (!opt.resume.empty()) {
    journal.load();
    log.info("resuming: " + std::to_string(journal.size()) +
             " recorded evaluations will be replayed without flow solves");
  }
  // J(x): the case's objective; -L/D of its two terms (lift, drag); or D with L - L* = 0. The
  // ratio's gradient is that of its linearisation at x, -dL/D + L dD/D^2: the objective with
  // the weights (-1/D, L/D^2) that a forward run finds first.
  auto lift_and_drag = [&](const Control& m) {
    std::vector<double> terms;
    driver.objective(m, dts, &terms);
    if (ratio && !(terms[1] > 0))
      throw CollectiveError(
          format("the drag %.3e is not positive, so -lift/drag is undefined", terms[1]));
    return std::array<double, 2>{terms[0], terms[1]};
  };
  double lift_target = 0;
  if (at_lift) {
    const std::string target = cfg.get_string("optimize.lift_target");
    if (target == "initial") {
      lift_target = lift_and_drag(m0)[0];
    } else {
      char* end = nullptr;
      lift_target = std::strtod(target.c_str(), &end);
      if (end == target.c_str() || *end != '\0' || !std::isfinite(lift_target))
        throw ConfigError("optimize.lift_target = '" + target +
                          "' is neither a number (the lift coefficient to keep) nor initial");
    }
    log.info(format("lift target: C_L = %.10e", lift_target));
  }
  auto evaluate = [&](const std::vector<double>& x) {
    Control m = m0;
    design->apply(x, m);
    Evaluation e;
    e.x = x;
    if (ratio) {
      const auto ld = lift_and_drag(m);
      const ObjectiveWeights linearised(job, {-1.0 / ld[1], ld[0] / (ld[1] * ld[1])});
      const adjoint::Gradient g = driver.gradient(m, dts);
      e.objective = -ld[0] / ld[1];
      e.gradient = design->chain(g, x);
    } else if (at_lift) {
      const adjoint::Gradient drag = [&] {
        const ObjectiveWeights only_drag(job, {0.0, 1.0});
        return driver.gradient(m, dts);
      }();
      const adjoint::Gradient lift = [&] {
        const ObjectiveWeights only_lift(job, {1.0, 0.0});
        return driver.gradient(m, dts);
      }();
      e.objective = drag.objective;
      e.gradient = design->chain(drag, x);
      e.constraints = {lift.objective - lift_target};
      e.constraint_gradients = {design->chain(lift, x)};
    } else {
      const adjoint::Gradient g = driver.gradient(m, dts);
      e.objective = g.objective;
      e.gradient = design->chain(g, x);
    }
    return e;
  };

  const std::vector<std::string>& names = design->names();
  std::vector<std::string> columns = {
      "iteration", "objective",   "gradient_norm", "area_violation", "constraint_violation",
      "step",      "flow_solves", "seconds"};
  for (const auto& n : settings.flow_constraints)
    columns.push_back(n);
  if (settings.min_thickness > 0)
    columns.push_back("least_thickness");
  for (const auto& n : names)
    columns.push_back(n);
  io::CsvSeries history(comm, dir + "/history.csv", columns);
  // The flow of a design at the end of its run, as snapshot `iteration` of <dir>/flow/.
  FieldOutput flow(domain, dir + "/flow", cfg.hash());
  const long fields_every = cfg.get_int("optimize.fields_every");
  long flow_written = -1; // the last iteration whose flow is written
  auto write_flow = [&](const std::vector<double>& x, long iteration) {
    if (iteration == flow_written)
      return; // (the final design on a multiple of fields_every)
    flow_written = iteration;
    Control m = m0;
    design->apply(x, m);
    auto ns = driver.start(m);
    for (double dt : dts)
      ns->step(dt);
    flow.write(*ns, iteration, double(iteration));
  };
  const int points = static_cast<int>(cfg.get_int("optimize.shape_points"));
  double j0 = 0;
  bool warned = false;
  log.info(" iter   objective J          |grad|      area dev    violation   step       solves   "
           "wall [s]");
  auto monitor = [&](const IterationRecord& r) {
    if (r.iteration == 0)
      j0 = r.objective;
    char line[160];
    std::snprintf(line, sizeof line, "%5ld   %.10e   %.3e   %+.2e   %.3e   %.3e   %6ld   %8.1f",
                  r.iteration, r.objective, r.gradient_norm, r.area_violation,
                  r.constraint_violation, r.step, r.evaluations, r.seconds);
    log.info(line);
    std::vector<double> row = {
        double(r.iteration),    r.objective, r.gradient_norm,       r.area_violation,
        r.constraint_violation, r.step,      double(r.evaluations), r.seconds};
    row.insert(row.end(), r.flow_constraints.begin(), r.flow_constraints.end());
    if (settings.min_thickness > 0)
      row.push_back(r.least_thickness);
    row.insert(row.end(), r.x.begin(), r.x.end());
    history.append(row);
    char name[64];
    std::snprintf(name, sizeof name, "/shapes/shape_%04ld.csv", r.iteration);
    write_outline(comm, *design, r.x, points, dir + name);
    if (fields_every > 0 && r.iteration % fields_every == 0)
      write_flow(r.x, r.iteration);
    const double feature = design->smallest_feature(r.x);
    if (!warned && feature < 2 * h) {
      warned = true;
      log.info(format("warning: the body's smallest feature (a star's least radius, an "
                      "airfoil's thickness) %.3e m is under two cells (h = %.3e m): the grid "
                      "cannot resolve the shape; refine domain.cells",
                      feature, h));
    }
  };
  adjoint::ShapeOptimiser optimiser(comm, *design, settings, evaluate, monitor, journal, log);
  const std::vector<double> x0 = design->values(m0);
  const adjoint::OptimiserResult result = optimiser.run(x0);

  Control m_final = m0;
  design->apply(result.x, m_final);
  const double reduction = j0 != 0 ? result.objective / j0 - 1.0 : 0.0;
  log.info("TAO: " + result.reason +
           format(" after %.0f design iterations, %.0f flow solves", double(result.iterations),
                  double(result.evaluations)) +
           (result.failed_evaluations
                ? format(" (%.0f trial designs rejected)", double(result.failed_evaluations))
                : std::string()) +
           (journal.replayed()
                ? format(", %.0f replayed from the journal", double(journal.replayed()))
                : std::string()));
  log.info(
      format("objective: %.10e -> %.10e: change %+.2f %%", j0, result.objective, 100 * reduction));
  if (ratio)
    log.info(format("lift/drag: %.6f -> %.6f (%+.2f %%)", -j0, -result.objective, 100 * reduction));
  std::string final_design = "final design:";
  for (std::size_t i = 0; i < names.size(); ++i)
    final_design += " " + names[i] + format(" = %.12e", result.x[i]);
  log.info(final_design);
  log.info(format("area %.6e m^2 (initial %.6e m^2)", design->area(result.x), design->area(x0)));
  if (settings.min_thickness > 0) {
    const auto t = design->thickness(result.x, settings.thickness_stations);
    log.info(format("least thickness %.6e m at the stations (at least %.6e m)",
                    *std::min_element(t.begin(), t.end()), settings.min_thickness));
  }
  if (at_lift)
    log.info(format("lift: C_L = %.10e (target %.10e)",
                    lift_target + optimiser.evaluate(result.x).constraints[0], lift_target));
  const std::string run_settings = design_as_settings(m_final, obstacle);
  run_on_root(comm, [&] { io::write_file_atomic(dir + "/final_design.txt", run_settings + "\n"); });
  write_outline(comm, *design, result.x, points, dir + "/shapes/final.csv");
  write_flow(result.x, result.iterations);
  log.info("flow of the designs (at t_end; 'time' is the design iteration): " + dir +
           "/flow/fields.xmf");
  log.info("the final design's flow: undertow run " + opt.case_file + " " + run_settings);

  io::Json report = io::Json::object();
  report["undertow_version"] = UNDERTOW_VERSION_STRING;
  report["case"] = loaded.name;
  report["mpi_ranks"] = comm.size();
  report["objective_initial"] = j0;
  report["objective_final"] = result.objective;
  report["reduction"] = reduction;
  report["iterations"] = double(result.iterations);
  report["flow_solves"] = double(result.evaluations);
  report["converged_reason"] = result.reason;
  report["area_initial"] = design->area(x0);
  report["area_final"] = design->area(result.x);
  for (std::size_t i = 0; i < names.size(); ++i) {
    report["design_initial"][names[i]] = x0[i];
    report["design_final"][names[i]] = result.x[i];
  }

  int code = kSuccess;
  if (opt.taylor) {
    // Taylor tests of the reduced J(x) itself, through the parameterisation (r0 following the
    // area, the ratio's two runs): |J(x + eps h) - J(x) - eps dJ/dx.h| must fall as eps^2.
    const auto list = adjoint::scalar_parameters(m0, dim);
    const double min_rate = cfg.get_real("adjoint.taylor_min_rate");
    const int halvings = static_cast<int>(cfg.get_int("adjoint.taylor_halvings"));
    const double eps0 = cfg.get_real("adjoint.taylor_shape_eps");
    std::vector<double> h(names.size(), 0.0); // each variable's typical change, signs alternating
    for (std::size_t i = 0; i < names.size(); ++i)
      for (const auto& p : list)
        if (p.name == names[i])
          h[i] = (i % 2 ? -1.0 : 1.0) * p.scale / double(i + 1);
    // The functions tested, from one forward run at each point: J, and with a lift target C_L.
    const std::vector<std::string> tested =
        at_lift ? std::vector<std::string>{"J", "C_L"} : std::vector<std::string>{"J"};
    auto values_at = [&](const std::vector<double>& x) {
      Control m = m0;
      design->apply(x, m);
      if (!ratio && !at_lift)
        return std::vector<double>{driver.objective(m, dts)};
      const auto ld = lift_and_drag(m);
      return ratio ? std::vector<double>{-ld[0] / ld[1]} : std::vector<double>{ld[1], ld[0]};
    };
    auto dot_h = [&](const std::vector<double>& g) {
      double sum = 0;
      for (std::size_t i = 0; i < h.size(); ++i)
        sum += g[i] * h[i];
      return sum;
    };
    const char* where[2] = {"initial", "final"};
    for (int w = 0; w < 2; ++w) {
      const std::vector<double>& x = w == 0 ? x0 : result.x;
      const Evaluation e = evaluate(x);
      std::vector<double> f0 = {e.objective}, slope = {dot_h(e.gradient)};
      if (at_lift) {
        f0.push_back(lift_target + e.constraints[0]);
        slope.push_back(dot_h(e.constraint_gradients[0]));
      }
      log.info(std::string("Taylor test at the ") + where[w] + " design:");
      for (std::size_t f = 0; f < tested.size(); ++f)
        log.info("  d" + tested[f] + format(".h = % .10e", slope[f]));
      std::vector<std::vector<double>> remainders(tested.size());
      for (int k = 0; k <= halvings; ++k) {
        const double eps = eps0 / std::pow(2.0, k);
        std::vector<double> xp = x;
        for (std::size_t i = 0; i < h.size(); ++i)
          xp[i] += eps * h[i];
        const std::vector<double> values = values_at(xp);
        for (std::size_t f = 0; f < tested.size(); ++f) {
          auto& r = remainders[f];
          r.push_back(std::abs(values[f] - f0[f] - eps * slope[f]));
          const std::string& n = tested[f];
          log.info(format("  eps = %.4e  |", eps) + n + "(x + eps h) - " + n + "(x) - eps d" + n +
                   format(".h| = %.4e", r.back()) +
                   (k > 0 ? format("  rate %.3f", std::log2(r[r.size() - 2] / r.back()))
                          : std::string()));
        }
      }
      for (std::size_t f = 0; f < tested.size(); ++f) {
        double min_found = 1e300;
        const auto& r = remainders[f];
        for (std::size_t k = 1; k < r.size(); ++k)
          min_found = std::min(min_found, std::log2(r[k - 1] / r[k]));
        const bool pass = min_found >= min_rate;
        log.info("  " + tested[f] + format(": minimum rate %.3f: ", min_found) +
                 (pass ? "passed" : "FAILED"));
        const std::string key = f == 0 ? std::string(where[w]) : std::string(where[w]) + "_lift";
        report["taylor"][key]["min_rate"] = min_found;
        report["taylor"][key]["passed"] = pass;
        if (!pass)
          code = kCheckFailed;
      }
    }
  }
  run_on_root(comm, [&] {
    io::write_file_atomic(dir + "/optimize.json", report.dump());
    if (!opt.report.empty())
      io::write_file_atomic(opt.report, report.dump());
  });
  log.info("history: " + dir + "/history.csv; shapes: " + dir + "/shapes/");
  return code;
}

} // namespace jobs
} // namespace undertow
