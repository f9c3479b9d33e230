// Uses the installed headers and libraries: builds a domain, a field and a halo plan, and runs a
// few steps of the advection-diffusion solver. Prints "downstream ok" on success.

#include <undertow/core/halo.hpp>
#include <undertow/core/version.hpp>
#include <undertow/solvers/scalar/advection_diffusion.hpp>

#include <cstdio>
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int code = 1;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    const undertow::Communicator comm(MPI_COMM_WORLD);
    undertow::DomainSpec spec;
    spec.cells = {16, 16, 1};
    spec.periodic = {true, true, false};
    const undertow::Domain domain(comm, spec);
    undertow::scalar::AdvectionDiffusion solver(domain,
                                                undertow::scalar::AdvectionDiffusionParams{});
    solver.initialise(0.0);
    for (int n = 0; n < 10; ++n)
      solver.step(solver.stable_dt(0.5));
    const double error = solver.error().l2;
    if (comm.is_root())
      std::printf("undertow %s downstream ok, RMS error %.3e\n", UNDERTOW_VERSION_STRING, error);
    code = error < 1e-1 ? 0 : 1;
  }
  MPI_Finalize();
  return code;
}
