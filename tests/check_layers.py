#!/usr/bin/env python3
"""The layer graph (docs/design.md §7.1, the table between <!-- layers --> and <!-- /layers -->)
against the code: every `#include "x/..."` of a file in a layer's folder must name the layer
itself or one it builds on, directly or through others. Parses the table on its own (meson.build
reads it too, to build the include views), and also fails on a table that is not a graph the
build can use: a layer building on one not listed above it, a folder that does not exist, a
folder of src/ that is in no layer, a source file whose include names no layer.

usage: /usr/bin/python3 tests/check_layers.py SRCDIR        (exit 0 ok, 1 a violation)
       /usr/bin/python3 tests/check_layers.py --self-test   (the checker on a planted tree)
"""
import os
import re
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCES = ('.c', '.h', '.cpp')
# generated into util's own build folder (src/util/meson.build), included without a folder
GENERATED = {'ncp_config.h': 'util', 'ncp_commit.h': 'util'}


def read_table(doc):
    """[(layer, folder, [direct deps])] in the order written; raises ValueError on a bad table."""
    rows, inside = [], False
    for n, line in enumerate(open(doc, encoding='utf-8'), 1):
        if line.startswith('<!-- layers'):
            inside = True
        elif line.startswith('<!-- /layers'):
            inside = False
        elif inside and line.startswith('| ') and not line.startswith('| layer '):
            cells = [c.strip() for c in line.split('|')]
            deps = [d.strip() for d in cells[3].split(',') if d.strip() not in ('', '—')]
            rows.append((cells[1], cells[2].strip('`').rstrip('/'), deps, n))
    if not rows:
        raise ValueError(f'{doc}: no layer table between <!-- layers --> and <!-- /layers -->')
    return rows


def closure(rows, doc):
    sees = {}
    for layer, _, deps, n in rows:
        s = {layer}
        for d in deps:
            if d not in sees:
                raise ValueError(f'{doc}:{n}: layer {layer} builds on "{d}", which is no layer '
                                 'listed above it')
            s |= sees[d]
        sees[layer] = s
    return sees


def check(root, doc):
    """The violations, as messages."""
    rows = read_table(doc)
    sees = closure(rows, doc)
    bad = []
    folders = {}
    for layer, folder, _, n in rows:
        if not os.path.isdir(os.path.join(root, folder)):
            bad.append(f'{doc}:{n}: layer {layer}: folder {folder} does not exist')
        folders[folder] = layer
    srcdir = os.path.join(root, 'src')
    for d in sorted(os.listdir(srcdir)) if os.path.isdir(srcdir) else []:
        if os.path.isdir(os.path.join(srcdir, d)) and f'src/{d}' not in folders:
            bad.append(f'src/{d}: in no layer of {doc}')
    nfiles = nincl = 0
    for folder, layer in folders.items():
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            for name in sorted(files):
                if not name.endswith(SOURCES):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                text = open(path, encoding='utf-8', errors='replace').read()
                nfiles += 1
                for m in INCLUDE.finditer(text):
                    inc = m.group(1)
                    line = text.count('\n', 0, m.start()) + 1
                    nincl += 1
                    target = GENERATED.get(inc) or (inc.split('/')[0] if '/' in inc else None)
                    if target is None or target not in sees:
                        bad.append(f'{rel}:{line}: #include "{inc}" names no layer (every '
                                   'include names its folder: docs/design.md §7.3)')
                    elif target not in sees[layer]:
                        bad.append(f'{rel}:{line}: layer {layer} includes "{inc}" of layer '
                                   f'{target}, which it does not build on ({doc} §7.1: '
                                   f'{layer} sees {", ".join(sorted(sees[layer]))})')
    return bad, len(rows), nfiles, nincl


def self_test():
    """A planted tree: a clean one passes; an upward include, a sideways one, a folderless one,
    an unlisted src/ folder and a table out of order are each caught."""
    table = ('<!-- layers -->\n| layer | folder | builds on | contents |\n|---|---|---|---|\n'
             '| util | `src/util` | — | x |\n| core | `src/core` | util | x |\n'
             '| geo | `src/geo` | core | x |\n| store | `store/` | core | x |\n<!-- /layers -->\n')
    files = {'src/util/a.h': '#include <stdio.h>\n#include "ncp_config.h"\n',
             'src/core/b.c': '#include "util/a.h"\n#include "core/b.h"\n',
             'src/geo/c.c': '#include "core/b.h"\n# include "util/a.h"\n',
             'store/d.c': '#include "core/b.h"\n'}
    plants = [('src/core/b.c', '#include "geo/c.h"\n', 'layer core includes "geo/c.h"'),
              ('store/d.c', '#include "geo/c.h"\n', 'layer store includes "geo/c.h"'),
              ('src/geo/c.c', '#include "c.h"\n', 'names no layer'),
              ('src/extra/e.c', '', 'src/extra: in no layer'),
              (None, None, 'which is no layer listed above it')]
    failures = 0
    for plant in [None] + plants:
        with tempfile.TemporaryDirectory() as root:
            doc = os.path.join(root, 'layers.md')
            text = table
            if plant and plant[0] is None:  # geo builds on a layer listed below it
                text = text.replace('| geo | `src/geo` | core |', '| geo | `src/geo` | store |')
            open(doc, 'w').write(text)
            for rel, body in files.items():
                os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
                open(os.path.join(root, rel), 'w').write(body)
            if plant and plant[0]:
                p = os.path.join(root, plant[0])
                os.makedirs(os.path.dirname(p), exist_ok=True)
                open(p, 'a').write(plant[1])
            try:
                bad = check(root, doc)[0]
            except ValueError as e:
                bad = [str(e)]
            if plant is None:
                ok = not bad
                what = 'a clean tree passes'
            else:
                ok = len(bad) == 1 and plant[2] in bad[0]
                what = f'caught: {plant[2]}'
            print(('ok: ' if ok else 'FAIL: ') + what + ('' if ok else f' (got {bad})'))
            failures += not ok
    return 1 if failures else 0


def main():
    if sys.argv[1:] == ['--self-test']:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__.strip().split('\n\n')[-1], file=sys.stderr)
        return 2
    root = sys.argv[1]
    doc = os.path.join(root, 'docs', 'design.md')
    try:
        bad, nlayers, nfiles, nincl = check(root, doc)
    except ValueError as e:
        print(f'FAIL: {e}')
        return 1
    for b in bad:
        print('FAIL: ' + b)
    if bad:
        return 1
    print(f'ok: {nincl} includes of {nfiles} files in {nlayers} layers follow docs/design.md §7.1')
    return 0


if __name__ == '__main__':
    sys.exit(main())
