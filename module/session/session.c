// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: sessions: a connected QP pair a kernel consumer keeps open.
 *
 * A session is the connection layer of a job (ep.c, pair.c, cm.c, mr.c)
 * with the initiator's CQ polled from softirq, so that requests submitted by
 * any thread complete through their own callbacks (submit.c).  It lives
 * until its consumer closes it; when its device goes away first, every
 * outstanding request is completed with -ENODEV, every device resource is
 * freed so that the removal can finish, and the consumer is told
 * (IBPOST_EV_LOST); only the empty shell then waits for
 * ibpost_session_close().
 *
 * A session may have several queues, each initiator's CQ from the pool on
 * its own completion vector, every QP in queue 0's PD (one trust domain:
 * the region's rkeys work on each).  A loopback session's queues are a
 * pair each, with a local region (region.c) as the far end of their
 * requests; a session with a peer's are connections to the same server,
 * the others joining queue 0's session there (session/peer.c), all addressing
 * the server's one region.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "core/live.h"
#include "session/session.h"
#include "core/testhook.h"
#include "core/trace.h"
#include "session/trace.h"

static LIST_HEAD(ibpost_sessions);
/*
 * Where a failed session's error work runs (ibpost_session_queue_err()).
 * WQ_MEM_RECLAIM: a block driver closes its sessions from its own reclaim
 * workqueue (ibpost_blk's error work), and a session's death flushes this
 * work; flushing a work of the system workqueue from a reclaim one would
 * break the reclaim workqueue's guarantee of progress (the kernel warns:
 * check_flush_dependency(), seen in make check-long's errq1 row).
 */
static struct workqueue_struct *ibpost_session_wq;
/* The list, session deaths, device removal against opening. */
static DEFINE_MUTEX(ibpost_sessions_lock);
static u32 ibpost_session_next_id;

static struct ibpost_dev *ibpost_session_dev(const struct ibpost_session_attr *a)
{
	if (a->dev_name)
		return ibpost_dev_get_by_name(a->dev_name);
	return a->ibdev ? ibpost_dev_get_by_ibdev(a->ibdev) : NULL;
}

/* A loopback pair of a session's queue, or ERR_PTR(). */
static struct ibpost_pair *
ibpost_session_pair_new(struct ib_device *ibdev, u32 port,
			const struct ibpost_conn_caps *caps,
			const struct sockaddr_storage *addr,
			struct ibpost_status *st)
{
	struct ibpost_pair *p = kzalloc(sizeof(*p), GFP_KERNEL);
	int ret;

	if (!p)
		return ERR_PTR(-ENOMEM);
	ret = ibpost_pair_create(p, ibdev, port, caps, addr, st);
	if (ret) {
		kfree(p);
		return ERR_PTR(ret);
	}
	return p;
}

/*
 * The session's endpoint: one connected to a server (@caps->peer), or the
 * initiator of a loopback pair.
 */
static int ibpost_session_connect(struct ibpost_session *s,
				  struct ibpost_dev *dev, u32 port,
				  const struct ibpost_conn_caps *caps,
				  const struct sockaddr_storage *addr,
				  struct ibpost_status *st)
{
	int ret;

	if (caps->peer) {
		ret = ibpost_peer_ep_create(&s->pep, dev->ibdev, port, caps,
					    addr, st);
		if (!ret)
			s->ep = &s->pep;
		return ret;
	}
	s->pair = ibpost_session_pair_new(dev->ibdev, port, caps, addr, st);
	if (IS_ERR(s->pair)) {
		ret = PTR_ERR(s->pair);
		s->pair = NULL;
		return ret;
	}
	s->ep = &s->pair->ini;
	return 0;
}

/* Drain every queue: each posted WR completes. */
static void ibpost_session_drain(struct ibpost_session *s)
{
	u32 i;

	for (i = 0; i < s->nr_queues; i++) {
		if (s->queues[i].pair)
			ibpost_pair_drain(s->queues[i].pair);
		else if (s->queues[i].ep)
			ibpost_ep_drain(s->queues[i].ep);
	}
}

/* Flush and free the session's endpoints (drained first). */
static void ibpost_session_disconnect(struct ibpost_session *s)
{
	u32 i;

	/* Queue 0's PD is every queue's: the others go first. */
	for (i = s->nr_queues - 1; i > 0; i--) {
		if (!s->queues[i].pair) {
			ibpost_ep_drain(s->queues[i].ep);
			ibpost_speer_queue_free(&s->queues[i]);
			continue;
		}
		ibpost_pair_drain(s->queues[i].pair);
		ibpost_pair_destroy(s->queues[i].pair);
		kfree(s->queues[i].pair);
		s->queues[i].pair = NULL;
		s->queues[i].ep = NULL;
	}
	s->queues[0].ep = NULL;
	s->queues[0].pair = NULL;
	if (s->pair) {
		ibpost_pair_drain(s->pair);
		ibpost_pair_destroy(s->pair);
		kfree(s->pair);
		s->pair = NULL;
	} else if (s->ep) {
		ibpost_ep_drain(s->ep);
		ibpost_peer_ep_destroy(s->ep);
	}
	s->ep = NULL;
}

