#!/usr/bin/env python3
"""The documentation's relative links resolve: every [text](path#anchor) of README.md, docs/*.md,
scenes/README.md and benchmarks/README.md names a file of the tree and, with an anchor into a
Markdown file, one of its headings (GitHub's rule: lower case, punctuation but '-' and '_'
dropped, spaces to '-'). The README points newcomers at docs/ page by page, so a page moved
or a heading renamed without its links shows here. Also checks that README.md stays a front
door (at most 150 lines) linking docs/README.md, and that this index lists every page of docs/.

usage: /usr/bin/python3 tests/check_doc_links.py SRCDIR   (exit 0 ok, 1 a broken link)
"""
import glob
import os
import re
import sys

LINK = re.compile(r'\[[^\]]*\]\(([^)\s]+)\)')
FENCE = re.compile(r'^```.*?^```', re.S | re.M)


def anchors(path):
    text = FENCE.sub('', open(path, encoding='utf-8').read())
    out = set()
    for m in re.finditer(r'^#{1,6}\s+(.*?)\s*$', text, re.M):
        a = re.sub(r'[^\w\- ]', '', m.group(1).strip().lower().replace('`', ''))
        out.add(a.replace(' ', '-'))
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    pages = ['README.md', 'scenes/README.md', 'benchmarks/README.md']
    pages += sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, 'docs', '*.md')))
    bad, n = [], 0
    for page in pages:
        path = os.path.join(root, page)
        if not os.path.exists(path):
            continue
        text = FENCE.sub('', open(path, encoding='utf-8').read())
        for m in LINK.finditer(text):
            target = m.group(1)
            if re.match(r'[a-z]+:', target):
                continue  # http:, https:, mailto:
            n += 1
            file, _, anchor = target.partition('#')
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            line = text.count('\n', 0, m.start()) + 1
            if not os.path.exists(dest):
                bad.append(f'{page}:{line}: link to {target}: no file {os.path.relpath(dest, root)}')
            elif anchor and dest.endswith('.md') and anchor not in anchors(dest):
                bad.append(f'{page}:{line}: link to {target}: no heading #{anchor} there')
    readme = os.path.join(root, 'README.md')
    lines = open(readme, encoding='utf-8').read().count('\n')
    if lines > 150:
        bad.append(f'README.md: {lines} lines; the front door stays within 150 (move detail to docs/)')
    def links_of(page):
        return set(os.path.normpath(os.path.join(os.path.dirname(page), t.partition('#')[0]))
                   for t in LINK.findall(FENCE.sub('', open(page, encoding='utf-8').read())))
    index = os.path.join(root, 'docs', 'README.md')
    if os.path.normpath(index) not in links_of(readme):
        bad.append('README.md: does not link docs/README.md, the index of the documentation')
    for p in glob.glob(os.path.join(root, 'docs', '*.md')):
        if p != index and os.path.normpath(p) not in links_of(index):
            bad.append(f'docs/README.md: does not list docs/{os.path.basename(p)}')
    for b in bad:
        print('FAIL: ' + b)
    if not bad:
        print(f'ok: {n} relative links of {len(pages)} pages resolve; README.md {lines} lines')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
