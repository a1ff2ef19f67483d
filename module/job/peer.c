// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: the client side of a job against `ibpost serve` on another host.
 *
 * The job keeps its initiator endpoint, local buffers and hot path
 * (post.c); what changes is where the target is: the remote slot table
 * the hot path uses comes from the server.  The connect request carries a hello
 * (wire.h) that sizes the server's queues; after ESTABLISHED the job sends
 * its description, and the server answers with the slots (address, rkey)
 * it registered for this job alone.  At the end a zero-byte fin carries the
 * number of WRs posted, and the server answers with what it found: bytes
 * and messages received, verification of what landed there.
 *
 * Test hook (test builds only, core/testhook.h): the module parameter
 * peer_fault makes the next client misbehave on the wire, so that the
 * server's checks can be seen to work.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "job/job.h"
#include "core/testhook.h"

/* The pace of the trickle fault. */
#define IBPOST_PEER_TRICKLE_NS		(3 * NSEC_PER_MSEC)

/* The first slot of the last job's answer (the stale-rkey fault). */
static u64 ibpost_peer_prev_addr;
static u32 ibpost_peer_prev_rkey;

/* How long the server may take to answer a job or a fin. */
#define IBPOST_PEER_ANSWER_MS	10000

static bool ibpost_peer_reads(const struct ibpost_job *job)
{
	return job->run->op == IBPOST_OP_READ;
}

/**
 * ibpost_peer_caps() - what the QP of a peer job needs, and the hello.
 * @job: the job (layouts resolved).
 * @caps: queue sizes to complete.
 */
void ibpost_peer_caps(struct ibpost_job *job, struct ibpost_conn_caps *caps)
{
	struct ibpost_peer *p = &job->peer;
	struct ibpost_run *run = job->run;

	p->fault = ibpost_test_take(peer_fault);
	ibpost_client_caps(&p->cl, job->depth,
			   ibpost_op_is_send(run->op) ? job->recv_num_sge : 0,
			   run->cm_port, run->cm_timeout_ms, caps);
	if (ibpost_test_fault(p->fault, IBPOST_PEER_FAULT_VERSION))
		p->cl.hello.version = cpu_to_be16(99);
	if (ibpost_test_fault(p->fault, IBPOST_PEER_FAULT_HELLO_FLAGS))
		p->cl.hello.flags = cpu_to_be16(0x8000);
	if (ibpost_test_fault(p->fault, IBPOST_PEER_FAULT_HELLO_TAIL)) {
		memcpy(p->priv, &p->cl.hello, sizeof(p->cl.hello));
		memset(p->priv + sizeof(p->cl.hello), 0xff,
		       sizeof(p->priv) - sizeof(p->cl.hello));
		p->cl.cp.priv = p->priv;
		p->cl.cp.priv_len = sizeof(p->priv);
	}
}

/**
 * ibpost_peer_hold() - the trickle fault: is it too early for the next WR?
 * @job: a job (loopback jobs have no fault).
 *
 * Return: true to post nothing now.
 */
bool ibpost_peer_hold(struct ibpost_job *job)
{
	struct ibpost_peer *p = &job->peer;
	u64 now;

	if (likely(!ibpost_test_fault(p->fault, IBPOST_PEER_FAULT_TRICKLE)))
		return false;
	now = ktime_get_ns();
	if (now < p->t_next)
		return true;
	p->t_next = now + IBPOST_PEER_TRICKLE_NS;
	return false;
}

/**
 * ibpost_peer_rejected() - turn the server's rejection into the status.
 * @job: the job whose connect was refused.
 */
void ibpost_peer_rejected(struct ibpost_job *job)
{
	/* Not an ibpost server's words: the connect's own status stays. */
	if (ibpost_client_rejected(&job->peer.cl, &job->run->status))
		job->run->result.peer = 1;
}

/* What ends a wait for the server early: the job's own stop tests. */
static int ibpost_peer_wait_stop(void *arg)
{
	struct ibpost_job *job = arg;
	struct ibpost_ctl *ctl = &job->peer.cl.ctl;

	if (ctl->wc_status != IB_WC_SUCCESS) {
		struct ib_wc wc = { .status = ctl->wc_status };

		ibpost_wc_error(job, &wc, IBPOST_STATUS_NONE);
		return job->err;
	}
	return ibpost_job_should_stop(job) ? job->err : 0;
}

/*
 * Wait for the server's answer of @type, at least @min bytes.  Return: the
 * message (give it back with ibpost_client_release(); job->err set when it
 * is malformed), or NULL with job->err set.
 */
static const void *ibpost_peer_answer(struct ibpost_job *job, u16 type,
				      u32 min, u32 *len)
{
	const void *m;
	int ret;

	m = ibpost_client_answer(&job->peer.cl, job->ini, type, min,
				 IBPOST_PEER_ANSWER_MS, ibpost_peer_wait_stop,
				 job, len, &job->run->status, &ret);
	if (ret && !job->err)
		job->err = ret;
	return m;
}