/*
 * The session failed (ibpost_session_error()): every queue's QP to error,
 * so that what is outstanding on each flushes now.  A request whose post
 * failed part-way (ibpost_req_orphan()) has no last WR to end it: once
 * the send queues have drained, the WRs it did post have all completed,
 * and it completes here with its post's error, not only at the close.
 * (A later orphan queues this work again; the session's death flushes it
 * and ends any left.)
 */
static void ibpost_session_err_work(struct work_struct *work)
{
	struct ibpost_session *s = container_of(work, struct ibpost_session,
						err_work);
	struct ibpost_req *req, *tmp;
	unsigned long flags;
	LIST_HEAD(orphans);
	u32 i;

	ibpost_test_hold("session error work", session_test_flush_ms);
	for (i = 0; i < s->nr_queues; i++)
		ibpost_ep_set_error(s->queues[i].ep);
	spin_lock_irqsave(&s->lock, flags);
	list_splice_init(&s->orphans, &orphans);
	spin_unlock_irqrestore(&s->lock, flags);
	if (list_empty(&orphans))
		return;
	for (i = 0; i < s->nr_queues; i++)
		ibpost_ep_drain_sq(s->queues[i].ep);
	list_for_each_entry_safe(req, tmp, &orphans, node) {
		list_del_init(&req->node);
		ibpost_req_complete(s, req, req->rw.status);
	}
}

/**
 * ibpost_session_create() - a session on a device with the given queues.
 * @dev: the device; the session takes its own reference.
 * @port: port number (valid).
 * @caps: queue sizes and the initiator CQ's polling (softirq or direct).
 * @addr: connect through rdma_cm to this address of the device, or NULL.
 * @st: failure reason.
 *
 * The one constructor of sessions: ibpost_session_open() for consumers
 * (softirq CQ, ibpost_submit()), and ibpost_run() for a job, which polls
 * the initiator CQ itself and posts its own WR chains on the session's QP
 * between ibpost_session_enter() and ibpost_session_leave().
 *
 * The session is not yet known to device removal: its creator completes
 * it, then ibpost_session_publish()es it (or closes it).  Until then
 * nothing but the creator uses it, and the device's removal waits for the
 * creator (whose rdma_cm and control waits end when the device is dying).
 *
 * Context: process context, may sleep.
 * Return: the session or ERR_PTR() (-ENODEV: the device is going away).
 */
struct ibpost_session *
ibpost_session_create(struct ibpost_dev *dev, u32 port,
		      const struct ibpost_conn_caps *caps,
		      const struct sockaddr_storage *addr,
		      struct ibpost_status *st)
{
	struct ibpost_conn_caps c;
	struct ib_port_attr pattr;
	struct ibpost_session *s;
	int ret;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return ERR_PTR(-ENOMEM);
	/* The resource tracking keeps a pointer: the session's own copy. */
	strscpy(s->owner, caps->owner ?: KBUILD_MODNAME, sizeof(s->owner));
	c = *caps;
	c.owner = s->owner;
	ret = ib_query_port(dev->ibdev, port, &pattr);
	if (ret)
		goto err_free;
	ibpost_dev_get(dev);
	s->dev = dev;
	s->attr.ibdev = dev->ibdev;
	s->attr.port = port;
	s->attr.depth = caps->send_wr;
	s->max_msg = pattr.max_msg_sz;
	spin_lock_init(&s->lock);
	spin_lock_init(&s->lat_lock);
	init_waitqueue_head(&s->wq);
	INIT_WORK(&s->err_work, ibpost_session_err_work);
	INIT_LIST_HEAD(&s->node);
	INIT_LIST_HEAD(&s->orphans);
	INIT_LIST_HEAD(&s->regs);
	mutex_init(&s->reg_lock);
	/* A consumer's queue the server disconnects fails the session. */
	if (c.softirq) {
		c.lost = ibpost_session_lost;
		c.lost_arg = s;
	}
	ret = ibpost_session_connect(s, dev, port, &c, addr, st);
	if (ret)
		goto err_put;
	s->max_sge = min(caps->send_sge, s->ep->granted.max_send_sge);
	s->q0.s = s;
	s->q0.ep = s->ep;
	s->q0.pair = s->pair;
	spin_lock_init(&s->q0.lock);
	s->q0.sq_free = caps->send_wr;
	s->queues = &s->q0;
	s->nr_queues = 1;
	return s;

err_put:
	ibpost_dev_put(dev);
	mutex_destroy(&s->reg_lock);
err_free:
	kfree(s);
	return ERR_PTR(ret);
}

