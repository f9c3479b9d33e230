#include "undertow/solvers/elasticity/elasticity.hpp"

#include "undertow/core/error.hpp"
#include "undertow/solvers/linear/petsc_session.hpp"

#include <petscksp.h>

#include <chrono>
#include <cmath>
#include <utility>

namespace undertow {
namespace elasticity {

using linear::check_petsc;

struct LinearElasticity::Petsc {
  Mat K = nullptr;
  Vec x = nullptr, b = nullptr, coordinates = nullptr;
  KSP ksp = nullptr;
  MatNullSpace rigid_body = nullptr;
  std::vector<PetscInt> rows;      ///< owned supported global rows
  std::vector<PetscScalar> values; ///< their prescribed values [m]
  std::vector<PetscScalar> zeros;  ///< as many zeros, for the adjoint's right-hand side
  /// Owned values packed dim per node in PETSc's order, on the device; COO values of the owned
  /// elements on the device and on the host. Allocated once, reused by every solve.
  Kokkos::View<double*, MemorySpace> packed;
  Kokkos::View<PetscScalar*, MemorySpace> coo_values;
  Kokkos::View<PetscScalar*, MemorySpace>::HostMirror coo_values_host;

  ~Petsc() {
    KSPDestroy(&ksp);
    MatNullSpaceDestroy(&rigid_body);
    MatDestroy(&K);
    VecDestroy(&x);
    VecDestroy(&b);
    VecDestroy(&coordinates);
  }
};

namespace {

// Kernels live in free functions: CUDA's extended lambdas may not sit in constructors or in
// private member functions.

/// Local index boxes as plain numbers (device-copyable).
struct Box3 {
  long begin[3];
  long end[3];
  explicit Box3(const IndexSpace& s) {
    for (int a = 0; a < 3; ++a) {
      begin[a] = s.begin[a];
      end[a] = s.end[a];
    }
  }
  KOKKOS_INLINE_FUNCTION long extent(int a) const { return end[a] - begin[a]; }
  /// Position of (i, j, k) in the box, i fastest.
  KOKKOS_INLINE_FUNCTION long packed(long i, long j, long k) const {
    return ((k - begin[2]) * extent(1) + (j - begin[1])) * extent(0) + (i - begin[0]);
  }
};

/// The views of a node vector, device-copyable.
struct NodeViews {
  FieldView c[3];
};

NodeViews views_of(const NodeVector& v) {
  NodeViews out;
  for (int c = 0; c < 3; ++c)
    out.c[c] = v[c].view();
  return out;
}

/// The element's nodal values of `v`: out[dim n + c] for the cell whose lower node is (i, j, k).
KOKKOS_INLINE_FUNCTION void gather_element(const NodeViews& v, int dim, long i, long j, long k,
                                           double* out) {
  for (int n = 0; n < nodes_per_element(dim); ++n)
    for (int c = 0; c < dim; ++c)
      out[dim * n + c] =
          v.c[c](i + node_offset(n, 0), j + node_offset(n, 1), k + node_offset(n, 2));
}

/// Adds element values into the node fields (atomically: neighbouring elements share nodes).
KOKKOS_INLINE_FUNCTION void scatter_element(const NodeViews& v, int dim, long i, long j, long k,
                                            const double* values) {
  for (int n = 0; n < nodes_per_element(dim); ++n)
    for (int c = 0; c < dim; ++c)
      Kokkos::atomic_add(
          &v.c[c](i + node_offset(n, 0), j + node_offset(n, 1), k + node_offset(n, 2)),
          values[dim * n + c]);
}

/// Values at the degrees of freedom of one element, copyable into kernels.
struct ElementValues {
  double v[kMaxElementDofs];
};

/// True if x lies in [lo - tol, hi + tol] along every active axis.
KOKKOS_INLINE_FUNCTION bool in_box(const double lo[3], const double hi[3], double tol, int dim,
                                   const double x[3]) {
  for (int a = 0; a < dim; ++a)
    if (x[a] < lo[a] - tol || x[a] > hi[a] + tol)
      return false;
  return true;
}

void compute_unit_matrices(int dim, const double h_in[3], const Lame& lame,
                           const Kokkos::View<double*, MemorySpace>& k0,
                           const Kokkos::View<double*, MemorySpace>& m0) {
  const int nd = dim * nodes_per_element(dim);
  const double h[3] = {h_in[0], h_in[1], h_in[2]};
  Kokkos::parallel_for(
      "elasticity::unit_element_matrices", Kokkos::RangePolicy<ExecutionSpace>(0, nd * nd),
      KOKKOS_LAMBDA(int t) {
        k0(t) = unit_stiffness(dim, h, lame, t / nd, t % nd);
        m0(t) = unit_mass(dim, h, t / nd, t % nd);
      });
}

void number_nodes(const Field& id_field, long first) {
  const FieldView id = id_field.view();
  const Box3 owned(id_field.owned());
  for_each(
      "elasticity::number_nodes", id_field.owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        id(i, j, k) = static_cast<double>(first + owned.packed(i, j, k));
      });
}

/// Global degree of freedom of local dof r of the element whose lower node is (ni, nj, nk).
KOKKOS_INLINE_FUNCTION long global_dof(const FieldView& id, int dim, long ni, long nj, long nk,
                                       int r) {
  const int n = r / dim;
  return dim * static_cast<long>(
                   id(ni + node_offset(n, 0), nj + node_offset(n, 1), nk + node_offset(n, 2))) +
         r % dim;
}

using IndexView = Kokkos::View<PetscInt*, MemorySpace>;

/// COO row and column indices of every entry of every owned element, element by element.
void element_pattern(const Field& density, const Field& node_id, int dim, const IndexView& rows,
                     const IndexView& cols) {
  const FieldView id = node_id.view();
  const Box3 cells(density.owned());
  const IndexShift t = index_shift(density, node_id);
  const int nd = dim * nodes_per_element(dim);
  for_each(
      "elasticity::coo_pattern", density.owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        const long e = cells.packed(i, j, k);
        const long ni = i + t.s[0], nj = j + t.s[1], nk = k + t.s[2];
        for (int r = 0; r < nd; ++r) {
          const long row = global_dof(id, dim, ni, nj, nk, r);
          for (int s = 0; s < nd; ++s) {
            const long col = global_dof(id, dim, ni, nj, nk, s);
            rows(e * nd * nd + r * nd + s) = static_cast<PetscInt>(row);
            cols(e * nd * nd + r * nd + s) = static_cast<PetscInt>(col);
          }
        }
      });
}

/// COO values: a E(rho_e) k0 + b m0 for every owned element (b: mass weight times density).
void element_values(const Field& density, const Simp& simp, int dim, double a, double b,
                    const Kokkos::View<double*, MemorySpace>& k0,
                    const Kokkos::View<double*, MemorySpace>& m0,
                    const Kokkos::View<PetscScalar*, MemorySpace>& values) {
  const FieldView rho = density.view();
  const Box3 cells(density.owned());
  const int nd2 = dim * nodes_per_element(dim) * dim * nodes_per_element(dim);
  for_each(
      "elasticity::coo_values", density.owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        const long e = cells.packed(i, j, k);
        const double aE = a * simp.modulus(rho(i, j, k));
        for (int t = 0; t < nd2; ++t)
          values(e * nd2 + t) = aE * k0(t) + b * m0(t);
      });
}

