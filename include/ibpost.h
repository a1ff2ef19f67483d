/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: in-kernel API (Documentation/in-kernel-api.rst).
 *
 * Two ways in, on the same devices, connections and MRs:
 *  - ibpost_run(): one measured transfer job, as /dev/ibpost runs it;
 *  - sessions: a connected QP pair a kernel consumer (a block driver, say)
 *    keeps open and submits scatterlist requests to, with a callback each.
 */
#ifndef _IBPOST_H
#define _IBPOST_H

#include <linux/list.h>
#include <linux/scatterlist.h>
#include <linux/socket.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <rdma/rw.h>
#include <uapi/ibpost.h>

/*
 * Faults a test may inject past validation (struct ibpost_run_ext.fault):
 * a test build's alone (IBPOST_TESTS=y); the shipped module refuses every
 * one (-EINVAL, IBPOST_R_FLAGS with limit 0).
 */
/** Corrupt the lkey of the first SGE of every WR. */
#define IBPOST_FAULT_BAD_LKEY		(1U << 0)
/** Point the last WR's remote address past the end of its MR. */
#define IBPOST_FAULT_REMOTE_RANGE	(1U << 1)
/** Flip one byte at the target after the first WR (verification test). */
#define IBPOST_FAULT_CORRUPT		(1U << 2)
#define IBPOST_FAULTS			(IBPOST_FAULT_BAD_LKEY | \
					 IBPOST_FAULT_REMOTE_RANGE | \
					 IBPOST_FAULT_CORRUPT)

/**
 * struct ibpost_run_ext - kernel-side arguments of ibpost_run().
 * @sges: explicit send layout, run->num_sge entries (IBPOST_LAYOUT_EXPLICIT).
 * @recv_sges: explicit receive layout, run->recv_num_sge entries.
 * @fault: IBPOST_FAULT_* to inject (a test build's), 0 normally.
 * @hist: NULL, or IBPOST_HIST_LL_BUCKETS counts the run's log-linear
 *	latency histogram is written to when it ends (a kernel caller's
 *	&struct ibpost_run.hist: leave IBPOST_RUN_HIST clear and run->hist 0).
 */
struct ibpost_run_ext {
	const struct ibpost_sge_desc *sges;
	const struct ibpost_sge_desc *recv_sges;
	u32 fault;
	u64 *hist;
};

int ibpost_run(struct ibpost_run *run, const struct ibpost_run_ext *ext);

struct ibpost_session;
struct ibpost_squeue;

/* Bytes of a session's token (&ibpost_session_resume.token). */
#define IBPOST_SESSION_TOKEN_LEN	16

/**
 * struct ibpost_session_resume - what takes a session's region back from
 *	a server that kept it (&ibpost_session_attr.keep_s) after its connections
 *	were lost.
 * @session: the server's number of the session.
 * @generation: the region's generation (never 0): a server that lost the
 *	region and made another has another one.
 * @token: the session's secret, from the server's last answer; new with
 *	each open or resume.
 * @keep_s: out (ibpost_session_get_resume()): the seconds the server
 *	keeps the region after the session's connections are lost, counted
 *	from when it sees them go: what &ibpost_session_attr.keep_s asked,
 *	or less (the server's ``--max-keep``).  Not read by an open.
 *
 * ibpost_session_get_resume() gives it for a session with a peer; a new
 * session opened with it (&ibpost_session_attr.resume) reaches the same
 * data.  A consumer keeps it as a secret: it is the credential.
 */
struct ibpost_session_resume {
	u32 session;
	u32 generation;
	u8 token[IBPOST_SESSION_TOKEN_LEN];
	u32 keep_s;
};

/** Events a session reports through &ibpost_session_attr.event. */
enum ibpost_session_event {
	/** An error completion or a failed post: the QP is in error. */
	IBPOST_EV_ERROR = 1,
	/** The device went away: everything was completed and freed. */
	IBPOST_EV_LOST,
};