/**
 * ibpost_session_publish() - make a complete session known to device
 *	removal (ibpost_sessions_lose(), the registry's listener).
 * @s: a session from ibpost_session_create(), complete: from now on its
 *	device's removal may end it at any time, and tells @s->attr.event.
 *
 * Context: process context.
 * Return: 0, or -ENODEV when the device is already going away (then only
 * ibpost_session_close() remains to be done).
 */
int ibpost_session_publish(struct ibpost_session *s)
{
	/* Device removal sets dying, then walks this list under the lock. */
	mutex_lock(&ibpost_sessions_lock);
	if (READ_ONCE(s->dev->dying)) {
		mutex_unlock(&ibpost_sessions_lock);
		return -ENODEV;
	}
	s->id = ibpost_session_next_id++;
	list_add_tail(&s->node, &ibpost_sessions);
	spin_lock_irq(&s->lock);
	s->published = true;
	spin_unlock_irq(&s->lock);
	mutex_unlock(&ibpost_sessions_lock);
	trace_ibpost_session(s, IBPOST_S_LIVE, 0);
	return 0;
}

/**
 * ibpost_session_enter() - become a poster the session's death waits for.
 * @s: a live session.
 *
 * For a job that posts on the session's QP itself: while entered, device
 * removal does not tear the QP down; it marks the device dying and waits
 * for ibpost_session_leave().
 *
 * Return: false when the session is no longer live.
 */
bool ibpost_session_enter(struct ibpost_session *s)
{
	struct ibpost_squeue *q = &s->queues[0];
	unsigned long flags;
	bool live;

	/* As a request's reservation: queue 0's lock (submit.c). */
	spin_lock_irqsave(&q->lock, flags);
	live = READ_ONCE(s->state) == IBPOST_S_LIVE;
	if (live)
		q->posting++;
	spin_unlock_irqrestore(&q->lock, flags);
	return live;
}

/**
 * ibpost_session_leave() - undo ibpost_session_enter().
 * @s: the session.
 */
void ibpost_session_leave(struct ibpost_session *s)
{
	struct ibpost_squeue *q = &s->queues[0];
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	q->posting--;
	/* Under the lock: a dying session checks @posting under it. */
	wake_up_all(&s->wq);
	spin_unlock_irqrestore(&q->lock, flags);
}

/* A loopback queue: a pair like queue 0's. */
static int ibpost_session_pair_queue(struct ibpost_session *s,
				     struct ibpost_squeue *q,
				     const struct ibpost_conn_caps *caps,
				     struct ibpost_status *st)
{
	struct ibpost_pair *p;

	p = ibpost_session_pair_new(s->dev->ibdev, s->attr.port, caps, NULL,
				    st);
	if (IS_ERR(p))
		return PTR_ERR(p);
	q->pair = p;
	q->ep = &p->ini;
	return 0;
}

/*
 * Queues 1 to @n - 1: pairs like queue 0's (loopback) or connections that
 * join its session on the server (a peer), in its PD, each initiator's CQ
 * on completion vector i modulo the device's.
 */
static int ibpost_session_queues(struct ibpost_session *s, u32 n,
				 const struct ibpost_conn_caps *caps,
				 struct ibpost_status *st)
{
	struct ibpost_conn_caps qc = *caps;
	struct ibpost_squeue *q;
	u32 i, vecs = max(s->dev->ibdev->num_comp_vectors, 1);
	int ret;