/// Row r of the unit element matrix (nd x nd, row-major) times an element vector: (k0 x)_r.
KOKKOS_INLINE_FUNCTION double k0_row(const Kokkos::View<double*, MemorySpace>& k0, int nd, int r,
                                     const double* x) {
  double row = 0.0;
  for (int s = 0; s < nd; ++s)
    row += k0(r * nd + s) * x[s];
  return row;
}

/// out_e = a_e^T k0 b_e over the owned elements.
void element_products(const Field& density, const NodeViews& a, const NodeViews& b,
                      const IndexShift t, int dim, const Kokkos::View<double*, MemorySpace>& k0,
                      Field& out_field) {
  const FieldView out = out_field.view();
  const int nd = dim * nodes_per_element(dim);
  for_each(
      "elasticity::element_energy", density.owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        double ae[kMaxElementDofs], be[kMaxElementDofs];
        gather_element(a, dim, i + t.s[0], j + t.s[1], k + t.s[2], ae);
        gather_element(b, dim, i + t.s[0], j + t.s[1], k + t.s[2], be);
        double sum = 0.0;
        for (int r = 0; r < nd; ++r)
          sum += ae[r] * k0_row(k0, nd, r, be);
        out(i, j, k) = sum;
      });
}

/// y_e += E_e k0 xk_e + rho_m m0 xm_e, added into the (ghosted) node fields of y; a term whose
/// input is absent (has_stiffness or has_mass false) is left out.
void element_apply(const Field& density, const Simp& simp, double mass_density, bool has_stiffness,
                   const NodeViews& xk, bool has_mass, const NodeViews& xm, const NodeViews& y,
                   const IndexShift t, int dim, const Kokkos::View<double*, MemorySpace>& k0,
                   const Kokkos::View<double*, MemorySpace>& m0) {
  const FieldView rho = density.view();
  const int nd = dim * nodes_per_element(dim);
  for_each(
      "elasticity::apply_operator", density.owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        double ke[kMaxElementDofs], me[kMaxElementDofs], ye[kMaxElementDofs];
        if (has_stiffness)
          gather_element(xk, dim, i + t.s[0], j + t.s[1], k + t.s[2], ke);
        if (has_mass)
          gather_element(xm, dim, i + t.s[0], j + t.s[1], k + t.s[2], me);
        const double E = has_stiffness ? simp.modulus(rho(i, j, k)) : 0.0;
        for (int r = 0; r < nd; ++r)
          ye[r] = (has_stiffness ? E * k0_row(k0, nd, r, ke) : 0.0) +
                  (has_mass ? mass_density * k0_row(m0, nd, r, me) : 0.0);
        scatter_element(y, dim, i + t.s[0], j + t.s[1], k + t.s[2], ye);
      });
}

/// Owned node values to a packed array, dim values per node, nodes in PETSc's order.
void pack_owned(const NodeVector& v, int dim, const Kokkos::View<double*, MemorySpace>& out) {
  const NodeViews w = views_of(v);
  const Box3 owned(v[0].owned());
  for_each(
      "elasticity::pack", v[0].owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        const long n = owned.packed(i, j, k);
        for (int c = 0; c < dim; ++c)
          out(dim * n + c) = w.c[c](i, j, k);
      });
}

void unpack_owned(const Kokkos::View<double*, MemorySpace>& in, int dim, NodeVector& v) {
  const NodeViews w = views_of(v);
  const Box3 owned(v[0].owned());
  for_each(
      "elasticity::unpack", v[0].owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        const long n = owned.packed(i, j, k);
        for (int c = 0; c < dim; ++c)
          w.c[c](i, j, k) = in(dim * n + c);
      });
}

/// Number of owned nodes of `f`'s layout inside the box.
double count_nodes(const Field& f, const Box& box, double tol, int dim) {
  const GridGeometry g = f.geometry();
  const double lo[3] = {box.lo[0], box.lo[1], box.lo[2]}, hi[3] = {box.hi[0], box.hi[1], box.hi[2]};
  return local_sum(
      "elasticity::count_nodes", f.owned(), KOKKOS_LAMBDA(long i, long j, long k, double& acc) {
        const double x[3] = {g.coordinate(0, i), g.coordinate(1, j), g.coordinate(2, k)};
        if (in_box(lo, hi, tol, dim, x))
          acc += 1.0;
      });
}

