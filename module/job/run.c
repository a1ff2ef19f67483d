// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: ibpost_run(): set up, run and tear down one transfer job.
 *
 * ibpost_run() is the engine's single entry: the ioctl front calls it with
 * a copy of the user's request, kernel callers call it directly.  It
 * validates everything before anything is allocated on the device, then
 * builds the QP pair, the buffers and the remote MRs, runs warm-up and
 * measured phases, and frees everything in reverse order whatever happens.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/ktime.h>

#include "job/job.h"
#include "core/live.h"
#include "lib/llhist.h"
#include "job/post.h"
#include "session/session.h"
#include "lib/stats.h"
#include "core/trace.h"
#include "core/testhook.h"

/* Most latency samples kept whole (8 MiB); the histogram counts them all. */
#define IBPOST_LAT_MAX		(1U << 20)

static bool ibpost_pingpong(const struct ibpost_job *job)
{
	return job->run->flags & IBPOST_RUN_PINGPONG;
}

static int ibpost_job_limits(struct ibpost_job *job)
{
	struct ibpost_run *run = job->run;
	struct ibpost_dev_info *info = &job->dev->info;
	struct ib_port_attr pattr;
	int ret;

	job->port = run->port ? run->port : info->start_port;
	if (!rdma_is_port_valid(job->dev->ibdev, job->port)) {
		ibpost_status_set(&run->status, IBPOST_R_PORT, run->port,
				  rdma_end_port(job->dev->ibdev));
		return -EINVAL;
	}
	ret = ib_query_port(job->dev->ibdev, job->port, &pattr);
	if (ret) {
		ibpost_status_set(&run->status, IBPOST_R_PORT, run->port, 0);
		return ret;
	}
	job->lim.max_send_sge = info->attrs.max_send_sge;
	job->lim.max_recv_sge = info->attrs.max_recv_sge;
	job->lim.max_sge_rd = info->attrs.max_sge_rd;
	job->lim.max_qp_wr = info->attrs.max_qp_wr > 1 ?
			     info->attrs.max_qp_wr - 1 : 0;
	job->lim.max_inline = info->max_inline_data;
	job->lim.max_msg_sz = pattr.max_msg_sz;
	job->lim.max_frpl = info->attrs.max_fast_reg_page_list_len;
	/* What the device cannot do is refused for kernel callers too. */
	job->lim.dev_flags = info->flags;
	return 0;
}

static int ibpost_job_layout_fill(struct ibpost_job *job, u32 kind, u32 n,
				  const struct ibpost_sge_desc *given,
				  u64 seed, struct ibpost_sge_desc **out)
{
	struct ibpost_status *st = &job->run->status;
	int ret;

	*out = kcalloc(n, sizeof(**out), GFP_KERNEL);
	if (!*out) {
		ibpost_status_set(st, IBPOST_R_NOMEM, n, 0);
		return -ENOMEM;
	}
	if (kind == IBPOST_LAYOUT_EXPLICIT) {
		if (!given) {
			ibpost_status_set(st, IBPOST_R_SGE_COUNT, 0, n);
			return -EINVAL;
		}
		memcpy(*out, given, n * sizeof(**out));
	} else {
		ret = ibpost_layout_gen(kind, job->run->msg_size, n, seed, *out,
					st);
		if (ret)
			return ret;
	}
	return ibpost_layout_check(*out, n, job->run->msg_size,
				   IBPOST_SLOT_MAX, st);
}

/*
 * Resolve one side's layout: copy the caller's or generate one.  Every WR
 * of the side uses it, so an SGE error is reported against WR 0, and any
 * error of the receive layout against the receive WRs.
 */
static int ibpost_job_layout(struct ibpost_job *job, u32 kind, u32 n,
			     const struct ibpost_sge_desc *given, u64 seed,
			     bool recv, struct ibpost_sge_desc **out)
{
	struct ibpost_status *st = &job->run->status;
	int ret;

	ret = ibpost_job_layout_fill(job, kind, n, given, seed, out);
	if (ret && st->reason != IBPOST_R_NOMEM &&
	    (recv || st->sge != IBPOST_STATUS_NONE))
		st->wr = recv ? IBPOST_STATUS_RECV_WR : 0;
	return ret;
}

