/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: one transfer job: its state and the job core (job.c) that the
 * hot path (post.c), ping-pong (pingpong.c) and the peer client (peer.c)
 * share.  ibpost_run() (run.c) drives them.
 */
#ifndef _IBPOST_JOB_H
#define _IBPOST_JOB_H

#include <linux/bottom_half.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/u64_stats_sync.h>
#include <ibpost.h>

#include "core/buf.h"
#include "core/device.h"
#include "core/ep.h"
#include "lib/kthread.h"
#include "lib/llhist.h"
#include "core/mr.h"
#include "job/peer.h"
#include "job/pingpong.h"
#include "lib/sgl.h"
#include "lib/sq.h"
#include "core/target.h"

/*
 * No completion for this long while WRs are outstanding: give up (a job
 * waits longer for big signaled batches: ibpost_job_should_stop()).
 */
#define IBPOST_STALL_TIMEOUT	(10 * HZ)

struct ibpost_job;
struct ibpost_session;

/**
 * struct ibpost_wr_ctx - completion context of the send WR in one slot.
 * @cqe: completion entry (ib_cqe API).
 * @job: owning job.
 * @seq: sequence number of the WR now in this slot.
 * @t_post: ktime_get_ns() when it was posted.
 */
struct ibpost_wr_ctx {
	struct ib_cqe cqe;
	struct ibpost_job *job;
	u64 seq;
	u64 t_post;
};

/**
 * struct ibpost_job_count - a job's measured count, read while it runs.
 * @syncp: keeps a reader from seeing a torn @wrs on 32-bit hosts (nothing
 *	on 64-bit); written only by the job's own polling context.
 * @wrs: measured WRs completed (struct ibpost_result.wrs at the end).
 *
 * IBPOST_IOC_PROGRESS reads it from another thread (ibpost_job_progress())
 * while the job's thread adds to it without a lock or an atomic
 * read-modify-write: there is one writer.  Bytes are not counted apart:
 * every WR carries msg_size bytes, so the bytes are @wrs * msg_size, and a
 * reader never sees one updated without the other.
 */
struct ibpost_job_count {
	struct u64_stats_sync syncp;
	u64_stats_t wrs;
};

/**
 * struct ibpost_job - everything one run owns.
 * @run: the request; status and result are written into it.
 * @ext: kernel-side arguments.
 * @dev: device, referenced for the whole run.
 * @port: port in use.
 * @lim: limits validated against.
 * @send_layout: SGEs of each send WR within its local slot.
 * @recv_layout: SGEs of each receive WR within its target slot.
 * @recv_num_sge: SGEs per receive WR.
 * @depth: send queue depth.
 * @sess: the session the job runs on (its endpoints and their lifetime).
 * @ini: the initiator endpoint: the job's WRs are posted on it.
 * @tgt: the target endpoint of a loopback job (receives, remote MRs);
 *	NULL against a peer, whose target is the server's.
 * @local: initiator slots: the sources of its WRs, a READ's sink, a
 *	pong's landing; registered (on @tgt) for a pong, and (on @ini) when
 *	a READ's sink must be an MR with remote write access (iWARP).
 * @target: the target of a loopback job: slots, MRs (WRITE/READ),
 *	receives (SEND and the _IMM opcodes) and what arrived; empty
 *	against a peer.
 * @raddr: remote address of each remote slot (the MRs', or the server's).
 * @rkey: rkey of each remote slot.
 * @rslots: remote slots; WR seq targets slot seq % @rslots.
 * @verify_rdma: the initiator checks what a WRITE put at the target or a
 *	READ fetched (against a peer: a READ only; the server checks the
 *	rest).
 * @stamp_target: a READ's source is stamped here (not by a server).
 * @pattern_mod: the pattern a READ finds is that of WR seq % @pattern_mod
 *	(the server stamps each slot once), 0: of WR seq.
 * @wrs: prebuilt WR of each slot (ib_rdma_wr embeds the plain send WR).
 * @sges: prebuilt SGEs, @depth * num_sge.
 * @ctx: completion context of each slot.
 * @has_recv: the opcode consumes receive WRs of @target.
 * @sq: send-queue accounting.
 * @warmup: WRs before measuring.
 * @phase_end: sequence number the current phase posts up to.
 * @lat: latency samples kept whole (exact min, max, mean, stdev and
 *	percentiles while none is dropped).
 * @lat_n: samples kept in @lat.
 * @lat_cap: room in @lat; samples past it count in @hist only.
 * @hist: every latency sample, to 2 significant digits.
 * @t_start: start of the measured phase.
 * @t_end: last completion.
 * @t_progress: jiffies of the last completion (stall detection).
 * @count: measured WRs and bytes, readable while the job runs.
 * @state: IBPOST_JOB_* (written with release: @t_start and @t_end are
 *	set before the state that makes them meaningful).
 * @mm: first verification mismatch (a copy of what a check found).
 * @pp: ping-pong state.
 * @is_peer: the target is a server on another host (@peer).
 * @peer: client state of a peer job.
 * @entered: the job is a poster of @sess (ibpost_session_enter()).
 * @err: first failure, 0 while all is well.
 */