	q = kcalloc(n, sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	/* Nothing uses queue 0 while its session opens: a copy will do. */
	q[0] = s->q0;
	spin_lock_init(&q[0].lock);
	s->queues = q;
	qc.pd_share = s->ep;
	qc.owner = s->owner;
	qc.lost = ibpost_session_lost;
	qc.lost_arg = s;
	for (i = 1; i < n; i++) {
		qc.cq_vector = 1 + i % vecs;
		q[i].s = s;
		q[i].idx = i;
		spin_lock_init(&q[i].lock);
		if (s->peer)
			ibpost_test_hold("session queue", session_test_queue_ms);
		if (s->peer && ibpost_speer_cancelled(s)) {
			ibpost_status_set(st, IBPOST_R_PEER_LOST, i, n);
			return -EINTR;
		}
		if (s->peer)
			ret = ibpost_speer_queue(s, &q[i], &qc, st);
		else
			ret = ibpost_session_pair_queue(s, &q[i], &qc, st);
		if (ret)
			return ret;
		q[i].sq_free = q[0].sq_free;
		/* Counted: the session's death drains and frees it. */
		s->nr_queues = i + 1;
	}
	return 0;
}

/* Refuse the attributes: *@attr->reason and the errno. */
static struct ibpost_session *
ibpost_session_refuse(const struct ibpost_session_attr *attr, u32 reason,
		      int err)
{
	if (trace_ibpost_refuse_enabled()) {
		struct ibpost_status st;

		ibpost_status_set(&st, reason, 0, 0);
		trace_ibpost_refuse(&st, err);
	}
	if (attr->reason)
		*attr->reason = reason;
	return ERR_PTR(err);
}

/* Check what needs no device; 0 or the refusal. */
static int ibpost_session_check(const struct ibpost_session_attr *attr,
				u32 *reason)
{
	*reason = IBPOST_R_FLAGS;
	if (attr->flags)
		return -EINVAL;
	*reason = IBPOST_R_DEPTH;
	if (!attr->depth)
		return -EINVAL;
	*reason = IBPOST_R_QUEUE;
	if (attr->nr_queues > IBPOST_SESSION_QUEUES_MAX)
		return -EINVAL;
	*reason = IBPOST_R_BUF_SIZE;
	if (!PAGE_ALIGNED(attr->region_bytes))
		return -EINVAL;
	/* A local region is this host's memory; a peer's, the server's. */
	if (!attr->peer &&
	    attr->region_bytes > ((u64)totalram_pages() << PAGE_SHIFT) / 2)
		return -EINVAL;
	if (attr->peer && !attr->region_bytes == !attr->remote_bytes)
		return -EINVAL;
	/* Taking a region back: a server's, of the size it had. */
	if (attr->resume && (!attr->peer || !attr->region_bytes))
		return -EINVAL;
	/* Only a region a resume can take back is worth keeping. */
	if (attr->keep_s && (!attr->peer || !attr->region_bytes))
		return -EINVAL;
	*reason = IBPOST_R_COUNT;
	if (attr->lat_samples > IBPOST_LAT_SAMPLES_MAX)
		return -EINVAL;
	*reason = IBPOST_R_NONE;
	return 0;
}

/*
 * What a consumer's session has beyond a job's: more queues, the region,
 * the latency ring, the limits.  0 or the errno, *@reason set.
 */
static int ibpost_session_extend(struct ibpost_session *s,
				 const struct ibpost_session_attr *attr,
				 const struct ibpost_conn_caps *caps,
				 u32 *reason)
{
	struct ibpost_status st = {};
	int ret;

	if (attr->nr_queues > 1 && !s->peer) {
		ret = ibpost_session_queues(s, attr->nr_queues, caps, &st);
		if (ret) {
			*reason = st.reason ? st.reason : IBPOST_R_NOMEM;
			return ret;
		}
	}
	if (attr->region_bytes && !attr->peer) {
		ret = ibpost_region_create(s, attr->region_bytes, reason);
		if (ret)
			return ret;
	}
	ret = ibpost_session_lat_init(s, attr->lat_samples ?:
				      IBPOST_LAT_SAMPLES_DEFAULT);
	if (ret) {
		*reason = IBPOST_R_NOMEM;
		return ret;
	}
	/*
	 * A peer's region: the server's answer gives it, and the session's
	 * number and token the other queues join it with.
	 */
	if (s->peer)
		ret = ibpost_speer_start(s, reason);
	if (!ret && s->peer && attr->nr_queues > 1) {
		ret = ibpost_session_queues(s, attr->nr_queues, caps, &st);
		if (ret)
			*reason = st.reason ? st.reason : IBPOST_R_NOMEM;
	}
	if (!ret)
		ibpost_session_limits_init(s);
	return ret;
}

/**
 * ibpost_session_open() - connect a session on a device.
 * @attr: device, port, depth, queues, region and limits (copied).
 *
 * Loopback: each queue's QPs are on @attr's device, connected directly
 * (iWARP: through rdma_cm); with @attr->peer, one QP connected to
 * ``ibpost serve`` there.
 *
 * An open that fails part-way closes what it built.  A new session's
 * close sends the fin (the server frees its empty region at once); that
 * of a resume (@attr->resume) does not: the server keeps the region
 * again, for the next attempt to take back.  A resume that failed after
 * the server took the region back for it writes the server's new token
 * to *@attr->resume: the old one no longer takes the region back.
 *
 * Context: process context, may sleep.
 * Return: the session, or ERR_PTR() with *@attr->reason set: -EINVAL for
 * bad attributes (flags: IBPOST_R_FLAGS; depth 0 or above max_qp_wr - 1:
 * IBPOST_R_DEPTH; a port the device lacks: IBPOST_R_PORT; queues:
 * IBPOST_R_QUEUE; a region size: IBPOST_R_BUF_SIZE; lat_samples:
 * IBPOST_R_COUNT; with a peer, not exactly one of region_bytes and
 * remote_bytes: IBPOST_R_BUF_SIZE), -ENODEV for an unknown or departing device
 * (IBPOST_R_NO_DEVICE; also when it goes while opening), -EINTR when a
 * signal ended the rdma_cm connect, -ENOMEM (IBPOST_R_NOMEM), the server's
 * refusal with its reason (IBPOST_R_SRV_MEM: past its memory budget), or
 * -EPROTO for a malformed answer (IBPOST_R_PEER_PROTO), or the verbs'
 * error.
 */
struct ibpost_session *
ibpost_session_open(const struct ibpost_session_attr *attr)
{
	struct ibpost_conn_caps caps = {
		.target_send_wr = IBPOST_MR_CHAIN,
		.softirq = true,
		.owner = attr ? attr->owner : NULL,
	};
	struct ibpost_speer *peer = NULL;
	struct ibpost_status st = {};
	const struct ib_device_attr *da;
	struct ibpost_session *s;
	struct ibpost_dev *dev;
	u32 port, reason;
	int ret;

	if (!attr)
		return ERR_PTR(-EINVAL);
	ret = ibpost_session_check(attr, &reason);
	if (ret)
		return ibpost_session_refuse(attr, reason, ret);
	dev = ibpost_session_dev(attr);
	if (!dev)
		return ibpost_session_refuse(attr, IBPOST_R_NO_DEVICE, -ENODEV);
	da = &dev->info.attrs;
	port = attr->port ? attr->port : dev->info.start_port;
	if (da->max_qp_wr < 2 || attr->depth > (u32)da->max_qp_wr - 1) {
		s = ibpost_session_refuse(attr, IBPOST_R_DEPTH, -EINVAL);
		goto out;
	}
	if (!rdma_is_port_valid(dev->ibdev, port)) {
		s = ibpost_session_refuse(attr, IBPOST_R_PORT, -EINVAL);
		goto out;
	}
	/* One slot more: registrations post on the session's endpoint. */
	caps.send_wr = attr->depth + 1;
	/*
	 * Every MR rdma_rw takes comes with its REG_MR and RDMA WR, both in
	 * the slots reserved before: half the depth never runs the QP's MR
	 * pool dry.
	 */
	caps.rdma_ctxs = max(attr->depth / 2, 1U);
	caps.send_sge = da->max_send_sge;
	if (attr->max_sge)
		caps.send_sge = min_t(u32, attr->max_sge, da->max_send_sge);
	/* Several queues: each on a vector of its own, queue 0 on the first. */
	if (attr->nr_queues > 1)
		caps.cq_vector = 1;
	if (attr->peer) {
		peer = ibpost_speer_new(attr, &caps);
		if (IS_ERR(peer)) {
			s = ibpost_session_refuse(attr, PTR_ERR(peer) == -ENOMEM ?
						  IBPOST_R_NOMEM :
						  IBPOST_R_BUF_SIZE,
						  PTR_ERR(peer));
			goto out;
		}
	}
	s = ibpost_session_create(dev, port, &caps, attr->peer, &st);
	if (IS_ERR(s)) {
		if (peer)
			ibpost_speer_rejected(peer, &st);
		ibpost_speer_free(peer);
		s = ibpost_session_refuse(attr, st.reason ? st.reason :
					  IBPOST_R_CONNECT, PTR_ERR(s));
		goto out;
	}
	/* All of it before the session is published: its event too. */
	s->attr = *attr;
	s->attr.dev_name = NULL;
	s->attr.ibdev = dev->ibdev;
	s->attr.port = port;
	s->attr.peer = NULL;
	s->attr.reason = NULL;
	s->attr.resume = NULL;
	s->attr.owner = s->owner;
	s->peer = peer;
	/* The control messages' slots are not the consumer's. */
	s->q0.sq_free = attr->depth;
	reason = IBPOST_R_NONE;
	ret = ibpost_session_extend(s, attr, &caps, &reason);
	if (!ret && peer)
		ibpost_test_hold("session opener",
				 session_test_publish_ms);
	if (!ret)
		ret = ibpost_session_publish(s);
	if (ret) {
		/*
		 * A resume the server answered: its ready gave a new token,
		 * the only one that takes the region back from now on, so the
		 * caller gets it.  The close sends no fin (ibpost_speer_fin()):
		 * the server keeps the region again for the next attempt.
		 */
		if (attr->resume && ibpost_speer_resumed(s))
			ibpost_session_get_resume(s, attr->resume);
		ibpost_session_close(s);
		if (ret == -ENODEV && reason == IBPOST_R_NONE)
			reason = IBPOST_R_DEVICE_GONE;
		s = ibpost_session_refuse(attr, reason, ret);
	}
out:
	ibpost_dev_put(dev);
	return s;
}
EXPORT_SYMBOL_GPL(ibpost_session_open);

/*
 * No submitter left in any queue; each queue's counts under its lock,
 * taken after the session's state was set (the submitters read it under
 * the same lock).
 */
static bool ibpost_session_idle(struct ibpost_session *s)
{
	struct ibpost_squeue *q;
	unsigned long flags;
	bool idle = true;
	u32 i;

	for (i = 0; i < s->nr_queues && idle; i++) {
		q = &s->queues[i];
		spin_lock_irqsave(&q->lock, flags);
		idle = !q->posting && !q->waiting;
		spin_unlock_irqrestore(&q->lock, flags);
	}
	return idle;
}

/*
 * End a session's traffic for good: refuse submissions, wake those waiting
 * for room and wait for them and those in ib_post_send() to leave, flush
 * the QPs (each outstanding request's callback runs
 * with @err or its own error), complete the requests whose post failed
 * part-way, free the registrations' MRs and mappings, the QPs and CQs, and
 * drop the device.  Called with ibpost_sessions_lock held.
 */
static void ibpost_session_kill(struct ibpost_session *s, int err)
{
	struct ibpost_req *req, *tmp;
	unsigned long flags;
	LIST_HEAD(orphans);

	spin_lock_irqsave(&s->lock, flags);
	if (s->state == IBPOST_S_DEAD) {
		spin_unlock_irqrestore(&s->lock, flags);
		return;
	}
	WRITE_ONCE(s->state, IBPOST_S_DEAD);
	WRITE_ONCE(s->kill_err, err);
	spin_unlock_irqrestore(&s->lock, flags);
	trace_ibpost_session(s, IBPOST_S_DEAD, err);
	wake_up_all(&s->wq);
	wait_event(s->wq, ibpost_session_idle(s));
	/* Queued only by submitters, who have all left. */
	flush_work(&s->err_work);

	mutex_lock(&s->reg_lock);
	ibpost_session_drain(s);
	ibpost_speer_release(s);
	ibpost_regs_release(s);
	ibpost_region_release(s);
	mutex_unlock(&s->reg_lock);

	spin_lock_irqsave(&s->lock, flags);
	list_splice_init(&s->orphans, &orphans);
	spin_unlock_irqrestore(&s->lock, flags);
	list_for_each_entry_safe(req, tmp, &orphans, node) {
		list_del_init(&req->node);
		ibpost_req_complete(s, req, req->rw.status);
	}
	ibpost_session_disconnect(s);
	ibpost_dev_put(s->dev);
	s->dev = NULL;
}

/**
 * ibpost_session_close() - end a session and free it.
 * @s: the session; invalid afterwards, as are its registrations.
 *
 * Requests still outstanding complete first, with -ECANCELED (or their own
 * error), each exactly once; registrations not yet given back with
 * ibpost_unreg() are freed.  Also for a session whose device is gone.
 * Submitters still waiting for send-queue room in ibpost_submit() are
 * woken and return -ENOTCONN before the session is freed; a submission
 * that starts after (or races with) the close is the caller's bug.
 *
 * A session with a peer: the close of a live session is its normal end,
 * and the fin tells the server so, which frees the region.  A session
 * that failed (IBPOST_EV_ERROR: an error completion, a queue's lost
 * connection, ibpost_session_fail()) or lost its device is closed without
 * the fin: its connections just go, and a server with ``--keep`` keeps
 * the region for a resume (&ibpost_session_attr.resume).  Whether the
 * session is live is decided under the lock its failure takes: a failure
 * after that does not stop the fin (ibpost_speer_fin()).
 *
 * Context: process context, may sleep; not from a callback.
 */
void ibpost_session_close(struct ibpost_session *s)
{
	struct ibpost_mreg *m, *tmp;

	ibpost_speer_fin(s);
	mutex_lock(&ibpost_sessions_lock);
	list_del_init(&s->node);
	ibpost_session_kill(s, -ECANCELED);
	mutex_unlock(&ibpost_sessions_lock);
	ibpost_speer_free(s->peer);
	list_for_each_entry_safe(m, tmp, &s->regs, node) {
		list_del(&m->node);
		kfree(m);
	}
	mutex_destroy(&s->reg_lock);
	kfree(s->region);
	ibpost_session_lat_free(s);
	if (s->queues != &s->q0)
		kfree(s->queues);
	kfree(s);
}
EXPORT_SYMBOL_GPL(ibpost_session_close);

/**
 * ibpost_session_priv() - the @priv the session was opened with.
 * @s: the session.
 *
 * Context: any.
 * Return: &ibpost_session_attr.priv.
 */
void *ibpost_session_priv(struct ibpost_session *s)
{
	return s->attr.priv;
}
EXPORT_SYMBOL_GPL(ibpost_session_priv);

/**
 * ibpost_session_get_stats() - a copy of a session's counters.
 * @s: the session.
 * @out: filled (each queue's counters read under its lock, added up),
 *	percentiles computed.
 *
 * Context: any.
 */
void ibpost_session_get_stats(struct ibpost_session *s,
			      struct ibpost_session_stats *out)
{
	struct ibpost_squeue *q;
	unsigned long flags;
	u32 i, k;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < s->nr_queues; i++) {
		q = &s->queues[i];
		spin_lock_irqsave(&q->lock, flags);
		out->requests += q->stats.requests;
		out->completed += q->stats.completed;
		out->bytes += q->stats.bytes;
		out->wrs += q->stats.wrs;
		out->errors += q->stats.errors;
		out->sq_full += q->stats.sq_full;
		for (k = 0; k < IBPOST_WC_STATUS_MAX; k++)
			out->wc_status[k] += q->stats.wc_status[k];
		spin_unlock_irqrestore(&q->lock, flags);
	}
	out->inflight = out->requests - out->completed;
	/* Percentiles off the live histograms, outside the locks. */
	ibpost_session_lat_stats(s, out);
}
EXPORT_SYMBOL_GPL(ibpost_session_get_stats);

