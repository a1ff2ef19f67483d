#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest table of bad inputs (issue 4, "Hardening"): one row per validation
# rule the kernel applies to a run, each an 'ibpost run' command line with the
# exit status, the errno and the exact line the tool must print, e.g.
#   ibpost: run refused: Invalid argument: sge[1] of wr 0: length 0 (value 0, limit 1)
# The line is matched whole (grep -Fx), so errno, reason, WR/SGE and
# value/limit all count.  Device limits come from 'ibpost devices --json';
# the only numbers written here are ibpost's own constants (IBPOST_MAX_MSG
# and IBPOST_MAX_SGE from include/uapi/ibpost.h, the 4 MiB SGE slot of
# module/core/buf.h, the 256 MiB per job of module/core/target.h, counted as pinned) and errno values.
# Run by guest-check.sh after integration.sh on both kernels; TAP on stdout
# and in $IBPOST_OUT/badinput-$IBPOST_KERNEL.tap.  IBPOST_PROVIDER=siw (test
# kernel): the same table on siw0, every run through rdma_cm (--cm
# 192.0.2.20), limits from its own record, plus the iWARP capability rows;
# TAP in badinput-siw-$IBPOST_KERNEL.tap, names prefixed "siw: ".
#
# Where each reason (enum ibpost_reason) is checked.  The last test reads
# these lines back: every reason in the header needs one, and each one
# marked "badinput" needs a row below that passed.
#   ARG_SIZE     abi_test (DEV_LIST, RUN): size below VER0 is EINVAL and the status is left alone; never reported
#   ARG_TAIL     abi_test (DEV_LIST, RUN): non-zero tail, E2BIG
#   RESERVED     abi_test (DEV_LIST reserved; RUN gid_index without IBPOST_RUN_GID, reserved2)
#   FLAGS        abi_test (DEV_LIST, RUN unknown flag bits)
#   REC_SIZE     abi_test (DEV_LIST attr_size too small, too big)
#   COUNT        abi_test (DEV_LIST count above IBPOST_DEV_LIST_MAX)
#   OVERFLOW     badinput (iters * size, EOVERFLOW); abi_test too (count * attr_size cannot overflow on 64 bits)
#   FAULT        abi_test (DEV_LIST records; RUN sges, recv_sges unmapped or NULL)
#   NO_DEVICE    badinput (and the tool finding no device without --dev)
#   PORT         badinput
#   OPCODE       abi_test (op 99); the tool's --op only takes known names: its own message is a row here
#   LAYOUT       abi_test (layout, recv_layout 77/9); the tool's --layout only takes known names: a row here
#   NUM_SGE      badinput (0, above max_send_sge, max_sge_rd, max_recv_sge, explicit 0 and above the device)
#   SGE_ZERO     badinput (send and receive layouts)
#   SGE_RANGE    badinput (past the slot, offset + length wrapping)
#   SGE_COUNT    tool only: the ioctl always carries num_sge entries; the tool refuses --sge above its --sge-layout (rows here); not reachable through /dev/ibpost, no KUnit case
#   MSG_SIZE     badinput (0, above the limit, an explicit layout summing above it; the tool's own u32 cap)
#   MSG_SUM      badinput (send and receive layouts)
#   LAYOUT_FIT   badinput
#   INLINE_SIZE  badinput
#   INLINE_OP    badinput
#   DEPTH        badinput (0, above max_qp_wr - 1)
#   BATCH        badinput (0, above depth)
#   SIGNAL       badinput (0, above depth - batch + 1)
#   ITERS        badinput
#   BUF_SIZE     badinput
#   NOMEM        not an input: allocation failure (kernel only, no test)
#   FRPL         badinput
#   CONNECT      badinput (--cm to an unassigned IPv4/IPv6 address, to another device's address)
#   DEVICE_GONE  not an input: integration.sh and hardening.sh delete devices and rdma_rxe under runs
#   WC_ERROR     not an input: rxe KUnit suite (injected faults)
#   VERIFY       not an input: rxe KUnit suite (injected faults)
#   POST         not an input: ib_post_send refusing a checked WR (no test)
#   TIMEOUT      not an input: completions that stop coming (no test)
#   IMM_OP       badinput
#   PINGPONG     badinput (--pingpong with read, with --batch 2)
#   CM_ADDR      abi_test (family without the flag, unknown family with it); the tool's --cm parses the address: its message is a row here
#   CAP_IMM      abi_test --iwarp (siw); rows here on siw (send_imm, write_imm with and without --cm)
#   CAP_CM_ONLY  abi_test --iwarp (siw); a row here on siw (a loopback job without --cm)
#   CAP_WRITE_VERIFY abi_test --iwarp (siw); a row here on siw (write --verify without --pingpong)
#   PRIV         integration.sh (a member of the node's group: run, serve; root without CAP_SYS_ADMIN: run) and abi_test --nocaps (root's fd after a drop of every capability: RUN, SERVE)
#   GID_RANGE    abi_test (an index past the table, one at its size); integration.sh (run -x past the table, rxe)
#   GID_EMPTY    abi_test (the table's last entry); integration.sh (run -x on the first empty entry, rxe)
#   GID_TYPE     not reachable on rxe or siw: a RoCE port's GID table holds only the types it carries, siw connects through rdma_cm (no test)
#   GID_CM       abi_test (IBPOST_RUN_GID with IBPOST_RUN_CM); the tool refuses -x with --cm or --connect itself (cli.sh)
#   HIST         abi_test (IBPOST_RUN_HIST without run.hist, run.hist without the flag)
#   NO_JOB       abi_test (PROGRESS on a file with no job, and after its jobs ended)
#   RESOLVE      peer-client.sh (a job to an address with no host: 'could not resolve' within a second)
#   PEER_VERSION peer-client.sh and peer-server.sh (a job message of the next version refused on both sides); wire_kunit
#   PEER_PROTO   serve.sh (malformed job messages: the client's line and the server's log); wire_kunit
#   PEER_LOST    peer-server.sh (a dropped join's connection: 'lost: Transport endpoint is not connected')
#   PEER_BUSY    hostile-battery (its floods may be refused with it or SRV_PER_ADDR: taken, not required); no test fills --max-conns alone (no test)
#   PEER_FLAG    abi_test (IBPOST_RUN_PEER with IBPOST_RUN_CM); abi_kunit
#   PEER_ORDER   serve.sh (a message out of order); wire_kunit
#   PEER_DENIED  serve.sh (an address outside --allow: the client's line and the server's log); abi_kunit
#   SRV_MEM      peer-server.sh and peer-client.sh (a job over --max-mem); abi_test; peer-blk.sh (a region over the budget)
#   SRV_JOB_TIME peer-server.sh and peer-client.sh (a job over --max-job-time); hostile-battery
#   SRV_PER_ADDR peer-server.sh and peer-client.sh (one address at --max-per-addr); hostile-battery
#   QUEUE        session_kunit (a request on a queue the session lacks; a queue count above the limit)
#   REGION_CROSS session_kunit (a request across a chunk's end, one past the region)
#   JOIN_UNKNOWN hostile-battery (a join to no session)
#   JOIN_TOKEN   hostile-battery (a join with a wrong token); peer-server.sh and peer-client.sh
#   JOIN_ENDED   hostile-battery (a join to a session that ended)
#   JOIN_MAX     hostile-battery (a join past a session's connection limit)
#   REGION_LOST  peer-server.sh (a resume from a serve with --max-keep 0); peer-client.sh; peer-blk.sh (ibpost_blk's reconnect finds the region gone)
#   PEER_CPU     sgl_kunit (IBPOST_RUN_PEER_CPU without IBPOST_RUN_PEER); abi_kunit
#   SRV_CPU      trace.sh (run --cpu-util --connect to a serve without --cpu-record: the client's line and the server's log); abi_kunit
# shellcheck source=tools/tests/lib/suite.sh
. "$IBPOST_REPO/tools/tests/lib/suite.sh" badinput
rig_provider "${IBPOST_PROVIDER:-rxe}" || { t_fail "load ${IBPOST_PROVIDER:-rxe}, its loopback device" "modules, link add"; t_done; exit 1; }
if ! grep -q '^ibpost ' /proc/modules; then
	insmod "$KO" || { t_fail "insmod" "$KO"; t_done; exit 1; }