/// f += force on each owned node inside the box.
void add_point_load(NodeVector& f, const Box& box, double tol, int dim,
                    const std::array<double, 3>& force) {
  const NodeViews w = views_of(f);
  const GridGeometry g = f[0].geometry();
  const double lo[3] = {box.lo[0], box.lo[1], box.lo[2]}, hi[3] = {box.hi[0], box.hi[1], box.hi[2]};
  const double v[3] = {force[0], force[1], force[2]};
  for_each(
      "elasticity::point_load", f[0].owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        const double x[3] = {g.coordinate(0, i), g.coordinate(1, j), g.coordinate(2, k)};
        if (in_box(lo, hi, tol, dim, x))
          for (int c = 0; c < dim; ++c)
            w.c[c](i, j, k) += v[c];
      });
}

/// Consistent nodal forces of a uniform traction on the boundary face (axis, side) of the owned
/// cells whose face centres lie in the box: a quarter (3D) or half (2D) of traction x area to
/// each of the face's nodes. Returns the loaded area on this rank [m^2].
double add_traction(const Field& cells, NodeVector& f, const Box& box, double tol, int dim,
                    int axis, int side, long last_cell, const std::array<double, 3>& traction,
                    const double h[3]) {
  const NodeViews w = views_of(f);
  const IndexShift t = index_shift(cells, f[0]);
  const GridGeometry g = cells.geometry();
  const double lo[3] = {box.lo[0], box.lo[1], box.lo[2]}, hi[3] = {box.hi[0], box.hi[1], box.hi[2]};
  double area = 1.0;
  for (int a = 0; a < dim; ++a)
    if (a != axis)
      area *= h[a];
  const int face_nodes = nodes_per_element(dim) / 2;
  const double share[3] = {traction[0] * area / face_nodes, traction[1] * area / face_nodes,
                           traction[2] * area / face_nodes};
  const long global_index = side == 0 ? 0 : last_cell;
  const double wall = g.origin[axis] + (side == 0 ? 0.0 : double(last_cell + 1) * g.h[axis]);
  const long offset = g.global_offset[axis];
  const double loaded = local_sum(
      "elasticity::traction", cells.owned(), KOKKOS_LAMBDA(long i, long j, long k, double& acc) {
        const long local[3] = {i, j, k};
        if (local[axis] + offset != global_index)
          return;
        double x[3] = {g.coordinate(0, i), g.coordinate(1, j), g.coordinate(2, k)};
        x[axis] = wall;
        if (!in_box(lo, hi, tol, dim, x))
          return;
        acc += area;
        for (int n = 0; n < nodes_per_element(dim); ++n) {
          if (node_offset(n, axis) != side)
            continue;
          for (int c = 0; c < dim; ++c)
            Kokkos::atomic_add(&w.c[c](i + t.s[0] + node_offset(n, 0),
                                       j + t.s[1] + node_offset(n, 1),
                                       k + t.s[2] + node_offset(n, 2)),
                               share[c]);
        }
      });
  return loaded;
}

/// Consistent nodal forces of a uniform body force on the owned elements whose centres lie in
/// the box: 1/2^dim of force x volume to each node. Returns the loaded volume on this rank.
double add_body_force(const Field& cells, NodeVector& f, const Box& box, double tol, int dim,
                      const std::array<double, 3>& force, const double h[3]) {
  const NodeViews w = views_of(f);
  const IndexShift t = index_shift(cells, f[0]);
  const GridGeometry g = cells.geometry();
  const double lo[3] = {box.lo[0], box.lo[1], box.lo[2]}, hi[3] = {box.hi[0], box.hi[1], box.hi[2]};
  double volume = 1.0;
  for (int a = 0; a < dim; ++a)
    volume *= h[a];
  const int nn = nodes_per_element(dim);
  ElementValues share{};
  for (int n = 0; n < nn; ++n)
    for (int c = 0; c < dim; ++c)
      share.v[dim * n + c] = force[c] * volume / nn;
  return local_sum(
      "elasticity::body_force", cells.owned(), KOKKOS_LAMBDA(long i, long j, long k, double& acc) {
        const double x[3] = {g.coordinate(0, i), g.coordinate(1, j), g.coordinate(2, k)};
        if (!in_box(lo, hi, tol, dim, x))
          return;
        acc += volume;
        scatter_element(w, dim, i + t.s[0], j + t.s[1], k + t.s[2], share.v);
      });
}

/// Element-centre strain components and von Mises stress of the owned elements.
void centre_strain_stress(const Field& density, const Simp& simp, const Lame& lame,
                          bool plane_stress, const NodeViews& u, const IndexShift t, int dim,
                          const double h_in[3], std::array<Field, 6>& strain,
                          std::array<Field, 6>& stress_out, Field& vm) {
  const FieldView rho = density.view(), out_vm = vm.view();
  const FieldView e0 = strain[0].view(), e1 = strain[1].view(), e2 = strain[2].view(),
                  e3 = strain[3].view(), e4 = strain[4].view(), e5 = strain[5].view();
  const FieldView s0 = stress_out[0].view(), s1 = stress_out[1].view(), s2 = stress_out[2].view(),
                  s3 = stress_out[3].view(), s4 = stress_out[4].view(), s5 = stress_out[5].view();
  const double h[3] = {h_in[0], h_in[1], h_in[2]};
  for_each(
      "elasticity::strain_stress", density.owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        double ue[kMaxElementDofs];
        gather_element(u, dim, i + t.s[0], j + t.s[1], k + t.s[2], ue);
        double eps[3][3], sigma[3][3];
        centre_strain(dim, h, ue, eps);
        stress(dim, plane_stress, lame, simp.modulus(rho(i, j, k)), eps, sigma);
        if (dim == 2 && plane_stress)
          eps[2][2] = plane_stress_zz_strain(lame, eps);
        e0(i, j, k) = eps[0][0];
        e1(i, j, k) = eps[1][1];
        e2(i, j, k) = eps[2][2];
        e3(i, j, k) = eps[0][1];
        e4(i, j, k) = eps[1][2];
        e5(i, j, k) = eps[2][0];
        s0(i, j, k) = sigma[0][0];
        s1(i, j, k) = sigma[1][1];
        s2(i, j, k) = sigma[2][2];
        s3(i, j, k) = sigma[0][1];
        s4(i, j, k) = sigma[1][2];
        s5(i, j, k) = sigma[2][0];
        out_vm(i, j, k) = von_mises(sigma);
      });
}

