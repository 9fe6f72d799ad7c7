#!/bin/sh
# The commit of the source tree at $1 for the binary's stamp (meson's vcs_tag, src/util/meson.build;
# util/machine.h ncp_build_commit): `git describe` with "+dirty" when tracked files differ from
# it. Fails, so that meson writes its fallback ("unknown ..."), when $1 is not the top of a git
# checkout: a source tarball, even one unpacked inside another repository, names no commit.
top=$(git -C "$1" rev-parse --show-toplevel 2>/dev/null) || exit 1
[ "$(cd "$1" && pwd -P)" = "$(cd "$top" && pwd -P)" ] || exit 1
exec git -C "$1" describe --always --dirty=+dirty --abbrev=12
