-- An Lmod module file for an undertow installation (docs/clusters.md, "Modules"). Copy it to
-- <modulefiles>/undertow/<version>.lua, set `root` to the install prefix (cmake --install) and
-- name the site's modules undertow was built against in depends_on (or drop them if the
-- installation is self-contained, as a Spack one is with `spack module lmod refresh`).
help([[undertow: differentiable fluid and solid mechanics (MPI + Kokkos).
  undertow info                       versions of undertow and what it was built with
  undertow submit CASE.ini gradient --walltime 24:00:00 --tasks-per-node 64
See <root>/share/doc/undertow or docs/clusters.md of the source.]])
whatis("Name: undertow")
whatis("Description: differentiable Navier-Stokes and elasticity with discrete adjoints")

local root = "/opt/undertow/0.1.0" -- the install prefix

-- The modules undertow was built against (names vary by site).
depends_on("openmpi", "petsc", "hdf5/parallel", "kokkos", "boost")

prepend_path("PATH", pathJoin(root, "bin"))
prepend_path("CMAKE_PREFIX_PATH", root) -- find_package(undertow) for downstream projects
setenv("UNDERTOW_ROOT", root)
