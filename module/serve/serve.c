// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: `ibpost serve`: listen through rdma_cm and serve jobs of clients
 * on other hosts (IBPOST_IOC_SERVE).
 *
 * A server belongs to the open file that started it.  The connect request
 * handler checks the client's hello, creates the QP sized by it, accepts,
 * and hands the connection to a thread of its own (serve/conn.c), which does
 * the job and frees everything; the handler refuses (rdma_reject() with
 * the reason in the private data) what it cannot serve.  What happens is
 * queued as events the file's owner reads one per ioctl.  Finished
 * connections are reaped by a work item, whether or not the owner reads
 * events, and count against --max-conns until then.  Closing the file
 * stops every connection and waits for their threads; a connection whose
 * thread never ran is freed by the release itself.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>

#include "lib/abi.h"
#include "lib/allow.h"
#include "core/live.h"
#include "serve/serve.h"
#include "core/testhook.h"
#include "core/trace.h"

#define IBPOST_SRV_CONNS	16
#define IBPOST_SRV_CONNS_MAX	256
#define IBPOST_SRV_IDLE_MS	10000
#define IBPOST_SRV_IDLE_MIN	1000
#define IBPOST_SRV_IDLE_MAX	600000
#define IBPOST_SRV_JOB_MS	600000
#define IBPOST_SRV_JOB_MS_MIN	1000
#define IBPOST_SRV_JOB_MS_MAX	86400000
#define IBPOST_SRV_PER_ADDR	8

static_assert(sizeof(struct ibpost_serve) == IBPOST_SERVE_SIZE_VER1);

/* Check the hello (or join); 0 or the reason to refuse in @st. */
static int ibpost_srv_hello(const struct rdma_cm_event *ev,
			    const struct ib_device *ibdev,
			    struct ibpost_wire_join *j, struct ibpost_status *st)
{
	u32 max_rsge = min_t(u32, ibdev->attrs.max_recv_sge,
			     IBPOST_WIRE_MAX_SGE);

	return ibpost_wire_hello_check(ev->param.conn.private_data,
				       ev->param.conn.private_data_len,
				       max_rsge, j, st);
}

static struct ibpost_sconn *ibpost_srv_conn_alloc(struct ibpost_server *srv,
						  struct rdma_cm_id *id,
						  struct ibpost_dev *dev,
						  const struct ibpost_wire_hello *h)
{
	struct ibpost_sconn *sc = kzalloc(sizeof(*sc), GFP_KERNEL);

	if (!sc)
		return NULL;
	sc->kind = IBPOST_SRV_KIND_CONN;
	sc->srv = srv;
	sc->id = id;
	sc->dev = dev;
	sc->hello = *h;
	memcpy(&sc->peer, &id->route.addr.dst_addr, sizeof(sc->peer));
	sc->t_kick = jiffies;
	init_waitqueue_head(&sc->wake);
	INIT_LIST_HEAD(&sc->joins);
	return sc;
}

