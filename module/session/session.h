/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: sessions of kernel consumers (internal).
 */
#ifndef _IBPOST_SESSION_H
#define _IBPOST_SESSION_H

#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <ibpost.h>

#include "core/device.h"
#include "core/ep.h"
#include "lib/llhist.h"
#include "core/mr.h"
#include "core/pair.h"
#include "lib/wire.h"

/* Where a session is in its life. */
enum ibpost_sess_state {
	IBPOST_S_LIVE,		/* submissions accepted */
	IBPOST_S_ERROR,		/* QP in error: submissions refused, flushing */
	IBPOST_S_DEAD,		/* closed or lost: device resources freed */
};

/**
 * struct ibpost_qstats - a queue's counters (its queue's @lock).
 * @requests: requests accepted (counted from the reservation of their
 *	send-queue slots; one that fails before its post is taken back).
 * @completed: requests whose callback ran (or is running).
 * @bytes: bytes of the requests that completed without error.
 * @wrs: WRs the provider took.
 * @errors: requests that completed with an error.
 * @sq_full: submissions that found the send queue full.
 * @wc_status: failed completions by their ib_wc_status.
 */
struct ibpost_qstats {
	u64 requests;
	u64 completed;
	u64 bytes;
	u64 wrs;
	u64 errors;
	u64 sq_full;
	u32 wc_status[IBPOST_WC_STATUS_MAX];
};

/**
 * struct ibpost_lat_ring - the latencies of a queue's requests.
 * @ns: @size latencies in ns; slot @n % @size is the next one written.
 * @size: capacity.
 * @n: latencies recorded in all.
 * @hist: all of them, to 2 significant digits (the session's life).
 */
struct ibpost_lat_ring {
	u64 *ns;
	u32 size;
	u64 n;
	struct ibpost_llhist *hist;
};

/**
 * struct ibpost_squeue - one queue of a session.
 * @s: the session.
 * @idx: its index.
 * @ep: its initiator endpoint (queue 0: the session's @ep; another queue
 *	of a session with a peer: a connection that joined the session on
 *	the server, session/peer.c).
 * @pair: its loopback pair (queue 0: the session's @pair), or NULL.
 * @lock: the queue's I/O state: @sq_free, @posting, @waiting, @stats,
 *	@lat.  A request takes its own queue's lock only (the session's
 *	@state is read under it: the session's death takes every queue's
 *	lock after it set @state), so that queues on other CPUs never meet
 *	on a lock.  A submitter leaving a dying session (@posting, @waiting)
 *	wakes the session's @wq under it, so that the death, which checks
 *	them under it, cannot free the session under that wake-up.
 * @sq_free: send-queue slots not reserved by a request.
 * @posting: submitters between reserving slots and returning from
 *	ib_post_send() (and a job posting itself, queue 0); a dying session
 *	waits for them.
 * @waiting: submitters waiting for send-queue room; a dying session
 *	wakes them (they return -ENOTCONN) and waits for them to leave.
 * @stats: its counters.
 * @lat: its requests' latencies (a consumer's session; else empty).
 */
struct ibpost_squeue {
	struct ibpost_session *s;
	u32 idx;
	struct ibpost_ep *ep;
	struct ibpost_pair *pair;
	spinlock_t lock;
	u32 sq_free;
	u32 posting;
	u32 waiting;
	struct ibpost_qstats stats;
	struct ibpost_lat_ring lat;
};

/**
 * struct ibpost_region - a session's region: local (loopback) or the
 *	server's (a session with a peer).
 * @bytes: its size (what requests may reach).
 * @chunk: bytes of each MR (a power of two; the last may map beyond
 *	@bytes, never reached).
 * @n: chunks; 0 once released.
 * @raddr: the address of each chunk's MR (its iova).
 * @rkey: the rkey of each chunk's MR.
 * @buf: a local region: the zeroed pages, one slot of @chunk bytes per MR.
 * @mrs: a local region: one fast-reg MR per slot, remote READ and WRITE.
 */
struct ibpost_region {
	u64 bytes;
	u32 chunk;
	u32 n;
	u64 *raddr;
	u32 *rkey;
	struct ibpost_buf buf;
	struct ibpost_mrs mrs;
};

