#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test of the installed files (stock kernel; guest-check.sh runs it
# first, before any RDMA module is loaded): the modules tools/tests/host/install.sh
# left in build/pkg (DKMS's when it built them, else 'make install''s) and
# the host's depmod of them with the stock tree go into this kernel's
# /lib/modules (a tmpfs over the read-only host root's, undone at the end;
# a depmod here would take about 5 minutes under TCG); then 'modprobe ibpost' loads ib_core and
# rdma_cm with it, /sys/module/ibpost/version is VERSION, and the installed
# tool lists rxe_lo ('ibpost devices'), prints the module's version with -V
# (and warns when it differs), and its completion names rxe_lo; with
# ibpost unloaded, opening /dev/ibpost (modules.devname's node) loads it.
# TAP on stdout and in $IBPOST_OUT/installed-$IBPOST_KERNEL.tap.
# shellcheck source=tools/tests/lib/suite.sh
. "$IBPOST_REPO/tools/tests/lib/suite.sh" installed

kver=$(uname -r)
ver=$(head -n 1 VERSION)
pkg=$IBPOST_REPO/build/pkg
tool=$pkg/root/usr/sbin/ibpost
comp=$pkg/root/usr/share/bash-completion/completions/ibpost
lib=/lib/modules/$kver
tmods=/tmp/ibpost-installed-modules
ktree=/tmp/ibpost-installed-kernel
# IBPOST_INSTALLED=make: 'make install''s even when DKMS's are there.
if [[ ${IBPOST_INSTALLED:-} != make && -d $pkg/modtree-dkms ]]; then
	how=dkms to=updates/dkms
else
	how=make to=extra
fi
tree=$pkg/modtree-$how/lib/modules/$kver
if [[ ! -x $tool || ! -f $tree/modules.dep ]]; then
	t_fail "installed files present (tools/tests/host/install.sh)" "no $tool or $tree"
	t_done
	exit
fi

# Undo place(): one unmount each (the rig's own mounts lie beneath).
placed=0
undo() {
	if ((placed)); then
		umount "$lib"
		umount "$ktree"
		placed=0
	fi
	rm -rf "$tmods"
	rmdir "$ktree" 2>/dev/null
	return 0
}
trap undo EXIT

# A writable /lib/modules/KVER: a tmpfs directory with the installed modules
# and the host's depmod of them with this kernel's (install.sh: every
# modules.* file), its kernel/ a link to the original kernel/ tree bound
# elsewhere.
place() {
	mkdir -p "$tmods" "$ktree" || return 1
	cp -a "$lib/build" "$lib/source" "$tmods/" 2>/dev/null
	mkdir -p "$tmods/$to" && cp -r "$tree/$to/." "$tmods/$to/" &&
		cp "$tree"/modules.* "$tmods/" || return 1
	ln -s "$ktree" "$tmods/kernel" && mount --bind "$lib/kernel" "$ktree" || return 1
	mount --bind "$tmods" "$lib" || { umount "$ktree"; return 1; }
	placed=1
}
t0=$SECONDS
# Here, not in t_check's subshell: undo() needs 'placed'.
if place 2>"$tmods.err"; then
	t_ok "$how's modules placed in $lib/$to with their depmod"
else
	t_fail "$how's modules placed in $lib/$to with their depmod" "$(tail -n 2 "$tmods.err" | tr '\n' ' ')"
fi
rm -f "$tmods.err"
echo "# placed: $((SECONDS - t0)) s"

deps=$(modprobe --show-depends ibpost 2>&1)
if grep -q "/$to/.*ibpost\.ko" <<<"$deps" && grep -q '/ib_core\.ko' <<<"$deps" &&
	grep -q '/rdma_cm\.ko' <<<"$deps"; then
	t_ok "modprobe resolves ibpost to $to with ib_core and rdma_cm"
else
	t_fail "modprobe resolves ibpost to $to with ib_core and rdma_cm" "$(echo "$deps" | tr '\n' ' ')"
fi
before=0
for m in ib_core rdma_cm; do
	[[ -d /sys/module/$m ]] && before=$((before + 1))
done
if modprobe ibpost && [[ -d /sys/module/ib_core && -d /sys/module/rdma_cm && -d /sys/module/ibpost ]]; then
	t_ok "modprobe ibpost loads it with ib_core and rdma_cm ($before of the two loaded before)"
else
	t_fail "modprobe ibpost loads it with ib_core and rdma_cm" "$(lsmod | head -n 5 | tr '\n' ' ')"
