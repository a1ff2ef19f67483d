// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: `ibpost serve`: connections that join a session (its other
 * queues, Documentation/wire.rst).
 *
 * A session's first connection gets its region and, in the ready, the
 * session's number and a random token.  Each other queue of the client's
 * session connects with a join (IBPOST_WIRE_HELLO_JOIN) naming both.  The
 * connect request handler checks the join against the live sessions
 * before it allocates anything: the session must exist, be a session,
 * still be running, come from the session's address, and the token must
 * match (crypto_memneq()); the session's connections are capped (the
 * server's per-address limit), so are its address's (a join is one more
 * connection of that address: ibpost_srv_addr_slots()) and so are the
 * server's (--max-conns).  An accepted join gets a QP in the session's
 * PD, so the region's rkeys work on it and no other's do; it has no job,
 * no control channel and no thread.  A joined connection that is lost is
 * freed by the session's thread within a round of its wait, which gives
 * its slot back (the client may join that queue again); the session's
 * teardown disconnects and frees the rest, after the region's MRs were
 * invalidated.
 *
 * Test hooks: serve_test_drop_join disconnects one joined connection of a
 * running session, as a fabric losing that one connection would, so that
 * the client's handling of one lost queue can be seen (peer-blk.sh);
 * serve_test_join_fail_ms fails the next join after its QP was made and
 * holds its failure path where it wakes the session, while the session
 * may be ending.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/algapi.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "serve/serve.h"
#include "core/testhook.h"

/**
 * ibpost_srv_session() - the connection numbered @num.
 * @srv: the server, its @lock held.
 * @num: a number a client sent (a join's or a resume's session).
 *
 * Return: the connection, or NULL; whether it is a session is the
 * caller's to check (&ibpost_sconn.has_token).
 */
struct ibpost_sconn *ibpost_srv_session(struct ibpost_server *srv, u32 num)
{
	struct ibpost_sconn *sc;

	list_for_each_entry(sc, &srv->conns, node)
		if (sc->num == num)
			return sc;
	return NULL;
}

/**
 * ibpost_srv_session_auth() - may this request speak for a session (join
 *	it, or take its region back)?
 * @sc: the session (srv->lock held).
 * @id: the request's id.
 * @j: its private data.
 * @st: out: the refusal.
 *
 * The session's address only: the token is sent in cleartext, and a join
 * or a resume is a connection of the address it comes from (its slot of
 * --max-per-addr stays that address's).  The address before the token:
 * another host learns nothing of it.
 *
 * Return: 0, or -EACCES with IBPOST_R_PEER_DENIED or IBPOST_R_JOIN_TOKEN.
 */
int ibpost_srv_session_auth(const struct ibpost_sconn *sc,
			    const struct rdma_cm_id *id,
			    const struct ibpost_wire_join *j,
			    struct ibpost_status *st)
{
	u32 num = be32_to_cpu(j->session);

	if (!ibpost_srv_same_addr(&sc->peer, (const struct sockaddr *)
				  &id->route.addr.dst_addr)) {
		ibpost_status_set(st, IBPOST_R_PEER_DENIED, num, 0);
		return -EACCES;
	}
	if (crypto_memneq(sc->token, j->token, sizeof(sc->token))) {
		ibpost_status_set(st, IBPOST_R_JOIN_TOKEN, num, 0);
		return -EACCES;
	}
	return 0;
}

/*
 * May @j join a session now (srv->lock held)?  The session, or NULL with
 * the refusal in @st.
 */
