#include "undertow/core/reductions.hpp"

#include "undertow/core/error.hpp"

#include "undertow/core/math.hpp"

namespace undertow {

double global_sum(const Communicator& comm, const Field& f) {
  const FieldView v = f.view();
  return comm.sum(local_sum(
      "core::sum", f.owned(),
      KOKKOS_LAMBDA(long i, long j, long k, double& acc) { acc += v(i, j, k); }));
}

double global_max(const Communicator& comm, const Field& f) {
  const FieldView v = f.view();
  return comm.max(local_max(
      "core::max", f.owned(),
      KOKKOS_LAMBDA(long i, long j, long k, double& m) { m = v(i, j, k) > m ? v(i, j, k) : m; }));
}

double global_max_abs(const Communicator& comm, const Field& f) {
  const FieldView v = f.view();
  return comm.max(local_max(
      "core::max_abs", f.owned(), KOKKOS_LAMBDA(long i, long j, long k, double& m) {
        const double a = math::abs(v(i, j, k));
        m = a > m ? a : m;
      }));
}

double global_dot(const Communicator& comm, const Field& a, const Field& b) {
  if (!(a.owned() == b.owned()))
    throw Error("global_dot: fields '" + a.name() + "' and '" + b.name() +
                "' have different layouts");
  const FieldView av = a.view(), bv = b.view();
  return comm.sum(local_sum(
      "core::dot", a.owned(),
      KOKKOS_LAMBDA(long i, long j, long k, double& acc) { acc += av(i, j, k) * bv(i, j, k); }));
}

double global_dot_with_ghosts(const Communicator& comm, const Field& a, const Field& b) {
  if (!(a.ghosted() == b.ghosted()))
    throw Error("global_dot_with_ghosts: fields '" + a.name() + "' and '" + b.name() +
                "' have different layouts");
  const FieldView av = a.view(), bv = b.view();
  return comm.sum(local_sum(
      "core::dot_with_ghosts", a.ghosted(),
      KOKKOS_LAMBDA(long i, long j, long k, double& acc) { acc += av(i, j, k) * bv(i, j, k); }));
}

std::vector<double> gather_to_root(const Communicator& comm, const Field& f) {
  const FieldLayout& l = f.layout();
  const IndexSpace& owned = l.owned;
  // Pack this rank's owned box into a host buffer, k fastest.
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.view());
  std::vector<double> mine;
  mine.reserve(static_cast<std::size_t>(owned.size()));
  for (long i = owned.begin[0]; i < owned.end[0]; ++i)
    for (long j = owned.begin[1]; j < owned.end[1]; ++j)
      for (long k = owned.begin[2]; k < owned.end[2]; ++k)
        mine.push_back(host(i, j, k));
  long box[6];
  for (int a = 0; a < 3; ++a) {
    box[a] = owned.begin[a] + l.global_offset[a];
    box[3 + a] = owned.end[a] + l.global_offset[a];
  }
  const int size = comm.size();
  std::vector<long> boxes(comm.is_root() ? 6 * size : 0);
  MPI_Gather(box, 6, MPI_LONG, boxes.data(), 6, MPI_LONG, 0, comm.raw());
  std::vector<int> counts(size, 0), displs(size, 0);
  const int count = static_cast<int>(mine.size());
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm.raw());
  int total = 0;
  for (int r = 0; r < size; ++r) {
    displs[r] = total;
    total += counts[r];
  }
  std::vector<double> all(comm.is_root() ? total : 0);
  MPI_Gatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE,
              0, comm.raw());
  if (!comm.is_root())
    return {};
  const long n1 = l.global.extent(1), n2 = l.global.extent(2);
  std::vector<double> out(static_cast<std::size_t>(l.global.size()), 0.0);
  for (int r = 0; r < size; ++r) {
    const long* b = &boxes[6 * r];
    std::size_t p = static_cast<std::size_t>(displs[r]);
    for (long i = b[0]; i < b[3]; ++i)
      for (long j = b[1]; j < b[4]; ++j)
        for (long k = b[2]; k < b[5]; ++k)
          out[static_cast<std::size_t>((i * n1 + j) * n2 + k)] = all[p++];
  }
  return out;
}

} // namespace undertow
