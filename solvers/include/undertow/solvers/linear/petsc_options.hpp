#pragma once
/// \file
/// A PETSc options database of one solver, so that library code never edits PETSc's global
/// database. It starts as a copy of the global one (PETSC_OPTIONS, ~/.petscrc: what the user
/// gave), takes the solver's own options and defaults, and is made the default database only
/// while the solver's PETSc objects read options: at set-up and in every solve, since some of
/// them (multigrid levels, a GAMG hierarchy rebuilt for a new operator) read theirs late.

#include "undertow/solvers/linear/petsc_session.hpp"

#include <string>
#include <vector>

namespace undertow {
namespace linear {

/// The option names of `options`, written as on a command line ("-pc_type gamg -ksp_monitor"),
/// in order. Throws ConfigError naming the case-file `key` for a word that is neither an option
/// (-name) nor the value of the option before it ("pc_type lu": a forgotten dash). Not
/// collective.
std::vector<std::string> option_names(const std::string& key, const std::string& options);

class SolverOptions {
 public:
  /// A copy of the global options database. Not collective.
  SolverOptions();

  /// Inserts options written as on a command line ("-pc_type gamg -ksp_monitor"); they replace
  /// values already there. Not collective, but every rank must insert alike.
  void insert(const std::string& options);
  /// Sets `name` ("-elasticity_pc_gamg_esteig_ksp_type") to `value` unless it has a value
  /// already (the user's win). Not collective.
  void set_default(const std::string& name, const std::string& value);
  /// True if `name` has been given. Not collective.
  bool has(const std::string& name) const;

  /// The options with `prefix` ("pressure_") that no PETSc object has read so far, spelled
  /// as given ("-pressure_pc_typo"): misspelled or meaningless for the chosen methods. Ask after
  /// the objects have set up and solved once (some, like -ksp_view, are read at the end of a
  /// solve). Not collective.
  std::vector<std::string> unused(const std::string& prefix) const;

  /// While an Active lives, this database is PETSc's default one; the previous default comes
  /// back when it goes, also when an exception unwinds. Scopes must nest. Not collective.
  class Active {
   public:
    explicit Active(const SolverOptions& options);
    ~Active();
    Active(const Active&) = delete;
    Active& operator=(const Active&) = delete;
  };
  Active activate() const { return Active(*this); }

 private:
  PetscHandle<PetscOptions, PetscOptionsDestroy> m_options;
};

} // namespace linear
} // namespace undertow