fi

# --- limits, from the device list ------------------------------------------------
json=$($IBPOST devices --json --dev "$DEV") || { t_fail "devices --json --dev $DEV" "$json"; t_done; exit 1; }
jnum() { # jnum KEY: a number of the first record of $json
	[[ $json =~ \"$1\":\ ([0-9]+) ]] || return 1
	echo "${BASH_REMATCH[1]}"
}
declare -A L
for k in port phys_port_cnt max_msg_sz max_send_sge max_recv_sge max_sge_rd \
	max_qp_wr max_fast_reg_page_list_len max_inline_data; do
	L[$k]=$(jnum $k) || { t_fail "devices --json has $k" "$json"; t_done; exit 1; }
done
max_msg_sz=${L[max_msg_sz]}
max_send_sge=${L[max_send_sge]}
max_recv_sge=${L[max_recv_sge]}
max_sge_rd=${L[max_sge_rd]}
max_qp_wr=${L[max_qp_wr]}
max_fast_reg_page_list_len=${L[max_fast_reg_page_list_len]}
max_inline_data=${L[max_inline_data]}
t_ok "limits of $DEV from devices --json (send_sge $max_send_sge, recv_sge $max_recv_sge, sge_rd $max_sge_rd, qp_wr $max_qp_wr, frpl $max_fast_reg_page_list_len, inline $max_inline_data, msg_sz $max_msg_sz)"

PAGE=$(getconf PAGESIZE)
MAX_MSG=$((4 << 20))		# IBPOST_MAX_MSG
MAX_SGE=256			# IBPOST_MAX_SGE
SLOT_MAX=$((4 << 20))		# IBPOST_SLOT_MAX: PAGE_SIZE << (MAX_ORDER - 1)
JOB_MEM_MAX=$((256 << 20))	# IBPOST_JOB_MEM_MAX
msg_lim=$((max_msg_sz < MAX_MSG ? max_msg_sz : MAX_MSG))
last_port=$((L[port] + L[phys_port_cnt] - 1))
qp_wr_lim=$((max_qp_wr - 1))	# one slot stays free (module/job/job.c)
page_align() { echo $(( ($1 + PAGE - 1) / PAGE * PAGE )); }

# The words strerror() gives the errnos of the table (glibc).
errtext() {
	case $1 in
	EINVAL) echo "Invalid argument" ;;
	ENODEV) echo "No such device" ;;
	EOVERFLOW) echo "Value too large for defined data type" ;;
	EADDRNOTAVAIL) echo "Cannot assign requested address" ;;
	EXDEV) echo "Invalid cross-device link" ;;
	EOPNOTSUPP) echo "Operation not supported" ;;
	*) echo "errtext: unknown $1" >&2; return 1 ;;
	esac
}

