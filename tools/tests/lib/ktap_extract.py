#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Cut the KTAP of each ibpost KUnit suite out of a guest's dmesg.

usage: ktap_extract.py DMESG OUTDIR
Writes OUTDIR/kunit-<suite>.ktap, each a complete KTAP document (module
suites print no top-level header, so "KTAP version 1" and "1..1" are
prepended).  debugfs results are not used: 6.1 keeps only 512 bytes of log
per case there, which drops the results of parameterized cases.
Interleaved kernel messages (unindented, not KTAP) are dropped.
"""
import os
import re
import sys

START = re.compile(r'^\s*# Subtest: (ibpost_\w+)\s*$')
TSTAMP = re.compile(r'^\[\s*\d+\.\d+\] ')
KEEP = re.compile(r'^(\s+\S|(not )?ok \d|KTAP version|1\.\.\d)')


def main(dmesg, outdir):
    text = open(dmesg, encoding='utf-8', errors='replace').read()
    lines = [TSTAMP.sub('', ln) for ln in text.splitlines()]
    found = 0
    i = 0
    while i < len(lines):
        m = START.match(lines[i])
        if not m:
            i += 1
            continue
        suite = m.group(1)
        end = re.compile(r'^(not )?ok \d+ %s\b' % re.escape(suite))
        body = []
        j = i
        # include the "KTAP version 1" line printed just before the subtest
        if i > 0 and lines[i - 1].strip() == 'KTAP version 1':
            body.append(lines[i - 1])
        while j < len(lines):
            if KEEP.match(lines[j]):
                body.append(lines[j])
            if end.match(lines[j]):
                break
            j += 1
        path = os.path.join(outdir, 'kunit-%s.ktap' % suite)
        with open(path, 'w', encoding='utf-8') as f:
            f.write('KTAP version 1\n1..1\n' + '\n'.join(body) + '\n')
        found += 1
        i = j + 1
    print('%d suites extracted' % found)
    return 0 if found else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1], sys.argv[2]))
