// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: connect a job's QPs through rdma_cm.
 *
 * Loopback (ibpost_cm_pair()): the target side listens on the given
 * address of the device (an ephemeral port), the initiator resolves address
 * and route to it and connects; the connect request is accepted on a new id
 * whose QP becomes the target QP.  Peer (ibpost_cm_connect()): only the
 * initiator side, connecting to `ibpost serve` on another host (serve.c).
 * rdma_cm event handlers only record the event and wake the job's thread,
 * which does everything else; every wait is bounded by the job's timeout.
 */
#include <linux/completion.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <net/net_namespace.h>

#include "abi.h"
#include "conn.h"


/**
 * struct ibpost_cm_ctx - what an id's event handler reports.
 * @done: completed on every event.
 * @event: last event.
 * @status: its status.
 * @req: new id of a connect request (listener only).
 * @lost: the connection ended (disconnect, device removal, address change).
 * @peer: where a rejection's private data goes (peer connections).
 */
struct ibpost_cm_ctx {
	struct completion done;
	enum rdma_cm_event_type event;
	int status;
	struct rdma_cm_id *req;
	bool lost;
	struct ibpost_conn_peer *peer;
};

static void ibpost_cm_rejected(struct ibpost_cm_ctx *ctx,
			       const struct rdma_cm_event *ev)
{
	u8 len = ev->param.conn.private_data_len;

	if (!ctx->peer || !ev->param.conn.private_data)
		return;
	len = min_t(u8, len, sizeof(ctx->peer->rej));
	memcpy(ctx->peer->rej, ev->param.conn.private_data, len);
	ctx->peer->rej_len = len;
}

static int ibpost_cm_handler(struct rdma_cm_id *id,
			     struct rdma_cm_event *ev)
{
	struct ibpost_cm_ctx *ctx = id->context;

	/* A connect request arrives on the listener's context. */
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		if (ctx->req)
			return -EBUSY;	/* only one: rdma_cm destroys it */
		ctx->req = id;
	}
	switch (ev->event) {
	case RDMA_CM_EVENT_REJECTED:
		ibpost_cm_rejected(ctx, ev);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		WRITE_ONCE(ctx->lost, true);
		break;
	default:
		break;
	}
	ctx->event = ev->event;
	ctx->status = ev->status;
	complete(&ctx->done);
	return 0;
}

/* The step timeout of @caps, in ms. */
static u32 ibpost_cm_ms(const struct ibpost_conn_caps *caps)
{
	return caps->cm_timeout_ms ? caps->cm_timeout_ms : IBPOST_CM_TIMEOUT_MS;
}

/*
 * Wait for @want on @ctx; anything else is an error.  rdma_cm reports its
 * own timeouts of resolution steps given @ms, so wait a little longer.
 */
static int ibpost_cm_wait(struct ibpost_cm_ctx *ctx,
			  enum rdma_cm_event_type want, u32 ms)
{
	if (!wait_for_completion_timeout(&ctx->done,
					 msecs_to_jiffies(ms) + HZ / 2))
		return -ETIMEDOUT;
	if (ctx->event != want) {
		if (ctx->event == RDMA_CM_EVENT_REJECTED)
			return -ECONNREFUSED;
		if (ctx->status < 0)
			return ctx->status;
		return ctx->event == RDMA_CM_EVENT_UNREACHABLE ? -EHOSTUNREACH :
		       ctx->event == RDMA_CM_EVENT_ADDR_ERROR ||
		       ctx->event == RDMA_CM_EVENT_ROUTE_ERROR ?
		       -EHOSTUNREACH : -ECONNREFUSED;
	}
	return 0;
}

static void ibpost_cm_param(struct rdma_conn_param *p)
{
	memset(p, 0, sizeof(*p));
	p->responder_resources = 16;
	p->initiator_depth = 16;
	p->retry_count = 7;
	p->rnr_retry_count = 7;
}

/* Listen on @addr with an ephemeral port; the id must be on our device. */
static int ibpost_cm_listen(struct ibpost_conn *c, struct ibpost_cm_ctx *lctx,
			    struct sockaddr_storage *dst)
{
	int ret;

	c->listen = rdma_create_id(&init_net, ibpost_cm_handler, lctx,
				   RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(c->listen)) {
		ret = PTR_ERR(c->listen);
		c->listen = NULL;
		return ret;
	}
	ret = rdma_bind_addr(c->listen, (struct sockaddr *)dst);
	if (ret)
		return ret;
	if (c->listen->device != c->ibdev)
		return -EXDEV;
	ret = rdma_listen(c->listen, 1);
	if (ret)
		return ret;
	/* Connect to the port the listener got. */
	memcpy(dst, &c->listen->route.addr.src_addr, sizeof(*dst));
	return 0;
}

/*
 * Resolve address and route to @dst on a new initiator id.  A failed step
 * is reported as IBPOST_R_RESOLVE, value 1 (address) or 2 (route), limit
 * the timeout; a route through another device as IBPOST_R_CONNECT.
 */