/// PETSc vector <-> node vector through a packed device array and its host mirror.
void to_petsc(const NodeVector& v, int dim, const Kokkos::View<double*, MemorySpace>& packed,
              Vec out) {
  pack_owned(v, dim, packed);
  PetscScalar* a = nullptr;
  check_petsc(VecGetArray(out, &a), "VecGetArray");
  Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(
      a, packed.extent(0));
  Kokkos::deep_copy(host, packed);
  check_petsc(VecRestoreArray(out, &a), "VecRestoreArray");
}

void from_petsc(Vec in, int dim, const Kokkos::View<double*, MemorySpace>& packed, NodeVector& v) {
  const PetscScalar* a = nullptr;
  check_petsc(VecGetArrayRead(in, &a), "VecGetArrayRead");
  Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(
      a, packed.extent(0));
  Kokkos::deep_copy(packed, host);
  check_petsc(VecRestoreArrayRead(in, &a), "VecRestoreArrayRead");
  unpack_owned(packed, dim, v);
}

std::string describe(const Box& b, int dim) {
  std::string s = "[";
  for (int a = 0; a < dim; ++a)
    s += format("%g..%g", b.lo[a], b.hi[a]) + (a + 1 < dim ? ", " : "]");
  return s;
}

} // namespace

void combine(int dim, double a, const NodeVector& x, double b, const NodeVector* y,
             NodeVector& out) {
  for (int c = 0; c < dim; ++c) {
    const FieldView o = out[c].view(), xv = x[c].view();
    const FieldView yv = y ? (*y)[c].view() : xv;
    const double wy = y ? b : 0.0;
    for_each(
        "elasticity::combine", out[c].ghosted(),
        KOKKOS_LAMBDA(long i, long j, long k) { o(i, j, k) = a * xv(i, j, k) + wy * yv(i, j, k); });
  }
}

LinearElasticity::LinearElasticity(const Domain& domain, const ElasticitySpec& spec)
    : m_domain(domain), m_spec(spec), m_petsc(std::make_unique<Petsc>()) {
  for (int a = 0; a < domain.dim(); ++a)
    if (domain.periodic(a))
      throw ConfigError("elasticity: the domain is periodic along axis " + std::to_string(a) +
                        "; elasticity needs a bounded box (set domain.periodic to false)");
  if (!(spec.poisson > -1.0 && spec.poisson < 0.5))
    throw ConfigError(format("elasticity: Poisson ratio %g is outside (-1, 0.5)", spec.poisson));
  if (!(spec.simp.E0 > 0) || !(spec.simp.E_min >= 0) || spec.simp.E_min >= spec.simp.E0)
    throw ConfigError(format("elasticity: need E0 > E_min >= 0, got E0 = %g, E_min = %g",
                             spec.simp.E0, spec.simp.E_min));
  if (!(spec.mass_density > 0))
    throw ConfigError(format("elasticity: material.mass_density must be > 0 [kg/m^3], got %g",
                             spec.mass_density));
  if (spec.supports.empty())
    throw ConfigError("elasticity: no support is given, so the structure can move as a rigid "
                      "body; add a [support1] section");
  m_lame = unit_lame(spec.poisson, dim(), spec.plane_stress);
  m_node_halo = std::make_unique<HaloPlan>(domain, Location::Node, 1);
  m_density = Field(domain, Location::Cell, 0, "elasticity::density");
  fill_value(m_density, m_density.owned(), 1.0);
  m_node_id = Field(domain, Location::Node, 1, "elasticity::node_id");
  m_u = make_node_vector("elasticity::u");
  m_f = make_node_vector("elasticity::f");
  m_fixed = make_node_vector("elasticity::fixed");
  const int nd = dim() * nodes_per_element(dim());
  m_k0 = Kokkos::View<double*, MemorySpace>("elasticity::k0", nd * nd);
  m_m0 = Kokkos::View<double*, MemorySpace>("elasticity::m0", nd * nd);
  const double h[3] = {domain.spacing(0), domain.spacing(1), domain.spacing(2)};
  compute_unit_matrices(dim(), h, m_lame, m_k0, m_m0);
  build_numbering();
  build_pattern();
  build_supports();
  build_loads();
}

LinearElasticity::~LinearElasticity() = default;

NodeVector LinearElasticity::make_node_vector(const std::string& name) const {
  NodeVector v;
  for (int c = 0; c < 3; ++c)
    v[c] = Field(m_domain, Location::Node, 1, name + "_" + "xyz"[c]);
  return v;
}

void LinearElasticity::build_numbering() {
  const Communicator& comm = m_domain.comm();
  m_owned_nodes = m_node_id.owned().size();
  long first = 0;
  MPI_Exscan(&m_owned_nodes, &first, 1, MPI_LONG, MPI_SUM, comm.raw());
  m_first_node = comm.rank() == 0 ? 0 : first;
  m_global_dofs = dim() * m_node_id.layout().global.size();
  number_nodes(m_node_id, m_first_node);
  m_node_halo->fill(m_node_id);
}

