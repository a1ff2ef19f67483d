// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: ping-pong latency (IBPOST_RUN_PINGPONG).
 *
 * Measured the way perftest's ib_write_lat measures it, so the two can be
 * set side by side: the initiator RDMA WRITEs a message into the target's
 * slot; the target notices the message's last byte change and RDMA WRITEs
 * a message back into the initiator's slot, past the bytes the ping sends
 * (through an MR scoped to this job); the initiator notices that one's
 * last byte.  A sample is half of
 * that round trip.
 *
 * The target side runs in a kthread of its own when more than one CPU is
 * online, as perftest's server is a process of its own: the pong then
 * leaves as soon as the ping's data lands, while the initiator's CPU still
 * works through the ping's ACK.  On one CPU both sides run inline in the
 * job's thread, one after the other.
 *
 * The last byte of the ping carries a tag 1..127 that changes every
 * iteration; the pong carries the same tag with bit 7 set, so neither end
 * can mistake a stale byte for the message it waits for, and nothing but
 * pongs writes where a pong lands.  Every ping
 * and pong is signaled, and never more are outstanding than each send
 * queue holds.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/ktime.h>

#include "job/job.h"

#define IBPOST_PP_PONG		0x80

static u8 ibpost_pp_tag(u64 seq)
{
	return (u8)(seq % 127) + 1;
}

/* A failure of the target side: kept apart, merged by the initiator. */
static void ibpost_pp_t_fail(struct ibpost_job *job, int err, u32 reason)
{
	struct ibpost_pp *pp = &job->pp;

	if (pp->t_err)
		return;
	pp->t_reason = reason;
	pp->t_wr = pp->tseq;
	/* Pairs with ibpost_pp_check(): reason and WR are set before it. */
	smp_store_release(&pp->t_err, err);
}

static void ibpost_pp_ping_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ibpost_wr_ctx *ctx = container_of(wc->wr_cqe,
						 struct ibpost_wr_ctx, cqe);
	struct ibpost_job *job = ctx->job;

	job->pp.ping_out--;
	if (unlikely(wc->status != IB_WC_SUCCESS) &&
	    ibpost_ep_wc_error(job->ini, wc))
		ibpost_wc_error(job, wc, job->pp.ping_done);
	job->pp.ping_done++;
}

static void ibpost_pp_pong_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ibpost_job *job = container_of(wc->wr_cqe, struct ibpost_job,
					      pp.pong_cqe);
	struct ibpost_pp *pp = &job->pp;

	pp->pong_out--;
	if (unlikely(wc->status != IB_WC_SUCCESS) &&
	    ibpost_ep_wc_error(job->tgt, wc)) {
		if (!pp->t_wc_errors++)
			pp->t_wc = *wc;
		ibpost_pp_t_fail(job, -EIO, IBPOST_R_WC_ERROR);
	}
	pp->pong_done++;
}

/*
 * What ends a wait.  The target thread stops when told to (quietly: the
 * initiator decides what the job's outcome is) or on its own failure; the
 * initiator on anything that ends a job and on a failure of the target.
 * @since: jiffies the wait began; 0: the wait may last (a target thread
 * waiting for the next ping).
 */
static int ibpost_pp_check(struct ibpost_job *job, bool tgt,
			   unsigned long since)
{
	struct ibpost_pp *pp = &job->pp;
	int err;

	if (tgt) {
		if (READ_ONCE(pp->stop) || kthread_should_stop())
			return -EINTR;
	} else if (ibpost_job_should_stop(job)) {
		return job->err;
	}
	/* Pairs with ibpost_pp_t_fail(). */
	err = smp_load_acquire(&pp->t_err);
	if (err)
		return err;
	if (since && time_after(jiffies, since + IBPOST_STALL_TIMEOUT)) {
		if (tgt)
			ibpost_pp_t_fail(job, -ETIMEDOUT, IBPOST_R_TIMEOUT);
		else
			ibpost_job_fail(job, -ETIMEDOUT, IBPOST_R_TIMEOUT,
					pp->seq);
		return -ETIMEDOUT;
	}
	return 0;
}

