// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: sessions of the in-kernel API with a peer on another host.
 *
 * A consumer that gives &ibpost_session_attr.peer gets a session connected
 * through rdma_cm to `ibpost serve` there, and a region of the server's
 * memory registered for this session alone (a job with
 * IBPOST_WIRE_SESSION, wire.rst): as many chunks as it needs, one MR each,
 * whose addresses and rkeys the server's answer gives (region.c keeps
 * them).  ibpost_submit() then reads and writes it with IBPOST_REQ_REGION
 * as it would a loopback session's region.  The session's CQ is polled
 * from softirq, so the control channel wakes the opener instead of being
 * polled; closing a live session sends the fin, and the server
 * invalidates the region (a failed one's close does not: the server may
 * keep the region for a resume).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "lib/abi.h"
#include "core/client.h"
#include "core/testhook.h"
#include "session/session.h"
#include "lib/sgl.h"

/* Wait this long for the server's answer to the fin at close. */
#define IBPOST_SPEER_FIN_MS	2000

/**
 * struct ibpost_speer - the peer side of a session.
 * @cl: the client of the server (core/client.c): connect parameters,
 *	hello, the control channel on the session's QP.
 * @addr: the server's address (the other queues connect to it too).
 * @bytes: the region asked for.
 * @remote: &ibpost_session_attr.remote_bytes: the region's one chunk.
 * @timeout_ms: bound on the server's answers.
 * @started: the server accepted the job (a fin is owed, if the session
 *	ends live).
 * @session: the server's number of the session (other queues join it).
 * @generation: its region's generation, from the server's ready.
 * @token: the session's join token, from the server's ready.
 * @resume: the connect request's private data when the session takes a
 *	kept region back (&ibpost_session_attr.resume); its generation is
 *	the one the ready must give.
 * @resuming: @resume is what the connect request carries.
 * @keep_asked: &ibpost_session_attr.keep_s: what the job asks.
 * @keep_s: what the server's ready granted (at most @keep_asked).
 */
struct ibpost_speer {
	struct ibpost_client cl;
	struct sockaddr_storage addr;
	u64 bytes;
	struct ibpost_rdesc remote;
	u32 timeout_ms;
	bool started;
	u32 session;
	u32 generation;
	u8 token[IBPOST_WIRE_TOKEN_LEN];
	struct ibpost_wire_join resume;
	bool resuming;
	u32 keep_asked;
	u32 keep_s;
};

static_assert(IBPOST_WIRE_TOKEN_LEN == IBPOST_SESSION_TOKEN_LEN);

/**
 * struct ibpost_speer_q - another queue of a session with a peer: a
 *	connection that joins the session on the server.
 * @ep: its endpoint (&ibpost_squeue.ep), in queue 0's PD.
 * @cp: connect parameters.
 * @join: private data of its connect request.
 */
struct ibpost_speer_q {
	struct ibpost_ep ep;
	struct ibpost_conn_peer cp;
	struct ibpost_wire_join join;
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
	     attr->peer->ss_family != AF_INET6) ||
	    attr->remote_bytes > IBPOST_MAX_MSG ||
	    attr->depth > IBPOST_WIRE_MAX_DEPTH ||
	    attr->cm_timeout_ms > IBPOST_CM_TIMEOUT_MAX)
		return ERR_PTR(-EINVAL);
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return ERR_PTR(-ENOMEM);
	ibpost_client_caps(&p->cl, attr->depth, 0,
			   ibpost_speer_port(attr->peer), attr->cm_timeout_ms,
			   caps);
	p->cl.hello.flags = cpu_to_be16(IBPOST_WIRE_HELLO_REGION);
	if (attr->resume) {
		/* The region's size and control slots are a new one's. */
		p->resume.hello = p->cl.hello;
		p->resume.hello.flags = cpu_to_be16(IBPOST_WIRE_HELLO_RESUME);
		p->resume.session = cpu_to_be32(attr->resume->session);
		p->resume.generation = cpu_to_be32(attr->resume->generation);
		memcpy(p->resume.token, attr->resume->token,
		       sizeof(p->resume.token));
		p->cl.cp.priv = &p->resume;
		p->cl.cp.priv_len = sizeof(p->resume);
		p->resuming = true;
	}
	p->addr = *attr->peer;
	p->keep_asked = attr->keep_s;
	p->timeout_ms = p->cl.cp.timeout_ms;
	p->bytes = attr->region_bytes ?: PAGE_ALIGN((u64)attr->remote_bytes);
	p->remote.length = attr->remote_bytes;
	/* room for the job and the fin beside the consumer's WRs */
	caps->send_wr += 2;
	return p;
}

