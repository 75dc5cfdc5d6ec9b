#!/usr/bin/env python3
"""Check the links into the docs: every Markdown link to a .md file (and its #anchor) in README.md and docs/, and
every heading of docs/experiments.md that a file of the tree quotes as `experiments.md, "Heading"`."""
import pathlib, re, subprocess, sys

root = pathlib.Path(__file__).resolve().parent.parent if len(sys.argv) < 2 else pathlib.Path(sys.argv[1])

def slug(h):
    h = h.strip().lower()
    h = re.sub(r'[^\w\- ]', '', h)   # GitHub drops punctuation, keeps letters, digits, '-', '_' and spaces
    return h.replace(' ', '-')

def headings(path):
    out, seen, fence = [], {}, False
    for line in path.read_text().splitlines():
        if line.startswith('```'):
            fence = not fence
        m = None if fence else re.match(r'(#{1,6}) (.*)', line)
        if m:
            s = slug(m.group(2)); n = seen.get(s, 0); seen[s] = n + 1
            out.append((m.group(2).strip(), s if n == 0 else f'{s}-{n}'))
    return out

bad = 0
md = [root / 'README.md'] + sorted((root / 'docs').rglob('*.md'))
for f in md:
    text = f.read_text()
    for m in re.finditer(r'\]\(([^)\s]+)\)', text):
        target = m.group(1)
        if re.match(r'[a-z]+:', target):
            continue
        path, _, anchor = target.partition('#')
        dest = (f.parent / path).resolve() if path else f
        if not dest.exists():
            print(f'{f.relative_to(root)}: {target}: no such file'); bad += 1; continue
        if anchor and dest.suffix == '.md' and anchor not in {s for _, s in headings(dest)}:
            print(f'{f.relative_to(root)}: {target}: no such heading'); bad += 1

names = [h for h, _ in headings(root / 'docs/experiments.md')]
files = subprocess.run(['git', 'ls-files'], cwd=root, capture_output=True, text=True).stdout.split()
for name in files:
    p = root / name
    if p.resolve() == pathlib.Path(__file__).resolve():
        continue  # this file's own examples
    if p.suffix not in {'.md', '.js', '.mjs', '.cpp', '.hpp', '.html', '.py', ''} or not p.is_file():
        continue
    try:
        text = p.read_text()
    except UnicodeDecodeError:
        continue
    # join lines broken inside a quote: a newline and the next line's comment or indentation become one space
    joined = re.sub(r'\s*\n\s*(?://|#|\*)?\s*', ' ', text)
    # `experiments.md, "Heading"`, `experiments.md ("Heading")`, `experiments.md` (Heading) and the like
    for m in re.finditer(r'experiments\.md`?[^"\n).]{0,25}?(?:"([^"]+)"|\(([A-Z][^)`]*)\))', joined):
        # (a quote inside a C++ or JS string ends in the escape of its closing quote: \")
        q = (m.group(1) or m.group(2)).rstrip('\\').rstrip('.,')
        if not any(h == q or h.startswith(q) for h in names):
            print(f'{name}: quotes "{q}", which no heading of docs/experiments.md starts with'); bad += 1

print('links and quoted headings:', 'all resolve' if not bad else f'{bad} broken')
sys.exit(1 if bad else 0)
