#pragma once
/// \file
/// In-situ visualisation (docs/insitu.md): a job hands each rank's piece of its fields to
/// pipelines (ParaView Catalyst scripts) while the run is alive, instead of writing every step to
/// disk.
///
/// The seam has three parts:
///   - InSituFrame: plain host data of one step on one rank (a piece of a uniform grid with one
///     ghost layer towards each neighbouring piece, named cell and point arrays, metadata);
///   - InSituBuilder: fills a frame from undertow Fields (collective: it fills the ghosts);
///   - InSitu: loads a back end (io/insitu_backend.hpp) as a plugin at run time, initialises its
///     pipelines and hands it frames. The ParaView 5.11 legacy-Catalyst back end is the plugin
///     undertow_catalyst.so; a Catalyst 2 (Conduit) back end would be another plugin mapping the
///     same frame to a Conduit Blueprint mesh.
/// Loading the back end only when a case asks for it keeps ParaView's libraries out of every
/// other run, and turns a missing ParaView into a clear error rather than a loader failure.

#include "undertow/core/communicator.hpp"
#include "undertow/core/domain.hpp"
#include "undertow/core/field.hpp"
#include "undertow/core/halo.hpp"
#include "undertow/io/insitu_frame.hpp"

#include <memory>
#include <string>
#include <vector>

namespace undertow {
namespace io {

/// Fills frames from Fields of `domain`: each rank's owned cells plus one ghost layer towards
/// every neighbouring piece (not across a periodic boundary), so filters that average cells to
/// points see a seamless global grid.
class InSituBuilder {
 public:
  explicit InSituBuilder(const Domain& domain);
  ~InSituBuilder();

  /// An empty frame of this rank's piece at `step` and `time`. Not collective.
  InSituFrame begin(long step, double time) const;
  /// Adds a cell array from cell-centred fields, one per component (their owned values are
  /// used; ghosts are filled here). Collective.
  void cell(InSituFrame& frame, const std::string& name, const std::vector<const Field*>& parts);
  /// Adds a point array from vertex fields (Location::Node), one per component. Collective.
  void point(InSituFrame& frame, const std::string& name, const std::vector<const Field*>& parts);
  /// Sets the number <name>_max of `frame` to the largest norm of array `name` over every rank's
  /// own cells or points (a pipeline's own ranges are its piece's: colour maps and scales that
  /// must agree over the ranks read these). Collective.
  void maximum(InSituFrame& frame, const std::string& name) const;

 private:
  void add(InSituFrame& frame, const std::string& name, const std::vector<const Field*>& parts,
           bool on_points);
  const Domain& m_domain;
  Field m_cell, m_node; ///< scratch with one ghost layer
  std::unique_ptr<HaloPlan> m_cell_halo, m_node_halo;
};

/// Where the pipelines come from and where they write.
struct InSituOptions {
  std::vector<std::string> scripts; ///< pipeline scripts (paths as given)
  std::string output_dir;           ///< their working folder: <output>/insitu
  /// The back end's shared library; empty: the UNDERTOW_CATALYST_PLUGIN environment variable,
  /// else undertow_catalyst.so next to the executable's lib folder or in the install tree.
  std::string plugin;
};

/// Pipelines of a run. Construction loads the back end and every script, so that a missing
/// ParaView, a missing script or one that fails to load is reported before any step. Collective.
class InSitu {
 public:
  /// Throws ConfigError naming the script or library and the fix (with ParaView's message).
  /// Collective.
  InSitu(const Communicator& comm, const InSituOptions& options);
  /// Finalises the pipelines: an InSitu must be destroyed before MPI_Finalize.
  ~InSitu();
  InSitu(const InSitu&) = delete;
  InSitu& operator=(const InSitu&) = delete;

  /// Runs every pipeline on `frame`. Throws CollectiveError with the pipeline's message if one
  /// fails on any rank. Collective.
  void execute(const InSituFrame& frame);

  /// "ParaView 5.11.0 Catalyst (legacy API)", for logs.
  const std::string& backend_name() const { return m_name; }
  long calls() const { return m_calls; }
  double seconds() const { return m_seconds; } ///< wall time spent in execute() on this rank
  /// The first call's share of seconds(): it also sets the pipelines up (imports, views).
  double first_seconds() const { return m_first_seconds; }

 private:
  const Communicator& m_comm;
  std::string m_name;
  struct Backend;
  std::unique_ptr<Backend> m_backend;
  long m_calls = 0;
  double m_seconds = 0;
  double m_first_seconds = 0;
};

/// The plugin path InSitu would load with these options (for `undertow info`). Not collective.
std::string insitu_plugin_path(const InSituOptions& options);

} // namespace io
} // namespace undertow
