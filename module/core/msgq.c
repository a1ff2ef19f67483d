// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: the messages of one endpoint of a two-sided session.
 *
 * A target keeps @window receives posted for commands and answers each
 * command once; an initiator sends a command only with a credit and a
 * receive posted for its answer (lib/msg.h has the rules, wire.rst the
 * format).  The ring has twice @window buffers: a buffer that arrives is
 * replaced at once by a free one, before its handler runs, so an answer
 * the handler sends already returns the credit its command used, and an
 * owner may hold a buffer as long as it likes without stalling the flow.
 *
 * An initiator's command waits for three things before its owner hears of
 * it: its SEND's completion, its answer and, when the answer did not
 * invalidate the command's key with SEND_WITH_INV, the LOCAL_INV posted
 * then (nvme-rdma waits for the same: its send_cqe, its response and its
 * inv_cqe).  Only then are the pages the key mapped safe from the far
 * side.  Every byte of an arriving message is checked before it is used
 * (ibpost_wire_msg_check()); a message that breaks the protocol (a
 * credit overrun, an answer to a command never sent, a foreign key
 * invalidated) fails the queue, and its owner closes it.
 *
 * Handlers run in the endpoint's completion context, the owner's ops
 * without the queue's lock (they may send).  Posting is done outside the
 * lock too: an endpoint may post with bottom halves turned off and on
 * (ibpost_ep_post()), which must not happen with interrupts off.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "lib/abi.h"
#include "core/msgq.h"

static struct ibpost_msgq_tx *ibpost_msgq_cmd_tx(struct ibpost_msgq *q,
						  u64 cmd)
{
	u32 idx = lower_32_bits(cmd);
	struct ibpost_msgq_tx *tx;

	if (idx >= q->ntx || !test_bit(idx, q->busy))
		return NULL;
	tx = &q->tx[idx];
	if (tx->gen != upper_32_bits(cmd) || tx->answered)
		return NULL;
	return tx;
}

/* The queue's first failure: kept, and its owner told once. */
static void ibpost_msgq_fail(struct ibpost_msgq *q, int err,
			     const struct ibpost_status *st)
{
	unsigned long flags;
	bool first;

	spin_lock_irqsave(&q->lock, flags);
	first = !q->err;
	if (first) {
		q->err = err;
		q->st = *st;
	}
	spin_unlock_irqrestore(&q->lock, flags);
	if (first) {
		if (q->ops->failed)
			q->ops->failed(q);
		ibpost_ep_wake(q->ep);
	}
}

static void ibpost_msgq_fail_reason(struct ibpost_msgq *q, int err,
				    u32 reason, u64 value, u64 limit)
{
	struct ibpost_status st = {};

	ibpost_status_set(&st, reason, value, limit);
	ibpost_msgq_fail(q, err, &st);
}

static void ibpost_msgq_recv_done(struct ib_cq *cq, struct ib_wc *wc);

/*
 * A send-side completion's status: 0, or -EIO after an error completion,
 * which fails the queue (a flush while the endpoint drains does not).
 */
static int ibpost_msgq_wc(struct ibpost_msgq *q, const struct ib_wc *wc)
{
	if (likely(wc->status == IB_WC_SUCCESS))
		return 0;
	if (ibpost_ep_wc_error(q->ep, wc))
		ibpost_msgq_fail_reason(q, -EIO, IBPOST_R_WC_ERROR, wc->status,
					0);
	return -EIO;
}

static int ibpost_msgq_post_recv(struct ibpost_msgq *q, u32 idx)
{
	struct ibpost_msgq_rx *r = &q->rx[idx];
	struct ib_sge sge = {
		.addr = q->rxbuf.dma[idx],
		.length = q->msg_size,
		.lkey = q->ep->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &r->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	r->cqe.done = ibpost_msgq_recv_done;
	ibpost_buf_for_device(&q->rxbuf, idx);
	return ibpost_ep_post_recv(q->ep, &wr);
}

/*
 * Post free buffers until @window receives are posted (under @q->lock;
 * ib_post_recv() does not turn bottom halves on).  A target counts each
 * one past the first @window as a credit to return.
 */
static int ibpost_msgq_refill_locked(struct ibpost_msgq *q, bool initial)
{
	int ret;

	while (q->posted < q->window && q->nfree && !q->err && !q->closed &&
	       !READ_ONCE(q->ep->draining)) {
		ret = ibpost_msgq_post_recv(q, q->rxfree[q->nfree - 1]);
		if (ret)
			return ret;
		q->nfree--;
		q->posted++;
		if (q->target && !initial)
			ibpost_credits_reposted(&q->cr, 1);
	}
	return 0;
}

/* Give a buffer back to the ring and post what is missing. */
static void ibpost_msgq_put_rx(struct ibpost_msgq *q, u32 idx, bool kept)
{
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&q->lock, flags);
	if (kept && !WARN_ON_ONCE(!q->kept))
		q->kept--;
	q->rxfree[q->nfree++] = idx;
	ret = ibpost_msgq_refill_locked(q, false);
	spin_unlock_irqrestore(&q->lock, flags);
	if (ret)
		ibpost_msgq_fail_reason(q, ret, IBPOST_R_POST, 0, 0);
}

