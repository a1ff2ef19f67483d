/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ibpost: the ioctl ABI of /dev/ibpost.
 *
 * Growth rule (see Documentation/ioctl-abi.rst):
 *  - Every argument struct starts with "__u32 size", which the caller sets
 *    to sizeof() of the struct it was compiled with.
 *  - Fields are only ever appended.  The ioctl number always encodes the
 *    size of the first published version (IBPOST_*_SIZE_VER0): every
 *    IBPOST_IOC_* is _IOC(_IOC_READ | _IOC_WRITE, IBPOST_IOC_MAGIC, nr,
 *    IBPOST_*_SIZE_VER0), never _IOWR() of the struct, whose size grows.
 *    The numbers are frozen; the kernel matches them exactly (-ENOTTY
 *    otherwise).  One exception: IBPOST_IOC_RUN briefly encoded
 *    IBPOST_RUN_SIZE_VER1 (888) by mistake, and the kernel accepts that
 *    number too, as an alias of IBPOST_IOC_RUN; nothing should send it.
 *  - The kernel accepts any size >= SIZE_VER0.  Bytes the kernel does not
 *    know must be zero (else -E2BIG); fields the caller does not know read
 *    as zero.  Output is written back up to the smaller of the two sizes.
 *  - Reserved fields and unknown flag bits must be zero (else -EINVAL).
 *  - Arrays of records carry their own record size (e.g. attr_size) and
 *    follow the same rule per record.
 */
#ifndef _UAPI_IBPOST_H
#define _UAPI_IBPOST_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define IBPOST_DEVICE_PATH	"/dev/ibpost"
#define IBPOST_ABI_VERSION	1
#define IBPOST_IOC_MAGIC	0xE9
#define IBPOST_NAME_MAX		64

/**
 * enum ibpost_reason - why the kernel refused a request.
 *
 * The words for each code are in IBPOST_REASON_TEXTS just below: one table,
 * used by the module's messages and printed by the tool, completed by the
 * wr/sge/value/limit fields of struct ibpost_status where they apply.
 * Codes are only ever appended.
 *
 * @IBPOST_R_NONE: no error.
 * @IBPOST_R_ARG_SIZE: argument size below the first ABI version.
 * @IBPOST_R_ARG_TAIL: argument has non-zero bytes this kernel does not know.
 * @IBPOST_R_RESERVED: reserved field is not zero.
 * @IBPOST_R_FLAGS: unknown flag bits set.
 * @IBPOST_R_REC_SIZE: record size out of range.
 * @IBPOST_R_COUNT: record count above the limit.
 * @IBPOST_R_OVERFLOW: count * size overflows.
 * @IBPOST_R_FAULT: user buffer not accessible.
 * @IBPOST_R_NO_DEVICE: no such RDMA device.
 * @IBPOST_R_PORT: no such port on the device.
 * @IBPOST_R_OPCODE: unknown opcode.
 * @IBPOST_R_LAYOUT: unknown SGE layout.
 * @IBPOST_R_NUM_SGE: num_sge is 0 or above the device limit.
 * @IBPOST_R_SGE_ZERO: length 0.
 * @IBPOST_R_SGE_RANGE: SGE outside its buffer.
 * @IBPOST_R_SGE_COUNT: layout has fewer SGEs than num_sge.
 * @IBPOST_R_MSG_SIZE: message size 0 or above the limit.
 * @IBPOST_R_MSG_SUM: SGE lengths do not add up to the message size.
 * @IBPOST_R_LAYOUT_FIT: message too small to split into num_sge SGEs.
 * @IBPOST_R_INLINE_SIZE: inline payload above what the QP was granted.
 * @IBPOST_R_INLINE_OP: inline is for SEND and WRITE only.
 * @IBPOST_R_DEPTH: queue depth 0 or above the device limit.
 * @IBPOST_R_BATCH: batch 0 or above the queue depth.
 * @IBPOST_R_SIGNAL: signal interval 0 or above depth - batch + 1.
 * @IBPOST_R_ITERS: give iterations or a duration.
 * @IBPOST_R_BUF_SIZE: buffer too large.
 * @IBPOST_R_NOMEM: out of memory for buffers.
 * @IBPOST_R_FRPL: buffer needs more pages than one fast-reg MR maps.
 * @IBPOST_R_CONNECT: could not connect the QP pair.
 * @IBPOST_R_DEVICE_GONE: device removed during the run.
 * @IBPOST_R_WC_ERROR: work completion error.
 * @IBPOST_R_VERIFY: data verification failed.
 * @IBPOST_R_POST: ib_post_send refused a work request.
 * @IBPOST_R_TIMEOUT: no completion within the timeout.
 * @IBPOST_R_IMM_OP: immediate data on an opcode without it.
 * @IBPOST_R_CM_ADDR: rdma_cm fields: family AF_INET or AF_INET6, port,
 *	timeout at most IBPOST_CM_TIMEOUT_MAX, set only with IBPOST_RUN_CM or
 *	IBPOST_RUN_PEER.
 * @IBPOST_R_PINGPONG: ping-pong latency is RDMA WRITE with batch 1.
 * @IBPOST_R_RESOLVE: could not resolve the address or route of the peer.
 * @IBPOST_R_PEER_VERSION: wire protocol version not supported.
 * @IBPOST_R_PEER_PROTO: malformed message on the wire.
 * @IBPOST_R_PEER_LOST: connection to the peer lost.
 * @IBPOST_R_PEER_BUSY: the server is at its connection limit.
 * @IBPOST_R_PEER_FLAG: option not available against a peer.
 * @IBPOST_R_CAP_IMM: the device has no immediate data, neither SEND nor
 *	RDMA WRITE with immediate (IBPOST_DEV_NO_IMM, iWARP); @value is the
 *	opcode.
 * @IBPOST_R_CAP_CM_ONLY: the device connects QPs only through rdma_cm
 *	(IBPOST_DEV_CM_ONLY, iWARP): a loopback job must set IBPOST_RUN_CM
 *	with an address of the device; @value is the run's flags.
 * @IBPOST_R_CAP_WRITE_VERIFY: the device completes an RDMA WRITE at the
 *	sender before its data is placed at the target
 *	(IBPOST_DEV_WRITE_UNPLACED, iWARP), so a loopback WRITE cannot be
 *	verified at its completion; verify it with IBPOST_RUN_PINGPONG (the
 *	target waits for the data); @value is the run's flags.
 * @IBPOST_R_PEER_ORDER: a message out of order on the wire: @value is the
 *	type of the one that came (0: a zero-byte fin), @limit the type the
 *	receiver waited for (0: the fin).
 * @IBPOST_R_PEER_DENIED: the client's address is not in the server's
 *	allow list (struct ibpost_serve.allow): @value is the number of
 *	entries.
 * @IBPOST_R_SRV_MEM: the server's budget of pinned memory (or of MRs,
 *	with @limit the MR budget) would be exceeded by the job: @value is
 *	what the job needs plus what other jobs hold.
 * @IBPOST_R_SRV_JOB_TIME: the job declares (or ran) longer than the
 *	server's job time limit: @value and @limit in milliseconds.
 * @IBPOST_R_SRV_PER_ADDR: the server is at its connection limit for the
 *	client's address: @value connections, @limit the limit.
 * @IBPOST_R_QUEUE: queue count 0 or above the limit, or a request on a
 *	queue the session does not have.
 * @IBPOST_R_REGION_CROSS: the request crosses a boundary of the session's
 *	region's MRs (or leaves the region, or the session has none).
 * @IBPOST_R_JOIN_UNKNOWN: a connection asked to join a session the server
 *	does not have (or a connection that is not a session): @value is the
 *	session it named.
 * @IBPOST_R_JOIN_TOKEN: a connection asked to join a session with a token
 *	that is not the session's: @value is the session.
 * @IBPOST_R_JOIN_ENDED: a connection asked to join a session that has
 *	ended (or is ending): @value is the session.
 * @IBPOST_R_JOIN_MAX: the session has as many connections as the server
 *	allows one session (its per-address limit): @value connections,
 *	@limit the limit.
 * @IBPOST_R_PRIV: the caller lacks CAP_SYS_ADMIN, which every ioctl but
 *	IBPOST_IOC_DEV_LIST needs (checked at each call, not at open: a
 *	descriptor handed over by a privileged process does not carry its
 *	privilege); the call returns -EPERM.
 * @IBPOST_R_GID_RANGE: IBPOST_RUN_GID: gid_index is past the port's GID
 *	table: @value the index, @limit the table's size.
 * @IBPOST_R_GID_EMPTY: IBPOST_RUN_GID: the port's GID table has no GID at
 *	gid_index (no netdev address there): @value the index, @limit the
 *	table's size.
 * @IBPOST_R_GID_TYPE: IBPOST_RUN_GID: the GID at gid_index is of a type
 *	the port's protocol does not carry (an IB GID on a RoCE port, a RoCE
 *	v1/v2 GID the port does not speak, a RoCE GID on an InfiniBand
 *	port): @value the index, @limit the table's size.
 * @IBPOST_R_GID_CM: IBPOST_RUN_GID with IBPOST_RUN_CM or IBPOST_RUN_PEER:
 *	rdma_cm takes the GID of the address; @value the index.
 * @IBPOST_R_HIST: IBPOST_RUN_HIST without a histogram pointer in
 *	&struct ibpost_run.hist, or a pointer without the flag: @value is the
 *	run's flags.
 * @IBPOST_R_NO_JOB: no job runs on this file descriptor (IBPOST_IOC_PROGRESS
 *	asks the file a job was started on with IBPOST_IOC_RUN, while it
 *	runs).
 * @IBPOST_R_REGION_LOST: a session asked to take back the region the
 *	server kept for it (a resume, Documentation/wire.rst) and the server
 *	no longer has it: it restarted, its keep time (``ibpost serve
 *	--keep``) ran out, or it never kept regions; @value is the session,
 *	@limit its generation.  The data that was there is gone: a consumer
 *	must not go on as if a new, zeroed region held it.
 * @IBPOST_R_PEER_CPU: IBPOST_RUN_PEER_CPU without IBPOST_RUN_PEER: only
 *	a server can report its CPU time.
 * @IBPOST_R_SRV_CPU: a job asked ``ibpost serve`` for its CPU time over
 *	the job (IBPOST_RUN_PEER_CPU, ``ibpost run --cpu-util --connect``)
 *	and the server does not give it: it was started without
 *	IBPOST_SERVE_CPU_RECORD (``ibpost serve --cpu-record``), the default.
 * @IBPOST_R_MAX: number of codes (not a code).
 */
