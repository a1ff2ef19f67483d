#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Usage: tools/tests/system/system.sh [--timeout SEC (1800)]
#
# The installed-package test (issue 46): ibpost as an operator installs and
# runs it, on two Debian 12 guests that boot systemd as PID 1.
#  1. The root of tools/rig/debian-image.sh (cached) is unpacked into
#     build/system/root; 'apt-get install' of build/deb's ibpost and
#     ibpost-dkms packages in it (chroot, no download) builds the modules
#     by DKMS for its kernel, which is checked; the test's two units and
#     its script (tools/tests/system/guest.sh) are added and enabled.
#  2. An ext4 image of it (mkfs.ext4 -d: no loop device), one qcow2
#     overlay per guest, booted with the image's own kernel and initrd
#     under TCG, joined by one QEMU socket netdev on 127.0.0.1: the server
#     (192.0.2.1) and the client (192.0.2.2), which reboots once.
#  3. guest.sh's rows ("SYSTEST ok - ..." on each console) become TAP here,
#     with a row per phase that must have ended (server 1, client 1 and 2).
# 'make deb' runs first when build/deb has no packages of VERSION.  TAP on
# stdout and in $TAP_FILE; consoles and logs in build/system.
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1
repo=$PWD
# shellcheck source=tools/tests/lib/tap.sh disable=SC1091
. tools/tests/lib/tap.sh

timeout=1800
case ${1:-} in
--timeout) timeout=$2 ;;
"") ;;
*) sed -n '3,18s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac

out=$repo/build/system
root=$out/root
ver=$(head -n 1 VERSION)
tool_deb=build/deb/ibpost_${ver}_amd64.deb
dkms_deb=build/deb/ibpost-dkms_${ver}_all.deb
mounted=()

cleanup() {
	local m
	for m in "${mounted[@]}"; do
		umount -l "$m" 2>/dev/null
	done
	mounted=()
	[[ -n ${spid:-} ]] && kill -KILL "$spid" 2>/dev/null
	[[ -n ${cpid:-} ]] && kill -KILL "$cpid" 2>/dev/null
	return 0
}
trap cleanup EXIT

rm -rf "$out"
mkdir -p "$out"

# 1. The root, the packages, the test's units.
if [[ ! -s $tool_deb || ! -s $dkms_deb ]]; then
	make --no-print-directory -s deb >"$out/deb.log" 2>&1 ||
		{ t_fail "system: make deb" "$(tail -n 3 "$out/deb.log" | tr '\n' ' ')"; t_done; exit; }
fi
t0=$SECONDS
if ! tar=$(tools/rig/debian-image.sh 2>"$out/image.log"); then
	t_fail "system: the Debian 12 root (mmdebstrap)" "$(tail -n 3 "$out/image.log" | tr '\n' ' ')"
	t_done
	exit
fi
t_ok "system: the Debian 12 root ($tar, $((SECONDS - t0)) s)"
mkdir -p "$root"
tar -xpf "$tar" -C "$root" --numeric-owner
kver=$(ls "$root/lib/modules")
cp "$tool_deb" "$dkms_deb" "$root/tmp/"
for m in proc sys dev; do
	case $m in
	proc) mount -t proc proc "$root/proc" ;;
	sys) mount -t sysfs sysfs "$root/sys" ;;
	dev) mount --rbind /dev "$root/dev" ;;	# /dev/pts too: apt's log
	esac && mounted=("$root/$m" "${mounted[@]}")
done
t0=$SECONDS
# As an operator installs a downloaded package: apt-get install of its
# path (its dependencies are in the root already: nothing is fetched).
if chroot "$root" apt-get install -y \
	"/tmp/${tool_deb##*/}" "/tmp/${dkms_deb##*/}" >"$out/install.log" 2>&1; then
	t_ok "system: apt-get install of ibpost and ibpost-dkms in the guest's root ($((SECONDS - t0)) s)"
else
	t_fail "system: apt-get install of ibpost and ibpost-dkms" "$(tail -n 3 "$out/install.log" | tr '\n' ' ')"
fi
built=$(find "$root/lib/modules/$kver/updates" -name 'ibpost*.ko*' -printf '%f\n' 2>/dev/null | sort | paste -sd ' ')
if [[ $built == *ibpost.ko* && $built == *ibpost_blk.ko* ]]; then
	t_ok "system: DKMS built $built for the guest's kernel $kver"
else
	t_fail "system: DKMS builds ibpost.ko and ibpost_blk.ko for the guest's kernel $kver" \
		"found '$built': $(grep -i -m 2 'dkms\|error' "$out/install.log" | tr '\n' ' ')"
