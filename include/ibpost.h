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

/* Faults a test may inject past validation (struct ibpost_run_ext.fault). */
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
 * @fault: IBPOST_FAULT_* to inject, 0 normally.
 */
struct ibpost_run_ext {
	const struct ibpost_sge_desc *sges;
	const struct ibpost_sge_desc *recv_sges;
	u32 fault;
};

int ibpost_run(struct ibpost_run *run, const struct ibpost_run_ext *ext);

struct ibpost_session;

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
 *	and gets @remote_bytes of the server's memory, registered for RDMA
 *	READ and WRITE for this session alone (ibpost_session_remote()).
 * @remote_bytes: with @peer: bytes of remote memory, 1 to 4 MiB (and at most
 *	what one of the server's fast-reg MRs maps).
 * @cm_timeout_ms: with @peer: bound on each rdma_cm step and on the server's
 *	answer, 0 for IBPOST_CM_TIMEOUT_MS.
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

/** Submission: never wait for send-queue room; -EAGAIN when it is full. */
#define IBPOST_REQ_NOWAIT		(1U << 0)
/** Submission: signal every WR of the chain (MR WRs too), not only the last. */
#define IBPOST_REQ_SIGNAL_ALL		(1U << 1)
#define IBPOST_REQ_FLAGS		(IBPOST_REQ_NOWAIT | IBPOST_REQ_SIGNAL_ALL)

/**
 * struct ibpost_req - one request of a session.
 * @op: IBPOST_OP_WRITE or IBPOST_OP_READ.
 * @flags: IBPOST_REQ_*.
 * @sgl: local memory: a scatterlist rdma_rw_ctx_init() DMA-maps for the
 *	request (and registers where the device needs an MR).
 * @nents: entries of @sgl.
 * @remote: the peer's buffer (from ibpost_reg()).
 * @remote_offset: where in @remote the request starts.
 * @done: called once per accepted request with 0 or a negative errno:
 *	-EIO (error completion), -ECANCELED (session closed), -ENODEV
 *	(device removed).  Context: softirq, or the process context of
 *	ibpost_session_close() / device removal for a request whose post
 *	failed part-way.
 * @priv: the caller's, untouched.
 * @reason: out: IBPOST_R_* when ibpost_submit() refuses the request.
 * @sess: private.
 * @cqe: private: completion of the last WR.
 * @cqe_mid: private: (error) completions of the other WRs.
 * @node: private: on the session's list of requests whose post failed.
 * @rw: private: the request's rdma_rw context (mapping, WRs, MRs).
 * @nwr: private: send-queue slots the request holds (rdma_rw's WR count).
 * @status: private: first error of the request.
 * @t_submit: private: ktime_get_ns() at submission.
 *
 * The request, @sgl and the memory it describes belong to ibpost from a
 * successful ibpost_submit() until @done returns.
 */
struct ibpost_req {
	u32 op;
	u32 flags;
	struct scatterlist *sgl;
	unsigned int nents;
	const struct ibpost_rdesc *remote;
	u64 remote_offset;
	void (*done)(struct ibpost_req *req, int status);
	void *priv;
	u32 reason;
	struct ibpost_session *sess;
	struct ib_cqe cqe;
	struct ib_cqe cqe_mid;
	struct list_head node;
	struct rdma_rw_ctx rw;
	u32 nwr;
	int status;
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
 * @lat_hist: completed requests' submit-to-callback time, log2 buckets
 *	of ns as in &struct ibpost_result.
 * @lat_p50_ns: median of that time (bucket resolution: its lower bound).
 * @lat_p99_ns: 99th percentile.
 * @lat_p999_ns: 99.9th percentile.
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

#endif /* _IBPOST_H */
