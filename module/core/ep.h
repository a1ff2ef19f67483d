/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: the endpoint: one QP, its CQ, its send credit, drain state and
 * first error.  Every post, poll and drain of the module goes through it.
 */
#ifndef _IBPOST_EP_H
#define _IBPOST_EP_H

#include <linux/atomic.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

/* Completions reaped per ib_process_cq_direct() call. */
#define IBPOST_EP_BUDGET	64

/**
 * struct ibpost_ep_caps - queues of an endpoint.
 * @send_wr: send WRs the owner will have outstanding.
 * @send_sge: SGEs per send WR.
 * @inline_data: inline bytes wanted (0: none).
 * @recv_wr: receive WRs the owner will have outstanding.
 * @recv_sge: SGEs per receive WR (at least 1 is asked for).
 * @rdma_ctxs: rdma_rw contexts the QP must support (0: none).
 * @poll: IB_POLL_DIRECT (the owner polls, ibpost_ep_poll_until()) or
 *	IB_POLL_SOFTIRQ or IB_POLL_WORKQUEUE (handlers run in softirq or
 *	a workqueue, they wake the owner; the CQ comes from the
 *	device's CQ pool).
 * @cq_vector: for a CQ from the pool: 1 + the completion vector it is
 *	taken on (modulo the device's vectors), 0 for the pool's round-robin
 *	choice.
 * @owner: the consumer ``rdma resource`` names for the endpoint's PD (and
 *	so its MRs), QP and own CQ (a pooled CQ is ib_core's); it must live
 *	as long as the endpoint.  NULL: "ibpost".
 */
struct ibpost_ep_caps {
	u32 send_wr;
	u32 send_sge;
	u32 inline_data;
	u32 recv_wr;
	u32 recv_sge;
	u32 rdma_ctxs;
	enum ib_poll_context poll;
	u32 cq_vector;
	const char *owner;
};

/**
 * struct ibpost_ep - one RC QP with its CQ.
 * @ibdev: the device.
 * @pd: the PD the QP and every MR it uses belong to: its trust domain.
 * @pd_owned: @pd is the endpoint's own (freed with it), not shared.
 * @port: port number.
 * @owner: its consumer's name in the kernel's resource tracking
 *	(&ibpost_ep_caps.owner).
 * @cq: send and receive completions of @qp.
 * @cq_size: CQEs of @cq.
 * @cq_pooled: @cq came from ib_cq_pool_get().
 * @qp: the QP.
 * @cm_id: the rdma_cm id of @qp (core/cm.c), or NULL for a QP connected
 *	directly.
 * @cm_owned: @cm_id is the endpoint's: ibpost_ep_destroy() destroys it.
 *	Not yet for a served connection until it is accepted: until then a
 *	failure returns non-zero from the id's handler, and rdma_cm
 *	destroys the id.
 * @cm_ctx: its event context (cm.c), freed with the id.
 * @cm_release: set by cm.c with @cm_id: ibpost_ep_destroy() calls it
 *	last to destroy the id and free @cm_ctx (a pointer, not a call into
 *	cm.c: cm.c is built on this file, not the other way round).
 * @granted: caps the provider granted, less the drain slots.
 * @wq: woken by ibpost_ep_wake(): waits on an endpoint whose handlers run
 *	in softirq or a workqueue.
 * @credit: send-queue slots not taken (ibpost_ep_credit_take()).
 * @bh_post: post with bottom halves off (the owner's thread posts and
 *	polls; a software provider's deferred work then runs at once).
 * @draining: teardown started: flush completions are not errors.
 * @lost: the connection ended (rdma_cm disconnect or device removal).
 * @wc_status: first error completion (IB_WC_SUCCESS: none).
 * @wc_vendor: its vendor error.
 */
struct ibpost_ep {
	struct ib_device *ibdev;
	struct ib_pd *pd;
	bool pd_owned;
	u32 port;
	const char *owner;
	struct ib_cq *cq;
	u32 cq_size;
	bool cq_pooled;
	struct ib_qp *qp;
	struct rdma_cm_id *cm_id;
	bool cm_owned;
	void *cm_ctx;
	void (*cm_release)(struct ibpost_ep *ep);
	struct ib_qp_cap granted;
	wait_queue_head_t wq;
	atomic_t credit;
	bool bh_post;
	bool draining;
	bool lost;
	int wc_status;
	u32 wc_vendor;
};

/**
 * struct ibpost_ep_wait - what ibpost_ep_poll_until() waits for.
 * @ep: endpoints whose CQs are reaped (@ep[1] may be NULL).
 * @done: the condition waited for; checked first in every round.
 * @stop: 0 to go on, else the negative errno that ends the wait (a
 *	signal, device removal, a lost peer, a stall); may be NULL.
 * @kick: work done in every round before reaping (posting), may be NULL.
 * @idle: called when a round reaped nothing, may be NULL (then software
 *	providers' deferred work is run).
 * @arg: argument of the callbacks.
 * @deadline: jiffies when the wait gives up with -ETIMEDOUT, 0 for none.
 * @pending: may be NULL: @kick has work waiting (a handler queued it);
 *	a round's wait for the handlers then ends at once.
 */
struct ibpost_ep_wait {
	struct ibpost_ep *ep[2];
	bool (*done)(void *arg);
	int (*stop)(void *arg);
	void (*kick)(void *arg);
	void (*idle)(void *arg);
	void *arg;
	unsigned long deadline;
	bool (*pending)(void *arg);
};

/*
 * Run pending softirqs now, in this thread.  Software providers defer work
 * of kernel QPs to tasklets (rdma_rxe runs the requester of a kernel QP as
 * a tasklet, the loopback packet as NET_RX); raised from process context
 * they would wait for ksoftirqd or the next interrupt.  On hardware nothing
 * is pending and this costs two preempt-count updates.
 */
static inline void ibpost_softirq_flush(void)
{
	local_bh_disable();
	local_bh_enable();
}

int ibpost_ep_cq(struct ibpost_ep *ep, struct ib_device *ibdev,
		 struct ibpost_ep *share, u32 port,
		 const struct ibpost_ep_caps *caps);
void ibpost_ep_qp_attr(struct ibpost_ep *ep, const struct ibpost_ep_caps *caps,
		       struct ib_qp_init_attr *init);
int ibpost_ep_qp(struct ibpost_ep *ep, const struct ibpost_ep_caps *caps);
void ibpost_ep_qp_set(struct ibpost_ep *ep, struct ib_qp *qp,
		      const struct ib_qp_init_attr *init);
int ibpost_ep_post(struct ibpost_ep *ep, struct ib_send_wr *first,
		   u32 *taken);
int ibpost_ep_post_recv(struct ibpost_ep *ep, struct ib_recv_wr *wr);
int ibpost_ep_poll(struct ibpost_ep *ep);
bool ibpost_ep_wc_error(struct ibpost_ep *ep, const struct ib_wc *wc);
int ibpost_ep_poll_until(const struct ibpost_ep_wait *w);
bool ibpost_ep_credit_take(struct ibpost_ep *ep, u32 n);
void ibpost_ep_credit_give(struct ibpost_ep *ep, u32 n);
void ibpost_ep_wake(struct ibpost_ep *ep);
void ibpost_ep_set_error(struct ibpost_ep *ep);
void ibpost_ep_drain(struct ibpost_ep *ep);
void ibpost_ep_drain_sq(struct ibpost_ep *ep);
void ibpost_ep_detach(struct ibpost_ep *ep);
void ibpost_ep_destroy(struct ibpost_ep *ep);

#endif /* _IBPOST_EP_H */
