#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print one line per leaf test of a KTAP file: "ok - NAME" or "not ok - NAME".

A leaf is a result line with no deeper result lines right before it: every
parameter of a parameterized KUnit case counts, the case itself does not.
Exits 1 when the file holds no result at all or a plan promises a number of
results other than the number that follow it.
"""
import re
import sys

RESULT = re.compile(r'^(\s*)(not ok|ok) (\d+)(?: -)? ?([^#]*)(#.*)?$')
PLAN = re.compile(r'^(\s*)1\.\.(\d+)')


def main(path):
    leaves_at = {}   # indent -> leaf results not yet claimed by a parent
    counts = {}      # indent -> results seen at that level
    plans = {}       # indent -> planned results
    leaves = []
    problems = []
    for line in open(path, encoding='utf-8', errors='replace'):
        line = line.rstrip('\n')
        m = PLAN.match(line)
        if m:
            ind = len(m.group(1))
            plans[ind] = int(m.group(2))
            counts[ind] = 0
            leaves_at[ind] = []
            continue
        m = RESULT.match(line)
        if not m:
            continue
        ind, status, name = len(m.group(1)), m.group(2), m.group(4).strip()
        skip = 'SKIP' in (m.group(5) or '').upper()
        inner = []
        for k in sorted([k for k in counts if k > ind], reverse=True):
            inner.extend(leaves_at.pop(k, []))
            if k in plans and plans[k] != counts[k]:
                problems.append('%s: plan 1..%d but %d results' %
                                (name, plans[k], counts[k]))
            plans.pop(k, None)
            counts.pop(k)
        counts[ind] = counts.get(ind, 0) + 1
        if inner:
            leaves.extend((st, name + ' / ' + nm, sk) for st, nm, sk in inner)
        else:
            leaves_at.setdefault(ind, []).append((status, name, skip))
    for k in sorted(leaves_at, reverse=True):
        leaves.extend(leaves_at[k])
    for k, n in plans.items():
        if counts.get(k) != n:
            problems.append('top level: plan 1..%d but %d results' %
                            (n, counts.get(k, 0)))
    for st, nm, sk in leaves:
        print('%s - %s%s' % (st, nm, ' # SKIP' if sk else ''))
    for p in problems:
        print('not ok - %s' % p)
    return 0 if leaves and not problems else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
