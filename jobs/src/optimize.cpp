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
#include "restart.hpp"

#include "undertow/adjoint/parameters.hpp"
#include "undertow/core/error.hpp"
#include "undertow/core/version.hpp"
#include "undertow/io/csv.hpp"
#include "undertow/io/field_file.hpp"
#include "undertow/io/files.hpp"
#include "undertow/io/json.hpp"
#include "undertow/optimisation/control_design.hpp"
#include "undertow/optimisation/reduced_objective.hpp"
#include "undertow/optimisation/shape_optimiser.hpp"

#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <sstream>

namespace po = boost::program_options;

namespace undertow {
namespace jobs {

namespace {

using adjoint::Control;
using optimisation::Evaluation;
using optimisation::IterationRecord;

struct OptimizeOptions {
  std::string case_file, output, report, resume, restart;
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
      "restart", po::value<std::string>(),
      "start every design's run from this restart file's velocity (e.g. a developed vortex "
      "street, for the controls of a flow); times count from there")(
      "taylor", po::bool_switch(),
      "Taylor remainder tests of J(x) at the initial and the final design; exit 1 if a rate is "
      "below adjoint.taylor_min_rate")("help,h", "print this help");
  po::options_description hidden;
  hidden.add_options()("stop-after-evaluations", po::value<long>(),
                       "testing aid: stop (as a killed run) after this many new evaluations")(
      "fail-evaluation", po::value<long>(),
      "testing aid: the flow solve of this evaluation (1-based) fails as a diverged one");
  po::variables_map vm;
  if (!parse_case_command(
          comm, args, "optimize",
          "undertow optimize CASE.ini [--resume DIR] [--restart FILE.h5] [--taylor] [--set "
          "section.key=value ...] [--output DIR] [--report FILE.json]",
          d, hidden, vm))
    return false;
  o.case_file = vm["case"].as<std::string>();
  if (vm.count("set"))
    o.overrides = vm["set"].as<std::vector<std::string>>();
  if (vm.count("output"))
    o.output = vm["output"].as<std::string>();
  if (vm.count("restart"))
    o.restart = vm["restart"].as<std::string>();
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

/// Bounds of each variable: radius_bounds for r0 and the spline radii, +-coefficient_bound for
/// the coefficients.
void bounds_from(const Config& cfg, const optimisation::ShapeDesign& design,
                 std::vector<double>& lo, std::vector<double>& hi) {
  if (!design.has_shape()) { // controls
    const auto b = cfg.get_real_list("design.control_bounds");
    if (!(b[1] > b[0]))
      throw ConfigError("design.control_bounds needs lower < upper");
    lo.assign(design.names().size(), b[0]);
    hi.assign(design.names().size(), b[1]);
    return;
  }
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
    if (ends_with(name, ".r0") || name.find(".spline_radius_") != std::string::npos) {
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
void write_outline(const Communicator& comm, const optimisation::ShapeDesign& design,
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

/// --set options that give `undertow run` the design x (the star's radius and coefficients, the
/// CST angle and weights, the spline's centre and radii) in `dim` dimensions.
std::string design_as_settings(const Control& m, int obstacle, int dim) {
  if (obstacle < 0 || obstacle >= static_cast<int>(m.flow.obstacles.shapes.size()))
    return "";
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
  if (s.kind == navier_stokes::ShapeKind::Spline) {
    std::string radii;
    for (int j = 0; j < s.harmonics; ++j)
      radii += (j ? "," : "") + format("%.17g", s.spline_control(j));
    std::string centre; // the polar origin moves with the end radii (one entry per axis)
    for (int a = 0; a < dim; ++a)
      centre += (a ? "," : "") + format("%.17g", s.centre[a]);
    return "--set " + key + ".centre=" + centre + " --set " + key + ".radii=" + radii;
  }
  std::string out = "--set " + key + format(".radius=%.17g --set ", s.radius) + key + ".fourier=";
  for (int k = 0; k < s.harmonics; ++k)
    out += (k ? "," : "") + format("%.17g,", s.cos_coeff[k]) + format("%.17g", s.sin_coeff[k]);
  return out;
}

/// --set options that give `undertow run` the controls `names` of m: each signal's whole
/// coefficient list, each actuator's scale, the policy's weights. `restart_time` > 0 (an
/// optimisation from a restart file, whose clock starts at 0 while `run --restart` continues
/// the file's): the signals delayed by it (intervals moved, Fourier phases turned) and
/// time.t_end moved with them, so that `run --restart` with the same file replays the horizon.
std::string controls_as_settings(const Control& m, const std::vector<std::string>& names, int dim,
                                 double restart_time, double t_end) {
  using Kind = adjoint::ScalarParameter::Kind;
  const char* faces[6] = {"x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi"};
  const auto list = adjoint::scalar_parameters(m, dim);
  std::vector<std::string> settings;
  const auto values = [](const std::vector<double>& v) {
    std::string out;
    for (std::size_t j = 0; j < v.size(); ++j)
      out += (j ? "," : "") + format("%.17g", v[j]);
    return out;
  };
  const auto add = [&settings](const std::string& s) {
    if (std::find(settings.begin(), settings.end(), s) == settings.end())
      settings.push_back(s);
  };
  const auto add_signal = [&](const std::string& prefix, const control::TimeSignal& signal) {
    const control::TimeSignal b = signal.delayed(restart_time);
    add(prefix + "_values=" + values(b.coefficients));
    if (restart_time != 0.0 && b.kind != control::SignalKind::Fourier)
      add(prefix + format("_interval=%.15g,", b.start) + format("%.15g", b.end));
  };
  for (const std::string& name : names)
    for (const auto& p : list) {
      if (p.name != name)
        continue;
      if (p.kind == Kind::BoundarySignal)
        add_signal(std::string("boundary.") + faces[p.a] + "_signal",
                   m.flow.boundaries.face[p.a].signal);
      else if (p.kind == Kind::BodyForceSignal)
        add_signal("fluid.body_force_signal", m.flow.body_force_signal);
      else if (p.kind == Kind::ActuatorSignal)
        add_signal(m.flow.actuators[p.a].name() + "_signal", m.flow.actuators[p.a].signal);
      else if (p.kind == Kind::PolicyWeight)
        add("policy.weights=" + values(m.flow.policy.theta));
      else if (p.kind == Kind::ActuatorScale)
        add(name + format("=%.17g", m.flow.actuators[p.a].scale));
    }
  if (restart_time != 0.0)
    add(format("time.t_end=%.15g", restart_time + t_end));
  std::string out;
  for (const auto& s : settings)
    out += (out.empty() ? "--set " : " --set ") + s;
  return out;
}

} // namespace

void declare_optimize_keys(ConfigSchema& s) {
  s.add("design.parameterisation", ValueType::Choice, "fourier_star",
        "undertow optimize: how the design variables set the shape; fourier_star: the radius "
        "r0 and Fourier coefficients of a star obstacle (shape = star); cst_airfoil: the "
        "angle of attack and Bernstein weights of a CST airfoil (shape = cst); spline_radii: "
        "the control radii of a B-spline body (shape = spline), which can form pointed ends; "
        "control: time-dependent controls, the coefficients of control signals and the "
        "actuators' rates and velocities (open-loop optimal control, docs/control.md)")
      .one_of({"fourier_star", "cst_airfoil", "spline_radii", "control"});
  s.add("design.control_bounds", ValueType::RealList, "-10 10",
        "undertow optimize, parameterisation = control: lower and upper bound of every control "
        "variable (in its own unit: 1 for a signal's coefficient, rad/s or m/s for a scale)")
      .items(2, 2);
  s.add("optimize.effort_weight", ValueType::Real, "0",
        "undertow optimize, parameterisation = control: w of the actuation effort w (1/T) int "
        "sum_k A_k(t)^2 dt added to J, A_k the actuators' amplitudes (rotation rates [rad/s], "
        "jet velocities [m/s]) over the run [J per unit^2]")
      .at_least(0);
  s.add("design.obstacle", ValueType::Integer, "1", "undertow optimize: the obstacle designed")
      .at_least(1);
  s.add("design.variables", ValueType::String, "cos_coeff_2 cos_coeff_3 cos_coeff_4",
        "undertow optimize: the design variables, of r0, cos_coeff_K, sin_coeff_K (K up to the "
        "star's harmonics; K = 1 is a translation); r0 only without optimize.area = fixed, "
        "which sets it from the area; of a spline, spline_radius_J (J from 0, the rear, to "
        "n - 1, the front), with optimize.area = fixed all but one at least (the radii are "
        "scaled together to hold the area, and those left out set the scale); of a CST "
        "airfoil, angle_of_attack, cst_upper_I, cst_lower_I; of controls, the names the "
        "gradient gives them (a trailing * matches a prefix, e.g. policy.weight_*)");
  s.add("design.radius_bounds", ValueType::RealList, "0.01 100",
        "undertow optimize: lower and upper bound of r0, or of each spline radius (before the "
        "scaling that holds the area) [m]")
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
        "a CST airfoil (its surfaces' distance there), directions theta [deg] of a star or a "
        "spline (its width r(theta) + r(theta + 180) through the centre); empty: psi = 0.1 ... "
        "0.6, or every 10 degrees")
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
        "undertow optimize: fixed holds the body's area at its initial value exactly, a star's "
        "r0 following from the coefficients, a spline's radii scaled together (TAOBLMVM); almm "
        "holds it as an equality "
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
  s.add("optimize.first_step_decrease", ValueType::Real, "0",
        "undertow optimize: > 0: the first design step aims at a decrease of this fraction of "
        "|J| (e.g. 0.05 for a drag coefficient that a control moves by a few percent); 0: "
        "TAO's own first step, which aims at a decrease of 2 |J| and, for such objectives, "
        "lands on the bounds and backtracks over several flow solves; designs with bounds only "
        "(not with constraints)")
      .range(0, 2);
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

namespace {

/// The design of [design]: a Fourier star, a CST airfoil or B-spline radii. Throws ConfigError.
/// Not collective.
std::unique_ptr<optimisation::ShapeDesign> design_from(const Config& cfg, const Control& m0,
                                                       int dim) {
  const int obstacle = static_cast<int>(cfg.get_int("design.obstacle")) - 1;
  const std::string area_mode = cfg.get_string("optimize.area");
  const bool cst = cfg.get_string("design.parameterisation") == "cst_airfoil";
  if (cst && area_mode == "fixed")
    throw ConfigError("optimize.area = fixed holds a star's area through r0, a spline's by "
                      "scaling its radii; a CST airfoil holds it with optimize.area = almm, or "
                      "leaves it free");
  const std::vector<std::string> variables = cfg.get_words("design.variables");
  for (std::size_t i = 0; i < variables.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (variables[i] == variables[j])
        throw ConfigError("design.variables names '" + variables[i] +
                          "' twice: name each design variable once");
  if (cfg.get_string("design.parameterisation") == "control") {
    if (area_mode == "almm")
      throw ConfigError("optimize.area = almm holds a body's area, which a control design does "
                        "not change; use fixed or free");
    if (cfg.get_string("optimize.objective") != "weighted")
      throw ConfigError("design.parameterisation = control takes optimize.objective = weighted "
                        "(the case's objective terms, e.g. drag lift_squared, plus "
                        "optimize.effort_weight times the actuation effort)");
    if (cfg.get_real("design.min_thickness") > 0)
      throw ConfigError("design.min_thickness constrains a body's shape, which a control design "
                        "does not change; remove it");
    const int body = obstacle < static_cast<int>(m0.flow.obstacles.shapes.size()) ? obstacle : -1;
    return optimisation::make_control_design(m0, dim, body, variables,
                                             cfg.get_real("optimize.effort_weight"),
                                             cfg.get_real("time.t_end"));
  }
  if (cst)
    return optimisation::make_cst_design(m0, dim, obstacle, variables);
  if (cfg.get_string("design.parameterisation") == "spline_radii")
    return optimisation::make_spline_design(m0, dim, obstacle, variables, area_mode == "fixed");
  return optimisation::make_star_design(m0, dim, obstacle, variables, area_mode == "fixed",
                                        cfg.get_real("design.coefficient_bound"));
}

/// The optimiser's settings of [design] and [optimize] (the flow constraints come from the
/// reduced objective). Throws ConfigError. Not collective.
optimisation::OptimiserSettings settings_from(const Config& cfg,
                                              const optimisation::ShapeDesign& design,
                                              const OptimizeOptions& opt) {
  const bool cst = cfg.get_string("design.parameterisation") == "cst_airfoil";
  optimisation::OptimiserSettings settings;
  bounds_from(cfg, design, settings.lower, settings.upper);
  settings.hold_area = cfg.get_string("optimize.area") == "almm";
  settings.min_thickness = cfg.get_real("design.min_thickness");
  settings.thickness_stations = cfg.get_real_list("design.thickness_stations");
  if (settings.thickness_stations.empty())
    settings.thickness_stations = design.default_thickness_stations();
  for (double station : settings.thickness_stations)
    if (cst ? !(station > 0 && station < 1) : !(station >= 0 && station < 360))
      throw ConfigError(format("design.thickness_stations: %g is not ", station) +
                        (cst ? "a chord fraction in (0, 1)" : "a direction in [0, 360) degrees"));
  settings.max_iterations = cfg.get_int("optimize.max_iterations");
  settings.gradient_tolerance = cfg.get_real("optimize.gradient_tolerance");
  settings.first_step_decrease = cfg.get_real("optimize.first_step_decrease");
  settings.petsc_options = cfg.get_string("optimize.petsc_options");
  optimisation::tao_option_names(
      settings.petsc_options); // a bad option now, not after the flow runs
  settings.stop_after_evaluations = opt.stop_after_evaluations;
  settings.fail_evaluation = opt.fail_evaluation;
  const std::string goal = cfg.get_string("optimize.objective");
  if ((goal == "lift_to_drag" || goal == "drag_at_lift") &&
      cfg.get_words("objective.terms") != std::vector<std::string>{"lift", "drag"})
    throw ConfigError("optimize.objective = " + goal +
                      " needs objective.terms = lift drag (in that order; objective.weights are "
                      "then not used)");
  return settings;
}

/// The design, its constraints and TAO's method, in one line of the log.
std::string describe(const Config& cfg, const optimisation::ShapeDesign& design,
                     const optimisation::OptimiserSettings& settings) {
  const std::string area_mode = cfg.get_string("optimize.area");
  const bool at_lift = cfg.get_string("optimize.objective") == "drag_at_lift";
  const bool almm = settings.hold_area || at_lift || settings.min_thickness > 0;
  return "design: " + design.describe() +
         (!design.has_shape()    ? std::string("; the bodies do not change")
          : area_mode == "fixed" ? "; area held exactly"
          : area_mode == "almm"  ? "; area held by TAOALMM"
                                 : "; area free") +
         (at_lift ? "; lift held by TAOALMM" : "") +
         (settings.min_thickness > 0
              ? format("; thickness >= %g m at %.0f stations (TAOALMM)", settings.min_thickness,
                       double(settings.thickness_stations.size()))
              : std::string()) +
         (almm ? " (BLMVM subproblems)" : " (TAOBLMVM)");
}

/// What an optimisation writes as it goes: the iteration table and history.csv, the outline of
/// every iterate in shapes/, the flow of every optimize.fields_every-th design in flow/ (one
/// more forward run, a Simulation over the frozen steps), and a warning when the shape gets
/// finer than the grid.
class OptimisationRecord {
 public:
  OptimisationRecord(AdjointJob& job, const optimisation::ReducedObjective& J,
                     const optimisation::ShapeDesign& design,
                     const optimisation::OptimiserSettings& settings, adjoint::StepSizes dts)
      : m_job(job), m_J(J), m_design(design), m_dts(std::move(dts)), m_dir(job.loaded.output_dir),
        m_history(job.domain.comm(), m_dir + "/history.csv", columns(design, settings)),
        m_flow(job.domain, m_dir + "/flow", job.config.hash()),
        m_fields_every(job.config.get_int("optimize.fields_every")),
        m_points(static_cast<int>(job.config.get_int("optimize.shape_points"))),
        m_thickness(settings.min_thickness > 0),
        m_insitu(job.config, job.domain, job.case_file, m_dir,
                 insitu_metadata(job.config, job.case_file, "optimize"), job.log) {
    // In situ: the initial flow of the initial design first (a broken script stops the run
    // before any flow solve), then the flow at t_end of every catalyst.every-th design.
    if (m_insitu.active()) {
      auto ns = m_job.driver.start(m_job.m);
      m_insitu.execute([&](io::InSituBuilder& b, long step,
                           double time) { return flow_frame(b, *ns, step, time); },
                       0, 0.0, {{"phase", "initial flow"}});
    }
    m_h = 1e300;
    for (int a = 0; a < job.domain.dim(); ++a)
      m_h = std::min(m_h, job.domain.min_spacing(a)); // the narrowest cells: the body's
    job.log.info(" iter   objective J          |grad|      area dev    violation   step       "
                 "solves   wall [s]");
  }

  /// One design iteration: a line of the table and of history.csv, its outline and flow.
  /// Collective.
  void iteration(const IterationRecord& r) {
    if (r.iteration == 0)
      j0 = r.objective;
    char line[160];
    std::snprintf(line, sizeof line, "%5ld   %.10e   %.3e   %+.2e   %.3e   %.3e   %6ld   %8.1f",
                  r.iteration, r.objective, r.gradient_norm, r.area_violation,
                  r.constraint_violation, r.step, r.evaluations, r.seconds);
    m_job.log.info(line);
    std::vector<double> row = {
        double(r.iteration),    r.objective, r.gradient_norm,       r.area_violation,
        r.constraint_violation, r.step,      double(r.evaluations), r.seconds};
    row.insert(row.end(), r.flow_constraints.begin(), r.flow_constraints.end());
    if (m_thickness)
      row.push_back(r.least_thickness);
    row.insert(row.end(), r.x.begin(), r.x.end());
    m_history.append(row);
    char name[64];
    std::snprintf(name, sizeof name, "/shapes/shape_%04ld.csv", r.iteration);
    outline(r.x, m_dir + name);
    const bool fields = m_fields_every > 0 && r.iteration % m_fields_every == 0;
    if (fields || m_insitu.due(r.iteration))
      flow(r.x, r.iteration, r.objective, fields);
    const double feature = m_design.smallest_feature(r.x);
    if (!m_warned && feature < 2 * m_h) {
      m_warned = true;
      m_job.log.info(
          format("warning: the body's smallest feature (the least radius of a star "
                 "or a spline, an airfoil's thickness) %.3e m is under two cells (h = %.3e m): the "
                 "grid cannot resolve the shape; refine the grid (domain.cells, or "
                 "domain.box_spacing on a stretched grid)",
                 feature, m_h));
    }
  }
  /// The outline of x as CSV (x,y per line) at `path`. Collective.
  void outline(const std::vector<double>& x, const std::string& path) const {
    write_outline(m_job.domain.comm(), m_design, x, m_points, path);
  }
  /// The flow of design x (objective J) at the end of its run, as snapshot `iteration` of
  /// flow/ (if `fields`) and to the in-situ pipelines (once per iteration). Collective.
  void flow(const std::vector<double>& x, long iteration, double objective, bool fields = true) {
    if (iteration == m_flow_written)
      return; // (the final design on a multiple of fields_every)
    m_flow_written = iteration;
    auto ns = m_job.driver.start(m_J.parameters(x));
    SteppedModel<navier_stokes::NavierStokes> stepper(*ns);
    Clock clock;
    clock.steps = m_dts.to_vector();
    Simulation sim(m_job.domain.comm(), stepper, clock);
    sim.add_finish("flow of the design", [&](Simulation&) {
      if (fields)
        m_flow.write(*ns, iteration, double(iteration));
      if (!m_insitu.active())
        return;
      m_insitu.execute(
          [&](io::InSituBuilder& b, long step, double time) {
            io::InSituFrame frame = flow_frame(b, *ns, step, time);
            frame.numbers["objective"] = objective;
            frame.numbers["flow_time"] = ns->time();
            return frame;
          },
          iteration, double(iteration), {{"phase", "design iteration"}});
    });
    sim.run();
  }
  /// "in situ: ..." for the log (empty without pipelines).
  std::string insitu_summary() const { return m_insitu.summary(); }

  double j0 = 0; ///< J of the initial design

 private:
  static std::vector<std::string> columns(const optimisation::ShapeDesign& design,
                                          const optimisation::OptimiserSettings& settings) {
    std::vector<std::string> c = {
        "iteration", "objective",   "gradient_norm", "area_violation", "constraint_violation",
        "step",      "flow_solves", "seconds"};
    c.insert(c.end(), settings.flow_constraints.begin(), settings.flow_constraints.end());
    if (settings.min_thickness > 0)
      c.push_back("least_thickness");
    c.insert(c.end(), design.names().begin(), design.names().end());
    return c;
  }

  AdjointJob& m_job;
  const optimisation::ReducedObjective& m_J;
  const optimisation::ShapeDesign& m_design;
  adjoint::StepSizes m_dts;
  std::string m_dir;
  io::CsvSeries m_history;
  FieldOutput m_flow;
  long m_fields_every;
  int m_points;
  bool m_thickness;
  double m_h = 0;
  bool m_warned = false;
  long m_flow_written = -1;
  InSituOutput m_insitu;
};

/// The outcome in the log, final_design.txt, the final outline and flow, and the report's
/// figures. Collective.
void report_outcome(AdjointJob& job, const OptimizeOptions& opt,
                    optimisation::ShapeOptimiser& optimiser, optimisation::ReducedObjective& J,
                    const optimisation::ShapeDesign& design,
                    const optimisation::OptimiserSettings& settings, OptimisationRecord& record,
                    const optimisation::EvaluationJournal& journal, const std::vector<double>& x0,
                    const optimisation::OptimiserResult& result, io::Json& report) {
  const Log& log = job.log;
  const std::string& dir = job.loaded.output_dir;
  const bool ratio = job.config.get_string("optimize.objective") == "lift_to_drag";
  const double j0 = record.j0;
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
  const std::vector<std::string>& names = design.names();
  std::string final_design = "final design:";
  for (std::size_t i = 0; i < names.size(); ++i)
    final_design += " " + names[i] + format(" = %.12e", result.x[i]);
  log.info(final_design);
  if (design.has_shape())
    log.info(format("area %.6e m^2 (initial %.6e m^2)", design.area(result.x), design.area(x0)));
  else
    log.info(format("actuation effort %.6e (initial %.6e)", design.regulariser(result.x, nullptr),
                    design.regulariser(x0, nullptr)));
  if (settings.min_thickness > 0) {
    const auto t = design.thickness(result.x, settings.thickness_stations);
    log.info(format("least thickness %.6e m at the stations (at least %.6e m)",
                    *std::min_element(t.begin(), t.end()), settings.min_thickness));
  }
  if (!settings.flow_constraints.empty()) {
    const double target = optimisation::lift_target_of(J);
    log.info(format("lift: C_L = %.10e (target %.10e)",
                    target + optimiser.evaluate(result.x).constraints[0], target));
  }
  const std::string run_settings =
      design.has_shape()
          ? design_as_settings(J.parameters(result.x),
                               static_cast<int>(job.config.get_int("design.obstacle")) - 1,
                               job.domain.dim())
          : controls_as_settings(J.parameters(result.x), names, job.domain.dim(), job.start_time,
                                 job.config.get_real("time.t_end"));
  run_on_root(job.domain.comm(),
              [&] { io::write_file_atomic(dir + "/final_design.txt", run_settings + "\n"); });
  record.outline(result.x, dir + "/shapes/final.csv");
  record.flow(result.x, result.iterations, result.objective);
  if (!record.insitu_summary().empty())
    log.info(record.insitu_summary());
  log.info("flow of the designs (at t_end; 'time' is the design iteration): " + dir +
           "/flow/fields.xmf");
  // The command repeats optimize's own --set options (a policy's kind, a grid), less those the
  // design sets and output.dir (the run must not write into the optimisation's folder).
  const std::string given = set_options(job.config.overrides(), [&](const std::string& key) {
    return key != "output.dir" && run_settings.find("--set " + key + "=") == std::string::npos;
  });
  log.info("the final design's flow: undertow run " + shell_quoted(opt.case_file) +
           (opt.restart.empty() ? "" : " --restart " + shell_quoted(opt.restart)) + given + " " +
           run_settings +
           (job.start_time != 0.0 ? format(" (the run continues the restart's clock, t = %g s: "
                                           "the signals and t_end above are moved by it)",
                                           job.start_time)
                                  : ""));

  report["objective_initial"] = j0;
  report["objective_final"] = result.objective;
  report["reduction"] = reduction;
  report["iterations"] = double(result.iterations);
  report["flow_solves"] = double(result.evaluations);
  report["converged_reason"] = result.reason;
  report["area_initial"] = design.area(x0);
  report["area_final"] = design.area(result.x);
  for (std::size_t i = 0; i < names.size(); ++i) {
    report["design_initial"][names[i]] = x0[i];
    report["design_final"][names[i]] = result.x[i];
  }
}

/// --taylor: Taylor tests of the reduced J(x) itself (and of a held lift), through the
/// parameterisation (r0 following the area, the ratio's two runs), at the initial and the final
/// design: |f(x + eps h) - f(x) - eps df/dx.h| must fall as eps^2. Returns kCheckFailed if a
/// rate is below adjoint.taylor_min_rate. Collective.
int taylor_tests(const AdjointJob& job, optimisation::ShapeOptimiser& optimiser,
                 optimisation::ReducedObjective& J, const optimisation::ShapeDesign& design,
                 const std::vector<double>& x0, const std::vector<double>& x_final,
                 io::Json& report) {
  const Config& cfg = job.config;
  const Log& log = job.log;
  const auto list = adjoint::scalar_parameters(job.m, job.domain.dim());
  const double min_rate = cfg.get_real("adjoint.taylor_min_rate");
  const int halvings = static_cast<int>(cfg.get_int("adjoint.taylor_halvings"));
  // A control enters J smoothly (no mask edge to cross): the other groups' first eps.
  const double eps0 =
      cfg.get_real(design.has_shape() ? "adjoint.taylor_shape_eps" : "adjoint.taylor_eps");
  const std::vector<std::string>& names = design.names();
  std::vector<double> h(names.size(), 0.0); // each variable's typical change, signs alternating
  for (std::size_t i = 0; i < names.size(); ++i)
    for (const auto& p : list)
      if (p.name == names[i])
        h[i] = (i % 2 ? -1.0 : 1.0) * p.scale / double(i + 1);
  const std::vector<std::string> tested = J.value_names();
  const auto dot_h = [&](const std::vector<double>& g) {
    double sum = 0;
    for (std::size_t i = 0; i < h.size(); ++i)
      sum += g[i] * h[i];
    return sum;
  };
  int code = kSuccess;
  const char* where[2] = {"initial", "final"};
  for (int w = 0; w < 2; ++w) {
    const std::vector<double>& x = w == 0 ? x0 : x_final;
    const Evaluation e = optimiser.evaluate(x);
    const std::vector<double> f0 = J.values_of(e);
    std::vector<double> slope;
    for (const auto& g : J.gradients_of(e))
      slope.push_back(dot_h(g));
    log.info(std::string("Taylor test at the ") + where[w] + " design:");
    for (std::size_t f = 0; f < tested.size(); ++f)
      log.info("  d" + tested[f] + format(".h = % .10e", slope[f]));
    const std::vector<adjoint::TaylorResult> results = adjoint::taylor_test(
        [&](double eps) {
          std::vector<double> xp = x;
          for (std::size_t i = 0; i < h.size(); ++i)
            xp[i] += eps * h[i];
          return J.values(xp);
        },
        f0, slope, eps0, halvings);
    for (int k = 0; k <= halvings; ++k)
      for (std::size_t f = 0; f < tested.size(); ++f) {
        const adjoint::TaylorResult& r = results[f];
        const std::string& n = tested[f];
        log.info(format("  eps = %.4e  |", r.eps[k]) + n + "(x + eps h) - " + n + "(x) - eps d" +
                 n + format(".h| = %.4e", r.remainder[k]) +
                 (k > 0 ? format("  rate %.3f", r.rate[k - 1]) : std::string()));
      }
    for (std::size_t f = 0; f < tested.size(); ++f) {
      const double min_found = results[f].min_rate;
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
  return code;
}

/// Whether `key` can change an evaluation's J(x) or dJ/dx, and so belongs in the journal's
/// signature. Not: where and how often things are written or printed, the checkpoint strategy
/// (the same gradient from fewer stored states), or when TAO stops. A resumed run may change
/// those, e.g. raise optimize.max_iterations to continue a run that reached it; where TAO then
/// asks for another x, the replay stops there (EvaluationJournal::replay compares x bit for
/// bit) and flow solves take over.
bool decides_evaluations(const std::string& key) {
  for (const char* prefix : {"output.", "catalyst.", "fields.", "restart.", "checkpoint."})
    if (key.rfind(prefix, 0) == 0)
      return false;
  for (const char* k :
       {"optimize.max_iterations", "optimize.gradient_tolerance", "optimize.first_step_decrease",
        "optimize.fields_every", "optimize.shape_points"})
    if (key == k)
      return false;
  return true;
}

/// The settings of the optimisation in `dir` as its config.ini recorded them (still that run's: a
/// resumed run commits its own only once accepted); nullopt where `dir` holds no evaluation
/// journal (no optimisation: EvaluationJournal::load says so), or its config.ini is missing or
/// no longer parses (a run of another version). Collective (rank 0 reads).
std::optional<Config> recorded_settings(const Communicator& comm, const Model& model,
                                        const std::string& dir) {
  const std::string path = dir + "/config.ini";
  std::string text;
  run_on_root(comm, [&] {
    try {
      if (std::filesystem::exists(dir + "/evaluations.journal"))
        text = io::read_file(path);
    } catch (const std::exception&) {
    }
  });
  text = comm.broadcast(text);
  if (text.empty())
    return std::nullopt;
  try {
    return Config(schema_for(model), RawConfig::parse(text, path, {}));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

/// "key = A there, B here" for each setting that decides the evaluations and differs (values
/// compared as the restart check compares them: 0.01 and 1e-2 alike). Not collective.
std::string changed_settings(const Config& there, const Config& here) {
  std::string out;
  for (const auto& kv : here.entries()) {
    const auto it = there.entries().find(kv.first);
    const std::string before = it == there.entries().end() ? "(unset)" : it->second;
    if (decides_evaluations(kv.first) && !same_value(before, kv.second))
      out +=
          (out.empty() ? "" : "; ") + kv.first + " = " + before + " there, " + kv.second + " here";
  }
  return out;
}

} // namespace

int command_optimize(const Communicator& comm, const std::vector<std::string>& args) {
  OptimizeOptions opt;
  if (!parse(comm, args, opt))
    return kSuccess;
  const LoadedCase loaded =
      load_case(comm, opt.case_file, opt.overrides, !opt.resume.empty() ? opt.resume : opt.output);
  AdjointJob job(comm, loaded, "optimize", opt.case_file, opt.restart, 0);
  const Config& cfg = loaded.config;
  const std::string& dir = loaded.output_dir;
  // A --resume of a folder that is not this case's run is refused before anything is written:
  // the signature holds the settings that decide the evaluations (decides_evaluations), the
  // rank count and, with --restart, the start's velocity (a decomposition-independent
  // checksum), so that evaluations from another start are not replayed.
  // A setting of the run in the folder that decides the evaluations is named. Where none
  // differs, that run's own signatures are accepted too: the one of its deciding settings as it
  // wrote them (a value may be spelt otherwise here, 1e-2 for 0.01), and the hash of every key
  // that journals written before 2026-12 were signed with.
  std::string common = "-ranks" + std::to_string(comm.size());
  if (!opt.restart.empty())
    for (int c = 0; c < job.domain.dim(); ++c)
      common += "-start" + io::checksum_text(io::field_checksum(comm, job.m.initial[c]));
  std::vector<std::string> earlier_signatures{cfg.hash() + common};
  if (!opt.resume.empty())
    if (const auto there = recorded_settings(comm, *loaded.model, dir)) {
      const std::string changed = changed_settings(*there, cfg);
      if (!changed.empty())
        throw ConfigError("--resume " + dir + ": " + changed + " (" + dir +
                          "/config.ini against this command): these settings decide the "
                          "recorded evaluations, which would not be this optimisation's; resume "
                          "with the run's values, or start a new optimisation with --output "
                          "(docs/optimization.md, Resuming)");
      earlier_signatures.push_back(there->hash(decides_evaluations) + common);
      earlier_signatures.push_back(there->hash() + common);
    }
  optimisation::EvaluationJournal journal(comm, dir + "/evaluations.journal",
                                          cfg.hash(decides_evaluations) + common,
                                          earlier_signatures);
  if (!opt.resume.empty()) {
    journal.load();
    job.continue_evaluation_numbering(comm);
    job.log.info("resuming: " + std::to_string(journal.size()) +
                 " recorded evaluations will be replayed without flow solves" +
                 (job.forward_sweeps > 0 ? format("; new flow solves write evaluations/%04.0f on",
                                                  double(job.forward_sweeps + 1))
                                         : std::string()));
  }
  const auto design = design_from(cfg, job.m, job.domain.dim());
  optimisation::OptimiserSettings settings = settings_from(cfg, *design, opt);
  job.log.info(describe(cfg, *design, settings));
  // The time steps of the initial design, frozen for every design: J(x) must be smooth, and a
  // CFL-chosen dt would jump with the shape.
  const adjoint::StepSizes dts = job.driver.choose_steps(
      job.m, cfg.get_real("time.t_end"), cfg.get_real("time.dt"), cfg.get_real("time.cfl"));
  job.log.info(format("time steps: %.0f (frozen for every design)", double(dts.size())));
  // An evaluation of a long horizon takes minutes: its forward and reverse sweeps print their
  // progress every output.progress_every steps where the case or --set gives it, else every
  // tenth of the horizon.
  job.driver.set_progress_every(cfg.is_given("output.progress_every")
                                    ? cfg.get_int("output.progress_every")
                                    : std::max(1L, static_cast<long>(dts.size()) / 10));
  {
    navier_stokes::NavierStokes ns(job.domain, job.m.flow);
    adjoint::Checkpointing checkpointing =
        checkpointing_from(cfg, ns, static_cast<long>(dts.size()), dir, "");
    // SIGTERM stops within a step; the journal, not the sweep's records, is what --resume reads.
    checkpointing.watch_signals = true;
    checkpointing.record_on_signal = false;
    checkpointing.signal_note = "the evaluation journal holds every finished evaluation";
    job.driver.set_checkpointing(checkpointing);
  }
  const auto J = optimisation::make_reduced_objective(cfg.get_string("optimize.objective"),
                                                      cfg.get_string("optimize.lift_target"),
                                                      job.driver, *design, job.m, dts);
  settings.flow_constraints = J->flow_constraints();

  // The folder changes only once TAO has accepted x0 and optimize.petsc_options.
  std::unique_ptr<OptimisationRecord> record;
  const auto accepted = [&] {
    job.output.commit();
    run_on_root(comm, [&] { io::make_directories(dir + "/shapes"); });
    if (!settings.flow_constraints.empty())
      job.log.info(format("lift target: C_L = %.10e", optimisation::lift_target_of(*J)));
    record = std::make_unique<OptimisationRecord>(job, *J, *design, settings, dts);
  };
  optimisation::ShapeOptimiser optimiser(
      comm, *design, settings, [&](const std::vector<double>& x) { return J->evaluate(x); },
      [&](const IterationRecord& r) { record->iteration(r); }, journal, job.log);
  const std::vector<double> x0 = design->values(job.m);
  try {
    const optimisation::OptimiserResult result = optimiser.run(x0, accepted);
    io::Json report = io::Json::object();
    report["undertow_version"] = UNDERTOW_VERSION_STRING;
    report["case"] = loaded.name;
    report["mpi_ranks"] = comm.size();
    report_outcome(job, opt, optimiser, *J, *design, settings, *record, journal, x0, result,
                   report);
    const int code =
        opt.taylor ? taylor_tests(job, optimiser, *J, *design, x0, result.x, report) : kSuccess;
    write_report(comm, report, dir + "/optimize.json", opt.report);
    job.log.info("history: " + dir + "/history.csv; shapes: " + dir + "/shapes/");
    return code;
  } catch (const Stopped& e) {
    // Before the first evaluation is finished there is no journal to resume from.
    std::vector<std::pair<std::string, std::string>> options{
        {journal.size() > 0 ? "--resume" : "--output", dir}};
    if (opt.taylor)
      options.emplace_back("--taylor", "");
    if (!opt.restart.empty())
      options.emplace_back("--restart", opt.restart);
    if (!opt.report.empty())
      options.emplace_back("--report", opt.report);
    throw Stopped(
        std::string(e.what()) +
        format("; the evaluation journal holds %.0f finished evaluations", double(journal.size())) +
        "; continue with: " + continue_command("optimize", opt.case_file, cfg, options));
  }
}

} // namespace jobs
} // namespace undertow
