/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: the wire format between `ibpost run --connect` and `ibpost serve`
 * (Documentation/wire.rst).  Every field is big-endian.
 *
 *   client                                   server
 *   CONNECT REQUEST, private data: hello  ->
 *                                         <-  accept (or reject: a refusal)
 *   SEND: job                             ->
 *                                         <-  SEND: ready (refusal or slots)
 *   RDMA WRITE / READ / SEND ... (data)   ->
 *                                         <-  zero-byte SEND_WITH_IMM:
 *                                             keep-alive (while idle)
 *   zero-byte SEND_WITH_IMM: fin (WRs)    ->
 *                                         <-  SEND: result
 *   DISCONNECT
 *
 * Another queue of a session: CONNECT REQUEST, private data: join (the
 * session and its token from the ready) -> accept or reject; no messages.
 *
 * A session whose connections were lost, taking back the region the server
 * kept for it: CONNECT REQUEST, private data: resume (the session, its
 * token and the region's generation from the last ready) -> accept or
 * reject (IBPOST_R_REGION_LOST); then job and ready as a new session's,
 * the ready naming the same chunks.
 */
#ifndef _IBPOST_WIRE_H
#define _IBPOST_WIRE_H

#include <linux/types.h>

#define IBPOST_WIRE_MAGIC	0x49425057	/* "IBPW" */
#define IBPOST_WIRE_VERSION	4

/* Message types (struct ibpost_wire_hdr.type). */
#define IBPOST_WIRE_JOB		1
#define IBPOST_WIRE_READY	2
#define IBPOST_WIRE_RESULT	3

/*
 * Zero-byte SEND_WITH_IMM control messages: the client's fin carries the
 * number of WRs it posted (modulo 2^32); the server's keep-alive this.
 */
#define IBPOST_WIRE_IMM_ALIVE	0x414c5600	/* "ALV\0" */

/* Most SGEs a job's layout may have on the wire. */
#define IBPOST_WIRE_MAX_SGE	32
/* Deepest queue of a job against a peer (the server holds 2x slots). */
#define IBPOST_WIRE_MAX_DEPTH	4096
/* Most chunks (MRs) of a session's region: as many slots as a job's. */
#define IBPOST_WIRE_MAX_CHUNKS	(2 * IBPOST_WIRE_MAX_DEPTH)

/* struct ibpost_wire_hello.flags */
/*
 * The client will ask for a session's region (IBPOST_WIRE_SESSION): the
 * server sizes its control slots for IBPOST_WIRE_MAX_CHUNKS chunks.
 */
#define IBPOST_WIRE_HELLO_REGION	(1U << 0)
/*
 * The connection joins a session (struct ibpost_wire_join): one more queue
 * in its trust domain, no job of its own.  Not with IBPOST_WIRE_HELLO_REGION.
 */
#define IBPOST_WIRE_HELLO_JOIN		(1U << 1)
/*
 * The connection takes back a kept session's region (struct
 * ibpost_wire_join, with the generation): it becomes the session's first
 * connection again, its job must ask for the region's size.  Not with
 * IBPOST_WIRE_HELLO_REGION or IBPOST_WIRE_HELLO_JOIN.
 */
#define IBPOST_WIRE_HELLO_RESUME	(1U << 2)
#define IBPOST_WIRE_HELLO_FLAGS		(IBPOST_WIRE_HELLO_REGION | \
					 IBPOST_WIRE_HELLO_JOIN | \
					 IBPOST_WIRE_HELLO_RESUME)

/* Bytes of a session's join token (struct ibpost_wire_ready.token). */
#define IBPOST_WIRE_TOKEN_LEN		16

/**
 * struct ibpost_wire_hello - private data of the connect request.
 * @magic: IBPOST_WIRE_MAGIC.
 * @version: IBPOST_WIRE_VERSION of the client.
 * @flags: IBPOST_WIRE_HELLO_REGION, or zero.
 * @depth: send WRs the client will have outstanding (sizes the server's
 *	receive queue).
 * @recv_sge: SGEs per receive WR the job needs (0 for RDMA opcodes).
 */
struct ibpost_wire_hello {
	__be32 magic;
	__be16 version;
	__be16 flags;
	__be32 depth;
	__be32 recv_sge;
};

