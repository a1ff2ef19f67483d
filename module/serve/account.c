// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: what a server counts and tells: the events its owner reads
 * (IBPOST_IOC_SERVE), the memory and MRs its connections hold against its
 * budget, and the refusal of a connect request with its reason.  The
 * listener (serve.c), its connections (conn.c) and joins (join.c) all
 * report here; this file calls none of them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/ib_cm.h>

#include "lib/abi.h"
#include "serve/serve.h"
#include "core/trace.h"

/**
 * ibpost_srv_event() - queue an event for the file's owner.
 * @srv: the server.
 * @ev: the event (copied).
 *
 * Context: process context.
 */
void ibpost_srv_event(struct ibpost_server *srv,
		      const struct ibpost_serve_event *ev)
{
	struct ibpost_srv_ev *e = kmalloc(sizeof(*e), GFP_KERNEL);

	trace_ibpost_srv(ev);
	spin_lock(&srv->ev_lock);
	if (!e || srv->nevents >= IBPOST_SRV_EVENTS_MAX) {
		srv->dropped++;
		spin_unlock(&srv->ev_lock);
		kfree(e);
		return;
	}
	e->ev = *ev;
	list_add_tail(&e->node, &srv->events);
	srv->nevents++;
	spin_unlock(&srv->ev_lock);
	wake_up_interruptible(&srv->ev_wq);
}

/**
 * ibpost_srv_peer() - put a client's address into an event.
 * @ev: the event.
 * @sa: the address (AF_INET or AF_INET6; any other leaves @ev as it is).
 */
void ibpost_srv_peer(struct ibpost_serve_event *ev, const struct sockaddr *sa)
{
	const struct sockaddr_in *in4 = (const void *)sa;
	const struct sockaddr_in6 *in6 = (const void *)sa;

	if (sa->sa_family == AF_INET) {
		memcpy(ev->peer, &in4->sin_addr, sizeof(in4->sin_addr));
		ev->port = ntohs(in4->sin_port);
	} else if (sa->sa_family == AF_INET6) {
		memcpy(ev->peer, &in6->sin6_addr, sizeof(in6->sin6_addr));
		ev->port = ntohs(in6->sin6_port);
	} else {
		return;
	}
	ev->peer_family = sa->sa_family;
}

/**
 * ibpost_srv_same_addr() - the same host address (ports aside)?
 * @a: an address a connection came from.
 * @b: another.
 *
 * Return: true for the same family and address.
 */
bool ibpost_srv_same_addr(const struct sockaddr_storage *a,
			  const struct sockaddr *b)
{
	const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)a;
	const struct sockaddr_in6 *b6 = (const struct sockaddr_in6 *)b;
	const struct sockaddr_in *a4 = (const struct sockaddr_in *)a;
	const struct sockaddr_in *b4 = (const struct sockaddr_in *)b;

	if (a->ss_family != b->sa_family)
		return false;
	if (a->ss_family == AF_INET)
		return a4->sin_addr.s_addr == b4->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return ipv6_addr_equal(&a6->sin6_addr, &b6->sin6_addr);
	return false;
}

/**
 * ibpost_srv_addr_slots() - the slots of --max-per-addr the client at
 *	@addr holds.
 * @srv: the server, its @lock held.
 * @addr: the client's address.
 *
 * Each unfinished connection of the address counts (a kept session's
 * too) with the connections that joined it (a join must come from its
 * session's address: ibpost_srv_join()), and so does each connect request
 * of the address being set up (&ibpost_server.rsvs).  The caller takes its
 * own slot (a reservation or a join) before it drops @lock: the check and
 * the insert are one critical section, whichever listener the request
 * came in on.
 *
 * Return: the slots.
 */
u32 ibpost_srv_addr_slots(struct ibpost_server *srv,
			  const struct sockaddr *addr)
{
	struct ibpost_srv_rsv *r;
	struct ibpost_sconn *sc;
	u32 n = 0;

	lockdep_assert_held(&srv->lock);
	list_for_each_entry(sc, &srv->conns, node)
		if (!sc->finished && ibpost_srv_same_addr(&sc->peer, addr))
			n += 1 + sc->njoins;
	list_for_each_entry(r, &srv->rsvs, node)
		if (ibpost_srv_same_addr(&r->addr, addr))
			n++;
	return n;
}

/**
 * ibpost_srv_conn_event() - queue an event about a connection.
 * @sc: the connection.
 * @kind: IBPOST_SRV_*.
 * @err: negative errno or 0.
 * @st: reason, value and limit (may be NULL).
 */
