"""An error on one rank alone ends every rank with its message (no rank waits forever): rank 1
asks for a field that does not exist while rank 0 goes on to a collective call. Run under
`python3 -m mpi4py`, which aborts the job on an uncaught exception, as docs/python.md advises."""

import undertow
from support import COMM, small_case

sim = undertow.Simulation(small_case())
if COMM.rank == 1:
    sim.field("vorticity")  # ConfigError on rank 1 only
sim.run(steps=2)  # rank 0 would wait here for rank 1
print("rank", COMM.rank, "was not stopped", flush=True)
