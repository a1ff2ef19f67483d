/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: one transfer job (internal to the engine).
 */
#ifndef _IBPOST_JOB_H
#define _IBPOST_JOB_H

#include <linux/bottom_half.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <ibpost.h>

#include "buf.h"
#include "conn.h"
#include "ctl.h"
#include "device.h"
#include "mr.h"
#include "sgl.h"
#include "session.h"
#include "sq.h"

/* No completion for this long while WRs are outstanding: give up. */
#define IBPOST_STALL_TIMEOUT	(10 * HZ)

struct ibpost_job;

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
 * struct ibpost_recv_ctx - one receive WR of the target QP.
 * @cqe: completion entry.
 * @job: owning job.
 * @slot: target slot it scatters into.
 * @wr: the receive WR, reposted after each completion.
 */
struct ibpost_recv_ctx {
	struct ib_cqe cqe;
	struct ibpost_job *job;
	u32 slot;
	struct ib_recv_wr wr;
};

/**
 * struct ibpost_pp - ping-pong state (IBPOST_RUN_PINGPONG).
 * @mrs: MR over each initiator slot: the target of the pong.
 * @pong: the pong WR, posted on the target QP.
 * @pong_sge: its SGE: the message as it landed in target slot 0.
 * @pong_cqe: completion entry of the pongs.
 * @pong_off: where in the initiator's slot a pong lands (after the SGEs).
 * @thread: the target side's thread, NULL when it runs inline.
 * @seq: iterations the initiator completed (warm-up included).
 * @tseq: pongs the target side sent.
 * @ping_out: pings posted and not completed.
 * @pong_out: pongs posted and not completed.
 * @ping_done: ping completions so far (WR index of an error).
 * @pong_done: pong completions so far.
 * @stop: tells the target thread to finish.
 * @finished: ibpost_pp_finish() ran.
 * @t_err: first failure of the target side (0: none); read by the
 *	initiator, merged into the job when the thread is gone.
 * @t_reason: its IBPOST_R_* code.
 * @t_wr: the iteration it concerns.
 * @t_wc: first error completion of a pong.
 * @t_wc_errors: error completions of pongs.
 * @t_mm: first mismatch the target side found.
 */
struct ibpost_pp {
	struct ibpost_mrs mrs;
	struct ib_rdma_wr pong;
	struct ib_sge pong_sge;
	struct ib_cqe pong_cqe;
	u32 pong_off;
	struct task_struct *thread;
	u64 seq;
	u64 tseq;
	u32 ping_out;
	u32 pong_out;
	u64 ping_done;
	u64 pong_done;
	bool stop;
	bool finished;
	int t_err;
	u32 t_reason;
	u64 t_wr;
	struct ib_wc t_wc;
	u32 t_wc_errors;
	struct ibpost_mismatch t_mm;
};

/**
 * struct ibpost_peer - the client side of a job against a server (peer.c).
 * @cp: connect parameters and the rejection's words.
 * @hello: private data of the connect request.
 * @ctl: the control channel.
 * @raddr: address of each remote slot.
 * @rkey: rkey of each remote slot.
 * @nslots: remote slots; WR i targets slot i % @nslots.
 * @conn: the server's number for the connection.
 * @fault: test faults this job injects.
 */
