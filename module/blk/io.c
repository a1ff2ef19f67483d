// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost_blk: the I/O path.
 *
 * Hardware queue i is session queue i: a READ becomes one RDMA READ
 * request from the region into the bio pages, a WRITE one RDMA WRITE from
 * them, both one-sided and straight between the pages blk_rq_map_sg()
 * lists and the region (no bounce buffer, no copy).  The request's
 * &struct ibpost_blk_cmd (session request and scatterlist) is the tag
 * set's pdu: allocated with the tag set, never per I/O.
 *
 * The tag set is BLK_MQ_F_BLOCKING: ibpost_submit() may sleep, in
 * rdma_rw_ctx_init()'s allocation for a list of several entries (GFP_NOIO,
 * submit.c) or waiting for send-queue room (never in practice: each
 * session queue has room for depth requests of the most entries).
 *
 * FLUSH completes at once: a WRITE is completed to the block layer only
 * after its RDMA WRITE's completion, which on RC (and on a device without
 * IBPOST_DEV_WRITE_UNPLACED, the only kind mapped) means the data is in
 * the region's memory.  So every write that completed before the flush is
 * where a flush would put it, and a RAM region has nothing further to
 * make durable (its contents live only as long as the mapping anyway).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/module.h>

#include "blk.h"

unsigned int ibpost_blk_io_timeout = 30;
module_param_named(io_timeout, ibpost_blk_io_timeout, uint, 0444);
MODULE_PARM_DESC(io_timeout,
		 "seconds a request may take before the device's session is failed (its I/O then ends with an error), 1 to 600 (default 30)");

static const char *const ibpost_blk_reasons[IBPOST_R_MAX] =
	IBPOST_REASON_TEXTS;

/**
 * ibpost_blk_reason() - the text of an IBPOST_R_* reason.
 * @reason: the code.
 *
 * Return: a constant string.
 */
const char *ibpost_blk_reason(u32 reason)
{
	if (reason >= IBPOST_R_MAX || !ibpost_blk_reasons[reason])
		return "unknown reason";
	return ibpost_blk_reasons[reason];
}

/* The request's session completion (softirq, or the session's death). */
static void ibpost_blk_done(struct ibpost_req *req, int status)
{
	struct ibpost_blk_cmd *cmd = container_of(req, struct ibpost_blk_cmd,
						  req);
	struct request *rq = blk_mq_rq_from_pdu(cmd);

	cmd->status = status ? BLK_STS_IOERR : BLK_STS_OK;
	if (status)
		pr_err_ratelimited("%s: %s of %u bytes at sector %llu failed: %d\n",
				   rq->q->disk ? rq->q->disk->disk_name : "?",
				   req->op == IBPOST_OP_READ ? "READ" : "WRITE",
				   blk_rq_bytes(rq),
				   (unsigned long long)blk_rq_pos(rq), status);
	if (likely(!blk_should_fake_timeout(rq->q)))
		blk_mq_complete_request(rq);
}

static void ibpost_blk_complete(struct request *rq)
{
	struct ibpost_blk_cmd *cmd = blk_mq_rq_to_pdu(rq);

	blk_mq_end_request(rq, cmd->status);
}