/* A connect request: check it, create the QP, accept, start the thread. */
static int ibpost_srv_request(struct ibpost_server *srv, struct rdma_cm_id *id,
			      const struct rdma_cm_event *ev)
{
	struct sockaddr *peer = (struct sockaddr *)&id->route.addr.dst_addr;
	struct ibpost_status st = {};
	struct ibpost_srv_rsv rsv;
	struct ibpost_wire_join j;
	struct ibpost_sconn *sc;
	struct ibpost_dev *dev;
	u64 ctl;
	u32 n;
	int ret;

	/* Who may connect, before a byte of what the client sent is read. */
	if (!ibpost_allow_match(srv->allow, srv->nallow, peer))
		return ibpost_srv_reject(id, -EACCES, IBPOST_R_PEER_DENIED,
					 srv->nallow, 0);
	ret = ibpost_srv_hello(ev, id->device, &j, &st);
	if (ret)
		return ibpost_srv_reject(id, ret, st.reason, st.value,
					 st.limit);
	if (be16_to_cpu(j.hello.flags) & IBPOST_WIRE_HELLO_JOIN)
		return ibpost_srv_join(srv, id, ev, &j);
	if (be16_to_cpu(j.hello.flags) & IBPOST_WIRE_HELLO_RESUME)
		return ibpost_sconn_resume(srv, id, ev, &j);
	ctl = ibpost_sconn_ctl_pinned(&j.hello);
	mutex_lock(&srv->lock);
	if (srv->stopping || srv->active >= srv->args.max_conns) {
		u32 active = srv->active;

		mutex_unlock(&srv->lock);
		return ibpost_srv_reject(id, -EBUSY, IBPOST_R_PEER_BUSY, active,
					 srv->args.max_conns);
	}
	/* Joins and kept sessions of the address count too. */
	n = ibpost_srv_addr_slots(srv, peer);
	if (n >= srv->args.max_per_addr) {
		mutex_unlock(&srv->lock);
		return ibpost_srv_reject(id, -EBUSY, IBPOST_R_SRV_PER_ADDR, n,
					 srv->args.max_per_addr);
	}
	/* The control slots are the connection's first pinned memory. */
	if (srv->pinned + ctl > srv->max_mem) {
		u64 want = srv->pinned + ctl;

		mutex_unlock(&srv->lock);
		return ibpost_srv_reject(id, -ENOMEM, IBPOST_R_SRV_MEM, want,
					 srv->max_mem);
	}
	/* The address's slot, taken with the check (another listener's). */
	memcpy(&rsv.addr, peer, sizeof(rsv.addr));
	list_add_tail(&rsv.node, &srv->rsvs);
	srv->pinned += ctl;
	srv->active++;
	mutex_unlock(&srv->lock);
	dev = ibpost_dev_get_by_ibdev(id->device);
	if (!dev) {
		ret = ibpost_srv_reject(id, -ENODEV, IBPOST_R_NO_DEVICE, 0, 0);
		goto err_active;
	}
	sc = ibpost_srv_conn_alloc(srv, id, dev, &j.hello);
	if (!sc) {
		ret = ibpost_srv_reject(id, -ENOMEM, IBPOST_R_NOMEM, 0, 0);
		goto err_dev;
	}
	ret = ibpost_sconn_qp(sc);
	if (!ret)
		ret = ibpost_cm_accept(&sc->ep, &ev->param.conn);
	if (ret) {
		ibpost_sconn_qp_free(sc);
		ret = ibpost_srv_reject(id, ret, IBPOST_R_CONNECT, -ret, 0);
		goto err_free;
	}
	mutex_lock(&srv->lock);
	sc->num = ++srv->next_conn;
	id->context = sc;
	sc->thread = kthread_create(ibpost_sconn_thread, sc, "ibpost-s%u",
				    sc->num);
	if (IS_ERR(sc->thread)) {
		/*
		 * Accepted already: the thread-less end is a disconnect, and
		 * the id goes back to rdma_cm (this handler returns 1).
		 */
		mutex_unlock(&srv->lock);
		id->context = srv;
		ibpost_cm_disconnect(&sc->ep);
		sc->ep.cm_owned = false;
		ibpost_sconn_qp_free(sc);
		ret = 1;
		goto err_free;
	}
	get_task_struct(sc->thread);
	/* From now on the connection's teardown gives it back. */
	sc->charged_ctl = ctl;
	list_add_tail(&sc->node, &srv->conns);
	/* Counted in @conns from now on. */
	list_del(&rsv.node);
	atomic_long_inc(&ibpost_live.jobs);
	mutex_unlock(&srv->lock);
	ibpost_srv_conn_event(sc, IBPOST_SRV_CONNECT, 0, NULL);
	if (!ibpost_test_read(serve_test_nowake))
		wake_up_process(sc->thread);
	return 0;

err_free:
	kfree(sc);
err_dev:
	ibpost_dev_put(dev);
err_active:
	mutex_lock(&srv->lock);
	list_del(&rsv.node);
	srv->pinned -= ctl;
	srv->active--;
	mutex_unlock(&srv->lock);
	return ret;
}

/*
 * The listener's device went away: stop serving, let rdma_cm free it.
 * Unless the release took the listener first (it then destroys the id,
 * which waits for this handler), the release may free @srv as soon as it
 * sees @listen_lost: the event is queued under the lock, and the
 * completion is the last access to @srv.
 */
static int ibpost_srv_listener_lost(struct ibpost_server *srv)
{
	struct ibpost_serve_event ev = {
		.kind = IBPOST_SRV_STOPPED,
		.err = -ENODEV,
		.reason = IBPOST_R_DEVICE_GONE,
	};
	int ret = 0;

	mutex_lock(&srv->lock);
	if (!srv->stopping) {
		srv->listen = NULL;
		srv->listen_lost = true;
		ibpost_srv_event(srv, &ev);
		ret = 1;
	}
	mutex_unlock(&srv->lock);
	if (ret)
		ibpost_test_hold("lost listener",
				 serve_test_lost_ms);
	if (ret)
		complete(&srv->listen_done);
	return ret;
}

