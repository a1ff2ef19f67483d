// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: sessions of the in-kernel API with a peer on another host.
 *
 * A consumer that gives &ibpost_session_attr.peer gets a session connected
 * through rdma_cm to `ibpost serve` there, and a region of the server's
 * memory registered for this session alone (a job with
 * IBPOST_WIRE_SESSION, wire.rst).  ibpost_submit() then reads and writes it
 * as it would a local registration.  The session's CQ is polled from
 * softirq, so the control channel wakes the opener instead of being polled;
 * closing sends the fin, and the server invalidates the region.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "abi.h"
#include "ctl.h"
#include "session.h"
#include "sgl.h"

/* Wait this long for the server's answer to the fin at close. */
#define IBPOST_SPEER_FIN_MS	2000

/**
 * struct ibpost_speer - the peer side of a session.
 * @cp: connect parameters.
 * @hello: private data of the connect request.
 * @ctl: control channel on the session's QP.
 * @remote: the server's region.
 * @timeout_ms: bound on the server's answers.
 * @started: the server accepted the job (a fin is owed).
 */
struct ibpost_speer {
	struct ibpost_conn_peer cp;
	struct ibpost_wire_hello hello;
	struct ibpost_ctl ctl;
	struct ibpost_rdesc remote;
	u32 timeout_ms;
	bool started;
};

static u16 ibpost_speer_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)ss)->sin_port);
	return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
}

/**
 * ibpost_speer_new() - the peer side of a session being opened.
 * @attr: the consumer's attributes (@attr->peer set).
 * @caps: the session's queues, completed for the control channel.
 *
 * Return: the new state, or ERR_PTR(-EINVAL) for a bad address or size,
 * ERR_PTR(-ENOMEM).
 */
struct ibpost_speer *ibpost_speer_new(const struct ibpost_session_attr *attr,
				      struct ibpost_conn_caps *caps)
{
	struct ibpost_speer *p;

	if ((attr->peer->ss_family != AF_INET &&
	     attr->peer->ss_family != AF_INET6) || !attr->remote_bytes ||
	    attr->remote_bytes > IBPOST_MAX_MSG ||
	    attr->depth > IBPOST_WIRE_MAX_DEPTH ||
	    attr->cm_timeout_ms > IBPOST_CM_TIMEOUT_MAX)
		return ERR_PTR(-EINVAL);
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return ERR_PTR(-ENOMEM);
	ibpost_ctl_connect_caps(&p->cp, &p->hello, attr->depth, 0,
				ibpost_speer_port(attr->peer),
				attr->cm_timeout_ms, caps);
	p->timeout_ms = p->cp.timeout_ms;
	p->remote.length = attr->remote_bytes;
	/* room for the job and the fin beside the consumer's WRs */
	caps->send_wr += 2;
	return p;
}

/* Checks of the wait below: the device's removal is not a wake-up. */
#define IBPOST_SPEER_CHECK_MS	50

/*
 * Wait (woken by the control channel) for a message or the end.  The
 * opener waits here before the session is published, and the device's
 * removal waits for it: the wait looks at the device's dying flag every
 * IBPOST_SPEER_CHECK_MS.
 */
static int ibpost_speer_wait(struct ibpost_session *s, u32 ms)
{
	struct ibpost_ctl *ctl = &s->peer->ctl;
	unsigned long end = jiffies + msecs_to_jiffies(ms);
	long left = 1;

	while (!READ_ONCE(s->dev->dying) && time_before(jiffies, end)) {
		left = wait_event_timeout(s->ep->wq,
					  READ_ONCE(ctl->msg) >= 0 ||
					  READ_ONCE(ctl->wc_status) !=
					  IB_WC_SUCCESS ||
					  READ_ONCE(s->ep->lost),
					  msecs_to_jiffies(IBPOST_SPEER_CHECK_MS));
		if (left)
			break;
	}
	if (READ_ONCE(ctl->msg) >= 0)
		return 0;
	if (READ_ONCE(ctl->wc_status) != IB_WC_SUCCESS)
		return -EIO;
	if (READ_ONCE(s->dev->dying))
		return -ENODEV;
	return left ? -ECONNRESET : -ETIMEDOUT;
}