/**
 * struct ibpost_wire_join - private data of a connect request that joins a
 *	session (hello flag IBPOST_WIRE_HELLO_JOIN) or takes its kept region
 *	back (IBPOST_WIRE_HELLO_RESUME).
 * @hello: the hello: @hello.flags IBPOST_WIRE_HELLO_JOIN or _RESUME,
 *	@hello.depth the queue's depth (1 to IBPOST_WIRE_MAX_DEPTH),
 *	@hello.recv_sge 0.
 * @session: the session's number (struct ibpost_wire_ready.session).
 * @generation: a resume: the region's generation (struct
 *	ibpost_wire_ready.generation, never 0); a join: zero.
 * @token: the session's token (struct ibpost_wire_ready.token).
 *
 * 40 bytes, within the 56 of an IB CM REQ's private data; every byte past
 * them must be zero (RoCE pads the private data to 56 bytes).
 */
struct ibpost_wire_join {
	struct ibpost_wire_hello hello;
	__be32 session;
	__be32 generation;
	u8 token[IBPOST_WIRE_TOKEN_LEN];
};

/**
 * struct ibpost_wire_reject - private data of a rejection.
 * @magic: IBPOST_WIRE_MAGIC.
 * @version: the server's IBPOST_WIRE_VERSION.
 * @pad: zero.
 * @reason: enum ibpost_reason.
 * @err: positive errno.
 * @value: the offending value.
 * @limit: the limit it broke.
 */
struct ibpost_wire_reject {
	__be32 magic;
	__be16 version;
	__be16 pad;
	__be32 reason;
	__be32 err;
	__be64 value;
	__be64 limit;
};

/**
 * struct ibpost_wire_hdr - first bytes of every message.
 * @magic: IBPOST_WIRE_MAGIC.
 * @version: IBPOST_WIRE_VERSION.
 * @type: IBPOST_WIRE_JOB, _READY or _RESULT.
 * @length: bytes of the whole message, header included.
 * @conn: the server's number of the connection (0 from the client).
 */
struct ibpost_wire_hdr {
	__be32 magic;
	__be16 version;
	__be16 type;
	__be32 length;
	__be32 conn;
};

/**
 * struct ibpost_wire_sge - one SGE of a layout.
 * @offset: byte offset in the slot.
 * @length: bytes.
 */
struct ibpost_wire_sge {
	__be32 offset;
	__be32 length;
};

/* struct ibpost_wire_job.flags */
#define IBPOST_WIRE_VERIFY	(1U << 0)
/*
 * A session of the in-kernel API: a region of region_bytes, in chunks of
 * one MR each, registered for RDMA READ and WRITE (op is IBPOST_OP_WRITE,
 * one SGE of msg_size bytes: min(region_bytes, 4 MiB), what the server
 * reports; checked as any job's, not used), nothing checked.
 * The hello must have said IBPOST_WIRE_HELLO_REGION.
 */
#define IBPOST_WIRE_SESSION	(1U << 1)
/*
 * The client asks for the server's CPU time over the job: the result then
 * carries a struct ibpost_wire_cpu after its fixed part.  Not with
 * IBPOST_WIRE_SESSION.
 */
#define IBPOST_WIRE_CPU		(1U << 2)
#define IBPOST_WIRE_JOB_FLAGS	(IBPOST_WIRE_VERIFY | IBPOST_WIRE_SESSION | \
				 IBPOST_WIRE_CPU)

/**
 * struct ibpost_wire_job - what the client will do (client -> server).
 * @hdr: type IBPOST_WIRE_JOB.
 * @op: IBPOST_OP_*.
 * @flags: IBPOST_WIRE_VERIFY, IBPOST_WIRE_SESSION, IBPOST_WIRE_CPU.
 * @msg_size: bytes per message.
 * @depth: as in the hello (must match).
 * @num_sge: SGEs of the sender's layout (patterns are built from it).
 * @recv_num_sge: SGEs of the receive layout (SEND opcodes), else 0.
 * @imm_data: immediate data of the _IMM opcodes.
 * @duration_ms: how long the client will run, in milliseconds; 0 when it
 *	does not know (a job of so many WRs).  The server refuses more than
 *	its job time limit and ends the job at duration + its idle time.
 * @keep_s: IBPOST_WIRE_SESSION: seconds the client asks the server to
 *	keep the region after the session's connections are lost, for a
 *	resume to take it back (its reconnect's time limit, ibpost_blk's
 *	ctrl_loss_tmo); 0: not at all; 0xffffffff: as long as the server
 *	will.  The server grants at most its own limit (``ibpost serve
 *	--max-keep``) and says what it granted (struct
 *	ibpost_wire_ready.keep_s).  Else 0.
 * @reserved2: zero (bytes 52-55, before the 64-bit @region_bytes).
 * @region_bytes: IBPOST_WIRE_SESSION: bytes of the region (1 to the
 *	server's memory budget, counted as allocated), else 0.
 * @sge: @num_sge send SGEs, then @recv_num_sge receive SGEs.
 */