struct ibpost_peer {
	struct ibpost_conn_peer cp;
	struct ibpost_wire_hello hello;
	struct ibpost_ctl ctl;
	u64 *raddr;
	u32 *rkey;
	u32 nslots;
	u32 conn;
	u32 fault;
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
 * @target_layout: contiguous message within a target slot (WRITE/READ).
 * @recv_num_sge: SGEs per receive WR.
 * @depth: send queue depth.
 * @sess: the session the job runs on (its QP pair and their lifetime).
 * @conn: the session's QP pair.
 * @local: initiator slots.
 * @target: target slots.
 * @mrs: remote-access MRs over @target (WRITE/READ).
 * @wrs: prebuilt WR of each slot (ib_rdma_wr embeds the plain send WR).
 * @sges: prebuilt SGEs, @depth * num_sge.
 * @ctx: completion context of each slot.
 * @rctx: receive WRs (SEND and the _IMM opcodes).
 * @rsges: their SGEs.
 * @has_recv: the opcode consumes receive WRs.
 * @sq: send-queue accounting.
 * @warmup: WRs before measuring.
 * @phase_end: sequence number the current phase posts up to.
 * @recv_done: receive completions so far.
 * @lat: latency samples.
 * @lat_n: samples taken.
 * @lat_cap: room in @lat.
 * @t_start: start of the measured phase.
 * @t_end: last completion.
 * @t_progress: jiffies of the last completion (stall detection).
 * @mm: first verification mismatch.
 * @pp: ping-pong state.
 * @is_peer: the target is a server on another host (@peer).
 * @peer: client state of a peer job.
 * @entered: the job is a poster of @sess (ibpost_session_enter()).
 * @draining: teardown started: flushed completions are not errors.
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
	struct ibpost_sge_desc target_layout;
	u32 recv_num_sge;
	u32 depth;
	struct ibpost_session *sess;
	struct ibpost_conn *conn;
	struct ibpost_buf local;
	struct ibpost_buf target;
	struct ibpost_mrs mrs;
	struct ib_rdma_wr *wrs;
	struct ib_sge *sges;
	struct ibpost_wr_ctx *ctx;
	struct ibpost_recv_ctx *rctx;
	struct ib_sge *rsges;
	bool has_recv;
	struct ibpost_sq sq;
	u64 warmup;
	u64 phase_end;
	u64 recv_done;
	u64 *lat;
	u64 lat_n;
	u64 lat_cap;
	u64 t_start;
	u64 t_end;
	unsigned long t_progress;
	struct ibpost_mismatch mm;
	struct ibpost_pp pp;
	bool is_peer;
	struct ibpost_peer peer;
	bool entered;
	bool draining;
	int err;
};

/*
 * Run pending softirqs now, in this thread.  Software providers defer work
 * of kernel QPs to tasklets (rdma_rxe runs the requester of a kernel QP as
 * a tasklet, the loopback packet as NET_RX); raised from process context
 * they would wait for ksoftirqd or the next interrupt.  On hardware nothing
 * is pending and this costs two preempt-count updates.
 */
static inline void ibpost_softirq_flush(void)
{
	local_bh_disable();
	local_bh_enable();
}

/*
 * The end of a kthread that others stop with kthread_stop(): wait for it
 * (the caller holds a reference to the task).
 */
static inline void ibpost_kthread_wait_stop(void)
{
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
}

int ibpost_job_prepare(struct ibpost_job *job);
int ibpost_job_pump(struct ibpost_job *job, u64 phase_end, u32 duration_ms);
void ibpost_job_fail(struct ibpost_job *job, int err, u32 reason, u64 wr);
bool ibpost_job_should_stop(struct ibpost_job *job);
void ibpost_wc_error(struct ibpost_job *job, const struct ib_wc *wc, u64 seq);
void ibpost_stamp(struct ibpost_job *job, u64 seq, u32 slot);
void ibpost_note_mismatch(struct ibpost_job *job, u64 wr, u32 bad);

/* pingpong.c */
int ibpost_pp_prepare(struct ibpost_job *job);
int ibpost_pp_pump(struct ibpost_job *job, u64 phase_end, u32 duration_ms);
void ibpost_pp_finish(struct ibpost_job *job);

/* peer.c */
void ibpost_peer_caps(struct ibpost_job *job, struct ibpost_conn_caps *caps);
void ibpost_peer_rejected(struct ibpost_job *job);
int ibpost_peer_start(struct ibpost_job *job);
int ibpost_peer_fin(struct ibpost_job *job);
bool ibpost_peer_lost(struct ibpost_job *job);
u64 ibpost_peer_pattern_wr(const struct ibpost_job *job, u64 seq);
void ibpost_peer_free(struct ibpost_job *job);

#endif /* _IBPOST_JOB_H */