static u32 ibpost_speer_build_job(struct ibpost_session *s)
{
	struct ibpost_wire_job *m = ibpost_ctl_sbuf(&s->peer->ctl);
	u32 len = struct_size(m, sge, 1);

	memset(m, 0, len);
	ibpost_wire_hdr_init(&m->hdr, IBPOST_WIRE_JOB, len, 0);
	m->op = cpu_to_be32(IBPOST_OP_WRITE);
	m->flags = cpu_to_be32(IBPOST_WIRE_SESSION);
	m->msg_size = cpu_to_be32(s->peer->remote.length);
	m->depth = s->peer->hello.depth;
	m->num_sge = cpu_to_be32(1);
	m->sge[0].length = m->msg_size;
	return len;
}

static int ibpost_speer_ready(struct ibpost_session *s,
			      const struct ibpost_wire_ready *m, u32 len)
{
	struct ibpost_speer *p = s->peer;
	struct ibpost_status st = {};
	int ret;

	ret = ibpost_wire_hdr_check(&m->hdr, len, IBPOST_WIRE_READY, &st);
	if (!ret && len < ibpost_wire_ready_size(1))
		ret = -EPROTO;
	if (!ret)
		ret = ibpost_wire_st_get(&m->st, &st);
	if (!ret && (be32_to_cpu(m->nslots) != 1 ||
		     be32_to_cpu(m->slot[0].length) < p->remote.length))
		ret = -EPROTO;
	if (ret) {
		pr_info("ibpost: session %u: the server refused: %s (value %llu, limit %llu)\n",
			s->id, ibpost_reason_str(st.reason), st.value,
			st.limit);
		return ret;
	}
	p->remote.addr = be64_to_cpu(m->slot[0].addr);
	p->remote.rkey = be32_to_cpu(m->slot[0].rkey);
	return 0;
}

/**
 * ibpost_speer_start() - ask the server for the session's region.
 * @s: a session just connected to its peer.
 *
 * Context: process context; sleeps up to the timeout.
 * Return: 0, or the server's refusal (logged with its reason), -ETIMEDOUT,
 * -ECONNRESET, -EIO.
 */
int ibpost_speer_start(struct ibpost_session *s)
{
	struct ibpost_speer *p = s->peer;
	const void *m;
	u32 len;
	int ret;

	ret = ibpost_ctl_init(&p->ctl, s->ep, ibpost_ctl_size(1),
			      IBPOST_CTL_RX);
	if (!ret)
		ret = ibpost_ctl_send(&p->ctl, ibpost_speer_build_job(s), false,
				      0);
	if (!ret)
		ret = ibpost_speer_wait(s, p->timeout_ms);
	if (ret)
		return ret;
	m = ibpost_ctl_take(&p->ctl, &len);
	ret = ibpost_speer_ready(s, m, len);
	ibpost_ctl_release(&p->ctl, m, true);
	p->started = !ret;
	return ret;
}

/**
 * ibpost_speer_fin() - tell the server the session ends (close).
 * @s: the session; nothing of the consumer is in flight any more.
 *
 * The server invalidates the region when the fin arrives; its answer is
 * awaited briefly, so that it has done so before the QP goes away.
 */
void ibpost_speer_fin(struct ibpost_session *s)
{
	struct ibpost_speer *p = s->peer;
	const void *m;
	u32 len;

	if (!p || !p->started || s->state == IBPOST_S_DEAD)
		return;
	p->started = false;
	if (ibpost_ctl_send(&p->ctl, 0, true, 0) ||
	    ibpost_speer_wait(s, IBPOST_SPEER_FIN_MS))
		return;
	m = ibpost_ctl_take(&p->ctl, &len);
	ibpost_ctl_release(&p->ctl, m, false);
}

/**
 * ibpost_speer_release() - free the control channel (QP flushed).
 * @s: the session.
 */
void ibpost_speer_release(struct ibpost_session *s)
{
	if (s->peer)
		ibpost_ctl_free(&s->peer->ctl);
}

/**
 * ibpost_speer_free() - free the peer state.
 * @p: from ibpost_speer_new(), or NULL.
 */
void ibpost_speer_free(struct ibpost_speer *p)
{
	kfree(p);
}

/**
 * ibpost_session_remote() - the server's region of a session with a peer.
 * @s: the session.
 * @desc: out: address, rkey and length to give ibpost_submit() requests
 *	(&ibpost_req.remote).
 *
 * Context: any.
 * Return: 0, or -ENOENT for a session without a peer.
 */
int ibpost_session_remote(struct ibpost_session *s, struct ibpost_rdesc *desc)
{
	if (!s->peer)
		return -ENOENT;
	*desc = s->peer->remote;
	return 0;
}
EXPORT_SYMBOL_GPL(ibpost_session_remote);