/* Wait, polling, until *@byte of slot 0 of @b reads @want. */
static int ibpost_pp_wait_byte(struct ibpost_job *job, bool tgt,
			       const struct ibpost_buf *b, const u8 *byte,
			       u8 want)
{
	unsigned long since = tgt ? 0 : jiffies;
	int ret;

	for (;;) {
		ibpost_buf_for_cpu(b, 0);
		if (READ_ONCE(*byte) == want) {
			/* The rest of the message is read after its tag. */
			dma_rmb();
			return 0;
		}
		/*
		 * Completions are reaped only when a send queue needs room:
		 * every poll here delays noticing the tag.
		 */
		ibpost_softirq_flush();
		ret = ibpost_pp_check(job, tgt, since);
		if (ret)
			return ret;
		cond_resched();
	}
}

/* A wait of one side for its completions (ibpost_ep_poll_until()). */
struct ibpost_pp_wait {
	struct ibpost_job *job;
	bool tgt;
	const u32 *out;
	u32 max;
	unsigned long since;
};

static bool ibpost_pp_room(void *arg)
{
	struct ibpost_pp_wait *w = arg;

	return READ_ONCE(*w->out) < w->max;
}

static int ibpost_pp_wait_stop(void *arg)
{
	struct ibpost_pp_wait *w = arg;

	return ibpost_pp_check(w->job, w->tgt, w->since);
}

static int ibpost_pp_gone(void *arg)
{
	struct ibpost_pp_wait *w = arg;

	return READ_ONCE(w->job->dev->dying) ? -ENODEV : 0;
}

/*
 * Reap until fewer than @max of *@out are outstanding: a side with a
 * thread of its own reaps its own CQ (@tgt: the target's), the inline
 * mode both.  @stop: ibpost_pp_wait_stop(), or only device removal (the
 * stall timeout is then the deadline).
 */
static int ibpost_pp_wait_room(struct ibpost_job *job, bool tgt,
			       const u32 *out, u32 max,
			       int (*stop)(void *arg))
{
	struct ibpost_pp_wait pw = {
		.job = job, .tgt = tgt, .out = out, .max = max,
		.since = jiffies,
	};
	struct ibpost_ep_wait w = {
		.ep = { tgt ? job->tgt : job->ini,
			!tgt && !job->pp.thread ? job->tgt : NULL },
		.done = ibpost_pp_room,
		.stop = stop,
		.arg = &pw,
	};

	if (stop != ibpost_pp_wait_stop)
		w.deadline = pw.since + IBPOST_STALL_TIMEOUT;
	return ibpost_ep_poll_until(&w);
}

/*
 * The target side of iteration tseq: wait for the ping's tag, check the
 * message, tag it as the pong and WRITE it back.
 */
static int ibpost_pp_target_step(struct ibpost_job *job, bool tgt)
{
	struct ibpost_run *run = job->run;
	struct ibpost_pp *pp = &job->pp;
	struct ibpost_target *t = &job->target;
	u8 *va = ibpost_buf_va(&t->buf, 0), *last = va + run->msg_size - 1;
	u8 tag = ibpost_pp_tag(pp->tseq);
	int ret;

	ret = ibpost_pp_wait_byte(job, tgt, &t->buf, last, tag);
	if (ret)
		return ret;
	if (run->flags & IBPOST_RUN_VERIFY) {
		/* The tag stood in for the pattern's last byte. */
		*last = ibpost_pattern(pp->tseq, run->num_sge - 1,
				       job->send_layout[run->num_sge - 1].length
				       - 1);
		if (ibpost_target_check(t, 0, pp->tseq, pp->tseq)) {
			ibpost_pp_t_fail(job, -EIO, IBPOST_R_VERIFY);
			return -EIO;
		}
	}
	*last = tag | IBPOST_PP_PONG;
	ibpost_buf_for_device(&t->buf, 0);
	ret = ibpost_pp_wait_room(job, tgt, &pp->pong_out, IBPOST_MR_CHAIN,
				  ibpost_pp_wait_stop);
	if (ret)
		return ret;
	ret = ibpost_ep_post(job->tgt, &pp->pong.wr, NULL);
	if (!ret)
		pp->pong_out++;
	if (ret) {
		ibpost_pp_t_fail(job, ret, IBPOST_R_POST);
		return ret;
	}
	pp->tseq++;
	return 0;
}

