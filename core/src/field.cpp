#include "undertow/core/field.hpp"

#include "undertow/core/error.hpp"

namespace undertow {

Field::Field(const Domain& domain, Location loc, int ghost, const std::string& name)
    : m_name(name), m_layout(domain.layout(loc, ghost)),
      m_view(name, m_layout.extent[0], m_layout.extent[1], m_layout.extent[2]) {}

Field::Field(const FieldLayout& layout, const std::string& name, bool zero)
    : m_name(name), m_layout(layout),
      m_view(zero ? FieldView(name, layout.extent[0], layout.extent[1], layout.extent[2])
                  : FieldView(Kokkos::view_alloc(Kokkos::WithoutInitializing, name),
                              layout.extent[0], layout.extent[1], layout.extent[2])) {}

void fill_value(Field& field, const IndexSpace& space, double value) {
  const FieldView v = field.view();
  for_each(
      "core::fill_value", space, KOKKOS_LAMBDA(long i, long j, long k) { v(i, j, k) = value; });
}

void axpy(double a, const Field& x, Field& y) {
  if (!(x.owned() == y.owned() && x.location() == y.location()))
    throw Error("axpy: fields '" + x.name() + "' and '" + y.name() + "' have different layouts");
  const FieldView xv = x.view(), yv = y.view();
  for_each(
      "core::axpy", y.owned(),
      KOKKOS_LAMBDA(long i, long j, long k) { yv(i, j, k) += a * xv(i, j, k); });
}

void copy(const Field& src, Field& dst) {
  if (!(src.ghosted() == dst.ghosted() && src.location() == dst.location()))
    throw Error("copy: fields '" + src.name() + "' and '" + dst.name() +
                "' have different layouts");
  // A kernel, not Kokkos::deep_copy: in the step loops every deep_copy is a transfer between
  // host and device, which tests/mpi/test_device_residency.cpp counts.
  const FieldView s = src.view(), d = dst.view();
  for_each(
      "core::copy", dst.ghosted(),
      KOKKOS_LAMBDA(long i, long j, long k) { d(i, j, k) = s(i, j, k); });
}

void copy_owned(const Field& src, Field& dst, double scale) {
  const FieldView s = src.view(), d = dst.view();
  const IndexShift to_src = index_shift(dst, src);
  for_each(
      "field::copy_owned", dst.owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        d(i, j, k) = scale * s(i + to_src.s[0], j + to_src.s[1], k + to_src.s[2]);
      });
}

void scale_by_control_volume(Field& f, const IndexSpace& space, int dim, bool divide) {
  const FieldView v = f.view();
  const GridGeometry g = f.geometry();
  for_each(
      "field::control_volume_scale", space, KOKKOS_LAMBDA(long i, long j, long k) {
        const double volume = g.control_volume(dim, i, j, k);
        v(i, j, k) = divide ? v(i, j, k) / volume : v(i, j, k) * volume;
      });
}

} // namespace undertow