struct ibpost_wire_job {
	struct ibpost_wire_hdr hdr;
	__be32 op;
	__be32 flags;
	__be32 msg_size;
	__be32 depth;
	__be32 num_sge;
	__be32 recv_num_sge;
	__be32 imm_data;
	__be32 duration_ms;
	__be32 keep_s;
	__be32 reserved2;
	__be64 region_bytes;
	struct ibpost_wire_sge sge[];
};

/**
 * struct ibpost_wire_slot - one remote buffer slot.
 * @addr: iova of its MR: a random page-aligned base plus the in-page
 *	offset, never a kernel address.
 * @rkey: its rkey, valid for this job only.
 * @length: bytes the client may access.
 */
struct ibpost_wire_slot {
	__be64 addr;
	__be32 rkey;
	__be32 length;
};

/**
 * struct ibpost_wire_status - a refusal or a failure.
 * @err: positive errno, 0 for none.
 * @reason: enum ibpost_reason.
 * @wr: WR index, or IBPOST_STATUS_NONE / IBPOST_STATUS_RECV_WR.
 * @sge: SGE index, or IBPOST_STATUS_NONE.
 * @value: the offending value.
 * @limit: the limit it broke.
 */
struct ibpost_wire_status {
	__be32 err;
	__be32 reason;
	__be32 wr;
	__be32 sge;
	__be64 value;
	__be64 limit;
};

/**
 * struct ibpost_wire_ready - the server's answer to a job.
 * @hdr: type IBPOST_WIRE_READY.
 * @st: refusal (err != 0: @nslots is 0).
 * @nslots: remote slots; WR i uses slot i % @nslots.  A session: the
 *	region's chunks, DIV_ROUND_UP(region_bytes, @chunk) of them, at most
 *	IBPOST_WIRE_MAX_CHUNKS; chunk i holds region bytes [i * @chunk,
 *	(i + 1) * @chunk).
 * @chunk: a session: bytes of each chunk (a power-of-two multiple of the
 *	page size, every slot's length); 0 otherwise.
 * @session: a session: its number on the server, which other queues name
 *	to join it (struct ibpost_wire_join); 0 otherwise.
 * @generation: a session: its region's generation, random and never 0,
 *	the same for as long as the server has the region (a resume names
 *	it: a region the server lost and made anew would have another); 0
 *	otherwise.
 * @token: a session: random bytes (the kernel's RNG, new for each
 *	ready) a joining or resuming connection must give; zero otherwise.
 * @keep_s: a session: the seconds the server keeps its region after its
 *	connections are lost, counted from when the server sees them go:
 *	what the job asked (struct ibpost_wire_job.keep_s), at most the
 *	server's limit; never more than asked.  0 otherwise.
 * @pad: zero.
 * @slot: the slots.
 */
struct ibpost_wire_ready {
	struct ibpost_wire_hdr hdr;
	struct ibpost_wire_status st;
	__be32 nslots;
	__be32 chunk;
	__be32 session;
	__be32 generation;
	u8 token[IBPOST_WIRE_TOKEN_LEN];
	__be32 keep_s;
	__be32 pad;
	struct ibpost_wire_slot slot[];
};

/**
 * struct ibpost_wire_result - the server's account of a job (after fin).
 * @hdr: type IBPOST_WIRE_RESULT.
 * @st: failure found by the server (err 0: none).
 * @msgs: messages received and checked, or slots checked (WRITE).
 * @bytes: payload bytes received.
 * @verify_errors: bytes that did not hold what was sent.
 * @verify_wr: WR of the first mismatch.
 * @verify_sge: sending SGE of the first mismatch.
 * @verify_offset: byte offset within that SGE.
 * @verify_expected: byte expected there.
 * @verify_got: byte found.
 * @pad: zero.
 */
