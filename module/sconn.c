// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: one served connection, from the client's job to its result.
 *
 * Each connection has its own thread, which polls the connection's CQ.
 * The job the client describes is checked against the server's own limits
 * before anything is allocated for it: every count, length and offset
 * comes from another host.  The slots the client may touch are registered
 * for this job alone, with only the access its opcode needs, and
 * invalidated before the connection is torn down.  While a job runs the
 * server checks what arrives (SEND, the _IMM opcodes), answers the fin
 * with its account (an RDMA WRITE job's slots are checked then), and sends
 * a keep-alive when the client has been quiet, so that a client that died
 * is noticed within the idle time.
 */
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/slab.h>

#include "abi.h"
#include "job.h"
#include "serve.h"

/* How long to wait for the client to disconnect after the last answer. */
#define IBPOST_SCONN_LINGER_MS	5000

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

static bool ibpost_sconn_wait_done(void *arg)
{
	struct ibpost_sconn_wait *sw = arg;

	return sw->done(sw->sc);
}

static int ibpost_sconn_wait_stop(void *arg)
{
	struct ibpost_sconn_wait *sw = arg;
	struct ibpost_sconn *sc = sw->sc;
	u32 idle_ms = sc->srv->args.idle_ms;

	if (time_after(sc->ep.t_reaped, sc->t_active))
		sc->t_active = sc->ep.t_reaped;
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
	if (time_after(jiffies, sc->t_active + msecs_to_jiffies(idle_ms)))
		return ibpost_sconn_fail(sw->st, -ETIMEDOUT, IBPOST_R_TIMEOUT,
					 idle_ms, idle_ms);
	return 0;
}

/* A quiet client hears a keep-alive: a dead one is noticed by its QP. */
static void ibpost_sconn_wait_kick(void *arg)
{
	struct ibpost_sconn_wait *sw = arg;
	struct ibpost_sconn *sc = sw->sc;
	unsigned long idle = msecs_to_jiffies(sc->srv->args.idle_ms);

	if (sw->alive && !sc->ctl.sends_out &&
	    time_after(jiffies, sc->t_active + idle / 4) &&
	    ibpost_ctl_send(&sc->ctl, 0, true, IBPOST_WIRE_IMM_ALIVE))
		sw->post_err = -EIO;
}

/*
 * Nothing completed: spin on while messages are arriving (a receive must
 * be reposted soon, or the client's SENDs meet receiver-not-ready), else
 * sleep: briefly for a job that receives, longer for one that does not
 * (its RDMA WRITEs and READs need nothing of this thread, and every
 * wake-up takes CPU time from the provider on the same machine).
 */
static void ibpost_sconn_idle(void *arg)
{
	struct ibpost_sconn *sc = ((struct ibpost_sconn_wait *)arg)->sc;
	bool recv = sc->target.buf.nslots && ibpost_op_has_recv(sc->op);

	ibpost_softirq_flush();
	if (recv && time_before(jiffies, sc->ep.t_reaped + msecs_to_jiffies(4)))
		return;
	if (recv)
		usleep_range(50, 200);
	else
		usleep_range(500, 1000);
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
		.idle = ibpost_sconn_idle,
		.arg = &sw,
		.deadline = ms ? jiffies + msecs_to_jiffies(ms) : 0,
	};
	int ret = ibpost_ep_poll_until(&w);

	if (ret == -ETIMEDOUT && st->reason == IBPOST_R_NONE)
		ret = ibpost_sconn_fail(st, -ETIMEDOUT, IBPOST_R_TIMEOUT, ms,
					ms);
	return ret;
}

static bool ibpost_sconn_have_msg(struct ibpost_sconn *sc)
{
	return sc->ctl.msg >= 0;
}

static bool ibpost_sconn_sent(struct ibpost_sconn *sc)
{
	return !sc->ctl.sends_out;
}

static bool ibpost_sconn_have_fin(struct ibpost_sconn *sc)
{
	return sc->target.fin || sc->ctl.zcount;
}

static bool ibpost_sconn_never(struct ibpost_sconn *sc)
{
	return false;
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
	if (sc->flags & ~(IBPOST_WIRE_VERIFY | IBPOST_WIRE_SESSION) ||
	    m->reserved)
		return ibpost_sconn_fail(st, -EINVAL, IBPOST_R_FLAGS,
					 sc->flags, IBPOST_WIRE_VERIFY |
					 IBPOST_WIRE_SESSION);
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
	return 0;
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
	};

	ibpost_target_init(&sc->target, &d);
}

