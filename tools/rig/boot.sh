#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Usage: tools/rig/boot.sh --kernel stock|test [--stock 6.1|6.12] --script PATH [--timeout SEC (600)]
#          [--log FILE] [--out DIR] [--mem MB (2048)] [--smp N (2)] [--append 'KARGS']
#          [--extra-qemu 'ARGS']
#
# Boots a QEMU guest (TCG; IBPOST_KVM=1 to use a working /dev/kvm) on a stock Debian
# kernel (--stock, or IBPOST_STOCK: 6.1 by default, or the 6.12 LTS) or the test kernel (tools/rig/testkernel.sh), shares the host root read-only
# and runs PATH (absolute, else relative to the repo) chrooted into it, from the repo dir,
# with IBPOST_OUT (the writable --out DIR, default a new build/rig/out-*), IBPOST_KERNEL
# and IBPOST_REPO set. Console goes to stdout and --log (default build/rig/console-<kind>.log);
# the guest's dmesg ends up in DIR/rig-dmesg.txt.
# Exit status: the script's, or 124 timeout, 125 guest never reported an exit code,
# 122 kernel splat (BUG/WARNING/Oops/panic/KASAN/UBSAN/lockdep/hung task) on the console.
set -euo pipefail

rig=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$rig/../.." && pwd)
usage() { sed -n '3,16s/^# \{0,1\}//p' "$0" >&2; exit 2; }
die() { echo "boot.sh: $*" >&2; exit 2; }

kind='' script='' timeout=600 log='' out='' mem=2048 smp=2 append='' extra=''
while (($#)); do
	(($# >= 2)) || usage
	case $1 in
	--kernel) kind=$2 ;;
	--stock) export IBPOST_STOCK=$2 ;;
	--script) script=$2 ;;
	--timeout) timeout=$2 ;;
	--log) log=$2 ;;
	--out) out=$2 ;;
	--mem) mem=$2 ;;
	--smp) smp=$2 ;;
	--append) append=$2 ;;
	--extra-qemu) extra=$2 ;;
	*) usage ;;
	esac
	shift 2
done
[[ -n $script ]] || usage
case $kind in
stock) kver=$("$rig/kver.sh"); kernel=/boot/vmlinuz-$kver; mods=/lib/modules/$kver ;;
test)
	kver=$("$rig/testkernel.sh" --print-kver); kernel=$("$rig/testkernel.sh" --print-bzimage)
	# Its modules_install tree, beside the source tree in the rig's cache.
	mods=$(dirname "$("$rig/testkernel.sh" --print-kdir)")/mods/lib/modules/$kver ;;
*) usage ;;
esac
[[ -r $kernel ]] || die "no kernel image $kernel"
initrd=$("$rig/initramfs.sh" "$kind")

mkdir -p "$repo/build/rig"
[[ -n $out ]] || out=$(mktemp -d "$repo/build/rig/out-XXXXXX")
mkdir -p "$out"
out=$(cd "$out" && pwd)
[[ -n $log ]] || log=$repo/build/rig/console-$kind.log

[[ $script == /* ]] || script=$repo/$script
[[ -f $script ]] || die "no script $script"
script=$(realpath "$script")
[[ $script != *[[:space:]]* && $repo != *[[:space:]]* && $mods != *[[:space:]]* ]] || die "paths with spaces are not supported"
# The guest hides the host's tmp/run/var/tmp/root behind tmpfs: pass such a script via out.
case $script in
/tmp/* | /run/* | /var/tmp/* | /root/*)
	[[ $script == "$repo"/* ]] || { cp "$script" "$out/"; script=/tmp/ibpost-out/$(basename "$script"); } ;;
esac

accel=(-accel tcg -cpu max)
if [[ ${IBPOST_KVM:-0} == 1 ]]; then
	if [[ -r /dev/kvm && -w /dev/kvm ]]; then accel=(-accel kvm -cpu host); else echo "boot.sh: /dev/kvm unusable, using TCG" >&2; fi
fi
nic=(-nic none)
[[ $extra == *-netdev* || $extra == *-nic* || $extra == *-net\ * ]] && nic=()
# shellcheck disable=SC2206 # --extra-qemu is split into words on purpose
extra_args=($extra)

# no_timer_check: the IO-APIC timer check times ticks in real time, and a
# TCG guest on a loaded host misses them ("IO-APIC + timer doesn't work!",
# a panic at 0.05 s, seen with seven runnable tasks on the two cores).
cmdline="console=ttyS0 panic=-1 loglevel=5 no_timer_check rig.kernel=$kind rig.stock=${IBPOST_STOCK:-6.1} rig.repo=$repo rig.mods=$mods rig.script=$script $append"
qemu=(qemu-system-x86_64 "${accel[@]}" -smp "$smp" -m "$mem" -nographic -no-reboot
	-monitor none -serial stdio "${nic[@]}"
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline"
	-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
	-virtfs "local,path=$out,mount_tag=out,security_model=none"
	"${extra_args[@]}")

echo "boot.sh: $kind kernel $kver, script $script, out $out, log $log" >&2
start=$(date +%s.%N)
set +e
timeout -k 5 "$timeout" "${qemu[@]}" </dev/null 2>&1 |
	sed -u -e 's/\r$//' -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\x1bc//g' | tee "$log"
qrc=${PIPESTATUS[0]}
set -e
secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)")

if ((qrc == 124 || qrc == 137)); then
	echo "TIMEOUT after ${timeout}s; last 40 console lines:"
	tail -n 40 "$log"
	exit 124
fi
splat='BUG:|WARNING:|Oops|Kernel panic|general protection fault|KASAN|UBSAN|possible circular locking|INFO: task .* blocked|rcu: INFO: .*stall|kmemleak: .* new suspected memory leaks'
bad=$(cat "$log" "$out/rig-dmesg.txt" 2>/dev/null | grep -E "\[ *[0-9]+\.[0-9]+\].*($splat)" | sort -u || true)
rc=$(sed -n 's/^.*IBPOST-RIG-EXIT=\([0-9]*\).*$/\1/p' "$log" | tail -n1)
if [[ -n $bad ]]; then
	echo "boot.sh: kernel problems reported (script rc=${rc:-none}):" >&2
	echo "$bad" >&2
	exit 122
fi
if [[ -z $rc ]]; then
	echo "boot.sh: no IBPOST-RIG-EXIT line (qemu rc=$qrc, ${secs}s); see $log" >&2
	grep -m1 'IBPOST-RIG-ERROR' "$log" >&2 || true
	exit 125
fi
echo "boot.sh: guest script exited $rc after ${secs}s" >&2
exit "$rc"