/**
 * struct ibpost_session_attr - how to open a session.
 * @dev_name: RDMA device by name, or NULL to give @ibdev.
 * @ibdev: the RDMA device when @dev_name is NULL.
 * @port: port number, 0 for the device's first.
 * @depth: send WRs the session may have outstanding: its send queue
 *	depth, 1 to the device's max_qp_wr - 1.
 * @max_sge: SGEs per WR, 0 for all the device allows (capped to it).
 * @flags: reserved, 0.
 * @event: called on IBPOST_EV_*, may be NULL.  Context: IBPOST_EV_ERROR
 *	from softirq (an error completion) or from the submitter (a post
 *	that failed part-way); IBPOST_EV_LOST from process context (the
 *	device's removal waits for it).  It must not sleep for long nor call
 *	ibpost_session_close(); it may schedule work that does.
 * @priv: the caller's, untouched.
 * @peer: NULL for a loopback session (the peer is the device itself), or
 *	the address of ``ibpost serve`` on another host (IPv4 or IPv6; port 0
 *	for IBPOST_PEER_PORT): the session is connected to it through rdma_cm
 *	and gets a region of the server's memory (@region_bytes, or
 *	@remote_bytes: exactly one of them), zeroed, registered for RDMA READ
 *	and WRITE for this session alone, until it is closed.
 * @remote_bytes: with @peer: a region of one chunk, 1 byte to 4 MiB (and at
 *	most what one of the server's fast-reg MRs maps, else the open fails
 *	with IBPOST_R_FRPL), whose one descriptor ibpost_session_remote()
 *	gives; 0 with @region_bytes.
 * @cm_timeout_ms: with @peer: bound on each rdma_cm step and on the server's
 *	answer, 0 for IBPOST_CM_TIMEOUT_MS.
 * @nr_queues: queues, 0 or 1 for one, at most IBPOST_SESSION_QUEUES_MAX:
 *	one QP each (loopback: one pair each, all in one PD), each with its
 *	CQ from the device's CQ pool on completion vector i modulo the
 *	device's vectors.  A submission names its queue (&ibpost_req.queue).
 *	With @peer: one connection each to the same server, queue 0's
 *	asking for the region and the others joining its session there
 *	(Documentation/wire.rst); all reach the one region, and the server
 *	allows one session as many connections as one client address
 *	(``ibpost serve --max-per-addr``).  A lost connection fails the
 *	session's I/O.
 * @region_bytes: a region of this many bytes (a multiple of PAGE_SIZE),
 *	zeroed, registered for RDMA READ and WRITE in as many fast-reg MRs as
 *	it needs, each of &ibpost_session_limits.region_chunk bytes; requests
 *	reach it with IBPOST_REQ_REGION.  Loopback: local memory, at most half
 *	the RAM.  With @peer: the server's memory, at most its budget
 *	(``ibpost serve --max-mem``, counted as allocated) and
 *	8192 chunks (8 GiB in rxe's 1 MiB chunks); a refusal names the
 *	server's reason.
 *	0: none.
 * @lat_samples: exact latency percentiles (ibpost_session_get_latency())
 *	over the last this many completed requests, 0 for
 *	IBPOST_LAT_SAMPLES_DEFAULT, at most IBPOST_LAT_SAMPLES_MAX; each
 *	queue keeps its share (rounded up) of its own requests.
 * @reason: out, may be NULL: IBPOST_R_* when ibpost_session_open() refuses
 *	the attributes (or fails on the device).
 * @resume: with @peer and @region_bytes (the size the region had), NULL
 *	for a new region: take back the region the server kept for a session
 *	whose connections were lost (ibpost_session_get_resume() of it),
 *	with its data.  The old session must have been closed (its
 *	connections gone); one whose server has not yet seen them go is
 *	disconnected there first.  Refused with IBPOST_R_REGION_LOST when
 *	the server no longer has it (it restarted, or kept it for less
 *	time, or not at all), IBPOST_R_JOIN_TOKEN for a wrong token:
 *	either way the data is gone, and the consumer must not go on with a
 *	new region as if it held it.  Other refusals (IBPOST_R_PEER_BUSY,
 *	a connect error) may pass: try again.  In and out: an open that
 *	fails once the server took the region back for it (a queue that
 *	could not join, say) writes the server's new token here, for the
 *	old one takes the region back no more; the server keeps the region
 *	again (no fin), and the next attempt takes it back with this.
 * @keep_s: with @peer and @region_bytes: the seconds the server is asked
 *	to keep the region after the session's connections are lost, for a
 *	resume (@resume) to take it back with its data: the consumer's
 *	reconnect time limit (ibpost_blk: ctrl_loss_tmo); U32_MAX: as long
 *	as the server will; 0 (else): not at all.  The server grants at
 *	most its ``--max-keep``; ibpost_session_get_resume() says the grant.
 *	Asked again by each resume.
 * @cancel: with @peer, may be NULL: asked (with @priv) before each
 *	queue's connection and while the open waits for the server; true
 *	ends the open (-EINTR, IBPOST_R_PEER_LOST), so that a consumer
 *	giving up (a block device being unmapped) waits for one rdma_cm
 *	step (@cm_timeout_ms) at most, not for a whole open.  It must not
 *	sleep.
 * @owner: the consumer's name, NULL for "ibpost"; pass KBUILD_MODNAME.
 *	``rdma resource`` shows it as the owner ("comm [name]") of the
 *	session's QPs, PD, MRs and the CQs that are its own (CQs from the
 *	device's pool are ib_core's).  Copied: at most IBPOST_OWNER_MAX - 1
 *	characters are kept.
 */