/**
 * ibpost_speer_cancelled() - the consumer gave the open up
 *	(&ibpost_session_attr.cancel).
 * @s: a session being opened with a peer.
 *
 * Return: true when the open is to stop.
 */
bool ibpost_speer_cancelled(struct ibpost_session *s)
{
	return s->attr.cancel && s->attr.cancel(s->attr.priv);
}

/*
 * What ends a wait for the server early.  The opener waits before the
 * session is published, and the device's removal waits for it.
 */
static int ibpost_speer_stop(void *arg)
{
	struct ibpost_session *s = arg;

	if (READ_ONCE(s->dev->dying))
		return -ENODEV;
	if (ibpost_speer_cancelled(s))
		return -EINTR;
	return READ_ONCE(s->ep->lost) ? -ECONNRESET : 0;
}

/* The server's answer of @type (NULL: none came; *@err says why). */
static const void *ibpost_speer_answer(struct ibpost_session *s, u16 type,
				       u32 min, u32 ms, u32 *len,
				       struct ibpost_status *st, int *err)
{
	return ibpost_client_answer(&s->peer->cl, s->ep, type, min, ms,
				    ibpost_speer_stop, s, len, st, err);
}

static u32 ibpost_speer_build_job(struct ibpost_session *s)
{
	struct ibpost_wire_job *m = ibpost_client_sbuf(&s->peer->cl);
	u32 len = struct_size(m, sge, 1);

	memset(m, 0, len);
	ibpost_wire_hdr_init(&m->hdr, IBPOST_WIRE_JOB, len, 0);
	m->op = cpu_to_be32(IBPOST_OP_WRITE);
	m->flags = cpu_to_be32(IBPOST_WIRE_SESSION);
	/* The most one request moves: what the server's log shows. */
	m->msg_size = cpu_to_be32(min_t(u64, s->peer->bytes, IBPOST_MAX_MSG));
	m->depth = s->peer->cl.hello.depth;
	m->num_sge = cpu_to_be32(1);
	m->region_bytes = cpu_to_be64(s->peer->bytes);
	m->keep_s = cpu_to_be32(s->peer->keep_asked);
	m->sge[0].length = m->msg_size;
	return len;
}

/* The server refused, or answered wrong: logged, its reason the open's. */
static int ibpost_speer_refused(struct ibpost_session *s,
				const struct ibpost_status *st, u32 *reason,
				int ret)
{
	pr_info("session %u: the server refused: %s (value %llu, limit %llu)\n",
		s->id, ibpost_reason_str(st->reason), st->value, st->limit);
	*reason = st->reason ? st->reason : IBPOST_R_PEER_PROTO;
	return ret;
}

/* The server's region: its chunks, or the refusal (logged). */
static int ibpost_speer_ready(struct ibpost_session *s,
			      const struct ibpost_wire_ready *m, u32 len,
			      struct ibpost_status *st, u32 *reason)
{
	struct ibpost_speer *p = s->peer;
	u32 chunk = 0, n = 0;
	int ret;