static blk_status_t ibpost_blk_queue_rq(struct blk_mq_hw_ctx *hctx,
					const struct blk_mq_queue_data *bd)
{
	struct ibpost_blk_dev *d = hctx->queue->queuedata;
	struct request *rq = bd->rq;
	struct ibpost_blk_cmd *cmd = blk_mq_rq_to_pdu(rq);
	struct ibpost_req *req = &cmd->req;
	unsigned short nseg;
	int n, ret;
	u32 op;

	switch (req_op(rq)) {
	case REQ_OP_FLUSH:
		blk_mq_start_request(rq);
		blk_mq_end_request(rq, BLK_STS_OK);
		return BLK_STS_OK;
	case REQ_OP_READ:
		op = IBPOST_OP_READ;
		break;
	case REQ_OP_WRITE:
		op = IBPOST_OP_WRITE;
		break;
	default:
		return BLK_STS_NOTSUPP;
	}
	if (READ_ONCE(d->state) != IBPOST_BLK_LIVE)
		return BLK_STS_IOERR;
	blk_mq_start_request(rq);
	/*
	 * Only the entries this request can fill: the whole table (up to
	 * IBPOST_BLK_MAX_SEGS, 8 KiB) cleared per I/O was the largest cost
	 * of a 4 KiB request in the driver (Documentation/blk.rst).
	 */
	nseg = blk_rq_nr_phys_segments(rq);
	if (WARN_ON_ONCE(!nseg || nseg > d->segs))
		return BLK_STS_IOERR;
	sg_init_table(cmd->sg, nseg);
	n = blk_rq_map_sg(rq->q, rq, cmd->sg);
	if (WARN_ON_ONCE(n <= 0))
		return BLK_STS_IOERR;
	memset(req, 0, sizeof(*req));
	req->op = op;
	req->flags = IBPOST_REQ_REGION;
	req->sgl = cmd->sg;
	req->nents = n;
	req->remote_offset = (u64)blk_rq_pos(rq) << SECTOR_SHIFT;
	req->queue = hctx->queue_num;
	req->done = ibpost_blk_done;
	ret = ibpost_submit(d->sess, req);
	if (!ret)
		return BLK_STS_OK;
	pr_err_ratelimited("%s: request refused: %d: %s\n",
			   d->disk->disk_name, ret,
			   ibpost_blk_reason(req->reason));
	return BLK_STS_IOERR;
}

/*
 * A request outlived the timeout: the RDMA device stopped answering.  Put
 * the session in error: every outstanding request of it is flushed and
 * completes with an I/O error through its callback, this one included;
 * until then the block layer keeps the timer running.
 */
static enum blk_eh_timer_return ibpost_blk_timeout(struct request *rq)
{
	struct ibpost_blk_dev *d = rq->q->queuedata;

	pr_err_ratelimited("%s: request at sector %llu timed out after %u s: failing the session's I/O\n",
	       d->disk->disk_name, (unsigned long long)blk_rq_pos(rq),
	       ibpost_blk_io_timeout);
	WRITE_ONCE(d->state, IBPOST_BLK_ERROR);
	ibpost_session_fail(d->sess);
	return BLK_EH_RESET_TIMER;
}

/* The pdu's scatterlist: d->segs entries, set up once. */
static int ibpost_blk_init_request(struct blk_mq_tag_set *set,
				   struct request *rq, unsigned int hctx_idx,
				   unsigned int numa_node)
{
	struct ibpost_blk_dev *d = set->driver_data;
	struct ibpost_blk_cmd *cmd = blk_mq_rq_to_pdu(rq);

	sg_init_table(cmd->sg, d->segs);
	return 0;
}

const struct blk_mq_ops ibpost_blk_mq_ops = {
	.queue_rq = ibpost_blk_queue_rq,
	.complete = ibpost_blk_complete,
	.timeout = ibpost_blk_timeout,
	.init_request = ibpost_blk_init_request,
};

/**
 * ibpost_blk_event() - the session's events: its QP in error, its device
 *	gone.
 * @s: the session (its priv is the device).
 * @ev: IBPOST_EV_*.
 *
 * From now on I/O fails at once (the session refuses it as well); the
 * requests outstanding were, or are being, completed with an error by the
 * session.  Context: softirq or process context; never sleeps.
 */
void ibpost_blk_event(struct ibpost_session *s, enum ibpost_session_event ev)
{
	struct ibpost_blk_dev *d = ibpost_session_priv(s);

	if (ev == IBPOST_EV_LOST) {
		WRITE_ONCE(d->state, IBPOST_BLK_LOST);
		pr_warn("%s%d: RDMA device %s removed: I/O fails, unmap the device\n",
			IBPOST_BLK_NAME, d->id, d->map.rdma);
	} else if (READ_ONCE(d->state) == IBPOST_BLK_LIVE) {
		WRITE_ONCE(d->state, IBPOST_BLK_ERROR);
		pr_warn("%s%d: session in error: I/O fails, unmap the device\n",
			IBPOST_BLK_NAME, d->id);
	}
}
