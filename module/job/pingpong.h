/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: ping-pong latency (IBPOST_RUN_PINGPONG).
 */
#ifndef _IBPOST_PINGPONG_H
#define _IBPOST_PINGPONG_H

#include <linux/sched.h>
#include <rdma/ib_verbs.h>

#include "core/mr.h"
#include "lib/sgl.h"

struct ibpost_job;

/**
 * struct ibpost_pp - ping-pong state (IBPOST_RUN_PINGPONG).
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
 *
 * The initiator's slots (the job's @local target) are registered for the
 * pong; what the target side's check found is the job's @target's.
 */
struct ibpost_pp {
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
};

int ibpost_pp_prepare(struct ibpost_job *job);
int ibpost_pp_pump(struct ibpost_job *job, u64 phase_end, u32 duration_ms);
void ibpost_pp_finish(struct ibpost_job *job);

#endif /* _IBPOST_PINGPONG_H */