	ret = ibpost_wire_st_get(&m->st, st);
	if (!ret)
		ret = ibpost_wire_ready_region_check(m, len, p->bytes, &chunk,
						     &n, st);
	/* remote_bytes: the region is one chunk, one descriptor. */
	if (!ret && s->attr.remote_bytes && n != 1) {
		ibpost_status_set(st, IBPOST_R_FRPL, s->attr.remote_bytes,
				  chunk);
		ret = -EINVAL;
	}
	/*
	 * A session's region has a generation; a resume's must be the one
	 * it asked for, else these chunks do not hold its data.
	 */
	if (!ret && !m->generation) {
		ibpost_status_set(st, IBPOST_R_PEER_PROTO,
				  offsetof(struct ibpost_wire_ready, generation),
				  0);
		ret = -EPROTO;
	}
	if (!ret)
		ret = ibpost_wire_ready_keep_check(m, p->keep_asked,
						   &p->keep_s, st);
	if (!ret && p->resuming && m->generation != p->resume.generation) {
		ibpost_status_set(st, IBPOST_R_REGION_LOST,
				  be32_to_cpu(p->resume.session),
				  be32_to_cpu(p->resume.generation));
		ret = -ESTALE;
	}
	if (ret)
		return ibpost_speer_refused(s, st, reason, ret);
	p->remote.addr = be64_to_cpu(m->slot[0].addr);
	p->remote.rkey = be32_to_cpu(m->slot[0].rkey);
	p->session = be32_to_cpu(m->session);
	p->generation = be32_to_cpu(m->generation);
	memcpy(p->token, m->token, sizeof(p->token));
	ret = ibpost_region_remote(s, p->bytes, chunk, n, m->slot);
	if (ret)
		*reason = IBPOST_R_NOMEM;
	return ret;
}

/* Control slots for the answer: chunks are at least 4 KiB (lib/wire.c). */
static size_t ibpost_speer_ctl_size(const struct ibpost_speer *p)
{
	return ibpost_ctl_size(min_t(u64, IBPOST_WIRE_MAX_CHUNKS,
				     DIV_ROUND_UP_ULL(p->bytes, SZ_4K)));
}

/**
 * ibpost_speer_start() - ask the server for the session's region.
 * @s: a session just connected to its peer.
 * @reason: out: IBPOST_R_* on failure (the server's, when it refused).
 *
 * Context: process context; sleeps up to the timeout.
 * Return: 0, or the server's refusal (logged with its reason, value and
 * limit), -EPROTO for a malformed answer, -ETIMEDOUT, -ECONNRESET, -EIO,
 * -ENOMEM.
 */
int ibpost_speer_start(struct ibpost_session *s, u32 *reason)
{
	struct ibpost_speer *p = s->peer;
	struct ibpost_status st = {};
	const void *m = NULL;
	u32 len;
	int ret;

	ret = ibpost_client_open(&p->cl, s->ep, ibpost_speer_ctl_size(p));
	if (!ret)
		ret = ibpost_client_send(&p->cl, ibpost_speer_build_job(s));
	if (!ret)
		m = ibpost_speer_answer(s, IBPOST_WIRE_READY,
					ibpost_wire_ready_size(0),
					p->timeout_ms, &len, &st, &ret);
	if (!m) {
		*reason = ret == -ENOMEM ? IBPOST_R_NOMEM :
			  ret == -ETIMEDOUT ? IBPOST_R_TIMEOUT :
			  ret == -ENODEV ? IBPOST_R_DEVICE_GONE :
			  IBPOST_R_PEER_LOST;
		return ret;
	}
	if (!ret)
		ret = ibpost_speer_ready(s, m, len, &st, reason);
	else
		ret = ibpost_speer_refused(s, &st, reason, ret);
	ibpost_client_release(&p->cl, m, true);
	p->started = !ret;
	return ret;
}

/*
 * Whether the close of @s is the session's normal end, which the fin
 * tells the server: the session is LIVE, and not a resume that failed in
 * its open.  Under @s->lock, which ERROR and DEAD are set under (and
 * @published): a failure that comes after this check does not stop the
 * fin of a session its consumer closed while it was live.
 */
static bool ibpost_speer_fin_owed(struct ibpost_session *s)
{
	unsigned long flags;
	bool owed;

	spin_lock_irqsave(&s->lock, flags);
	owed = s->state == IBPOST_S_LIVE &&
	       (s->published || !s->peer->resuming);
	spin_unlock_irqrestore(&s->lock, flags);
	return owed;
}