static int ibpost_job_layouts(struct ibpost_job *job)
{
	struct ibpost_run *run = job->run;
	int ret;

	ret = ibpost_job_layout(job, run->layout, run->num_sge,
				job->ext->sges, run->seed, false,
				&job->send_layout);
	if (ret)
		return ret;
	if (!ibpost_op_is_send(run->op))
		return 0;
	job->recv_num_sge = run->recv_num_sge ? run->recv_num_sge :
			    run->num_sge;
	return ibpost_job_layout(job, run->recv_layout, job->recv_num_sge,
				 job->ext->recv_sges, run->seed + 1, true,
				 &job->recv_layout);
}

/*
 * iWARP places an RDMA READ's response only into memory registered with
 * remote write access (RFC 5040; the kernel's rw.c does the same): the
 * local DMA lkey will not do there, so the READ's sink slots get an MR.
 */
static bool ibpost_job_iwarp_sink(const struct ibpost_job *job)
{
	return job->run->op == IBPOST_OP_READ &&
	       rdma_protocol_iwarp(job->dev->ibdev, job->port);
}

/*
 * What lands in each side's slots: the initiator's hold its WRs' sources
 * (a READ's and a pong's landing), the target's what its WRs deliver.
 */
static void ibpost_job_targets(struct ibpost_job *job)
{
	struct ibpost_run *run = job->run;
	struct ibpost_target_desc d = {
		.op = run->op,
		.msg_size = run->msg_size,
		.imm_data = run->imm_data,
		.send = job->send_layout,
		.num_sge = run->num_sge,
		.land = job->send_layout,
		.land_n = run->num_sge,
		.initiator = true,
	};

	ibpost_target_init(&job->local, &d);
	d.initiator = false;
	d.land = ibpost_op_is_send(run->op) ? job->recv_layout : NULL;
	d.land_n = job->recv_num_sge;
	d.verify = run->flags & IBPOST_RUN_VERIFY;
	ibpost_target_init(&job->target, &d);
	if (job->ext->fault & IBPOST_FAULT_CORRUPT) {
		job->local.corrupt_wr = job->warmup;
		job->target.corrupt_wr = job->warmup;
	}
}

static int ibpost_job_sizes(struct ibpost_job *job, u32 *local_slot,
			    u32 *target_slot)
{
	struct ibpost_run *run = job->run;
	struct ibpost_slots s[2];

	*local_slot = ibpost_target_slot_size(&job->local);
	/* Against a peer the target is the server's, checked there. */
	*target_slot = job->is_peer ? 0 :
		       ibpost_target_slot_size(&job->target);
	/*
	 * A pong lands in the initiator's slot, through an MR, after the
	 * send SGEs: its tag byte must never be a byte the ping sends.
	 */
	if (ibpost_pingpong(job)) {
		job->pp.pong_off = *local_slot;
		*local_slot += PAGE_ALIGN(run->msg_size);
	}
	s[0].nslots = job->depth;
	s[0].slot_size = *local_slot;
	s[0].mapped = ibpost_pingpong(job) || ibpost_job_iwarp_sink(job);
	s[1].nslots = *target_slot ? job->depth : 0;
	s[1].slot_size = *target_slot;
	s[1].mapped = ibpost_op_is_rdma(run->op);
	return ibpost_target_sizes(s, ARRAY_SIZE(s), job->lim.max_frpl,
				   &run->status);
}

/* The rdma_cm address of a run (family already validated). */
static void ibpost_job_sockaddr(const struct ibpost_run *run,
				struct sockaddr_storage *ss)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	if (run->cm_family == AF_INET) {
		in4->sin_family = AF_INET;
		memcpy(&in4->sin_addr, run->cm_addr, sizeof(in4->sin_addr));
	} else {
		in6->sin6_family = AF_INET6;
		memcpy(&in6->sin6_addr, run->cm_addr, sizeof(in6->sin6_addr));
	}
}