/**
 * ibpost_msgq_give_back() - the owner is done with a buffer it kept
 *	(&ibpost_msgq_ops.recv or .done returned true).
 * @q: the queue.
 * @buf: &ibpost_msgq_in.buf.
 *
 * Context: any.
 */
void ibpost_msgq_give_back(struct ibpost_msgq *q, u32 buf)
{
	if (WARN_ON_ONCE(buf >= 2 * q->window))
		return;
	ibpost_msgq_put_rx(q, buf, true);
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_msgq_give_back);

/* Free a send slot: its SQ slots come back. */
static void ibpost_msgq_tx_free(struct ibpost_msgq *q,
				struct ibpost_msgq_tx *tx)
{
	unsigned long flags;
	u8 sq;

	spin_lock_irqsave(&q->lock, flags);
	sq = tx->sq;
	tx->sq = 0;
	tx->key = NULL;
	clear_bit(tx->idx, q->busy);
	spin_unlock_irqrestore(&q->lock, flags);
	if (sq)
		ibpost_ep_credit_give(q->ep, sq);
}

/*
 * A command's last reference went: tell its owner (exactly once), then
 * free its slot.  The owner may send again from its callback.
 */
static void ibpost_msgq_cmd_end(struct ibpost_msgq *q,
				struct ibpost_msgq_tx *tx)
{
	struct ibpost_msgq_in in = tx->in;
	bool answered = tx->answered;
	void *cookie = tx->cookie;
	int status = tx->status;
	bool keep;

	if (tx->key)
		ibpost_cmdkey_dead(tx->key);
	ibpost_msgq_tx_free(q, tx);
	if (answered && status) {
		/* Answered, then failed (its SEND or its LOCAL_INV). */
		ibpost_msgq_put_rx(q, in.buf, true);
		answered = false;
	}
	keep = q->ops->done(q, cookie, status, answered ? &in : NULL);
	if (answered && !keep)
		ibpost_msgq_put_rx(q, in.buf, true);
	ibpost_ep_wake(q->ep);
}

/* Drop one of a command's references (under nothing). */
static void ibpost_msgq_cmd_put(struct ibpost_msgq *q,
				struct ibpost_msgq_tx *tx, int status)
{
	unsigned long flags;
	bool last;

	spin_lock_irqsave(&q->lock, flags);
	if (status && !tx->status)
		tx->status = status;
	last = !--tx->refs;
	spin_unlock_irqrestore(&q->lock, flags);
	if (last)
		ibpost_msgq_cmd_end(q, tx);
}

static void ibpost_msgq_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ibpost_msgq_tx *tx = container_of(wc->wr_cqe,
						 struct ibpost_msgq_tx, cqe);
	struct ibpost_msgq *q = tx->q;
	int status = ibpost_msgq_wc(q, wc);

	if (q->target) {
		void *cookie = tx->cookie;

		ibpost_msgq_tx_free(q, tx);
		if (q->ops->sent)
			q->ops->sent(q, cookie, status);
		ibpost_ep_wake(q->ep);
		return;
	}
	ibpost_msgq_cmd_put(q, tx, status);
}

/* A key's registration goes unsignaled: only its failure comes here. */
static void ibpost_msgq_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ibpost_msgq_tx *tx = container_of(wc->wr_cqe,
						 struct ibpost_msgq_tx,
						 reg_cqe);

	ibpost_msgq_wc(tx->q, wc);
}

