// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: the hot path: build WR chains, post them, reap completions.
 *
 * The initiator's CQ is polled directly by the job's own thread (no
 * interrupt, no softirq hop), as perftest busy-polls in userspace, and
 * completions arrive through struct ib_cqe done callbacks.  Send-queue
 * occupancy is counted by ibpost (sq.c), never inferred from the provider.
 * What differs between a loopback and a peer job (where the remote slots
 * are, who verifies and stamps) is computed before the run: this file
 * never asks which kind of job it runs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/ktime.h>

#include "job/job.h"
#include "job/post.h"

static bool ibpost_op_reads(const struct ibpost_job *job)
{
	return job->run->op == IBPOST_OP_READ;
}

/* A check of @t found a mismatch in WR @wr: the job fails with it. */
static void ibpost_note_target(struct ibpost_job *job,
			       const struct ibpost_target *t, u64 wr)
{
	job->mm = t->mm;
	ibpost_note_mismatch(job, wr, t->mm.count);
}

/* Check what WR @seq put at the target (WRITE) or fetched (READ). */
static void ibpost_verify_rdma(struct ibpost_job *job, u64 seq)
{
	struct ibpost_target *t = ibpost_op_reads(job) ? &job->local :
							&job->target;
	u32 slot = seq % job->depth;
	u64 pwr = seq;

	if (job->pattern_mod)
		pwr = do_div(pwr, job->pattern_mod);
	ibpost_buf_for_cpu(&t->buf, slot);
	if (ibpost_target_check(t, slot, seq, pwr))
		ibpost_note_target(job, t, seq);
}

static void ibpost_account(struct ibpost_job *job, u64 from, u64 to, u64 now)
{
	u64 s;

	if (job->verify_rdma)
		for (s = from; s <= to; s++)
			ibpost_verify_rdma(job, s);
	/* WRs from..to completed; those past the warm-up are measured. */
	if (to >= job->warmup)
		ibpost_job_count(job, to - max(from, job->warmup) + 1);
	job->t_end = now;
}

static void ibpost_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ibpost_wr_ctx *ctx = container_of(wc->wr_cqe,
						 struct ibpost_wr_ctx, cqe);
	struct ibpost_job *job = ctx->job;
	u64 now = ktime_get_ns(), from = job->sq.retired;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		if (ibpost_ep_wc_error(job->ini, wc))
			ibpost_wc_error(job, wc, ctx->seq);
		return;
	}
	if (!ibpost_sq_retire(&job->sq, ctx->seq))
		return;
	job->t_progress = jiffies;
	if (ctx->seq >= job->warmup)
		ibpost_job_lat(job, now - ctx->t_post);
	ibpost_account(job, from, ctx->seq, now);
}

/*
 * What the target's receive handler does not settle itself (never a
 * message that arrived as sent): an error completion, a mismatch, a
 * receive that could not be posted again.
 */
static void ibpost_target_failed(struct ibpost_target *t, u32 reason,
				 const struct ib_wc *wc, u64 msg)
{
	struct ibpost_job *job = container_of(t, struct ibpost_job, target);

	if (reason == IBPOST_R_WC_ERROR)
		ibpost_wc_error(job, wc, msg);
	else if (reason == IBPOST_R_VERIFY)
		ibpost_note_target(job, t, msg);
	else
		ibpost_job_fail(job, t->post_err, IBPOST_R_POST,
				IBPOST_STATUS_NONE);
}

/* Point WR @seq at remote slot @seq % rslots. */
static void ibpost_remote(struct ibpost_job *job, u64 seq,
			  struct ib_rdma_wr *w)
{
	u32 r = do_div(seq, job->rslots);

	w->remote_addr = job->raddr[r];
	w->rkey = job->rkey[r];
}

/* Link @n prebuilt WRs starting at the next sequence number. */
static struct ib_send_wr *ibpost_chain(struct ibpost_job *job, u32 n)
{
	bool verify = job->run->flags & IBPOST_RUN_VERIFY;
	u64 seq = job->sq.posted, last = job->phase_end - 1;
	struct ib_send_wr *first = NULL, *prev = NULL, *wr;
	u32 k, slot;