struct ibpost_session_attr {
	const char *dev_name;
	struct ib_device *ibdev;
	u32 port;
	u32 depth;
	u32 max_sge;
	u32 flags;
	void (*event)(struct ibpost_session *s, enum ibpost_session_event ev);
	void *priv;
	const struct sockaddr_storage *peer;
	u32 remote_bytes;
	u32 cm_timeout_ms;
	u32 nr_queues;
	u64 region_bytes;
	u32 lat_samples;
	u32 *reason;
	struct ibpost_session_resume *resume;
	u32 keep_s;
	bool (*cancel)(void *priv);
	const char *owner;
};

/* Room for a consumer's name (&ibpost_session_attr.owner), NUL included. */
#define IBPOST_OWNER_MAX	32

/* Most queues of one session (&ibpost_session_attr.nr_queues). */
#define IBPOST_SESSION_QUEUES_MAX	64
/* Latencies kept for exact percentiles when the caller does not say. */
#define IBPOST_LAT_SAMPLES_DEFAULT	4096
/* Most latencies a session keeps. */
#define IBPOST_LAT_SAMPLES_MAX		(1U << 16)

/**
 * struct ibpost_session_limits - what one request of a session may be.
 * @queues: queues of the session.
 * @vectors: completion vectors of the device (queues beyond share them).
 * @depth: send WRs each queue may have outstanding (the session's depth).
 * @max_sge: SGEs per WR rdma_rw builds (the smaller of the QP's WRITE and
 *	READ limits): a request of more entries takes more WRs.
 * @max_segments: most scatterlist entries one request may have (its
 *	worst-case WR count, ibpost_session_req_wrs(), within @depth), at
 *	most IBPOST_SEGMENTS_MAX.
 * @max_bytes: most bytes one request may move: the port's message size,
 *	and with a region @region_chunk.
 * @region_bytes: bytes of the session's region, 0 for none.
 * @region_chunk: bytes each MR of the region maps (a power of two); a
 *	request must not cross a multiple of it (IBPOST_R_REGION_CROSS).
 * @lacks: IBPOST_DEV_NO_* capabilities the device lacks.
 * @mr_pages: pages one of rdma_rw's MRs maps, where the device may
 *	register a request's memory (iWARP always, a device with
 *	max_sgl_rd, any with ib_core's force_mr); 0 where it never does.
 *	rdma_rw registers each run of @mr_pages scatterlist entries with
 *	one MR, which must be free of gaps and span at most @mr_pages
 *	pages: @max_bytes then keeps a request within @mr_pages - 1 pages
 *	(@mr_pages with an unaligned start) and @max_segments within
 *	@mr_pages, and @virt_boundary is set.
 * @virt_boundary: a mask: no gap between two entries of a request
 *	inside one such page (a block driver's virt_boundary_mask); 0 where
 *	the device never registers.
 */
struct ibpost_session_limits {
	u32 queues;
	u32 vectors;
	u32 depth;
	u32 max_sge;
	u32 max_segments;
	u64 max_bytes;
	u64 region_bytes;
	u32 region_chunk;
	u32 lacks;
	u32 mr_pages;
	u64 virt_boundary;
};

