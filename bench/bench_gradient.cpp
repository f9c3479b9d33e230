// Benchmark of the store-all gradient on the Re = 100 cylinder (geometry of
// cases/cylinder/re100.ini) at two grid sizes: the wall time of the forward run alone, and of the
// gradient (forward run recording the tapes + reverse sweep), their ratio (goal <= 2; dolfin-
// adjoint reports 1.41 for steady Navier-Stokes), the time per phase of the reverse sweep, the
// pressure iterations of both sweeps, and the memory: the tapes against the forward solver's own
// fields, and the process's peak resident memory after each run. By default the last row is a
// stretched grid (D/16 in the box [0.1, 1.2] x [0.1, 0.3] of re20_stretched.ini, 5% growth
// outside), whose pressure solves take BoomerAMG (auto).
//
//   mpiexec -n R build/bin/bench_gradient [steps] [repeats] [scheme] [coarsest cells] [grids]
//
// scheme: explicit (SSP-RK3, three projections a step; the default), imex (RK3-CN, three
// projections) or imex_last (RK3-CN projected at its last substep only: one Poisson solve a
// step forward and one transposed solve a step in reverse). Same dt for all three.
// coarsest cells: pressure.coarsest_cells, the multigrid's largest coarsest grid (default 8192).
// grids: the rows, cells per diameter separated by commas, an 's' after one for the stretched
// grid (default "8,16,16s"). "64,128" measures a GPU away from its launch-bound sizes: 369k and
// 1.48M cells, with store-all tapes of about 1 and 4 GiB per 100 steps.
//
// The flow is first developed for a short while (not timed) so that both sweeps see a flow with
// a wake, not the start-up from rest.

#include "bench_support.hpp"
#include "undertow/adjoint/gradient.hpp"
#include "undertow/core/stretching.hpp"
#include "undertow/solvers/linear/petsc_session.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mpi.h>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace undertow;
using namespace undertow::navier_stokes;
using namespace undertow::adjoint;

using bench::peak_rss_mib;

/// One row of the benchmark: cells per diameter, and whether the grid is stretched.
struct GridRow {
  long per_diameter = 0;
  bool stretched = false;
};

/// The rows named by `list` ("8,16,16s"); empty if any entry is not a whole number of at least 2
/// with an optional 's'.
std::vector<GridRow> parse_grids(const std::string& list) {
  std::vector<GridRow> rows;
  std::stringstream in(list);
  std::string entry;
  while (std::getline(in, entry, ',')) {
    GridRow row;
    if (!entry.empty() && entry.back() == 's') {
      row.stretched = true;
      entry.pop_back();
    }
    char* end = nullptr;
    row.per_diameter = std::strtol(entry.c_str(), &end, 10);
    if (entry.empty() || *end != '\0' || row.per_diameter < 2 || row.per_diameter > 100000)
      return {};
    rows.push_back(row);
  }
  return rows;
}

bool known_scheme(const std::string& name) {
  return name == "explicit" || name == "imex" || name == "imex_last";
}

/// The time scheme named on the command line (one of known_scheme's).
void set_scheme(const std::string& name, NavierStokesParams& flow) {
  if (name == "explicit")
    return;
  flow.scheme = TimeScheme::Rk3CrankNicolson;
  if (name == "imex_last")
    flow.imex_projection = ImexProjection::LastSubstep;
}