	for (k = 0; k < n; k++, seq++) {
		slot = seq % job->depth;
		wr = &job->wrs[slot].wr;
		wr->next = NULL;
		wr->send_flags &= ~IB_SEND_SIGNALED;
		if (ibpost_sq_signaled(&job->sq, seq, last))
			wr->send_flags |= IB_SEND_SIGNALED;
		if (job->rslots != job->depth)
			ibpost_remote(job, seq, &job->wrs[slot]);
		if ((job->ext->fault & IBPOST_FAULT_REMOTE_RANGE) &&
		    seq == last && seq >= job->warmup)
			job->wrs[slot].remote_addr += job->target.buf.slot_size;
		job->ctx[slot].seq = seq;
		if (verify)
			ibpost_stamp(job, seq, slot);
		if (prev)
			prev->next = wr;
		else
			first = wr;
		prev = wr;
	}
	return first;
}

static void ibpost_post_batch(struct ibpost_job *job, u32 n)
{
	struct ibpost_result *res = &job->run->result;
	struct ib_send_wr *first, *wr;
	u32 taken;
	u64 now;
	int ret;

	first = ibpost_chain(job, n);
	now = ktime_get_ns();
	for (wr = first; wr; wr = wr->next)
		container_of(wr->wr_cqe, struct ibpost_wr_ctx, cqe)->t_post = now;
	ret = ibpost_ep_post(job->ini, first, &taken);
	res->post_calls++;
	/* WRs before the refused one were taken: account them as posted. */
	ibpost_sq_posted(&job->sq, taken);
	res->posted += taken;
	if (unlikely(ret))
		ibpost_job_fail(job, ret, IBPOST_R_POST, job->sq.posted);
}

/*
 * Messages that consume a receive WR may run at most depth ahead of the
 * receives reaped: no RNR retries, and a target slot is checked before a
 * later WRITE_WITH_IMM lands in it again.
 */
static u64 ibpost_recv_room(const struct ibpost_job *job)
{
	if (!job->has_recv)
		return U64_MAX;
	if (job->sq.posted >= job->target.msgs + job->depth)
		return 0;
	return job->target.msgs + job->depth - job->sq.posted;
}

/* A pump's state between rounds of ibpost_ep_poll_until(). */
struct ibpost_pump {
	struct ibpost_job *job;
	u64 deadline;
	u32 duration_ms;
	u64 msgs;
};

static bool ibpost_pump_done(void *arg)
{
	struct ibpost_job *job = ((struct ibpost_pump *)arg)->job;

	return job->sq.retired >= job->phase_end &&
	       (!job->has_recv || job->target.msgs >= job->phase_end);
}

static int ibpost_pump_stop(void *arg)
{
	struct ibpost_pump *p = arg;
	struct ibpost_job *job = p->job;

	/* Messages received are progress as well. */
	if (p->msgs != job->target.msgs) {
		p->msgs = job->target.msgs;
		job->t_progress = jiffies;
	}
	return ibpost_job_should_stop(job) ? job->err : 0;
}

/* Post the next batch when the send queue and the receives have room. */
static void ibpost_pump_kick(void *arg)
{
	struct ibpost_pump *p = arg;
	struct ibpost_job *job = p->job;
	struct ibpost_sq *sq = &job->sq;
	u32 n;

	if (p->duration_ms && job->phase_end == U64_MAX &&
	    ktime_get_ns() >= p->deadline)
		job->phase_end = sq->posted + 1;
	if (sq->posted >= job->phase_end)
		return;
	if (unlikely(job->is_peer) && ibpost_peer_hold(job))
		return;
	n = (u32)min_t(u64, job->run->batch, job->phase_end - sq->posted);
	if (ibpost_sq_room(sq) >= n && ibpost_recv_room(job) >= n)
		ibpost_post_batch(job, n);
}

