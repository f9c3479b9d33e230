#pragma once
/// \file
/// What the Navier-Stokes model hands the physics-neutral checkpoint stores: its step tapes as
/// Snapshots, and the sizes of its checkpoints and tapes for the checkpointing plan.

#include "undertow/adjoint/checkpoint_store.hpp"
#include "undertow/solvers/navier_stokes/solver.hpp"

namespace undertow {
namespace adjoint {

/// A step tape as a snapshot (sharing its fields) and back (copying into `tape`). Not
/// collective.
Snapshot to_snapshot(const navier_stokes::StepTape& tape, long step, int dim);
void from_snapshot(const Snapshot& s, navier_stokes::StepTape& tape, int dim);

/// Bytes of one forward checkpoint (the solver's state fields, whole local arrays: one "state")
/// and of one step tape (three velocity triples), on this rank. Not collective.
double state_bytes(navier_stokes::NavierStokes& ns);
double tape_bytes(const navier_stokes::NavierStokes& ns);

} // namespace adjoint
} // namespace undertow
