#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Usage: tools/rig/pair.sh --kernel stock|test --server SCRIPT --client SCRIPT
#          [--server-kernel stock|test (--kernel)] [--kill-client SCRIPT]
#          [--timeout SEC (900)] [--out DIR] [--append 'KARGS'] [--server-vanishes]
#
# Boots two guests (tools/rig/boot.sh each) joined by one QEMU socket netdev
# on 127.0.0.1 and nothing else: the server guest listens, the client guest
# connects.  Each runs its script as boot.sh runs one, with rig.role=server
# or client and rig.addr (192.0.2.1 / 192.0.2.2, a documentation range that
# never leaves QEMU) and rig.peer (the other one) on its kernel command line:
# guest-lib.sh's rig_pair_net brings eth0 up with that address and adds rxe0
# on it; rig_arg reads the values.  The scripts coordinate over the wire
# (the client retries until the server answers).  When the client is done,
# DIR/server/stop appears: a server script that serves until told waits for it.
# --kill-client boots a client guest with that script (rig.phase=kill) first,
# waits for it to create running in its IBPOST_OUT, and kills its QEMU
# (SIGKILL: the peer just vanishes); then the --client guest (rig.phase=main)
# boots on the same wire.
# --server-vanishes: the server script takes its own guest down on purpose
# (say echo b >/proc/sysrq-trigger: QEMU runs with -no-reboot, so it just
# exits and the client hears nothing), after creating vanished in its
# IBPOST_OUT: that guest ending without an exit status then counts as
# success; without vanished, or with a kernel splat on its console, it fails.
# Output: DIR/server, DIR/client (and DIR/client-kill) (each guest's IBPOST_OUT)
# and DIR/console-*.log; DIR defaults to build/rig/pair-*.
# Exit status: 0 when both scripts exit 0, else the server's non-zero
# status, else the client's; the killed guest's status does not count.
set -euo pipefail

rig=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$rig/../.." && pwd)
usage() { sed -n '3,28s/^# \{0,1\}//p' "$0" >&2; exit 2; }

kind='' skind='' server='' client='' kill='' timeout=900 out='' append='' vanish=0
while (($#)); do
	if [[ $1 == --server-vanishes ]]; then
		vanish=1
		shift
		continue
	fi
	(($# >= 2)) || usage
	case $1 in
	--kernel) kind=$2 ;;
	--server-kernel) skind=$2 ;;
	--server) server=$2 ;;
	--client) client=$2 ;;
	--kill-client) kill=$2 ;;
	--timeout) timeout=$2 ;;
	--out) out=$2 ;;
	--append) append=$2 ;;
	*) usage ;;
	esac
	shift 2
done
[[ -n $kind && -n $server && -n $client ]] || usage
skind=${skind:-$kind}
mkdir -p "$repo/build/rig"
[[ -n $out ]] || out=$(mktemp -d "$repo/build/rig/pair-XXXXXX")
# A run's markers (stop, running, client-killed) must be its own.
rm -rf "$out/server" "$out/client" "$out/client-kill"
mkdir -p "$out/server" "$out/client" "$out/client-kill"

# A free TCP port on 127.0.0.1 for the socket netdev.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mac=52:54:00:19:20:0
net() { echo "-netdev socket,id=n0,$1=127.0.0.1:$port -device virtio-net-pci,netdev=n0,mac=$mac$2"; }

echo "pair.sh: $skind kernel serving, $kind client, on 127.0.0.1:$port; out $out" >&2
"$rig/boot.sh" --kernel "$skind" --script "$server" --timeout "$timeout" \
	--out "$out/server" --log "$out/console-server.log" \
	--append "rig.role=server rig.addr=192.0.2.1 rig.peer=192.0.2.2 $append" \
	--extra-qemu "$(net listen 1)" >/dev/null 2>"$out/server.err" &
spid=$!
# The listener must exist before the client's QEMU connects (watched in
# /proc/net/tcp: a test connection would be taken as the peer).
hexport=$(printf '%04X' "$port")
wait_listen() {
	for _ in $(seq 300); do
		grep -q "0100007F:$hexport 00000000:0000 0A" /proc/net/tcp && return
		sleep 0.1
	done
}
wait_listen
# boot_client SCRIPT NAME PHASE: a client guest in the background (pid in cpid).
boot_client() {
	"$rig/boot.sh" --kernel "$kind" --script "$1" --timeout "$timeout" \
		--out "$out/$2" --log "$out/console-$2.log" \
		--append "rig.role=client rig.addr=192.0.2.2 rig.peer=192.0.2.1 rig.phase=$3 rig.pairport=$port $append" \
		--extra-qemu "$(net connect 2)" >/dev/null 2>"$out/$2.err" &
	cpid=$!
}
if [[ -n $kill ]]; then
	boot_client "$kill" client-kill kill
	for _ in $(seq $((timeout * 2))); do
		[[ -e $out/client-kill/running ]] && break
		kill -0 "$cpid" 2>/dev/null || break
		sleep 0.5
	done
	sleep 3
	ran=$([[ -e $out/client-kill/running ]] && echo ran || echo "never ran")
	echo "pair.sh: killing the client guest (it $ran)" >&2
	# The server's row needs the guest to have run its job when killed.
	echo "$ran" >"$out/server/client-killed"
	pkill -KILL -f "qemu-system.*rig.phase=kill rig.pairport=$port" || true
	wait "$cpid" || true
	wait_listen	# QEMU listens again for the next client
fi
boot_client "$client" client main
set +e
wait "$cpid"
crc=$?
touch "$out/server/stop"
wait "$spid"
src=$?
set -e
# boot.sh's 125: no exit status on the console (the guest went down).
if ((vanish && src == 125)) && [[ -e $out/server/vanished ]]; then
	echo "pair.sh: the server guest went down as its script meant to" >&2
	src=0
fi
echo "pair.sh: server exit $src ($(tail -n 1 "$out/server.err")), client exit $crc ($(tail -n 1 "$out/client.err"))" >&2
((src)) && exit "$src"
exit "$crc"