static int ibpost_job_connect(struct ibpost_job *job)
{
	struct ibpost_run *run = job->run;
	struct ibpost_conn_caps caps = {
		.send_wr = job->depth,
		.send_sge = run->num_sge,
		.inline_data = run->flags & IBPOST_RUN_INLINE ? run->msg_size : 0,
		.recv_wr = job->has_recv ? job->depth : 0,
		.recv_sge = job->recv_num_sge,
		.target_send_wr = IBPOST_MR_CHAIN,
		.cm_timeout_ms = run->cm_timeout_ms,
		.gid_fixed = run->flags & IBPOST_RUN_GID,
		.gid_index = run->gid_index,
	};
	bool cm = run->flags & (IBPOST_RUN_CM | IBPOST_RUN_PEER);
	struct ibpost_status *st = &run->status;
	struct sockaddr_storage ss = {};
	struct ibpost_session *sess;

	if (cm)
		ibpost_job_sockaddr(run, &ss);
	if (job->is_peer)
		ibpost_peer_caps(job, &caps);
	sess = ibpost_session_create(job->dev, job->port, &caps,
				     cm ? &ss : NULL, st);
	if (IS_ERR(sess)) {
		if (job->is_peer && PTR_ERR(sess) == -ECONNREFUSED)
			ibpost_peer_rejected(job);
		if (st->reason == IBPOST_R_NONE)
			ibpost_status_set(st, IBPOST_R_CONNECT, -PTR_ERR(sess),
					  0);
		return PTR_ERR(sess);
	}
	job->sess = sess;
	job->ini = sess->ep;
	job->tgt = sess->pair ? &sess->pair->tgt : NULL;
	run->result.qpn = job->ini->qp->qp_num;
	run->result.target_qpn = job->tgt ? job->tgt->qp->qp_num : 0;
	/* Device removal now waits for this job to leave the session. */
	if (ibpost_session_publish(sess) || !ibpost_session_enter(sess)) {
		ibpost_status_set(st, IBPOST_R_DEVICE_GONE, 0, 0);
		return -ENODEV;
	}
	job->entered = true;
	run->result.max_inline = job->ini->granted.max_inline_data;
	/* Validate against what the QP was granted, not what was asked. */
	if ((run->flags & IBPOST_RUN_INLINE) &&
	    run->msg_size > job->ini->granted.max_inline_data) {
		ibpost_status_set(st, IBPOST_R_INLINE_SIZE, run->msg_size,
				  job->ini->granted.max_inline_data);
		return -EINVAL;
	}
	if (run->num_sge > job->ini->granted.max_send_sge) {
		ibpost_status_set(st, IBPOST_R_NUM_SGE, run->num_sge,
				  job->ini->granted.max_send_sge);
		return -EINVAL;
	}
	return 0;
}

static int ibpost_job_alloc(struct ibpost_job *job)
{
	struct ibpost_run *run = job->run;
	u32 d = job->depth;
	u64 samples;

	job->wrs = kvcalloc(d, sizeof(*job->wrs), GFP_KERNEL);
	job->sges = kvcalloc((size_t)d * run->num_sge, sizeof(*job->sges),
			     GFP_KERNEL);
	job->ctx = kvcalloc(d, sizeof(*job->ctx), GFP_KERNEL);
	if (!run->iters)
		samples = IBPOST_LAT_MAX;
	else if (ibpost_pingpong(job))
		samples = run->iters;
	else
		samples = div_u64(run->iters, run->signal_every) + 1;
	job->lat_cap = min_t(u64, samples,
			     ibpost_test_read(lat_test_cap) ?: IBPOST_LAT_MAX);
	job->lat = kvmalloc_array(job->lat_cap, sizeof(*job->lat), GFP_KERNEL);
	job->hist = kvmalloc(sizeof(*job->hist), GFP_KERNEL);
	if (job->hist)
		ibpost_llhist_init(job->hist);
	if (!job->wrs || !job->sges || !job->ctx || !job->lat || !job->hist) {
		ibpost_status_set(&run->status, IBPOST_R_NOMEM, d, 0);
		return -ENOMEM;
	}
	return 0;
}

static void ibpost_job_free_arrays(struct ibpost_job *job)
{
	kvfree(job->rkey);
	kvfree(job->raddr);
	kvfree(job->hist);
	kvfree(job->lat);
	kvfree(job->ctx);
	kvfree(job->sges);
	kvfree(job->wrs);
	kfree(job->recv_layout);
	kfree(job->send_layout);
}

static int ibpost_job_buffers(struct ibpost_job *job, u32 local_slot,
			      u32 target_slot)
{
	struct ibpost_run *run = job->run;
	int ret;

	ret = ibpost_target_alloc(&job->local, job->dev->ibdev, job->depth,
				  local_slot, &run->status);
	if (!ret && target_slot)
		ret = ibpost_target_alloc(&job->target, job->dev->ibdev,
					  job->depth, target_slot,
					  &run->status);
	if (ret)
		return ret;
	if (ibpost_job_iwarp_sink(job)) {
		ret = ibpost_target_register(&job->local, job->ini,
					     &run->status);
		if (ret)
			return ret;
	}
	if (!ibpost_op_is_rdma(run->op) || job->is_peer)
		return 0;
	ret = ibpost_target_register(&job->target, job->tgt, &run->status);
	if (ret)
		return ret;
	/* The remote slot table of a loopback job: the target's MRs. */
	ret = ibpost_target_table(&job->target, &job->raddr, &job->rkey);
	if (ret) {
		ibpost_status_set(&run->status, IBPOST_R_NOMEM, job->depth, 0);
		return ret;
	}
	job->rslots = job->depth;
	return 0;
}