static void ibpost_msgq_inv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ibpost_msgq_tx *tx = container_of(wc->wr_cqe,
						 struct ibpost_msgq_tx,
						 inv_cqe);
	int status = ibpost_msgq_wc(tx->q, wc);

	/* Flushed or done: no byte moves through the key any more. */
	ibpost_cmdkey_dead(tx->key);
	ibpost_msgq_cmd_put(tx->q, tx, status);
}

/*
 * A target's command arrived (@q->lock held): check what only a target
 * checks.  Return 0, or the failure in @st.
 */
static int ibpost_msgq_cmd_in(struct ibpost_msgq *q, const struct ib_wc *wc,
			      const struct ibpost_wire_msg *m,
			      struct ibpost_status *st)
{
	if (m->flags & IBPOST_WIRE_MSG_ANSWER) {
		/* An initiator answers nothing. */
		ibpost_status_set(st, IBPOST_R_PEER_PROTO, m->flags, 0);
		return -EPROTO;
	}
	if (wc->wc_flags & IB_WC_WITH_INVALIDATE) {
		/* Nothing of the target's is the initiator's to invalidate. */
		ibpost_status_set(st, IBPOST_R_PEER_PROTO,
				  wc->ex.invalidate_rkey, 0);
		return -EPROTO;
	}
	if (ibpost_credits_received(&q->cr, st))
		return -EPROTO;
	q->unanswered++;
	return 0;
}

/*
 * An initiator's answer arrived (@q->lock held): find its command, count
 * its credits, check its invalidation.  Return the command, or NULL with
 * the failure in @st.  *@inv: its key is still live, post a LOCAL_INV.
 */
static struct ibpost_msgq_tx *
ibpost_msgq_answer_in(struct ibpost_msgq *q, const struct ib_wc *wc,
		      const struct ibpost_wire_msg *m, bool *inv,
		      struct ibpost_status *st)
{
	u64 cmd = be64_to_cpu(m->cmd);
	struct ibpost_msgq_tx *tx;

	*inv = false;
	if (!(m->flags & IBPOST_WIRE_MSG_ANSWER)) {
		/* A target commands nothing. */
		ibpost_status_set(st, IBPOST_R_PEER_PROTO, m->flags,
				  IBPOST_WIRE_MSG_ANSWER);
		return NULL;
	}
	tx = ibpost_msgq_cmd_tx(q, cmd);
	if (!tx) {
		/* An answer to a command never sent, or answered already. */
		ibpost_status_set(st, IBPOST_R_PEER_PROTO, cmd, 0);
		return NULL;
	}
	if (ibpost_credits_returned(&q->cr, be16_to_cpu(m->credits), st))
		return NULL;
	if (wc->wc_flags & IB_WC_WITH_INVALIDATE) {
		if (!tx->key ||
		    !ibpost_cmdkey_remote_inv(tx->key, wc->ex.invalidate_rkey)) {
			/* Someone else's key, or one already dead. */
			ibpost_status_set(st, IBPOST_R_PEER_PROTO,
					  wc->ex.invalidate_rkey,
					  tx->key ? tx->key->key : 0);
			return NULL;
		}
		tx->in.invalidated = true;
		/* Its LOCAL_INV's slot is not needed. */
		tx->sq--;
		ibpost_ep_credit_give(q->ep, 1);
	} else if (tx->key && tx->key->state == IBPOST_CMDKEY_LIVE) {
		*inv = true;
		tx->refs++;
	}
	q->waiting--;
	tx->answered = true;
	return tx;
}

