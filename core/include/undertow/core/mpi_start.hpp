#pragma once
/// \file
/// Starting MPI in undertow's executables (the `undertow` command, the test and benchmark
/// mains).

namespace undertow {

/// MPI_Init, with a singleton's start made cheap. A process that no MPI launcher started
/// (none of the variables mpiexec, srun or another PMI launcher sets is in its environment) is
/// a job of one process that can only talk to itself. Under Open MPI such a process is then
/// started without what only jobs of several processes need, unless the environment already
/// chooses (an OMPI_MCA_ variable of the same name is kept as it is): no daemon of its own
/// (`ess_singleton_isolated`, before Open MPI 5) and the ob1 messaging layer instead of probing
/// for network fabrics first (the cm layer's fabric libraries took 0.2 s of a 0.25 s start on a
/// machine without one). Processes started by a launcher are started as MPI chooses. The
/// settings are made with setenv before MPI_Init and stay in the process's environment.
/// Collective over the processes of MPI_COMM_WORLD, as MPI_Init.
void mpi_init(int& argc, char**& argv);

/// Whether the environment shows an MPI launcher (mpiexec, srun with PMI or PMIx, Hydra) started
/// this process. Not collective.
bool started_by_mpi_launcher();

} // namespace undertow