static int ibpost_job_measure(struct ibpost_job *job)
{
	int (*pump)(struct ibpost_job *job, u64 phase_end, u32 duration_ms);
	struct ibpost_run *run = job->run;
	int ret;

	pump = ibpost_pingpong(job) ? ibpost_pp_pump : ibpost_job_pump;
	if (job->warmup) {
		ibpost_job_set_state(job, IBPOST_JOB_WARMUP);
		ret = pump(job, job->warmup, 0);
		if (ret)
			return ret;
	}
	job->t_start = ktime_get_ns();
	job->t_end = job->t_start;
	ibpost_job_set_state(job, IBPOST_JOB_MEASURE);
	ret = pump(job, run->iters ? job->warmup + run->iters : U64_MAX,
		   run->iters ? 0 : run->duration_ms);
	if (ibpost_pingpong(job)) {
		ibpost_pp_finish(job);
		ret = job->err;
	}
	if (!ret && job->is_peer)
		ret = ibpost_peer_fin(job);
	return ret;
}

static void ibpost_job_results(struct ibpost_job *job)
{
	struct ibpost_result *res = &job->run->result;

	res->wrs = u64_stats_read(&job->count.wrs);
	res->bytes = res->wrs * job->run->msg_size;
	res->elapsed_ns = job->t_end > job->t_start ?
			  job->t_end - job->t_start : 0;
	res->sq_max_used = job->sq.max_used;
	ibpost_lat_summarize(job->lat, job->lat_n, res);
	if (!job->hist)
		return;
	ibpost_llhist_result(job->hist, job->lat_n, res);
	if (job->ext->hist)
		memcpy(job->ext->hist, job->hist->b, sizeof(job->hist->b));
}

static void ibpost_job_teardown(struct ibpost_job *job)
{
	if (ibpost_pingpong(job))
		ibpost_pp_finish(job);
	if (job->sess) {
		if (!job->err) {
			ibpost_target_invalidate(&job->local);
			ibpost_target_invalidate(&job->target);
		}
		ibpost_ep_drain(job->ini);
		if (job->tgt)
			ibpost_ep_drain(job->tgt);
	}
	ibpost_peer_free(job);
	ibpost_target_free(&job->target);
	ibpost_target_free(&job->local);
	if (job->entered)
		ibpost_session_leave(job->sess);
	if (job->sess)
		ibpost_session_close(job->sess);
}

static int ibpost_job_start(struct ibpost_job *job)
{
	struct ibpost_run *run = job->run;
	u32 local_slot, target_slot;
	int ret;

	ret = ibpost_job_limits(job);
	if (ret)
		return ret;
	if (run->layout == IBPOST_LAYOUT_EXPLICIT && !run->msg_size &&
	    job->ext->sges && run->num_sge <= IBPOST_MAX_SGE)
		run->msg_size = (u32)min_t(u64, U32_MAX,
					   ibpost_layout_sum(job->ext->sges,
							     run->num_sge));
	ret = ibpost_run_check(run, &job->lim, &run->status);
	if (ret)
		return ret;
	/* The GID table is the device's: checked before anything is made. */
	if (run->flags & IBPOST_RUN_GID) {
		ret = ibpost_gid_check(job->dev->ibdev, job->port,
				       run->gid_index, &run->status);
		if (ret)
			return ret;
	}
	job->depth = run->depth;
	/* WR seq targets remote slot seq % depth until a server says more. */
	job->rslots = job->depth;
	job->warmup = run->warmup;
	job->is_peer = run->flags & IBPOST_RUN_PEER;
	/* Against a peer, receives are the server's. */
	job->has_recv = ibpost_op_has_recv(run->op) && !job->is_peer;
	/* Against a peer the initiator checks READs only, the server the rest. */
	job->verify_rdma = (run->flags & IBPOST_RUN_VERIFY) && !job->has_recv &&
			   ibpost_op_is_rdma(run->op) &&
			   (!job->is_peer || run->op == IBPOST_OP_READ);
	job->stamp_target = !job->is_peer;
	ibpost_sq_init(&job->sq, job->depth, run->signal_every);
	ret = ibpost_job_layouts(job);
	if (ret)
		return ret;
	ibpost_job_targets(job);
	ret = ibpost_job_sizes(job, &local_slot, &target_slot);
	if (ret)
		return ret;
	ret = ibpost_job_alloc(job);
	if (ret)
		return ret;
	ret = ibpost_job_connect(job);
	if (!ret && job->is_peer)
		ret = ibpost_peer_start(job);
	if (ret)
		return ret;
	ret = ibpost_job_buffers(job, local_slot, target_slot);
	if (ret)
		return ret;
	ret = ibpost_job_prepare(job);
	if (ret || !ibpost_pingpong(job))
		return ret;
	return ibpost_pp_prepare(job);
}