static void ibpost_msgq_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ibpost_msgq_rx *r = container_of(wc->wr_cqe,
						struct ibpost_msgq_rx, cqe);
	struct ibpost_msgq *q = r->q;
	const struct ibpost_wire_msg *m;
	struct ibpost_msgq_tx *tx = NULL;
	struct ibpost_status st = {};
	struct ibpost_msgq_in in = {};
	unsigned long flags;
	bool inv = false, keep;
	int ret;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		spin_lock_irqsave(&q->lock, flags);
		q->posted--;
		q->rxfree[q->nfree++] = r->idx;
		spin_unlock_irqrestore(&q->lock, flags);
		ibpost_msgq_wc(q, wc);
		ibpost_ep_wake(q->ep);
		return;
	}
	ibpost_buf_for_cpu(&q->rxbuf, r->idx);
	m = ibpost_buf_va(&q->rxbuf, r->idx);
	spin_lock_irqsave(&q->lock, flags);
	q->posted--;
	if (q->err) {
		/* Failed: nothing more reaches the owner, who closes it. */
		q->rxfree[q->nfree++] = r->idx;
		spin_unlock_irqrestore(&q->lock, flags);
		return;
	}
	ret = ibpost_wire_msg_check(m, wc->byte_len, q->msg_size, &st);
	if (!ret && q->target) {
		ret = ibpost_msgq_cmd_in(q, wc, m, &st);
	} else if (!ret) {
		tx = ibpost_msgq_answer_in(q, wc, m, &inv, &st);
		if (!tx)
			ret = -EPROTO;
	}
	if (ret) {
		q->rxfree[q->nfree++] = r->idx;
		spin_unlock_irqrestore(&q->lock, flags);
		ibpost_msgq_fail(q, ret, &st);
		return;
	}
	q->kept++;
	/* Its replacement first: the credit goes back with the next answer. */
	ret = ibpost_msgq_refill_locked(q, false);
	spin_unlock_irqrestore(&q->lock, flags);
	if (ret)
		ibpost_msgq_fail_reason(q, ret, IBPOST_R_POST, 0, 0);

	in.cmd = be64_to_cpu(m->cmd);
	in.ndesc = m->ndesc;
	in.desc = in.ndesc ? ibpost_wire_msg_desc(m) : NULL;
	in.data = (const u8 *)m + ibpost_wire_msg_data_off(m);
	in.len = wc->byte_len - ibpost_wire_msg_data_off(m);
	in.has_imm = wc->wc_flags & IB_WC_WITH_IMM;
	in.imm = in.has_imm ? be32_to_cpu(wc->ex.imm_data) : 0;
	in.buf = r->idx;
	if (q->target) {
		keep = q->ops->recv(q, &in);
		if (!keep)
			ibpost_msgq_put_rx(q, r->idx, true);
		return;
	}
	in.invalidated = tx->in.invalidated;
	tx->in = in;
	if (inv) {
		struct ib_send_wr *wr = ibpost_cmdkey_inv_wr(tx->key,
							     &tx->inv_cqe);

		tx->inv_cqe.done = ibpost_msgq_inv_done;
		ret = ibpost_ep_post(q->ep, wr, NULL);
		if (ret) {
			/* The QP goes to error: the key with it. */
			ibpost_msgq_fail_reason(q, ret, IBPOST_R_POST, 0, 0);
			ibpost_msgq_cmd_put(q, tx, ret);
		}
	}
	ibpost_msgq_cmd_put(q, tx, 0);
}

/* Bytes a message of @o takes, or 0 when @o is malformed (@st says). */
static u32 ibpost_msgq_out_len(const struct ibpost_msgq *q,
			       const struct ibpost_msgq_out *o,
			       struct ibpost_status *st)
{
	u64 len = sizeof(struct ibpost_wire_msg);
	u32 i;

	if (o->ndesc > IBPOST_WIRE_MSG_MAX_DESC) {
		ibpost_status_set(st, IBPOST_R_COUNT, o->ndesc,
				  IBPOST_WIRE_MSG_MAX_DESC);
		return 0;
	}
	if ((o->has_imm && o->inv_key) || (o->inv_key && !q->target) ||
	    (o->key && q->target)) {
		ibpost_status_set(st, IBPOST_R_OPCODE, 0, 0);
		return 0;
	}
	len += o->ndesc * sizeof(struct ibpost_wire_desc);
	for (i = 0; i < o->nvec; i++)
		len += o->vec[i].iov_len;
	if (len > q->msg_size) {
		ibpost_status_set(st, IBPOST_R_MSG_SIZE, len, q->msg_size);
		return 0;
	}
	return len;
}

