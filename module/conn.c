// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: connect two RC QPs of one device to each other.
 *
 * rdma_cm cannot resolve a route over rxe on lo on 6.1 ("rdma_resolve_route
 * failed"), the first soft-RoCE device users make, so by default a loopback
 * pair is connected directly: each QP is moved INIT -> RTR -> RTS with the
 * other's QP number and an address vector built from the port's own GID
 * (RoCE) or LID (InfiniBand), as perftest does without -R.  Given an IP
 * address of the device, the pair is connected through rdma_cm instead
 * (cm.c), as perftest -R does.
 */
#include <linux/etherdevice.h>
#include <rdma/ib_cache.h>

#include "abi.h"
#include "conn.h"

#define IBPOST_PSN		0x1000
#define IBPOST_RD_ATOMIC	16

/* Pick a GID: RoCE v2 with an IPv4-mapped address first, like perftest. */
static const struct ib_gid_attr *ibpost_pick_gid(struct ib_device *ibdev,
						 u32 port, int tbl_len)
{
	const struct ib_gid_attr *best = NULL, *a;
	int i, score, best_score = -1;

	for (i = 0; i < tbl_len; i++) {
		a = rdma_get_gid_attr(ibdev, port, i);
		if (IS_ERR(a))
			continue;
		score = 0;
		if (a->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP)
			score += 2;
		if (ipv6_addr_v4mapped((const struct in6_addr *)a->gid.raw))
			score += 1;
		if (score > best_score) {
			if (best)
				rdma_put_gid_attr(best);
			best = a;
			best_score = score;
		} else {
			rdma_put_gid_attr(a);
		}
	}
	return best;
}

/* @pattr: the port's attributes, queried once by the caller. */
static int ibpost_fill_av(struct ibpost_conn *c, struct rdma_ah_attr *ah,
			  const struct ib_port_attr *pattr,
			  struct ibpost_status *st)
{
	const struct ib_gid_attr *gid;
	union ib_gid dgid;
	int ret;

	ah->type = rdma_ah_find_type(c->ibdev, c->port);
	rdma_ah_set_port_num(ah, c->port);
	rdma_ah_set_sl(ah, 0);
	if (!rdma_protocol_roce(c->ibdev, c->port)) {
		rdma_ah_set_dlid(ah, pattr->lid);
		return 0;
	}
	gid = ibpost_pick_gid(c->ibdev, c->port, pattr->gid_tbl_len);
	if (!gid) {
		ret = -EADDRNOTAVAIL;
		goto refuse;
	}
	dgid = gid->gid;	/* loopback: the destination is our own GID */
	rdma_ah_set_grh(ah, &dgid, 0, gid->index, 64, 0);
	/* Loopback: the destination MAC is the port's own. */
	ret = rdma_read_gid_l2_fields(gid, NULL, ah->roce.dmac);
	rdma_put_gid_attr(gid);
	if (ret)
		goto refuse;
	return 0;

refuse:
	ibpost_status_set(st, IBPOST_R_CONNECT, -ret, 0);
	return ret;
}

static int ibpost_qp_to_rts(struct ibpost_conn *c, struct ib_qp *qp,
			    u32 dest_qpn, const struct rdma_ah_attr *ah,
			    enum ib_mtu mtu)
{
	struct ib_qp_attr attr = {};
	int ret;

	attr.qp_state = IB_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = c->port;
	attr.qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = mtu;
	attr.dest_qp_num = dest_qpn;
	attr.rq_psn = IBPOST_PSN;
	attr.max_dest_rd_atomic = IBPOST_RD_ATOMIC;
	attr.min_rnr_timer = 1;
	attr.ah_attr = *ah;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.sq_psn = IBPOST_PSN;
	attr.max_rd_atomic = IBPOST_RD_ATOMIC;
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_TIMEOUT |
			    IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_SQ_PSN |
			    IB_QP_MAX_QP_RD_ATOMIC);
}

/**
 * ibpost_qp_init() - init attributes of an RC QP on one CQ.
 * @init: attributes to fill.
 * @cq: send and receive CQ.
 * @send_wr: send WRs the caller will have outstanding.
 * @send_sge: SGEs per send WR.
 * @inline_data: inline bytes wanted.
 * @recv_wr: receive WRs the caller will have outstanding.
 * @recv_sge: SGEs per receive WR.
 * @drain: add one send and one receive slot for ib_drain_qp().
 */
