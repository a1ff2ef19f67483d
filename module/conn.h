/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: a connected pair of RC QPs on one device (loopback).
 */
#ifndef _IBPOST_CONN_H
#define _IBPOST_CONN_H

#include <linux/socket.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <uapi/ibpost.h>

/**
 * struct ibpost_conn_peer - connect to a server on another host (rdma_cm).
 * @port: the server's rdma_cm port.
 * @timeout_ms: bound on each of address resolution, route resolution and
 *	connection set-up.
 * @priv: private data of the connect request.
 * @priv_len: its bytes.
 * @rej: out: private data of a rejection (the server's reason).
 * @rej_len: out: its bytes, 0 when the server did not say.
 */
struct ibpost_conn_peer {
	u16 port;
	u32 timeout_ms;
	const void *priv;
	u8 priv_len;
	u8 rej[64];
	u8 rej_len;
};

/**
 * struct ibpost_conn_caps - queue sizes a job asks for.
 * @send_wr: send WRs of the initiator QP.
 * @send_sge: SGEs per send WR of the initiator.
 * @inline_data: inline bytes the initiator needs (0: none).
 * @recv_wr: receive WRs of the target QP.
 * @recv_sge: SGEs per receive WR of the target.
 * @target_send_wr: send WRs of the target (memory registration).
 * @softirq: the initiator's CQ calls its ib_cqe handlers from softirq
 *	(IB_POLL_SOFTIRQ, sessions; taken from the device's CQ pool); else the
 *	owner polls it (IB_POLL_DIRECT, a CQ of its own).
 * @rdma_ctxs: rdma_rw contexts of the initiator QP (cap.max_rdma_ctxs,
 *	the size of its MR pool where rdma_rw registers); 0 when the QP is
 *	not used with rdma_rw_ctx_init().
 * @cm_timeout_ms: rdma_cm step timeout (0: IBPOST_CM_TIMEOUT_MS).
 * @peer: connect @qp_a to a server at the given address; no target QP.
 */
struct ibpost_conn_caps {
	u32 send_wr;
	u32 send_sge;
	u32 inline_data;
	u32 recv_wr;
	u32 recv_sge;
	u32 target_send_wr;
	bool softirq;
	u32 rdma_ctxs;
	u32 cm_timeout_ms;
	struct ibpost_conn_peer *peer;
};

/**
 * struct ibpost_conn - initiator QP @qp_a connected to target QP @qp_b.
 * @ibdev: the device.
 * @pd: its PD (owned by the device registry).
 * @port: port both QPs use.
 * @cq_a: completions of @qp_a (polled directly by the job, or a shared
 *	softirq CQ of the device's pool).
 * @cq_a_pool: CQEs of @cq_a claimed from the pool (ib_cq_pool_get()); 0
 *	when @cq_a is the connection's own (ib_alloc_cq()).
 * @cq_b: completions of @qp_b (NULL with a peer).
 * @qp_a: initiator: posts the job's work requests.
 * @qp_b: target: receives, owns the remote MRs (NULL with a peer).
 * @granted: caps of @qp_a as the provider granted them.
 * @listen: rdma_cm listener (rdma_cm pairs only).
 * @cm_a: rdma_cm id of @qp_a (NULL for a directly connected pair).
 * @cm_b: rdma_cm id of @qp_b, from the connect request.
 * @cm_ctx: event contexts of the rdma_cm ids (cm.c).
 */
struct ibpost_conn {
	struct ib_device *ibdev;
	struct ib_pd *pd;
	u32 port;
	struct ib_cq *cq_a;
	u32 cq_a_pool;
	struct ib_cq *cq_b;
	struct ib_qp *qp_a;
	struct ib_qp *qp_b;
	struct ib_qp_cap granted;
	struct rdma_cm_id *listen;
	struct rdma_cm_id *cm_a;
	struct rdma_cm_id *cm_b;
	void *cm_ctx;
};

int ibpost_conn_create(struct ibpost_conn *c, struct ib_device *ibdev,
		       struct ib_pd *pd, u32 port,
		       const struct ibpost_conn_caps *caps,
		       const struct sockaddr_storage *addr,
		       struct ibpost_status *st);
void ibpost_qp_init(struct ib_qp_init_attr *init, struct ib_cq *cq,
		    u32 send_wr, u32 send_sge, u32 inline_data, u32 recv_wr,
		    u32 recv_sge, bool drain);
void ibpost_qp_rw(struct ib_qp_init_attr *init, u32 port, u32 rdma_ctxs);
void ibpost_qp_granted(const struct ib_qp_init_attr *init,
		       struct ib_qp_cap *granted);

/* cm.c */
int ibpost_cm_pair(struct ibpost_conn *c, const struct ibpost_conn_caps *caps,
		   const struct sockaddr_storage *addr,
		   struct ibpost_status *st);
int ibpost_cm_connect(struct ibpost_conn *c,
		      const struct ibpost_conn_caps *caps,
		      const struct sockaddr_storage *addr,
		      struct ibpost_status *st);
bool ibpost_cm_lost(const struct ibpost_conn *c);
void ibpost_cm_destroy(struct ibpost_conn *c);
void ibpost_conn_drain(struct ibpost_conn *c);
void ibpost_conn_destroy(struct ibpost_conn *c);

#endif /* _IBPOST_CONN_H */