static int ibpost_pp_thread_fn(void *arg)
{
	struct ibpost_job *job = arg;

	while (!ibpost_pp_target_step(job, true))
		;
	/* Let the pongs in flight complete before the QP is drained. */
	ibpost_pp_wait_room(job, true, &job->pp.pong_out, 1, ibpost_pp_gone);
	ibpost_kthread_wait_stop();
	return 0;
}

/* Initiator: tag the ping, post it, let the target side answer. */
static int ibpost_pp_iter(struct ibpost_job *job)
{
	struct ibpost_run *run = job->run;
	struct ibpost_pp *pp = &job->pp;
	const struct ibpost_sge_desc *sl = &job->send_layout[run->num_sge - 1];
	u8 *va = ibpost_buf_va(&job->local.buf, 0);
	u8 *src = va + sl->offset + sl->length - 1;
	u8 *back = va + pp->pong_off + run->msg_size - 1;
	u8 tag = ibpost_pp_tag(pp->seq);
	int ret;

	if (run->flags & IBPOST_RUN_VERIFY)
		ibpost_stamp(job, pp->seq, 0);
	*src = tag;
	ibpost_buf_for_device(&job->local.buf, 0);
	ret = ibpost_pp_wait_room(job, false, &pp->ping_out, job->depth,
				  ibpost_pp_wait_stop);
	if (ret)
		return ret;
	ret = ibpost_ep_post(job->ini, &job->wrs[0].wr, NULL);
	if (!ret)
		pp->ping_out++;
	run->result.post_calls++;
	if (ret) {
		ibpost_job_fail(job, ret, IBPOST_R_POST, pp->seq);
		return ret;
	}
	run->result.posted++;
	if (!pp->thread) {
		ret = ibpost_pp_target_step(job, false);
		if (ret)
			return ret;
	}
	return ibpost_pp_wait_byte(job, false, &job->local.buf, back,
				   tag | IBPOST_PP_PONG);
}

/**
 * ibpost_pp_prepare() - register the initiator's slots for the pong, build
 *	the pong WR and start the target side.
 * @job: a prepared job with IBPOST_RUN_PINGPONG.
 *
 * Return: 0 or a negative errno (status set).
 */
int ibpost_pp_prepare(struct ibpost_job *job)
{
	struct ibpost_run *run = job->run;
	struct ibpost_pp *pp = &job->pp;
	struct ib_send_wr *wr = &pp->pong.wr;
	struct task_struct *t;
	unsigned int cpu;
	int ret;

	/* The initiator's slots are the pong's target. */
	ret = ibpost_target_register(&job->local, job->tgt, &run->status);
	if (ret)
		return ret;
	job->ctx[0].cqe.done = ibpost_pp_ping_done;
	job->wrs[0].wr.send_flags |= IB_SEND_SIGNALED;
	pp->pong_cqe.done = ibpost_pp_pong_done;
	pp->pong_sge.addr = job->target.buf.dma[0];
	pp->pong_sge.length = run->msg_size;
	pp->pong_sge.lkey = job->tgt->pd->local_dma_lkey;
	wr->opcode = IB_WR_RDMA_WRITE;
	wr->send_flags = IB_SEND_SIGNALED;
	wr->sg_list = &pp->pong_sge;
	wr->num_sge = 1;
	wr->wr_cqe = &pp->pong_cqe;
	ibpost_target_remote(&job->local, 0, &pp->pong.remote_addr,
			     &pp->pong.rkey);
	pp->pong.remote_addr += pp->pong_off;
	/* Neither landing byte may hold a tag before the first ping. */
	*(u8 *)(ibpost_buf_va(&job->target.buf, 0) + run->msg_size - 1) = 0;
	*(u8 *)(ibpost_buf_va(&job->local.buf, 0) + pp->pong_off +
		run->msg_size - 1) = 0;
	ibpost_buf_for_device(&job->target.buf, 0);
	ibpost_buf_for_device(&job->local.buf, 0);
	/*
	 * On a CPU other than the initiator's: two busy-polling threads that
	 * share a CPU would hand over only at the scheduler tick.  No CPU or
	 * no thread, no harm: the target side then runs inline.
	 */
	cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	if (cpu >= nr_cpu_ids)
		return 0;
	t = kthread_create(ibpost_pp_thread_fn, job, "ibpost_pong/%u", cpu);
	if (IS_ERR(t))
		return 0;
	kthread_bind(t, cpu);
	pp->thread = t;
	wake_up_process(t);
	return 0;
}

