# Spack recipe for undertow (docs/clusters.md, "Building with Spack"). The project has no public
# release or mirror yet: build a clone with `spack develop`, e.g.
#   spack repo add <undertow>/cmake/spack
#   spack env create -d env && spack -e env add undertow@main
#   spack -e env develop --path <undertow> undertow@main && spack -e env install
# tests/cli/spack_recipe_check.py checks this file against a stand-in of Spack's package API.

from spack.package import *


class Undertow(CMakePackage):
    """Differentiable incompressible Navier-Stokes and elasticity on MPI + Kokkos, with discrete
    adjoints, revolve checkpointing, PETSc/TAO optimisation and parallel HDF5 + XDMF output."""

    # No release or public mirror yet: `spack develop --path <clone>` provides the source.
    version("main")

    variant("cuda", default=False,
            description="Kokkos with CUDA: kernels on NVIDIA GPUs (built with Kokkos' "
                        "nvcc_wrapper; one MPI rank per GPU)")
    variant("openmp", default=False, description="Kokkos with OpenMP threads on the host")
    variant("catalyst", default=False,
            description="ParaView 5.11 Catalyst (legacy API) for in-situ visualisation "
                        "(UNDERTOW_ENABLE_CATALYST=ON)")
    variant("tests", default=False, description="Build the test suite (GoogleTest)")

    depends_on("cmake@3.20:", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("mpi")
    depends_on("petsc@3.18: +mpi+hdf5+hypre+mumps")
    depends_on("hdf5@1.10: +mpi")  # a serial HDF5 is refused at configure time
    depends_on("boost@1.74: +program_options")
    depends_on("kokkos@3.4:")
    depends_on("kokkos+cuda+cuda_lambda+wrapper", when="+cuda")
    depends_on("kokkos+openmp", when="+openmp")
    depends_on("paraview@5.11 +mpi+python", when="+catalyst")
    depends_on("googletest", type="build", when="+tests")

    conflicts("+cuda", when="+openmp", msg="choose one Kokkos device backend: cuda or openmp")

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define("UNDERTOW_BUILD_TESTS", spec.satisfies("+tests")),
            self.define("UNDERTOW_BUILD_BENCHMARKS", False),
            self.define("UNDERTOW_ENABLE_CATALYST", "ON" if spec.satisfies("+catalyst") else "OFF"),
            self.define("MPI_CXX_COMPILER", spec["mpi"].mpicxx),
            self.define("Kokkos_ROOT", spec["kokkos"].prefix),
            self.define("HDF5_ROOT", spec["hdf5"].prefix),
            self.define("BOOST_ROOT", spec["boost"].prefix),
        ]
        if spec.satisfies("+cuda"):
            # Kokkos' CUDA kernels are compiled through its nvcc_wrapper.
            args.append(self.define("CMAKE_CXX_COMPILER", spec["kokkos"].kokkos_cxx))
        return args

    def setup_build_environment(self, env):
        # PETSc is found through pkg-config.
        env.prepend_path("PKG_CONFIG_PATH", self.spec["petsc"].prefix.lib.pkgconfig)
