// Benchmark of the advection-diffusion step: time per step split by phase, cell updates per
// second, and the kernels' effective memory bandwidth against a STREAM-like triad measured in the
// same run on the same ranks.
//
//   mpiexec -n R build/bin/bench_advection_diffusion [steps]
//
// Effective bandwidth counts the minimum traffic of one SSP-RK3 step per cell: per stage, the
// tendency reads c and the dim face velocities and writes rhs, and the update reads c0, c, rhs and
// writes the stage, so (dim + 2 + 4) * 8 bytes per stage, three stages. The triad
// a = b + s * c moves 3 * 8 bytes per element (4 * 8 with write-allocate; we count 3, as STREAM
// does).

#include "bench_support.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/field.hpp"
#include "undertow/core/threads.hpp"
#include "undertow/solvers/scalar/advection_diffusion.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mpi.h>

namespace {

using namespace undertow;
using Clock = std::chrono::steady_clock;

struct Row {
  long cells;
  double step_s, tendency_s, update_s, halo_s, other_s, mcups, gbs;
};

Row measure(const Communicator& comm, int dim, long n, long steps) {
  DomainSpec spec;
  spec.dim = dim;
  spec.cells = {n, n, dim == 3 ? n : 1};
  spec.periodic = {true, true, dim == 3};
  const Domain domain(comm, spec);
  scalar::AdvectionDiffusionParams p;
  p.velocity = {1.0, 0.5, dim == 3 ? 0.25 : 0.0};
  scalar::AdvectionDiffusion solver(domain, p);
  solver.initialise(0.0);
  const double dt = solver.stable_dt(0.5);
  solver.step(dt); // warm-up: first touch, buffer allocation
  solver.timers() = Timers();
  comm.barrier();
  const auto t0 = Clock::now();
  for (long s = 0; s < steps; ++s)
    solver.step(dt);
  Kokkos::fence();
  const double total = comm.max(std::chrono::duration<double>(Clock::now() - t0).count());
  const Timers& t = solver.timers();
  const double tendency = comm.max(t.seconds("tendency")) / steps;
  const double update = comm.max(t.seconds("update")) / steps;
  const double halo = comm.max(t.seconds("halo")) / steps;
  const double step = total / steps;
  const double cells = double(solver.concentration().layout().global.size());
  const double bytes = 3.0 * double(dim + 6) * 8.0 * cells;
  return {static_cast<long>(cells),
          step,
          tendency,
          update,
          halo,
          std::max(0.0, step - tendency - update - halo),
          cells / step / 1e6,
          bytes / (tendency + update) / 1e9};
}

} // namespace

int main(int argc, char** argv) {
  const bench::Session session(argc, argv);
  return session.run("bench_advection_diffusion", [&] {
    const Communicator& comm = session.comm();
    const long steps = static_cast<long>(session.number(1, 20));
    const double triad = bench::triad_bandwidth(comm, bench::triad_elements(), 10);
    if (comm.is_root()) {
      std::printf("advection-diffusion step benchmark: %d rank(s), Kokkos %s, %ld steps\n",
                  comm.size(), ExecutionSpace::name(), steps);
      std::printf("triad bandwidth (same run, all ranks): %.2f GB/s\n\n", triad);
      std::printf("%4s %10s %11s %11s %11s %11s %11s %12s %10s %8s\n", "dim", "cells", "step [ms]",
                  "tendency", "update", "halo", "other", "Mcell-upd/s", "kern GB/s", "of triad");
    }
    const std::pair<int, long> sizes[] = {{2, 256}, {2, 512}, {2, 1024}, {3, 64}, {3, 128}};
    for (const auto& [dim, n] : sizes) {
      const Row r = measure(comm, dim, n, dim == 3 && n >= 128 ? std::max(2L, steps / 4) : steps);
      if (comm.is_root())
        std::printf("%4d %10ld %11.3f %11.3f %11.3f %11.3f %11.3f %12.1f %10.2f %7.0f%%\n", dim,
                    r.cells, 1e3 * r.step_s, 1e3 * r.tendency_s, 1e3 * r.update_s, 1e3 * r.halo_s,
                    1e3 * r.other_s, r.mcups, r.gbs, 100.0 * r.gbs / triad);
    }
  });
}