void ibpost_qp_init(struct ib_qp_init_attr *init, struct ib_cq *cq,
		    u32 send_wr, u32 send_sge, u32 inline_data, u32 recv_wr,
		    u32 recv_sge, bool drain)
{
	memset(init, 0, sizeof(*init));
	init->qp_type = IB_QPT_RC;
	init->send_cq = cq;
	init->recv_cq = cq;
	init->sq_sig_type = IB_SIGNAL_REQ_WR;
	init->cap.max_send_wr = send_wr + drain;
	init->cap.max_send_sge = send_sge;
	init->cap.max_inline_data = inline_data;
	init->cap.max_recv_wr = recv_wr + drain;
	init->cap.max_recv_sge = recv_sge;
}

/**
 * ibpost_qp_rw() - let rdma_rw_ctx_init() build WRs for an initiator QP.
 * @init: attributes from ibpost_qp_init().
 * @port: port the QP is bound to.
 * @rdma_ctxs: rdma_rw contexts (0: the QP is not used with rdma_rw).
 *
 * The core then sizes the send queue for them and, where rdma_rw
 * registers memory (iWARP READ sinks, max_sgl_rd, force_mr), creates the
 * QP's pool of @rdma_ctxs MRs.
 */
void ibpost_qp_rw(struct ib_qp_init_attr *init, u32 port, u32 rdma_ctxs)
{
	if (!rdma_ctxs)
		return;
	init->port_num = port;
	init->cap.max_rdma_ctxs = rdma_ctxs;
}

/**
 * ibpost_qp_granted() - what the provider granted, less the drain slots.
 * @init: attributes after creation.
 * @granted: out (may be NULL).
 */
void ibpost_qp_granted(const struct ib_qp_init_attr *init,
			      struct ib_qp_cap *granted)
{
	if (!granted)
		return;
	*granted = init->cap;
	granted->max_send_wr--;
	granted->max_recv_wr--;
}

static int ibpost_direct_pair(struct ibpost_conn *c,
			      const struct ibpost_conn_caps *caps,
			      struct ibpost_status *st)
{
	struct ib_qp_init_attr init;
	struct rdma_ah_attr ah = {};
	struct ib_port_attr pattr;
	int ret;

	ibpost_qp_init(&init, c->cq_a, caps->send_wr, caps->send_sge,
		       caps->inline_data, 1, 1, true);
	ibpost_qp_rw(&init, c->port, caps->rdma_ctxs);
	c->qp_a = ib_create_qp(c->pd, &init);
	if (IS_ERR(c->qp_a)) {
		ret = PTR_ERR(c->qp_a);
		goto err;
	}
	ibpost_qp_granted(&init, &c->granted);
	ibpost_qp_init(&init, c->cq_b, caps->target_send_wr, 1, 0,
		       caps->recv_wr, max_t(u32, caps->recv_sge, 1), true);
	c->qp_b = ib_create_qp(c->pd, &init);
	if (IS_ERR(c->qp_b)) {
		ret = PTR_ERR(c->qp_b);
		goto err_qp_a;
	}
	ret = ib_query_port(c->ibdev, c->port, &pattr);
	if (ret)
		goto err_qp_b;
	ret = ibpost_fill_av(c, &ah, &pattr, st);
	if (ret)
		goto err_qp_b;
	ret = ibpost_qp_to_rts(c, c->qp_a, c->qp_b->qp_num, &ah,
			       pattr.active_mtu);
	if (!ret)
		ret = ibpost_qp_to_rts(c, c->qp_b, c->qp_a->qp_num, &ah,
				       pattr.active_mtu);
	if (ret)
		goto err_qp_b;
	return 0;

err_qp_b:
	ib_destroy_qp(c->qp_b);
err_qp_a:
	ib_destroy_qp(c->qp_a);
err:
	c->qp_a = NULL;
	c->qp_b = NULL;
	if (st->reason == IBPOST_R_NONE)
		ibpost_status_set(st, IBPOST_R_CONNECT, -ret, 0);
	return ret;
}