static struct ibpost_sconn *ibpost_sjoin_check(struct ibpost_server *srv,
					       struct rdma_cm_id *id,
					       const struct ibpost_wire_join *j,
					       struct ibpost_status *st,
					       int *err)
{
	u32 num = be32_to_cpu(j->session);
	u32 max = srv->args.max_per_addr;
	struct ibpost_sconn *sc;
	u32 n;

	*err = -EBUSY;
	if (srv->stopping || srv->active >= srv->args.max_conns) {
		ibpost_status_set(st, IBPOST_R_PEER_BUSY, srv->active,
				  srv->args.max_conns);
		return NULL;
	}
	*err = -ENOENT;
	sc = ibpost_srv_session(srv, num);
	/* Not a session: it never had a token to match. */
	if (!sc || !sc->has_token) {
		ibpost_status_set(st, IBPOST_R_JOIN_UNKNOWN, num, 0);
		return NULL;
	}
	*err = ibpost_srv_session_auth(sc, id, j, st);
	if (*err)
		return NULL;
	*err = -ESHUTDOWN;
	if (!sc->joinable) {
		ibpost_status_set(st, IBPOST_R_JOIN_ENDED, num, 0);
		return NULL;
	}
	*err = -EBUSY;
	if (1 + sc->njoins >= max) {
		ibpost_status_set(st, IBPOST_R_JOIN_MAX, 1 + sc->njoins, max);
		return NULL;
	}
	/* The address's other connections, joins and kept sessions too. */
	n = ibpost_srv_addr_slots(srv, (struct sockaddr *)&sc->peer);
	if (n >= max) {
		ibpost_status_set(st, IBPOST_R_SRV_PER_ADDR, n, max);
		return NULL;
	}
	/* A PD is one device's: the join must come in on the session's. */
	*err = -EXDEV;
	if (id->device != sc->ep.ibdev) {
		ibpost_status_set(st, IBPOST_R_CONNECT, EXDEV, 0);
		return NULL;
	}
	return sc;
}

/* The joined connection's CQ and QP, in the session's PD. */
static int ibpost_sjoin_qp(struct ibpost_sjoin *sj, struct rdma_cm_id *id)
{
	/* No messages: RDMA READ and WRITE of the client land in the MRs. */
	struct ibpost_ep_caps ec = {
		.send_wr = 1,
		.send_sge = 1,
		.recv_wr = 1,
		.recv_sge = 1,
		.poll = IB_POLL_WORKQUEUE,
	};

	return ibpost_cm_serve_ep(&sj->ep, id, &sj->owner->ep, &ec);
}

/*
 * Take a joined connection off its session (and the server's count), the
 * server's @lock held.  One being set up (@set_up) also leaves
 * @joining, and the session's teardown may wait for that: it is woken
 * under the lock.  The teardown's wait has no lock in its condition and
 * may see @joining drop before the wake, but it takes the lock before
 * the session can be freed (ibpost_srv_finished()), so @sc is still there
 * for the wake.  After the unlock nothing here touches @sc.
 */
static void ibpost_sjoin_unlink_locked(struct ibpost_server *srv,
				       struct ibpost_sjoin *sj, bool set_up)
{
	struct ibpost_sconn *sc = sj->owner;

	lockdep_assert_held(&srv->lock);
	list_del(&sj->node);
	sc->njoins--;
	srv->active--;
	if (!set_up)
		return;
	WRITE_ONCE(sc->joining, sc->joining - 1);
	/* Where the wake once came after the unlock: the window, held. */
	ibpost_test_hold("failed join", serve_test_join_fail_ms);
	wake_up(&sc->wake);
}

static void ibpost_sjoin_unlink(struct ibpost_server *srv,
				struct ibpost_sjoin *sj, bool set_up)
{
	mutex_lock(&srv->lock);
	ibpost_sjoin_unlink_locked(srv, sj, set_up);
	mutex_unlock(&srv->lock);
}

/* Free a joined connection off every list: its QP, CQ and id. */
static void ibpost_sjoin_free(struct ibpost_sjoin *sj)
{
	ibpost_cm_close(&sj->ep, NULL, NULL);
	kfree(sj);
}

static void ibpost_sjoin_event(struct ibpost_sjoin *sj, u32 joined)
{
	struct ibpost_serve_event ev = {
		.kind = IBPOST_SRV_JOIN,
		.conn = sj->num,
		.value = sj->owner->num,
		.limit = joined,
	};

	ibpost_srv_peer(&ev, (struct sockaddr *)&sj->id->route.addr.dst_addr);
	ibpost_srv_event(sj->owner->srv, &ev);
}