# row RULE WHAT RC ERRNO TEXT ARGS...
#   'ibpost run ARGS' must exit RC and print the line
#   "ibpost: run refused: strerror(ERRNO): TEXT"; with ERRNO '-' the tool
#   refuses the options itself and TEXT is its whole line.
declare -A SEEN
row() {
	local rule=$1 what=$2 want_rc=$3 err=$4 text=$5 want out rc=0 shown
	shift 5
	if [[ $err == - ]]; then
		want=$text
	else
		want="ibpost: run refused: $(errtext "$err"): $text"
	fi
	out=$(timeout 120 $IBPOST run "$@" 2>&1) || rc=$?
	if [[ $rc == "$want_rc" ]] && grep -Fxq -- "$want" <<<"$out"; then
		shown=$text
		((${#shown} > 160)) && shown="${shown:0:150}..."
		t_ok "$rule: $what: exit $want_rc, ${err/#-/tool}: $shown"
		SEEN[$rule]=1
	else
		t_fail "$rule: $what" "ibpost run $(head -c 200 <<<"$*"): exit $rc (want $want_rc); want line '$want'; got: $(head -n 3 <<<"$out" | tr '\n' ' ')"
	fi
}

# The device, and how its loopback pair connects (rdma_cm on siw).
D=(--dev "$DEV" "${CMOPT[@]}")
DNOCM=(--dev "$DEV")
Q=(--iters 10)	# in case a row is not refused: keep the run short

# --- the table -------------------------------------------------------------------
# Device and port.
row NO_DEVICE "unknown device" 1 ENODEV \
	"no such RDMA device" \
	--dev nosuch0 --op write --size 4K "${Q[@]}"
# Without --dev the tool picks one from sysfs (tools/tests/host/cli.sh has its
# rows); in an empty tree there is none.
IBPOST_SYSFS_IB=/nonexistent row NO_DEVICE "no --dev, no ACTIVE device (tool)" 2 - \
	"ibpost: run: no --dev given and no RDMA device has an ACTIVE port (0 under /nonexistent); see 'ibpost devices'" \
	--op write --size 4K
row PORT "port past the last" 1 EINVAL \
	"no such port on the device (value $((last_port + 1)), limit $last_port)" \
	"${D[@]}" --port $((last_port + 1)) --op write --size 4K "${Q[@]}"

# Opcode, layout names (the kernel's codes are in abi_test).
row OPCODE "unknown --op (tool)" 2 - \
	"ibpost: run: bad --op 'frob': expected send, send_imm, write, write_imm or read" \
	"${D[@]}" --op frob
row LAYOUT "unknown --layout (tool)" 2 - \
	"ibpost: run: bad --layout 'zigzag': expected equal, page-cross, unaligned or random (or LEN@OFF,...)" \
	"${D[@]}" --op write --layout zigzag

# SGE counts.
row NUM_SGE "num_sge 0" 1 EINVAL \
	"num_sge is 0 or above the device limit (value 0, limit $max_send_sge)" \
	"${D[@]}" --op write --size 64K --sge 0 "${Q[@]}"
row NUM_SGE "num_sge above max_send_sge (write)" 1 EINVAL \
	"num_sge is 0 or above the device limit (value $((max_send_sge + 1)), limit $max_send_sge)" \
	"${D[@]}" --op write --size 64K --sge $((max_send_sge + 1)) "${Q[@]}"
row NUM_SGE "num_sge above max_send_sge (send)" 1 EINVAL \
	"num_sge is 0 or above the device limit (value $((max_send_sge + 1)), limit $max_send_sge)" \
	"${D[@]}" --op send --size 64K --sge $((max_send_sge + 1)) --recv-sge 1 "${Q[@]}"
row NUM_SGE "num_sge above max_sge_rd (read)" 1 EINVAL \
	"num_sge is 0 or above the device limit (value $((max_sge_rd + 1)), limit $max_sge_rd)" \
	"${D[@]}" --op read --size 64K --sge $((max_sge_rd + 1)) "${Q[@]}"
row NUM_SGE "receive num_sge above max_recv_sge" 1 EINVAL \
	"receive WRs: num_sge is 0 or above the device limit (value $((max_recv_sge + 1)), limit $max_recv_sge)" \
	"${D[@]}" --op send --size 64K --sge 1 --recv-sge $((max_recv_sge + 1)) "${Q[@]}"
layout=
for ((i = 0; i <= max_send_sge; i++)); do
	layout+="${layout:+,}16@$((i * 64))"
done
row NUM_SGE "explicit layout of max_send_sge + 1 SGEs" 1 EINVAL \
	"num_sge is 0 or above the device limit (value $((max_send_sge + 1)), limit $max_send_sge)" \
	"${D[@]}" --op write --sge-layout "$layout" "${Q[@]}"
row NUM_SGE "explicit layout, --sge 0" 1 EINVAL \
	"num_sge is 0 or above the device limit (value 0, limit $MAX_SGE)" \
	"${D[@]}" --op write --sge-layout 256@0 --sge 0 "${Q[@]}"
layout=
for ((i = 0; i <= MAX_SGE; i++)); do
	layout+="${layout:+,}1@$i"
done
row NUM_SGE "explicit layout above IBPOST_MAX_SGE (tool)" 2 - \
	"ibpost: run: bad --sge-layout '$layout': more than $MAX_SGE entries" \
	"${D[@]}" --op write --sge-layout "$layout"
row SGE_COUNT "--sge above the entries of --sge-layout (tool)" 2 - \
	"ibpost: run: --sge-layout lists 2 SGEs; --sge must be one value up to that" \
	"${D[@]}" --op write --sge-layout 256@0,256@512 --sge 3
row SGE_COUNT "--recv-sge above the entries of --recv-sge-layout (tool)" 2 - \
	"ibpost: run: the receive layout lists 1 SGEs; --recv-sge 2 is more" \
	"${D[@]}" --op send --size 256 --recv-sge-layout 256@0 --recv-sge 2

# SGEs of a layout.
row SGE_ZERO "zero-length SGE" 1 EINVAL \
	"sge[1] of wr 0: length 0 (value 0, limit 1)" \
	"${D[@]}" --op write --sge-layout 256@0,0@1024,256@2048 "${Q[@]}"
row SGE_ZERO "zero-length receive SGE" 1 EINVAL \
	"sge[1] of the receive WRs: length 0 (value 0, limit 1)" \
	"${D[@]}" --op send --size 1K --recv-sge-layout 512@0,0@4096 "${Q[@]}"
row SGE_RANGE "SGE past the slot" 1 EINVAL \
	"sge[1] of wr 0: SGE outside its buffer (value $((SLOT_MAX + 256)), limit $SLOT_MAX)" \
	"${D[@]}" --op write --sge-layout "256@0,256@$SLOT_MAX" "${Q[@]}"
row SGE_RANGE "SGE offset + length wraps" 1 EINVAL \
	"sge[0] of wr 0: SGE outside its buffer (value $((0xffffffff + 16)), limit $SLOT_MAX)" \
	"${D[@]}" --op write --sge-layout 16@4294967295 "${Q[@]}"
row SGE_RANGE "receive SGE past the slot" 1 EINVAL \
	"sge[0] of the receive WRs: SGE outside its buffer (value $((SLOT_MAX + 512)), limit $SLOT_MAX)" \
	"${D[@]}" --op send --size 1K --recv-sge-layout "512@$SLOT_MAX,512@0" "${Q[@]}"

# Message size.
row MSG_SIZE "size 0" 1 EINVAL \
	"message size 0 or above the limit (value 0, limit $msg_lim)" \
	"${D[@]}" --op write --size 0 "${Q[@]}"
row MSG_SIZE "size above min(max_msg_sz, IBPOST_MAX_MSG)" 1 EINVAL \
	"message size 0 or above the limit (value $((msg_lim + 1)), limit $msg_lim)" \
	"${D[@]}" --op write --size $((msg_lim + 1)) "${Q[@]}"
row MSG_SIZE "explicit layout summing above the limit" 1 EINVAL \
	"message size 0 or above the limit (value $((msg_lim + 4096)), limit $msg_lim)" \
	"${D[@]}" --op write --sge-layout "4096@0,$msg_lim@8192" "${Q[@]}"
row MSG_SIZE "size above 32 bits (tool)" 2 - \
	"ibpost: run: bad --size '4294967296': too large: at most 4294967295 bytes" \
	"${D[@]}" --op write --size 4294967296
row MSG_SUM "SGE lengths below --size" 1 EINVAL \
	"SGE lengths do not add up to the message size (value 512, limit 1024)" \
	"${D[@]}" --op write --size 1K --sge-layout 256@0,256@512 "${Q[@]}"
row MSG_SUM "receive SGE lengths below --size" 1 EINVAL \
	"receive WRs: SGE lengths do not add up to the message size (value 768, limit 1024)" \
	"${D[@]}" --op send --size 1K --recv-sge-layout 512@0,256@4096 "${Q[@]}"
row LAYOUT_FIT "fewer bytes than SGEs" 1 EINVAL \
	"message too small to split into num_sge SGEs (value 2, limit 4)" \
	"${D[@]}" --op write --size 2 --sge 4 "${Q[@]}"

# Inline and immediate data.
row INLINE_SIZE "inline above the granted size" 1 EINVAL \
	"inline payload above what the QP was granted (value $((max_inline_data + 1)), limit $max_inline_data)" \
	"${D[@]}" --op write --size $((max_inline_data + 1)) --inline "${Q[@]}"
row INLINE_OP "inline with READ" 1 EINVAL \
	"inline is for SEND and WRITE only (value 4, limit 0)" \
	"${D[@]}" --op read --size 64 --inline "${Q[@]}"
row IMM_OP "--imm with write" 1 EINVAL \
	"immediate data on an opcode without it (value 2, limit 0)" \
	"${D[@]}" --op write --size 4K --imm 7 "${Q[@]}"
row IMM_OP "--imm with read" 1 EINVAL \
	"immediate data on an opcode without it (value 4, limit 0)" \
	"${D[@]}" --op read --size 4K --imm 0x1234 "${Q[@]}"
row PINGPONG "--pingpong with read" 1 EINVAL \
	"ping-pong latency is RDMA WRITE with batch 1 (value 4, limit 0)" \
	"${D[@]}" --op read --size 64 --pingpong "${Q[@]}"
row PINGPONG "--pingpong with --batch 2" 1 EINVAL \
	"ping-pong latency is RDMA WRITE with batch 1 (value 2, limit 0)" \
	"${D[@]}" --op write --size 64 --batch 2 --pingpong "${Q[@]}"

# Send queue.
row DEPTH "depth 0" 1 EINVAL \
	"queue depth 0 or above the device limit (value 0, limit $qp_wr_lim)" \
	"${D[@]}" --op write --size 4K --depth 0 "${Q[@]}"
row DEPTH "depth above max_qp_wr - 1" 1 EINVAL \
	"queue depth 0 or above the device limit (value $max_qp_wr, limit $qp_wr_lim)" \
	"${D[@]}" --op write --size 4K --depth "$max_qp_wr" "${Q[@]}"
row BATCH "batch 0" 1 EINVAL \
	"batch 0 or above the queue depth (value 0, limit 8)" \
	"${D[@]}" --op write --size 4K --depth 8 --batch 0 "${Q[@]}"
row BATCH "batch above depth" 1 EINVAL \
	"batch 0 or above the queue depth (value 9, limit 8)" \
	"${D[@]}" --op write --size 4K --depth 8 --batch 9 "${Q[@]}"
row SIGNAL "signal-every 0" 1 EINVAL \
	"signal interval 0 or above depth - batch + 1 (value 0, limit 5)" \
	"${D[@]}" --op write --size 4K --depth 8 --batch 4 --signal-every 0 "${Q[@]}"
row SIGNAL "signal-every above depth - batch + 1" 1 EINVAL \
	"signal interval 0 or above depth - batch + 1 (value 6, limit 5)" \
	"${D[@]}" --op write --size 4K --depth 8 --batch 4 --signal-every 6 "${Q[@]}"
row ITERS "iters 0, no duration" 1 EINVAL \
	"give iterations or a duration" \
	"${D[@]}" --op write --size 4K --iters 0
row OVERFLOW "iters * size above 64 bits" 1 EOVERFLOW \
	"count * size overflows (value 9223372036854775808, limit 4096)" \
	"${D[@]}" --op write --size 4K --iters 9223372036854775808 --warmup 0

# Buffers and memory registration.
frpl_size=$(((max_fast_reg_page_list_len + 1) * PAGE))
if ((frpl_size <= msg_lim)); then
	row FRPL "write target one page above the fast-reg page list" 1 EINVAL \
		"buffer needs more pages than one fast-reg MR maps (value $((max_fast_reg_page_list_len + 1)), limit $max_fast_reg_page_list_len)" \
		"${D[@]}" --op write --size $frpl_size "${Q[@]}"
	row FRPL "read target one page above the fast-reg page list" 1 EINVAL \
		"buffer needs more pages than one fast-reg MR maps (value $((max_fast_reg_page_list_len + 1)), limit $max_fast_reg_page_list_len)" \
		"${D[@]}" --op read --size $frpl_size "${Q[@]}"
else
	t_ok "FRPL: # SKIP $DEV maps $max_fast_reg_page_list_len pages, more than a message ($msg_lim bytes) needs"
	SEEN[FRPL]=1
fi
# What a slot pins: one alloc_pages() of the order its size needs.
pinned() { local p=4096; while ((p < $1)); do p=$((p * 2)); done; echo "$p"; }
slot=$(pinned "$(page_align "$msg_lim")")
depth=$((JOB_MEM_MAX / (2 * slot) + 1))
row BUF_SIZE "send buffers above 256 MiB" 1 EINVAL \
	"buffer too large (value $((depth * 2 * slot)), limit $JOB_MEM_MAX)" \
	"${D[@]}" --op send --size "$msg_lim" --depth "$depth" "${Q[@]}"
# 2 MiB + 4 KiB slots pin 4 MiB each: 33 of them on each side are refused
# (counted as 2 MiB + 4 KiB they would pass as 138 MiB).
odd=$((2 * 1048576 + 4096))
if ((odd <= msg_lim)); then
	depth=$((JOB_MEM_MAX / (2 * $(pinned "$odd")) + 1))
	row BUF_SIZE "send buffers above 256 MiB as pinned (page-order rounding)" 1 EINVAL \
		"buffer too large (value $((depth * 2 * $(pinned "$odd"))), limit $JOB_MEM_MAX)" \
		"${D[@]}" --op send --size "$odd" --depth "$depth" "${Q[@]}"
fi

# rdma_cm addresses.
row CM_ADDR "--cm not an address (tool)" 2 - \
	"ibpost run: --cm: not an IPv4 or IPv6 address: '300.1.2.3'" \
	"${DNOCM[@]}" --op write --cm 300.1.2.3
row CONNECT "--cm to an IPv4 address no interface has" 1 EADDRNOTAVAIL \
	"could not connect the QP pair (value 99, limit 0)" \
	"${DNOCM[@]}" --op write --size 4K --cm 198.51.100.7 "${Q[@]}"
row CONNECT "--cm to an IPv6 address no interface has" 1 EADDRNOTAVAIL \
	"could not connect the QP pair (value 99, limit 0)" \
	"${DNOCM[@]}" --op write --size 4K --cm 2001:db8::7 "${Q[@]}"
if rig_dummy "${PROV}_bi" 192.0.2.13/24 >/dev/null; then
	row CONNECT "--cm to the address of another RDMA device" 1 EXDEV \
		"could not connect the QP pair (value 18, limit 0)" \
		"${DNOCM[@]}" --op write --size 4K --cm 192.0.2.13 "${Q[@]}"
	rdma link del "${PROV}_bi"
	ip link del d0
else
	t_fail "CONNECT: add ${PROV}_bi on a dummy netdev" "rig_dummy"
fi

# Device capabilities: what iWARP cannot do is refused before anything is
# created, the capability named ('ibpost devices' shows it under "lacks").
if [[ $PROV == siw ]]; then
	row CAP_IMM "SEND with immediate on iWARP" 1 EOPNOTSUPP \
		"device has no immediate data: no SEND or RDMA WRITE with immediate (IBPOST_DEV_NO_IMM) (value 1, limit 0)" \
		"${D[@]}" --op send_imm --size 4K "${Q[@]}"
	row CAP_IMM "RDMA WRITE with immediate on iWARP" 1 EOPNOTSUPP \
		"device has no immediate data: no SEND or RDMA WRITE with immediate (IBPOST_DEV_NO_IMM) (value 3, limit 0)" \
		"${D[@]}" --op write_imm --size 4K "${Q[@]}"
	row CAP_IMM "RDMA WRITE with immediate on iWARP, no --cm either" 1 EOPNOTSUPP \
		"device has no immediate data: no SEND or RDMA WRITE with immediate (IBPOST_DEV_NO_IMM) (value 3, limit 0)" \
		"${DNOCM[@]}" --op write_imm --size 4K "${Q[@]}"
	# The value is the run's flags: --verify (2) and IBPOST_RUN_HIST (64),
	# which the tool always asks for; with --cm IBPOST_RUN_CM (4) too.
	row CAP_CM_ONLY "loopback job without --cm on iWARP" 1 EOPNOTSUPP \
		"device connects QPs only through rdma_cm (IBPOST_DEV_CM_ONLY): give an address of the device (IBPOST_RUN_CM) (value 66, limit 0)" \
		"${DNOCM[@]}" --op write --size 4K --verify "${Q[@]}"
	row CAP_WRITE_VERIFY "RDMA WRITE verified at completion on iWARP" 1 EOPNOTSUPP \
		"device completes RDMA WRITE before the data is placed (IBPOST_DEV_WRITE_UNPLACED): verify WRITE with ping-pong (value 70, limit 0)" \
		"${D[@]}" --op write --size 4K --verify "${Q[@]}"
fi

# --- every reason has a home ---------------------------------------------------------
declare -A WHERE
while read -r _ name where; do
	WHERE[$name]=$where
done < <(grep -E '^#   [A-Z_]+ +[a-z]' "${BASH_SOURCE[0]}")
missing='' nr=0
while read -r r; do
	nr=$((nr + 1))
	r=${r#IBPOST_R_}
	[[ $r == NONE || $r == MAX ]] && continue
	if [[ -z ${WHERE[$r]:-} ]]; then
		missing+=" $r(no line)"
	elif [[ ${WHERE[$r]} == badinput* && -z ${SEEN[$r]:-} ]]; then
		missing+=" $r(no passing row)"
	fi
done < <(sed -n '/^enum ibpost_reason {/,/^};/p' include/uapi/ibpost.h |
	grep -o 'IBPOST_R_[A-Z_]*')
# Neither list may come back empty (a guest without /dev/fd once read
# nothing here, and the row passed).
((${#WHERE[@]} > 0)) || missing+=" (no line read back)"
((nr > 0)) || missing+=" (no reason read from the header)"
if [[ -z $missing ]]; then
	t_ok "every IBPOST_R_* reason has a passing row here or a line naming where it is checked"
else
	t_fail "every IBPOST_R_* reason has a passing row here or a line naming where it is checked" "missing:$missing"
fi

t_check "rmmod ibpost after the bad inputs" rmmod ibpost
t_done
