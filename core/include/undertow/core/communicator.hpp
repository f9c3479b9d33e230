#pragma once
/// \file
/// The MPI communicator wrapper that library code receives explicitly. Library code never names
/// MPI_COMM_WORLD: the executable and the tests decide which communicator a run uses.

#include <functional>
#include <memory>
#include <mpi.h>
#include <string>
#include <vector>

namespace undertow {

/// A duplicated MPI communicator with reference-counted ownership: copies share one MPI_Comm,
/// which is freed when the last copy goes. Duplicating isolates undertow's messages from the
/// caller's.
class Communicator {
 public:
  /// Duplicates `comm`. Collective over `comm`.
  explicit Communicator(MPI_Comm comm);
  /// Takes ownership of an already created communicator (e.g. from MPI_Cart_create). Not
  /// collective.
  static Communicator adopt(MPI_Comm comm);

  int rank() const { return m_rank; }
  int size() const { return m_size; }
  bool is_root() const { return m_rank == 0; }
  MPI_Comm raw() const { return m_comm ? *m_comm : MPI_COMM_NULL; }

  /// Splits into sub-communicators by `color`, ordered by `key`. Collective.
  Communicator split(int color, int key) const;

  /// Global reductions of one value. Collective.
  double sum(double value) const;
  double max(double value) const;
  double min(double value) const;
  long long sum(long long value) const;
  long long max(long long value) const;
  /// Element-wise sum of a vector (same length on every rank). Collective.
  std::vector<double> sum(const std::vector<double>& values) const;

  /// Rank 0's string, on every rank. Collective.
  std::string broadcast(const std::string& text) const;
  void barrier() const;

  /// Ends every rank of this communicator at once with `code`. Not collective.
  [[noreturn]] void abort(int code) const;

 private:
  Communicator() = default;
  void init_sizes();
  std::shared_ptr<MPI_Comm> m_comm;
  int m_rank = 0;
  int m_size = 1;
};

/// Runs `work` on rank 0 only (file-system work, say) and makes its failure collective: an
/// exception there is rethrown on every rank, as ConfigError if it was one and as
/// CollectiveError otherwise, with the same message. Collective.
void run_on_root(const Communicator& comm, const std::function<void()>& work);

} // namespace undertow