/* Most entries of one request &ibpost_session_limits.max_segments says. */
#define IBPOST_SEGMENTS_MAX		4096

/**
 * struct ibpost_session_lat - exact latency of a session's last requests.
 * @samples: completed requests the figures are over (at most the
 *	session's &ibpost_session_attr.lat_samples rounded up to a multiple
 *	of its queues: each queue's most recent ones).
 * @min_ns: shortest submit-to-callback time.
 * @max_ns: longest.
 * @avg_ns: mean.
 * @p50_ns: median (nearest rank).
 * @p99_ns: 99th percentile.
 * @p999_ns: 99.9th percentile.
 */
struct ibpost_session_lat {
	u64 samples;
	u64 min_ns;
	u64 max_ns;
	u64 avg_ns;
	u64 p50_ns;
	u64 p99_ns;
	u64 p999_ns;
};

/**
 * struct ibpost_rdesc - what a peer needs to reach a registered buffer.
 * @addr: first byte (the MR's iova).
 * @rkey: the MR's remote key, valid until ibpost_unreg().
 * @length: bytes.
 */
struct ibpost_rdesc {
	u64 addr;
	u32 rkey;
	u32 length;
};

struct ibpost_mreg;

/** Registration access: peers may RDMA READ the buffer. */
#define IBPOST_ACCESS_REMOTE_READ	(1U << 0)
/** Registration access: peers may RDMA WRITE the buffer. */
#define IBPOST_ACCESS_REMOTE_WRITE	(1U << 1)

struct ibpost_ep;
struct ibpost_rw_ops;

/**
 * struct ibpost_rw - private: one RDMA READ or WRITE of local memory
 *	against a far side's key, built by the kernel's rdma_rw API
 *	(module/core/rw.c): a session's request, a target's transfer.
 * @ops: its owner's completion rules.
 * @ep: the endpoint it is posted on.
 * @sgl: the local memory (rdma_rw DMA-maps it, and registers it where
 *	the device needs an MR).
 * @nents: entries of @sgl.
 * @read: an RDMA READ into @sgl; else an RDMA WRITE from it.
 * @signal_all: every WR of its chain is signaled, not only the last.
 * @raddr: the far end's address (its MR's iova).
 * @rkey: the far end's MR.
 * @cqe: completion of the last WR.
 * @cqe_mid: (error) completions of the other WRs.
 * @ctx: the rdma_rw context (mapping, WRs, MRs).
 * @nwr: WRs rdma_rw built: the send-queue slots the transfer holds.
 * @status: its first error.
 */
struct ibpost_rw {
	const struct ibpost_rw_ops *ops;
	struct ibpost_ep *ep;
	struct scatterlist *sgl;
	unsigned int nents;
	bool read;
	bool signal_all;
	u64 raddr;
	u32 rkey;
	struct ib_cqe cqe;
	struct ib_cqe cqe_mid;
	struct rdma_rw_ctx ctx;
	u32 nwr;
	int status;
};

/** Submission: never wait for send-queue room; -EAGAIN when it is full. */
#define IBPOST_REQ_NOWAIT		(1U << 0)
/** Submission: signal every WR of the chain (MR WRs too), not only the last. */
#define IBPOST_REQ_SIGNAL_ALL		(1U << 1)
/**
 * IBPOST_REQ_REGION - submission: the far end is the session's region at
 * &ibpost_req.remote_offset (&ibpost_req.remote is ignored); the request
 * must not cross one of the region's MRs (IBPOST_R_REGION_CROSS).
 */
#define IBPOST_REQ_REGION		(1U << 2)
#define IBPOST_REQ_FLAGS		(IBPOST_REQ_NOWAIT | \
					 IBPOST_REQ_SIGNAL_ALL | \
					 IBPOST_REQ_REGION)