static int ibpost_srv_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	enum ibpost_srv_kind *kind = id->context;
	struct ibpost_sjoin *sj;
	struct ibpost_sconn *sc;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return ibpost_srv_request(id->context, id, ev);
	if (*kind == IBPOST_SRV_KIND_LISTEN)
		return ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL ?
		       ibpost_srv_listener_lost(id->context) : 0;
	switch (ev->event) {
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
		break;
	default:
		return 0;
	}
	/*
	 * A joined queue: its session's thread frees it within a round of
	 * its wait (ibpost_sjoin_reap_lost()).  Not here, and not by
	 * returning 1: its QP is on @id, and the thread destroys both.  The
	 * session outlives this handler: its teardown destroys @id first,
	 * which waits for the handler.
	 */
	if (*kind == IBPOST_SRV_KIND_JOIN) {
		sj = id->context;
		WRITE_ONCE(sj->lost, true);
		/* pairs with the thread's atomic_xchg(): @lost seen with it */
		atomic_set_release(&sj->owner->joins_lost, 1);
		return 0;
	}
	sc = id->context;
	WRITE_ONCE(sc->lost, true);
	wake_up(&sc->wake);
	return 0;
}

static void ibpost_srv_sockaddr(const struct ibpost_serve *a,
				struct sockaddr_storage *ss)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (a->family == AF_INET) {
		in4->sin_family = AF_INET;
		memcpy(&in4->sin_addr, a->addr, sizeof(in4->sin_addr));
		in4->sin_port = htons(a->port);
	} else {
		in6->sin6_family = AF_INET6;
		memcpy(&in6->sin6_addr, a->addr, sizeof(in6->sin6_addr));
		in6->sin6_port = htons(a->port);
	}
}

static int ibpost_srv_listen(struct ibpost_server *srv,
			     struct ibpost_status *st)
{
	struct ibpost_serve_event ev = {
		.kind = IBPOST_SRV_LISTEN,
		.port = srv->args.port,
	};
	struct sockaddr_storage ss;
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(&init_net, ibpost_srv_handler, srv, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	ibpost_srv_sockaddr(&srv->args, &ss);
	ret = rdma_bind_addr(id, (struct sockaddr *)&ss);
	if (!ret)
		ret = rdma_listen(id, 64);
	if (ret) {
		rdma_destroy_id(id);
		ibpost_status_set(st, IBPOST_R_CM_ADDR, srv->args.family,
				  srv->args.port);
		return ret;
	}
	srv->listen = id;
	memcpy(ev.peer, srv->args.addr, sizeof(ev.peer));
	ev.peer_family = srv->args.family;
	ibpost_srv_event(srv, &ev);
	return 0;
}

/* Check the arguments and fill in defaults. */
static int ibpost_serve_check(struct ibpost_serve *a, struct ibpost_status *st)
{
	u64 ram_mib = totalram_pages() >> (20 - PAGE_SHIFT);

	if (a->flags & ~IBPOST_SERVE_FLAGS) {
		ibpost_status_set(st, IBPOST_R_FLAGS, a->flags,
				  IBPOST_SERVE_FLAGS);
		return -EINVAL;
	}
	if (a->keep_s > IBPOST_SRV_KEEP_MAX) {
		ibpost_status_set(st, IBPOST_R_TIMEOUT, a->keep_s,
				  IBPOST_SRV_KEEP_MAX);
		return -EINVAL;
	}
	if (a->family != 0 && a->family != AF_INET && a->family != AF_INET6) {
		ibpost_status_set(st, IBPOST_R_CM_ADDR, a->family, 0);
		return -EINVAL;
	}
	if (!a->family && !ibpost_mem_is_zero(a->addr, sizeof(a->addr))) {
		ibpost_status_set(st, IBPOST_R_CM_ADDR, 0, 0);
		return -EINVAL;
	}
	if (a->max_conns > IBPOST_SRV_CONNS_MAX) {
		ibpost_status_set(st, IBPOST_R_COUNT, a->max_conns,
				  IBPOST_SRV_CONNS_MAX);
		return -EINVAL;
	}
	if (a->idle_ms && (a->idle_ms < IBPOST_SRV_IDLE_MIN ||
			   a->idle_ms > IBPOST_SRV_IDLE_MAX)) {
		ibpost_status_set(st, IBPOST_R_TIMEOUT, a->idle_ms,
				  IBPOST_SRV_IDLE_MAX);
		return -EINVAL;
	}
	if (a->max_job_ms && (a->max_job_ms < IBPOST_SRV_JOB_MS_MIN ||
			      a->max_job_ms > IBPOST_SRV_JOB_MS_MAX)) {
		ibpost_status_set(st, IBPOST_R_TIMEOUT, a->max_job_ms,
				  IBPOST_SRV_JOB_MS_MAX);
		return -EINVAL;
	}
	if (a->max_mem_mib > ram_mib) {
		ibpost_status_set(st, IBPOST_R_SRV_MEM, a->max_mem_mib,
				  ram_mib);
		return -EINVAL;
	}
	if (a->max_per_addr > (a->max_conns ?: IBPOST_SRV_CONNS)) {
		ibpost_status_set(st, IBPOST_R_COUNT, a->max_per_addr,
				  a->max_conns ?: IBPOST_SRV_CONNS);
		return -EINVAL;
	}
	if (!a->family)
		a->family = AF_INET6;
	if (!a->port)
		a->port = IBPOST_PEER_PORT;
	if (!a->max_conns)
		a->max_conns = IBPOST_SRV_CONNS;
	if (!a->idle_ms)
		a->idle_ms = IBPOST_SRV_IDLE_MS;
	if (!a->max_job_ms)
		a->max_job_ms = IBPOST_SRV_JOB_MS;
	/* A modest share of the host: an eighth of its RAM. */
	if (!a->max_mem_mib)
		a->max_mem_mib = max_t(u64, ram_mib / 8, 1);
	if (!a->max_per_addr)
		a->max_per_addr = min_t(u32, IBPOST_SRV_PER_ADDR, a->max_conns);
	return 0;
}

static void ibpost_srv_reap_work(struct work_struct *work);

static struct ibpost_server *ibpost_server_new(const struct ibpost_serve *a)
{
	struct ibpost_server *srv = kzalloc(sizeof(*srv), GFP_KERNEL);

