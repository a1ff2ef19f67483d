// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: connect a job's QPs through rdma_cm.
 *
 * Loopback (ibpost_cm_pair()): the target side listens on the given
 * address of the device (an ephemeral port), the initiator resolves address
 * and route to it and connects; the connect request is accepted on a new id
 * whose QP becomes the target QP.  The listener is reachable from any host
 * on the fabric, so the initiator's connect request carries a random token
 * in its private data and only the request with that token is accepted;
 * any other one is rejected.  Peer (ibpost_cm_connect()): only the
 * initiator side, connecting to `ibpost serve` on another host (serve.c).
 * rdma_cm event handlers only record the event and wake the job's thread,
 * which does everything else; every wait is bounded by the job's timeout,
 * ends on a signal (the caller's SIGINT: its job ends with -EINTR) and on
 * the removal of the endpoint's device (whose removal waits for the job).
 *
 * Every rdma_cm endpoint, client, loopback or served (serve/), is made and
 * ended by the same steps here: its QP on its id (ibpost_cm_qp()), the
 * accept (ibpost_cm_accept()), the disconnect (ibpost_cm_disconnect());
 * ibpost_ep_destroy() frees QP, CQ, PD and then the id it owns
 * (ibpost_cm_release()).  A served endpoint's end is one call,
 * ibpost_cm_close(): disconnect, drain, its owner's frees, destroy.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/algapi.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <linux/random.h>
#include <net/net_namespace.h>

#include "lib/abi.h"
#include "core/device.h"
#include "core/pair.h"
#include "core/testhook.h"

/* Bytes of the token a loopback pair's initiator proves itself with. */
#define IBPOST_CM_TOKEN		16
/* How long the pair of the pair_test_port hook waits before connecting. */
#define IBPOST_CM_TEST_HOLD_MS	3000

/*
 * Waits for rdma_cm events, woken by every event of every id and by device
 * removal (ibpost_cm_dev_removing()).  One queue rather than one per id: a
 * wait must also end when the device goes, which the removal could not
 * otherwise reach; events are few (a handful per connection).
 */
static DECLARE_WAIT_QUEUE_HEAD(ibpost_cm_wq);

/**
 * struct ibpost_cm_ctx - what an id's event handler reports.
 * @events: events so far (written by the handler only).
 * @taken: events a wait consumed.
 * @dev: the endpoint's device, referenced: a wait ends when it is dying.
 * @event: last event.
 * @status: its status.
 * @req: new id of a connect request (listener only).
 * @ep: the endpoint whose connection this is (NULL: a listener); its
 *	@lost is set when the connection ends (disconnect, device removal,
 *	address change).
 * @peer: where a rejection's private data goes (peer connections).
 * @fail_lost: a consumer's session with a peer: when the server
 *	disconnects, the QP goes to error at once (rdma_disconnect()), so that
 *	outstanding requests fail now rather than after their retries or the
 *	consumer's timeout.
 * @lost: &ibpost_conn_caps.lost: told after that, NULL for none.
 * @lost_arg: its argument.
 * @token: the listener of a loopback pair accepts only the connect request
 *	whose private data starts with these random bytes (its initiator's).
 */
struct ibpost_cm_ctx {
	u32 events;
	u32 taken;
	struct ibpost_dev *dev;
	enum rdma_cm_event_type event;
	int status;
	struct rdma_cm_id *req;
	struct ibpost_ep *ep;
	struct ibpost_conn_peer *peer;
	bool fail_lost;
	void (*lost)(void *arg);
	void *lost_arg;
	u8 token[IBPOST_CM_TOKEN];
};

/* Whether a connect request to a pair's listener is its initiator's. */
static bool ibpost_cm_ours(const struct ibpost_cm_ctx *ctx,
			   const struct rdma_cm_event *ev)
{
	const struct rdma_conn_param *c = &ev->param.conn;

	return c->private_data && c->private_data_len >= IBPOST_CM_TOKEN &&
	       !crypto_memneq(c->private_data, ctx->token, IBPOST_CM_TOKEN);
}

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

	/*
	 * A connect request arrives on the listener's context.  Only one, the
	 * initiator's: for any other, the error makes rdma_cm destroy the new
	 * id, which rejects the request.
	 */
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		if (ctx->req || !ibpost_cm_ours(ctx, ev))
			return -EBUSY;
		ctx->req = id;
	}
	switch (ev->event) {
	case RDMA_CM_EVENT_REJECTED:
		ibpost_cm_rejected(ctx, ev);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		/*
		 * Lost first (its flushes are the session's error, submit.c),
		 * then the QP to error: the session's requests fail with it.
		 */
		if (ctx->ep)
			WRITE_ONCE(ctx->ep->lost, true);
		if (ctx->fail_lost)
			rdma_disconnect(id);
		if (ctx->lost)
			ctx->lost(ctx->lost_arg);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		if (ctx->ep)
			WRITE_ONCE(ctx->ep->lost, true);
		break;
	default:
		break;
	}
	ctx->event = ev->event;
	ctx->status = ev->status;
	/* @event and @status are seen by whoever sees the new count. */
	smp_store_release(&ctx->events, ctx->events + 1);
	wake_up_all(&ibpost_cm_wq);
	return 0;
}