static int ibpost_cm_resolve(struct ibpost_conn *c, struct ibpost_cm_ctx *actx,
			     struct sockaddr_storage *dst,
			     const struct ibpost_conn_caps *caps,
			     struct ibpost_status *st)
{
	u32 ms = ibpost_cm_ms(caps);
	int ret;

	c->cm_a = rdma_create_id(&init_net, ibpost_cm_handler, actx,
				 RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(c->cm_a)) {
		ret = PTR_ERR(c->cm_a);
		c->cm_a = NULL;
		return ret;
	}
	ret = rdma_resolve_addr(c->cm_a, NULL, (struct sockaddr *)dst, ms);
	if (!ret)
		ret = ibpost_cm_wait(actx, RDMA_CM_EVENT_ADDR_RESOLVED, ms);
	if (ret) {
		ibpost_status_set(st, IBPOST_R_RESOLVE, 1, ms);
		return ret;
	}
	ret = rdma_resolve_route(c->cm_a, ms);
	if (!ret)
		ret = ibpost_cm_wait(actx, RDMA_CM_EVENT_ROUTE_RESOLVED, ms);
	if (ret) {
		ibpost_status_set(st, IBPOST_R_RESOLVE, 2, ms);
		return ret;
	}
	if (c->cm_a->device != c->ibdev) {
		ibpost_status_set(st, IBPOST_R_CONNECT, EXDEV, 0);
		return -EXDEV;
	}
	return 0;
}

static int ibpost_cm_accept(struct ibpost_conn *c,
			    const struct ibpost_conn_caps *caps,
			    struct ibpost_cm_ctx *lctx,
			    struct ibpost_cm_ctx *bctx)
{
	struct rdma_conn_param param;
	struct ib_qp_init_attr init;
	int ret;

	ret = ibpost_cm_wait(lctx, RDMA_CM_EVENT_CONNECT_REQUEST,
			     ibpost_cm_ms(caps));
	if (ret)
		return ret;
	c->cm_b = lctx->req;
	ibpost_qp_init(&init, c->cq_b, caps->target_send_wr, 1, 0,
		       caps->recv_wr, max_t(u32, caps->recv_sge, 1), true);
	/* The id is ours now; its handler runs only under this lock. */
	rdma_lock_handler(c->cm_b);
	c->cm_b->context = bctx;
	ret = rdma_create_qp(c->cm_b, c->pd, &init);
	if (!ret) {
		c->qp_b = c->cm_b->qp;
		ibpost_cm_param(&param);
		ret = rdma_accept(c->cm_b, &param);
	}
	rdma_unlock_handler(c->cm_b);
	return ret;
}

/* The initiator's QP on its id, and the connection parameters. */
static int ibpost_cm_qp_a(struct ibpost_conn *c,
			  const struct ibpost_conn_caps *caps, u32 recv_wr,
			  struct rdma_conn_param *param)
{
	struct ib_qp_init_attr init;
	int ret;

	ibpost_qp_init(&init, c->cq_a, caps->send_wr, caps->send_sge,
		       caps->inline_data, recv_wr, 1, true);
	ibpost_qp_rw(&init, c->port, caps->rdma_ctxs);
	ret = rdma_create_qp(c->cm_a, c->pd, &init);
	if (ret)
		return ret;
	c->qp_a = c->cm_a->qp;
	ibpost_qp_granted(&init, &c->granted);
	ibpost_cm_param(param);
	return 0;
}

/* Event contexts of the three ids; freed only once every id is gone. */
struct ibpost_cm_ctxs {
	struct ibpost_cm_ctx l;
	struct ibpost_cm_ctx a;
	struct ibpost_cm_ctx b;
};

/*
 * Unless set-up already failed (@ret), wait for the initiator's ESTABLISHED;
 * on failure say why (IBPOST_R_CONNECT: the errno, @limit) and free the ids.
 */
static int ibpost_cm_established(struct ibpost_conn *c,
				 const struct ibpost_conn_caps *caps, int ret,
				 u64 limit, struct ibpost_status *st)
{
	struct ibpost_cm_ctxs *x = c->cm_ctx;

	if (!ret)
		ret = ibpost_cm_wait(&x->a, RDMA_CM_EVENT_ESTABLISHED,
				     ibpost_cm_ms(caps));
	if (!ret)
		return 0;
	if (st->reason == IBPOST_R_NONE)
		ibpost_status_set(st, IBPOST_R_CONNECT, -ret, limit);
	ibpost_cm_destroy(c);
	return ret;
}

/**
 * ibpost_cm_pair() - connect the pair through rdma_cm.
 * @c: connection whose CQs exist.
 * @caps: queue sizes.
 * @addr: an IPv4 or IPv6 address of the device (port ignored).
 * @st: failure reason.
 *
 * Context: process context, may sleep (waits for rdma_cm events).
 * Return: 0 or a negative errno; on failure the ids and QPs are gone.
 */
