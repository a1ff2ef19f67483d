/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: the messages of one endpoint of a two-sided session: its receive
 * ring, its send slots, its credits and, on the initiator, its commands
 * (msgq.c).  The wire format and the credit rules are lib/msg.h's.
 */
#ifndef _IBPOST_MSGQ_H
#define _IBPOST_MSGQ_H

#include <linux/spinlock.h>
#include <linux/uio.h>
#include <rdma/ib_verbs.h>
#include <uapi/ibpost.h>

#include "core/buf.h"
#include "core/cmdkey.h"
#include "core/ep.h"
#include "lib/msg.h"

struct ibpost_msgq;

/**
 * struct ibpost_msgq_in - a message that arrived, as its handler sees it.
 * @cmd: the command's number (an answer: the command it answers).
 * @desc: its descriptors (checked: not empty, not wrapping), @ndesc.
 * @ndesc: their number.
 * @data: the sender's bytes after the descriptors, in ibpost's receive
 *	buffer: valid until the buffer is given back.
 * @len: their number.
 * @has_imm: the message carried an immediate (@imm).
 * @imm: the immediate, in host order.
 * @invalidated: an answer's: the target invalidated the command's key
 *	with it (checked: that very key, once).
 * @buf: the receive buffer, for ibpost_msgq_give_back() when the handler
 *	kept it.
 */
struct ibpost_msgq_in {
	u64 cmd;
	const struct ibpost_wire_desc *desc;
	u32 ndesc;
	const void *data;
	u32 len;
	bool has_imm;
	u32 imm;
	bool invalidated;
	u32 buf;
};

/**
 * struct ibpost_msgq_out - a message to send.
 * @cmd: a target's answer: the number of the command it answers; an
 *	initiator's command: ignored (the queue numbers its commands).
 * @desc: descriptors to carry (big-endian, as on the wire), @ndesc.
 * @ndesc: their number, at most IBPOST_WIRE_MSG_MAX_DESC.
 * @vec: the bytes after them, @nvec pieces.
 * @nvec: their number.
 * @has_imm: send with the immediate @imm (SEND_WITH_IMM).
 * @imm: the immediate, in host order.
 * @inv_key: a target's answer: the command's key to invalidate at the
 *	initiator (SEND_WITH_INV), 0 for none.  Never with @has_imm.
 * @key: an initiator's command: the key registered for it
 *	(ibpost_cmdkey_get()), or NULL; its registration goes in the same
 *	chain, before the SEND, and it is dead when the command completes.
 *	A command refused with -EAGAIN leaves it as it was: send it again,
 *	or put it.
 * @cookie: the sender's: given back to its &ibpost_msgq_ops.done (a
 *	command) or &ibpost_msgq_ops.sent (an answer).
 */
struct ibpost_msgq_out {
	u64 cmd;
	const struct ibpost_wire_desc *desc;
	u32 ndesc;
	const struct kvec *vec;
	u32 nvec;
	bool has_imm;
	u32 imm;
	u32 inv_key;
	struct ibpost_cmdkey *key;
	void *cookie;
};

/**
 * struct ibpost_msgq_ops - what the queue tells its owner.  Each runs in
 *	the endpoint's completion handler (softirq, a workqueue or the
 *	owner's polling thread): no sleeping.
 * @recv: a target's: a command arrived.  Return true to keep its buffer
 *	(the bytes stay valid) and give it back later with
 *	ibpost_msgq_give_back(); false gives it back at once.  A buffer
 *	given back before its command is answered returns its credit with
 *	that answer.
 * @done: an initiator's: a command ended, exactly once each: @status 0
 *	with its answer @in (keep the buffer as for @recv), or a negative
 *	errno with @in NULL (the queue failed or closed before the answer).
 *	Its key, if it had one, is dead either way: put it.
 * @sent: a target's: an answer's SEND completed (@status 0) or failed.
 * @failed: the queue failed, once: a bad message from the far side, a
 *	credit overrun, an error completion or a failed post
 *	(&ibpost_msgq.err, &ibpost_msgq.st say which).  The owner moves the
 *	endpoint to error and closes it from process context.
 */
struct ibpost_msgq_ops {
	bool (*recv)(struct ibpost_msgq *q, const struct ibpost_msgq_in *in);
	bool (*done)(struct ibpost_msgq *q, void *cookie, int status,
		     const struct ibpost_msgq_in *in);
	void (*sent)(struct ibpost_msgq *q, void *cookie, int status);
	void (*failed)(struct ibpost_msgq *q);
};

/**
 * struct ibpost_msgq_attr - a message queue's shape.
 * @target: the target side (receives commands, sends answers); else the
 *	initiator.
 * @msg_size: bytes of the largest message, header included
 *	(IBPOST_WIRE_MSG_MIN to IBPOST_WIRE_MSG_MAX); both sides use the same.
 * @window: commands in flight: the target's receives, the initiator's
 *	credits and answer receives (1 to IBPOST_WIRE_MSG_MAX_WINDOW); both
 *	sides use the same.
 * @ops: the owner's callbacks.
 * @arg: the owner's, in &ibpost_msgq.arg.
 */
