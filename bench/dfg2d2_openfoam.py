#!/usr/bin/env python3
"""DFG benchmark 2D-2 (Re = 100, periodic shedding) with a body-fitted peer: OpenFOAM's pimpleFoam
on a block-structured O-grid around the cylinder, to set undertow's C_L max (cases/cylinder,
README.md) beside a solver whose body is exact rather than penalised.

The case is Schafer & Turek's: channel [0, 2.2] x [0, 0.41], cylinder of diameter 0.1 centred at
(0.2, 0.2), nu = 1e-3, parabolic inflow of peak 1.5 (mean 1.0), no-slip walls, p = 0 at the
outlet. The mesh: an O-grid of 4 blocks between the cylinder and the square [0.1, 0.3]^2
(4 x 40 k cells around the cylinder, 24 k across, graded towards it), and 8 rectangular blocks
for the rest of the channel (cells of 0.005 / k, growing by a factor 6 over the wake's 1.9 m).
Second order in space (central differences) and time (backward), PISO with 2 pressure
correctors, CFL-adaptive steps (maxCo 0.5). The forces are OpenFOAM's `forceCoeffs` on the
cylinder's patch (pressure and viscous stress), C = F / (0.5 rho U^2 D span) with U = 1.

Each run writes OUT/diagnostics.csv (time, Cx_1, Cy_1) and hands it to
cases/cylinder/shedding.py, which prints C_D max, C_L max, St and the lift's swing (centre and
half swing) over the last periods, so that both codes are measured by the same script.

Usage: python3 bench/dfg2d2_openfoam.py OUT [--refine K] [--t-end T] [--ranks R] [--periods N]
Needs Debian's openfoam (v1912). Measured on this machine (2026-12-02, beside other jobs):
refine 1 from rest to t = 12, 32 min on 1 rank (C_L max 1.0343, half swing 1.0518);
refine 2 from it, 3 s more, about 110 min (C_L max 1.0151, half swing 1.0325).
"""
import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHEDDING = os.path.join(ROOT, "cases", "cylinder", "shedding.py")
ENV = dict(os.environ, WM_PROJECT_DIR="/usr/share/openfoam", FOAM_ETC="/usr/share/openfoam/etc",
           OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")

HEADER = """FoamFile
{{
    version 2.0;
    format ascii;
    class {cls};
    object {obj};
}}
"""

NU = 1e-3
HEIGHT = 0.41
U_PEAK = 1.5
SPAN = 0.01


def write(case, path, cls, text):
    name = os.path.join(case, path)
    os.makedirs(os.path.dirname(name), exist_ok=True)
    with open(name, "w") as f:
        f.write(HEADER.format(cls=cls, obj=os.path.basename(path)) + text)


def block_mesh(k):
    """blockMeshDict: x lines 0, 0.1, 0.3, 2.2; y lines 0, 0.1, 0.3, 0.41; the O-grid inside
    [0.1, 0.3]^2 around the circle of radius 0.05 at (0.2, 0.2)."""
    a = 0.05 / math.sqrt(2.0)
    plane = [(0, 0), (0.1, 0), (0.3, 0), (2.2, 0),
             (0, 0.1), (0.1, 0.1), (0.3, 0.1), (2.2, 0.1),
             (0, 0.3), (0.1, 0.3), (0.3, 0.3), (2.2, 0.3),
             (0, HEIGHT), (0.1, HEIGHT), (0.3, HEIGHT), (2.2, HEIGHT),
             (0.2 - a, 0.2 - a), (0.2 + a, 0.2 - a), (0.2 + a, 0.2 + a), (0.2 - a, 0.2 + a)]
    n = len(plane)
    vertices = "\n".join(f"    ({x!r} {y!r} {z!r})" for z in (0.0, SPAN) for x, y in plane)
    nl, nm, nr, nb, nt, nrad = 20 * k, 40 * k, 140 * k, 20 * k, 22 * k, 24 * k

    def hexa(v, nx, ny, gx=1, gy=1):
        ids = " ".join(str(i) for i in v) + " " + " ".join(str(i + n) for i in v)
        return f"    hex ({ids}) ({nx} {ny} 1) simpleGrading ({gx} {gy} 1)"

    # Channel blocks, then the O-grid's four (first direction along the square, second from the
    # square in towards the circle, graded so that the cells at the cylinder are 5 times thinner).
    blocks = [hexa((0, 1, 5, 4), nl, nb), hexa((1, 2, 6, 5), nm, nb), hexa((2, 3, 7, 6), nr, nb, 6),
              hexa((4, 5, 9, 8), nl, nm), hexa((6, 7, 11, 10), nr, nm, 6),
              hexa((8, 9, 13, 12), nl, nt), hexa((9, 10, 14, 13), nm, nt),
              hexa((10, 11, 15, 14), nr, nt, 6),
              hexa((5, 6, 17, 16), nm, nrad, 1, 0.2), hexa((6, 10, 18, 17), nm, nrad, 1, 0.2),
              hexa((10, 9, 19, 18), nm, nrad, 1, 0.2), hexa((9, 5, 16, 19), nm, nrad, 1, 0.2)]
    arcs = []
    for z, off in ((0.0, 0), (SPAN, n)):
        for (p, q), (x, y) in zip(((16, 17), (17, 18), (18, 19), (19, 16)),
                                  ((0.2, 0.15), (0.25, 0.2), (0.2, 0.25), (0.15, 0.2))):
            arcs.append(f"    arc {p + off} {q + off} ({x!r} {y!r} {z!r})")

    def quads(faces):
        return "\n".join("            (" + " ".join(str(i) for i in f) + ")" for f in faces)

    def side(a, b):
        return (a, b, b + n, a + n)

    patches = {
        "inlet patch": [side(4, 0), side(8, 4), side(12, 8)],
        "outlet patch": [side(3, 7), side(7, 11), side(11, 15)],
        "walls wall": [side(0, 1), side(1, 2), side(2, 3), side(13, 12), side(14, 13),
                       side(15, 14)],
        "cylinder wall": [side(17, 16), side(18, 17), side(19, 18), side(16, 19)],
    }
    boundary = []
    for key, faces in patches.items():
        name, kind = key.split()
        boundary.append(f"    {name}\n    {{\n        type {kind};\n        faces\n        (\n"
                        f"{quads(faces)}\n        );\n    }}")
    return (f"scale 1;\nvertices\n(\n{vertices}\n);\nblocks\n(\n" + "\n".join(blocks) +
            "\n);\nedges\n(\n" + "\n".join(arcs) + "\n);\nboundary\n(\n" + "\n".join(boundary) +
            "\n);\ndefaultPatch\n{\n    name frontAndBack;\n    type empty;\n}\n")


def set_up(case, k, t_end, ranks):
    write(case, "system/blockMeshDict", "dictionary", block_mesh(k))
    write(case, "system/controlDict", "dictionary", f"""
application pimpleFoam;
startFrom startTime;
startTime 0;
stopAt endTime;
endTime {t_end!r};
deltaT 1e-4;
writeControl runTime;
writeInterval {t_end!r};
purgeWrite 1;
writeFormat ascii;
timeFormat general;
timePrecision 10;
runTimeModifiable false;
adjustTimeStep yes;
maxCo 0.5;
functions
{{
    forceCoeffs1
    {{
        type forceCoeffs;
        libs ("libforces.so");
        writeControl timeStep;
        writeInterval 1;
        log false;
        patches (cylinder);
        rho rhoInf;
        rhoInf 1;
        liftDir (0 1 0);
        dragDir (1 0 0);
        CofR (0.2 0.2 0);
        pitchAxis (0 0 1);
        magUInf 1;
        lRef 0.1;
        Aref {0.1 * SPAN!r};
    }}
}}
""")
    write(case, "system/fvSchemes", "dictionary", """
ddtSchemes { default backward; }
gradSchemes { default Gauss linear; }
divSchemes { default none; div(phi,U) Gauss linear; div((nuEff*dev2(T(grad(U))))) Gauss linear; }
laplacianSchemes { default Gauss linear corrected; }
interpolationSchemes { default linear; }
snGradSchemes { default corrected; }
""")
    write(case, "system/fvSolution", "dictionary", """
solvers
{
    p { solver GAMG; smoother DIC; tolerance 1e-8; relTol 0.01; }
    pFinal { $p; relTol 0; }
    U { solver smoothSolver; smoother symGaussSeidel; tolerance 1e-9; relTol 0; }
    UFinal { $U; }
}
PIMPLE
{
    momentumPredictor yes;
    nOuterCorrectors 1;
    nCorrectors 2;
    nNonOrthogonalCorrectors 1;
    pRefCell 0;
    pRefValue 0;
}
""")
    write(case, "system/decomposeParDict", "dictionary",
          f"numberOfSubdomains {ranks};\nmethod scotch;\n")
    write(case, "constant/transportProperties", "dictionary",
          f"transportModel Newtonian;\nnu [0 2 -1 0 0 0 0] {NU!r};\n")
    write(case, "constant/turbulenceProperties", "dictionary", "simulationType laminar;\n")
    run(["blockMesh"], case, "log.blockMesh")
    inlet = inlet_velocities(case)
    values = "\n".join(f"({u!r} 0 0)" for u in inlet)
    write(case, "0/U", "volVectorField", f"""
dimensions [0 1 -1 0 0 0 0];
internalField uniform (0 0 0);
boundaryField
{{
    inlet {{ type fixedValue; value nonuniform List<vector> {len(inlet)}
(
{values}
);
    }}
    outlet {{ type zeroGradient; }}
    walls {{ type noSlip; }}
    cylinder {{ type noSlip; }}
    frontAndBack {{ type empty; }}
}}
""")
    write(case, "0/p", "volScalarField", """
dimensions [0 2 -2 0 0 0 0];
internalField uniform 0;
boundaryField
{
    inlet { type zeroGradient; }
    outlet { type fixedValue; value uniform 0; }
    walls { type zeroGradient; }
    cylinder { type zeroGradient; }
    frontAndBack { type empty; }
}
""")


def inlet_velocities(case):
    """The parabolic profile 4 U y (H - y) / H^2 at the inlet faces' centres, in the order of the
    patch's faces (read from the mesh: `postProcess -func writeCellCentres` writes them)."""
    os.makedirs(os.path.join(case, "0"), exist_ok=True)
    run(["postProcess", "-func", "writeCellCentres", "-time", "0"], case)
    text = open(os.path.join(case, "0", "C")).read()
    block = re.search(r"inlet\s*\{[^}]*?nonuniform\s+List<vector>\s*(\d+)\s*\((.*?)\)\s*;", text,
                      re.S)
    if not block:
        sys.exit("cannot read the inlet's face centres from 0/C")
    centres = re.findall(r"\(([-0-9.eE+]+) ([-0-9.eE+]+) ([-0-9.eE+]+)\)", block.group(2))
    if len(centres) != int(block.group(1)):
        sys.exit("0/C: the inlet's face count and its centres disagree")
    for name in ("C", "Cx", "Cy", "Cz"):
        path = os.path.join(case, "0", name)
        if os.path.exists(path):
            os.remove(path)
    return [4.0 * U_PEAK * float(y) * (HEIGHT - float(y)) / HEIGHT ** 2 for _, y, _ in centres]


def map_initial(case, source):
    """The source run's last velocity and pressure, interpolated onto this mesh (mapFields), as
    the initial flow; the inlet keeps this mesh's exact profile."""
    exact = open(os.path.join(case, "0", "U")).read()
    run(["mapFields", source, "-consistent", "-sourceTime", "latestTime"], case, "log.mapFields")
    inlet = re.compile(r"inlet\s*\{.*?\n\s*\}", re.S)
    mapped = open(os.path.join(case, "0", "U")).read()
    if not inlet.search(mapped) or not inlet.search(exact):
        sys.exit("mapFields: cannot find the inlet's entry in 0/U")
    with open(os.path.join(case, "0", "U"), "w") as f:
        f.write(inlet.sub(lambda _: inlet.search(exact).group(0), mapped, count=1))


def run(cmd, case, log=None):
    if log:
        with open(os.path.join(case, log), "w") as out:
            result = subprocess.run(cmd, cwd=case, env=ENV, stdout=out, stderr=subprocess.STDOUT)
    else:
        result = subprocess.run(cmd, cwd=case, env=ENV, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        tail = open(os.path.join(case, log)).read()[-3000:] if log else result.stdout[-3000:]
        sys.exit(f"failed: {' '.join(cmd)}\n{tail}")


def forces_csv(case, out):
    """OUT/diagnostics.csv from forceCoeffs' record (every step; restarts append a new folder)."""
    base = os.path.join(case, "postProcessing", "forceCoeffs1")
    rows = {}
    for start in sorted(os.listdir(base), key=float):
        for name in os.listdir(os.path.join(base, start)):
            lines = open(os.path.join(base, start, name)).read().splitlines()
            header = [l for l in lines if l.startswith("#")][-1].lstrip("#").split()
            it, icd, icl = header.index("Time"), header.index("Cd"), header.index("Cl")
            for line in lines:
                if line and not line.startswith("#"):
                    f = line.split()
                    rows[float(f[it])] = (float(f[icd]), float(f[icl]))
    with open(out, "w") as f:
        f.write("time,Cx_1,Cy_1\n")
        for t in sorted(rows):
            f.write(f"{t!r},{rows[t][0]!r},{rows[t][1]!r}\n")
    return len(rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--refine", type=int, default=1, help="mesh factor k (cells x k^2)")
    parser.add_argument("--t-end", type=float, default=10.0)
    parser.add_argument("--ranks", type=int, default=1)
    parser.add_argument("--periods", type=int, default=10)
    parser.add_argument("--initial", help="an earlier run's folder (any --refine): its last "
                        "field, mapped onto this mesh, is the initial flow (skips the street's "
                        "growth)")
    args = parser.parse_args()
    if shutil.which("pimpleFoam", path=ENV.get("PATH")) is None:
        sys.exit("pimpleFoam not found: install Debian's openfoam (apt-get install openfoam)")
    case = os.path.abspath(args.out)
    if os.path.exists(case):
        sys.exit(f"{case} exists: choose a new output folder (nothing there is overwritten)")
    os.makedirs(case)
    set_up(case, args.refine, args.t_end, args.ranks)
    if args.initial:
        map_initial(case, os.path.abspath(args.initial))
    cells = re.search(r"nCells:\s*(\d+)", open(os.path.join(case, "log.blockMesh")).read())
    print(f"DFG 2D-2 with pimpleFoam: refine {args.refine}, to t = {args.t_end}, "
          f"{args.ranks} rank(s){', ' + cells.group(1) + ' cells' if cells else ''}", flush=True)
    start = time.time()
    if args.ranks > 1:
        run(["decomposePar"], case, "log.decomposePar")
        run(["mpiexec", "-n", str(args.ranks), "pimpleFoam", "-parallel"], case, "log.pimpleFoam")
    else:
        run(["pimpleFoam"], case, "log.pimpleFoam")
    wall = time.time() - start
    csv_path = os.path.join(case, "diagnostics.csv")
    n = forces_csv(case, csv_path)
    print(f"pimpleFoam: {n} steps in {wall:.0f} s; forces in {csv_path}", flush=True)
    return subprocess.run([sys.executable, SHEDDING, csv_path, "--periods",
                           str(args.periods)]).returncode


if __name__ == "__main__":
    sys.exit(main())
