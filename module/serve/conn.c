// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: one served connection, from the client's job to its result.
 *
 * Each connection has its own thread, which sleeps while the connection's
 * CQ is polled in a workqueue: its handlers repost receives, count and
 * check what arrived, and wake the thread for what it waits on (a control
 * message, the fin, an error).  A peer's pace costs the server the work
 * of each message, not a CPU spinning between them.  The job the client
 * describes is checked against the server's own limits before anything is
 * allocated for it: every count, length and offset comes from another
 * host.  The slots the client may touch are registered
 * for this job alone, with only the access its opcode needs, and
 * invalidated before the connection is torn down.  While a job runs the
 * server checks what arrives (SEND, the _IMM opcodes), answers the fin
 * with its account (an RDMA WRITE job's slots are checked then), and sends
 * a keep-alive when the client has been quiet, so that a client that died
 * is noticed within the idle time.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kthread.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "lib/abi.h"
#include "lib/kthread.h"
#include "lib/pace.h"
#include "serve/serve.h"

/* How long to wait for the client to disconnect after the last answer. */
#define IBPOST_SCONN_LINGER_MS	5000
/*
 * How long a resume waits for the connection it replaces (one the server
 * has not seen fail yet) to be kept.
 */
#define IBPOST_SCONN_EVICT_MS	2000
/* Slices of a kept session's wait (stop and device removal seen within). */
#define IBPOST_SCONN_KEEP_SLICE_MS	200

static bool ibpost_sconn_verify(const struct ibpost_sconn *sc)
{
	return sc->flags & IBPOST_WIRE_VERIFY;
}

/* A session of the in-kernel API: one region, READ and WRITE. */
static bool ibpost_sconn_session(const struct ibpost_sconn *sc)
{
	return sc->flags & IBPOST_WIRE_SESSION;
}

static int ibpost_sconn_fail(struct ibpost_status *st, int err, u32 reason,
			     u64 value, u64 limit)
{
	ibpost_status_set(st, reason, value, limit);
	return err;
}

/* A wait of the connection's thread (ibpost_ep_poll_until()). */
struct ibpost_sconn_wait {
	struct ibpost_sconn *sc;
	bool (*done)(struct ibpost_sconn *sc);
	bool alive;
	u32 ms;
	struct ibpost_status *st;
	int post_err;
};

/*
 * How long the client may show no sign of life: the server's idle time,
 * and while its job's messages land in receives, as long again as one
 * message takes at the slowest rate waited for.  A receive shows nothing
 * before the whole message is in: a 4 MiB SEND took more than 3 s on the
 * debug kernel's soft-RoCE beside a second guest, and an idle time of 3 s
 * dropped that live client.
 */
static u32 ibpost_sconn_idle_ms(const struct ibpost_sconn *sc, bool alive)
{
	u64 ms = sc->srv->args.idle_ms;

	if (alive && ibpost_op_has_recv(sc->op))
		ms += ibpost_floor_ms(sc->target.d.msg_size);
	return min_t(u64, ms, U32_MAX);
}

static bool ibpost_sconn_wait_done(void *arg)
{
	struct ibpost_sconn_wait *sw = arg;

	return sw->done(sw->sc);
}

static int ibpost_sconn_wait_stop(void *arg)
{
	struct ibpost_sconn_wait *sw = arg;
	struct ibpost_sconn *sc = sw->sc;
	u32 idle_ms = ibpost_sconn_idle_ms(sc, sw->alive);
	u64 seen = READ_ONCE(sc->target.msgs) + READ_ONCE(sc->ctl.zcount) +
		   (READ_ONCE(sc->ctl.msg) >= 0);

	/*
	 * What the client sends counts as a sign of life; so does, while a
	 * job runs, a keep-alive the client took: its QP acknowledged it
	 * into a receive it posted.  A one-sided job's data never shows here,
	 * and a SEND job's message shows only once all of it is in: 4 MiB
	 * took more than the idle time and its 4 s of slack on the debug
	 * kernel's soft-RoCE beside a second guest, and a live client was
	 * dropped.  A completion of the server's own alone never counts; the
	 * job time limit ends a live client that sends nothing.
	 */
	if (seen != sc->peer_seen) {
		sc->peer_seen = seen;
		sc->t_active = jiffies;
	}
	if (sc->kick_out && !READ_ONCE(sc->ctl.sends_out)) {
		sc->kick_out = false;
		if (sw->alive && sc->ctl.wc_status == IB_WC_SUCCESS)
			sc->t_active = jiffies;
	}
	if (sw->post_err)
		return ibpost_sconn_fail(sw->st, sw->post_err, IBPOST_R_POST,
					 0, 0);
	if (sc->target.wc_status != IB_WC_SUCCESS ||
	    sc->ctl.wc_status != IB_WC_SUCCESS)
		return ibpost_sconn_fail(sw->st, -EIO, IBPOST_R_WC_ERROR, 0, 0);
	if (kthread_should_stop())
		return ibpost_sconn_fail(sw->st, -ESHUTDOWN,
					 IBPOST_R_PEER_LOST, 0, 0);
	if (READ_ONCE(sc->dev->dying))
		return ibpost_sconn_fail(sw->st, -ENODEV,
					 IBPOST_R_DEVICE_GONE, 0, 0);
	if (READ_ONCE(sc->lost))
		return ibpost_sconn_fail(sw->st, -ECONNRESET,
					 IBPOST_R_PEER_LOST, 0, 0);
	if (sw->alive && sc->job_ms &&
	    time_after(jiffies, sc->t_job + msecs_to_jiffies(sc->job_ms)))
		return ibpost_sconn_fail(sw->st, -ETIMEDOUT,
					 IBPOST_R_SRV_JOB_TIME,
					 jiffies_to_msecs(jiffies - sc->t_job),
					 sc->job_ms);
	if (time_after(jiffies, sc->t_active + msecs_to_jiffies(idle_ms)))
		return ibpost_sconn_fail(sw->st, -ETIMEDOUT, IBPOST_R_TIMEOUT,
					 idle_ms, idle_ms);
	return 0;
}

/*
 * A quiet client hears a keep-alive: a dead one is noticed by its QP.  A
 * running session also takes the serve_test_drop_join hook here, and
 * frees its joined connections that were lost.
 */
static void ibpost_sconn_wait_kick(void *arg)
{
	struct ibpost_sconn_wait *sw = arg;
	struct ibpost_sconn *sc = sw->sc;
	unsigned long idle = msecs_to_jiffies(sc->srv->args.idle_ms);

	/*
	 * The client cannot send into receives this thread has not posted
	 * again: the time spent checking its messages (seconds for 16 of
	 * 4 MiB on a loaded debug kernel) is the server's, never the
	 * client's silence.  Its idle time starts once they are posted.
	 */
	if (ibpost_target_pending(&sc->target))
		sc->t_active = jiffies;
	if (sw->alive && ibpost_sconn_session(sc))
		ibpost_sjoin_test_drop(sc);
	/* A lost joined queue gives its slot back at once. */
	if (ibpost_sconn_session(sc))
		ibpost_sjoin_reap_lost(sc);
	if (!sw->alive || READ_ONCE(sc->ctl.sends_out) ||
	    !time_after(jiffies, sc->t_active + idle / 4) ||
	    !time_after(jiffies, sc->t_kick + idle / 4))
		return;
	sc->t_kick = jiffies;
	if (ibpost_ctl_send(&sc->ctl, 0, true, IBPOST_WIRE_IMM_ALIVE))
		sw->post_err = -EIO;
	else
		sc->kick_out = true;
}

/* Messages for the thread to check: the round's wait ends. */
static bool ibpost_sconn_wait_pending(void *arg)
{
	struct ibpost_sconn_wait *sw = arg;

	return ibpost_target_has_pending(&sw->sc->target);
}

/* Poll until @done, a failure, @ms (0: none) or the idle time runs out. */
static int ibpost_sconn_wait(struct ibpost_sconn *sc,
			     bool (*done)(struct ibpost_sconn *sc), u32 ms,
			     bool alive, struct ibpost_status *st)
{
	struct ibpost_sconn_wait sw = {
		.sc = sc, .done = done, .alive = alive, .ms = ms, .st = st,
	};
	struct ibpost_ep_wait w = {
		.ep = { &sc->ep },
		.done = ibpost_sconn_wait_done,
		.stop = ibpost_sconn_wait_stop,
		.kick = ibpost_sconn_wait_kick,
		.pending = ibpost_sconn_wait_pending,
		.arg = &sw,
		.deadline = ms ? jiffies + msecs_to_jiffies(ms) : 0,
	};
	int ret = ibpost_ep_poll_until(&w);

	if (ret == -ETIMEDOUT && st->reason == IBPOST_R_NONE)
		ret = ibpost_sconn_fail(st, -ETIMEDOUT, IBPOST_R_TIMEOUT, ms,
					ms);
	return ret;
}

static bool ibpost_sconn_sent(struct ibpost_sconn *sc)
{
	return !READ_ONCE(sc->ctl.sends_out);
}

/* Bytes of each control slot: room for the answer's slots. */
static size_t ibpost_sconn_ctl_size(const struct ibpost_wire_hello *h)
{
	/* The answer's slots: a job's, or a session's region's chunks. */
	u32 nslots = be16_to_cpu(h->flags) & IBPOST_WIRE_HELLO_REGION ?
		     IBPOST_WIRE_MAX_CHUNKS : 2 * be32_to_cpu(h->depth);

	return ibpost_ctl_size(nslots);
}

/**
 * ibpost_sconn_ctl_pinned() - memory the control slots of a connection
 *	with this hello pin (charged at its connect request).
 * @h: the hello, checked.
 *
 * Return: bytes.
 */
u64 ibpost_sconn_ctl_pinned(const struct ibpost_wire_hello *h)
{
	return ibpost_buf_pinned(IBPOST_CTL_RX + 1, ibpost_sconn_ctl_size(h));
}

/**
 * ibpost_sconn_qp() - the connection's CQ and QP, sized by its hello, and
 *	its control receive.
 * @sc: the connection: @id the connect request's; @ep zeroed, or detached
 *	(ibpost_ep_detach(): a kept session's, whose PD it keeps).
 *
 * Context: the connect request's handler.
 * Return: 0 or a negative errno (ibpost_sconn_qp_free() undoes the rest).
 */
int ibpost_sconn_qp(struct ibpost_sconn *sc)
{
	u32 depth = be32_to_cpu(sc->hello.depth);
	u32 rsge = max_t(u32, be32_to_cpu(sc->hello.recv_sge), 1);
	struct ibpost_ep_caps ec = {
		.send_wr = IBPOST_MR_CHAIN + 2,
		.send_sge = 1,
		.recv_wr = depth + IBPOST_CTL_RX,
		.recv_sge = rsge,
		/*
		 * Handlers in a workqueue, as nvmet-rdma and isert poll their
		 * target CQs: receives are reposted as they complete and the
		 * connection's thread sleeps until a handler wakes it (a
		 * thread polling its CQ spins at 100 % of a CPU under a
		 * trickle of messages, and the peer decides how fast they
		 * come).  Not softirq: checking a verified message reads all
		 * of it, too long for softirq context.
		 */
		.poll = IB_POLL_WORKQUEUE,
	};
	int ret;

	/*
	 * A PD of its own (or, taking a session back, the one its region's
	 * MRs are in): no other client's rkey works on this QP.
	 */
	ret = ibpost_cm_serve_ep(&sc->ep, sc->id, NULL, &ec);
	if (ret)
		return ret;
	/*
	 * One control receive, for the job: data messages take receives in
	 * order, so with a SEND opcode every receive after it is a data one.
	 */
	return ibpost_ctl_init(&sc->ctl, &sc->ep,
			       ibpost_sconn_ctl_size(&sc->hello), 1);
}

/* A never-accepted connection's QP drained: its control slots go. */
static void ibpost_sconn_ctl_drained(void *arg)
{
	struct ibpost_sconn *sc = arg;

	ibpost_ctl_free(&sc->ctl);
}

/**
 * ibpost_sconn_qp_free() - undo ibpost_sconn_qp() of a connection never
 *	accepted.
 * @sc: the connection.
 */
void ibpost_sconn_qp_free(struct ibpost_sconn *sc)
{
	/* Receives posted: the QP is drained before their slots go. */
	ibpost_cm_close(&sc->ep, ibpost_sconn_ctl_drained, sc);
}

/* Before the job: the job, or a zero-byte message (refused). */
static bool ibpost_sconn_have_job(struct ibpost_sconn *sc)
{
	return READ_ONCE(sc->ctl.msg) >= 0 || READ_ONCE(sc->ctl.zcount);
}

/* While it runs: its fin, or a message on the control receive (refused). */
static bool ibpost_sconn_have_fin(struct ibpost_sconn *sc)
{
	/* pairs with the handler's release: its counts are seen with it */
	return smp_load_acquire(&sc->target.fin) || READ_ONCE(sc->ctl.zcount) ||
	       READ_ONCE(sc->ctl.msg) >= 0;
}

static bool ibpost_sconn_never(struct ibpost_sconn *sc)
{
	return false;
}

/*
 * The job's time limit: what the client declares (0: it does not know, a
 * job of so many WRs) and as much again (at least the idle time) for its
 * set-up, warm-up and fin on a loaded host, at most the server's
 * --max-job-time; a longer declaration is refused now rather than cut off
 * later.  An in-kernel session lives as long as its owner wants: the memory
 * budget bounds it.
 */
static int ibpost_sconn_job_time(struct ibpost_sconn *sc, u32 declared,
				 struct ibpost_status *st)
{
	u32 max = sc->srv->args.max_job_ms;

	if (declared > max)
		return ibpost_sconn_fail(st, -EINVAL, IBPOST_R_SRV_JOB_TIME,
					 declared, max);
	if (ibpost_sconn_session(sc))
		sc->job_ms = 0;
	else if (!declared)
		sc->job_ms = max;
	else
		sc->job_ms = min_t(u64, (u64)declared +
				   max(declared, sc->srv->args.idle_ms), max);
	return 0;
}

/* The counts of a job message, each against the server's limits. */
static int ibpost_sconn_counts(struct ibpost_sconn *sc,
			       const struct ibpost_wire_job *m, u32 len,
			       struct ibpost_status *st)
{
	u32 rsge = max_t(u32, be32_to_cpu(sc->hello.recv_sge), 1);
	u32 max_msg = IBPOST_MAX_MSG;
	struct ib_port_attr pattr;
	size_t want;
	int ret;

	if (!ib_query_port(sc->ep.ibdev, sc->ep.port, &pattr))
		max_msg = min_t(u32, max_msg, pattr.max_msg_sz);
	sc->op = be32_to_cpu(m->op);
	sc->flags = be32_to_cpu(m->flags);
	sc->msg_size = be32_to_cpu(m->msg_size);
	sc->depth = be32_to_cpu(m->depth);
	sc->num_sge = be32_to_cpu(m->num_sge);
	sc->recv_num_sge = be32_to_cpu(m->recv_num_sge);
	sc->imm_data = be32_to_cpu(m->imm_data);
	if (sc->op >= IBPOST_OP_MAX)
		return ibpost_sconn_fail(st, -EINVAL, IBPOST_R_OPCODE, sc->op,
					 IBPOST_OP_MAX - 1);
	if (sc->flags & ~IBPOST_WIRE_JOB_FLAGS)
		return ibpost_sconn_fail(st, -EINVAL, IBPOST_R_FLAGS,
					 sc->flags, IBPOST_WIRE_JOB_FLAGS);
	if (ibpost_sconn_session(sc) && (sc->flags & IBPOST_WIRE_CPU))
		return ibpost_sconn_fail(st, -EINVAL, IBPOST_R_FLAGS,
					 sc->flags, IBPOST_WIRE_SESSION);
	/*
	 * The host's busy time over a window the client picks tells it how
	 * hard the host's other tenants work: given only when the server was
	 * started with --cpu-record (Documentation/security.rst).
	 */
	if ((sc->flags & IBPOST_WIRE_CPU) &&
	    !(sc->srv->args.flags & IBPOST_SERVE_CPU_RECORD))
		return ibpost_sconn_fail(st, -EACCES, IBPOST_R_SRV_CPU, 0, 0);
	if (ibpost_sconn_session(sc) &&
	    (sc->op != IBPOST_OP_WRITE || sc->flags & IBPOST_WIRE_VERIFY))
		return ibpost_sconn_fail(st, -EINVAL, IBPOST_R_OPCODE, sc->op,
					 IBPOST_OP_WRITE);
	if (sc->depth != be32_to_cpu(sc->hello.depth))
		return ibpost_sconn_fail(st, -EPROTO, IBPOST_R_PEER_PROTO,
					 sc->depth,
					 be32_to_cpu(sc->hello.depth));
	if (!sc->num_sge || sc->num_sge > IBPOST_WIRE_MAX_SGE)
		return ibpost_sconn_fail(st, -EINVAL, IBPOST_R_NUM_SGE,
					 sc->num_sge, IBPOST_WIRE_MAX_SGE);
	if (ibpost_op_is_send(sc->op) ?
	    !sc->recv_num_sge || sc->recv_num_sge > rsge : sc->recv_num_sge) {
		ibpost_sconn_fail(st, -EINVAL, IBPOST_R_NUM_SGE,
				  sc->recv_num_sge,
				  ibpost_op_is_send(sc->op) ? rsge : 0);
		st->wr = IBPOST_STATUS_RECV_WR;
		return -EINVAL;
	}
	want = struct_size(m, sge, sc->num_sge + sc->recv_num_sge);
	if (be32_to_cpu(m->hdr.length) != want || want > len)
		return ibpost_sconn_fail(st, -EPROTO, IBPOST_R_PEER_PROTO,
					 be32_to_cpu(m->hdr.length), want);
	if (!sc->msg_size || sc->msg_size > max_msg)
		return ibpost_sconn_fail(st, -EINVAL, IBPOST_R_MSG_SIZE,
					 sc->msg_size, max_msg);
	if (sc->imm_data && !ibpost_op_has_imm(sc->op))
		return ibpost_sconn_fail(st, -EINVAL, IBPOST_R_IMM_OP, sc->op,
					 0);
	sc->region_bytes = be64_to_cpu(m->region_bytes);
	sc->chunk = ibpost_target_chunk(sc->ep.ibdev->attrs.max_fast_reg_page_list_len,
					sc->region_bytes);
	ret = ibpost_wire_region_check(m, be16_to_cpu(sc->hello.flags),
				       sc->chunk, st);
	if (ret)
		return ret;
	/*
	 * The keep time is the client's to ask (its reconnect's time limit)
	 * and the server's to bound: a kept region stays charged to the
	 * memory budget while it waits.
	 */
	sc->keep_asked = be32_to_cpu(m->keep_s);
	sc->keep_s = min(sc->keep_asked, sc->srv->args.keep_s);
	return ibpost_sconn_job_time(sc, be32_to_cpu(m->duration_ms), st);
}

/* What the client's WRs put into the slots. */
static void ibpost_sconn_target(struct ibpost_sconn *sc)
{
	struct ibpost_target_desc d = {
		.op = sc->op,
		.msg_size = sc->msg_size,
		.imm_data = sc->imm_data,
		.send = sc->send_layout,
		.num_sge = sc->num_sge,
		.land = ibpost_op_is_send(sc->op) ? sc->recv_layout : NULL,
		.land_n = sc->recv_num_sge,
		.remote_read = ibpost_sconn_session(sc),
		.verify = ibpost_sconn_verify(sc),
		/*
		 * Large messages are checked in this connection's thread, not
		 * the CQ's handler (security.rst, "CPU"); small ones in the
		 * handler, whose repost then comes at once: a receive posted
		 * back only after a thread's wake-up makes the client's sends
		 * meet RNR NAKs, a tick each on rxe.
		 */
		.deferred = sc->msg_size > IBPOST_TARGET_INLINE_CHECK,
	};

	ibpost_target_init(&sc->target, &d);
}

/* Slots and their size; the memory and the MR they need, bounded. */
static int ibpost_sconn_sizes(struct ibpost_sconn *sc, u32 *nslots,
			      u32 *slot_size, struct ibpost_status *st)
{
	struct ibpost_slots s;

	/*
	 * A session's region: its chunks, checked (ibpost_sconn_counts()),
	 * bounded by the memory budget alone.
	 */
	if (ibpost_sconn_session(sc)) {
		*slot_size = sc->chunk;
		*nslots = (u32)DIV_ROUND_UP_ULL(sc->region_bytes, sc->chunk);
		return 0;
	}
	/*
	 * WR msg of a WRITE_WITH_IMM writes slot msg % (2 * depth): no slot
	 * is written again before its receive was checked.
	 */
	*nslots = sc->op == IBPOST_OP_WRITE_IMM ? 2 * sc->depth : sc->depth;
	*slot_size = ibpost_target_slot_size(&sc->target);
	s.nslots = *nslots;
	s.slot_size = *slot_size;
	s.mapped = ibpost_op_is_rdma(sc->op);
	return ibpost_target_sizes(&s, 1,
				   sc->ep.ibdev->attrs.max_fast_reg_page_list_len,
				   st);
}

/* Take the job message and check every field of it. */
static int ibpost_sconn_job(struct ibpost_sconn *sc, struct ibpost_status *st)
{
	const struct ibpost_wire_job *m;
	u32 len;
	int ret;

	/* A zero-byte message came first: no job to take it as the fin of. */
	if (READ_ONCE(sc->ctl.zcount))
		return ibpost_wire_order_check(false, NULL, 0, st);
	m = ibpost_ctl_take(&sc->ctl, &len);
	ret = ibpost_wire_job_check(m, len, st);
	if (!ret)
		ret = ibpost_sconn_counts(sc, m, len, st);
	if (ret)
		goto out;
	ibpost_wire_layout_get(sc->send_layout, m->sge, sc->num_sge);
	ibpost_wire_layout_get(sc->recv_layout, m->sge + sc->num_sge,
				sc->recv_num_sge);
	ret = ibpost_layout_check(sc->send_layout, sc->num_sge, sc->msg_size,
				  IBPOST_SLOT_MAX, st);
	if (ret) {
		if (st->sge != IBPOST_STATUS_NONE)
			st->wr = 0;
		goto out;
	}
	if (sc->recv_num_sge) {
		ret = ibpost_layout_check(sc->recv_layout, sc->recv_num_sge,
					  sc->msg_size, IBPOST_SLOT_MAX, st);
		if (ret)
			st->wr = IBPOST_STATUS_RECV_WR;
	}
out:
	/* With a WRITE or READ the fin comes on this receive again. */
	ibpost_ctl_release(&sc->ctl, m, !ret && !ibpost_op_has_recv(sc->op));
	return ret;
}

/* The job accepted: a session's with the keep time asked and granted. */
static void ibpost_sconn_job_event(struct ibpost_sconn *sc)
{
	struct ibpost_status st = {
		.value = sc->keep_s,
		.limit = sc->keep_asked,
	};

	ibpost_srv_conn_event(sc, IBPOST_SRV_JOB, 0,
			      ibpost_sconn_session(sc) ? &st : NULL);
}

/* Buffers, MRs, stamps and receives of an accepted job. */
static int ibpost_sconn_setup(struct ibpost_sconn *sc,
			      struct ibpost_status *st)
{
	struct ibpost_target *t = &sc->target;
	u32 nslots, slot_size, s;
	int ret;

	ibpost_sconn_target(sc);
	ret = ibpost_sconn_sizes(sc, &nslots, &slot_size, st);
	if (ret)
		return ret;
	ret = ibpost_srv_charge(sc, ibpost_buf_pinned(nslots, slot_size),
				ibpost_op_is_rdma(sc->op) ? nslots : 0, st);
	if (ret)
		return ret;
	ret = ibpost_target_alloc(t, sc->ep.ibdev, nslots, slot_size, st);
	if (ret)
		return ret;
	/* Slot s holds what WR s of the client will read. */
	if (sc->op == IBPOST_OP_READ && ibpost_sconn_verify(sc))
		for (s = 0; s < nslots; s++)
			ibpost_target_stamp(t, s, s);
	if (ibpost_op_is_rdma(sc->op)) {
		ret = ibpost_target_register(t, &sc->ep, st);
		if (ret)
			return ret;
	}
	/* One data receive per queue slot of the client. */
	if (ibpost_op_has_recv(sc->op))
		return ibpost_target_recvs(t, &sc->ep, sc->depth, st);
	return 0;
}

/*
 * A session's other queues may join it from now on (serve/join.c): its token,
 * new from the kernel's RNG.  Before the ready is sent, for the client may
 * connect them as soon as it reads it; the token is in no other message.
 */
static void ibpost_sconn_joinable(struct ibpost_sconn *sc)
{
	u8 token[IBPOST_WIRE_TOKEN_LEN];

	do
		get_random_bytes(token, sizeof(token));
	while (ibpost_mem_is_zero(token, sizeof(token)));
	mutex_lock(&sc->srv->lock);
	memcpy(sc->token, token, sizeof(token));
	sc->has_token = true;
	sc->joinable = true;
	mutex_unlock(&sc->srv->lock);
	memzero_explicit(token, sizeof(token));
}

/* Send the answer to the job: a refusal (@err) or the slots. */
static int ibpost_sconn_ready(struct ibpost_sconn *sc, int err,
			      struct ibpost_status *st)
{
	struct ibpost_wire_ready *m = ibpost_ctl_sbuf(&sc->ctl);
	u32 n = err ? 0 : sc->target.buf.nslots, i;
	u64 addr;
	u32 rkey;
	u32 len = ibpost_wire_ready_size(n);
	int ret;

	memset(m, 0, len);
	ibpost_wire_hdr_init(&m->hdr, IBPOST_WIRE_READY, len, sc->num);
	ibpost_wire_st_put(&m->st, err, st);
	m->nslots = cpu_to_be32(n);
	if (n && ibpost_sconn_session(sc)) {
		m->chunk = cpu_to_be32(sc->chunk);
		/* The region's for its life, whatever connection serves it. */
		while (!sc->generation)
			sc->generation = get_random_u32();
		m->generation = cpu_to_be32(sc->generation);
		ibpost_sconn_joinable(sc);
		m->session = cpu_to_be32(sc->num);
		memcpy(m->token, sc->token, sizeof(m->token));
		m->keep_s = cpu_to_be32(sc->keep_s);
	}
	for (i = 0; i < n; i++) {
		ibpost_target_remote(&sc->target, i, &addr, &rkey);
		m->slot[i].addr = cpu_to_be64(addr);
		m->slot[i].rkey = cpu_to_be32(rkey);
		m->slot[i].length = cpu_to_be32(sc->target.buf.slot_size);
	}
	/* The client's --cpu-util counts from here (its first post). */
	if (!err && (sc->flags & IBPOST_WIRE_CPU))
		ibpost_cpu_mark(&sc->cpu);
	ret = ibpost_ctl_send(&sc->ctl, len, false, 0);
	if (ret)
		return ibpost_sconn_fail(st, ret, IBPOST_R_POST, 0, 0);
	return ibpost_sconn_wait(sc, ibpost_sconn_sent, IBPOST_SCONN_LINGER_MS,
				 false, st);
}

/* At the fin: check the slots an RDMA WRITE job wrote last. */
static void ibpost_sconn_check_writes(struct ibpost_sconn *sc)
{
	struct ibpost_target *t = &sc->target;
	u32 total = t->fin ? t->fin_imm : sc->ctl.zimm;
	u32 nslots = t->buf.nslots, s;
	u64 wr;

	for (s = 0; s < nslots && s < total; s++) {
		wr = s + (u64)nslots * ((total - 1 - s) / nslots);
		ibpost_buf_for_cpu(&t->buf, s);
		ibpost_target_check(t, s, wr, wr);
		t->msgs++;
		/* Up to 256 MiB of slots read: the CPU is shared meanwhile. */
		cond_resched();
	}
}

/*
 * The account of the job: what arrived, or (@err) why the server ended it
 * (@why).
 */
static int ibpost_sconn_result(struct ibpost_sconn *sc, int err,
			       const struct ibpost_status *why,
			       struct ibpost_status *st)
{
	struct ibpost_wire_result *m = ibpost_ctl_sbuf(&sc->ctl);
	u32 len = ibpost_wire_result_size(sc->flags);
	const struct ibpost_target *t = &sc->target;
	struct ibpost_status none = {};
	struct ibpost_cpu_cost cost;
	int ret;

	/* A keep-alive in flight: its completion would race our count. */
	ret = ibpost_sconn_wait(sc, ibpost_sconn_sent, IBPOST_SCONN_LINGER_MS,
				false, st);
	if (ret)
		return ret;
	if (!err && sc->op == IBPOST_OP_WRITE && ibpost_sconn_verify(sc))
		ibpost_sconn_check_writes(sc);
	memset(m, 0, len);
	ibpost_wire_hdr_init(&m->hdr, IBPOST_WIRE_RESULT, len, sc->num);
	ibpost_wire_st_put(&m->st, err, err ? why : &none);
	m->msgs = cpu_to_be64(t->msgs);
	m->bytes = cpu_to_be64(t->bytes);
	m->verify_errors = cpu_to_be32(t->mm.count);
	m->verify_wr = cpu_to_be32((u32)min_t(u64, t->mm_wr, U32_MAX));
	m->verify_sge = cpu_to_be32(t->mm.sge);
	m->verify_offset = cpu_to_be32(t->mm.off);
	m->verify_expected = t->mm.expected;
	m->verify_got = t->mm.got;
	if (sc->flags & IBPOST_WIRE_CPU) {
		/* The window: its last byte checked (the fin's slots too). */
		if (sc->cpu.t_ns)
			ibpost_cpu_since(&sc->cpu, &cost);
		else	/* ended before its ready: an empty window */
			cost = (struct ibpost_cpu_cost){ .ncpus = 1 };
		ibpost_wire_cpu_put((struct ibpost_wire_cpu *)(m + 1),
				    cost.wall_ns, cost.busy_ns, cost.thread_ns,
				    cost.ncpus);
	}
	ret = ibpost_ctl_send(&sc->ctl, len, false, 0);
	if (ret)
		return ibpost_sconn_fail(st, ret, IBPOST_R_POST, 0, 0);
	/*
	 * The job is done: a client that read the result may disconnect
	 * before the send's completion is reaped here (the linger reaps it).
	 */
	return 0;
}

/* What the connection's QP used, once it drained. */
static void ibpost_sconn_drained(void *arg)
{
	struct ibpost_sconn *sc = arg;

	ibpost_target_free(&sc->target);
	ibpost_srv_uncharge(sc);
	ibpost_ctl_free(&sc->ctl);
}

/* Free everything of the connection; the thread then only waits. */
static void ibpost_sconn_teardown(struct ibpost_sconn *sc, bool qp_ok)
{
	if (qp_ok)
		ibpost_target_invalidate(&sc->target);
	/* The session's other queues: in its PD, gone before its MRs. */
	ibpost_sjoin_end_all(sc);
	/* QP, CQ, PD and the id, which the accepted endpoint owns. */
	ibpost_cm_close(&sc->ep, ibpost_sconn_drained, sc);
	sc->id = NULL;
	ibpost_dev_put(sc->dev);
}

/*
 * A message on the control receive while the job runs (a second job, say):
 * it took the receive the fin needed.  The job ends with the reason.
 */
static int ibpost_sconn_stray(struct ibpost_sconn *sc,
			      struct ibpost_status *st)
{
	const void *m;
	u32 len;
	int ret;

	m = ibpost_ctl_take(&sc->ctl, &len);
	if (!m)
		return 0;
	ret = ibpost_wire_order_check(true, m, len, st);
	ibpost_ctl_release(&sc->ctl, m, false);
	return ret;
}

/**
 * ibpost_sconn_abandon() - free a connection whose thread never ran.
 * @sc: the connection, its thread stopped before ibpost_sconn_thread().
 *
 * Context: process context (the server's release).
 */
void ibpost_sconn_abandon(struct ibpost_sconn *sc)
{
	ibpost_sconn_teardown(sc, false);
}

/*
 * A session's region outlives the loss of its connection for the time it
 * was granted (the client's ask, at most --max-keep): the
 * client's QP or the fabric failed, or the client went quiet.  Not when
 * the server or the device is going, nor when the client ended it.
 */
static bool ibpost_sconn_keepable(struct ibpost_sconn *sc, int err)
{
	return ibpost_sconn_session(sc) && sc->has_token && sc->keep_s &&
	       (err == -ECONNRESET || err == -EIO || err == -ETIMEDOUT) &&
	       !kthread_should_stop() && !READ_ONCE(sc->dev->dying);
}

/* The session is to be ended: no resume claims it from now on. */
static void ibpost_sconn_ending(struct ibpost_sconn *sc)
{
	mutex_lock(&sc->srv->lock);
	sc->ending = true;
	mutex_unlock(&sc->srv->lock);
	wake_up(&sc->wake);
	/* A resume that claimed it first: its handler is done with @sc. */
	wait_event(sc->wake, !READ_ONCE(sc->resuming));
}

static bool ibpost_sconn_keep_over(struct ibpost_sconn *sc)
{
	return READ_ONCE(sc->resumed) || kthread_should_stop() ||
	       READ_ONCE(sc->dev->dying);
}

/*
 * The resumed connection's handshake: the job message again, which must
 * ask for the region the session had, then a ready with its chunks (the
 * same rkeys), the same generation and a new token.
 */
static int ibpost_sconn_rejoin(struct ibpost_sconn *sc,
			       struct ibpost_status *st)
{
	struct ibpost_serve_event ev = {
		.kind = IBPOST_SRV_RESUMED,
		.conn = sc->num,
		.value = sc->num,
	};
	u64 bytes = sc->region_bytes;
	u32 chunk = sc->chunk;
	int ret;

	sc->t_active = jiffies;
	sc->t_kick = jiffies;
	sc->kick_out = false;
	sc->peer_seen = 0;
	ret = ibpost_sconn_wait(sc, ibpost_sconn_have_job,
				sc->srv->args.idle_ms, false, st);
	if (ret)
		return ret;
	ret = ibpost_sconn_job(sc, st);
	if (!ret && (!ibpost_sconn_session(sc) || sc->region_bytes != bytes ||
		     sc->chunk != chunk))
		ret = ibpost_sconn_fail(st, -EINVAL, IBPOST_R_BUF_SIZE,
					sc->region_bytes, bytes);
	/* The chunks, as they were: no other size reaches the target. */
	sc->region_bytes = bytes;
	sc->chunk = chunk;
	if (ret) {
		ibpost_srv_conn_event(sc, IBPOST_SRV_REFUSED, ret, st);
		ibpost_sconn_ready(sc, ret, st);
		return ret;
	}
	sc->t_active = jiffies;
	ret = ibpost_sconn_ready(sc, 0, st);
	if (ret)
		return ret;
	ev.limit = sc->resumes;
	ibpost_srv_peer(&ev, (struct sockaddr *)&sc->id->route.addr.dst_addr);
	ibpost_srv_event(sc->srv, &ev);
	return 0;
}

/*
 * Keep a session whose connection was lost (@err, why in @st): its QP,
 * CQ, control slots, joined queues and id go, its PD and the region's
 * MRs stay (no QP is in that PD while it waits: nothing reaches them).
 * Up to the seconds granted to the session (its ask, at most --max-keep)
 * for the client to take it back
 * (ibpost_sconn_resume()); then the resumed connection's handshake.
 * Return: 0 with the session resumed and running again, else why not.
 */
static int ibpost_sconn_keep(struct ibpost_sconn *sc, int err,
			     struct ibpost_status *st)
{
	struct ibpost_server *srv = sc->srv;
	u32 keep_s = sc->keep_s;
	unsigned long end = jiffies + keep_s * HZ;
	struct ibpost_serve_event ev = {
		.kind = IBPOST_SRV_KEPT,
		.conn = sc->num,
		.err = err,
		.reason = st->reason,
		.value = sc->num,
		.limit = keep_s,
	};
	bool resumed;

	if (sc->id)
		ibpost_srv_peer(&ev, (struct sockaddr *)
				&sc->id->route.addr.dst_addr);
	ibpost_sjoin_end_all(sc);
	ibpost_cm_disconnect(&sc->ep);
	ibpost_ep_drain(&sc->ep);
	ibpost_ctl_free(&sc->ctl);
	memset(&sc->ctl, 0, sizeof(sc->ctl));
	/* The id goes with the QP: none of its events reaches @sc again. */
	ibpost_ep_detach(&sc->ep);
	sc->id = NULL;
	sc->target.wc_status = IB_WC_SUCCESS;
	ibpost_srv_event(srv, &ev);
	mutex_lock(&srv->lock);
	sc->kept = true;
	mutex_unlock(&srv->lock);
	wake_up(&sc->wake);
	while (!ibpost_sconn_keep_over(sc) && time_before(jiffies, end))
		wait_event_timeout(sc->wake, ibpost_sconn_keep_over(sc),
				   msecs_to_jiffies(IBPOST_SCONN_KEEP_SLICE_MS));
	mutex_lock(&srv->lock);
	sc->kept = false;
	mutex_unlock(&srv->lock);
	/* A resume that claimed it in time: its handler is done with @sc. */
	wait_event(sc->wake, !READ_ONCE(sc->resuming));
	resumed = READ_ONCE(sc->resumed);
	sc->resumed = false;
	/* Not -ETIMEDOUT: the region is gone, not kept again. */
	if (!resumed)
		return ibpost_sconn_fail(st, -ESTALE, IBPOST_R_REGION_LOST,
					 sc->num, keep_s);
	if (kthread_should_stop())
		return ibpost_sconn_fail(st, -ESHUTDOWN, IBPOST_R_PEER_LOST,
					 0, 0);
	memset(st, 0, sizeof(*st));
	return ibpost_sconn_rejoin(sc, st);
}

/*
 * May the resume @j claim its session now (srv->lock held)?  The session
 * (@resuming set), or NULL with the refusal in @st and @err; *@live when
 * it matched a session that is still running (not kept yet).
 */
static struct ibpost_sconn *ibpost_sconn_claim(struct ibpost_server *srv,
					       struct rdma_cm_id *id,
					       const struct ibpost_wire_join *j,
					       struct ibpost_status *st,
					       int *err, bool *live)
{
	u32 num = be32_to_cpu(j->session);
	struct ibpost_sconn *sc = ibpost_srv_session(srv, num);

	*live = false;
	*err = -EBUSY;
	if (srv->stopping) {
		ibpost_status_set(st, IBPOST_R_PEER_BUSY, srv->active,
				  srv->args.max_conns);
		return NULL;
	}
	/*
	 * Who asks before what it asks about: the session's address and
	 * token (crypto_memneq()) first, and one answer to every resume that
	 * fails them or names a region the server does not keep (another
	 * generation, or none any more: the client's data is gone): a host
	 * without the token learns neither which sessions exist nor their
	 * generation, whatever it guessed.  The answer's value and limit are
	 * the requester's own number and generation.
	 */
	*err = -ESTALE;
	if (!sc || !sc->has_token || ibpost_srv_session_auth(sc, id, j, st) ||
	    sc->ending || sc->finished ||
	    sc->generation != be32_to_cpu(j->generation)) {
		ibpost_status_set(st, IBPOST_R_REGION_LOST, num,
				  be32_to_cpu(j->generation));
		return NULL;
	}
	*err = -EXDEV;
	if (id->device != sc->ep.ibdev) {
		ibpost_status_set(st, IBPOST_R_CONNECT, EXDEV, 0);
		return NULL;
	}
	*err = -EBUSY;
	if (sc->resuming) {
		ibpost_status_set(st, IBPOST_R_PEER_BUSY, num, 0);
		return NULL;
	}
	sc->resuming = true;
	*live = !sc->kept;
	return sc;
}

/*
 * Give up a claim (ibpost_sconn_claim()): the thread may end @sc.  Woken
 * under the lock: the thread's wait may see @resuming clear before the
 * wake, but takes the lock before @sc can be freed.
 */
static void ibpost_sconn_unclaim(struct ibpost_sconn *sc, bool resumed)
{
	struct ibpost_server *srv = sc->srv;

	mutex_lock(&srv->lock);
	sc->resumed = resumed;
	sc->resuming = false;
	wake_up(&sc->wake);
	mutex_unlock(&srv->lock);
}

static bool ibpost_sconn_settled(struct ibpost_sconn *sc)
{
	return READ_ONCE(sc->kept) || READ_ONCE(sc->ending);
}

/**
 * ibpost_sconn_resume() - a connect request that takes a kept session's
 *	region back (IBPOST_WIRE_HELLO_RESUME).
 * @srv: the server.
 * @id: the request's new id.
 * @ev: the request.
 * @j: its private data, checked (ibpost_wire_hello_check()).
 *
 * The session must exist with the region's generation and the token of
 * its last ready (crypto_memneq()), on the same device.  A session the
 * server still runs is one whose client saw the connection fail first:
 * the token proves the request is that client's, so the old connection
 * ends now and the request waits up to IBPOST_SCONN_EVICT_MS for it to
 * be kept.  The new QP is made in the session's PD: the region's MRs work
 * on it.  Refused with IBPOST_R_REGION_LOST (no such region: the server
 * restarted, or the keep time ran out; and, the same answer, another
 * address or token: ibpost_sconn_claim()), IBPOST_R_CONNECT (another
 * device) or IBPOST_R_PEER_BUSY (being taken back already, or not kept in
 * time: try again).  Only the token's holder can make the handler wait
 * for a live session to be kept, at most IBPOST_SCONN_EVICT_MS, one
 * claim of a session at a time.
 *
 * Context: the listener's rdma_cm handler (connect requests one at a time).
 * Return: 0 (accepted: the session's thread serves it), or 1 (rejected:
 * rdma_cm destroys @id).
 */
int ibpost_sconn_resume(struct ibpost_server *srv, struct rdma_cm_id *id,
			const struct rdma_cm_event *ev,
			const struct ibpost_wire_join *j)
{
	struct ibpost_status st = {};
	struct ibpost_sconn *sc;
	bool live;
	int ret;

	mutex_lock(&srv->lock);
	sc = ibpost_sconn_claim(srv, id, j, &st, &ret, &live);
	mutex_unlock(&srv->lock);
	if (!sc)
		return ibpost_srv_reject(id, ret, st.reason, st.value,
					 st.limit);
	if (live) {
		/* @resuming holds @sc: its thread waits before it ends. */
		WRITE_ONCE(sc->lost, true);
		wake_up(&sc->wake);
		wait_event_timeout(sc->wake, ibpost_sconn_settled(sc),
				   msecs_to_jiffies(IBPOST_SCONN_EVICT_MS));
		mutex_lock(&srv->lock);
		live = !sc->kept;
		ret = sc->ending ? -ESTALE : -EBUSY;
		mutex_unlock(&srv->lock);
		if (live) {
			ibpost_sconn_unclaim(sc, false);
			ibpost_status_set(&st, ret == -ESTALE ?
					  IBPOST_R_REGION_LOST :
					  IBPOST_R_PEER_BUSY,
					  be32_to_cpu(j->session), 0);
			return ibpost_srv_reject(id, ret, st.reason, st.value,
						 st.limit);
		}
	}
	/* Kept: the thread touches neither @id, @hello, @ctl nor the QP. */
	sc->id = id;
	sc->hello = j->hello;
	sc->hello.flags = cpu_to_be16(IBPOST_WIRE_HELLO_REGION);
	WRITE_ONCE(sc->lost, false);
	ret = ibpost_sconn_qp(sc);
	if (!ret)
		ret = ibpost_cm_accept(&sc->ep, &ev->param.conn);
	if (ret) {
		ibpost_ep_drain(&sc->ep);
		ibpost_ctl_free(&sc->ctl);
		memset(&sc->ctl, 0, sizeof(sc->ctl));
		/* Not accepted: the id stays rdma_cm's, the PD the region's. */
		ibpost_ep_detach(&sc->ep);
		sc->id = NULL;
		ibpost_sconn_unclaim(sc, false);
		return ibpost_srv_reject(id, ret, IBPOST_R_CONNECT, -ret, 0);
	}
	mutex_lock(&srv->lock);
	id->context = sc;
	memcpy(&sc->peer, &id->route.addr.dst_addr, sizeof(sc->peer));
	sc->resumes++;
	mutex_unlock(&srv->lock);
	ibpost_srv_conn_event(sc, IBPOST_SRV_CONNECT, 0, NULL);
	ibpost_sconn_unclaim(sc, true);
	return 0;
}

/*
 * The job's time limit ran out (@err, why in @st): the client gets the
 * result with that reason (wire.rst) before the teardown, and its send is
 * waited for (the teardown's disconnect would flush it).  The job is
 * over whatever the client's WRs still do: its rkeys die in the teardown.
 */
static void ibpost_sconn_time_up(struct ibpost_sconn *sc, int err,
				 const struct ibpost_status *st)
{
	struct ibpost_status scratch = {};

	if (!ibpost_sconn_result(sc, err, st, &scratch))
		ibpost_sconn_wait(sc, ibpost_sconn_sent, IBPOST_SCONN_LINGER_MS,
				  false, &scratch);
}

/* The client's job, from its description to the answer to its fin. */
static int ibpost_sconn_run(struct ibpost_sconn *sc, struct ibpost_status *st,
			    bool *refused)
{
	struct ibpost_status none = {};
	int ret, stray;

	/*
	 * The client's idle time starts now: creating a deep queue took the
	 * server's time, not the client's (seconds on a debug kernel for a
	 * hello of depth 4096, and the job was refused as never sent).
	 */
	sc->t_active = jiffies;
	ret = ibpost_sconn_wait(sc, ibpost_sconn_have_job,
				sc->srv->args.idle_ms, false, st);
	if (ret)
		return ret;
	ret = ibpost_sconn_job(sc, st);
	if (!ret)
		ret = ibpost_sconn_setup(sc, st);
	if (ret) {
		/* The client learns why; the server goes on. */
		*refused = true;
		ibpost_srv_conn_event(sc, IBPOST_SRV_REFUSED, ret, st);
		ibpost_sconn_ready(sc, ret, st);
		return ret;
	}
	/* The set-up was the server's time too: idle counts from ready. */
	sc->t_job = jiffies;
	sc->t_active = sc->t_job;
	ret = ibpost_sconn_ready(sc, 0, st);
	if (ret)
		return ret;
	ibpost_sconn_job_event(sc);
	ret = ibpost_sconn_wait(sc, ibpost_sconn_have_fin, 0, true, st);
	/* A lost session's region waits for its client (its keep time). */
	while (ret && ibpost_sconn_keepable(sc, ret)) {
		ret = ibpost_sconn_keep(sc, ret, st);
		if (!ret)
			ret = ibpost_sconn_wait(sc, ibpost_sconn_have_fin, 0,
						true, st);
	}
	if (ret == -ETIMEDOUT && st->reason == IBPOST_R_SRV_JOB_TIME) {
		ibpost_sconn_time_up(sc, ret, st);
		return ret;
	}
	if (ret)
		return ret;
	/* What the handler queued before the fin is checked. */
	ibpost_target_pending(&sc->target);
	/* A session's end: no queue joins it any more. */
	mutex_lock(&sc->srv->lock);
	sc->joinable = false;
	mutex_unlock(&sc->srv->lock);
	/*
	 * A message out of order ends the job: said first, for the client's
	 * WRs may meet the dead rkeys and take the QP to error.
	 */
	stray = ibpost_sconn_stray(sc, st);
	if (stray) {
		*refused = true;
		ibpost_srv_conn_event(sc, IBPOST_SRV_REFUSED, stray, st);
	}
	/* The client's WRs completed (or it broke the order): rkeys die. */
	ret = ibpost_target_invalidate(&sc->target);
	if (stray) {
		if (!ret)
			ibpost_sconn_result(sc, stray, st, &none);
		return stray;
	}
	if (ret)
		return ibpost_sconn_fail(st, ret, IBPOST_R_WC_ERROR, 0, 0);
	return ibpost_sconn_result(sc, 0, NULL, st);
}

/**
 * ibpost_sconn_thread() - serve one connection.
 * @arg: the struct ibpost_sconn.
 *
 * Does the job, reports how it ended, frees everything, then waits to be
 * reaped with kthread_stop().
 *
 * Context: the connection's kthread.
 * Return: 0.
 */
int ibpost_sconn_thread(void *arg)
{
	struct ibpost_sconn *sc = arg;
	struct ibpost_status st = {};
	bool refused = false;
	int ret;

	ret = ibpost_sconn_run(sc, &st, &refused);
	ibpost_sconn_ending(sc);
	if (!ret)
		ibpost_srv_conn_event(sc, IBPOST_SRV_DONE, 0, NULL);
	else if (!refused)
		ibpost_srv_conn_event(sc, IBPOST_SRV_LOST, ret, &st);
	/* Let the client disconnect first: it has read the answer by then. */
	if (!ret || refused)
		ibpost_sconn_wait(sc, ibpost_sconn_never,
				  IBPOST_SCONN_LINGER_MS, false, &st);
	ibpost_sconn_teardown(sc, sc->ep.qp &&
			      sc->target.wc_status == IB_WC_SUCCESS &&
			      sc->ctl.wc_status == IB_WC_SUCCESS &&
			      !READ_ONCE(sc->dev->dying));
	ibpost_srv_finished(sc);
	ibpost_kthread_wait_stop();
	return 0;
}