struct ibpost_msgq_attr {
	bool target;
	u32 msg_size;
	u32 window;
	const struct ibpost_msgq_ops *ops;
	void *arg;
};

/**
 * struct ibpost_msgq_rx - one receive buffer of the ring.
 * @cqe: its completion.
 * @q: its queue.
 * @idx: its slot in &ibpost_msgq.rxbuf.
 */
struct ibpost_msgq_rx {
	struct ib_cqe cqe;
	struct ibpost_msgq *q;
	u32 idx;
};

/**
 * struct ibpost_msgq_tx - one send slot: an answer until its SEND
 *	completes, an initiator's command until it ends.
 * @cqe: its SEND's completion.
 * @inv_cqe: its key's LOCAL_INV completion (a command's).
 * @reg_cqe: its key's registration's (unsignaled: a failure's only).
 * @q: its queue.
 * @idx: its slot in &ibpost_msgq.txbuf.
 * @gen: a command's generation: the high half of the number it carries,
 *	so that an answer to an earlier command in this slot is refused.
 * @refs: what a command waits for: its SEND's completion, its answer and
 *	its key's LOCAL_INV.
 * @sq: send-queue slots it holds (ibpost_ep_credit_take()).
 * @answered: the answer arrived (@in).
 * @status: the command's end (0, or the first error).
 * @key: the command's key, or NULL.
 * @cookie: the sender's.
 * @in: the answer.
 * @sge: its SEND's one SGE.
 * @wr: its SEND.
 */
struct ibpost_msgq_tx {
	struct ib_cqe cqe;
	struct ib_cqe inv_cqe;
	struct ib_cqe reg_cqe;
	struct ibpost_msgq *q;
	u32 idx;
	u32 gen;
	u8 refs;
	u8 sq;
	bool answered;
	int status;
	struct ibpost_cmdkey *key;
	void *cookie;
	struct ibpost_msgq_in in;
	struct ib_sge sge;
	struct ib_send_wr wr;
};

/**
 * struct ibpost_msgq - the messages of one endpoint.
 * @ep: the endpoint.
 * @target: see &ibpost_msgq_attr.target.
 * @msg_size: see &ibpost_msgq_attr.msg_size.
 * @window: see &ibpost_msgq_attr.window.
 * @ops: see &ibpost_msgq_attr.ops.
 * @arg: the owner's.
 * @lock: guards everything below but the buffers' bytes.
 * @cr: the credits (lib/msg.c).
 * @posted: receives posted (at most @window).
 * @waiting: an initiator's commands whose answer has not come: at most
 *	@posted, so that every answer finds a receive.
 * @unanswered: a target's commands not answered yet.
 * @kept: receive buffers the owner holds.
 * @rxbuf: the receive ring's buffers, twice the window: a buffer that
 *	arrives is replaced at once by a free one, so that the credit it
 *	used goes back with the next answer even while the owner holds it
 *	(registered once: the PD's local DMA key).
 * @rx: their receives.
 * @rxfree: the free buffers' slots, @nfree of them.
 * @nfree: their number.
 * @txbuf: the send slots' buffers.
 * @tx: the send slots.
 * @ntx: their number, twice the window: a slot stays taken until its
 *	SEND (and a command's key) completed, after its credit came back.
 * @busy: send slots taken.
 * @err: the first failure (0: none).
 * @st: its reason.
 * @closed: ibpost_msgq_close() ran: nothing is posted any more.
 */
struct ibpost_msgq {
	struct ibpost_ep *ep;
	bool target;
	u32 msg_size;
	u32 window;
	const struct ibpost_msgq_ops *ops;
	void *arg;
	spinlock_t lock;
	struct ibpost_credits cr;
	u32 posted;
	u32 waiting;
	u32 unanswered;
	u32 kept;
	struct ibpost_buf rxbuf;
	struct ibpost_msgq_rx *rx;
	u32 *rxfree;
	u32 nfree;
	struct ibpost_buf txbuf;
	struct ibpost_msgq_tx *tx;
	u32 ntx;
	unsigned long *busy;
	int err;
	struct ibpost_status st;
	bool closed;
};

int ibpost_msgq_open(struct ibpost_msgq *q, struct ibpost_ep *ep,
		     const struct ibpost_msgq_attr *attr,
		     struct ibpost_status *st);
int ibpost_msgq_send(struct ibpost_msgq *q, const struct ibpost_msgq_out *o,
		     struct ibpost_status *st);
void ibpost_msgq_give_back(struct ibpost_msgq *q, u32 buf);
void ibpost_msgq_close(struct ibpost_msgq *q);
u32 ibpost_msgq_send_wrs(const struct ibpost_msgq_attr *attr);

#endif /* _IBPOST_MSGQ_H */