/**
 * ibpost_srv_join() - a connect request that joins a session.
 * @srv: the server.
 * @id: the request's new id.
 * @ev: the request.
 * @j: its private data, checked (ibpost_wire_hello_check()).
 *
 * Refused, before anything is allocated for it, with
 * IBPOST_R_PEER_BUSY (the server's connection limit),
 * IBPOST_R_JOIN_UNKNOWN (no such session), IBPOST_R_JOIN_TOKEN,
 * IBPOST_R_JOIN_ENDED (the session ended or is ending), IBPOST_R_JOIN_MAX
 * (the session's connection limit) or IBPOST_R_CONNECT (another device).
 *
 * Context: the listener's rdma_cm handler (connect requests one at a time).
 * Return: 0 (accepted), or 1 (rejected: rdma_cm destroys @id).
 */
int ibpost_srv_join(struct ibpost_server *srv, struct rdma_cm_id *id,
		    const struct rdma_cm_event *ev,
		    const struct ibpost_wire_join *j)
{
	struct ibpost_status st = {};
	struct ibpost_sjoin *sj;
	struct ibpost_sconn *sc;
	int ret;

	mutex_lock(&srv->lock);
	sc = ibpost_sjoin_check(srv, id, j, &st, &ret);
	if (!sc) {
		mutex_unlock(&srv->lock);
		return ibpost_srv_reject(id, ret, st.reason, st.value,
					 st.limit);
	}
	sj = kzalloc(sizeof(*sj), GFP_KERNEL);
	if (!sj) {
		mutex_unlock(&srv->lock);
		return ibpost_srv_reject(id, -ENOMEM, IBPOST_R_NOMEM, 0, 0);
	}
	sj->kind = IBPOST_SRV_KIND_JOIN;
	sj->owner = sc;
	sj->id = id;
	sj->num = ++srv->next_conn;
	/* The session's teardown waits for @joining: its PD stays. */
	list_add_tail(&sj->node, &sc->joins);
	sc->njoins++;
	WRITE_ONCE(sc->joining, sc->joining + 1);
	srv->active++;
	mutex_unlock(&srv->lock);

	ret = ibpost_sjoin_qp(sj, id);
	if (!ret && ibpost_test_read(serve_test_join_fail_ms))
		ret = -EIO;
	if (!ret)
		ret = ibpost_cm_accept(&sj->ep, &ev->param.conn);
	if (ret) {
		/* Not accepted: the id stays rdma_cm's (not disconnected). */
		ibpost_cm_close(&sj->ep, NULL, NULL);
		ibpost_sjoin_unlink(srv, sj, true);
		kfree(sj);
		return ibpost_srv_reject(id, ret, IBPOST_R_CONNECT, -ret, 0);
	}
	id->context = sj;
	/* Said before the session's teardown may take @sj (it waits). */
	mutex_lock(&srv->lock);
	ibpost_sjoin_event(sj, 1 + sc->njoins);
	WRITE_ONCE(sc->joining, sc->joining - 1);
	/* Under the lock, as in ibpost_sjoin_unlink_locked(). */
	wake_up(&sc->wake);
	mutex_unlock(&srv->lock);
	return 0;
}

/**
 * ibpost_sjoin_end_all() - end the connections that joined a session.
 * @sc: the session's connection, tearing down: its region's MRs are
 *	invalidated (or its QP failed), its PD still there.
 *
 * No join is accepted any more; those being set up are waited for; each
 * is disconnected, drained and freed before the session's PD goes.
 *
 * Context: the connection's thread, or the server's release.
 */
void ibpost_sjoin_end_all(struct ibpost_sconn *sc)
{
	struct ibpost_server *srv = sc->srv;
	struct ibpost_sjoin *sj, *tmp;

	mutex_lock(&srv->lock);
	sc->joinable = false;
	mutex_unlock(&srv->lock);
	/* Written under the lock, then woken: no lock in the condition. */
	wait_event(sc->wake, !READ_ONCE(sc->joining));
	/* Only the request handler adds, and only while @joinable. */
	list_for_each_entry_safe(sj, tmp, &sc->joins, node) {
		ibpost_cm_close(&sj->ep, NULL, NULL);
		ibpost_sjoin_unlink(srv, sj, false);
		kfree(sj);
	}
	atomic_set(&sc->joins_lost, 0);
}