int ibpost_cm_pair(struct ibpost_conn *c, const struct ibpost_conn_caps *caps,
		   const struct sockaddr_storage *addr,
		   struct ibpost_status *st)
{
	struct sockaddr_storage dst = *addr;
	struct rdma_conn_param param;
	struct ibpost_cm_ctxs *x;
	int ret;

	x = kzalloc(sizeof(*x), GFP_KERNEL);
	if (!x)
		return -ENOMEM;
	c->cm_ctx = x;
	init_completion(&x->l.done);
	init_completion(&x->a.done);
	init_completion(&x->b.done);
	ret = ibpost_cm_listen(c, &x->l, &dst);
	if (!ret)
		ret = ibpost_cm_resolve(c, &x->a, &dst, caps, st);
	if (ret)
		goto err;
	ret = ibpost_cm_qp_a(c, caps, 1, &param);
	if (ret)
		goto err;
	ret = rdma_connect(c->cm_a, &param);
	if (!ret)
		ret = ibpost_cm_accept(c, caps, &x->l, &x->b);
err:
	return ibpost_cm_established(c, caps, ret, 0, st);
}

/**
 * ibpost_cm_connect() - connect the initiator QP to a server.
 * @c: connection whose initiator CQ exists.
 * @caps: queue sizes; @caps->peer gives port, timeout and private data,
 *	and receives a rejection's private data.
 * @addr: the server's IPv4 or IPv6 address (port taken from @caps->peer).
 * @st: failure reason: IBPOST_R_RESOLVE, or IBPOST_R_CONNECT with the
 *	errno as value and the timeout as limit.
 *
 * Context: process context, may sleep up to three timeouts.
 * Return: 0, -ECONNREFUSED when the server rejected (see @caps->peer->rej),
 * -ETIMEDOUT, or another negative errno; on failure nothing is left.
 */
int ibpost_cm_connect(struct ibpost_conn *c,
		      const struct ibpost_conn_caps *caps,
		      const struct sockaddr_storage *addr,
		      struct ibpost_status *st)
{
	struct sockaddr_storage dst = *addr;
	struct ibpost_conn_peer *peer = caps->peer;
	struct rdma_conn_param param;
	struct ibpost_cm_ctxs *x;
	int ret;

	if (dst.ss_family == AF_INET)
		((struct sockaddr_in *)&dst)->sin_port = htons(peer->port);
	else
		((struct sockaddr_in6 *)&dst)->sin6_port = htons(peer->port);
	x = kzalloc(sizeof(*x), GFP_KERNEL);
	if (!x)
		return -ENOMEM;
	c->cm_ctx = x;
	init_completion(&x->a.done);
	x->a.peer = peer;
	peer->rej_len = 0;
	ret = ibpost_cm_resolve(c, &x->a, &dst, caps, st);
	if (ret)
		goto err;
	ret = ibpost_cm_qp_a(c, caps, caps->recv_wr, &param);
	if (ret)
		goto err;
	param.private_data = peer->priv;
	param.private_data_len = peer->priv_len;
	ret = rdma_connect(c->cm_a, &param);
err:
	return ibpost_cm_established(c, caps, ret, ibpost_cm_ms(caps), st);
}

/**
 * ibpost_cm_lost() - did the rdma_cm connection of the initiator end?
 * @c: a connection made through rdma_cm (false otherwise).
 *
 * Return: true after a disconnect, device removal or address change.
 */
bool ibpost_cm_lost(const struct ibpost_conn *c)
{
	const struct ibpost_cm_ctxs *x = c->cm_ctx;

	return x && READ_ONCE(x->a.lost);
}

/**
 * ibpost_cm_destroy() - disconnect and free the ids and their QPs.
 * @c: the connection (its QPs already drained when they were used).
 */
void ibpost_cm_destroy(struct ibpost_conn *c)
{
	struct ibpost_cm_ctxs *x = c->cm_ctx;

	if (c->cm_a)
		rdma_disconnect(c->cm_a);
	/* After this no connect request can reach x->l any more. */
	if (c->listen)
		rdma_destroy_id(c->listen);
	if (x && x->l.req && x->l.req != c->cm_b)
		rdma_destroy_id(x->l.req);
	if (c->cm_b) {
		if (c->cm_b->qp)
			rdma_destroy_qp(c->cm_b);
		rdma_destroy_id(c->cm_b);
	}
	if (c->cm_a) {
		if (c->cm_a->qp)
			rdma_destroy_qp(c->cm_a);
		rdma_destroy_id(c->cm_a);
	}
	kfree(x);
	c->cm_a = NULL;
	c->cm_b = NULL;
	c->listen = NULL;
	c->cm_ctx = NULL;
	c->qp_a = NULL;
	c->qp_b = NULL;
}