void LinearElasticity::build_pattern() {
  Petsc& p = *m_petsc;
  const int nd = dim() * nodes_per_element(dim());
  const long entries = m_density.owned().size() * nd * nd;
  IndexView rows("elasticity::coo_rows", entries), cols("elasticity::coo_cols", entries);
  element_pattern(m_density, m_node_id, dim(), rows, cols);
  auto rows_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rows);
  auto cols_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cols);
  const MPI_Comm comm = m_domain.comm().raw();
  const PetscInt local = static_cast<PetscInt>(dim() * m_owned_nodes);
  check_petsc(MatCreate(comm, &p.K), "MatCreate");
  check_petsc(MatSetSizes(p.K, local, local, PETSC_DETERMINE, PETSC_DETERMINE), "MatSetSizes");
  check_petsc(MatSetBlockSize(p.K, dim()), "MatSetBlockSize");
  check_petsc(MatSetType(p.K, MATAIJ), "MatSetType");
  check_petsc(MatSetOptionsPrefix(p.K, "elasticity_"), "MatSetOptionsPrefix");
  check_petsc(MatSetFromOptions(p.K), "MatSetFromOptions");
  check_petsc(
      MatSetPreallocationCOO(p.K, static_cast<PetscCount>(entries), rows_h.data(), cols_h.data()),
      "MatSetPreallocationCOO");
  check_petsc(MatSetOption(p.K, MAT_SYMMETRIC, PETSC_TRUE), "MatSetOption");
  check_petsc(MatCreateVecs(p.K, &p.x, &p.b), "MatCreateVecs");

  // Rigid-body modes from the owned nodes' coordinates.
  check_petsc(VecDuplicate(p.x, &p.coordinates), "VecDuplicate");
  check_petsc(VecSetBlockSize(p.coordinates, dim()), "VecSetBlockSize");
  NodeVector xyz = make_node_vector("elasticity::coordinates");
  for (int c = 0; c < dim(); ++c) {
    auto host = Kokkos::create_mirror_view(xyz[c].view());
    const GridGeometry g = xyz[c].geometry();
    const IndexSpace s = xyz[c].owned();
    for (long k = s.begin[2]; k < s.end[2]; ++k)
      for (long j = s.begin[1]; j < s.end[1]; ++j)
        for (long i = s.begin[0]; i < s.end[0]; ++i)
          host(i, j, k) = g.coordinate(c, c == 0 ? i : c == 1 ? j : k);
    Kokkos::deep_copy(xyz[c].view(), host);
  }
  p.packed = Kokkos::View<double*, MemorySpace>("elasticity::packed", dim() * m_owned_nodes);
  p.coo_values = Kokkos::View<PetscScalar*, MemorySpace>("elasticity::coo_values", entries);
  p.coo_values_host = Kokkos::create_mirror_view(p.coo_values);
  to_petsc(xyz, dim(), p.packed, p.coordinates);
  check_petsc(MatNullSpaceCreateRigidBody(p.coordinates, &p.rigid_body),
              "MatNullSpaceCreateRigidBody");
  check_petsc(MatSetNearNullSpace(p.K, p.rigid_body), "MatSetNearNullSpace");

  check_petsc(KSPCreate(comm, &p.ksp), "KSPCreate");
  check_petsc(KSPSetOptionsPrefix(p.ksp, "elasticity_"), "KSPSetOptionsPrefix");
  PC pc;
  check_petsc(KSPGetPC(p.ksp, &pc), "KSPGetPC");
  if (m_spec.solver == LinearSolver::Direct) {
    check_petsc(KSPSetType(p.ksp, KSPPREONLY), "KSPSetType");
    check_petsc(PCSetType(pc, PCLU), "PCSetType");
    check_petsc(PCFactorSetMatSolverType(pc, MATSOLVERMUMPS), "PCFactorSetMatSolverType");
  } else {
    check_petsc(KSPSetType(p.ksp, KSPCG), "KSPSetType");
    check_petsc(PCSetType(pc, PCGAMG), "PCSetType");
    check_petsc(KSPSetNormType(p.ksp, KSP_NORM_UNPRECONDITIONED), "KSPSetNormType");
    check_petsc(KSPSetTolerances(p.ksp, m_spec.rtol, 0.0, PETSC_DEFAULT,
                                 static_cast<PetscInt>(m_spec.max_iterations)),
                "KSPSetTolerances");
    // SIMP stiffness contrasts of 1e9 make GAMG's default Chebyshev smoothers, which take their
    // largest eigenvalue from the smoothed-aggregation estimate, amplify some modes: CG then
    // stops with DIVERGED_INDEFINITE_PC (seen on the MBB beam at 480 x 160). A CG estimate per
    // level with a 1.2 safety factor keeps the preconditioner positive. Options the user gives
    // (prefix elasticity_) win.
    for (const auto& option :
         {std::pair<const char*, const char*>{"-elasticity_pc_gamg_use_sa_esteig", "0"},
          {"-elasticity_pc_gamg_esteig_ksp_type", "cg"},
          {"-elasticity_mg_levels_ksp_chebyshev_esteig", "0,0.1,0,1.2"}}) {
      PetscBool given = PETSC_FALSE;
      check_petsc(PetscOptionsHasName(nullptr, nullptr, option.first, &given),
                  "PetscOptionsHasName");
      if (!given)
        check_petsc(PetscOptionsSetValue(nullptr, option.first, option.second),
                    "PetscOptionsSetValue");
    }
  }
  check_petsc(KSPSetFromOptions(p.ksp), "KSPSetFromOptions");
}