enum ibpost_reason {
	IBPOST_R_NONE,
	IBPOST_R_ARG_SIZE,
	IBPOST_R_ARG_TAIL,
	IBPOST_R_RESERVED,
	IBPOST_R_FLAGS,
	IBPOST_R_REC_SIZE,
	IBPOST_R_COUNT,
	IBPOST_R_OVERFLOW,
	IBPOST_R_FAULT,
	IBPOST_R_NO_DEVICE,
	IBPOST_R_PORT,
	IBPOST_R_OPCODE,
	IBPOST_R_LAYOUT,
	IBPOST_R_NUM_SGE,
	IBPOST_R_SGE_ZERO,
	IBPOST_R_SGE_RANGE,
	IBPOST_R_SGE_COUNT,
	IBPOST_R_MSG_SIZE,
	IBPOST_R_MSG_SUM,
	IBPOST_R_LAYOUT_FIT,
	IBPOST_R_INLINE_SIZE,
	IBPOST_R_INLINE_OP,
	IBPOST_R_DEPTH,
	IBPOST_R_BATCH,
	IBPOST_R_SIGNAL,
	IBPOST_R_ITERS,
	IBPOST_R_BUF_SIZE,
	IBPOST_R_NOMEM,
	IBPOST_R_FRPL,
	IBPOST_R_CONNECT,
	IBPOST_R_DEVICE_GONE,
	IBPOST_R_WC_ERROR,
	IBPOST_R_VERIFY,
	IBPOST_R_POST,
	IBPOST_R_TIMEOUT,
	IBPOST_R_IMM_OP,
	IBPOST_R_CM_ADDR,
	IBPOST_R_PINGPONG,
	IBPOST_R_RESOLVE,
	IBPOST_R_PEER_VERSION,
	IBPOST_R_PEER_PROTO,
	IBPOST_R_PEER_LOST,
	IBPOST_R_PEER_BUSY,
	IBPOST_R_PEER_FLAG,
	IBPOST_R_CAP_IMM,
	IBPOST_R_CAP_CM_ONLY,
	IBPOST_R_CAP_WRITE_VERIFY,
	IBPOST_R_PEER_ORDER,
	IBPOST_R_PEER_DENIED,
	IBPOST_R_SRV_MEM,
	IBPOST_R_SRV_JOB_TIME,
	IBPOST_R_SRV_PER_ADDR,
	IBPOST_R_QUEUE,
	IBPOST_R_REGION_CROSS,
	IBPOST_R_JOIN_UNKNOWN,
	IBPOST_R_JOIN_TOKEN,
	IBPOST_R_JOIN_ENDED,
	IBPOST_R_JOIN_MAX,
	IBPOST_R_PRIV,
	IBPOST_R_GID_RANGE,
	IBPOST_R_GID_EMPTY,
	IBPOST_R_GID_TYPE,
	IBPOST_R_GID_CM,
	IBPOST_R_HIST,
	IBPOST_R_NO_JOB,
	IBPOST_R_REGION_LOST,
	IBPOST_R_PEER_CPU,
	IBPOST_R_SRV_CPU,
	IBPOST_R_MAX
};