/**
 * ibpost_session_fail() - put a session in error on the consumer's word.
 * @s: the session.
 *
 * Every queue's QP goes to the error state: each outstanding request
 * completes (its callback runs) with -EIO, submissions are refused with
 * -EIO from now on, and the consumer hears IBPOST_EV_ERROR (from this
 * call).  For a consumer whose request timed out: the device is not
 * answering, and this is how its requests are given back.  Nothing to do
 * for a session that failed already (its error work moves the QPs) or is
 * dead (closed or its device gone).
 *
 * No lock but the session's own: a block driver's timeout handler calls
 * this in kblockd, which must not wait behind another session's close
 * (ibpost_sessions_lock is held across a whole death).
 *
 * Context: process context, may sleep (ib_modify_qp()); not from a
 * callback.
 */
void ibpost_session_fail(struct ibpost_session *s)
{
	u32 i;

	/* Entered, the session's death waits before it frees the QPs. */
	if (!ibpost_session_enter(s))
		return;
	ibpost_session_error(s);
	/* A test build's late flush leaves the move to the error work. */
	if (!ibpost_test_read(session_test_flush_ms))
		for (i = 0; i < s->nr_queues; i++)
			ibpost_ep_set_error(s->queues[i].ep);
	ibpost_session_leave(s);
}
EXPORT_SYMBOL_GPL(ibpost_session_fail);