/* A device is dying (&ibpost_dev.dying is set): end the rdma_cm waits. */
static void ibpost_cm_dev_removing(struct ibpost_dev *dev)
{
	wake_up_all(&ibpost_cm_wq);
}

static struct ibpost_dev_listener ibpost_cm_listener = {
	.removing = ibpost_cm_dev_removing,
};

/**
 * ibpost_cm_init() - have device removal end the rdma_cm waits on it.
 *
 * Context: module init, before ibpost_devices_init().
 */
void ibpost_cm_init(void)
{
	ibpost_dev_listen(&ibpost_cm_listener);
}

/**
 * ibpost_cm_exit() - undo ibpost_cm_init().
 *
 * Context: module exit, after ibpost_devices_exit().
 */
void ibpost_cm_exit(void)
{
	ibpost_dev_unlisten(&ibpost_cm_listener);
}

/**
 * ibpost_conn_ini_caps() - the initiator endpoint's queues.
 * @caps: what the job or session asks for.
 * @ec: out.
 */
void ibpost_conn_ini_caps(const struct ibpost_conn_caps *caps,
			  struct ibpost_ep_caps *ec)
{
	memset(ec, 0, sizeof(*ec));
	ec->send_wr = caps->send_wr;
	ec->send_sge = caps->send_sge;
	ec->inline_data = caps->inline_data;
	/* With a peer the initiator also takes the control receives. */
	ec->recv_wr = caps->peer ? caps->recv_wr : max(caps->ini_recv_wr, 1U);
	ec->recv_sge = 1;
	ec->rdma_ctxs = caps->rdma_ctxs;
	ec->poll = caps->softirq ? IB_POLL_SOFTIRQ : IB_POLL_DIRECT;
	ec->cq_vector = caps->cq_vector;
	ec->owner = caps->owner;
}

static void ibpost_cm_release(struct ibpost_ep *ep);

/*
 * The one place an endpoint takes its rdma_cm id and event context: from
 * now on ibpost_ep_destroy() ends them (ibpost_cm_release()), the id only
 * when @owned (a served id is rdma_cm's until accepted).
 */
static void ibpost_cm_attach(struct ibpost_ep *ep, struct rdma_cm_id *id,
			     struct ibpost_cm_ctx *ctx, bool owned)
{
	ep->cm_id = id;
	if (ctx)
		ep->cm_ctx = ctx;
	ep->cm_owned = owned;
	ep->cm_release = ibpost_cm_release;
}

