# Sourced by the shell tests: the binary under test, the Python with numpy/h5py, a scratch folder
# removed on exit, and the failure counter the tests end on.
set -u
NCPBENCH=${NCPBENCH:?}
PY=${PYTHON:-/usr/bin/python3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