/* Initializer of a "const char *const [IBPOST_R_MAX]" table. */
#define IBPOST_REASON_TEXTS { \
	[IBPOST_R_NONE] = "no error", \
	[IBPOST_R_ARG_SIZE] = "argument size below the first ABI version", \
	[IBPOST_R_ARG_TAIL] = "argument has non-zero bytes this kernel does not know", \
	[IBPOST_R_RESERVED] = "reserved field is not zero", \
	[IBPOST_R_FLAGS] = "unknown flag bits set", \
	[IBPOST_R_REC_SIZE] = "record size out of range", \
	[IBPOST_R_COUNT] = "record count above the limit", \
	[IBPOST_R_OVERFLOW] = "count * size overflows", \
	[IBPOST_R_FAULT] = "user buffer not accessible", \
	[IBPOST_R_NO_DEVICE] = "no such RDMA device", \
	[IBPOST_R_PORT] = "no such port on the device", \
	[IBPOST_R_OPCODE] = "unknown opcode", \
	[IBPOST_R_LAYOUT] = "unknown SGE layout", \
	[IBPOST_R_NUM_SGE] = "num_sge is 0 or above the device limit", \
	[IBPOST_R_SGE_ZERO] = "length 0", \
	[IBPOST_R_SGE_RANGE] = "SGE outside its buffer", \
	[IBPOST_R_SGE_COUNT] = "layout has fewer SGEs than num_sge", \
	[IBPOST_R_MSG_SIZE] = "message size 0 or above the limit", \
	[IBPOST_R_MSG_SUM] = "SGE lengths do not add up to the message size", \
	[IBPOST_R_LAYOUT_FIT] = "message too small to split into num_sge SGEs", \
	[IBPOST_R_INLINE_SIZE] = "inline payload above what the QP was granted", \
	[IBPOST_R_INLINE_OP] = "inline is for SEND and WRITE only", \
	[IBPOST_R_DEPTH] = "queue depth 0 or above the device limit", \
	[IBPOST_R_BATCH] = "batch 0 or above the queue depth", \
	[IBPOST_R_SIGNAL] = "signal interval 0 or above depth - batch + 1", \
	[IBPOST_R_ITERS] = "give iterations or a duration", \
	[IBPOST_R_BUF_SIZE] = "buffer too large", \
	[IBPOST_R_NOMEM] = "out of memory for buffers", \
	[IBPOST_R_FRPL] = "buffer needs more pages than one fast-reg MR maps", \
	[IBPOST_R_CONNECT] = "could not connect the QP pair", \
	[IBPOST_R_DEVICE_GONE] = "device removed during the run", \
	[IBPOST_R_WC_ERROR] = "work completion error", \
	[IBPOST_R_VERIFY] = "data verification failed", \
	[IBPOST_R_POST] = "ib_post_send refused a work request", \
	[IBPOST_R_TIMEOUT] = "no completion within the timeout", \
	[IBPOST_R_IMM_OP] = "immediate data on an opcode without it", \
	[IBPOST_R_CM_ADDR] = "rdma_cm fields: family AF_INET or AF_INET6, port, timeout at most IBPOST_CM_TIMEOUT_MAX, set only with IBPOST_RUN_CM or IBPOST_RUN_PEER", \
	[IBPOST_R_PINGPONG] = "ping-pong latency is RDMA WRITE with batch 1", \
	[IBPOST_R_RESOLVE] = "could not resolve the address or route of the peer", \
	[IBPOST_R_PEER_VERSION] = "wire protocol version not supported", \
	[IBPOST_R_PEER_PROTO] = "malformed message on the wire", \
	[IBPOST_R_PEER_LOST] = "connection to the peer lost", \
	[IBPOST_R_PEER_BUSY] = "the server is at its connection limit", \
	[IBPOST_R_PEER_FLAG] = "option not available against a peer", \
	[IBPOST_R_CAP_IMM] = "device has no immediate data: no SEND or RDMA WRITE with immediate (IBPOST_DEV_NO_IMM)", \
	[IBPOST_R_CAP_CM_ONLY] = "device connects QPs only through rdma_cm (IBPOST_DEV_CM_ONLY): give an address of the device (IBPOST_RUN_CM)", \
	[IBPOST_R_CAP_WRITE_VERIFY] = "device completes RDMA WRITE before the data is placed (IBPOST_DEV_WRITE_UNPLACED): verify WRITE with ping-pong", \
	[IBPOST_R_PEER_ORDER] = "message out of order on the wire", \
	[IBPOST_R_PEER_DENIED] = "client address not allowed by the server", \
	[IBPOST_R_SRV_MEM] = "the server's budget of pinned memory or MRs would be exceeded", \
	[IBPOST_R_SRV_JOB_TIME] = "job longer than the server's job time limit", \
	[IBPOST_R_SRV_PER_ADDR] = "the server is at its connection limit for this address", \
	[IBPOST_R_QUEUE] = "no such queue, or a queue count of 0 or above the limit", \
	[IBPOST_R_REGION_CROSS] = "request crosses an MR boundary of the session's region, or leaves it", \
	[IBPOST_R_JOIN_UNKNOWN] = "the server has no such session to join", \
	[IBPOST_R_JOIN_TOKEN] = "wrong token to join the session", \
	[IBPOST_R_JOIN_ENDED] = "the session to join has ended", \
	[IBPOST_R_JOIN_MAX] = "the session is at the server's connection limit for one session", \
	[IBPOST_R_PRIV] = "needs CAP_SYS_ADMIN: running jobs and serving are privileged, listing devices is not", \
	[IBPOST_R_GID_RANGE] = "GID index past the port's GID table", \
	[IBPOST_R_GID_EMPTY] = "no GID at this index of the port's GID table", \
	[IBPOST_R_GID_TYPE] = "GID at this index is of a type the port does not carry", \
	[IBPOST_R_GID_CM] = "a GID index is for QPs connected directly: rdma_cm takes the GID of the address", \
	[IBPOST_R_HIST] = "IBPOST_RUN_HIST and the histogram pointer (hist) go together", \
	[IBPOST_R_NO_JOB] = "no job runs on this file descriptor", \
	[IBPOST_R_REGION_LOST] = "region lost: the server no longer has the session's region (restarted, or its keep time ran out)", \
	[IBPOST_R_PEER_CPU] = "the server's CPU time (IBPOST_RUN_PEER_CPU) is for a run against a server (IBPOST_RUN_PEER)", \
	[IBPOST_R_SRV_CPU] = "the server does not give its CPU time (ibpost serve --cpu-record)", \
}

/** IBPOST_STATUS_NONE - wr/sge index that does not apply. */
#define IBPOST_STATUS_NONE	0xffffffffU
/** IBPOST_STATUS_RECV_WR - the offending SGE is in the receive layout. */
#define IBPOST_STATUS_RECV_WR	0xfffffffeU

/**
 * struct ibpost_status - where and why a request was refused.
 * @reason: an enum ibpost_reason, IBPOST_R_NONE on success.
 * @wr:     index of the offending work request, IBPOST_STATUS_RECV_WR for
 *          the receive layout, or IBPOST_STATUS_NONE.
 * @sge:    index of the offending SGE within @wr, or IBPOST_STATUS_NONE.
 * @pad:    reserved, written as zero.
 * @value:  the offending value (when it has one).
 * @limit:  the limit @value broke (when there is one).
 *
 * Filled by the kernel on output only; its input content is ignored.
 */
struct ibpost_status {
	__u32 reason;
	__u32 wr;
	__u32 sge;
	__u32 pad;
	__u64 value;
	__u64 limit;
};