/* Write @o into @tx's buffer and build its SEND. */
static void ibpost_msgq_build(struct ibpost_msgq *q, struct ibpost_msgq_tx *tx,
			      const struct ibpost_msgq_out *o, u32 len,
			      u16 credits, u64 cmd)
{
	u8 *p = ibpost_buf_va(&q->txbuf, tx->idx);
	u32 i, off = sizeof(struct ibpost_wire_msg);

	ibpost_wire_msg_build(p, IBPOST_WIRE_MSG, len, credits, o->ndesc,
			      q->target ? IBPOST_WIRE_MSG_ANSWER : 0, cmd);
	if (o->ndesc)
		memcpy(p + off, o->desc, o->ndesc * sizeof(*o->desc));
	off += o->ndesc * sizeof(*o->desc);
	for (i = 0; i < o->nvec; i++) {
		memcpy(p + off, o->vec[i].iov_base, o->vec[i].iov_len);
		off += o->vec[i].iov_len;
	}
	ibpost_buf_for_device(&q->txbuf, tx->idx);
	tx->sge.addr = q->txbuf.dma[tx->idx];
	tx->sge.length = len;
	tx->sge.lkey = q->ep->pd->local_dma_lkey;
	memset(&tx->wr, 0, sizeof(tx->wr));
	tx->wr.wr_cqe = &tx->cqe;
	tx->wr.sg_list = &tx->sge;
	tx->wr.num_sge = 1;
	tx->wr.send_flags = IB_SEND_SIGNALED;
	if (len <= q->ep->granted.max_inline_data)
		tx->wr.send_flags |= IB_SEND_INLINE;
	tx->wr.opcode = IB_WR_SEND;
	if (o->has_imm) {
		tx->wr.opcode = IB_WR_SEND_WITH_IMM;
		tx->wr.ex.imm_data = cpu_to_be32(o->imm);
	} else if (o->inv_key) {
		tx->wr.opcode = IB_WR_SEND_WITH_INV;
		tx->wr.ex.invalidate_rkey = o->inv_key;
	}
}

/*
 * Take what a message needs (under @q->lock): a send slot, its send-queue
 * slots and, for a command, a credit and an answer's receive.  Return
 * the slot, or NULL with -EAGAIN (or the queue's failure) in *@err.
 */
static struct ibpost_msgq_tx *
ibpost_msgq_take_locked(struct ibpost_msgq *q, const struct ibpost_msgq_out *o,
			int *err, struct ibpost_status *st)
{
	u32 idx, sq = o->key ? 3 : 1;

	if (q->err || q->closed) {
		*err = q->err ?: -ESHUTDOWN;
		*st = q->st;
		if (!q->err)
			ibpost_status_set(st, IBPOST_R_PEER_LOST, 0, 0);
		return NULL;
	}
	*err = -EAGAIN;
	if (q->target && !q->unanswered) {
		/* An answer to no command: the owner's bug. */
		*err = -EINVAL;
		ibpost_status_set(st, IBPOST_R_COUNT, 1, 0);
		return NULL;
	}
	if (!q->target && (q->waiting >= q->posted || !q->cr.avail))
		return NULL;
	idx = find_first_zero_bit(q->busy, q->ntx);
	if (idx >= q->ntx || !ibpost_ep_credit_take(q->ep, sq))
		return NULL;
	if (!q->target)
		ibpost_credits_take(&q->cr);
	set_bit(idx, q->busy);
	q->tx[idx].sq = sq;
	return &q->tx[idx];
}

/**
 * ibpost_msgq_send() - send a command (initiator) or an answer (target).
 * @q: the queue.
 * @o: the message.
 * @st: the refusal's reason.
 *
 * An initiator's command goes only with a credit and an answer's receive
 * posted; its key's registration, if any, goes first in the same chain.
 * &ibpost_msgq_ops.done tells when it ended.  A target's answer carries
 * the credits its receives returned; &ibpost_msgq_ops.sent tells when its
 * SEND completed.
 *
 * Context: any (process context for an endpoint that posts with bottom
 * halves off, &ibpost_ep.bh_post).
 * Return: 0; -EAGAIN when the window (credits, receives, send slots) is
 * full: try again after a command ends; -EINVAL with IBPOST_R_COUNT (too
 * many descriptors, or an answer with no command left to answer),
 * IBPOST_R_OPCODE (immediate data with an invalidation, or a key or an
 * invalidation on the wrong side) or IBPOST_R_MSG_SIZE (value: the bytes,
 * limit: the message size); the queue's failure (&ibpost_msgq.err) once
 * it failed, -ESHUTDOWN once it is closed; the provider's errno with
 * IBPOST_R_POST when the post was refused: nothing was sent, the queue
 * failed, and a key given is dead (put it).  Only a message sent (0)
 * hears of its end.
 */