struct ibpost_wire_result {
	struct ibpost_wire_hdr hdr;
	struct ibpost_wire_status st;
	__be64 msgs;
	__be64 bytes;
	__be32 verify_errors;
	__be32 verify_wr;
	__be32 verify_sge;
	__be32 verify_offset;
	u8 verify_expected;
	u8 verify_got;
	__be16 pad;
};

/**
 * struct ibpost_wire_cpu - the server's CPU time over a job (after the
 *	result's fixed part when the job asked with IBPOST_WIRE_CPU).
 * @wall_ns: the window, from the server's ready to the client's fin.
 * @busy_ns: the time the server's online CPUs did not idle (nor wait for
 *	I/O) in the window, summed over them: at most @wall_ns * @ncpus.
 * @thread_ns: the connection's thread's CPU time in the window: at most
 *	@wall_ns.
 * @ncpus: the online CPUs counted, 1 to IBPOST_WIRE_MAX_CPUS.
 * @pad: zero.
 */
struct ibpost_wire_cpu {
	__be64 wall_ns;
	__be64 busy_ns;
	__be64 thread_ns;
	__be32 ncpus;
	__be32 pad;
};

/* Most CPUs a server may say it has (the kernel's NR_CPUS limit). */
#define IBPOST_WIRE_MAX_CPUS	8192

/* Bytes of the result of a job with the job flags @flags. */
static inline size_t ibpost_wire_result_size(u32 flags)
{
	return sizeof(struct ibpost_wire_result) +
	       (flags & IBPOST_WIRE_CPU ? sizeof(struct ibpost_wire_cpu) : 0);
}

/* Room for the largest job message. */
#define IBPOST_WIRE_JOB_MAX	(sizeof(struct ibpost_wire_job) + \
				 2 * IBPOST_WIRE_MAX_SGE * \
				 sizeof(struct ibpost_wire_sge))

static inline size_t ibpost_wire_ready_size(u32 nslots)
{
	return sizeof(struct ibpost_wire_ready) +
	       (size_t)nslots * sizeof(struct ibpost_wire_slot);
}

#ifdef __KERNEL__
/*
 * lib/wire.c: building messages and checking what a peer sends (the
 * kernel only; the hostile test peer, tools/tests/hostile.c, includes the
 * message layouts above).
 */
struct ibpost_sge_desc;
struct ibpost_status;
struct ibpost_result;

void ibpost_wire_hdr_init(struct ibpost_wire_hdr *h, u16 type, u32 len,
			  u32 conn);
int ibpost_wire_hdr_check(const struct ibpost_wire_hdr *h, u32 len, u16 type,
			  struct ibpost_status *st);
void ibpost_wire_st_put(struct ibpost_wire_status *w, int err,
			const struct ibpost_status *st);
bool ibpost_wire_reject_get(const void *rej, u32 rej_len,
			    struct ibpost_status *st);
int ibpost_wire_st_get(const struct ibpost_wire_status *w,
		       struct ibpost_status *st);
void ibpost_wire_layout_put(struct ibpost_wire_sge *w,
			    const struct ibpost_sge_desc *d, u32 n);
void ibpost_wire_layout_get(struct ibpost_sge_desc *d,
			    const struct ibpost_wire_sge *w, u32 n);
int ibpost_wire_hello_check(const void *priv, u32 len, u32 max_rsge,
			    struct ibpost_wire_join *j,
			    struct ibpost_status *st);
int ibpost_wire_job_check(const struct ibpost_wire_job *m, u32 len,
			  struct ibpost_status *st);
int ibpost_wire_region_check(const struct ibpost_wire_job *m, u16 hello_flags,
			     u32 chunk, struct ibpost_status *st);
int ibpost_wire_ready_region_check(const struct ibpost_wire_ready *m, u32 len,
				   u64 bytes, u32 *chunk, u32 *n,
				   struct ibpost_status *st);
int ibpost_wire_ready_keep_check(const struct ibpost_wire_ready *m,
				 u32 asked, u32 *keep_s,
				 struct ibpost_status *st);
void ibpost_wire_cpu_put(struct ibpost_wire_cpu *w, u64 wall_ns,
			 u64 busy_ns, u64 thread_ns, u32 ncpus);
int ibpost_wire_cpu_get(const struct ibpost_wire_cpu *w,
			struct ibpost_result *res, struct ibpost_status *st);
int ibpost_wire_order_check(bool job_running, const void *m, u32 len,
			    struct ibpost_status *st);
#endif /* __KERNEL__ */

#endif /* _IBPOST_WIRE_H */