/* Link layers (ibpost_dev_attr.link_layer). */
#define IBPOST_LINK_UNSPECIFIED	0
#define IBPOST_LINK_INFINIBAND	1
#define IBPOST_LINK_ETHERNET	2

/* Port states (ibpost_dev_attr.port_state), as in the IB spec. */
#define IBPOST_PORT_NOP		0
#define IBPOST_PORT_DOWN	1
#define IBPOST_PORT_INIT	2
#define IBPOST_PORT_ARMED	3
#define IBPOST_PORT_ACTIVE	4
#define IBPOST_PORT_ACTIVE_DEFER 5

/* ibpost_dev_attr.flags */
/** The device has its own local DMA lkey (IB_DEVICE_LOCAL_DMA_LKEY). */
#define IBPOST_DEV_LOCAL_DMA_LKEY	(1U << 0)
/** Fast registration work requests are supported (MEM_MGT_EXTENSIONS). */
#define IBPOST_DEV_MEM_MGT_EXT		(1U << 1)
/** DMA addresses are kernel virtual addresses (software device). */
#define IBPOST_DEV_VIRT_DMA		(1U << 2)
/** The inline probe QP could not be created; max_inline_data is 0. */
#define IBPOST_DEV_INLINE_UNKNOWN	(1U << 3)
/**
 * IBPOST_DEV_NO_IMM - the device has no immediate data, neither SEND nor
 * RDMA WRITE with immediate (iWARP: RDMAP has no immediate data); jobs
 * asking for either are refused with IBPOST_R_CAP_IMM.
 */
#define IBPOST_DEV_NO_IMM		(1U << 4)
/**
 * IBPOST_DEV_CM_ONLY - the device's QPs connect only through rdma_cm
 * (iWARP: the connection is a TCP stream, there is no direct connection by
 * GID); a loopback job without IBPOST_RUN_CM is refused with
 * IBPOST_R_CAP_CM_ONLY.
 */
#define IBPOST_DEV_CM_ONLY		(1U << 5)
/**
 * IBPOST_DEV_WRITE_UNPLACED - an RDMA WRITE's send completion does not mean
 * its data is placed at the target (iWARP: it completes once handed to the
 * transport); a loopback WRITE checked at its completion is refused with
 * IBPOST_R_CAP_WRITE_VERIFY (ping-pong verifies it).
 */
#define IBPOST_DEV_WRITE_UNPLACED	(1U << 6)

/**
 * struct ibpost_dev_attr - one port of one RDMA device, as ibpost sees it.
 * @name: device name, NUL terminated (follows renames).
 * @node_guid: node GUID in host byte order.
 * @max_mr_size: largest MR the device can register, in bytes.
 * @index: ib_core device index.
 * @port: port number (1-based on IB/RoCE devices).
 * @link_layer: IBPOST_LINK_*.
 * @port_state: IBPOST_PORT_*.
 * @active_mtu: active path MTU in bytes (256..4096).
 * @max_mtu: largest path MTU of the port in bytes.
 * @max_msg_sz: largest message the port carries, in bytes.
 * @max_send_sge: SGEs per send WR the device accepts.
 * @max_recv_sge: SGEs per receive WR.
 * @max_sge_rd: SGEs per RDMA READ WR.
 * @max_qp_wr: work requests per queue.
 * @max_cqe: entries per completion queue.
 * @max_fast_reg_page_list_len: pages per fast-registration MR.
 * @max_inline_data: inline bytes an RC QP with one send SGE is actually
 *	granted on this device (found by creating QPs, not from a table).
 * @flags: IBPOST_DEV_*.
 * @phys_port_cnt: number of ports of the device.
 * @reserved: written as zero.
 */
struct ibpost_dev_attr {
	char name[IBPOST_NAME_MAX];
	__u64 node_guid;
	__u64 max_mr_size;
	__u32 index;
	__u32 port;
	__u32 link_layer;
	__u32 port_state;
	__u32 active_mtu;
	__u32 max_mtu;
	__u32 max_msg_sz;
	__u32 max_send_sge;
	__u32 max_recv_sge;
	__u32 max_sge_rd;
	__u32 max_qp_wr;
	__u32 max_cqe;
	__u32 max_fast_reg_page_list_len;
	__u32 max_inline_data;
	__u32 flags;
	__u32 phys_port_cnt;
	__u64 reserved[4];
};

#define IBPOST_DEV_ATTR_SIZE_VER0	(IBPOST_NAME_MAX + 16 + 16 * 4 + 32)

/** Upper bound on @count of struct ibpost_dev_list. */
#define IBPOST_DEV_LIST_MAX	1024

/**
 * struct ibpost_dev_list - argument of IBPOST_IOC_DEV_LIST.
 * @size: in: sizeof(struct ibpost_dev_list) as the caller knows it.
 * @attr_size: in: size of one record in @devs, >= IBPOST_DEV_ATTR_SIZE_VER0.
 * @count: in: records @devs has room for (may be 0 to ask for @total only),
 *	at most IBPOST_DEV_LIST_MAX.
 * @total: out: number of (device, port) records that exist; when larger
 *	than @count only the first @count were written.
 * @devs: in: user pointer to @count records of @attr_size bytes.
 * @written: out: number of records written.
 * @flags: in: must be 0.
 * @status: out: reason for a refusal.
 * @reserved: in: must be 0.
 */
struct ibpost_dev_list {
	__u32 size;
	__u32 attr_size;
	__u32 count;
	__u32 total;
	__u64 devs;
	__u32 written;
	__u32 flags;
	struct ibpost_status status;
	__u64 reserved[2];
};

#define IBPOST_DEV_LIST_SIZE_VER0	(32 + 32 + 16)

/**
 * IBPOST_IOC_DEV_LIST - list the ports of the RDMA devices ibpost knows.
 *
 * 0xc050e901: the number encodes IBPOST_DEV_LIST_SIZE_VER0 (80), the size
 * of the first version (the growth rule at the top of this file).
 */
#define IBPOST_IOC_DEV_LIST	_IOC(_IOC_READ | _IOC_WRITE, IBPOST_IOC_MAGIC, \
				     0x01, IBPOST_DEV_LIST_SIZE_VER0)

/* struct ibpost_run.op */
#define IBPOST_OP_SEND		0
#define IBPOST_OP_SEND_IMM	1
#define IBPOST_OP_WRITE		2
#define IBPOST_OP_WRITE_IMM	3
#define IBPOST_OP_READ		4
#define IBPOST_OP_MAX		5

/* struct ibpost_run.layout and .recv_layout */
/** The caller lists every SGE (offset, length) in sges / recv_sges. */
#define IBPOST_LAYOUT_EXPLICIT		0
/** msg_size split into num_sge equal contiguous pieces. */
#define IBPOST_LAYOUT_EQUAL		1
/** Every SGE straddles a page boundary. */
#define IBPOST_LAYOUT_PAGE_CROSS	2
/** Odd offsets with gaps between SGEs. */
#define IBPOST_LAYOUT_UNALIGNED		3
/** Random lengths and gaps from @seed (same seed, same layout). */
#define IBPOST_LAYOUT_RANDOM		4
#define IBPOST_LAYOUT_MAX		5