static bool ibpost_cm_pending(struct ibpost_cm_ctx *ctx)
{
	/* pairs with the handler's release: @event and @status are set */
	return smp_load_acquire(&ctx->events) != ctx->taken;
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
	long left;

	/*
	 * Interruptible, not only killable: the tool catches SIGINT to end
	 * its jobs, as a signal ends a running job (job.c).
	 */
	left = wait_event_interruptible_timeout(ibpost_cm_wq,
						ibpost_cm_pending(ctx) ||
						READ_ONCE(ctx->dev->dying),
						msecs_to_jiffies(ms) + HZ / 2);
	if (!ibpost_cm_pending(ctx)) {
		if (READ_ONCE(ctx->dev->dying))
			return -ENODEV;
		return left < 0 ? -EINTR : -ETIMEDOUT;
	}
	ctx->taken++;
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

/*
 * A new context for the events of an id of @ibdev (@ep's, or a listener's
 * with @ep NULL); ERR_PTR(-ENODEV) when the device is going away.
 */
static struct ibpost_cm_ctx *ibpost_cm_ctx_new(struct ibpost_ep *ep,
					       struct ib_device *ibdev)
{
	struct ibpost_cm_ctx *ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return ERR_PTR(-ENOMEM);
	ctx->dev = ibpost_dev_get_by_ibdev(ibdev);
	if (!ctx->dev) {
		kfree(ctx);
		return ERR_PTR(-ENODEV);
	}
	ctx->ep = ep;
	return ctx;
}

/* Free a context (its id destroyed: no handler runs any more). */
static void ibpost_cm_ctx_free(struct ibpost_cm_ctx *ctx)
{
	if (!ctx)
		return;
	ibpost_dev_put(ctx->dev);
	kfree(ctx);
}

/* How a failed wait or step is reported: the signal and the removal first. */
static void ibpost_cm_status(struct ibpost_status *st, int ret, u32 reason,
			     u64 value, u64 limit)
{
	if (ret == -ENODEV)
		ibpost_status_set(st, IBPOST_R_DEVICE_GONE, 0, 0);
	else if (ret != -EINTR)
		ibpost_status_set(st, reason, value, limit);
}

/* A new id for @ctx; the caller owns it. */
static int ibpost_cm_id(struct ibpost_cm_ctx *ctx, struct rdma_cm_id **id)
{
	*id = rdma_create_id(&init_net, ibpost_cm_handler, ctx, RDMA_PS_TCP,
			     IB_QPT_RC);
	if (IS_ERR(*id)) {
		int ret = PTR_ERR(*id);

		*id = NULL;
		return ret;
	}
	return 0;
}

/*
 * Listen on @addr with an ephemeral port (@test_port: that one); the id
 * must be on our device.  The listener's token is drawn here.
 */
static int ibpost_cm_listen(struct ibpost_pair *p,
			    struct sockaddr_storage *dst, u16 test_port)
{
	struct ibpost_cm_ctx *lctx;
	int ret;

	lctx = ibpost_cm_ctx_new(NULL, p->ini.ibdev);
	if (IS_ERR(lctx))
		return PTR_ERR(lctx);
	p->listen_ctx = lctx;
	get_random_bytes(lctx->token, sizeof(lctx->token));
	ret = ibpost_cm_id(lctx, &p->listen);
	if (ret)
		return ret;
	if (dst->ss_family == AF_INET)
		((struct sockaddr_in *)dst)->sin_port = htons(test_port);
	else
		((struct sockaddr_in6 *)dst)->sin6_port = htons(test_port);
	ret = rdma_bind_addr(p->listen, (struct sockaddr *)dst);
	if (ret)
		return ret;
	if (p->listen->device != p->ini.ibdev)
		return -EXDEV;
	ret = rdma_listen(p->listen, 1);
	if (ret)
		return ret;
	/* Connect to the port the listener got. */
	memcpy(dst, &p->listen->route.addr.src_addr, sizeof(*dst));
	return 0;
}

/*
 * Resolve address and route to @dst on a new id of @ep.  A failed step is
 * reported as IBPOST_R_RESOLVE, value 1 (address) or 2 (route), limit the
 * timeout; a route through another device as IBPOST_R_CONNECT.
 */
static int ibpost_cm_resolve(struct ibpost_ep *ep,
			     struct sockaddr_storage *dst,
			     const struct ibpost_conn_caps *caps,
			     struct ibpost_status *st)
{
	struct ibpost_cm_ctx *ctx;
	u32 ms = ibpost_cm_ms(caps);
	struct rdma_cm_id *id;
	int ret;

	ctx = ibpost_cm_ctx_new(ep, ep->ibdev);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ctx->peer = caps->peer;
	ctx->fail_lost = caps->peer && caps->softirq;
	ctx->lost = caps->peer ? caps->lost : NULL;
	ctx->lost_arg = caps->lost_arg;
	/* The context is the endpoint's (freed with it) before the id is. */
	ibpost_cm_attach(ep, NULL, ctx, false);
	ret = ibpost_cm_id(ctx, &id);
	if (ret)
		return ret;
	ibpost_cm_attach(ep, id, ctx, true);
	ret = rdma_resolve_addr(ep->cm_id, NULL, (struct sockaddr *)dst, ms);
	if (!ret)
		ret = ibpost_cm_wait(ctx, RDMA_CM_EVENT_ADDR_RESOLVED, ms);
	if (ret) {
		ibpost_cm_status(st, ret, IBPOST_R_RESOLVE, 1, ms);
		return ret;
	}
	ret = rdma_resolve_route(ep->cm_id, ms);
	if (!ret)
		ret = ibpost_cm_wait(ctx, RDMA_CM_EVENT_ROUTE_RESOLVED, ms);
	if (ret) {
		ibpost_cm_status(st, ret, IBPOST_R_RESOLVE, 2, ms);
		return ret;
	}
	if (ep->cm_id->device != ep->ibdev) {
		ibpost_status_set(st, IBPOST_R_CONNECT, EXDEV, 0);
		return -EXDEV;
	}
	return 0;
}

/**
 * ibpost_cm_qp() - create an endpoint's QP on its rdma_cm id.
 * @ep: the endpoint, its CQ made (ibpost_ep_cq()) and @ep->cm_id set.
 * @ec: its queue sizes.
 *
 * The QP is the id's: ibpost_ep_destroy() frees it with rdma_destroy_qp().
 *
 * Return: 0 or a negative errno.
 */
int ibpost_cm_qp(struct ibpost_ep *ep, const struct ibpost_ep_caps *ec)
{
	struct ib_qp_init_attr init;
	int ret;

	ibpost_ep_qp_attr(ep, ec, &init);
	ret = rdma_create_qp(ep->cm_id, ep->pd, &init);
	if (ret)
		return ret;
	ibpost_ep_qp_set(ep, ep->cm_id->qp, &init);
	return 0;
}

/**
 * ibpost_cm_serve_ep() - the endpoint of a connect request: its CQ, in a
 *	PD of its own or @pd_share's, and its QP on the request's id.
 * @ep: zeroed endpoint to fill.
 * @id: the request's id; the endpoint owns it once accepted
 *	(ibpost_cm_accept()), until then rdma_cm destroys it when the
 *	handler fails.
 * @pd_share: NULL, or the endpoint whose PD this one shares (another
 *	queue of the same session).
 * @ec: queue sizes.
 *
 * Context: the id's handler (or with it locked, rdma_lock_handler()).
 * Return: 0 or a negative errno; on failure ibpost_ep_destroy() frees what
 * was made and leaves the id.
 */
int ibpost_cm_serve_ep(struct ibpost_ep *ep, struct rdma_cm_id *id,
		       struct ibpost_ep *pd_share,
		       const struct ibpost_ep_caps *ec)
{
	int ret;

	ret = ibpost_ep_cq(ep, id->device, pd_share, id->port_num, ec);
	if (ret)
		return ret;
	/* rdma_cm's until accepted (ibpost_cm_accept()). */
	ibpost_cm_attach(ep, id, NULL, false);
	return ibpost_cm_qp(ep, ec);
}

/**
 * ibpost_cm_accept() - accept a connect request on its endpoint, whose QP
 *	exists (ibpost_cm_serve_ep()).
 * @ep: the endpoint; it owns its id from now on.
 * @req: the request's parameters: the responder resources and initiator
 *	depth granted are at most the initiator's, and at most 16.
 *
 * RNR NAKs wait 40 us, not the 655 ms a zero timer would mean.
 *
 * Return: 0 or a negative errno (the id is not the endpoint's then).
 */
int ibpost_cm_accept(struct ibpost_ep *ep, const struct rdma_conn_param *req)
{
	struct rdma_conn_param param;
	int ret;

	ibpost_cm_param(&param);
	param.responder_resources = min_t(u8, param.responder_resources,
					  req->initiator_depth);
	param.initiator_depth = min_t(u8, param.initiator_depth,
				      req->responder_resources);
	ret = rdma_set_min_rnr_timer(ep->cm_id, IB_RNR_TIMER_000_04);
	if (!ret)
		ret = rdma_accept(ep->cm_id, &param);
	if (!ret)
		ep->cm_owned = true;
	return ret;
}

/* The loopback pair's target: its listener's one request, accepted. */
static int ibpost_cm_pair_accept(struct ibpost_pair *p,
				 const struct ibpost_conn_caps *caps,
				 const struct rdma_conn_param *sent)
{
	struct ibpost_cm_ctx *lctx = p->listen_ctx, *ctx;
	struct ibpost_ep_caps ec = {
		.send_wr = caps->target_send_wr,
		.send_sge = 1,
		.recv_wr = caps->recv_wr,
		.recv_sge = caps->recv_sge,
		.poll = IB_POLL_DIRECT,
	};
	int ret;

	ret = ibpost_cm_wait(lctx, RDMA_CM_EVENT_CONNECT_REQUEST,
			     ibpost_cm_ms(caps));
	if (ret)
		return ret;
	ctx = ibpost_cm_ctx_new(&p->tgt, p->tgt.ibdev);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	/* The id is ours now; its handler runs only under this lock. */
	rdma_lock_handler(lctx->req);
	ibpost_cm_attach(&p->tgt, lctx->req, ctx, true);
	p->tgt.cm_id->context = ctx;
	ret = ibpost_cm_qp(&p->tgt, &ec);
	if (!ret)
		ret = ibpost_cm_accept(&p->tgt, sent);
	rdma_unlock_handler(p->tgt.cm_id);
	return ret;
}

/*
 * Unless set-up already failed (@ret), wait for @ep's ESTABLISHED; on
 * failure say why (IBPOST_R_CONNECT: the errno, @limit).
 */
static int ibpost_cm_established(struct ibpost_ep *ep,
				 const struct ibpost_conn_caps *caps, int ret,
				 u64 limit, struct ibpost_status *st)
{
	if (!ret)
		ret = ibpost_cm_wait(ep->cm_ctx, RDMA_CM_EVENT_ESTABLISHED,
				     ibpost_cm_ms(caps));
	if (ret && st->reason == IBPOST_R_NONE)
		ibpost_cm_status(st, ret, IBPOST_R_CONNECT, -ret, limit);
	return ret;
}

/**
 * ibpost_cm_pair() - connect a loopback pair through rdma_cm.
 * @p: pair whose endpoints' CQs exist.
 * @caps: queue sizes.
 * @addr: an IPv4 or IPv6 address of the device (port ignored).
 * @st: failure reason.
 *
 * Context: process context, may sleep (waits for rdma_cm events).
 * Return: 0 or a negative errno (-EINTR on a signal, -ENODEV when the
 * device is going away); on failure ibpost_cm_pair_close() frees
 * what was made.
 */
int ibpost_cm_pair(struct ibpost_pair *p, const struct ibpost_conn_caps *caps,
		   const struct sockaddr_storage *addr,
		   struct ibpost_status *st)
{
	u16 test_port = (u16)ibpost_test_take(pair_test_port);
	struct sockaddr_storage dst = *addr;
	struct ibpost_cm_ctx *lctx;
	struct rdma_conn_param param;
	struct ibpost_ep_caps ec;
	int ret;

	ret = ibpost_cm_listen(p, &dst, test_port);
	if (!ret && test_port)
		msleep_interruptible(IBPOST_CM_TEST_HOLD_MS);
	if (!ret)
		ret = ibpost_cm_resolve(&p->ini, &dst, caps, st);
	if (ret)
		goto out;
	ibpost_conn_ini_caps(caps, &ec);
	ret = ibpost_cm_qp(&p->ini, &ec);
	if (ret)
		goto out;
	ibpost_cm_param(&param);
	lctx = p->listen_ctx;
	param.private_data = lctx->token;
	param.private_data_len = sizeof(lctx->token);
	ret = rdma_connect(p->ini.cm_id, &param);
	if (!ret)
		ret = ibpost_cm_pair_accept(p, caps, &param);
out:
	return ibpost_cm_established(&p->ini, caps, ret, 0, st);
}

/**
 * ibpost_cm_connect() - connect an endpoint to a server.
 * @ep: endpoint whose CQ exists.
 * @caps: queue sizes; @caps->peer gives port, timeout and private data,
 *	and receives a rejection's private data.
 * @addr: the server's IPv4 or IPv6 address (port taken from @caps->peer).
 * @st: failure reason: IBPOST_R_RESOLVE, or IBPOST_R_CONNECT with the
 *	errno as value and the timeout as limit.
 *
 * Context: process context, may sleep up to three timeouts; a signal or
 * the removal of @ep's device ends the wait.
 * Return: 0, -ECONNREFUSED when the server rejected (see @caps->peer->rej),
 * -ETIMEDOUT, -EINTR (a signal), -ENODEV (device removal), or another
 * negative errno; on failure the id is disconnected, and
 * ibpost_ep_destroy() frees it with the rest.
 */
int ibpost_cm_connect(struct ibpost_ep *ep,
		      const struct ibpost_conn_caps *caps,
		      const struct sockaddr_storage *addr,
		      struct ibpost_status *st)
{
	struct sockaddr_storage dst = *addr;
	struct ibpost_conn_peer *peer = caps->peer;
	struct rdma_conn_param param;
	struct ibpost_ep_caps ec;
	int ret;

	if (dst.ss_family == AF_INET)
		((struct sockaddr_in *)&dst)->sin_port = htons(peer->port);
	else
		((struct sockaddr_in6 *)&dst)->sin6_port = htons(peer->port);
	peer->rej_len = 0;
	ret = ibpost_cm_resolve(ep, &dst, caps, st);
	if (ret)
		goto out;
	ibpost_conn_ini_caps(caps, &ec);
	ret = ibpost_cm_qp(ep, &ec);
	if (ret)
		goto out;
	ibpost_cm_param(&param);
	param.private_data = peer->priv;
	param.private_data_len = peer->priv_len;
	ret = rdma_connect(ep->cm_id, &param);
out:
	ret = ibpost_cm_established(ep, caps, ret, ibpost_cm_ms(caps), st);
	if (ret)
		ibpost_cm_disconnect(ep);
	return ret;
}

/**
 * ibpost_cm_disconnect() - disconnect an endpoint's id (none: nothing).
 * @ep: the endpoint; its QP goes to error, its WRs flush (drain it next).
 */
void ibpost_cm_disconnect(struct ibpost_ep *ep)
{
	if (ep->cm_id)
		rdma_disconnect(ep->cm_id);
}

/**
 * ibpost_cm_close() - the one end of an endpoint made through rdma_cm:
 *	disconnect, drain, the owner's frees, destroy.
 * @ep: the endpoint, in any state its setup can leave it: no QP yet, a
 *	connect request not accepted (its id stays rdma_cm's), connected,
 *	lost or in error.
 * @drained: called once the QP has drained, nothing of it can complete
 *	any more: the owner frees what the QP used (receive buffers, MRs,
 *	budget charges); or NULL.
 * @arg: its argument.
 *
 * Only an endpoint that owns its id (accepted, or an initiator's) is
 * disconnected; the QP of one that does not is moved to error by the
 * drain.  The id goes with the endpoint when the endpoint owns it
 * (ibpost_ep_destroy()).
 *
 * Context: process context, may sleep; never from the id's own handler
 * for an endpoint that owns its id (rdma_destroy_id() waits for it).
 */
void ibpost_cm_close(struct ibpost_ep *ep, void (*drained)(void *arg),
		     void *arg)
{
	if (ep->cm_owned)
		ibpost_cm_disconnect(ep);
	ibpost_ep_drain(ep);
	if (drained)
		drained(arg);
	ibpost_ep_destroy(ep);
}

/*
 * The last step of ibpost_ep_destroy() (&ibpost_ep.cm_release): destroy
 * the id the endpoint owns (its QP destroyed already), then its event
 * context.
 */
static void ibpost_cm_release(struct ibpost_ep *ep)
{
	if (ep->cm_id && ep->cm_owned)
		rdma_destroy_id(ep->cm_id);
	ibpost_cm_ctx_free(ep->cm_ctx);
	ep->cm_id = NULL;
	ep->cm_owned = false;
	ep->cm_ctx = NULL;
	ep->cm_release = NULL;
}

/**
 * ibpost_cm_pair_close() - disconnect a pair and free its listener; the
 *	endpoints' ids go with them (ibpost_ep_destroy()).
 * @p: the pair; nothing made through rdma_cm: nothing to do.
 */
void ibpost_cm_pair_close(struct ibpost_pair *p)
{
	struct ibpost_cm_ctx *lctx = p->listen_ctx;

	ibpost_cm_disconnect(&p->ini);
	/* After this no connect request can reach the listener any more. */
	if (p->listen)
		rdma_destroy_id(p->listen);
	if (lctx && lctx->req && lctx->req != p->tgt.cm_id)
		rdma_destroy_id(lctx->req);
	ibpost_cm_disconnect(&p->tgt);
	ibpost_cm_ctx_free(lctx);
	p->listen = NULL;
	p->listen_ctx = NULL;
}
