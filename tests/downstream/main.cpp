// Uses the installed headers and libraries: builds a domain, a field and a halo plan, runs a few
// steps of the advection-diffusion solver, keeps its state in a checkpoint store and plans a
// revolve schedule (the adjoint API; the Navier-Stokes gradient driver's header must compile
// too). Prints "downstream ok" on success.

#include <undertow/adjoint/checkpoint_store.hpp>
#include <undertow/adjoint/gradient.hpp>
#include <undertow/adjoint/schedules.hpp>
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

    undertow::adjoint::MemoryCheckpointStore store;
    undertow::adjoint::Snapshot state;
    state.step = 10;
    state.fields.emplace_back("c", solver.concentration());
    store.save(0, state);
    const bool stored = store.load(0).step == 10 && store.has(0);
    // Binomial revolve over 20 steps with 3 slots: the Griewank-Walther minimum of 45 advances.
    const undertow::adjoint::RevolveSchedule revolve(20, 3);
    const bool planned = revolve.advances() == 45;
    if (comm.is_root())
      std::printf("undertow %s downstream ok, RMS error %.3e, checkpoint %s, revolve %ld "
                  "advances\n",
                  UNDERTOW_VERSION_STRING, error, stored ? "stored" : "LOST", revolve.advances());
    code = error < 1e-1 && stored && planned ? 0 : 1;
  }
  MPI_Finalize();
  return code;
}
