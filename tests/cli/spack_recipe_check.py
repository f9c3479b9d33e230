#!/usr/bin/env python3
"""Checks cmake/spack/packages/undertow/package.py without Spack: the recipe is imported against
a stand-in of `spack.package` that records its directives, then its variants, dependencies and
cmake_args() for each combination of variants are compared with what the build expects
(CMakeLists.txt's options). Prints what it checked; exits 1 on the first mismatch."""
import itertools
import pathlib
import sys
import types

recipe = pathlib.Path(sys.argv[1])
cmakelists = pathlib.Path(sys.argv[2]).read_text()
recorded = {"variant": {}, "depends_on": [], "conflicts": [], "version": []}


class Prefix(str):
    def __getattr__(self, name):
        return Prefix(self + "/" + name)


class Spec:
    def __init__(self, variants):
        self.variants = variants

    def satisfies(self, text):
        return all(self.variants[v[1:]] == (v[0] == "+")
                   for v in text.replace("+", " +").replace("~", " ~").split())

    def __getitem__(self, name):
        dep = types.SimpleNamespace(prefix=Prefix("/opt/" + name))
        dep.mpicxx = "/opt/mpi/bin/mpicxx"
        dep.kokkos_cxx = "/opt/kokkos/bin/nvcc_wrapper"
        return dep


class CMakePackage:
    def define(self, name, value):
        if isinstance(value, bool):
            value = "ON" if value else "OFF"
        return "-D%s=%s" % (name, value)


package = types.ModuleType("spack.package")
package.CMakePackage = CMakePackage
package.variant = lambda name, **kw: recorded["variant"].__setitem__(name, kw)
package.depends_on = lambda spec, **kw: recorded["depends_on"].append((spec, kw.get("when")))
package.conflicts = lambda spec, **kw: recorded["conflicts"].append((spec, kw.get("when")))
package.version = lambda v, **kw: recorded["version"].append(v)
spack = types.ModuleType("spack")
spack.package = package
sys.modules.update({"spack": spack, "spack.package": package})
namespace = {}
exec(compile(recipe.read_text(), str(recipe), "exec"), namespace)
Undertow = namespace["Undertow"]


def check(condition, what):
    if not condition:
        print("FAILED: " + what)
        sys.exit(1)
    print("ok: " + what)


check({"cuda", "catalyst"} <= set(recorded["variant"]), "variants cuda and catalyst")
deps = [d for d, _ in recorded["depends_on"]]
for need in ("mpi", "petsc@3.18:", "hdf5@1.10: +mpi", "boost", "kokkos@3.4:"):
    check(any(d.startswith(need) for d in deps), "depends on " + need)
check(("kokkos+cuda+cuda_lambda+wrapper", "+cuda") in recorded["depends_on"],
      "+cuda needs a CUDA Kokkos with its nvcc_wrapper")
check(any(d.startswith("paraview@5.11") and w == "+catalyst" for d, w in recorded["depends_on"]),
      "+catalyst needs ParaView 5.11")
for name in ("UNDERTOW_BUILD_TESTS", "UNDERTOW_BUILD_BENCHMARKS", "UNDERTOW_ENABLE_CATALYST"):
    check(name in cmakelists, name + " is an option of CMakeLists.txt")
names = sorted(recorded["variant"])
for values in itertools.product([False, True], repeat=len(names)):
    variants = dict(zip(names, values))
    if variants.get("cuda") and variants.get("openmp"):
        continue  # refused by conflicts()
    pkg = Undertow()
    pkg.spec = Spec(variants)
    args = pkg.cmake_args()
    label = " ".join(("+" if v else "~") + n for n, v in variants.items())
    catalyst = "-DUNDERTOW_ENABLE_CATALYST=" + ("ON" if variants["catalyst"] else "OFF")
    check(catalyst in args, label + ": " + catalyst)
    nvcc = "-DCMAKE_CXX_COMPILER=/opt/kokkos/bin/nvcc_wrapper"
    check((nvcc in args) == variants["cuda"], label + ": nvcc_wrapper only with +cuda")
    for a in args:
        name = a[2:].split("=")[0]
        check(name in cmakelists or name.endswith("_ROOT") or name.startswith(("CMAKE_", "MPI_")),
              label + ": " + name + " is read by the build")