/**
 * ibpost_session_error() - a queue failed: the whole session fails.
 * @s: the session.
 *
 * Called on the first error completion of any queue (softirq), a failed
 * post, a queue's lost connection or ibpost_session_fail().  Submissions
 * are refused from now on, every queue's QP goes to error (in a work
 * item: ib_modify_qp() may sleep), so that what is outstanding on any
 * queue flushes at once, and the consumer hears IBPOST_EV_ERROR once.
 * As nvme-rdma's controller, a session does not go on with some queues.
 */
void ibpost_session_error(struct ibpost_session *s)
{
	unsigned long flags;
	bool first;

	spin_lock_irqsave(&s->lock, flags);
	first = s->state == IBPOST_S_LIVE;
	if (first) {
		WRITE_ONCE(s->state, IBPOST_S_ERROR);
		/* Before DEAD, under the lock: the death flushes the work. */
		ibpost_session_queue_err(s);
	}
	spin_unlock_irqrestore(&s->lock, flags);
	if (!first)
		return;
	trace_ibpost_session(s, IBPOST_S_ERROR, 0);
	wake_up_all(&s->wq);
	if (s->attr.event)
		s->attr.event(s, IBPOST_EV_ERROR);
}

/**
 * ibpost_session_lost() - a queue's connection to the server ended.
 * @arg: the session (&ibpost_conn_caps.lost_arg).
 *
 * The server disconnected one of the session's connections (or all of
 * them: its serve ended): the session fails as a whole
 * (ibpost_session_error()), whether or not that queue had requests
 * outstanding.  A session not yet published is its opener's, whose waits
 * see the loss themselves.
 *
 * Context: the queue's rdma_cm handler (the session's death destroys the
 * queue's id, which waits for the handler: @arg stays valid).
 */
