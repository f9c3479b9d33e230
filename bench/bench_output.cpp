// Benchmark of field output: the write bandwidth of a snapshot's field set (cell-centred
// velocity, pressure, vorticity and mask, plus the raw face velocities) on a 512^2 and a 128^3
// grid, with io::FieldFile, against `dd` writing the same number of bytes to the same directory in
// the same run. Both are flushed to disk (fsync) before the clock stops. Then the cost of one
// snapshot as a percentage of 100 Navier-Stokes steps (a snapshot every 100 steps).
//
//   mpiexec -n R build/bin/bench_output [directory]

#include "bench_support.hpp"
#include "undertow/io/field_file.hpp"
#include "undertow/solvers/linear/petsc_session.hpp"
#include "undertow/solvers/navier_stokes/solver.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <mpi.h>
#include <string>
#include <unistd.h>

namespace {

using namespace undertow;

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void sync_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

/// Seconds to write `bytes` with dd (1 MiB blocks, fsync at the end), on rank 0.
double dd_seconds(const std::string& path, double bytes) {
  const long blocks = static_cast<long>(bytes / (1 << 20)) + 1;
  const std::string command = "dd if=/dev/zero of=" + path +
                              " bs=1M count=" + std::to_string(blocks) + " conv=fsync status=none";
  const double t0 = now();
  const int rc = std::system(command.c_str());
  const double t = now() - t0;
  std::remove(path.c_str());
  return rc == 0 ? t * bytes / (double(blocks) * (1 << 20)) : -1.0;
}

void measure(const Communicator& comm, int dim, long n, const std::string& dir) {
  DomainSpec spec;
  spec.dim = dim;
  spec.cells = {n, n, dim == 3 ? n : 1};
  const Domain domain(comm, spec);
  navier_stokes::NavierStokesParams p;
  p.boundaries.face[3].velocity[0] = 1.0;
  navier_stokes::NavierStokes ns(domain, p);
  const int cell_fields = dim + 1 + (dim == 2 ? 1 : 3) + 1; // velocity, p, vorticity, mask
  Field cell(domain, Location::Cell, 1, "cell");
  const double cells = double(n) * n * (dim == 3 ? n : 1);
  const double bytes = 8.0 * (cell_fields * cells + dim * cells); // faces ~ cells each
  const std::string path = dir + "/bench_output_" + std::to_string(dim) + "d.h5";
  double best = 1e30;
  for (int r = 0; r < 3; ++r) {
    comm.barrier();
    const double t0 = now();
    {
      io::FieldFile file(domain, path, io::FieldFile::Mode::Create);
      for (int f = 0; f < cell_fields; ++f)
        file.write("cell" + std::to_string(f), cell);
      for (int c = 0; c < dim; ++c)
        file.write("faces" + std::to_string(c), ns.velocity(c));
      file.commit();
    }
    if (comm.is_root())
      sync_file(path);
    comm.barrier();
    best = std::min(best, now() - t0);
  }
  double dd = 0;
  if (comm.is_root()) {
    std::remove(path.c_str());
    dd = dd_seconds(dir + "/bench_output_dd.bin", bytes);
  }
  dd = comm.max(dd);
  // Step time of the same grid, for the overhead of one snapshot every 100 steps.
  const double dt = ns.stable_dt(0.5) * 0.5;
  ns.step(dt);
  comm.barrier();
  const double s0 = now();
  const int steps = dim == 3 ? 2 : 5;
  for (int s = 0; s < steps; ++s)
    ns.step(dt);
  comm.barrier();
  const double step = (now() - s0) / steps;
  if (comm.is_root())
    std::printf("%4d %6ld %9.1f %10.3f %9.3f %10.3f %9.3f %8.2f %10.1f %9.2f%%\n", dim, n,
                bytes / 1e6, best, bytes / best / 1e9, dd, bytes / dd / 1e9, dd / best, 1e3 * step,
                100.0 * best / (100.0 * step));
}

} // namespace

int main(int argc, char** argv) {
  const bench::Session session(argc, argv);
  return session.run("bench_output", [&] {
    const Communicator& comm = session.comm();
    const std::string dir = session.text(1, ".");
    if (comm.is_root()) {
      std::printf("Field output benchmark: %d rank(s), directory %s, best of 3 writes, fsync'd\n\n",
                  comm.size(), dir.c_str());
      std::printf("%4s %6s %9s %10s %9s %10s %9s %8s %10s %10s\n", "dim", "n", "MB", "write s",
                  "GB/s", "dd s", "dd GB/s", "ours/dd", "step ms", "per 100");
    }
    measure(comm, 2, 512, dir);
    measure(comm, 3, 128, dir);
  });
}
