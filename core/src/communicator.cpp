#include "undertow/core/communicator.hpp"

#include "undertow/core/error.hpp"

#include <cstdint>
#include <cstdlib>

namespace undertow {

namespace {
void check_mpi(int code, const char* what) {
  if (code != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    throw Error(std::string(what) + " failed: " + std::string(text, length));
  }
}

std::shared_ptr<MPI_Comm> own(MPI_Comm comm) {
  return std::shared_ptr<MPI_Comm>(new MPI_Comm(comm), [](MPI_Comm* c) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && *c != MPI_COMM_NULL)
      MPI_Comm_free(c);
    delete c;
  });
}
} // namespace

Communicator::Communicator(MPI_Comm comm) {
  MPI_Comm dup = MPI_COMM_NULL;
  check_mpi(MPI_Comm_dup(comm, &dup), "MPI_Comm_dup");
  m_comm = own(dup);
  init_sizes();
}

Communicator Communicator::adopt(MPI_Comm comm) {
  Communicator c;
  c.m_comm = own(comm);
  c.init_sizes();
  return c;
}

void Communicator::init_sizes() {
  MPI_Comm_rank(*m_comm, &m_rank);
  MPI_Comm_size(*m_comm, &m_size);
}

Communicator Communicator::split(int color, int key) const {
  MPI_Comm out = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split(raw(), color, key, &out), "MPI_Comm_split");
  return adopt(out);
}

double Communicator::sum(double value) const {
  double out = 0;
  check_mpi(MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_SUM, raw()), "MPI_Allreduce");
  return out;
}
double Communicator::max(double value) const {
  double out = 0;
  check_mpi(MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_MAX, raw()), "MPI_Allreduce");
  return out;
}
double Communicator::min(double value) const {
  double out = 0;
  check_mpi(MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_MIN, raw()), "MPI_Allreduce");
  return out;
}
long long Communicator::sum(long long value) const {
  long long out = 0;
  check_mpi(MPI_Allreduce(&value, &out, 1, MPI_LONG_LONG, MPI_SUM, raw()), "MPI_Allreduce");
  return out;
}
long long Communicator::max(long long value) const {
  long long out = 0;
  check_mpi(MPI_Allreduce(&value, &out, 1, MPI_LONG_LONG, MPI_MAX, raw()), "MPI_Allreduce");
  return out;
}
std::vector<double> Communicator::sum(const std::vector<double>& values) const {
  std::vector<double> out(values.size(), 0.0);
  check_mpi(MPI_Allreduce(values.data(), out.data(), static_cast<int>(values.size()), MPI_DOUBLE,
                          MPI_SUM, raw()),
            "MPI_Allreduce");
  return out;
}

std::string Communicator::broadcast(const std::string& text) const {
  std::uint64_t length = text.size();
  check_mpi(MPI_Bcast(&length, 1, MPI_UINT64_T, 0, raw()), "MPI_Bcast");
  std::string out = is_root() ? text : std::string(length, '\0');
  if (length > 0)
    check_mpi(MPI_Bcast(out.data(), static_cast<int>(length), MPI_CHAR, 0, raw()), "MPI_Bcast");
  return out;
}

void Communicator::barrier() const {
  check_mpi(MPI_Barrier(raw()), "MPI_Barrier");
}

void run_on_root(const Communicator& comm, const std::function<void()>& work) {
  std::string failure;
  if (comm.is_root()) {
    try {
      work();
    } catch (const ConfigError& e) {
      failure = std::string("C") + e.what();
    } catch (const std::exception& e) {
      failure = std::string("E") + e.what();
    }
  }
  failure = comm.broadcast(failure);
  if (failure.empty())
    return;
  if (failure[0] == 'C')
    throw ConfigError(failure.substr(1));
  throw CollectiveError(failure.substr(1));
}

void Communicator::abort(int code) const {
  MPI_Abort(raw(), code);
  std::abort();
}

} // namespace undertow