/* struct ibpost_run.flags */
/** Post with IB_SEND_INLINE (payload must fit the granted inline size). */
#define IBPOST_RUN_INLINE	(1U << 0)
/** Stamp every byte with its (wr, sge, offset) and check it arrived. */
#define IBPOST_RUN_VERIFY	(1U << 1)
/** Connect the QP pair through rdma_cm to cm_addr instead of directly. */
#define IBPOST_RUN_CM		(1U << 2)
/**
 * IBPOST_RUN_PINGPONG - latency as perftest's ib_write_lat measures it: the
 * initiator WRITEs a message, the target notices its last byte arrive and
 * WRITEs one back; each latency sample is half of that round trip.
 */
#define IBPOST_RUN_PINGPONG	(1U << 3)
/**
 * IBPOST_RUN_PEER - run against ``ibpost serve`` (IBPOST_IOC_SERVE) on
 * another host at cm_addr, port cm_port: the initiator QP is here, the
 * target QP, its buffers and MRs are the server's.
 */
#define IBPOST_RUN_PEER		(1U << 4)
/**
 * IBPOST_RUN_GID - connect the loopback pair's QPs directly with the GID
 * at gid_index of the port as their source (sgid_index of the address
 * vector; perftest's -x), instead of the one ibpost picks (the first RoCE
 * v2 IPv4-mapped GID).  The entry must exist and be of a type the port
 * carries (IBPOST_R_GID_RANGE, IBPOST_R_GID_EMPTY, IBPOST_R_GID_TYPE);
 * not with IBPOST_RUN_CM or IBPOST_RUN_PEER (IBPOST_R_GID_CM): rdma_cm
 * takes the GID of the address.
 */
#define IBPOST_RUN_GID		(1U << 5)
/**
 * IBPOST_RUN_HIST - write the run's log-linear latency histogram
 * (IBPOST_HIST_LL_BUCKETS __u64 counts) to the user pointer in
 * &struct ibpost_run.hist when the run ends.
 */
#define IBPOST_RUN_HIST		(1U << 6)
/**
 * IBPOST_RUN_PEER_CPU - with IBPOST_RUN_PEER: ask the server for its CPU
 * time over the job (&struct ibpost_result.peer_cpu_wall_ns and the
 * fields after it; ``ibpost run --cpu-util``).  Without IBPOST_RUN_PEER
 * refused with IBPOST_R_PEER_CPU.
 */
#define IBPOST_RUN_PEER_CPU	(1U << 7)
#define IBPOST_RUN_FLAGS	(IBPOST_RUN_INLINE | IBPOST_RUN_VERIFY | \
				 IBPOST_RUN_CM | IBPOST_RUN_PINGPONG | \
				 IBPOST_RUN_PEER | IBPOST_RUN_GID | \
				 IBPOST_RUN_HIST | IBPOST_RUN_PEER_CPU)

/** rdma_cm port of ``ibpost serve`` when none is given. */
#define IBPOST_PEER_PORT	18520
/** Address, route and connection timeout when cm_timeout_ms is 0. */
#define IBPOST_CM_TIMEOUT_MS	5000
/** Largest cm_timeout_ms. */
#define IBPOST_CM_TIMEOUT_MAX	600000

/**
 * IBPOST_DURATION_FOREVER - struct ibpost_run.duration_ms of a run that
 * goes on until a signal ends it (perftest's --run_infinitely).  A server
 * takes it as a declared duration above its job time limit and refuses it
 * (IBPOST_R_SRV_JOB_TIME).
 */
#define IBPOST_DURATION_FOREVER	0xffffffffU

/** Most SGEs in an explicit layout. */
#define IBPOST_MAX_SGE		256
/** Largest message of one WR. */
#define IBPOST_MAX_MSG		(4U << 20)
/**
 * IBPOST_HIST_BUCKETS - buckets of the log2 latency histogram
 * (&struct ibpost_result.hist): bucket i counts [2^i, 2^(i+1)) ns (0 and 1
 * in bucket 0, the last one from 2^39 up).  Kept for old tools; the
 * log-linear histogram (IBPOST_HIST_LL_BUCKETS) has 2 significant digits.
 */
#define IBPOST_HIST_BUCKETS	40

/**
 * DOC: log-linear latency histogram
 *
 * IBPOST_HIST_LL_BUCKETS counts of latencies in ns (&struct ibpost_run.hist
 * with IBPOST_RUN_HIST), every bucket as wide as one unit of the second
 * significant digit of the values it counts:
 *
 *  - bucket i < IBPOST_HIST_LL_EXACT (100) counts exactly i ns;
 *  - for each decade k = 2 .. 10 (values of k + 1 digits, 100 ns up to
 *    10^11 ns) and m = 10 .. 99, bucket
 *    100 + 90 * (k - 2) + (m - 10) counts [m * 10^(k-1), (m + 1) * 10^(k-1))
 *    ns (1000..1099 ns in bucket 280, 1100..1199 in 281, ...);
 *  - the last, IBPOST_HIST_LL_BUCKETS - 1, counts everything from
 *    IBPOST_HIST_LL_OVER_NS (10^11 ns, 100 s) up.
 *
 * A bucket's lower bound is therefore a value's first two digits followed
 * by zeros.
 */
#define IBPOST_HIST_LL_EXACT		100
#define IBPOST_HIST_LL_PER_DECADE	90
#define IBPOST_HIST_LL_DECADES		9
#define IBPOST_HIST_LL_BUCKETS		(IBPOST_HIST_LL_EXACT + \
					 IBPOST_HIST_LL_PER_DECADE * \
					 IBPOST_HIST_LL_DECADES + 1)
#define IBPOST_HIST_LL_OVER_NS		100000000000ULL
/** Number of ib_wc_status values counted. */
#define IBPOST_WC_STATUS_MAX	32

/**
 * struct ibpost_sge_desc - one SGE of a layout.
 * @offset: byte offset within the WR's buffer slot.
 * @length: bytes, at least 1.
 */
struct ibpost_sge_desc {
	__u32 offset;
	__u32 length;
};