void LinearElasticity::build_supports() {
  const double tol = 0.25 * std::min({m_domain.spacing(0), m_domain.spacing(1),
                                      dim() == 3 ? m_domain.spacing(2) : m_domain.spacing(0)});
  std::array<HostNodeView, 3> fixed, value;
  for (int c = 0; c < dim(); ++c) {
    fixed[c] = Kokkos::create_mirror_view(m_fixed[c].view());
    value[c] = HostNodeView("elasticity::fixed_value", fixed[c].extent(0), fixed[c].extent(1),
                            fixed[c].extent(2));
    Kokkos::deep_copy(fixed[c], 0.0);
  }
  const GridGeometry g = m_u[0].geometry();
  const IndexSpace s = m_u[0].owned();
  const Box3 owned(s);
  for (std::size_t q = 0; q < m_spec.supports.size(); ++q) {
    const Support& sup = m_spec.supports[q];
    long selected = 0;
    for (long k = s.begin[2]; k < s.end[2]; ++k)
      for (long j = s.begin[1]; j < s.end[1]; ++j)
        for (long i = s.begin[0]; i < s.end[0]; ++i) {
          const double x[3] = {g.coordinate(0, i), g.coordinate(1, j), g.coordinate(2, k)};
          if (!in_box(sup.box.lo.data(), sup.box.hi.data(), tol, dim(), x))
            continue;
          ++selected;
          for (int c = 0; c < dim(); ++c)
            if (sup.fixed[c]) {
              fixed[c](i, j, k) = 1.0;
              value[c](i, j, k) = sup.value[c];
            }
        }
    if (m_domain.comm().sum(double(selected)) == 0)
      throw ConfigError("elasticity: support " + std::to_string(q + 1) + " (box " +
                        describe(sup.box, dim()) +
                        ") holds no node; widen the box to reach the grid's nodes");
  }
  check_rigid_body_motions(fixed);
  Petsc& p = *m_petsc;
  p.rows.clear();
  p.values.clear();
  for (long k = s.begin[2]; k < s.end[2]; ++k)
    for (long j = s.begin[1]; j < s.end[1]; ++j)
      for (long i = s.begin[0]; i < s.end[0]; ++i)
        for (int c = 0; c < dim(); ++c)
          if (fixed[c](i, j, k) != 0.0) {
            p.rows.push_back(
                static_cast<PetscInt>(dim() * (m_first_node + owned.packed(i, j, k)) + c));
            p.values.push_back(value[c](i, j, k));
          }
  for (int c = 0; c < dim(); ++c) {
    Kokkos::deep_copy(m_fixed[c].view(), fixed[c]);
    m_node_halo->fill(m_fixed[c]);
  }
  p.zeros.assign(p.rows.size(), 0.0);
}

void LinearElasticity::check_rigid_body_motions(const std::array<HostNodeView, 3>& fixed) const {
  // Gram matrix of the rigid-body modes restricted to the supported components: singular if
  // some combination of the modes moves no supported component. Coordinates are centred and
  // scaled by the box size so that rotations and translations weigh alike.
  const int modes = dim() == 2 ? 3 : 6;
  const char* names[6] = {"translation along x", "translation along y", "translation along z",
                          "rotation about z",    "rotation about x",    "rotation about y"};
  const std::vector<int> mode_ids =
      dim() == 2 ? std::vector<int>{0, 1, 3} : std::vector<int>{0, 1, 2, 3, 4, 5};
  double centre[3], size = 0;
  for (int a = 0; a < 3; ++a) {
    centre[a] = m_domain.spec().origin[a] + 0.5 * m_domain.spec().length[a];
    if (a < dim())
      size = std::max(size, m_domain.spec().length[a]);
  }
  std::vector<double> gram(modes * modes, 0.0);
  const GridGeometry g = m_u[0].geometry();
  const IndexSpace s = m_u[0].owned();
  for (long k = s.begin[2]; k < s.end[2]; ++k)
    for (long j = s.begin[1]; j < s.end[1]; ++j)
      for (long i = s.begin[0]; i < s.end[0]; ++i) {
        double x[3] = {0, 0, 0};
        for (int a = 0; a < dim(); ++a)
          x[a] = (g.coordinate(a, a == 0 ? i : a == 1 ? j : k) - centre[a]) / size;
        for (int c = 0; c < dim(); ++c) {
          if (fixed[c](i, j, k) == 0.0)
            continue;
          // Component c of each mode at x.
          double m[6] = {c == 0 ? 1.0 : 0.0,
                         c == 1 ? 1.0 : 0.0,
                         c == 2 ? 1.0 : 0.0,
                         c == 0   ? -x[1]
                         : c == 1 ? x[0]
                                  : 0.0,
                         c == 1   ? -x[2]
                         : c == 2 ? x[1]
                                  : 0.0,
                         c == 2   ? -x[0]
                         : c == 0 ? x[2]
                                  : 0.0};
          for (int a = 0; a < modes; ++a)
            for (int b = 0; b < modes; ++b)
              gram[a * modes + b] += m[mode_ids[a]] * m[mode_ids[b]];
        }
      }
  MPI_Allreduce(MPI_IN_PLACE, gram.data(), modes * modes, MPI_DOUBLE, MPI_SUM,
                m_domain.comm().raw());
  // Cholesky: a vanishing pivot names a mode that the earlier ones and the supports leave free.
  double largest = 0;
  for (int a = 0; a < modes; ++a)
    largest = std::max(largest, gram[a * modes + a]);
  for (int a = 0; a < modes; ++a) {
    double pivot = gram[a * modes + a];
    for (int q = 0; q < a; ++q)
      pivot -= gram[a * modes + q] * gram[a * modes + q];
    if (!(pivot > 1e-10 * std::max(largest, 1.0)))
      throw ConfigError(std::string("elasticity: the supports leave a rigid-body motion free (") +
                        names[mode_ids[a]] +
                        "), so the stiffness is singular; hold more components or more nodes "
                        "(a rotation needs two held nodes, or a held edge or face)");
    const double l = std::sqrt(pivot);
    gram[a * modes + a] = l;
    for (int b = a + 1; b < modes; ++b) {
      double v = gram[b * modes + a];
      for (int q = 0; q < a; ++q)
        v -= gram[b * modes + q] * gram[a * modes + q];
      gram[b * modes + a] = v / l;
    }
  }
}