void ibpost_session_lost(void *arg)
{
	struct ibpost_session *s = arg;
	unsigned long flags;
	bool live;

	spin_lock_irqsave(&s->lock, flags);
	live = s->published && s->state == IBPOST_S_LIVE;
	spin_unlock_irqrestore(&s->lock, flags);
	if (!live)
		return;
	pr_info("session %u: a connection to the server ended: the session fails\n",
		s->id);
	ibpost_session_error(s);
}

/*
 * A device is going (the registry's listener): end its sessions.
 * @dev is already marked dying.
 * Every session on it completes its requests with -ENODEV, frees what it
 * holds on the device and drops its reference, then its consumer gets
 * IBPOST_EV_LOST.
 *
 * Context: process context (the ib_client remove callback).
 */
static void ibpost_sessions_lose(struct ibpost_dev *dev)
{
	struct ibpost_session *s;

	mutex_lock(&ibpost_sessions_lock);
	list_for_each_entry(s, &ibpost_sessions, node) {
		if (s->dev != dev)
			continue;
		ibpost_session_kill(s, -ENODEV);
		if (s->attr.event)
			s->attr.event(s, IBPOST_EV_LOST);
	}
	mutex_unlock(&ibpost_sessions_lock);
}

static struct ibpost_dev_listener ibpost_sessions_listener = {
	.removing = ibpost_sessions_lose,
};