/**
 * struct ibpost_result - what a run measured.
 * @bytes: payload bytes of completed measured WRs.
 * @wrs: measured WRs completed (warm-up excluded).
 * @posted: WRs posted, warm-up included.
 * @post_calls: ib_post_send() calls.
 * @elapsed_ns: time from the first measured post to the last completion.
 * @lat_samples: latency samples (one per signaled measured WR).
 * @lat_min_ns: smallest post-to-completion time.
 * @lat_max_ns: largest.
 * @lat_avg_ns: mean.
 * @lat_median_ns: median.
 * @lat_stdev_ns: standard deviation.
 * @lat_p99_ns: 99th percentile.
 * @lat_p999_ns: 99.9th percentile.
 * @hist: log2 histogram of all latencies: hist[i] counts [2^i, 2^(i+1))
 *	ns (deprecated, still filled: the log-linear one is
 *	&struct ibpost_run.hist).
 * @wc_status: error completions counted by ib_wc_status (index 0 unused).
 * @wc_errors: error completions in all.
 * @first_err_status: ib_wc_status of the first error completion.
 * @first_err_vendor: its vendor_err.
 * @first_err_wr: index of its WR in the run.
 * @verify_errors: bytes that did not hold what was sent.
 * @verify_wr: WR of the first mismatch.
 * @verify_sge: sending SGE of the first mismatch.
 * @verify_offset: byte offset within that SGE.
 * @verify_expected: byte expected there.
 * @verify_got: byte found.
 * @pad: zero.
 * @sq_max_used: most send-queue slots in use at once.
 * @max_inline: inline bytes the QP was granted.
 * @interrupted: 1 when a signal ended the run early.
 * @peer: 1 when @status (or the verification) was reported by the server
 *	of an IBPOST_RUN_PEER run, not found locally.
 * @peer_conn: the server's number for this connection (IBPOST_RUN_PEER).
 * @peer_msgs: messages the server received and checked (IBPOST_RUN_PEER).
 * @qpn: the number of the QP that posted (0 when the run got none): the
 *	qpn of its ibpost tracepoints and of ``rdma resource show qp``.
 * @target_qpn: the loopback target's QP (0 for none, or a peer run).
 * @lat_samples_capped: 0 when every latency sample was also kept whole;
 *	else the number kept whole (the cap, 2^20), and then @lat_samples
 *	counts them all, @lat_min_ns, @lat_max_ns and @lat_avg_ns are over
 *	all, @lat_median_ns, @lat_p99_ns and @lat_p999_ns are read off the
 *	log-linear histogram (2 significant digits, see
 *	ibpost_llhist_percentile() in module/lib/llhist.c) and @lat_stdev_ns is
 *	over the samples kept whole.  Uncapped, every figure is exact.
 * @peer_cpu_wall_ns: IBPOST_RUN_PEER_CPU: the server's window over which
 *	it counted its CPU time, from its ready to the client's fin; 0 when
 *	not asked for (or the job ended before the server's result).
 * @peer_cpu_busy_ns: the time every CPU of the server's host did not idle
 *	(nor wait for I/O) in that window, summed over its CPUs: the job's
 *	cost there, the provider's softirq work included, and whatever else
 *	ran on that host then (as ``/proc/stat`` gives it, and perftest's
 *	--cpu_util).
 * @peer_cpu_thread_ns: the CPU time of the server's thread of this
 *	connection in the window (its receives and byte checks), part of
 *	@peer_cpu_busy_ns.
 * @peer_cpu_ncpus: the server's online CPUs counted; 0 when not asked.
 * @peer_cpu_pad: zero.
 */
struct ibpost_result {
	__u64 bytes;
	__u64 wrs;
	__u64 posted;
	__u64 post_calls;
	__u64 elapsed_ns;
	__u64 lat_samples;
	__u64 lat_min_ns;
	__u64 lat_max_ns;
	__u64 lat_avg_ns;
	__u64 lat_median_ns;
	__u64 lat_stdev_ns;
	__u64 lat_p99_ns;
	__u64 lat_p999_ns;
	__u64 hist[IBPOST_HIST_BUCKETS];
	__u32 wc_status[IBPOST_WC_STATUS_MAX];
	__u32 wc_errors;
	__u32 first_err_status;
	__u32 first_err_vendor;
	__u32 first_err_wr;
	__u32 verify_errors;
	__u32 verify_wr;
	__u32 verify_sge;
	__u32 verify_offset;
	__u8 verify_expected;
	__u8 verify_got;
	__u16 pad;
	__u32 sq_max_used;
	__u32 max_inline;
	__u32 interrupted;
	__u32 peer;
	__u32 peer_conn;
	__u64 peer_msgs;
	__u32 qpn;
	__u32 target_qpn;
	__u64 lat_samples_capped;
	__u64 peer_cpu_wall_ns;
	__u64 peer_cpu_busy_ns;
	__u64 peer_cpu_thread_ns;
	__u32 peer_cpu_ncpus;
	__u32 peer_cpu_pad;
};

/**
 * struct ibpost_run - argument of IBPOST_IOC_RUN: one transfer job.
 * @size: in: sizeof(struct ibpost_run) as the caller knows it.
 * @flags: in: IBPOST_RUN_*.
 * @dev: in: device name.
 * @port: in: port number, 0 for the first.
 * @op: in: IBPOST_OP_*.
 * @msg_size: in: bytes per WR; with an explicit layout 0 means the sum of
 *	its SGE lengths.
 * @num_sge: in: SGEs per send WR (1..max_send_sge, max_sge_rd for READ).
 * @layout: in: IBPOST_LAYOUT_* of the sending side (the reading side for
 *	READ).
 * @recv_layout: in: IBPOST_LAYOUT_* of the receive WRs (SEND only).
 * @recv_num_sge: in: SGEs per receive WR (SEND only; 0: same as num_sge).
 * @sges: in: user pointer to num_sge struct ibpost_sge_desc (explicit).
 * @recv_sges: in: user pointer to recv_num_sge descriptors (explicit).
 * @seed: in: seed of IBPOST_LAYOUT_RANDOM.
 * @iters: in: measured WRs (0: run for @duration_ms).
 * @duration_ms: in: run time when @iters is 0; IBPOST_DURATION_FOREVER:
 *	until a signal ends the run (-EINTR with the results so far).
 * @warmup: in: WRs posted before measuring.
 * @depth: in: most WRs outstanding on the send queue.
 * @batch: in: WRs chained per ib_post_send() call (1..depth).
 * @signal_every: in: one signaled WR every this many (1..depth).
 * @imm_data: in: immediate data of the _IMM opcodes.
 * @cm_addr: in: with IBPOST_RUN_CM, an address of the device; with
 *	IBPOST_RUN_PEER, the server's address: IPv4 in the first 4 bytes or
 *	IPv6, network byte order.
 * @cm_family: in: AF_INET (2) or AF_INET6 (10) with IBPOST_RUN_CM or
 *	IBPOST_RUN_PEER, else 0.
 * @gid_index: in: with IBPOST_RUN_GID, the index in the port's GID table
 *	of the source GID of the directly connected pair; else 0 (formerly
 *	reserved0).
 * @cm_port: in: the server's port with IBPOST_RUN_PEER (0: IBPOST_PEER_PORT),
 *	else 0.
 * @cm_timeout_ms: in: bound on each of address resolution, route resolution
 *	and connection set-up (0: IBPOST_CM_TIMEOUT_MS), at most
 *	IBPOST_CM_TIMEOUT_MAX; 0 without rdma_cm.
 * @hist: in: with IBPOST_RUN_HIST, a user pointer to IBPOST_HIST_LL_BUCKETS
 *	__u64, where the log-linear histogram of every latency sample of the
 *	run (see "log-linear latency histogram" above) is written when the
 *	run ends, on success and on failure alike (nothing when the run was
 *	refused); else 0.  Was reserved (zero) before IBPOST_RUN_HIST.
 * @status: out: refusal or failure reason.
 * @result: out: measurements (partial when a signal ended the run).
 */
