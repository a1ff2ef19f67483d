#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Capture iWARP RDMA READ requests on a netdev and print their addresses.

usage: iwarp_sniff.py IFACE SECONDS STOPFILE

Reads every TCP segment on IFACE (AF_PACKET) for at most SECONDS, or until
STOPFILE exists and the frames queued by then are read, and prints one line
per RDMAP Read Request found in the byte stream of a segment:

    read sink_stag=0x... sink_to=0x... size=N src_stag=0x... src_to=0x...

The sink is the READ's local buffer (the reader's MR), the source the peer's
region.  An FPDU (RFC 5044, markers off as siw runs by default) starts with
its ULPDU length, 46 for a Read Request: the DDP untagged header (RFC 5041:
control 0x41 = last segment, version 1; RDMAP control 0x41 = version 1,
opcode 1 Read Request; 4 reserved bytes; queue number 1; MSN; MO) and the
Read Request itself (RFC 5040: sink STag, sink tagged offset, size, source
STag, source tagged offset), big-endian.  Ends with "reads N drops M" (M: frames the socket lost).
"""
import os
import select
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
SO_RCVBUFFORCE = 33
SOL_PACKET = 263
PACKET_STATISTICS = 6
FPDU = struct.Struct('>HBBIIIIIQIIQ')  # 2 + 1 + 1 + 4 * 4 + 4 + 8 + 4 + 4 + 8


def reads_in(payload, old):
    """Yield (sink_stag, sink_to, size, src_stag, src_to) of each request
    that ends past the first @old bytes (those were scanned before)."""
    i = payload.find(b'\x00\x2e\x41\x41')
    while i >= 0:
        if old < i + FPDU.size <= len(payload):
            (_, _, _, _, qn, _, _, sstag, sto, size, rstag,
             rto) = FPDU.unpack_from(payload, i)
            if qn == 1:
                yield sstag, sto, size, rstag, rto
        i = payload.find(b'\x00\x2e\x41\x41', i + 1)


def tcp_segment(frame):
    """(flow, payload) of an Ethernet + IPv4 TCP frame, or (None, b'')."""
    if len(frame) < 34 or frame[12:14] != b'\x08\x00':
        return None, b''
    ip = frame[14:]
    ihl = (ip[0] & 0x0f) * 4
    if ip[0] >> 4 != 4 or ip[9] != 6 or len(ip) < ihl + 20:
        return None, b''
    total = struct.unpack_from('>H', ip, 2)[0]
    tcp = ip[ihl:total]
    return ip[12:20] + tcp[0:4], tcp[(tcp[12] >> 4) * 4:]


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.split('\n\n')[1])
    iface, seconds, stop = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                         socket.htons(ETH_P_ALL))
    # A slow reader (TCG) must not lose frames: the socket's buffer holds
    # every frame of the workload; the kernel's drop count is printed.
    sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 256 << 20)
    sock.bind((iface, 0))
    print('listening on', iface, flush=True)
    seen = 0
    # The last bytes of each flow: a request split over two segments is
    # found in the tail of one and the start of the next.
    tails = {}
    end = time.monotonic() + seconds
    # STOPFILE is made when the workload has ended: its frames are all in
    # the socket's queue by then, but a slow reader (TCG, a busy host) has
    # not read them yet.  Stopping then read none of a workload's frames
    # at times ("reads 0 drops 0"): the queue is drained first.
    draining = False
    while True:
        if not draining and (time.monotonic() >= end or
                             os.path.exists(stop)):
            draining = True
        if not select.select([sock], [], [], 0 if draining else 0.2)[0]:
            if draining:
                break
            continue
        # lo (MTU 65536) hands whole GSO frames up: larger than 64 KiB.
        frame, addr = sock.recvfrom(1 << 18)
        # Loopback frames are seen twice (outgoing and incoming): count one.
        if addr[2] == socket.PACKET_OUTGOING:
            continue
        flow, payload = tcp_segment(frame)
        if not payload:
            continue
        tail = tails.get(flow, b'')
        data = tail + payload
        tails[flow] = data[-(FPDU.size - 1):]
        for sstag, sto, size, rstag, rto in reads_in(data, len(tail)):
            seen += 1
            print('read sink_stag=%#x sink_to=%#x size=%d src_stag=%#x '
                  'src_to=%#x' % (sstag, sto, size, rstag, rto), flush=True)
    _, drops = struct.unpack('II', sock.getsockopt(SOL_PACKET,
                                                   PACKET_STATISTICS, 8))
    print('reads', seen, 'drops', drops, flush=True)


if __name__ == '__main__':
    main()
