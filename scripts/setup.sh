#!/usr/bin/env bash
# One-command set-up on a fresh Debian 12 machine: installs the dependencies (apt), pins the
# reference BLAS/LAPACK, builds ncpbench into build/, and runs the main job.
#   bash scripts/setup.sh              # everything
#   bash scripts/setup.sh --deps-only  # only the apt part (what CI uses before the tests)
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi

# libsiconos-numerics-dev: the Siconos peers (-Dsiconos, solvers/siconos.c); it pulls in OpenBLAS
# and switches the run-time alternatives (pinned back below). libsuitesparse-dev: CHOLMOD
# (-Dsuitesparse). libopenmpi-dev, openmpi-bin: mpirun -n N ncpbench (-Dmpi). libopenblas-dev:
# the -Dblas=openblas build (its pkg-config file), which scripts/test.sh builds and tests.
# libbullet-dev, libdart-dev, libdart-external-odelcpsolver-dev: the engine peers (-Dbullet,
# -Ddart, solvers/engine_peers.c; C++). libdart-dev pulls in Boost, Eigen, FCL and Assimp (about
# 110 packages, ~1 min of CI); ENGINES=0 leaves the engine packages out. chromium: the test
# that opens a run's index.html headless (tests/test_page.sh; skipped without it). python3-cvxopt:
# scripts/ipm_sap.py (coneqp on SAP's model (19), the Castro study's interior-point solver).
PKGS=(build-essential meson ninja-build pkg-config liblapack-dev libblas-dev liblapacke-dev
      libcjson-dev libhdf5-dev zlib1g-dev hdf5-tools gnuplot-nox libfclib-dev
      libsiconos-numerics-dev libsuitesparse-dev libopenblas-dev
      python3-numpy python3-h5py python3-scipy python3-cvxopt procps libopenmpi-dev openmpi-bin
      chromium)
if [ "${ENGINES:-1}" != 0 ]; then
  PKGS+=(g++ libbullet-dev libdart-dev libdart-external-odelcpsolver-dev)
fi

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Other packages (Siconos, OpenBLAS) can switch Debian's BLAS/LAPACK alternatives to OpenBLAS;
# the default build pins netlib itself (meson.build), but pin the system too so that tools
# such as numpy agree. Harmless when already set.
A=/usr/lib/x86_64-linux-gnu
for alt in libblas.so.3-x86_64-linux-gnu:$A/blas/libblas.so.3 \
           liblapack.so.3-x86_64-linux-gnu:$A/lapack/liblapack.so.3; do
  name=${alt%%:*}; target=${alt#*:}
  if update-alternatives --query "$name" >/dev/null 2>&1 && [ -e "$target" ]; then
    $SUDO update-alternatives --set "$name" "$target" >/dev/null 2>&1 || true
  fi
done

[ "${1:-}" = "--deps-only" ] && exit 0

if [ ! -f build/build.ninja ]; then meson setup build; fi
ninja -C build
echo
echo "== main job: ./build/ncpbench run scenes/boltnut.json"
./build/ncpbench run scenes/boltnut.json
