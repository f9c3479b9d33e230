#pragma once
/// \file
/// The interface an in-situ back end plugin implements (io/insitu.hpp loads it with dlopen).
/// A plugin is a shared library exporting `extern "C" InSituBackend* undertow_insitu_backend()`
/// that returns a new back end. Errors cross the library boundary as text, not exceptions.
/// The ParaView 5.11 legacy-Catalyst plugin is io/catalyst/catalyst_backend.cpp; a Catalyst 2
/// plugin would implement the same three calls with catalyst_initialize/execute/finalize.

#include "undertow/io/insitu_frame.hpp"

#include <mpi.h>
#include <string>
#include <vector>

namespace undertow {
namespace io {

class InSituBackend {
 public:
  virtual ~InSituBackend() = default;
  /// "ParaView 5.11.0 Catalyst (legacy API)".
  virtual std::string name() const = 0;
  /// What this rank lacks to run the pipelines (an X display for a ParaView that renders
  /// through X), or an empty string. Local: InSitu agrees on it over the ranks before
  /// initialize(). Not collective.
  virtual std::string missing_prerequisite() = 0;
  /// Loads every script on `comm` with `output_dir` as the pipelines' working folder. Returns
  /// an empty string, or what went wrong (the back end's own messages included). Collective.
  virtual std::string initialize(MPI_Comm comm, const std::vector<std::string>& scripts,
                                 const std::string& output_dir) = 0;
  /// Runs the pipelines on this rank's piece. Returns an empty string or what went wrong.
  /// Collective.
  virtual std::string execute(const InSituFrame& frame) = 0;
  /// Releases the pipelines (before MPI_Finalize). Collective.
  virtual void finalize() = 0;
};

/// The symbol a plugin exports.
constexpr const char* kInSituBackendSymbol = "undertow_insitu_backend";
using InSituBackendFactory = InSituBackend* (*)();

} // namespace io
} // namespace undertow