/**
 * struct ibpost_session - a connected endpoint with a lifetime (a
 *	consumer's, or a job's).
 * @node: entry in the list of all sessions.
 * @attr: what it was opened with.
 * @dev: the device, referenced until the session dies.
 * @ep: the initiator endpoint; a consumer's QP is set up for rdma_rw and
 *	its CQ is a softirq one of the device's pool (a job's CQ is its own,
 *	polled directly).
 * @pair: a loopback session's pair (@ep is its initiator), else NULL.
 * @nr_queues: queues in @queues.
 * @queues: the queues; queue 0 is @ep (and @pair), registrations and
 *	control messages use it.
 * @q0: @queues of a session with one queue.
 * @region: the session's region (local, or on its peer), or NULL.
 * @lat_lock: serializes the readers of the queues' latencies
 *	(ibpost_session_get_stats()): @lat_sum is their scratch.
 * @lat_sum: the queues' histograms added up, for a reader; NULL without
 *	latencies.
 * @limits: I/O limits, computed at open (ibpost_session_get_limits()).
 * @pep: a session with a peer: queue 0's endpoint (@ep points here).
 * @max_sge: SGEs per send WR (granted; rdma_rw splits at the QP's
 *	max_write_sge / max_read_sge).
 * @max_msg: bytes per WR (the port's max_msg_sz).
 * @lock: @state, @published, @orphans (the queues' I/O state has their
 *	own locks, &struct ibpost_squeue).
 * @state: enum ibpost_sess_state.
 * @kill_err: errno flushed requests complete with once the session dies.
 * @wq: submitters waiting for slots (woken only where a queue counts
 *	one), the session's death waiting for every queue's @posting and
 *	@waiting.
 * @err_work: puts every queue's QP in error once the session failed
 *	(ibpost_session_error(): an error completion in softirq, a post
 *	failed part-way by a submitter that may be in atomic context, a
 *	queue's lost connection); ib_modify_qp() may sleep.
 * @published: ibpost_session_publish() made it known (@lock).
 * @orphans: requests whose post failed part-way: completed when the QP has
 *	been drained.
 * @reg_lock: serializes registrations (they wait for @ep's completions)
 *	against each other and against the session's death; protects @regs.
 * @regs: live registrations.
 * @id: number in debugfs.
 * @peer: the server's side of a session with a peer (session/peer.c), or NULL.
 * @owner: its consumer's name (&ibpost_session_attr.owner), the name of
 *	its PD, QPs, own CQs and MRs in the kernel's resource tracking.
 */
struct ibpost_session {
	struct list_head node;
	struct ibpost_session_attr attr;
	struct ibpost_dev *dev;
	struct ibpost_ep *ep;
	struct ibpost_pair *pair;
	u32 nr_queues;
	struct ibpost_squeue *queues;
	struct ibpost_squeue q0;
	struct ibpost_region *region;
	spinlock_t lat_lock;
	struct ibpost_llhist *lat_sum;
	struct ibpost_session_limits limits;
	struct ibpost_ep pep;
	u32 max_sge;
	u32 max_msg;
	spinlock_t lock;
	enum ibpost_sess_state state;
	int kill_err;
	wait_queue_head_t wq;
	struct work_struct err_work;
	bool published;
	struct list_head orphans;
	struct mutex reg_lock;
	struct list_head regs;
	u32 id;
	struct ibpost_speer *peer;
	char owner[IBPOST_OWNER_MAX];
};

/**
 * struct ibpost_mreg - a scatterlist registered for remote access.
 * @node: entry in the session's @regs.
 * @s: the session.
 * @sgl: the caller's scatterlist.
 * @nents: its entries.
 * @mapped: entries ib_dma_map_sg() returned; 0 once unmapped.
 * @mrs: the one fast-reg MR.
 */
struct ibpost_mreg {
	struct list_head node;
	struct ibpost_session *s;
	struct scatterlist *sgl;
	unsigned int nents;
	int mapped;
	struct ibpost_mrs mrs;
};

struct ibpost_speer;

struct ibpost_session *
ibpost_session_create(struct ibpost_dev *dev, u32 port,
		      const struct ibpost_conn_caps *caps,
		      const struct sockaddr_storage *addr,
		      struct ibpost_status *st);
int ibpost_session_publish(struct ibpost_session *s);
bool ibpost_session_enter(struct ibpost_session *s);
void ibpost_session_leave(struct ibpost_session *s);
int ibpost_sessions_init(void);
void ibpost_sessions_exit(void);
void ibpost_session_error(struct ibpost_session *s);
void ibpost_session_queue_err(struct ibpost_session *s);
void ibpost_session_lost(void *arg);
void ibpost_req_complete(struct ibpost_session *s, struct ibpost_req *req,
			 int status);
void ibpost_regs_release(struct ibpost_session *s);

/* limits.c */
void ibpost_session_limits_init(struct ibpost_session *s);

/* region.c */
int ibpost_region_create(struct ibpost_session *s, u64 bytes, u32 *reason);
int ibpost_region_remote(struct ibpost_session *s, u64 bytes, u32 chunk,
			 u32 n, const struct ibpost_wire_slot *slot);
void ibpost_region_release(struct ibpost_session *s);
int ibpost_region_target(struct ibpost_session *s, struct ibpost_req *req,
			 u64 len);

/* session/latency.c */
int ibpost_session_lat_init(struct ibpost_session *s, u32 samples);
void ibpost_lat_ring_add(struct ibpost_lat_ring *r, u64 ns);
void ibpost_session_lat_free(struct ibpost_session *s);
void ibpost_session_lat_stats(struct ibpost_session *s,
			      struct ibpost_session_stats *out);

/* session/peer.c */
struct ibpost_speer *ibpost_speer_new(const struct ibpost_session_attr *attr,
				      struct ibpost_conn_caps *caps);
int ibpost_speer_start(struct ibpost_session *s, u32 *reason);
void ibpost_speer_fin(struct ibpost_session *s);
bool ibpost_speer_cancelled(struct ibpost_session *s);
bool ibpost_speer_resumed(const struct ibpost_session *s);
int ibpost_speer_queue(struct ibpost_session *s, struct ibpost_squeue *q,
		       const struct ibpost_conn_caps *caps,
		       struct ibpost_status *st);
void ibpost_speer_queue_free(struct ibpost_squeue *q);
void ibpost_speer_release(struct ibpost_session *s);
void ibpost_speer_rejected(const struct ibpost_speer *p,
			   struct ibpost_status *st);
void ibpost_speer_free(struct ibpost_speer *p);

#endif /* _IBPOST_SESSION_H */