/**
 * struct ibpost_req - one request of a session.
 * @op: IBPOST_OP_WRITE or IBPOST_OP_READ.
 * @flags: IBPOST_REQ_*.
 * @sgl: local memory: a scatterlist rdma_rw_ctx_init() DMA-maps for the
 *	request (and registers where the device needs an MR).
 * @nents: entries of @sgl.
 * @remote: the peer's buffer (from ibpost_reg() or ibpost_session_remote());
 *	unused with IBPOST_REQ_REGION.
 * @remote_offset: where in @remote (or in the session's region) the
 *	request starts.
 * @queue: the session queue it is posted on, below its queue count.
 * @done: called once per accepted request with 0 or a negative errno:
 *	-EIO (error completion), -ECANCELED (session closed), -ENODEV
 *	(device removed).  Context: softirq, or process context for a
 *	request whose post failed part-way (the session's error work, once
 *	the send queues drained; or ibpost_session_close() / device
 *	removal).
 * @priv: the caller's, untouched.
 * @reason: out: IBPOST_R_* when ibpost_submit() refuses the request.
 * @sess: private.
 * @q: private: the queue it was posted on.
 * @rw: private: the request's RDMA transfer (its mapping, WRs and MRs,
 *	its completions, its first error).
 * @node: private: on the session's list of requests whose post failed.
 * @t_submit: private: ktime_get_ns() at submission.
 *
 * The request, @sgl and the memory it describes belong to ibpost from a
 * successful ibpost_submit() until @done returns.  The caller allocates
 * requests once (a block driver: in its tag set's per-request data) and
 * reuses them; ibpost allocates nothing of its own per request.
 */
struct ibpost_req {
	u32 op;
	u32 flags;
	struct scatterlist *sgl;
	unsigned int nents;
	const struct ibpost_rdesc *remote;
	u64 remote_offset;
	u32 queue;
	void (*done)(struct ibpost_req *req, int status);
	void *priv;
	u32 reason;
	struct ibpost_session *sess;
	struct ibpost_squeue *q;
	struct ibpost_rw rw;
	struct list_head node;
	u64 t_submit;
};

/**
 * struct ibpost_session_stats - counters of one session.
 * @requests: requests accepted.
 * @completed: requests completed (any status).
 * @bytes: bytes of requests completed without error.
 * @wrs: WRs posted (rdma_rw's REG_MR and LOCAL_INV included).
 * @errors: requests completed with an error.
 * @sq_full: submissions that found the send queue full (waited, or
 *	-EAGAIN with IBPOST_REQ_NOWAIT).
 * @inflight: requests accepted and not completed.
 * @wc_status: error completions by ib_wc_status.
 * @lat_hist: submit-to-callback time of the requests completed without
 *	error, log2 buckets of ns as in &struct ibpost_result.
 * @lat_p50_ns: median of that time over the session's life, to 2
 *	significant digits (read off its log-linear histogram: at most the
 *	exact value, and less than one unit of its second digit below).
 * @lat_p99_ns: 99th percentile, likewise.
 * @lat_p999_ns: 99.9th percentile, likewise.
 */
struct ibpost_session_stats {
	u64 requests;
	u64 completed;
	u64 bytes;
	u64 wrs;
	u64 errors;
	u64 sq_full;
	u64 inflight;
	u32 wc_status[IBPOST_WC_STATUS_MAX];
	u64 lat_hist[IBPOST_HIST_BUCKETS];
	u64 lat_p50_ns;
	u64 lat_p99_ns;
	u64 lat_p999_ns;
};

struct ibpost_session *
ibpost_session_open(const struct ibpost_session_attr *attr);
void ibpost_session_close(struct ibpost_session *s);
void *ibpost_session_priv(struct ibpost_session *s);
void ibpost_session_get_stats(struct ibpost_session *s,
			      struct ibpost_session_stats *out);
struct ibpost_mreg *ibpost_reg(struct ibpost_session *s,
			       struct scatterlist *sgl, unsigned int nents,
			       u32 access, struct ibpost_rdesc *desc);
void ibpost_unreg(struct ibpost_mreg *mreg);
int ibpost_session_remote(struct ibpost_session *s, struct ibpost_rdesc *desc);
int ibpost_submit(struct ibpost_session *s, struct ibpost_req *req);
void ibpost_session_get_limits(struct ibpost_session *s,
			       struct ibpost_session_limits *out);
u32 ibpost_session_req_wrs(struct ibpost_session *s, unsigned int nents);
int ibpost_session_get_latency(struct ibpost_session *s,
			       struct ibpost_session_lat *out);
void ibpost_session_fail(struct ibpost_session *s);
int ibpost_session_get_resume(struct ibpost_session *s,
			      struct ibpost_session_resume *out);

#endif /* _IBPOST_H */
