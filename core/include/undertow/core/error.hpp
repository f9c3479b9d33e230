#pragma once
/// \file
/// Error types. Every error names the problem and, where there is one, the fix.

#include <stdexcept>
#include <string>

namespace undertow {

/// A failure of the run: I/O, a diverging solve, an internal inconsistency. It may be raised on
/// one rank only; the executable then aborts all ranks (see jobs/), so it never hangs.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A failure that every rank detects identically, because it follows from a global reduction or
/// from input every rank shares (a diverging solve, say). The executable reports it once and all
/// ranks exit cleanly with a non-zero code.
class CollectiveError : public Error {
 public:
  using Error::Error;
};

/// Bad user input (case file, command line). Collective: every rank validates the same broadcast
/// input, so every rank raises the same error.
class ConfigError : public CollectiveError {
 public:
  using CollectiveError::CollectiveError;
};

/// A run stopped on purpose (a batch system's SIGTERM, a spent walltime budget), on every rank
/// together, with its state saved. The message says what was saved and how to continue. Exit
/// code 75 (the executable's kStopped): a batch script requeues the job on it.
class Stopped : public CollectiveError {
 public:
  using CollectiveError::CollectiveError;
};

/// Throws Error(message) when `condition` is false. For checks that hold in release builds too.
/// The message is an argument, built before the call: where a check runs at every step or
/// iteration, test the condition first and build a composed message only when it fails.
inline void require(bool condition, const std::string& message) {
  if (!condition)
    throw Error(message);
}

/// The same for a literal message: no std::string is made unless the check fails (a literal
/// of more than 15 characters would otherwise be a heap allocation at every call).
inline void require(bool condition, const char* message) {
  if (!condition)
    throw Error(message);
}

} // namespace undertow