struct ibpost_job {
	struct ibpost_run *run;
	const struct ibpost_run_ext *ext;
	struct ibpost_dev *dev;
	u32 port;
	struct ibpost_limits lim;
	struct ibpost_sge_desc *send_layout;
	struct ibpost_sge_desc *recv_layout;
	u32 recv_num_sge;
	u32 depth;
	struct ibpost_session *sess;
	struct ibpost_ep *ini;
	struct ibpost_ep *tgt;
	struct ibpost_target local;
	struct ibpost_target target;
	u64 *raddr;
	u32 *rkey;
	u32 rslots;
	bool verify_rdma;
	bool stamp_target;
	u32 pattern_mod;
	struct ib_rdma_wr *wrs;
	struct ib_sge *sges;
	struct ibpost_wr_ctx *ctx;
	bool has_recv;
	struct ibpost_sq sq;
	u64 warmup;
	u64 phase_end;
	u64 *lat;
	u64 lat_n;
	u64 lat_cap;
	struct ibpost_llhist *hist;
	u64 t_start;
	u64 t_end;
	unsigned long t_progress;
	struct ibpost_job_count count;
	u32 state;
	struct ibpost_mismatch mm;
	struct ibpost_pp pp;
	bool is_peer;
	struct ibpost_peer peer;
	bool entered;
	int err;
};

/* The end of a phase of @duration_ms from now (U64_MAX: until a signal). */
static inline u64 ibpost_job_deadline(u32 duration_ms)
{
	if (duration_ms == IBPOST_DURATION_FOREVER)
		return U64_MAX;
	return ktime_get_ns() + (u64)duration_ms * NSEC_PER_MSEC;
}

/* @n measured WRs completed: counted where IBPOST_IOC_PROGRESS reads. */
static inline void ibpost_job_count(struct ibpost_job *job, u64 n)
{
	struct ibpost_job_count *c = &job->count;

	u64_stats_update_begin(&c->syncp);
	u64_stats_add(&c->wrs, n);
	u64_stats_update_end(&c->syncp);
}

/**
 * struct ibpost_job_slot - where another thread finds a running job.
 * @lock: @job: a job leaves the slot under it before it is freed, and
 *	ibpost_job_slot_progress() reads the job under it.
 * @job: the job running in the slot now, NULL for none (a second
 *	concurrent job of the slot is not linked).
 *
 * An open /dev/ibpost holds one: IBPOST_IOC_PROGRESS reads the job
 * IBPOST_IOC_RUN blocks in on the same file.  The job's thread takes
 * the lock only twice (start and end), never on its hot path.
 */
struct ibpost_job_slot {
	spinlock_t lock;
	struct ibpost_job *job;
};

void ibpost_job_slot_init(struct ibpost_job_slot *slot);
int ibpost_job_slot_progress(struct ibpost_job_slot *slot,
			     struct ibpost_progress *p);
void ibpost_job_slot_enter(struct ibpost_job_slot *slot,
			   struct ibpost_job *job);
void ibpost_job_slot_leave(struct ibpost_job_slot *slot,
			   struct ibpost_job *job);
int ibpost_run_on(struct ibpost_run *run, const struct ibpost_run_ext *ext,
		  struct ibpost_job_slot *slot);
void ibpost_job_set_state(struct ibpost_job *job, u32 state);
void ibpost_job_progress(struct ibpost_job *job, struct ibpost_progress *p);
void ibpost_job_fail(struct ibpost_job *job, int err, u32 reason, u64 wr);
bool ibpost_job_should_stop(struct ibpost_job *job);
void ibpost_wc_error(struct ibpost_job *job, const struct ib_wc *wc, u64 seq);
void ibpost_stamp(struct ibpost_job *job, u64 seq, u32 slot);
void ibpost_note_mismatch(struct ibpost_job *job, u64 wr, u32 bad);
void ibpost_job_lat(struct ibpost_job *job, u64 ns);

#endif /* _IBPOST_JOB_H */
