// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: the job core: a job's first failure, what ends it early, error
 * completions, the stamps verification checks.  Shared by the hot path
 * (post.c), ping-pong (pingpong.c) and the peer client (peer.c); calls
 * none of them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/sched/signal.h>

#include "job/job.h"
#include "lib/pace.h"

/**
 * ibpost_job_fail() - record the first failure of a job.
 * @job: the job.
 * @err: negative errno the run returns.
 * @reason: IBPOST_R_* code.
 * @wr: WR index it concerns, or IBPOST_STATUS_NONE.
 */
void ibpost_job_fail(struct ibpost_job *job, int err, u32 reason, u64 wr)
{
	struct ibpost_status *st = &job->run->status;

	if (job->err)
		return;
	job->err = err;
	ibpost_status_set(st, reason, 0, 0);
	st->wr = wr > U32_MAX ? U32_MAX : (u32)wr;
}

/**
 * ibpost_job_lat() - record one latency sample of the measured phase.
 * @job: the job.
 * @ns: the sample.
 *
 * Every sample goes into the job's histogram; the first &ibpost_job.lat_cap
 * are also kept whole.
 */
void ibpost_job_lat(struct ibpost_job *job, u64 ns)
{
	ibpost_llhist_add(job->hist, ns);
	if (job->lat_n < job->lat_cap)
		job->lat[job->lat_n++] = ns;
}

/**
 * ibpost_note_mismatch() - take a verification result into the job.
 * @job: the job; @job->mm holds the first mismatch.
 * @wr: the WR checked.
 * @bad: mismatching bytes found (0: none).
 */
void ibpost_note_mismatch(struct ibpost_job *job, u64 wr, u32 bad)
{
	struct ibpost_result *res = &job->run->result;

	if (!bad)
		return;
	if (!res->verify_errors) {
		res->verify_wr = wr > U32_MAX ? U32_MAX : (u32)wr;
		res->verify_sge = job->mm.sge;
		res->verify_offset = job->mm.off;
		res->verify_expected = job->mm.expected;
		res->verify_got = job->mm.got;
	}
	res->verify_errors = job->mm.count;
	ibpost_job_fail(job, -EIO, IBPOST_R_VERIFY, wr);
}

/**
 * ibpost_wc_error() - an error completion of one of the job's WRs.
 * @job: the job.
 * @wc: the completion, one that counts as an error (the handler asked
 *	ibpost_ep_wc_error() of its endpoint), or a control channel's
 *	error status.
 * @seq: the WR (or message) it concerns.
 *
 * It ends the job.
 */
void ibpost_wc_error(struct ibpost_job *job, const struct ib_wc *wc, u64 seq)
{
	struct ibpost_result *res = &job->run->result;

	if (wc->status < IBPOST_WC_STATUS_MAX)
		res->wc_status[wc->status]++;
	if (!res->wc_errors++) {
		res->first_err_status = wc->status;
		res->first_err_vendor = wc->vendor_err;
		res->first_err_wr = seq > U32_MAX ? U32_MAX : (u32)seq;
	}
	ibpost_job_fail(job, -EIO, IBPOST_R_WC_ERROR, seq);
}

/**
 * ibpost_stamp() - stamp the source of WR @seq with its pattern.
 * @job: a verifying job (or one stamping its data once).
 * @seq: the WR.
 * @slot: its slot.
 */
void ibpost_stamp(struct ibpost_job *job, u64 seq, u32 slot)
{
	if (job->run->op != IBPOST_OP_READ)
		ibpost_target_stamp(&job->local, slot, seq);
	else if (job->stamp_target)	/* else the server stamped its slots */
		ibpost_target_stamp(&job->target, slot, seq);
}

/**
 * ibpost_job_set_state() - move a job to its next state.
 * @job: the job, from its own thread.
 * @state: IBPOST_JOB_*; what it makes meaningful (@job->t_start for
 *	IBPOST_JOB_MEASURE, @job->t_end for IBPOST_JOB_ENDING) is set.
 */
void ibpost_job_set_state(struct ibpost_job *job, u32 state)
{
	/* Pairs with ibpost_job_progress(): what @state promises is set. */
	smp_store_release(&job->state, state);
}

/**
 * ibpost_job_progress() - what a running job measured so far.
 * @job: the job; the caller keeps it from ending (struct ibpost_job_slot's
 *	lock, under which the job leaves its slot before it is freed).
 * @p: its state, counts and elapsed time are written.
 *
 * Context: any; reads what the job's thread writes without stopping it.
 */