	if (!srv)
		return NULL;
	srv->kind = IBPOST_SRV_KIND_LISTEN;
	srv->args = *a;
	srv->max_mem = (u64)a->max_mem_mib << 20;
	mutex_init(&srv->lock);
	INIT_LIST_HEAD(&srv->conns);
	INIT_LIST_HEAD(&srv->rsvs);
	spin_lock_init(&srv->ev_lock);
	INIT_LIST_HEAD(&srv->events);
	init_waitqueue_head(&srv->ev_wq);
	init_completion(&srv->listen_done);
	INIT_WORK(&srv->reap_work, ibpost_srv_reap_work);
	return srv;
}

/*
 * Stop threads of finished connections and free them (all with @all).
 * A connection is freed here whatever its thread did: a thread stopped
 * before it ever ran (the file closed right after the connect request)
 * never ran ibpost_sconn_thread(), so what the request handler set up for
 * it (QP, CQ, control pages, id, device reference) is freed here.
 */
static void ibpost_srv_reap(struct ibpost_server *srv, bool all)
{
	struct ibpost_sconn *sc, *tmp;
	LIST_HEAD(done);
	u32 n = 0;

	mutex_lock(&srv->lock);
	list_for_each_entry_safe(sc, tmp, &srv->conns, node) {
		if (all || sc->finished)
			list_move_tail(&sc->node, &done);
	}
	mutex_unlock(&srv->lock);
	list_for_each_entry_safe(sc, tmp, &done, node) {
		/* a thread still serving sees kthread_should_stop() */
		kthread_stop(sc->thread);
		put_task_struct(sc->thread);
		/* Stopped: no thread can set it any more. */
		if (!sc->finished)
			ibpost_sconn_abandon(sc);
		list_del(&sc->node);
		atomic_long_dec(&ibpost_live.jobs);
		kfree(sc);
		n++;
	}
	if (!n)
		return;
	mutex_lock(&srv->lock);
	srv->active -= n;
	mutex_unlock(&srv->lock);
}

/* Reap without the owner: a stopped `ibpost serve` holds no threads. */
static void ibpost_srv_reap_work(struct work_struct *work)
{
	ibpost_srv_reap(container_of(work, struct ibpost_server, reap_work),
			false);
}

static void ibpost_server_free(struct ibpost_server *srv)
{
	struct ibpost_srv_ev *e, *tmp;

	list_for_each_entry_safe(e, tmp, &srv->events, node)
		kfree(e);
	kfree(srv->allow);
	mutex_destroy(&srv->lock);
	kfree(srv);
}

/**
 * ibpost_serve_release() - stop the server of a file being closed.
 * @srv: the server IBPOST_IOC_SERVE started on the file, NULL for none.
 *
 * Context: process context; waits for every connection's thread, each of
 * which disconnects its client and frees what it holds.
 */
void ibpost_serve_release(struct ibpost_server *srv)
{
	struct rdma_cm_id *listen;
	bool lost;

	if (!srv)
		return;
	mutex_lock(&srv->lock);
	srv->stopping = true;
	listen = srv->listen;
	srv->listen = NULL;
	lost = srv->listen_lost;
	mutex_unlock(&srv->lock);
	/* After this no connect request reaches the server. */
	if (listen)
		rdma_destroy_id(listen);
	/* rdma_cm frees a lost listener once its handler left @srv. */
	if (lost)
		wait_for_completion(&srv->listen_done);
	ibpost_srv_reap(srv, true);
	/* Every thread stopped: nothing queues the work any more. */
	cancel_work_sync(&srv->reap_work);
	ibpost_server_free(srv);
}

/* Serializes starting a server on a file. */
static DEFINE_MUTEX(ibpost_serve_start);

/* The server in @slot (a file's), started with @a if there is none yet. */
static struct ibpost_server *ibpost_serve_get(struct ibpost_server **slot,
					      struct ibpost_serve *a,
					      struct ibpost_status *st,
					      int *err)
{
	struct ibpost_server *srv;

	mutex_lock(&ibpost_serve_start);
	srv = *slot;
	if (srv)
		goto out;
	*err = ibpost_serve_check(a, st);
	if (*err)
		goto out;
	srv = ibpost_server_new(a);
	if (!srv) {
		*err = -ENOMEM;
		goto out;
	}
	*err = ibpost_allow_get(a, &srv->allow, st);
	if (!*err) {
		srv->nallow = a->nallow;
		*err = ibpost_srv_listen(srv, st);
	}
	if (*err) {
		ibpost_server_free(srv);
		srv = NULL;
		goto out;
	}
	*slot = srv;
out:
	mutex_unlock(&ibpost_serve_start);
	return srv;
}

static int ibpost_serve_next(struct ibpost_server *srv,
			     struct ibpost_serve_event *ev)
{
	struct ibpost_srv_ev *e;
	int ret;

