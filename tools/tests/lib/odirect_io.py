#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""O_DIRECT writes and read-backs from buffers that start inside a page.

usage: odirect_io.py DEVICE OFFSETS SIZES

For each buffer offset (bytes into a page, a multiple of 512) and each size
(bytes, a multiple of 512), writes random bytes with O_DIRECT from a buffer
starting that far into a page-aligned mapping, reads them back with
O_DIRECT into another buffer at the same offset, and compares.  Each case
goes to its own 8 MiB of the device.  One line per case:

    ok|bad|error OFFSET SIZE [what]

Exit status 0 when every case is ok.  OFFSETS and SIZES are comma lists.
"""
import mmap
import os
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.split('\n\n')[1])
    dev = sys.argv[1]
    offs = [int(x) for x in sys.argv[2].split(',')]
    sizes = [int(x) for x in sys.argv[3].split(',')]
    span = 8 << 20
    fd = os.open(dev, os.O_RDWR | os.O_DIRECT)
    wbuf = mmap.mmap(-1, span + mmap.PAGESIZE)
    rbuf = mmap.mmap(-1, span + mmap.PAGESIZE)
    failed = 0
    case = 0
    for off in offs:
        for size in sizes:
            pos = case * span
            case += 1
            w = memoryview(wbuf)[off:off + size]
            r = memoryview(rbuf)[off:off + size]
            w[:] = os.urandom(size)
            r[:] = bytes(size)
            try:
                n = os.pwrite(fd, w, pos)
                if n != size:
                    raise OSError(0, 'short write %d' % n)
                n = os.preadv(fd, [r], pos)
                if n != size:
                    raise OSError(0, 'short read %d' % n)
            except OSError as e:
                print('error', off, size, e.strerror or e, flush=True)
                failed += 1
                continue
            if w != r:
                first = next(i for i in range(size) if w[i] != r[i])
                print('bad', off, size, 'first difference at byte', first,
                      flush=True)
                failed += 1
            else:
                print('ok', off, size, flush=True)
    os.close(fd)
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