int ibpost_msgq_send(struct ibpost_msgq *q, const struct ibpost_msgq_out *o,
		     struct ibpost_status *st)
{
	struct ib_send_wr *first;
	struct ibpost_msgq_tx *tx;
	unsigned long flags;
	u32 len, taken = 0;
	u16 credits = 0;
	u64 cmd;
	int ret;

	len = ibpost_msgq_out_len(q, o, st);
	if (!len)
		return -EINVAL;
	spin_lock_irqsave(&q->lock, flags);
	tx = ibpost_msgq_take_locked(q, o, &ret, st);
	if (!tx) {
		spin_unlock_irqrestore(&q->lock, flags);
		return ret;
	}
	tx->cookie = o->cookie;
	tx->status = 0;
	tx->answered = false;
	tx->key = o->key;
	memset(&tx->in, 0, sizeof(tx->in));
	if (q->target) {
		q->unanswered--;
		credits = ibpost_credits_to_return(&q->cr);
		cmd = o->cmd;
	} else {
		q->waiting++;
		tx->gen++;
		tx->refs = 2;	/* its SEND's completion and its answer */
		cmd = (u64)tx->gen << 32 | tx->idx;
	}
	spin_unlock_irqrestore(&q->lock, flags);

	ibpost_msgq_build(q, tx, o, len, credits, cmd);
	first = &tx->wr;
	if (o->key) {
		o->key->posted = true;
		o->key->reg.wr.wr_cqe = &tx->reg_cqe;
		o->key->reg.wr.next = &tx->wr;
		first = &o->key->reg.wr;
	}
	ret = ibpost_ep_post(q->ep, first, &taken);
	if (!ret)
		return 0;
	/*
	 * Refused: the queue fails, as every refused post fails what it
	 * belongs to.  Nothing reached the far side; a registration that went
	 * is unusable once the owner moves the QP to error, and its MR is
	 * deregistered with the pool.  The message was not sent: no
	 * callback will tell of it.
	 */
	ibpost_status_set(st, IBPOST_R_POST, taken, 0);
	ibpost_msgq_fail(q, ret, st);
	if (o->key)
		ibpost_cmdkey_dead(o->key);
	ibpost_msgq_tx_free(q, tx);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_msgq_send);

/**
 * ibpost_msgq_send_wrs() - send-queue WRs a queue of @attr may have
 *	posted at once.
 * @attr: its shape.
 *
 * Return: its send slots' SENDs and, on an initiator, their keys'
 * registrations and invalidations; the owner adds its own (a target's
 * RDMA READs and WRITEs).
 */
u32 ibpost_msgq_send_wrs(const struct ibpost_msgq_attr *attr)
{
	return 2 * attr->window * (attr->target ? 1 : 3);
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_msgq_send_wrs);

static void ibpost_msgq_free(struct ibpost_msgq *q)
{
	ibpost_buf_free(&q->rxbuf);
	ibpost_buf_free(&q->txbuf);
	bitmap_free(q->busy);
	kfree(q->rxfree);
	kfree(q->rx);
	kfree(q->tx);
	q->busy = NULL;
	q->rxfree = NULL;
	q->rx = NULL;
	q->tx = NULL;
}

/**
 * ibpost_msgq_open() - set up an endpoint's messages and post its
 *	receives.
 * @q: the queue to fill.
 * @ep: the endpoint: its QP created with ibpost_msgq_send_wrs() send WRs
 *	and @attr->window receives (or more) of one SGE, not yet connected
 *	or connected with nothing sent to it yet.
 * @attr: the queue's shape.
 * @st: the refusal's reason.
 *
 * Whatever it returns, ibpost_msgq_close() after the endpoint's drain
 * frees what the queue holds (receives posted before one was refused).
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL with IBPOST_R_MSG_SIZE or IBPOST_R_DEPTH (value: the
 * size or the window, limit: the bound) or for missing ops; -ENOMEM with
 * IBPOST_R_NOMEM; or the provider's errno with IBPOST_R_POST when a
 * receive was refused.
 */
int ibpost_msgq_open(struct ibpost_msgq *q, struct ibpost_ep *ep,
		     const struct ibpost_msgq_attr *attr,
		     struct ibpost_status *st)
{
	u32 slot = PAGE_ALIGN(attr->msg_size), i, n;
	unsigned long flags;
	int ret;