fi
v=$(cat /sys/module/ibpost/version 2>&1)
if [[ $v == "$ver" ]]; then
	t_ok "/sys/module/ibpost/version is $ver"
else
	t_fail "/sys/module/ibpost/version is $ver" "'$v'"
fi

if rig_load_rxe && rig_rxe_lo; then
	out=$("$tool" devices 2>&1)
	if [[ $? == 0 && $out == *rxe_lo* ]]; then
		t_ok "the installed ibpost devices lists rxe_lo"
	else
		t_fail "the installed ibpost devices lists rxe_lo" "$(echo "$out" | tail -n 3 | tr '\n' ' ')"
	fi
else
	t_fail "rxe_lo up" "rig_load_rxe or rig_rxe_lo failed"
fi
err=$("$tool" -V 2>&1 >/dev/null)
out=$("$tool" -V 2>/dev/null)
if [[ $out == *"module: $ver"* && -z $err ]]; then
	t_ok "ibpost -V: module $ver, no warning"
else
	t_fail "ibpost -V: module $ver, no warning" "$out / $err"
fi
echo 0.0.0-other >/tmp/ibpost-other-version
if mount --bind /tmp/ibpost-other-version /sys/module/ibpost/version; then
	err=$("$tool" -V 2>&1 >/dev/null)
	umount /sys/module/ibpost/version
	if [[ $err == *"warning: the loaded module is version 0.0.0-other, this tool $ver"* ]]; then
		t_ok "ibpost -V warns when the module's version differs"
	else
		t_fail "ibpost -V warns when the module's version differs" "'$err'"
	fi
else
	t_fail "ibpost -V warns when the module's version differs" "cannot bind a version file"
fi
got=$(bash --norc --noprofile -c '. "$1"; COMP_WORDS=(ibpost devices --dev rx); COMP_CWORD=3
	_ibpost; echo "${COMPREPLY[*]}"' _ "$comp" 2>&1)
if [[ $got == rxe_lo ]]; then
	t_ok "completion of --dev rx names rxe_lo"
else
	t_fail "completion of --dev rx names rxe_lo" "'$got'"
fi
t_check "rmmod ibpost" rmmod ibpost
# Autoload: the node modules.devname lists (what kmod static-nodes gives
# systemd-tmpfiles at boot), opened with ibpost unloaded, loads it through
# its char-major-10-MINOR alias (the kernel's request_module).  The kernel
# runs its modprobe in the rig's initramfs, outside this chroot (/host
# there): a wrapper there runs this root's modprobe, for the row only.
dn=$(awk '$1 == "ibpost" {print $3}' "$lib/modules.devname" 2>/dev/null)
helper=$(cat /proc/sys/kernel/modprobe)
wrap=/ibpost-modprobe
printf '#!/bin/sh\nexec chroot /host /sbin/modprobe "$@"\n' >"/proc/1/root$wrap" &&
	chmod 0755 "/proc/1/root$wrap" && echo "$wrap" >/proc/sys/kernel/modprobe
if [[ $dn =~ ^c([0-9]+):([0-9]+)$ ]] && rm -f /dev/ibpost &&
	mknod -m 0600 /dev/ibpost c "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" &&
	[[ ! -d /sys/module/ibpost ]] && (exec 3</dev/ibpost) 2>/dev/null &&
	[[ -d /sys/module/ibpost ]]; then
	t_ok "open of /dev/ibpost ($dn, modules.devname) loads ibpost"
	rmmod ibpost
else
	t_fail "open of /dev/ibpost (modules.devname) loads ibpost" \
		"devname '$dn', modprobe $(cat /proc/sys/kernel/modprobe 2>&1), loaded: $([[ -d /sys/module/ibpost ]] && echo yes || echo no)"
	rmmod ibpost 2>/dev/null
fi
echo "$helper" >/proc/sys/kernel/modprobe
rm -f "/proc/1/root$wrap"
# devtmpfs makes its own node at the next load (and removes only its own).
rm -f /dev/ibpost
rdma link del rxe_lo 2>/dev/null
undo
if [[ -d $lib/kernel/drivers && ! -e $lib/$to/ibpost.ko && ! -e $lib/$to/module/ibpost.ko ]] &&
	! modinfo -n ibpost >/dev/null 2>&1; then
	t_ok "$lib restored (its kernel/ tree, no ibpost module)"
else
	t_fail "$lib restored (its kernel/ tree, no ibpost module)" "$(echo "$lib"/*)"
fi
t_done