/**
 * ibpost_sjoin_reap_lost() - free the session's joined connections that
 *	were lost.
 * @sc: a session's connection.
 *
 * A joined connection whose id saw a disconnect or an error (its rdma_cm
 * handler set @lost and @sc->joins_lost) leaves the session, the server's
 * count and its address's, then is disconnected, drained and freed: its
 * slot and its place under the session's cap are given back at once, and
 * the client may join that queue again.  Its id is destroyed here, never
 * from its own handler (rdma_destroy_id() waits for the handler).  An
 * IBPOST_SRV_LOST event (value: the session, limit: its connections left)
 * says so (-ENOTCONN: the connection is gone, not the session).
 *
 * Context: the session connection's thread, a round of its wait.
 */
void ibpost_sjoin_reap_lost(struct ibpost_sconn *sc)
{
	struct ibpost_server *srv = sc->srv;
	struct ibpost_sjoin *sj, *tmp;
	LIST_HEAD(lost);
	u32 left;

	if (!atomic_read(&sc->joins_lost) || !atomic_xchg(&sc->joins_lost, 0))
		return;
	mutex_lock(&srv->lock);
	/* A join being set up has no handler of its own yet: not lost. */
	list_for_each_entry_safe(sj, tmp, &sc->joins, node) {
		if (!READ_ONCE(sj->lost))
			continue;
		ibpost_sjoin_unlink_locked(srv, sj, false);
		list_add_tail(&sj->node, &lost);
	}
	left = 1 + sc->njoins;
	mutex_unlock(&srv->lock);
	list_for_each_entry_safe(sj, tmp, &lost, node) {
		struct ibpost_serve_event ev = {
			.kind = IBPOST_SRV_LOST,
			.conn = sj->num,
			.err = -ENOTCONN,
			.reason = IBPOST_R_PEER_LOST,
			.value = sc->num,
			.limit = left,
		};

		ibpost_srv_peer(&ev, (struct sockaddr *)
				&sj->id->route.addr.dst_addr);
		list_del(&sj->node);
		ibpost_sjoin_free(sj);
		ibpost_srv_event(srv, &ev);
	}
}

/**
 * ibpost_sjoin_test_drop() - the serve_test_drop_join hook.
 * @sc: a running session's connection, from its thread.
 *
 * Disconnects the session's Nth joined connection (in the order they
 * joined: the client's queue N) when the hook asks for one it has and
 * marks it lost: the next round of the thread's wait frees it
 * (ibpost_sjoin_reap_lost(), from this same thread, as the session's
 * teardown does the rest).
 *
 * Context: the session connection's thread.
 */
void ibpost_sjoin_test_drop(struct ibpost_sconn *sc)
{
	u32 n = ibpost_test_read(serve_test_drop_join), i = 0;
	struct ibpost_server *srv = sc->srv;
	struct ibpost_sjoin *sj, *hit = NULL;

	if (!n)
		return;
	mutex_lock(&srv->lock);
	/* None being set up: every join in the list is connected. */
	if (!sc->joining && sc->njoins >= n &&
	    ibpost_test_take_if(serve_test_drop_join, n)) {
		list_for_each_entry(sj, &sc->joins, node) {
			if (++i == n) {
				hit = sj;
				break;
			}
		}
	}
	mutex_unlock(&srv->lock);
	if (!hit)
		return;
	pr_info("test hook: session %u: its joined connection %u (conn %u) disconnected\n",
		sc->num, n, hit->num);
	ibpost_cm_disconnect(&hit->ep);
	/* Lost now, whenever its id hears of it: freed by the next round. */
	WRITE_ONCE(hit->lost, true);
	atomic_set_release(&sc->joins_lost, 1);
}
