#!/usr/bin/env bash
# `pip install .` of the Python package (label slow: it builds the project once more, about 5
# minutes on 2 cores, and fetches scikit-build-core and pybind11 from PyPI): into a fresh virtual
# environment over Debian's python3, then, outside the source tree, J and dJ/dnu of the test case
# from the installed package must equal the build tree's.
# usage: pip_install.sh SOURCE_DIR BUILD_DIR WORK_DIR
set -euo pipefail
src="$1" build="$2" work="$3"
rm -rf "$work" && mkdir -p "$work"
py=/usr/bin/python3
[ -x "$py" ] || py=python3
"$py" -m venv --system-site-packages "$work/venv"
numpy_version="$("$py" -c 'import numpy; print(numpy.__version__)')"
"$work/venv/bin/pip" install -q "$src" "numpy==$numpy_version" \
  --config-settings=build-dir="$work/build" \
  --config-settings=cmake.define.Python3_EXECUTABLE="$py"
cat > "$work/check.py" <<'PY'
import sys
import undertow
case = undertow.load(sys.argv[1], set={"time.t_end": 0.25}, output=sys.argv[2])
J, g = undertow.Problem(case).value_and_grad({"fluid.nu": 0.05})
print(repr(J), repr(g["fluid.nu"]), undertow.__file__)
PY
cd "$work"
installed=$("$work/venv/bin/python" check.py "$src/tests/python/data/channel_cylinder.ini" "$work/runs")
tree=$(PYTHONPATH="$build/python" "$py" check.py "$src/tests/python/data/channel_cylinder.ini" "$work/runs")
echo "installed:  $installed"
echo "build tree: $tree"
case "$installed" in *"$work/venv/"*) ;; *) echo "FAILED: not the installed package"; exit 1 ;; esac
[ "${installed% *}" = "${tree% *}" ] || { echo "FAILED: the installed package gives other values"; exit 1; }
echo "pip install . gives the build tree's J and gradient"
