#!/bin/bash
# docs/cli.md is the command line's reference as `ncpbench help --markdown` prints it from the
# option table (src/app/options.c): it fails when the committed file differs, so an option or
# help text changed in the table without regenerating the doc shows here. Also checks that the
# generated Markdown names every command of `ncpbench --help` and that every command's --help
# option lines appear in its section (the two outputs come from one table).
set -u
NCPBENCH=${NCPBENCH:?}
SRCDIR=${SRCDIR:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }

"$NCPBENCH" help --markdown > "$T/cli.md" || fail "ncpbench help --markdown exit $?"
if ! diff -u "$SRCDIR/docs/cli.md" "$T/cli.md" > "$T/diff"; then
  head -60 "$T/diff"
  fail "docs/cli.md differs from \`ncpbench help --markdown\`: regenerate it with" \
       "./build/ncpbench help --markdown > docs/cli.md"
fi
# every command of the overview has its section, and its options are listed there
"$NCPBENCH" --help | sed -n '/^Commands:/,/^$/p' | awk '/^  [a-z]/ {print $1}' > "$T/cmds"
[ -s "$T/cmds" ] || fail "no command in ncpbench --help"
while read -r c; do
  grep -qx "## $c" "$T/cli.md" || { fail "no section for '$c'"; continue; }
  sed -n "/^## $c\$/,/^## /p" "$T/cli.md" > "$T/sec"
  "$NCPBENCH" "$c" --help | grep -oE '^  (-[a-z], )?--[a-z-]+' | sed 's/^  //' > "$T/opts"
  while read -r o; do
    grep -qF -- "- \`$o" "$T/sec" || fail "'$c --help' lists $o, docs/cli.md's section does not"
  done < "$T/opts"
done < "$T/cmds"
[ $fails -eq 0 ] && echo "ok: docs/cli.md is the generated reference ($(wc -l < "$T/cmds") commands)"
exit $((fails > 0))