/**
 * ibpost_speer_fin() - tell the server the session ends (close), when it
 *	ends on its consumer's word.
 * @s: the session; nothing of the consumer is in flight any more.
 *
 * The server takes the fin as the session's normal end: it invalidates
 * the region and frees it, ``--keep`` or not.  Its answer is awaited
 * briefly, so that it has done so before the QP goes away.
 *
 * So the fin goes only for a session that is LIVE (issue 42).  One that
 * failed (ERROR: an error completion, a failed post, a queue's lost
 * connection, ibpost_session_fail()) or died (DEAD) ends without it: the
 * server sees its connections go and, with ``--keep``, keeps the region
 * for a resume.  Before, an ERROR session sent it: ibpost_session_error()
 * only schedules the QPs' move to error, so a consumer closing on the
 * error event (ibpost_blk's reconnect) could send the fin on queue 0's
 * still working QP after queue 1 was lost, and the server freed the
 * region it would have kept.  The state is read under @s->lock, which
 * ibpost_session_error() and the session's death set it under.  Nor does
 * a resume (&ibpost_session_attr.resume) that failed in its open (a queue
 * that could not join, say) send it: the server has the kept region
 * running again, and its next loss keeps it for the next attempt.  A new
 * session that failed in its open does: its region holds nothing, and the
 * fin gives the server's memory back at once.
 *
 * Under @s->reg_lock: the device's removal may kill the session at any
 * moment (ibpost_sessions_lose()), and its death frees the control
 * channel and the endpoints under that lock.  A death that came first
 * left the session DEAD (no fin then); one that comes during the fin
 * waits for it (it has marked the device dying, which ends the wait for
 * the answer at once).  Before, the fin read @s->ep and the channel while
 * the removal freed them.
 */
void ibpost_speer_fin(struct ibpost_session *s)
{
	struct ibpost_speer *p = s->peer;
	struct ibpost_status st = {};
	const void *m;
	u32 len;
	int ret;

	if (!p)
		return;
	mutex_lock(&s->reg_lock);
	if (!p->started || !ibpost_speer_fin_owed(s))
		goto out;
	ibpost_test_hold("session closer", session_test_fin_ms);
	p->started = false;
	if (ibpost_test_take_if(session_test_nofin, 1)) {
		pr_info("test hook: session %u closed without its fin\n",
			p->session);
		goto out;
	}
	if (ibpost_client_fin(&p->cl, 0))
		goto out;
	/* Its account is not read: only that the server has ended. */
	m = ibpost_speer_answer(s, IBPOST_WIRE_RESULT, 0, IBPOST_SPEER_FIN_MS,
				&len, &st, &ret);
	if (m)
		ibpost_client_release(&p->cl, m, false);
out:
	mutex_unlock(&s->reg_lock);
}

/**
 * ibpost_speer_resumed() - whether the server took a kept region back for
 *	this session (&ibpost_session_attr.resume) and answered with its
 *	ready.
 * @s: the session.
 *
 * Context: the opener's (before the session is published).
 * Return: true if so: the ready's token is new, and the one the resume
 * was asked with takes the region back no more.
 */
bool ibpost_speer_resumed(const struct ibpost_session *s)
{
	return s->peer && s->peer->resuming && s->peer->generation;
}

/**
 * ibpost_speer_queue() - connect another queue of a session with a peer.
 * @s: the session, started (ibpost_speer_start()).
 * @q: the queue to fill: its endpoint joins the session on the server.
 * @caps: the session's queue sizes, with the queue's completion vector
 *	and queue 0's endpoint as @caps->pd_share.
 * @st: failure reason (the server's, when it refused the join).
 *
 * Context: process context, may sleep.
 * Return: 0, or a negative errno with nothing left allocated.
 */
int ibpost_speer_queue(struct ibpost_session *s, struct ibpost_squeue *q,
		       const struct ibpost_conn_caps *caps,
		       struct ibpost_status *st)
{
	struct ibpost_speer *p = s->peer;
	struct ibpost_conn_caps qc = *caps;
	struct ibpost_speer_q *pq;
	int ret;