void LinearElasticity::build_loads() {
  const Communicator& comm = m_domain.comm();
  const double h[3] = {m_domain.spacing(0), m_domain.spacing(1), m_domain.spacing(2)};
  const double tol = 0.25 * std::min({h[0], h[1], dim() == 3 ? h[2] : h[0]});
  for (std::size_t q = 0; q < m_spec.loads.size(); ++q) {
    const Load& load = m_spec.loads[q];
    const std::string name =
        "elasticity: load " + std::to_string(q + 1) + " (box " + describe(load.box, dim()) + ")";
    if (load.kind == LoadKind::Point) {
      const double count = comm.sum(count_nodes(m_f[0], load.box, tol, dim()));
      if (count == 0)
        throw ConfigError(name + " holds no node; widen the box to reach the grid's nodes");
      std::array<double, 3> share{};
      for (int c = 0; c < 3; ++c)
        share[c] = load.value[c] / count;
      add_point_load(m_f, load.box, tol, dim(), share);
    } else if (load.kind == LoadKind::Traction) {
      int axis = -1, side = -1;
      for (int a = 0; a < dim(); ++a) {
        if (std::abs(load.box.hi[a] - load.box.lo[a]) > tol)
          continue;
        const double lo = m_domain.spec().origin[a], hi = lo + m_domain.spec().length[a];
        if (std::abs(load.box.lo[a] - lo) <= tol)
          axis = a, side = 0;
        else if (std::abs(load.box.lo[a] - hi) <= tol)
          axis = a, side = 1;
      }
      if (axis < 0)
        throw ConfigError(name + ": a traction needs a box that is flat along one axis and lies "
                                 "on the domain's boundary there (lo = hi = the boundary "
                                 "coordinate)");
      const double area = comm.sum(add_traction(m_density, m_f, load.box, tol, dim(), axis, side,
                                                m_domain.global_cells(axis) - 1, load.value, h));
      if (area == 0)
        throw ConfigError(name + " covers no boundary face of an element; widen the box");
    } else {
      const double volume =
          comm.sum(add_body_force(m_density, m_f, load.box, tol, dim(), load.value, h));
      if (volume == 0)
        throw ConfigError(name + " holds no element centre; widen the box");
    }
  }
  for (int c = 0; c < dim(); ++c) {
    m_node_halo->scatter_add(m_f[c]);
    m_node_halo->fill(m_f[c]);
  }
}

void LinearElasticity::assemble(double stiffness_weight, double mass_weight) {
  Petsc& p = *m_petsc;
  element_values(m_density, m_spec.simp, dim(), stiffness_weight, mass_weight * m_spec.mass_density,
                 m_k0, m_m0, p.coo_values);
  Kokkos::deep_copy(p.coo_values_host, p.coo_values);
  check_petsc(MatSetValuesCOO(p.K, p.coo_values_host.data(), INSERT_VALUES), "MatSetValuesCOO");
}

SolveInfo LinearElasticity::run_ksp(const char* what) {
  Petsc& p = *m_petsc;
  check_petsc(KSPSolve(p.ksp, p.b, p.x), "KSPSolve");
  KSPConvergedReason reason;
  PetscInt its = 0;
  PetscReal rnorm = 0;
  check_petsc(KSPGetConvergedReason(p.ksp, &reason), "KSPGetConvergedReason");
  check_petsc(KSPGetIterationNumber(p.ksp, &its), "KSPGetIterationNumber");
  check_petsc(KSPGetResidualNorm(p.ksp, &rnorm), "KSPGetResidualNorm");
  if (reason < 0)
    throw CollectiveError(std::string("elasticity: the ") + what + " solve did not converge (" +
                          KSPConvergedReasons[reason] + ") after " + std::to_string(its) +
                          format(" iterations, residual %.3e. ", double(rnorm)) +
                          "Check that the supports stop every rigid-body motion and that "
                          "E_min > 0 where densities reach 0, or raise "
                          "elasticity.max_iterations.");
  SolveInfo info;
  info.iterations = its;
  info.residual = rnorm;
  m_total_iterations += its;
  return info;
}

SolveInfo LinearElasticity::solve() {
  Petsc& p = *m_petsc;
  const auto start = std::chrono::steady_clock::now();
  assemble(1.0, 0.0);
  forget_operator();
  to_petsc(m_f, dim(), p.packed, p.b);
  // Start from the last displacement, with the prescribed values on the supports.
  to_petsc(m_u, dim(), p.packed, p.x);
  check_petsc(VecSetValues(p.x, static_cast<PetscInt>(p.rows.size()), p.rows.data(),
                           p.values.data(), INSERT_VALUES),
              "VecSetValues");
  check_petsc(VecAssemblyBegin(p.x), "VecAssemblyBegin");
  check_petsc(VecAssemblyEnd(p.x), "VecAssemblyEnd");
  check_petsc(
      MatZeroRowsColumns(p.K, static_cast<PetscInt>(p.rows.size()), p.rows.data(), 1.0, p.x, p.b),
      "MatZeroRowsColumns");
  check_petsc(KSPSetOperators(p.ksp, p.K, p.K), "KSPSetOperators");
  // An iterative solve starts from the last displacement (a direct one needs no guess).
  check_petsc(KSPSetInitialGuessNonzero(p.ksp, m_spec.solver == LinearSolver::Direct ? PETSC_FALSE
                                                                                     : PETSC_TRUE),
              "KSPSetInitialGuessNonzero");
  const auto assembled = std::chrono::steady_clock::now();
  SolveInfo info = run_ksp("displacement");
  from_petsc(p.x, dim(), p.packed, m_u);
  for (int c = 0; c < dim(); ++c)
    m_node_halo->fill(m_u[c]);
  const auto end = std::chrono::steady_clock::now();
  info.seconds_assembly = std::chrono::duration<double>(assembled - start).count();
  info.seconds_solve = std::chrono::duration<double>(end - assembled).count();
  return info;
}