/* The job message's flags for @run: what the server is asked to do. */
static u32 ibpost_peer_wire_flags(const struct ibpost_run *run)
{
	return (run->flags & IBPOST_RUN_VERIFY ? IBPOST_WIRE_VERIFY : 0) |
	       (run->flags & IBPOST_RUN_PEER_CPU ? IBPOST_WIRE_CPU : 0);
}

static u32 ibpost_peer_build_job(struct ibpost_job *job)
{
	struct ibpost_wire_job *m = ibpost_client_sbuf(&job->peer.cl);
	struct ibpost_run *run = job->run;
	u32 rn = ibpost_op_is_send(run->op) ? job->recv_num_sge : 0;
	u32 len = struct_size(m, sge, run->num_sge + rn);

	memset(m, 0, len);
	ibpost_wire_hdr_init(&m->hdr, IBPOST_WIRE_JOB, len, 0);
	if (ibpost_test_fault(job->peer.fault, IBPOST_PEER_FAULT_MSG_VERSION))
		m->hdr.version = cpu_to_be16(IBPOST_WIRE_VERSION + 1);
	if (ibpost_test_fault(job->peer.fault, IBPOST_PEER_FAULT_JOB_CONN))
		m->hdr.conn = cpu_to_be32(7);
	m->op = cpu_to_be32(run->op);
	m->flags = cpu_to_be32(ibpost_peer_wire_flags(run));
	m->msg_size = cpu_to_be32(run->msg_size);
	m->depth = cpu_to_be32(job->depth);
	m->num_sge = cpu_to_be32(run->num_sge);
	m->recv_num_sge = cpu_to_be32(rn);
	m->imm_data = cpu_to_be32(run->imm_data);
	/* A job of so many WRs does not know how long it will take. */
	m->duration_ms = cpu_to_be32(run->iters ? 0 : run->duration_ms);
	ibpost_wire_layout_put(m->sge, job->send_layout, run->num_sge);
	if (rn)
		ibpost_wire_layout_put(m->sge + run->num_sge, job->recv_layout,
				       rn);
	/* The server then expects other bytes than arrive: it must notice. */
	if (ibpost_test_fault(job->peer.fault, IBPOST_PEER_FAULT_CORRUPT) &&
	    run->num_sge > 1) {
		m->sge[0].length = cpu_to_be32(job->send_layout[1].length);
		m->sge[1].length = cpu_to_be32(job->send_layout[0].length);
	}
	if (ibpost_test_fault(job->peer.fault, IBPOST_PEER_FAULT_LENGTH))
		m->sge[0].length = cpu_to_be32(job->send_layout[0].length +
					       IBPOST_SLOT_MAX);
	/* 8 zero bytes more than the header says (the slot has room) */
	if (ibpost_test_fault(job->peer.fault, IBPOST_PEER_FAULT_JOB_LENGTH)) {
		memset((u8 *)m + len, 0, 8);
		return len + 8;
	}
	return len;
}

/* The server refused: its reason becomes the job's. */
static int ibpost_peer_refused(struct ibpost_job *job,
			       const struct ibpost_wire_status *w)
{
	struct ibpost_status *st = &job->run->status;
	int ret = ibpost_wire_st_get(w, st);

	job->run->result.peer = 1;
	if (!ret) {
		ibpost_status_set(st, IBPOST_R_PEER_PROTO, 0, 0);
		ret = -EPROTO;
	}
	job->err = ret;
	return ret;
}

static int ibpost_peer_slots(struct ibpost_job *job,
			     const struct ibpost_wire_ready *m, u32 len)
{
	struct ibpost_peer *p = &job->peer;
	struct ibpost_status *st = &job->run->status;
	u32 n = be32_to_cpu(m->nslots), i;
	u64 *raddr;
	u32 *rkey;

	if (!n || n > 2 * job->depth || ibpost_wire_ready_size(n) > len) {
		ibpost_status_set(st, IBPOST_R_PEER_PROTO, n, 2 * job->depth);
		job->err = -EPROTO;
		return -EPROTO;
	}
	raddr = kvcalloc(n, sizeof(*raddr), GFP_KERNEL);
	rkey = kvcalloc(n, sizeof(*rkey), GFP_KERNEL);
	/* The job frees them, whatever happens now. */
	kvfree(job->raddr);
	kvfree(job->rkey);
	job->raddr = raddr;
	job->rkey = rkey;
	if (!raddr || !rkey) {
		ibpost_status_set(st, IBPOST_R_NOMEM, n, 0);
		job->err = -ENOMEM;
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		if (be32_to_cpu(m->slot[i].length) < job->run->msg_size) {
			ibpost_status_set(st, IBPOST_R_PEER_PROTO,
					  be32_to_cpu(m->slot[i].length),
					  job->run->msg_size);
			job->err = -EPROTO;
			return -EPROTO;
		}
		raddr[i] = be64_to_cpu(m->slot[i].addr);
		rkey[i] = be32_to_cpu(m->slot[i].rkey);
	}
	job->rslots = n;
	/* The server stamped slot i once, with the pattern of WR i. */
	if (ibpost_peer_reads(job))
		job->pattern_mod = n;
	if (ibpost_test_fault(p->fault, IBPOST_PEER_FAULT_STALE_RKEY)) {
		for (i = 0; i < n; i++) {
			raddr[i] = READ_ONCE(ibpost_peer_prev_addr);
			rkey[i] = READ_ONCE(ibpost_peer_prev_rkey);
		}
	} else {
		WRITE_ONCE(ibpost_peer_prev_addr, raddr[0]);
		WRITE_ONCE(ibpost_peer_prev_rkey, rkey[0]);
	}
	return 0;
}

