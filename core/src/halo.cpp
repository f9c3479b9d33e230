#include "undertow/core/halo.hpp"

#include "undertow/core/error.hpp"

#include <cstdlib>

namespace undertow {

namespace {

/// to[to_offset + q] = from[from_offset + q] for q < n, on the device (a free function: CUDA's
/// extended lambdas may not sit in private members).
void copy_buffer_range(const Kokkos::View<double*, MemorySpace>& to, std::size_t to_offset,
                       const Kokkos::View<double*, MemorySpace>& from, std::size_t from_offset,
                       std::size_t n) {
  Kokkos::parallel_for(
      "halo::self_message", Kokkos::RangePolicy<ExecutionSpace>(0, n),
      KOKKOS_LAMBDA(std::size_t q) { to(to_offset + q) = from(from_offset + q); });
}

/// Periodic images are numbered -kMaxImage..kMaxImage per axis; the tag encodes the triple.
constexpr int kMaxImage = 8;

struct AxisPiece {
  int coord;  ///< process-grid coordinate of the peer along this axis
  int image;  ///< periodic image: global shift = image * global_points
  long begin; ///< global [begin, end) in this rank's frame
  long end;
};

int image_count(const Domain& d, Location loc, int axis, int ghost) {
  if (!d.periodic(axis))
    return 0;
  const long n = d.global_points(loc, axis);
  const int k = static_cast<int>((d.ghost_along(axis, ghost) + 1) / n) + 1;
  if (k > kMaxImage)
    throw Error("ghost width " + std::to_string(ghost) + " is too wide for a periodic axis of " +
                std::to_string(n) + " points");
  return k;
}

/// Pieces of this rank's ghosted interval owned by each coordinate and image (receive side), or
/// pieces of this rank's owned interval inside each coordinate's ghosted interval (send side).
std::vector<AxisPiece> axis_pieces(const Domain& d, Location loc, int axis, int ghost,
                                   bool receive) {
  std::vector<AxisPiece> out;
  const long n = d.global_points(loc, axis);
  const int images = image_count(d, loc, axis, ghost);
  const int me = d.coord(axis);
  for (int c = 0; c < d.ranks_along(axis); ++c) {
    for (int image = -images; image <= images; ++image) {
      const long shift = image * n;
      std::pair<long, long> mine, theirs;
      if (receive) {
        mine = d.ghosted_interval(loc, axis, me, ghost);
        theirs = d.owned_interval(loc, axis, c);
        theirs = {theirs.first + shift, theirs.second + shift};
      } else {
        mine = d.owned_interval(loc, axis, me);
        theirs = d.ghosted_interval(loc, axis, c, ghost);
        theirs = {theirs.first - shift, theirs.second - shift};
      }
      const long begin = std::max(mine.first, theirs.first);
      const long end = std::min(mine.second, theirs.second);
      if (begin < end)
        out.push_back({c, image, begin, end});
    }
  }
  return out;
}

std::vector<std::array<AxisPiece, 3>> combine(const std::array<std::vector<AxisPiece>, 3>& axes) {
  std::vector<std::array<AxisPiece, 3>> out;
  for (const auto& px : axes[0])
    for (const auto& py : axes[1])
      for (const auto& pz : axes[2])
        out.push_back({px, py, pz});
  return out;
}

int image_tag(const std::array<AxisPiece, 3>& p) {
  const int base = 2 * kMaxImage + 1;
  return (p[0].image + kMaxImage) +
         base * ((p[1].image + kMaxImage) + base * (p[2].image + kMaxImage));
}

void check_mpi(int code, const char* what) {
  if (code != MPI_SUCCESS)
    throw Error(std::string("halo exchange: ") + what + " failed");
}

/// Position of (i, j, k) in a packed box, i fastest (the field layout's order).
KOKKOS_INLINE_FUNCTION std::size_t packed_index(long i, long j, long k, long b0, long b1, long b2,
                                                long e0, long e1) {
  return static_cast<std::size_t>(((k - b2) * e1 + (j - b1)) * e0 + (i - b0));
}

/// Copies a box of `v` into buf[offset ...].
void pack(const FieldView& v, const IndexSpace& box, const Kokkos::View<double*, MemorySpace>& buf,
          std::size_t offset) {
  const long b0 = box.begin[0], b1 = box.begin[1], b2 = box.begin[2];
  const long e0 = box.extent(0), e1 = box.extent(1);
  for_each(
      "halo::pack", box, KOKKOS_LAMBDA(long i, long j, long k) {
        buf(offset + packed_index(i, j, k, b0, b1, b2, e0, e1)) = v(i, j, k);
      });
}

/// Writes (or adds, for the transpose) buf[offset ...] into a box of `v`.
void unpack(const FieldView& v, const IndexSpace& box,
            const Kokkos::View<double*, MemorySpace>& buf, std::size_t offset, bool add) {
  const long b0 = box.begin[0], b1 = box.begin[1], b2 = box.begin[2];
  const long e0 = box.extent(0), e1 = box.extent(1);
  if (add)
    for_each(
        "halo::unpack_add", box, KOKKOS_LAMBDA(long i, long j, long k) {
          v(i, j, k) += buf(offset + packed_index(i, j, k, b0, b1, b2, e0, e1));
        });
  else
    for_each(
        "halo::unpack", box, KOKKOS_LAMBDA(long i, long j, long k) {
          v(i, j, k) = buf(offset + packed_index(i, j, k, b0, b1, b2, e0, e1));
        });
}

} // namespace

HaloPlan::HaloPlan(const Domain& domain, Location loc, int ghost)
    : m_comm(domain.comm()), m_layout(domain.layout(loc, ghost)) {
  for (int receive = 0; receive < 2; ++receive) {
    std::array<std::vector<AxisPiece>, 3> axes;
    for (int a = 0; a < 3; ++a)
      axes[a] = axis_pieces(domain, loc, a, ghost, receive == 1);
    std::vector<Message>& list = receive ? m_recvs : m_sends;
    std::size_t offset = 0;
    for (const auto& p : combine(axes)) {
      bool self = true;
      for (int a = 0; a < 3; ++a)
        self = self && p[a].coord == domain.coord(a) && p[a].image == 0;
      if (self)
        continue;
      Message m;
      m.peer = domain.rank_of({p[0].coord, p[1].coord, p[2].coord});
      m.tag = image_tag(p);
      for (int a = 0; a < 3; ++a) {
        m.box.begin[a] = p[a].begin - m_layout.global_offset[a];
        m.box.end[a] = p[a].end - m_layout.global_offset[a];
      }
      m.offset = offset;
      offset += static_cast<std::size_t>(m.box.size());
      list.push_back(m);
    }
    Buffer& buffer = receive ? m_recv_buffer : m_send_buffer;
    buffer = Buffer(receive ? "halo::recv_buffer" : "halo::send_buffer", offset);
  }
  m_send_host = Kokkos::create_mirror_view(m_send_buffer);
  m_recv_host = Kokkos::create_mirror_view(m_recv_buffer);
  // Messages to this rank itself pair up by tag, as MPI would match them.
  const int me = m_comm.rank();
  for (const Message& r : m_recvs) {
    if (r.peer != me) {
      m_remote = true;
      continue;
    }
    for (const Message& snd : m_sends)
      if (snd.peer == me && snd.tag == r.tag) {
        require(snd.box.size() == r.box.size(), "halo plan: a self message changes size");
        m_self.push_back({snd.offset, r.offset, static_cast<std::size_t>(r.box.size())});
      }
  }
  for (const Message& snd : m_sends)
    m_remote = m_remote || snd.peer != me;
}

void HaloPlan::copy_self_messages(bool transpose) {
  for (const SelfCopy& c : m_self) {
    if (transpose)
      copy_buffer_range(m_send_buffer, c.send_offset, m_recv_buffer, c.recv_offset, c.size);
    else
      copy_buffer_range(m_recv_buffer, c.recv_offset, m_send_buffer, c.send_offset, c.size);
  }
}

HaloPlan::~HaloPlan() {
  if (m_fill_pending && !m_requests.empty())
    MPI_Waitall(static_cast<int>(m_requests.size()), m_requests.data(), MPI_STATUSES_IGNORE);
}

void HaloPlan::check_layout(const Field& field) const {
  const FieldLayout& l = field.layout();
  // Called on every fill: the message is built only when the check fails.
  if (!(l.location == m_layout.location && l.ghost == m_layout.ghost &&
        l.extent == m_layout.extent && l.global_offset == m_layout.global_offset))
    throw Error("halo plan for " + to_string(m_layout.location) + " with " +
                std::to_string(m_layout.ghost) + " ghost layer(s) used on field '" + field.name() +
                "' of another layout");
}

std::vector<IndexSpace> HaloPlan::ghost_boxes() const {
  std::vector<IndexSpace> out;
  for (const auto& m : m_recvs)
    out.push_back(m.box);
  return out;
}

void HaloPlan::post(const std::vector<Message>& to_receive, HostBuffer& receive_buffer,
                    const std::vector<Message>& to_send, HostBuffer& send_buffer) {
  m_requests.assign(to_receive.size() + to_send.size(), MPI_REQUEST_NULL);
  const int me = m_comm.rank();
  std::size_t r = 0;
  for (const auto& m : to_receive)
    if (m.peer != me) // messages to this rank itself are copied on the device
      check_mpi(MPI_Irecv(receive_buffer.data() + m.offset, static_cast<int>(m.box.size()),
                          MPI_DOUBLE, m.peer, m.tag, m_comm.raw(), &m_requests[r++]),
                "MPI_Irecv");
  for (const auto& m : to_send)
    if (m.peer != me)
      check_mpi(MPI_Isend(send_buffer.data() + m.offset, static_cast<int>(m.box.size()), MPI_DOUBLE,
                          m.peer, m.tag, m_comm.raw(), &m_requests[r++]),
                "MPI_Isend");
}

void HaloPlan::wait() {
  check_mpi(
      MPI_Waitall(static_cast<int>(m_requests.size()), m_requests.data(), MPI_STATUSES_IGNORE),
      "MPI_Waitall");
  m_requests.clear();
}

void HaloPlan::fill_begin(Field& field) {
  check_layout(field);
  require(!m_fill_pending, "HaloPlan::fill_begin called twice without fill_end");
  for (const auto& m : m_sends)
    pack(field.view(), m.box, m_send_buffer, m.offset);
  if (m_remote) // messages to this rank itself stay on the device
    Kokkos::deep_copy(m_send_host, m_send_buffer);
  post(m_recvs, m_recv_host, m_sends, m_send_host);
  m_fill_pending = true;
}

void HaloPlan::fill_end(Field& field) {
  check_layout(field);
  require(m_fill_pending, "HaloPlan::fill_end called without fill_begin");
  wait();
  m_fill_pending = false;
  if (m_remote)
    Kokkos::deep_copy(m_recv_buffer, m_recv_host);
  copy_self_messages(false);
  for (const auto& m : m_recvs)
    unpack(field.view(), m.box, m_recv_buffer, m.offset, /*add=*/false);
}

void HaloPlan::fill(Field& field) {
  fill_begin(field);
  fill_end(field);
}

void HaloPlan::scatter_add(Field& field) {
  check_layout(field);
  require(!m_fill_pending, "HaloPlan::scatter_add called while a fill is in flight");
  for (const auto& m : m_recvs)
    pack(field.view(), m.box, m_recv_buffer, m.offset);
  if (m_remote)
    Kokkos::deep_copy(m_recv_host, m_recv_buffer);
  for (const auto& m : m_recvs)
    fill_value(field, m.box, 0.0);
  post(m_sends, m_send_host, m_recvs, m_recv_host);
  wait();
  if (m_remote)
    Kokkos::deep_copy(m_send_buffer, m_send_host);
  copy_self_messages(true);
  // Fixed message order: the sum into each owned value is the same on every run.
  for (const auto& m : m_sends)
    unpack(field.view(), m.box, m_send_buffer, m.offset, /*add=*/true);
}

void reflect_into_boundary_ghosts(const Domain& d, const std::array<double, 6>& sign, Field& f) {
  const FieldView v = f.view();
  for (int a = 0; a < d.dim(); ++a) {
    if (d.periodic(a))
      continue;
    for (int side = 0; side < 2; ++side) {
      if (!d.touches_boundary(a, side))
        continue;
      IndexSpace slab = f.ghosted();
      const long ghost = side == 0 ? f.owned().begin[a] - 1 : f.owned().end[a];
      slab.begin[a] = ghost;
      slab.end[a] = ghost + 1;
      const double s = sign[static_cast<std::size_t>(2 * a + side)];
      const long inward = side == 0 ? 1 : -1;
      const long di = a == 0 ? inward : 0, dj = a == 1 ? inward : 0, dk = a == 2 ? inward : 0;
      for_each(
          "halo::reflect_into_boundary_ghosts", slab,
          KOKKOS_LAMBDA(long i, long j, long k) { v(i, j, k) = s * v(i + di, j + dj, k + dk); });
    }
  }
}

} // namespace undertow