SolveInfo LinearElasticity::solve_adjoint(const NodeVector& g, NodeVector& lambda) {
  return solve_operator(g, lambda, "adjoint");
}

void LinearElasticity::assemble_operator(double stiffness_weight, double mass_weight) {
  if (m_operator_weights[0] == stiffness_weight && m_operator_weights[1] == mass_weight)
    return;
  Petsc& p = *m_petsc;
  assemble(stiffness_weight, mass_weight);
  check_petsc(MatZeroRowsColumns(p.K, static_cast<PetscInt>(p.rows.size()), p.rows.data(), 1.0,
                                 nullptr, nullptr),
              "MatZeroRowsColumns");
  check_petsc(KSPSetOperators(p.ksp, p.K, p.K), "KSPSetOperators");
  m_operator_weights = {stiffness_weight, mass_weight};
}

SolveInfo LinearElasticity::solve_operator(const NodeVector& g, NodeVector& lambda,
                                           const char* what) {
  Petsc& p = *m_petsc;
  to_petsc(g, dim(), p.packed, p.b);
  check_petsc(VecSetValues(p.b, static_cast<PetscInt>(p.rows.size()), p.rows.data(), p.zeros.data(),
                           INSERT_VALUES),
              "VecSetValues");
  check_petsc(VecAssemblyBegin(p.b), "VecAssemblyBegin");
  check_petsc(VecAssemblyEnd(p.b), "VecAssemblyEnd");
  check_petsc(VecSet(p.x, 0.0), "VecSet");
  check_petsc(KSPSetInitialGuessNonzero(p.ksp, PETSC_FALSE), "KSPSetInitialGuessNonzero");
  const SolveInfo info = run_ksp(what);
  // The next forward solve starts from the displacement again.
  from_petsc(p.x, dim(), p.packed, lambda);
  for (int c = 0; c < dim(); ++c)
    m_node_halo->fill(lambda[c]);
  return info;
}

double LinearElasticity::dot(const NodeVector& a, const NodeVector& b) const {
  double sum = 0;
  for (int c = 0; c < dim(); ++c) {
    const FieldView x = a[c].view(), y = b[c].view();
    sum += local_sum(
        "elasticity::dot", a[c].owned(),
        KOKKOS_LAMBDA(long i, long j, long k, double& acc) { acc += x(i, j, k) * y(i, j, k); });
  }
  return m_domain.comm().sum(sum);
}

LinearElasticity::NodeLocation
LinearElasticity::locate_node(const std::array<double, 3>& point) const {
  const GridGeometry g = m_u[0].geometry();
  const IndexSpace o = m_u[0].owned();
  NodeLocation at;
  bool here = true;
  for (int a = 0; a < dim(); ++a) {
    const double t = (point[a] - g.coordinate(a, 0)) / g.h[a];
    at.index[a] = std::lround(t);
    here = here && std::abs(t - double(at.index[a])) < 0.25 && at.index[a] >= o.begin[a] &&
           at.index[a] < o.end[a];
  }
  at.owned = here;
  if (m_domain.comm().sum(here ? 1.0 : 0.0) < 0.5)
    throw ConfigError(format("the point (%g, %g, %g) m is not a node of the grid: give a node's "
                             "coordinates (a multiple of the spacing from the origin)",
                             point[0], point[1], point[2]));
  return at;
}

std::array<double, 3> LinearElasticity::node_value_at(const NodeVector& v,
                                                      const std::array<double, 3>& point) const {
  const NodeLocation at = locate_node(point);
  std::vector<double> mine(3, 0.0);
  if (at.owned)
    for (int c = 0; c < dim(); ++c) {
      auto one = Kokkos::subview(v[c].view(), at.index[0], at.index[1], at.index[2]);
      mine[c] = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), one)();
    }
  const std::vector<double> all = m_domain.comm().sum(mine); // one rank owns the node
  return {all[0], all[1], all[2]};
}

double LinearElasticity::compliance() const {
  return dot(m_f, m_u);
}

void LinearElasticity::element_energy(const NodeVector& a, const NodeVector& b, Field& out) const {
  element_products(m_density, views_of(a), views_of(b), index_shift(m_density, a[0]), dim(), m_k0,
                   out);
}

void LinearElasticity::apply_operator(const NodeVector* x_stiffness, const NodeVector* x_mass,
                                      NodeVector& y) {
  for (int c = 0; c < dim(); ++c)
    fill_value(y[c], y[c].ghosted(), 0.0);
  if (!x_stiffness && !x_mass)
    return;
  const NodeViews none{};
  element_apply(m_density, m_spec.simp, m_spec.mass_density, x_stiffness != nullptr,
                x_stiffness ? views_of(*x_stiffness) : none, x_mass != nullptr,
                x_mass ? views_of(*x_mass) : none, views_of(y), index_shift(m_density, y[0]), dim(),
                m_k0, m_m0);
  for (int c = 0; c < dim(); ++c)
    m_node_halo->scatter_add(y[c]);
}

void LinearElasticity::strain_and_stress(const NodeVector& u, std::array<Field, 6>& strain,
                                         std::array<Field, 6>& stress, Field& vm) const {
  const double h[3] = {m_domain.spacing(0), m_domain.spacing(1), m_domain.spacing(2)};
  centre_strain_stress(m_density, m_spec.simp, m_lame, m_spec.plane_stress, views_of(u),
                       index_shift(m_density, u[0]), dim(), h, strain, stress, vm);
}

} // namespace elasticity
} // namespace undertow
