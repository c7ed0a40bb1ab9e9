#!/usr/bin/env python3
# Compares two sweep reports (report.md) ratio by ratio: every "A vs B" cell the two share,
# how many agree (within 5% from 4 KB, 10% below), and the largest differences.
#   scripts/compare-reports.py docs/reports/sweep-2026-12-01.md $CARGO_TARGET_DIR/pinrocks-sweep/report.md
import re, sys
def parse(path):
    out = {}
    section = None
    header = None
    for line in open(path):
        line = line.rstrip('\n')
        if line.startswith('#'):
            section = line.strip('# ').strip(); header = None; continue
        if line.startswith('|') and '---' not in line:
            cells = [c.strip() for c in line.strip('|').split('|')]
            if header is None:
                header = cells; continue
            for h, c in zip(header[1:], cells[1:]):
                m = re.match(r'([0-9.]+)x \[', c)
                if m:
                    out[(section, cells[0], h)] = float(m.group(1))
        else:
            if not line.startswith('|'): header = None if line.strip()=='' else header
    return out
a = parse(sys.argv[1]); b = parse(sys.argv[2])
common = sorted(set(a) & set(b))
def size_of(row):
    m = re.match(r'(\d+)', row.replace(' B',''))
    return int(m.group(1)) if m else 0
agree = 0; diffs = []
for k in common:
    x, y = a[k], b[k]
    d = abs(x - y) / max(x, y)
    tol = 0.05 if size_of(k[1]) >= 4096 else 0.10
    if d <= tol: agree += 1
    diffs.append((d, k, x, y))
print(f"{agree} of {len(common)} ratios agree (±5% from 4 KB, ±10% below)")
for d, k, x, y in sorted(diffs, reverse=True)[:12]:
    print(f"- {k[0]} | {k[1]} | {k[2]}: {x:.2f}x / {y:.2f}x ({d*100:.1f}%)")