void ibpost_srv_conn_event(struct ibpost_sconn *sc, u32 kind, int err,
			   const struct ibpost_status *st)
{
	struct ibpost_serve_event ev = {
		.kind = kind,
		.conn = sc->num,
		.err = err,
		.op = sc->op,
		.msg_size = sc->msg_size,
		.depth = sc->depth,
		.nslots = sc->target.buf.nslots,
		.msgs = sc->target.msgs,
		.bytes = sc->target.bytes,
		.verify_errors = sc->target.mm.count,
		.wc_status = sc->target.wc_status != IB_WC_SUCCESS ?
			     sc->target.wc_status : sc->ctl.wc_status,
	};

	if (st) {
		ev.reason = st->reason;
		ev.value = st->value;
		ev.limit = st->limit;
	}
	if (sc->id)
		ibpost_srv_peer(&ev, (struct sockaddr *)
				&sc->id->route.addr.dst_addr);
	ibpost_srv_event(sc->srv, &ev);
}

/**
 * ibpost_srv_finished() - a connection's thread is done with it.
 * @sc: the connection (its resources freed).
 */
void ibpost_srv_finished(struct ibpost_sconn *sc)
{
	struct ibpost_server *srv = sc->srv;

	mutex_lock(&srv->lock);
	sc->finished = true;
	mutex_unlock(&srv->lock);
	/* The release cancels the work only after every thread stopped. */
	schedule_work(&srv->reap_work);
}

/**
 * ibpost_srv_charge() - take a job's memory and MRs from the server's budget.
 * @sc: the connection (holds nothing yet).
 * @bytes: memory the job's slots pin, as allocated (ibpost_buf_pinned()).
 * @mrs: memory registrations they need.
 * @st: the refusal: IBPOST_R_SRV_MEM with what all jobs would hold and the
 *	budget (@limit is the MR budget when MRs ran out).
 *
 * Checked before anything is allocated, so that no remote client can make
 * the server pin more than its budget, whatever the other clients hold.
 *
 * Return: 0 or -ENOMEM.
 */
int ibpost_srv_charge(struct ibpost_sconn *sc, u64 bytes, u32 mrs,
		      struct ibpost_status *st)
{
	struct ibpost_server *srv = sc->srv;
	u32 max_mrs = min_t(u32, IBPOST_SRV_MRS,
			    max(sc->ep.ibdev->attrs.max_mr / 2, 1));
	int ret = 0;

	mutex_lock(&srv->lock);
	if (srv->pinned + bytes > srv->max_mem) {
		ibpost_status_set(st, IBPOST_R_SRV_MEM, srv->pinned + bytes,
				  srv->max_mem);
		ret = -ENOMEM;
	} else if ((u64)srv->mrs + mrs > max_mrs) {
		ibpost_status_set(st, IBPOST_R_SRV_MEM, (u64)srv->mrs + mrs,
				  max_mrs);
		ret = -ENOMEM;
	} else {
		srv->pinned += bytes;
		srv->mrs += mrs;
		sc->charged = bytes;
		sc->charged_mrs = mrs;
	}
	mutex_unlock(&srv->lock);
	return ret;
}

/**
 * ibpost_srv_uncharge() - give back what ibpost_srv_charge() and the
 *	connect request took.
 * @sc: the connection; its slots, MRs and control slots are freed.
 */
void ibpost_srv_uncharge(struct ibpost_sconn *sc)
{
	struct ibpost_server *srv = sc->srv;

	mutex_lock(&srv->lock);
	srv->pinned -= sc->charged + sc->charged_ctl;
	srv->mrs -= sc->charged_mrs;
	sc->charged = 0;
	sc->charged_ctl = 0;
	sc->charged_mrs = 0;
	mutex_unlock(&srv->lock);
}

/**
 * ibpost_srv_reject() - refuse a connect request with the reason.
 * @id: the request's new id (its context the server).
 * @err: negative errno.
 * @reason: enum ibpost_reason.
 * @value: the offending value.
 * @limit: the limit it broke.
 *
 * The client reads the reason in the rejection's private data; the owner
 * of the server gets an IBPOST_SRV_REFUSED event.
 *
 * Return: 1: the connect request handler returns it, and rdma_cm destroys
 * the id.
 */
int ibpost_srv_reject(struct rdma_cm_id *id, int err, u32 reason, u64 value,
		      u64 limit)
{
	struct ibpost_wire_reject rej = {
		.magic = cpu_to_be32(IBPOST_WIRE_MAGIC),
		.version = cpu_to_be16(IBPOST_WIRE_VERSION),
		.reason = cpu_to_be32(reason),
		.err = cpu_to_be32(-err),
		.value = cpu_to_be64(value),
		.limit = cpu_to_be64(limit),
	};
	struct ibpost_server *srv = id->context;
	struct ibpost_serve_event ev = {
		.kind = IBPOST_SRV_REFUSED,
		.err = err,
		.reason = reason,
		.value = value,
		.limit = limit,
	};

	ibpost_srv_peer(&ev, (struct sockaddr *)&id->route.addr.dst_addr);
	rdma_reject(id, &rej, sizeof(rej), IB_CM_REJ_CONSUMER_DEFINED);
	ibpost_srv_event(srv, &ev);
	return 1;
}
