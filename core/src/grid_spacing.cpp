#include "undertow/core/grid_spacing.hpp"

namespace undertow {

GridSpacing grid_spacing(const Domain& domain, const FieldLayout& layout) {
  GridSpacing s;
  for (int a = 0; a < 3; ++a) {
    s.inv_h[a] = 1.0 / domain.spacing(a);
    s.offset[a] = layout.global_offset[a];
    s.is_uniform[a] = a >= domain.dim() || domain.uniform(a);
    if (s.is_uniform[a])
      continue;
    const auto faces = layout.geometry.stretched.host[a]; // face g at g + pad
    const long n = static_cast<long>(faces.extent(0)) - 1;
    Kokkos::View<double*, Kokkos::HostSpace> width("inv_width", faces.extent(0)),
        link("inv_link", faces.extent(0)), span("inv_span", faces.extent(0));
    const auto centre = [&](long q) {
      return 0.5 * (faces(q) + faces(q + 1));
    };
    for (long q = 0; q < n; ++q)
      width(q) = 1.0 / (faces(q + 1) - faces(q));
    for (long q = 1; q < n; ++q)
      link(q) = 1.0 / (centre(q) - centre(q - 1));
    for (long q = 1; q + 1 < n; ++q)
      span(q) = 2.0 / (centre(q + 1) - centre(q - 1));
    s.inv_width[a] = Kokkos::create_mirror_view_and_copy(MemorySpace(), width);
    s.inv_link[a] = Kokkos::create_mirror_view_and_copy(MemorySpace(), link);
    s.inv_span[a] = Kokkos::create_mirror_view_and_copy(MemorySpace(), span);
  }
  return s;
}

} // namespace undertow
