#pragma once
/// \file
/// Halo plans: the exchange of ghost layers for one (location, ghost width), built once and used
/// for every field of that layout. `fill` copies owned values into the ghosts of the ranks (and
/// periodic images) that need them; `scatter_add` is its exact transpose: it adds every ghost
/// value into the owned value it was copied from, then zeroes those ghosts. Adjoint code uses
/// `scatter_add` wherever the forward code uses `fill`.
///
/// A message a rank sends to itself (a periodic axis with one rank along it) does not go through
/// MPI or host memory: its packed values are copied buffer to buffer on the device. Only messages
/// to other ranks pass through host buffers (no CUDA-aware MPI is assumed).
///
/// Ghosts outside a non-periodic boundary are not halo ghosts: neither operation touches them
/// (boundary conditions own them). As linear maps over all local values, including ghosts, fill
/// is the identity on owned and boundary values and overwrites halo ghosts, and scatter_add is
/// exactly its transpose.

#include "undertow/core/field.hpp"

#include <mpi.h>
#include <vector>

namespace undertow {

class HaloPlan {
 public:
  /// Builds the messages for `loc` with `ghost` layers on this rank. Not collective: every rank
  /// derives its sends and receives from the shared decomposition.
  HaloPlan(const Domain& domain, Location loc, int ghost);
  ~HaloPlan();
  HaloPlan(const HaloPlan&) = delete;
  HaloPlan& operator=(const HaloPlan&) = delete;

  /// Owned values to ghosts, periodic wrap included. Collective over the domain's communicator.
  void fill(Field& field);
  /// Split form of fill: begin packs and posts messages; interior work may run before end, which
  /// waits and writes the ghosts. Collective.
  void fill_begin(Field& field);
  void fill_end(Field& field);

  /// Transpose of fill: ghosts added into their owners, then those ghosts set to zero. Collective.
  void scatter_add(Field& field);

  /// The halo ghost boxes this rank receives into (local indices), one per message.
  std::vector<IndexSpace> ghost_boxes() const;

 private:
  struct Message {
    int peer = -1;
    int tag = 0;
    IndexSpace box;         ///< local indices
    std::size_t offset = 0; ///< into the buffer
  };
  using Buffer = Kokkos::View<double*, MemorySpace>;
  using HostBuffer = Buffer::HostMirror;

  /// A message to this rank itself: the segment of the send buffer that fills a segment of the
  /// receive buffer.
  struct SelfCopy {
    std::size_t send_offset = 0, recv_offset = 0, size = 0;
  };

  void check_layout(const Field& field) const;
  /// from[from_offset ...] copied into to[to_offset ...] for each self message (fill: send to
  /// receive buffer; transpose: the reverse), on the device.
  void copy_self_messages(bool transpose);
  void post(const std::vector<Message>& to_receive, HostBuffer& receive_buffer,
            const std::vector<Message>& to_send, HostBuffer& send_buffer);
  void wait();

  Communicator m_comm;
  FieldLayout m_layout;
  std::vector<Message> m_sends; ///< owned boxes other ranks need (fill direction)
  std::vector<Message> m_recvs; ///< halo ghost boxes (fill direction)
  std::vector<SelfCopy> m_self; ///< the messages to this rank itself
  bool m_remote = false;        ///< some message goes to another rank
  Buffer m_send_buffer, m_recv_buffer;
  HostBuffer m_send_host, m_recv_host;
  std::vector<MPI_Request> m_requests;
  bool m_fill_pending = false;
};

/// Boundary ghosts by reflection: the first ghost layer beyond each non-periodic domain face this
/// rank touches := sign[2 axis + side] times the owned value next to it (side 0: low, 1: high).
/// Axis by axis over the whole ghosted extent of the other axes, so that corner ghosts get the
/// product of the two faces' signs. +1 extends a field (zero normal gradient), -1 makes it vanish
/// on the face. Not collective.
void reflect_into_boundary_ghosts(const Domain& domain, const std::array<double, 6>& sign,
                                  Field& f);

} // namespace undertow
