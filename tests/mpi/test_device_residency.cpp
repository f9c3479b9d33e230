// Device residency of the time steps: with pressure.krylov = kokkos, the Navier-Stokes forward
// step (both time schemes, walls, inflow and outflow, periodic axes whose halo messages go to
// the rank itself, a stretched grid) and its adjoint step call no Kokkos::deep_copy between views,
// the only way data moves between host and device memory in this code. The calls are counted with
// Kokkos Tools' deep-copy callback, which fires on every backend: on the Serial build each call
// a GPU build would make is seen here, with no GPU. Allowed are fills from a scalar (no host
// data) and, on more than one rank, the MPI buffers of the halo exchanges, of the multigrid's
// moves onto fewer ranks and of its line smoother's pipeline (no CUDA-aware MPI is assumed).

#include "test_support.hpp"

#include "undertow/solvers/navier_stokes/adjoint.hpp"
#include "undertow/solvers/navier_stokes/solver.hpp"

#include <cstdio>
#include <gtest/gtest.h>
#include <regex>
#include <string>
#include <vector>

namespace {

using namespace undertow;
using namespace undertow::navier_stokes;
using undertow::testing::world;

struct DeepCopy {
  std::string dst, src;
  std::uint64_t bytes;
};

std::vector<DeepCopy> g_copies;
bool g_recording = false;

void on_deep_copy(Kokkos::Tools::SpaceHandle, const char* dst, const void*,
                  Kokkos::Tools::SpaceHandle, const char* src, const void*, std::uint64_t bytes) {
  if (g_recording)
    g_copies.push_back({dst, src, bytes});
}

/// Records the deep copies between start() and the destructor.
class DeepCopyRecorder {
 public:
  DeepCopyRecorder() { Kokkos::Tools::Experimental::set_begin_deep_copy_callback(&on_deep_copy); }
  ~DeepCopyRecorder() {
    g_recording = false;
    Kokkos::Tools::Experimental::set_begin_deep_copy_callback(nullptr);
  }
  void start() {
    g_copies.clear();
    g_recording = true;
  }
  /// The copies that move data between host and device on a GPU build.
  std::vector<DeepCopy> host_transfers(int ranks) const {
    // The halo buffers, and the fields of the multigrid levels below the finest that its moves
    // onto fewer ranks send (
    // the coarsest solve, the same code on any number of ranks, is seen on one rank), and the
    // line smoother's pipeline along the ranks of an axis.
    static const std::regex mpi_buffer("halo::.*|mg[1-9][0-9]*::[bx].*|mg::line_(send|recv)");
    std::vector<DeepCopy> out;
    for (const DeepCopy& c : g_copies) {
      const bool fill = c.src == "Scalar";
      const bool mpi =
          ranks > 1 && (std::regex_match(c.dst, mpi_buffer) || std::regex_match(c.src, mpi_buffer));
      const bool empty_halo = c.bytes == 0 && c.dst.rfind("halo::", 0) == 0;
      if (!fill && !mpi && !empty_halo)
        out.push_back(c);
    }
    return out;
  }
};

std::string describe(const std::vector<DeepCopy>& copies) {
  std::string s;
  for (const DeepCopy& c : copies)
    s += "\n  " + c.src + " -> " + c.dst + " (" + std::to_string(c.bytes) + " bytes)";
  return s;
}

DomainSpec box(int dim, std::array<long, 3> cells) {
  DomainSpec s;
  s.dim = dim;
  s.cells = cells;
  return s;
}

/// `s` with every axis periodic: halo messages to this rank itself on one rank.
DomainSpec periodic(DomainSpec s) {
  s.periodic = {true, true, true};
  return s;
}

/// `s` stretched along x and y (cells of widths varying 4 times): the Kokkos CG's weighted
/// system and the multigrid's line smoother.
DomainSpec stretched(DomainSpec s) {
  for (int a = 0; a < 2; ++a)
    s.faces[static_cast<std::size_t>(a)] =
        undertow::testing::smoothly_stretched(s.cells[a], s.length[a], 0.6);
  return s;
}

/// With the Kokkos CG: a channel (parabolic inflow, outflow) or a lid-driven cavity.
NavierStokesParams flow(TimeScheme scheme, bool channel) {
  NavierStokesParams p;
  p.nu = channel ? 0.02 : 0.01;
  p.scheme = scheme;
  p.pressure.krylov = linear::PressureKrylov::Kokkos;
  if (!channel) {
    p.boundaries.face[3].velocity[0] = 1.0;
    return p;
  }
  p.boundaries.face[0].kind = BoundaryKind::Inflow;
  p.boundaries.face[0].velocity[0] = 1.0;
  p.boundaries.face[0].profile = InflowProfile::Parabolic;
  p.boundaries.face[1].kind = BoundaryKind::Outflow;
  return p;
}

TEST(DeviceResidency, StepsAndAdjointStepsCopyNothingToTheHost) {
  const auto& comm = world();
  struct Run {
    std::string name;
    DomainSpec grid;
    NavierStokesParams params;
  };
  const std::vector<Run> runs{
      {"cavity, explicit", box(2, {32, 32, 1}), flow(TimeScheme::SspRk3, false)},
      {"cavity, imex", box(2, {32, 32, 1}), flow(TimeScheme::Rk3CrankNicolson, false)},
      {"channel 3D, imex", box(3, {16, 8, 8}), flow(TimeScheme::Rk3CrankNicolson, true)},
      {"periodic, explicit", periodic(box(2, {32, 16, 1})), flow(TimeScheme::SspRk3, false)},
      {"channel stretched", stretched(box(2, {32, 16, 1})),
       flow(TimeScheme::Rk3CrankNicolson, true)}};
  DeepCopyRecorder recorder;
  for (const Run& run : runs) {
    const Domain d(comm, run.grid);
    NavierStokes ns(d, run.params);
    NavierStokesAdjoint adjoint(ns);
    const double dt = 0.005;
    StepTape tape;
    ns.step(dt, &tape); // the first step and adjoint step allocate and check their options
    Velocity3 lambda;
    for (int c = 0; c < d.dim(); ++c) {
      lambda[c] = Field(ns.velocity(c).layout(), "lambda");
      undertow::testing::fill_global_random(lambda[c], 7 + c, -1.0, 2.0);
    }
    const ForceSeed none;
    adjoint.step_adjoint(tape, lambda, none);

    recorder.start();
    for (int n = 0; n < 3; ++n)
      ns.step(dt);
    const std::vector<DeepCopy> forward = recorder.host_transfers(comm.size());
    EXPECT_TRUE(forward.empty()) << run.name << ": the forward steps made " << forward.size()
                                 << " host transfers:" << describe(forward);
    ns.step(dt, &tape);
    recorder.start();
    for (int n = 0; n < 2; ++n)
      adjoint.step_adjoint(tape, lambda, none);
    const std::vector<DeepCopy> backward = recorder.host_transfers(comm.size());
    EXPECT_TRUE(backward.empty()) << run.name << ": the adjoint steps made " << backward.size()
                                  << " host transfers:" << describe(backward);
    if (comm.is_root())
      std::printf("%-18s host transfers in 3 steps: %zu, in 2 adjoint steps: %zu (deep copies in "
                  "these: %zu, all fills from a scalar or MPI buffers)\n",
                  run.name.c_str(), forward.size(), backward.size(), g_copies.size());
  }
}

TEST(DeviceResidency, TheCountSeesPetscsHostVectors) {
  // The same count sees the copies of PETSc's CG (pressure.krylov = petsc): each solve moves the
  // right-hand side and the pressure into host vectors and back, and each V-cycle its input and
  // output, so the test above would fail if a step still went through the host.
  const auto& comm = world();
  NavierStokesParams p = flow(TimeScheme::SspRk3, false);
  p.pressure.krylov = linear::PressureKrylov::Petsc;
  const Domain d(comm, box(2, {32, 32, 1}));
  NavierStokes ns(d, p);
  ns.step(0.005);
  DeepCopyRecorder recorder;
  recorder.start();
  ns.step(0.005);
  const std::size_t transfers = recorder.host_transfers(comm.size()).size();
  EXPECT_GE(transfers, 3u * 2u); // at least the right-hand side and the solution of 3 solves
  if (comm.is_root())
    std::printf("with PETSc's CG: %zu host transfers in one step\n", transfers);
}

} // namespace