	pq = kzalloc(sizeof(*pq), GFP_KERNEL);
	if (!pq)
		return -ENOMEM;
	pq->cp = p->cl.cp;
	pq->cp.rej_len = 0;
	pq->join.hello = p->cl.hello;
	pq->join.hello.flags = cpu_to_be16(IBPOST_WIRE_HELLO_JOIN);
	pq->join.hello.recv_sge = 0;
	pq->join.session = cpu_to_be32(p->session);
	memcpy(pq->join.token, p->token, sizeof(pq->join.token));
	pq->cp.priv = &pq->join;
	pq->cp.priv_len = sizeof(pq->join);
	qc.peer = &pq->cp;
	ret = ibpost_peer_ep_create(&pq->ep, s->dev->ibdev, s->attr.port, &qc,
				    &p->addr, st);
	if (ret) {
		/* The server's reason (JOIN_MAX, PEER_BUSY ...), logged. */
		if (ibpost_wire_reject_get(pq->cp.rej, pq->cp.rej_len, st))
			pr_info("ibpost: session %u: the server refused queue %u: %s (value %llu, limit %llu)\n",
				s->id, q->idx, ibpost_reason_str(st->reason),
				st->value, st->limit);
		kfree(pq);
		return ret;
	}
	q->ep = &pq->ep;
	return 0;
}

/**
 * ibpost_speer_queue_free() - disconnect and free a queue of
 *	ibpost_speer_queue().
 * @q: the queue, drained; its endpoint is gone afterwards.
 */
void ibpost_speer_queue_free(struct ibpost_squeue *q)
{
	struct ibpost_speer_q *pq;

	if (!q->ep)
		return;
	pq = container_of(q->ep, struct ibpost_speer_q, ep);
	ibpost_peer_ep_destroy(&pq->ep);
	kfree(pq);
	q->ep = NULL;
}

/**
 * ibpost_speer_release() - free the control channel (QP flushed).
 * @s: the session.
 */
void ibpost_speer_release(struct ibpost_session *s)
{
	if (s->peer)
		ibpost_client_close(&s->peer->cl);
}

/**
 * ibpost_speer_rejected() - the server's reason for refusing queue 0's
 *	connection, if it gave one.
 * @p: the peer state of a session whose connect failed.
 * @st: the connect's status, replaced by the server's reason.
 */
void ibpost_speer_rejected(const struct ibpost_speer *p,
			   struct ibpost_status *st)
{
	ibpost_client_rejected(&p->cl, st);
}

/**
 * ibpost_speer_free() - free the peer state.
 * @p: from ibpost_speer_new(), or NULL.
 */
void ibpost_speer_free(struct ibpost_speer *p)
{
	kfree_sensitive(p);
}

/**
 * ibpost_session_get_resume() - what takes a session's region back.
 * @s: a session with a peer and a region (&ibpost_session_attr.region_bytes).
 * @out: the server's number of the session, its region's generation, the
 *	session's token and the keep time the server granted, for
 *	&ibpost_session_attr.resume of a session
 *	opened once this one's connections were lost (and it was closed).
 *
 * Read it while the session is open: closing frees it.  The token is a
 * secret; the caller wipes its copy (memzero_explicit()) when done.
 *
 * Context: any.
 * Return: 0, or -ENOENT for a session without a peer or a region.
 */
int ibpost_session_get_resume(struct ibpost_session *s,
			      struct ibpost_session_resume *out)
{
	struct ibpost_speer *p = s->peer;

	if (!p || s->attr.remote_bytes || !p->generation)
		return -ENOENT;
	out->session = p->session;
	out->generation = p->generation;
	memcpy(out->token, p->token, sizeof(out->token));
	out->keep_s = p->keep_s;
	return 0;
}
EXPORT_SYMBOL_GPL(ibpost_session_get_resume);

/**
 * ibpost_session_remote() - the server's region of a session with a peer.
 * @s: the session.
 * @desc: out: address, rkey and length to give ibpost_submit() requests
 *	(&ibpost_req.remote).
 *
 * For a session opened with &ibpost_session_attr.remote_bytes, whose
 * region is one chunk; a region of &ibpost_session_attr.region_bytes is
 * reached with IBPOST_REQ_REGION.
 *
 * Context: any.
 * Return: 0, or -ENOENT for a session without a peer or without
 * remote_bytes.
 */
int ibpost_session_remote(struct ibpost_session *s, struct ibpost_rdesc *desc)
{
	if (!s->peer || !s->attr.remote_bytes)
		return -ENOENT;
	*desc = s->peer->remote;
	return 0;
}
EXPORT_SYMBOL_GPL(ibpost_session_remote);