void measure(const Communicator& comm, long per_diameter, long steps, int repeats,
             const std::string& scheme, long coarsest_cells, bool stretched = false) {
  DomainSpec s;
  s.dim = 2;
  s.cells = {22 * per_diameter, std::lround(4.1 * per_diameter), 1};
  s.length = {2.2, 0.41, 1.0};
  if (stretched) {
    const double box[2][2] = {{0.1, 1.2}, {0.1, 0.3}};
    for (int a = 0; a < 2; ++a) {
      AxisClustering c;
      c.box_lo = box[a][0];
      c.box_hi = box[a][1];
      c.spacing = 0.1 / double(per_diameter);
      s.faces[a] = clustered_faces(0.0, s.length[a], c, "bench");
      s.cells[a] = static_cast<long>(s.faces[a].size()) - 1;
    }
  }
  const Domain d(comm, s);
  Control m;
  m.flow = bench::cylinder_in_channel(1e-3, 1.5, 0.2, 0.2, 0.05, 1e-12);
  set_scheme(scheme, m.flow);
  m.flow.pressure.coarsest_cells = coarsest_cells;
  const double dt = 0.4 * 0.1 / per_diameter / 1.5; // Courant number about 0.6
  {
    // Develop the flow: 200 steps from rest.
    NavierStokes ns(d, m.flow);
    for (int i = 0; i < 200; ++i)
      ns.step(dt);
    m.initial = ns.make_velocity("initial");
    for (int c = 0; c < 2; ++c)
      copy(ns.velocity(c), m.initial[c]);
  }
  const Log quiet(comm);
  GradientDriver driver(
      d,
      [=](NavierStokes&) {
        TimeWindow w;
        w.average = true;
        w.start = 0;
        w.end = steps * dt;
        ObjectiveSum J(w);
        J.add(1.0, force_coefficient(0, 0, 20.0, "drag"));
        return J;
      },
      quiet, 0);
  const std::vector<double> dts(steps, dt);
  driver.objective(m, std::vector<double>(3, dt)); // warm-up
  // The best of `repeats` runs of each, interleaved so that both see the same load: this
  // machine's timings vary by 20-30% from run to run.
  double forward = HUGE_VAL, gradient = HUGE_VAL, rss_forward = 0;
  Gradient g;
  for (int r = 0; r < repeats; ++r) {
    comm.barrier();
    auto t0 = std::chrono::steady_clock::now();
    driver.objective(m, dts);
    forward = std::min(forward, comm.max(bench::seconds_since(t0)));
    if (r == 0)
      rss_forward = comm.max(peak_rss_mib()); // before any gradient run
    comm.barrier();
    t0 = std::chrono::steady_clock::now();
    Gradient run = driver.gradient(m, dts);
    const double t = comm.max(bench::seconds_since(t0));
    if (t < gradient) {
      gradient = t;
      g = run;
    }
  }
  const double rss_gradient = comm.max(peak_rss_mib());
  // The forward solver's own fields: 3 velocity triples (u, 2 stages), p, psi, div, masks,
  // penalised and scratch: count them as allocated by NavierStokes for this case.
  const double face_bytes = 8.0 * double(s.cells[0] + 3) * double(s.cells[1] + 3) / comm.size();
  const double solver_fields = face_bytes * (2 * (3 + 1 + 1 + 1 + 1) + 3);
  if (comm.is_root())
    std::printf("%5ld %9ldx%-4ld %6ld %10.3f %10.3f %10.3f %8.2f %8.2f %8.2f %10.1f %10.1f "
                "%10.1f %8.1f %8.1f\n",
                per_diameter, s.cells[0], s.cells[1], steps, forward, g.forward_seconds,
                g.reverse_seconds, gradient / forward, double(g.iterations_forward) / steps,
                double(g.iterations_reverse) / steps, g.tape_bytes / 1048576.0,
                solver_fields / 1048576.0, g.tape_bytes / solver_fields, rss_forward, rss_gradient);
  // Every phase the adjoint timed (the explicit scheme's: poisson, momentum, projection,
  // boundary+halo; RK3-CN's also its transposed viscous solves and substeps), and the rest.
  if (comm.is_root()) {
    std::printf("      reverse phases [s]:");
    double timed = 0;
    for (const auto& [phase, seconds] : g.reverse_timers.all()) {
      std::printf(" %s %.3f,", phase.c_str(), seconds);
      timed += seconds;
    }
    std::printf(" other %.3f\n", g.reverse_seconds - timed);
  }
}

} // namespace

int main(int argc, char** argv) {
  const bench::Session session(argc, argv);
  {
    const Communicator& comm = session.comm();
    const long steps = static_cast<long>(session.number(1, 100));
    const int repeats = static_cast<int>(session.number(2, 3));
    const std::string scheme = session.text(3, "explicit");
    const long coarsest = static_cast<long>(
        session.number(4, double(linear::MultigridSpec::kDefaultMaxCoarsestCells)));
    const std::string grid_list = session.text(5, "8,16,16s");
    const std::vector<GridRow> grids = parse_grids(grid_list);
    if (!known_scheme(scheme)) {
      if (comm.is_root())
        std::fprintf(stderr, "bench_gradient: scheme '%s' is not explicit, imex or imex_last\n",
                     scheme.c_str());
      return 2;
    }
    if (grids.empty()) {
      if (comm.is_root())
        std::fprintf(stderr,
                     "bench_gradient: grids '%s' is not a list of cells per diameter (at least 2) "
                     "separated by commas, each with an optional 's' for the stretched grid, e.g. "
                     "8,16,16s\n",
                     grid_list.c_str());
      return 2;
    }
    if (comm.is_root()) {
      std::printf("Store-all gradient benchmark (cylinder Re = 100, time-averaged drag): %d "
                  "rank(s), Kokkos %s, %ld steps, scheme %s, coarsest grid <= %ld cells\n",
                  comm.size(), ExecutionSpace::name(), steps, scheme.c_str(), coarsest);
      std::printf("ratio = (forward with tapes + reverse) / forward alone; Poisson its per step "
                  "(all its solves); memory per rank in MiB\n\n");
      std::printf("%5s %14s %6s %10s %10s %10s %8s %8s %8s %10s %10s %10s %8s %8s\n", "D/h", "grid",
                  "steps", "forward s", "fwd+tape s", "reverse s", "ratio", "its fwd", "its rev",
                  "tapes", "solver", "tapes/sol", "RSS fwd", "RSS grad");
    }
    return session.run("bench_gradient", [&] {
      for (const GridRow& row : grids)
        measure(comm, row.per_diameter, steps, repeats, scheme, coarsest, row.stretched);
    });
  }
}