struct ibpost_run {
	__u32 size;
	__u32 flags;
	char dev[IBPOST_NAME_MAX];
	__u32 port;
	__u32 op;
	__u32 msg_size;
	__u32 num_sge;
	__u32 layout;
	__u32 recv_layout;
	__u32 recv_num_sge;
	__u32 gid_index;
	__u64 sges;
	__u64 recv_sges;
	__u64 seed;
	__u64 iters;
	__u32 duration_ms;
	__u32 warmup;
	__u32 depth;
	__u32 batch;
	__u32 signal_every;
	__u32 imm_data;
	__u8 cm_addr[16];
	__u16 cm_family;
	__u16 cm_port;
	__u32 cm_timeout_ms;
	__u64 hist;
	struct ibpost_status status;
	struct ibpost_result result;
};

#define IBPOST_RUN_SIZE_VER0	856
/* With the server's CPU time (struct ibpost_result.peer_cpu_*). */
#define IBPOST_RUN_SIZE_VER1	(IBPOST_RUN_SIZE_VER0 + 32)

/**
 * IBPOST_IOC_RUN - run one transfer job (struct ibpost_run).
 *
 * 0xc358e902: the number encodes IBPOST_RUN_SIZE_VER0 (856), not the
 * struct's size, which grew to IBPOST_RUN_SIZE_VER1.  Tools built from
 * this header between that growth and the fix sent 0xc378e902 (888): the
 * kernel still accepts it, as an alias (Documentation/ioctl-abi.rst).
 */
#define IBPOST_IOC_RUN		_IOC(_IOC_READ | _IOC_WRITE, IBPOST_IOC_MAGIC, \
				     0x02, IBPOST_RUN_SIZE_VER0)

/* struct ibpost_progress.state: where the job is. */
/** Validating, connecting, allocating: nothing posted yet. */
#define IBPOST_JOB_SETUP	1
/** Posting the warm-up WRs (not counted). */
#define IBPOST_JOB_WARMUP	2
/** The measured phase: @wrs and @bytes grow. */
#define IBPOST_JOB_MEASURE	3
/** Measuring is over: draining, freeing; the counts are final. */
#define IBPOST_JOB_ENDING	4

/**
 * struct ibpost_progress - argument of IBPOST_IOC_PROGRESS: a live view
 * of the job that runs on this file descriptor.
 * @size: in: sizeof(struct ibpost_progress) as the caller knows it.
 * @flags: in: zero.
 * @status: out: IBPOST_R_NO_JOB when no job runs on the file, else the
 *	refusal of the call.
 * @state: out: IBPOST_JOB_*.
 * @wc_errors: out: error completions so far.
 * @wrs: out: measured WRs completed so far (struct ibpost_result.wrs, the
 *	same counter, read while the job runs).
 * @bytes: out: payload bytes of those WRs.
 * @elapsed_ns: out: time since the measured phase started (0 before it);
 *	once it is over, to its last completion (struct ibpost_result
 *	.elapsed_ns).
 * @qpn: out: the QP that posts (0 before it exists).
 * @reserved0: in: zero.
 * @reserved: in: zero.
 *
 * IBPOST_IOC_RUN blocks for the length of its job; another thread of the
 * caller issues IBPOST_IOC_PROGRESS on the same file descriptor to watch
 * it.  One job per file descriptor is visible: a second IBPOST_IOC_RUN
 * on a file whose job still runs is not (open one file per job).  The
 * counts never go backwards, and the job's final struct ibpost_result is
 * at least the last progress read.  Without a job: -ENOENT with
 * IBPOST_R_NO_JOB.
 */
struct ibpost_progress {
	__u32 size;
	__u32 flags;
	struct ibpost_status status;
	__u32 state;
	__u32 wc_errors;
	__u64 wrs;
	__u64 bytes;
	__u64 elapsed_ns;
	__u32 qpn;
	__u32 reserved0;
	__u64 reserved[2];
};

#define IBPOST_PROGRESS_SIZE_VER0	96

/**
 * IBPOST_IOC_PROGRESS - a live view of the job running on the file.
 *
 * 0xc060e905: the number encodes IBPOST_PROGRESS_SIZE_VER0 (96).
 */
#define IBPOST_IOC_PROGRESS	_IOC(_IOC_READ | _IOC_WRITE, IBPOST_IOC_MAGIC, \
				     0x05, IBPOST_PROGRESS_SIZE_VER0)

/* struct ibpost_serve_event.kind */
/** The listener is up; @port is the port it listens on. */
#define IBPOST_SRV_LISTEN	1
/** A client connected; @peer names it. */
#define IBPOST_SRV_CONNECT	2
/*
 * The client's job was accepted: @op, @msg_size, @depth, @nslots; a
 * session's: @value the seconds its region is kept after a loss (the
 * grant), @limit the seconds its client asked.
 */
#define IBPOST_SRV_JOB		3
/** The server refused a connection or a job: @reason, @value, @limit. */
#define IBPOST_SRV_REFUSED	4
/** A job ended normally: @msgs, @bytes, @verify_errors. */
#define IBPOST_SRV_DONE		5
/*
 * A connection failed or was lost: @err, @reason, @wc_status (a joined
 * connection: @value its session, @limit the session's connections left).
 */
#define IBPOST_SRV_LOST		6
/** The listener's device went away: serving stopped (@err). */
#define IBPOST_SRV_STOPPED	7
/*
 * A client's connection joined a session (another queue of it): @value is
 * the session (the number of its first connection), @limit the session's
 * connections now.
 */
#define IBPOST_SRV_JOIN		8
/*
 * A session's connections were lost and its region is kept (for the time
 * its client asked, at most &ibpost_serve.keep_s): @value is the session,
 * @limit the seconds it is kept for.
 */
#define IBPOST_SRV_KEPT		9
/*
 * A client took a kept region back (a resume): @value is the session,
 * @limit how many times it has been taken back.
 */
#define IBPOST_SRV_RESUMED	10

/**
 * struct ibpost_serve_event - one thing that happened on a server.
 * @kind: IBPOST_SRV_*.
 * @conn: the server's number for the connection (from 1), 0 for none.
 * @err: negative errno of a refusal or a loss, else 0.
 * @reason: enum ibpost_reason of a refusal or a loss.
 * @value: the offending value (REFUSED); the session joined (JOIN).
 * @limit: the limit it broke (REFUSED); the session's connections (JOIN).
 * @peer: the client's address (network byte order, IPv4 in 4 bytes).
 * @peer_family: AF_INET or AF_INET6, 0 when unknown.
 * @port: the client's port, or the listening port (LISTEN).
 * @op: IBPOST_OP_* of the job (JOB, DONE).
 * @msg_size: its message size.
 * @depth: its queue depth.
 * @nslots: buffer slots the server registered for it.
 * @msgs: messages received and checked (receive opcodes), or slots
 *	checked at the end (RDMA WRITE with verification).
 * @bytes: payload bytes received (receive opcodes).
 * @verify_errors: bytes that did not hold what the client sent.
 * @wc_status: ib_wc_status of the error completion that ended it (LOST).
 * @dropped: events dropped before this one because nobody read them.
 * @reserved: zero.
 */