/*
 * The initiator's CQ: a share of a pooled one when its handlers run from
 * softirq, else its own, polled directly by the job.
 */
static int ibpost_cq_a_get(struct ibpost_conn *c,
			   const struct ibpost_conn_caps *caps)
{
	/* With a peer the initiator QP also takes the control receives. */
	u32 nr = caps->send_wr + 2 + (caps->peer ? caps->recv_wr + 1 : 0);

	if (caps->softirq) {
		/* The pool would allocate CQs forever for an impossible size. */
		if (nr > (u32)c->ibdev->attrs.max_cqe)
			return -EINVAL;
		c->cq_a = ib_cq_pool_get(c->ibdev, nr, -1, IB_POLL_SOFTIRQ);
		if (!IS_ERR(c->cq_a))
			c->cq_a_pool = nr;
	} else {
		c->cq_a = ib_alloc_cq(c->ibdev, NULL, nr, 0, IB_POLL_DIRECT);
	}
	return PTR_ERR_OR_ZERO(c->cq_a);
}

static void ibpost_cq_a_put(struct ibpost_conn *c)
{
	if (c->cq_a_pool)
		ib_cq_pool_put(c->cq_a, c->cq_a_pool);
	else
		ib_free_cq(c->cq_a);
}

/**
 * ibpost_conn_create() - create and connect the QP pair of a job.
 * @c: zeroed connection to fill.
 * @ibdev: the device.
 * @pd: PD of the device.
 * @port: port number.
 * @caps: queue sizes.
 * @addr: connect through rdma_cm to this address of the device, or NULL
 *	to connect the QPs directly; with @caps->peer, the server's address.
 * @st: failure reason.
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno; on failure nothing is left allocated.
 */
int ibpost_conn_create(struct ibpost_conn *c, struct ib_device *ibdev,
		       struct ib_pd *pd, u32 port,
		       const struct ibpost_conn_caps *caps,
		       const struct sockaddr_storage *addr,
		       struct ibpost_status *st)
{
	int ret;

	c->ibdev = ibdev;
	c->pd = pd;
	c->port = port;
	ret = ibpost_cq_a_get(c, caps);
	if (ret)
		goto err;
	if (caps->peer) {
		ret = ibpost_cm_connect(c, caps, addr, st);
		if (ret)
			goto err_cq_a;
		return 0;
	}
	c->cq_b = ib_alloc_cq(ibdev, NULL,
			      caps->recv_wr + caps->target_send_wr + 2, 0,
			      IB_POLL_DIRECT);
	if (IS_ERR(c->cq_b)) {
		ret = PTR_ERR(c->cq_b);
		goto err_cq_a;
	}
	if (addr)
		ret = ibpost_cm_pair(c, caps, addr, st);
	else
		ret = ibpost_direct_pair(c, caps, st);
	if (ret)
		goto err_cq_b;
	return 0;

err_cq_b:
	ib_free_cq(c->cq_b);
err_cq_a:
	ibpost_cq_a_put(c);
err:
	if (st->reason == IBPOST_R_NONE)
		ibpost_status_set(st, IBPOST_R_CONNECT, -ret, 0);
	memset(c, 0, sizeof(*c));
	return ret;
}

/**
 * ibpost_conn_drain() - flush both QPs; every posted WR completes.
 * @c: the connection.
 *
 * Context: process context; polls the direct CQs until both QPs are empty.
 */
void ibpost_conn_drain(struct ibpost_conn *c)
{
	ib_drain_qp(c->qp_a);
	if (c->qp_b)
		ib_drain_qp(c->qp_b);
}

/**
 * ibpost_conn_destroy() - free the QPs and CQs (after ibpost_conn_drain()).
 * @c: the connection.
 */
void ibpost_conn_destroy(struct ibpost_conn *c)
{
	if (c->cm_a) {
		ibpost_cm_destroy(c);
	} else {
		ib_destroy_qp(c->qp_b);
		ib_destroy_qp(c->qp_a);
	}
	if (c->cq_b)
		ib_free_cq(c->cq_b);
	ibpost_cq_a_put(c);
	memset(c, 0, sizeof(*c));
}
