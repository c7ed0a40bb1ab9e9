#!/usr/bin/env python3
# Puts a per-read count table (scripts/count-per-read.sh's markdown) beside the same table
# in a previous sweep report, so that a regression shows as a difference in the next
# report: each cell becomes "now (previous, difference)", or "now (new)" where the previous
# report had no such row or size.
#   scripts/counts-beside.py PREVIOUS_REPORT CURRENT_TABLE [SECTION]
# SECTION is the previous report's heading to read (default: "Instructions per read").
# Cells may themselves be "now (previous, difference)": the first number is taken.
import re
import sys


def table_rows(lines):
    """The first markdown table in `lines`: (header cells, {row name: [cells]})."""
    header, rows = None, {}
    for line in lines:
        line = line.strip()
        if not line.startswith('|'):
            if header is not None:
                break
            continue
        cells = [c.strip() for c in line.strip('|').split('|')]
        if header is None:
            header = cells
        elif not set(line) <= set('|-: '):
            rows[cells[0]] = cells[1:]
    return header or [], rows


def number(cell):
    m = re.match(r'-?[0-9][0-9,]*(\.[0-9]+)?', cell.strip())
    return float(m.group(0).replace(',', '')) if m else None


def section(path, title):
    lines = open(path).read().split('\n')
    for i, line in enumerate(lines):
        if line.startswith('#') and title in line:
            return lines[i + 1:]
    return []


def main():
    if len(sys.argv) < 3:
        sys.exit('usage: counts-beside.py PREVIOUS_REPORT CURRENT_TABLE [SECTION]')
    previous, current = sys.argv[1], sys.argv[2]
    title = sys.argv[3] if len(sys.argv) > 3 else 'Instructions per read'
    old_header, old_rows = table_rows(section(previous, title))
    header, rows = table_rows(open(current).read().split('\n'))
    old_col = {h: i for i, h in enumerate(old_header[1:])}
    print('| ' + ' | '.join(header) + ' |')
    print('|---|' + '---:|' * (len(header) - 1))
    for name, cells in rows.items():
        out = []
        for size, cell in zip(header[1:], cells):
            now = number(cell)
            old = None
            if name in old_rows and size in old_col and old_col[size] < len(old_rows[name]):
                old = number(old_rows[name][old_col[size]])
            if now is None or old is None:
                out.append(f'{cell} (new)')
            else:
                out.append(f'{now:.2f} ({old:.2f}, {now - old:+.2f})')
        print(f'| {name} | ' + ' | '.join(out) + ' |')
    print(f'\nEach cell: this run (the previous report\'s, the difference); previous: `{previous}`.')


main()
