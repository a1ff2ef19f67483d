/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: connecting endpoints: a loopback pair on one device (directly or
 * through rdma_cm), or one endpoint to a server on another host.
 */
#ifndef _IBPOST_PAIR_H
#define _IBPOST_PAIR_H

#include <linux/socket.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <uapi/ibpost.h>

#include "core/ep.h"

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
 * struct ibpost_conn_caps - queue sizes a job or session asks for.
 * @send_wr: send WRs of the initiator QP.
 * @send_sge: SGEs per send WR of the initiator.
 * @inline_data: inline bytes the initiator needs (0: none).
 * @recv_wr: receive WRs of the target QP (of the initiator with a peer:
 *	the control channel's).
 * @ini_recv_wr: receive WRs of a loopback pair's initiator (the answers
 *	of a two-sided queue; 0: one).
 * @recv_sge: SGEs per receive WR of the target.
 * @target_send_wr: send WRs of the target (memory registration).
 * @rdma_ctxs: rdma_rw contexts of the initiator QP (sessions).
 * @softirq: the initiator's CQ calls its ib_cqe handlers from softirq
 *	(IB_POLL_SOFTIRQ, sessions); else the owner polls it (IB_POLL_DIRECT).
 * @cm_timeout_ms: rdma_cm step timeout (0: IBPOST_CM_TIMEOUT_MS).
 * @peer: connect the initiator to a server at the given address; no
 *	target endpoint.
 * @pd_share: NULL: the pair (or peer endpoint) gets a PD of its own; else
 *	both endpoints use this endpoint's PD (the queues of one session:
 *	one trust domain, so that its region's rkeys work on every queue).
 * @cq_vector: 1 + the completion vector of the initiator's pooled CQ, 0
 *	for the pool's choice (&ibpost_ep_caps.cq_vector).
 * @owner: the consumer named in ``rdma resource`` (&ibpost_ep_caps.owner).
 * @gid_fixed: a directly connected pair's source GID is @gid_index of the
 *	port (IBPOST_RUN_GID; checked with ibpost_gid_check() first), not
 *	the one ibpost picks.  Never with rdma_cm.
 * @gid_index: that index.
 * @lost: with @peer: called with @lost_arg from the rdma_cm handler when
 *	the server disconnects (after the QP went to error), or NULL.  A
 *	session's queue: the whole session fails (ibpost_session_lost()).
 * @lost_arg: its argument.
 */
struct ibpost_conn_caps {
	u32 send_wr;
	u32 send_sge;
	u32 inline_data;
	u32 recv_wr;
	u32 ini_recv_wr;
	u32 recv_sge;
	u32 target_send_wr;
	u32 rdma_ctxs;
	bool softirq;
	u32 cm_timeout_ms;
	struct ibpost_conn_peer *peer;
	struct ibpost_ep *pd_share;
	u32 cq_vector;
	const char *owner;
	bool gid_fixed;
	u32 gid_index;
	void (*lost)(void *arg);
	void *lost_arg;
};

/**
 * struct ibpost_pair - two endpoints of one device connected to each other
 *	(loopback).
 * @ini: the initiator: posts the work requests.
 * @tgt: the target: receives, registers the remote MRs; always directly
 *	polled.
 * @listen: rdma_cm listener (pairs connected through rdma_cm only).
 * @listen_ctx: its event context.
 */
struct ibpost_pair {
	struct ibpost_ep ini;
	struct ibpost_ep tgt;
	struct rdma_cm_id *listen;
	void *listen_ctx;
};

void ibpost_conn_ini_caps(const struct ibpost_conn_caps *caps,
			  struct ibpost_ep_caps *ec);
int ibpost_pair_create(struct ibpost_pair *p, struct ib_device *ibdev,
		       u32 port,
		       const struct ibpost_conn_caps *caps,
		       const struct sockaddr_storage *addr,
		       struct ibpost_status *st);
void ibpost_pair_drain(struct ibpost_pair *p);
void ibpost_pair_destroy(struct ibpost_pair *p);
int ibpost_peer_ep_create(struct ibpost_ep *ep, struct ib_device *ibdev,
			  u32 port,
			  const struct ibpost_conn_caps *caps,
			  const struct sockaddr_storage *addr,
			  struct ibpost_status *st);
void ibpost_peer_ep_destroy(struct ibpost_ep *ep);
int ibpost_gid_check(struct ib_device *ibdev, u32 port, u32 index,
		     struct ibpost_status *st);

/* cm.c */
int ibpost_cm_pair(struct ibpost_pair *p, const struct ibpost_conn_caps *caps,
		   const struct sockaddr_storage *addr,
		   struct ibpost_status *st);
int ibpost_cm_connect(struct ibpost_ep *ep,
		      const struct ibpost_conn_caps *caps,
		      const struct sockaddr_storage *addr,
		      struct ibpost_status *st);
int ibpost_cm_qp(struct ibpost_ep *ep, const struct ibpost_ep_caps *ec);
int ibpost_cm_serve_ep(struct ibpost_ep *ep, struct rdma_cm_id *id,
		       struct ibpost_ep *pd_share,
		       const struct ibpost_ep_caps *ec);
int ibpost_cm_accept(struct ibpost_ep *ep, const struct rdma_conn_param *req);
void ibpost_cm_disconnect(struct ibpost_ep *ep);
void ibpost_cm_close(struct ibpost_ep *ep, void (*drained)(void *arg),
		     void *arg);
void ibpost_cm_pair_close(struct ibpost_pair *p);
void ibpost_cm_init(void);
void ibpost_cm_exit(void);

#endif /* _IBPOST_PAIR_H */