/* End the target side's thread, if it runs, and wait for it. */
static void ibpost_pp_stop(struct ibpost_job *job)
{
	struct ibpost_pp *pp = &job->pp;

	if (!pp->thread)
		return;
	WRITE_ONCE(pp->stop, true);
	kthread_stop(pp->thread);
	pp->thread = NULL;
}

/**
 * ibpost_pp_finish() - end a ping-pong job's traffic and take the target
 *	side's outcome into the job.
 * @job: the job.
 *
 * Lets the pings in flight complete, stops the target's thread and merges
 * what the target side recorded (error completion, mismatch, failure).
 * Called after the last phase, on failure and at teardown; once is enough.
 *
 * Context: process context; may wait up to the stall timeout.
 */
void ibpost_pp_finish(struct ibpost_job *job)
{
	struct ibpost_pp *pp = &job->pp;

	if (pp->finished)
		return;
	pp->finished = true;

	ibpost_pp_wait_room(job, false, &pp->ping_out, 1, ibpost_pp_gone);
	ibpost_pp_stop(job);
	if (pp->t_wc_errors)
		ibpost_wc_error(job, &pp->t_wc, pp->t_wr);
	if (job->target.mm.count) {
		job->mm = job->target.mm;
		ibpost_note_mismatch(job, pp->t_wr, job->target.mm.count);
	}
	if (pp->t_err)
		ibpost_job_fail(job, pp->t_err, pp->t_reason, pp->t_wr);
}

/**
 * ibpost_pp_pump() - ping-pong until a phase completes.
 * @job: a job prepared by ibpost_pp_prepare().
 * @phase_end: iteration to stop before; U64_MAX with a duration.
 * @duration_ms: when non-zero, stop after this long.
 *
 * The target side's thread keeps running between phases; the caller ends
 * it with ibpost_pp_finish() after the last phase (a failure ends it here).
 *
 * Context: process context; busy-polls with cond_resched().
 * Return: 0 or the job's first error.
 */
int ibpost_pp_pump(struct ibpost_job *job, u64 phase_end, u32 duration_ms)
{
	u64 deadline = ibpost_job_deadline(duration_ms);
	struct ibpost_pp *pp = &job->pp;
	u64 t0, t1;

	while (pp->seq < phase_end) {
		t0 = ktime_get_ns();
		if (duration_ms && t0 >= deadline)
			break;
		if (ibpost_pp_iter(job))
			break;
		t1 = ktime_get_ns();
		if (pp->seq >= job->warmup) {
			ibpost_job_lat(job, (t1 - t0) / 2);
			ibpost_job_count(job, 1);
			job->t_end = t1;
		}
		pp->seq++;
	}
	if (job->err || READ_ONCE(pp->t_err))
		ibpost_pp_finish(job);
	return job->err;
}