void ibpost_job_progress(struct ibpost_job *job, struct ibpost_progress *p)
{
	const struct ibpost_job_count *c = &job->count;
	unsigned int start;
	u64 now = ktime_get_ns();

	/* Pairs with ibpost_job_set_state(): t_start/t_end are set. */
	p->state = smp_load_acquire(&job->state);
	do {
		start = u64_stats_fetch_begin(&c->syncp);
		p->wrs = u64_stats_read(&c->wrs);
	} while (u64_stats_fetch_retry(&c->syncp, start));
	/* msg_size is fixed before the job counts anything. */
	p->bytes = p->wrs * job->run->msg_size;
	p->wc_errors = READ_ONCE(job->run->result.wc_errors);
	p->qpn = READ_ONCE(job->run->result.qpn);
	p->elapsed_ns = 0;
	if (p->state == IBPOST_JOB_MEASURE && now > job->t_start)
		p->elapsed_ns = now - job->t_start;
	else if (p->state == IBPOST_JOB_ENDING && job->t_end > job->t_start)
		p->elapsed_ns = job->t_end - job->t_start;
}

/**
 * ibpost_job_slot_init() - an empty slot.
 * @slot: the slot.
 */
void ibpost_job_slot_init(struct ibpost_job_slot *slot)
{
	spin_lock_init(&slot->lock);
	slot->job = NULL;
}

/**
 * ibpost_job_slot_enter() - link a starting job to its slot.
 * @slot: the slot, NULL for none.
 * @job: the job, not yet started; it stays unlinked when another job of
 *	the slot is linked.
 */
void ibpost_job_slot_enter(struct ibpost_job_slot *slot,
			   struct ibpost_job *job)
{
	if (!slot)
		return;
	spin_lock(&slot->lock);
	if (!slot->job)
		slot->job = job;
	spin_unlock(&slot->lock);
}

/**
 * ibpost_job_slot_leave() - unlink an ending job from its slot.
 * @slot: the slot it entered, NULL for none.
 * @job: the job, about to be freed: no reader holds it once this returns.
 */
void ibpost_job_slot_leave(struct ibpost_job_slot *slot,
			   struct ibpost_job *job)
{
	if (!slot)
		return;
	spin_lock(&slot->lock);
	if (slot->job == job)
		slot->job = NULL;
	spin_unlock(&slot->lock);
}

/**
 * ibpost_job_slot_progress() - what the slot's job measured so far.
 * @slot: the slot.
 * @p: its state and counts are written (ibpost_job_progress()).
 *
 * Return: 0, or -ENOENT with IBPOST_R_NO_JOB in @p->status when no job
 * runs in the slot.
 */
int ibpost_job_slot_progress(struct ibpost_job_slot *slot,
			     struct ibpost_progress *p)
{
	int ret = 0;

	spin_lock(&slot->lock);
	if (slot->job)
		ibpost_job_progress(slot->job, p);
	else
		ret = -ENOENT;
	spin_unlock(&slot->lock);
	if (ret)
		ibpost_status_set(&p->status, IBPOST_R_NO_JOB, 0, 0);
	return ret;
}

/* No completion for longer than this: the job has stalled. */
static bool ibpost_job_stalled(const struct ibpost_job *job)
{
	u64 ms;

	if (!time_after(jiffies, job->t_progress + IBPOST_STALL_TIMEOUT))
		return false;
	/*
	 * With selective signaling a completion comes only after signal_every
	 * WRs: 16 x 4 MiB SENDs (one completion) took 15 s on the debug
	 * kernel's soft-RoCE, past a flat 10 s.
	 */
	ms = ibpost_floor_ms((u64)job->run->msg_size * job->run->signal_every);
	return time_after(jiffies, job->t_progress + IBPOST_STALL_TIMEOUT +
			  msecs_to_jiffies((unsigned int)min_t(u64, ms, UINT_MAX)));
}

/**
 * ibpost_job_should_stop() - check what ends a job early.
 * @job: the job.
 *
 * Return: true after a failure, on device removal, on a signal (the job's
 * error is then set) or when completions stalled.
 */
bool ibpost_job_should_stop(struct ibpost_job *job)
{
	if (job->err)
		return true;
	if (READ_ONCE(job->dev->dying)) {
		ibpost_job_fail(job, -ENODEV, IBPOST_R_DEVICE_GONE,
				job->sq.posted);
		return true;
	}
	/* A loopback pair's disconnect shows as flushed WRs instead. */
	if (job->is_peer && READ_ONCE(job->ini->lost)) {
		ibpost_job_fail(job, -ECONNRESET, IBPOST_R_PEER_LOST,
				job->sq.posted);
		return true;
	}
	if (signal_pending(current)) {
		job->run->result.interrupted = 1;
		ibpost_job_fail(job, -EINTR, IBPOST_R_NONE, job->sq.posted);
		return true;
	}
	if (job->sq.posted > job->sq.retired && ibpost_job_stalled(job)) {
		ibpost_job_fail(job, -ETIMEDOUT, IBPOST_R_TIMEOUT,
				job->sq.retired);
		return true;
	}
	return false;
}