/* Slots and their size; the memory and the MR they need, bounded. */
static int ibpost_sconn_sizes(struct ibpost_sconn *sc, u32 *nslots,
			      u32 *slot_size, struct ibpost_status *st)
{
	struct ibpost_slots s;

	/*
	 * WR msg of a WRITE_WITH_IMM writes slot msg % (2 * depth): no slot
	 * is written again before its receive was checked.
	 */
	*nslots = sc->op == IBPOST_OP_WRITE_IMM ? 2 * sc->depth : sc->depth;
	if (ibpost_sconn_session(sc))
		*nslots = 1;
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

	m = ibpost_ctl_take(&sc->ctl, &len);
	ret = ibpost_wire_hdr_check(&m->hdr, len, IBPOST_WIRE_JOB, st);
	if (!ret && len < sizeof(*m))
		ret = ibpost_sconn_fail(st, -EPROTO, IBPOST_R_PEER_PROTO, len,
					sizeof(*m));
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
	for (i = 0; i < n; i++) {
		ibpost_target_remote(&sc->target, i, &addr, &rkey);
		m->slot[i].addr = cpu_to_be64(addr);
		m->slot[i].rkey = cpu_to_be32(rkey);
		m->slot[i].length = cpu_to_be32(sc->target.buf.slot_size);
	}
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
	}
}

static int ibpost_sconn_result(struct ibpost_sconn *sc,
			       struct ibpost_status *st)
{
	struct ibpost_wire_result *m = ibpost_ctl_sbuf(&sc->ctl);
	const struct ibpost_target *t = &sc->target;
	struct ibpost_status none = {};
	int ret;

	if (sc->op == IBPOST_OP_WRITE && ibpost_sconn_verify(sc))
		ibpost_sconn_check_writes(sc);
	memset(m, 0, sizeof(*m));
	ibpost_wire_hdr_init(&m->hdr, IBPOST_WIRE_RESULT, sizeof(*m), sc->num);
	ibpost_wire_st_put(&m->st, 0, &none);
	m->msgs = cpu_to_be64(t->msgs);
	m->bytes = cpu_to_be64(t->bytes);
	m->verify_errors = cpu_to_be32(t->mm.count);
	m->verify_wr = cpu_to_be32((u32)min_t(u64, t->mm_wr, U32_MAX));
	m->verify_sge = cpu_to_be32(t->mm.sge);
	m->verify_offset = cpu_to_be32(t->mm.off);
	m->verify_expected = t->mm.expected;
	m->verify_got = t->mm.got;
	ret = ibpost_ctl_send(&sc->ctl, sizeof(*m), false, 0);
	if (ret)
		return ibpost_sconn_fail(st, ret, IBPOST_R_POST, 0, 0);
	/*
	 * The job is done: a client that read the result may disconnect
	 * before the send's completion is reaped here (the linger reaps it).
	 */
	return 0;
}

/* Free everything of the connection; the thread then only waits. */
static void ibpost_sconn_teardown(struct ibpost_sconn *sc, bool qp_ok)
{
	if (qp_ok)
		ibpost_target_invalidate(&sc->target);
	rdma_disconnect(sc->id);
	ibpost_ep_drain(&sc->ep);
	ibpost_target_free(&sc->target);
	ibpost_ctl_free(&sc->ctl);
	rdma_destroy_qp(sc->id);
	sc->ep.qp = NULL;
	ibpost_ep_destroy(&sc->ep);
	rdma_destroy_id(sc->id);
	sc->id = NULL;
	ibpost_dev_put(sc->dev);
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

/* The client's job, from its description to the answer to its fin. */
static int ibpost_sconn_run(struct ibpost_sconn *sc, struct ibpost_status *st,
			    bool *refused)
{
	int ret;

	ret = ibpost_sconn_wait(sc, ibpost_sconn_have_msg,
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
	ret = ibpost_sconn_ready(sc, 0, st);
	if (ret)
		return ret;
	ibpost_srv_conn_event(sc, IBPOST_SRV_JOB, 0, NULL);
	ret = ibpost_sconn_wait(sc, ibpost_sconn_have_fin, 0, true, st);
	if (ret)
		return ret;
	/* Every WR of the client completed: its rkeys die now. */
	ret = ibpost_target_invalidate(&sc->target);
	if (ret)
		return ibpost_sconn_fail(st, ret, IBPOST_R_WC_ERROR, 0, 0);
	return ibpost_sconn_result(sc, st);
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
	if (!ret)
		ibpost_srv_conn_event(sc, IBPOST_SRV_DONE, 0, NULL);
	else if (!refused)
		ibpost_srv_conn_event(sc, IBPOST_SRV_LOST, ret, &st);
	/* Let the client disconnect first: it has read the answer by then. */
	if (!ret || refused)
		ibpost_sconn_wait(sc, ibpost_sconn_never,
				  IBPOST_SCONN_LINGER_MS, false, &st);
	ibpost_sconn_teardown(sc, sc->target.wc_status == IB_WC_SUCCESS &&
			      sc->ctl.wc_status == IB_WC_SUCCESS &&
			      !READ_ONCE(sc->dev->dying));
	ibpost_srv_finished(sc);
	ibpost_kthread_wait_stop();
	return 0;
}