struct ibpost_serve_event {
	__u32 kind;
	__u32 conn;
	__s32 err;
	__u32 reason;
	__u64 value;
	__u64 limit;
	__u8 peer[16];
	__u16 peer_family;
	__u16 port;
	__u32 op;
	__u32 msg_size;
	__u32 depth;
	__u32 nslots;
	__u32 wc_status;
	__u64 msgs;
	__u64 bytes;
	__u64 verify_errors;
	__u32 dropped;
	__u32 reserved[3];
};

/* Most entries of a server's allow list. */
#define IBPOST_SERVE_ALLOW_MAX	64

/**
 * struct ibpost_serve_allow - one network clients may connect from.
 * @addr: the network's address (network byte order, IPv4 in 4 bytes);
 *	bits past @prefix are ignored.
 * @family: AF_INET or AF_INET6.
 * @prefix: bits of @addr that must match, at most 32 (AF_INET) or 128;
 *	0 matches every address of @family.  An AF_INET entry also matches
 *	IPv4-mapped IPv6 clients (::ffff:a.b.c.d).
 * @reserved: zero.
 */
struct ibpost_serve_allow {
	__u8 addr[16];
	__u16 family;
	__u8 prefix;
	__u8 reserved[5];
};

/**
 * struct ibpost_serve - argument of IBPOST_IOC_SERVE.
 * @size: in: sizeof(struct ibpost_serve) as the caller knows it.
 * @flags: in: IBPOST_SERVE_CPU_RECORD or zero; other bits are refused
 *	(IBPOST_R_FLAGS).
 * @addr: in: address to listen on (network byte order); all zero with
 *	@family AF_INET6 (the default, 0) listens on every address, IPv4 too.
 * @family: in: AF_INET, AF_INET6 or 0 (AF_INET6, any address).
 * @port: in: port to listen on (0: IBPOST_PEER_PORT).
 * @max_conns: in: connections served at once (0: 16), at most 256; more
 *	are rejected with IBPOST_R_PEER_BUSY.
 * @idle_ms: in: a connection whose client shows no sign of life for this
 *	long is dropped (0: 10000), 1000..600000.  Signs of life are the
 *	client's messages and data and, while a one-sided job runs (its data
 *	does not show at the server), a keep-alive the client's QP took into
 *	a receive it posted; a completion of the server's own alone never
 *	is.  @max_job_ms bounds a client that lives but never ends its job.
 * @max_mem_mib: in: memory all connections' jobs may pin at once, in MiB,
 *	counted as allocated (page-order rounding included); 0: an eighth of
 *	the host's RAM.  A job that would exceed it is refused with
 *	IBPOST_R_SRV_MEM; so is one that would take the server past
 *	IBPOST_SRV_MRS memory registrations.
 * @max_job_ms: in: longest a job may run, in milliseconds (0: 600000),
 *	1000..86400000.  A job declaring a longer duration is refused
 *	(IBPOST_R_SRV_JOB_TIME), one running past it is ended; in-kernel
 *	sessions (long-lived by design) are bounded by @max_mem_mib only.
 * @max_per_addr: in: connections one client address may hold at once
 *	(0: 8), at most @max_conns; more are rejected with
 *	IBPOST_R_SRV_PER_ADDR.
 * @status: out: refusal reason of the call.
 * @event: out: the next event.
 * @allow: in: user pointer to @nallow struct ibpost_serve_allow: only
 *	clients whose address is in one of them may connect (the others are
 *	rejected with IBPOST_R_PEER_DENIED and an IBPOST_SRV_REFUSED event);
 *	read once, when the server starts.  Appended in version 1
 *	(IBPOST_SERVE_SIZE_VER1).
 * @nallow: in: entries at @allow, at most IBPOST_SERVE_ALLOW_MAX; 0 (the
 *	default) lets every address connect.
 * @keep_s: in: the most seconds a session's region outlives the loss of
 *	its connections (0: it is freed with them; ``ibpost serve
 *	--max-keep`` gives 600 unless told), at most IBPOST_SRV_KEEP_MAX.
 *	Each session's client asks for the time it needs (its reconnect's
 *	time limit: ibpost_blk's ctrl_loss_tmo) and is granted that, at most
 *	@keep_s, counted from when the server sees the connections go; its
 *	ready says the grant (Documentation/wire.rst, the job's and the
 *	ready's keep_s).  Within that time the client may take it back
 *	(a resume, Documentation/wire.rst) with the session's number, token
 *	and generation from an allowed address; its memory stays charged to
 *	@max_mem_mib and its connection to @max_conns and @max_per_addr.
 *	Replaces the zero field of version 1.
 *
 * Every call writes back @max_conns .. @max_per_addr and @keep_s as the server applies
 * them (defaults filled in).
 *
 * The first call on an open /dev/ibpost starts a server owned by that file
 * and returns its IBPOST_SRV_LISTEN event; each later call (same arguments)
 * blocks until the next event and returns it.  A signal interrupts the
 * wait (-EINTR) but not the server; closing the file stops it: every
 * connection is disconnected and everything is freed before release()
 * returns.
 */
struct ibpost_serve {
	__u32 size;
	__u32 flags;
	__u8 addr[16];
	__u16 family;
	__u16 port;
	__u32 max_conns;
	__u32 idle_ms;
	__u32 max_mem_mib;
	__u32 max_job_ms;
	__u32 max_per_addr;
	struct ibpost_status status;
	struct ibpost_serve_event event;
	__u64 allow;
	__u32 nallow;
	__u32 keep_s;
};

/**
 * IBPOST_SERVE_CPU_RECORD - &ibpost_serve.flags: give a client that asks
 * (IBPOST_RUN_PEER_CPU, wire job flag IBPOST_WIRE_CPU) the host's CPU time
 * over its job's window: the busy time of all its online CPUs, summed, and
 * the connection thread's runtime.  That is a measure of the load the
 * host's other tenants put on it, over a window the client chooses: a
 * timing side channel, so it is off by default.  Without it a job that
 * asks is refused with IBPOST_R_SRV_CPU (``ibpost serve --cpu-record``
 * sets it; Documentation/security.rst).
 */
#define IBPOST_SERVE_CPU_RECORD	(1U << 0)
/* Every flag of &ibpost_serve.flags this header knows. */
#define IBPOST_SERVE_FLAGS	IBPOST_SERVE_CPU_RECORD

/* Longest a server keeps a session's region (&ibpost_serve.keep_s). */
#define IBPOST_SRV_KEEP_MAX	3600

/** IBPOST_SRV_MRS - memory registrations all of a server's jobs may hold. */
#define IBPOST_SRV_MRS		16384

#define IBPOST_SERVE_SIZE_VER0	(48 + 32 + 112)
#define IBPOST_SERVE_SIZE_VER1	(IBPOST_SERVE_SIZE_VER0 + 16)

/**
 * IBPOST_IOC_SERVE - start a server on the file, then read its events.
 *
 * 0xc0c0e903: the number encodes IBPOST_SERVE_SIZE_VER0 (192), the size
 * of the first version: the struct grew (IBPOST_SERVE_SIZE_VER1), the
 * number did not.
 */
#define IBPOST_IOC_SERVE	_IOC(_IOC_READ | _IOC_WRITE, IBPOST_IOC_MAGIC, \
				     0x03, IBPOST_SERVE_SIZE_VER0)

#endif /* _UAPI_IBPOST_H */