static const char *const ibpost_state_names[] = {
	[IBPOST_S_LIVE] = "live",
	[IBPOST_S_ERROR] = "error",
	[IBPOST_S_DEAD] = "dead",
};

static int ibpost_sessions_show(struct seq_file *m, void *unused)
{
	struct ibpost_session_stats st;
	struct ibpost_session *s;
	char name[IBPOST_NAME_MAX];

	mutex_lock(&ibpost_sessions_lock);
	list_for_each_entry(s, &ibpost_sessions, node) {
		ibpost_session_get_stats(s, &st);
		if (s->dev)
			ibpost_dev_name(s->dev, name, sizeof(name));
		else
			strscpy(name, "-", sizeof(name));
		seq_printf(m, "session %u dev %s state %s depth %u max_sge %u requests %llu completed %llu inflight %llu bytes %llu wrs %llu errors %llu sq_full %llu lat_p50_ns %llu lat_p99_ns %llu lat_p999_ns %llu\n",
			   s->id, name, ibpost_state_names[s->state],
			   s->attr.depth, s->max_sge, st.requests,
			   st.completed, st.inflight, st.bytes, st.wrs,
			   st.errors, st.sq_full, st.lat_p50_ns,
			   st.lat_p99_ns, st.lat_p999_ns);
	}
	mutex_unlock(&ibpost_sessions_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ibpost_sessions);

/**
 * ibpost_session_queue_err() - queue a failed session's error work.
 * @s: the session (its @err_work).
 *
 * Context: any.
 */
void ibpost_session_queue_err(struct ibpost_session *s)
{
	queue_work(ibpost_session_wq, &s->err_work);
}

/**
 * ibpost_sessions_init() - the sessions' error workqueue; have device
 *	removal end the sessions on it and add the "sessions" file to
 *	ibpost's debugfs (ibpost_live_dir()).
 *
 * Context: module init, after ibpost_cm_init() (a device's sessions end
 * once its rdma_cm waits ended) and before ibpost_devices_init().
 * Return: 0 or -ENOMEM.
 */
int ibpost_sessions_init(void)
{
	ibpost_session_wq = alloc_workqueue("ibpost_session", WQ_MEM_RECLAIM,
					    0);
	if (!ibpost_session_wq)
		return -ENOMEM;
	ibpost_dev_listen(&ibpost_sessions_listener);
	debugfs_create_file("sessions", 0400, ibpost_live_dir(), NULL,
			    &ibpost_sessions_fops);
	return 0;
}

/**
 * ibpost_sessions_exit() - undo ibpost_sessions_init().
 *
 * Context: module exit, after ibpost_devices_exit() (no device is left)
 * and before ibpost_live_exit() removes the debugfs directory.
 */
void ibpost_sessions_exit(void)
{
	ibpost_dev_unlisten(&ibpost_sessions_listener);
	/* No session is left: nothing queues the work any more. */
	destroy_workqueue(ibpost_session_wq);
}