/**
 * ibpost_run_on() - run one transfer job to its end, watched in a slot.
 * @run: as for ibpost_run().
 * @ext: as for ibpost_run().
 * @slot: where ibpost_job_slot_progress() finds the job while it runs
 *	(the file of IBPOST_IOC_RUN); NULL for none (kernel callers).
 *
 * Context: process context, may sleep; runs for the length of the job.
 * Return: as ibpost_run().
 */
int ibpost_run_on(struct ibpost_run *run, const struct ibpost_run_ext *ext,
		  struct ibpost_job_slot *slot)
{
	static const struct ibpost_run_ext none;
	struct ibpost_job *job;
	bool started = false;
	int ret;

	memset(&run->status, 0, sizeof(run->status));
	memset(&run->result, 0, sizeof(run->result));
	run->status.wr = IBPOST_STATUS_NONE;
	run->status.sge = IBPOST_STATUS_NONE;
	if (!ext)
		ext = &none;
	/* Faults are a test build's (core/testhook.h): the product has none. */
	if (ext->fault & ~ibpost_run_faults()) {
		ibpost_status_set(&run->status, IBPOST_R_FLAGS, ext->fault,
				  ibpost_run_faults());
		ret = -EINVAL;
		goto out;
	}
	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job) {
		ibpost_status_set(&run->status, IBPOST_R_NOMEM, sizeof(*job), 0);
		ret = -ENOMEM;
		goto out;
	}
	atomic_long_inc(&ibpost_live.jobs);
	job->run = run;
	job->ext = ext;
	job->state = IBPOST_JOB_SETUP;
	u64_stats_init(&job->count.syncp);
	ibpost_job_slot_enter(slot, job);
	run->dev[IBPOST_NAME_MAX - 1] = '\0';
	job->dev = ibpost_dev_get_by_name(run->dev);
	if (!job->dev) {
		ibpost_status_set(&run->status, IBPOST_R_NO_DEVICE, 0, 0);
		ret = -ENODEV;
		goto out_free;
	}
	ret = ibpost_job_start(job);
	if (!ret) {
		started = true;
		trace_ibpost_job_start(run, run->result.qpn,
				       run->result.target_qpn);
		ret = ibpost_job_measure(job);
	} else {
		job->err = ret;
	}
	ibpost_job_set_state(job, IBPOST_JOB_ENDING);
	ibpost_job_teardown(job);
	ibpost_job_results(job);
	ibpost_job_free_arrays(job);
	ibpost_dev_put(job->dev);
	if (started)
		trace_ibpost_job_end(run, run->result.qpn, ret);
out_free:
	ibpost_job_slot_leave(slot, job);
	atomic_long_dec(&ibpost_live.jobs);
	kfree(job);
out:
	/* Nothing was posted: the request was refused (or could not start). */
	if (ret && !started)
		trace_ibpost_refuse(&run->status, ret);
	return ret;
}

/**
 * ibpost_run() - run one transfer job to its end.
 * @run: the job (kernel memory); @run->status and @run->result are
 *	written, also when the run fails or is interrupted.
 * @ext: explicit layouts and injected faults; may be NULL.
 *
 * Everything is validated before anything is posted; a refusal names the
 * field, WR and SGE in @run->status.  The run busy-polls its CQs from the
 * calling thread and ends early on a signal, on device removal, on an
 * error completion or a verification mismatch.  All QPs, CQs, MRs and
 * pages are freed before it returns.
 *
 * Context: process context, may sleep; runs for the length of the job.
 * Return: 0; -EINVAL or -EOVERFLOW when refused; -ENODEV for an unknown
 * or removed device; -EIO on an error completion or a data mismatch;
 * -EINTR when a signal ended the run (partial results are valid);
 * -ETIMEDOUT when completions stopped; -ENOMEM.
 */
int ibpost_run(struct ibpost_run *run, const struct ibpost_run_ext *ext)
{
	return ibpost_run_on(run, ext, NULL);
}
EXPORT_SYMBOL_GPL(ibpost_run);