/**
 * ibpost_job_pump() - post and reap until a phase completes.
 * @job: the job.
 * @phase_end: sequence number to post up to (exclusive); U64_MAX with a
 *	duration.
 * @duration_ms: when non-zero, stop posting after this long: the phase
 *	then ends after one more (signaled) WR.
 *
 * Context: process context of the caller; busy-polls with cond_resched().
 * Return: 0 or the job's first error.
 */
int ibpost_job_pump(struct ibpost_job *job, u64 phase_end, u32 duration_ms)
{
	struct ibpost_pump p = {
		.job = job,
		.deadline = ibpost_job_deadline(duration_ms),
		.duration_ms = duration_ms,
		.msgs = job->target.msgs,
	};
	struct ibpost_ep_wait w = {
		.ep = { job->ini, job->has_recv ? job->tgt : NULL },
		.done = ibpost_pump_done,
		.stop = ibpost_pump_stop,
		.kick = ibpost_pump_kick,
		.arg = &p,
	};

	job->phase_end = phase_end;
	job->t_progress = jiffies;
	ibpost_ep_poll_until(&w);
	return job->err;
}

static void ibpost_build_send_wr(struct ibpost_job *job, u32 slot)
{
	struct ibpost_run *run = job->run;
	struct ib_rdma_wr *w = &job->wrs[slot];
	struct ib_sge *sge = &job->sges[slot * run->num_sge];
	u32 i, lkey = job->ini->pd->local_dma_lkey;
	u64 base = job->local.buf.dma[slot];

	/*
	 * Registered by now only as an iWARP READ's sink (a pong's MRs come
	 * later); the MR maps the slot from its first byte at its iova, which
	 * is not the DMA address (mr.c keeps kernel addresses off the wire).
	 */
	if (job->local.mrs.n) {
		lkey = job->local.mrs.mr[slot]->lkey;
		base = job->local.mrs.mr[slot]->iova;
	}
	for (i = 0; i < run->num_sge; i++) {
		sge[i].addr = base + job->send_layout[i].offset;
		sge[i].length = job->send_layout[i].length;
		sge[i].lkey = lkey;
	}
	if (job->ext->fault & IBPOST_FAULT_BAD_LKEY)
		sge[0].lkey ^= 0x00dead00;
	w->wr.sg_list = sge;
	w->wr.num_sge = run->num_sge;
	w->wr.wr_cqe = &job->ctx[slot].cqe;
	if (run->flags & IBPOST_RUN_INLINE)
		w->wr.send_flags = IB_SEND_INLINE;
	switch (run->op) {
	case IBPOST_OP_SEND:
		w->wr.opcode = IB_WR_SEND;
		return;
	case IBPOST_OP_SEND_IMM:
		w->wr.opcode = IB_WR_SEND_WITH_IMM;
		w->wr.ex.imm_data = cpu_to_be32(run->imm_data);
		return;
	case IBPOST_OP_WRITE:
		w->wr.opcode = IB_WR_RDMA_WRITE;
		break;
	case IBPOST_OP_WRITE_IMM:
		w->wr.opcode = IB_WR_RDMA_WRITE_WITH_IMM;
		w->wr.ex.imm_data = cpu_to_be32(run->imm_data);
		break;
	default:
		w->wr.opcode = IB_WR_RDMA_READ;
		break;
	}
	ibpost_remote(job, slot, w);
}

/**
 * ibpost_job_prepare() - build every WR once and post the receives.
 * @job: a job whose QPs, buffers and MRs exist.
 *
 * Return: 0 or a negative errno (status set).
 */
int ibpost_job_prepare(struct ibpost_job *job)
{
	struct ibpost_run *run = job->run;
	u32 slot;

	for (slot = 0; slot < job->depth; slot++) {
		job->ctx[slot].job = job;
		job->ctx[slot].cqe.done = ibpost_send_done;
		ibpost_build_send_wr(job, slot);
		/* Without verification the data is stamped once. */
		if (!(run->flags & IBPOST_RUN_VERIFY))
			ibpost_stamp(job, slot, slot);
	}
	if (!job->has_recv)
		return 0;
	job->target.failed = ibpost_target_failed;
	return ibpost_target_recvs(&job->target, job->tgt, job->depth,
				   &run->status);
}