fi
rm -f "$root/tmp/"*.deb
install -D -m 0755 tools/tests/system/guest.sh "$root/usr/local/sbin/ibpost-systest"
install -D -m 0644 tools/tests/lib/tap.sh "$root/usr/local/lib/ibpost-systest/tap.sh"
cat >"$root/etc/systemd/system/ibpost-systest-net.service" <<'EOF'
[Unit]
Description=ibpost system test: eth0's address and rxe0 on it
Wants=sys-subsystem-net-devices-eth0.device
After=sys-subsystem-net-devices-eth0.device systemd-udevd.service
Before=network-online.target rdma-hw.target ibpost-serve.service ibpost-blk.service

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/local/sbin/ibpost-systest net

[Install]
WantedBy=network-online.target multi-user.target
EOF
cat >"$root/etc/systemd/system/ibpost-systest.service" <<'EOF'
[Unit]
Description=ibpost system test
After=multi-user.target ibpost-serve.service ibpost-blk.service

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/ibpost-systest run
StandardOutput=journal+console
StandardError=journal+console
TimeoutStartSec=30min

[Install]
WantedBy=multi-user.target
EOF
chroot "$root" systemctl enable ibpost-systest-net.service ibpost-systest.service \
	>>"$out/install.log" 2>&1
# No login prompt on the console: only the test's lines and the kernel's.
chroot "$root" systemctl mask serial-getty@ttyS0.service getty@tty1.service \
	>>"$out/install.log" 2>&1
cleanup
cp "$root/boot/vmlinuz-$kver" "$root/boot/initrd.img-$kver" "$out/"

# 2. The image and the two guests.
if ! mkfs.ext4 -q -F -L systest -d "$root" "$out/base.img" 4G >"$out/mkfs.log" 2>&1; then
	t_fail "system: mkfs.ext4 -d of the root" "$(tail -n 3 "$out/mkfs.log" | tr '\n' ' ')"
	t_done
	exit
fi
rm -rf "$root"
for g in server client; do
	qemu-img create -q -f qcow2 -F raw -b "$out/base.img" "$out/$g.qcow2"
done
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
accel=(-accel tcg -cpu max)
[[ ${IBPOST_KVM:-0} == 1 && -w /dev/kvm ]] && accel=(-accel kvm -cpu host)
# guest ROLE ADDR PEER LISTEN|CONNECT MACBYTE: boot one guest (background).
guest() {
	local mid
	mid=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
	qemu-system-x86_64 "${accel[@]}" -smp 2 -m 2048 -nographic -monitor none \
		-serial "file:$out/console-$1.log" \
		-kernel "$out/vmlinuz-$kver" -initrd "$out/initrd.img-$kver" \
		-append "root=/dev/vda rw console=ttyS0 net.ifnames=0 loglevel=4 systemd.show_status=0 systemd.machine_id=$mid ibpost.systest=$1 ibpost.addr=$2 ibpost.peer=$3" \
		-drive "file=$out/$1.qcow2,if=virtio,format=qcow2" \
		-netdev "socket,id=n0,$4=127.0.0.1:$port" \
		-device "virtio-net-pci,netdev=n0,mac=52:54:00:19:21:0$5" \
		>"$out/qemu-$1.log" 2>&1 &
}
t0=$SECONDS
guest server 192.0.2.1 192.0.2.2 listen 1
spid=$!
sleep 2
guest client 192.0.2.2 192.0.2.1 connect 2
cpid=$!
# The client powers off after its second phase; the server serves until
# then.
while kill -0 "$cpid" 2>/dev/null && ((SECONDS - t0 < timeout)); do
	sleep 5
done
if kill -0 "$cpid" 2>/dev/null; then
	t_fail "system: the client's two boots end within $timeout s" \
		"last lines: $(tail -n 5 "$out/console-client.log" | tr -d '\r' | tr '\n' ' ')"
fi
cleanup
spid='' cpid=''

# 3. The rows.
for g in server client; do
	tr -d '\r' <"$out/console-$g.log" | sed -n 's/.*SYSTEST //p' >"$out/rows-$g.txt"
	while IFS= read -r line; do
		case $line in
		"ok "[0-9]*" - "*) t_ok "system: ${line#ok * - }" ;;
		"not ok "[0-9]*" - "*)
			line=${line#not ok * - }
			t_fail "system: ${line%% # *}" "${line#* # }"
			;;
		esac
	done <"$out/rows-$g.txt"
done
for p in "server 1" "client 1" "client 2"; do
	if grep -qx "end $p" "$out/rows-${p%% *}.txt"; then
		t_ok "system: the ${p% *}'s phase ${p#* } ended"
	else
		t_fail "system: the ${p% *}'s phase ${p#* } ends" \
			"$(grep -E 'Failed|failed|BUG|Oops' "$out/console-${p%% *}.log" | tail -n 3 | tr -d '\r' | tr '\n' ' ')"
	fi
done
echo "system: both guests in $((SECONDS - t0)) s" >&2
t_done
