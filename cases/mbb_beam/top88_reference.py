#!/usr/bin/env python3
"""An independent re-implementation, in NumPy/SciPy, of the algorithm of the published 88-line
MATLAB topology-optimisation code (Andreassen, Clausen, Schevenels, Lazarov & Sigmund, Struct.
Multidisc. Optim. 43:1-16, 2011) with its density filter (ft = 2): the half MBB beam, unit
elements, E0 = 1, Emin = 1e-9, nu = 0.3, plane stress, OC update with move 0.2 and bisection to
1e-3, stopping when no density changes by more than 0.01. With "cantilever" as a sixth argument,
the paper's cantilever instead: the left edge clamped, a unit load down at the lower right corner.

It exists to check undertow's topology-optimisation case against the reference algorithm:

    python3 cases/mbb_beam/top88_reference.py 60 20 0.5 3 1.5
    python3 cases/mbb_beam/top88_reference.py 80 40 0.4 3 1.5 cantilever

prints the compliance of every iteration and the final compliance and iteration count. Needs
numpy and scipy (pip install numpy scipy); the undertow build does not.
"""
import sys

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla


def element_stiffness(nu):
    """The unit-modulus plane-stress Q1 stiffness of a unit square, written out from the
    integrals (the 8x8 matrix of the reference code)."""
    k = np.array([1 / 2 - nu / 6, 1 / 8 + nu / 8, -1 / 4 - nu / 12, -1 / 8 + 3 * nu / 8,
                  -1 / 4 + nu / 12, -1 / 8 - nu / 8, nu / 6, 1 / 8 - 3 * nu / 8])
    idx = [[0, 1, 2, 3, 4, 5, 6, 7], [1, 0, 7, 6, 5, 4, 3, 2], [2, 7, 0, 5, 6, 3, 4, 1],
           [3, 6, 5, 0, 7, 2, 1, 4], [4, 5, 6, 7, 0, 1, 2, 3], [5, 4, 3, 2, 1, 0, 7, 6],
           [6, 3, 4, 1, 2, 7, 0, 5], [7, 2, 1, 4, 3, 6, 5, 0]]
    return 1 / (1 - nu ** 2) * k[np.array(idx)]


def main(nelx, nely, volfrac, penal, rmin, problem="mbb"):
    E0, Emin, nu, move = 1.0, 1e-9, 0.3, 0.2
    KE = element_stiffness(nu)
    # Nodes numbered column by column from the top-left corner, as in the reference code.
    nodenrs = np.arange((1 + nelx) * (1 + nely)).reshape((1 + nelx, 1 + nely)).T
    edofvec = (2 * nodenrs[:-1, :-1] + 2).T.reshape(-1)  # 0-based x dof of each lower-left node
    offsets = np.array([0, 1, 2 * nely + 2, 2 * nely + 3, 2 * nely + 0, 2 * nely + 1, -2, -1])
    edofmat = edofvec[:, None] + offsets[None, :]
    iK = np.kron(edofmat, np.ones((8, 1), dtype=int)).reshape(-1)
    jK = np.kron(edofmat, np.ones((1, 8), dtype=int)).reshape(-1)
    ndof = 2 * (nelx + 1) * (nely + 1)
    F = np.zeros(ndof)
    if problem == "mbb":
        F[1] = -1.0  # downward unit load at the top-left node
        fixed = np.union1d(np.arange(0, 2 * (nely + 1), 2), [ndof - 1])
    else:  # the paper's cantilever: left edge clamped, unit load down at the lower right corner
        F[ndof - 1] = -1.0
        fixed = np.arange(0, 2 * (nely + 1))
    free = np.setdiff1d(np.arange(ndof), fixed)
    # Density filter weights.
    rows, cols, vals = [], [], []
    r = int(np.ceil(rmin)) - 1
    for i1 in range(nelx):
        for j1 in range(nely):
            e1 = i1 * nely + j1
            for i2 in range(max(i1 - r, 0), min(i1 + r + 1, nelx)):
                for j2 in range(max(j1 - r, 0), min(j1 + r + 1, nely)):
                    w = max(0.0, rmin - np.hypot(i1 - i2, j1 - j2))
                    if w > 0:
                        rows.append(e1)
                        cols.append(i2 * nely + j2)
                        vals.append(w)
    H = sp.csr_matrix((vals, (rows, cols)), shape=(nelx * nely, nelx * nely))
    Hs = np.asarray(H.sum(axis=1)).ravel()
    x = np.full(nelx * nely, volfrac)
    xPhys = x.copy()
    loop, change = 0, 1.0
    while change > 0.01:
        loop += 1
        sK = (KE.reshape(-1)[None, :] * (Emin + xPhys[:, None] ** penal * (E0 - Emin))).reshape(-1)
        K = sp.csc_matrix((sK, (iK, jK)), shape=(ndof, ndof))
        K = (K + K.T) / 2
        U = np.zeros(ndof)
        U[free] = spla.spsolve(K[free, :][:, free], F[free])
        ce = np.einsum("ij,jk,ik->i", U[edofmat], KE, U[edofmat])
        c = float(np.sum((Emin + xPhys ** penal * (E0 - Emin)) * ce))
        dc = -penal * (E0 - Emin) * xPhys ** (penal - 1) * ce
        dv = np.ones(nelx * nely)
        dc = H @ (dc / Hs)
        dv = H @ (dv / Hs)
        l1, l2 = 0.0, 1e9
        while (l2 - l1) / (l1 + l2) > 1e-3:
            lmid = 0.5 * (l2 + l1)
            xnew = np.maximum(0.0, np.maximum(x - move, np.minimum(1.0, np.minimum(
                x + move, x * np.sqrt(-dc / dv / lmid)))))
            xPhys = (H @ xnew) / Hs
            if xPhys.sum() > volfrac * nelx * nely:
                l1 = lmid
            else:
                l2 = lmid
        change = float(np.max(np.abs(xnew - x)))
        x = xnew
        print(f"It.:{loop:5d} Obj.:{c:11.4f} Vol.:{xPhys.mean():7.3f} ch.:{change:7.3f}")
    print(f"final compliance {c:.6f} after {loop} iterations")


if __name__ == "__main__":
    args = sys.argv[1:] or ["60", "20", "0.5", "3", "1.5"]
    main(int(args[0]), int(args[1]), float(args[2]), float(args[3]), float(args[4]),
         args[5] if len(args) > 5 else "mbb")