	memset(q, 0, sizeof(*q));
	if (attr->msg_size < IBPOST_WIRE_MSG_MIN ||
	    attr->msg_size > IBPOST_WIRE_MSG_MAX) {
		ibpost_status_set(st, IBPOST_R_MSG_SIZE, attr->msg_size,
				  attr->msg_size < IBPOST_WIRE_MSG_MIN ?
				  IBPOST_WIRE_MSG_MIN : IBPOST_WIRE_MSG_MAX);
		return -EINVAL;
	}
	if (!attr->window || attr->window > IBPOST_WIRE_MSG_MAX_WINDOW) {
		ibpost_status_set(st, IBPOST_R_DEPTH, attr->window,
				  IBPOST_WIRE_MSG_MAX_WINDOW);
		return -EINVAL;
	}
	if (!attr->ops || (attr->target ? !attr->ops->recv : !attr->ops->done))
		return -EINVAL;
	q->ep = ep;
	q->target = attr->target;
	q->msg_size = attr->msg_size;
	q->window = attr->window;
	q->ops = attr->ops;
	q->arg = attr->arg;
	spin_lock_init(&q->lock);
	ibpost_credits_init(&q->cr, attr->window);
	n = 2 * attr->window;
	q->ntx = n;
	q->rx = kcalloc(n, sizeof(*q->rx), GFP_KERNEL);
	q->rxfree = kcalloc(n, sizeof(*q->rxfree), GFP_KERNEL);
	q->tx = kcalloc(n, sizeof(*q->tx), GFP_KERNEL);
	q->busy = bitmap_zalloc(n, GFP_KERNEL);
	ret = -ENOMEM;
	if (!q->rx || !q->rxfree || !q->tx || !q->busy)
		goto fail;
	ret = ibpost_buf_alloc(&q->rxbuf, ep->ibdev, n, slot);
	if (ret)
		goto fail;
	ret = ibpost_buf_alloc(&q->txbuf, ep->ibdev, n, slot);
	if (ret)
		goto fail;
	for (i = 0; i < n; i++) {
		q->rx[i].q = q;
		q->rx[i].idx = i;
		q->rxfree[n - 1 - i] = i;
		q->tx[i].q = q;
		q->tx[i].idx = i;
		q->tx[i].cqe.done = ibpost_msgq_send_done;
		q->tx[i].inv_cqe.done = ibpost_msgq_inv_done;
		q->tx[i].reg_cqe.done = ibpost_msgq_reg_done;
	}
	q->nfree = n;
	spin_lock_irqsave(&q->lock, flags);
	ret = ibpost_msgq_refill_locked(q, true);
	spin_unlock_irqrestore(&q->lock, flags);
	if (!ret)
		return 0;
	/* Receives posted flush when the owner destroys the QP. */
	ibpost_status_set(st, IBPOST_R_POST, q->posted, attr->window);
	q->closed = true;
	return ret;
fail:
	if (ret == -ENOMEM)
		ibpost_status_set(st, IBPOST_R_NOMEM, 2ULL * n * slot, 0);
	ibpost_msgq_free(q);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_msgq_open);

/**
 * ibpost_msgq_close() - end the queue: every command not ended yet ends
 *	with an error, and its buffers are freed.
 * @q: the queue, its endpoint drained (ibpost_ep_drain(): every WR posted
 *	completed or flushed, their handlers ran) and every buffer its owner
 *	kept given back.
 *
 * Each command still waiting for its answer gets &ibpost_msgq_ops.done
 * with the queue's failure (-ECONNRESET without one) and its key dead:
 * the QP is in error, nothing reaches its pages through it.
 *
 * Context: process context.
 */
void ibpost_msgq_close(struct ibpost_msgq *q)
{
	unsigned long flags;
	u32 i;

	if (!q->rx)
		return;
	spin_lock_irqsave(&q->lock, flags);
	q->closed = true;
	spin_unlock_irqrestore(&q->lock, flags);
	for (i = 0; !q->target && i < q->ntx; i++) {
		struct ibpost_msgq_tx *tx = &q->tx[i];

		if (!test_bit(i, q->busy) || tx->answered)
			continue;
		/* Its SEND's completion ran in the drain: the answer is left. */
		WARN_ON_ONCE(tx->refs != 1);
		tx->status = q->err ?: -ECONNRESET;
		tx->refs = 0;
		ibpost_msgq_cmd_end(q, tx);
	}
	WARN_ON_ONCE(q->kept);
	ibpost_msgq_free(q);
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_msgq_close);