	ret = wait_event_interruptible(srv->ev_wq, READ_ONCE(srv->nevents));
	ibpost_srv_reap(srv, false);
	if (ret)
		return -EINTR;	/* not restarted: the tool stops on it */
	spin_lock(&srv->ev_lock);
	e = list_first_entry_or_null(&srv->events, struct ibpost_srv_ev, node);
	if (e) {
		list_del(&e->node);
		srv->nevents--;
		*ev = e->ev;
		ev->dropped = srv->dropped;
		srv->dropped = 0;
	}
	spin_unlock(&srv->ev_lock);
	kfree(e);
	return e ? 0 : -EAGAIN;
}

/**
 * ibpost_serve_ioctl() - IBPOST_IOC_SERVE: start a server, return its events.
 * @slot: the server of the open /dev/ibpost, NULL until the first call
 *	starts it.
 * @k: the caller's argument, copied in (ioctl.c) and written back whole
 *	when @full is set: the limits in force with their defaults filled in
 *	(@max_conns .. @max_per_addr), the event and the status.
 * @full: out: set once the server runs, whatever the return.
 *
 * Context: process context; blocks until an event (interruptible).
 * Return: 0 with the event, -EINTR on a signal, or a refusal with the
 * reason in @k->status.
 */
int ibpost_serve_ioctl(struct ibpost_server **slot, struct ibpost_serve *k,
		       bool *full)
{
	struct ibpost_server *srv;
	int ret;

	memset(&k->event, 0, sizeof(k->event));
	srv = ibpost_serve_get(slot, k, &k->status, &ret);
	if (!srv)
		return ret;
	*full = true;
	k->max_conns = srv->args.max_conns;
	k->idle_ms = srv->args.idle_ms;
	k->max_mem_mib = srv->args.max_mem_mib;
	k->max_job_ms = srv->args.max_job_ms;
	k->max_per_addr = srv->args.max_per_addr;
	do {
		ret = ibpost_serve_next(srv, &k->event);
	} while (ret == -EAGAIN);
	return ret;
}