/**
 * ibpost_peer_start() - send the job, take the server's slots.
 * @job: a connected peer job.
 *
 * Context: process context; polls the initiator CQ.
 * Return: 0, or the job's error (a refusal names the server's reason, with
 * result.peer set).
 */
int ibpost_peer_start(struct ibpost_job *job)
{
	struct ibpost_peer *p = &job->peer;
	const struct ibpost_wire_ready *m;
	u32 len;
	int ret;

	ret = ibpost_client_open(&p->cl, job->ini,
				 ibpost_ctl_size(2 * job->depth));
	if (ret) {
		ibpost_job_fail(job, ret, IBPOST_R_NOMEM, IBPOST_STATUS_NONE);
		return ret;
	}
	if (ibpost_test_fault(p->fault, IBPOST_PEER_FAULT_FIN_FIRST))
		ret = ibpost_client_fin(&p->cl, 0);
	if (!ret)
		ret = ibpost_client_send(&p->cl, ibpost_peer_build_job(job));
	if (ret) {
		ibpost_job_fail(job, ret, IBPOST_R_POST, IBPOST_STATUS_NONE);
		return ret;
	}
	m = ibpost_peer_answer(job, IBPOST_WIRE_READY, sizeof(*m), &len);
	if (!m)
		return job->err;
	if (!job->err) {
		job->run->result.peer_conn = p->cl.conn;
		if (m->st.err)
			ibpost_peer_refused(job, &m->st);
		else
			ibpost_peer_slots(job, m, len);
	}
	ibpost_client_release(&p->cl, m, true);
	/* the job again, while it runs: the server must end it */
	if (!job->err &&
	    ibpost_test_fault(p->fault, IBPOST_PEER_FAULT_JOB_TWICE) &&
	    ibpost_client_send(&p->cl, ibpost_peer_build_job(job)))
		ibpost_job_fail(job, -EIO, IBPOST_R_POST, IBPOST_STATUS_NONE);
	return job->err;
}

static void ibpost_peer_merge(struct ibpost_job *job,
			      const struct ibpost_wire_result *m)
{
	struct ibpost_result *res = &job->run->result;
	u32 bad = be32_to_cpu(m->verify_errors);
	int ret;

	res->peer_msgs = be64_to_cpu(m->msgs);
	if (m->st.err) {
		ibpost_peer_refused(job, &m->st);
		return;
	}
	if (job->run->flags & IBPOST_RUN_PEER_CPU) {
		/* ibpost_peer_fin() asked for the bytes of one */
		ret = ibpost_wire_cpu_get((const struct ibpost_wire_cpu *)(m + 1),
					  res, &job->run->status);
		if (ret) {
			/* the status says which field: keep its value */
			job->err = ret;
			return;
		}
	}
	if (!bad)
		return;
	res->peer = 1;
	res->verify_errors = bad;
	res->verify_wr = be32_to_cpu(m->verify_wr);
	res->verify_sge = be32_to_cpu(m->verify_sge);
	res->verify_offset = be32_to_cpu(m->verify_offset);
	res->verify_expected = m->verify_expected;
	res->verify_got = m->verify_got;
	ibpost_job_fail(job, -EIO, IBPOST_R_VERIFY, res->verify_wr);
}

/**
 * ibpost_peer_fin() - tell the server the job is over, take its account.
 * @job: a peer job whose WRs all completed.
 *
 * The fin's immediate data is the number of WRs posted (warm-up included),
 * modulo 2^32: the server finds from it which WR wrote each slot last.
 *
 * Return: 0 or the job's error (a verification failure on the server is
 * -EIO with IBPOST_R_VERIFY and result.peer set).
 */
int ibpost_peer_fin(struct ibpost_job *job)
{
	struct ibpost_peer *p = &job->peer;
	const struct ibpost_wire_result *m;
	u32 len;
	int ret;

	ret = ibpost_client_fin(&p->cl, (u32)job->sq.posted);
	if (ret) {
		ibpost_job_fail(job, ret, IBPOST_R_POST, IBPOST_STATUS_NONE);
		return ret;
	}
	m = ibpost_peer_answer(job, IBPOST_WIRE_RESULT,
			       ibpost_wire_result_size(ibpost_peer_wire_flags(job->run)),
			       &len);
	if (!m)
		return job->err;
	if (!job->err)
		ibpost_peer_merge(job, m);
	ibpost_client_release(&p->cl, m, true);
	return job->err;
}

/**
 * ibpost_peer_free() - free the control channel.
 * @job: the job, its QP drained.
 */
void ibpost_peer_free(struct ibpost_job *job)
{
	ibpost_client_close(&job->peer.cl);
}
