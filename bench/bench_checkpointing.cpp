// Benchmark of checkpointed gradients over a long horizon (issue 6): a 2D cylinder flow at
// Re = 100 on 256 x 128 cells, 10,000 steps, 20 checkpoint slots (by default 16 in memory and 4
// in the HDF5 file: multistage). It measures, in one run:
//   - the peak resident memory, against the store-all estimate (every step's tape) and against
//     the goal (s + 3) x one state + a fixed base, the base being the peak of the same gradient
//     over 2 steps, measured first in the same process;
//   - the recomputation factor, against the Griewank-Walther formula 1 + t(l, s) / l;
//   - the time split between forward, recompute, adjoint and checkpoint I/O;
//   - the bandwidth of the disk store.
//
//   mpiexec -n R build/bin/bench_checkpointing [steps] [ram_slots] [disk_slots] [disk_dir] [ny]
//
// ny (default 128) sets the grid, 2 ny x ny cells, and dt in proportion.

#include "bench_support.hpp"
#include "undertow/adjoint/gradient.hpp"
#include "undertow/solvers/linear/petsc_session.hpp"

#include <cstdio>
#include <cstdlib>
#include <mpi.h>
#include <string>

namespace {

using namespace undertow;
using namespace undertow::navier_stokes;
using namespace undertow::adjoint;

constexpr double kMiB = 1048576.0;

/// Re = 100 (mean inflow 1 m/s, D = 0.25 m) in a 4 m x 2 m channel, h = D / 16.
Control cylinder(const Domain& d) {
  Control m;
  // Slightly off the axis (y = 0.95), so that shedding starts early.
  m.flow = bench::cylinder_in_channel(0.0025, 1.5, 1.0, 0.95, 0.125, 1e-10);
  NavierStokes ns(d, m.flow);
  m.initial = ns.make_velocity("initial"); // from rest
  return m;
}

void run(const Communicator& comm, long steps, int ram, int disk, const std::string& dir, long ny) {
  DomainSpec s;
  s.dim = 2;
  s.cells = {2 * ny, ny, 1};
  s.length = {4.0, 2.0, 1.0};
  const Domain d(comm, s);
  const Control m = cylinder(d);
  const double dt = 0.004 * 128.0 / double(ny); // Courant number about 0.4 at the peak inflow
  const Log log(comm);
  GradientDriver driver(
      d,
      [=](NavierStokes&) {
        TimeWindow w;
        w.average = true;
        w.end = steps * dt;
        ObjectiveSum J(w);
        J.add(1.0, force_coefficient(0, 0, 8.0, "drag")); // C_D = F / (0.5 U^2 D)
        return J;
      },
      log, steps / 10);
  Checkpointing c;
  c.schedule = disk > 0 ? Checkpointing::Schedule::Multistage : Checkpointing::Schedule::Revolve;
  c.ram_slots = ram;
  c.disk_slots = disk;
  c.file = dir + "/bench_checkpoints.h5";
  driver.set_checkpointing(c);
  // The fixed base: the same gradient over 2 steps (solver, adjoint, tapes, the HDF5 library
  // and its open file, x_0's checkpoint).
  driver.gradient(m, StepSizes(2, dt));
  const double base = comm.max(bench::peak_rss_mib());
  const bench::HeapFigures heap_base = bench::heap_figures();
  double state = 0, tape = 0;
  {
    NavierStokes ns(d, m.flow);
    state = comm.max(state_bytes(ns));
    tape = comm.max(tape_bytes(ns));
  }
  const int slots = c.slots();
  const long optimum = RevolveSchedule::minimum_advances(steps, slots);
  if (comm.is_root())
    std::printf("bench_checkpointing: %ld x %ld cells, %ld steps, %d slots (%d in memory, %d on "
                "disk), %d rank(s)\n  one state %.2f MiB, one tape %.2f MiB per rank; base %.1f "
                "MiB\n",
                s.cells[0], s.cells[1], steps, slots, ram, disk, comm.size(), state / kMiB,
                tape / kMiB, base);
  const auto t0 = std::chrono::steady_clock::now();
  const Gradient g = driver.gradient(m, StepSizes(steps, dt)); // a few bytes for any horizon
  const double total = comm.max(bench::seconds_since(t0));
  const double peak = comm.max(bench::peak_rss_mib());
  const bench::HeapFigures heap_end = bench::heap_figures();
  const double store_all = base + double(steps) * tape / kMiB;
  const double goal = base + (slots + 3) * state / kMiB;
  const double written = comm.sum(g.bytes_written), read = comm.sum(g.bytes_read);
  const double io = comm.max(g.io_seconds);
  if (!comm.is_root())
    return;
  std::printf("J = %.12e, dJ/dnu = %.6e, dJ/dradius = %.6e\n", g.objective, g.flow.nu,
              g.shape.at(0).back());
  std::printf("peak memory      %10.1f MiB measured (rank max); store-all estimate %.1f MiB "
              "(%.0fx); goal (s + 3) states + base = %.1f MiB: %s\n",
              peak, store_all, store_all / peak, goal, peak <= goal ? "met" : "NOT met");
  std::printf("  above the base %8.1f MiB = %.2f states (s + 3 = %d)\n", peak - base,
              (peak - base) * kMiB / state, slots + 3);
  std::printf("heap (rank 0)    %10.2f MiB main heap, %.2f MiB mapped, %.2f MiB in use after the "
              "gradient; after the base %.2f, %.2f, %.2f\n",
              heap_end.arena, heap_end.mapped, heap_end.in_use, heap_base.arena, heap_base.mapped,
              heap_base.in_use);
  std::printf("recomputation    %10ld steps, factor %.3f forward runs in all; formula 1 + t(l, "
              "s) / l = %.3f (t = %ld)\n",
              g.recomputed_steps, 1.0 + double(g.recomputed_steps) / steps,
              1.0 + double(optimum) / steps, optimum);
  std::printf("time             %10.1f s: forward %.1f s, recompute %.1f s, adjoint %.1f s, "
              "checkpoint I/O %.1f s, other %.1f s\n",
              total, g.forward_seconds, g.recompute_seconds, g.reverse_seconds, io,
              total - g.forward_seconds - g.recompute_seconds - g.reverse_seconds - io);
  std::printf("  gradient / forward run = %.2f; the adjoint step costs %.2f forward steps\n",
              total / g.forward_seconds, g.reverse_seconds / g.forward_seconds);
  if (disk > 0)
    std::printf("disk             %10.1f MiB written, %.1f MiB read in %.2f s: %.0f MiB/s "
                "(all ranks)\n",
                written / kMiB, read / kMiB, io, io > 0 ? (written + read) / kMiB / io : 0.0);
}

} // namespace

int main(int argc, char** argv) {
  const bench::Session session(argc, argv);
  return session.run("bench_checkpointing", [&] {
    run(session.comm(), static_cast<long>(session.number(1, 10000)),
        static_cast<int>(session.number(2, 16)), static_cast<int>(session.number(3, 4)),
        session.text(4, "."), static_cast<long>(session.number(5, 128)));
  });
}
