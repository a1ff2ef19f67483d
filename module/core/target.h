/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: the target of a transfer: slots for a job, their MRs, the
 * receives that land in them and what was found there.  One implementation
 * for the loopback job, the server's connection and the pong.
 */
#ifndef _IBPOST_TARGET_H
#define _IBPOST_TARGET_H

#include <linux/llist.h>
#include <rdma/ib_verbs.h>
#include <uapi/ibpost.h>

#include "core/buf.h"
#include "core/ep.h"
#include "core/mr.h"
#include "lib/sgl.h"

/*
 * Most memory one job pins for its slots (its initiator's and its
 * target's), a served job likewise: what alloc_pages() really takes.
 */
#define IBPOST_JOB_MEM_MAX	(256ULL << 20)

struct ibpost_target;

/*
 * Bytes of a message a deferring target's handler still checks itself
 * (&ibpost_target_desc.deferred): ib_cq_poll_work() handles up to 65536
 * completions before it yields, 256 MiB of checks at this size.
 */
#define IBPOST_TARGET_INLINE_CHECK	4096

/**
 * struct ibpost_target_desc - what the sender puts into a target's slots.
 * @op: IBPOST_OP_* of the sender's WRs.
 * @msg_size: bytes per message.
 * @imm_data: immediate data the _IMM opcodes carry.
 * @send: the sender's own SGEs: they name every byte (the pattern).
 * @num_sge: their number.
 * @land: where a message lies in a slot: the receive SGEs (SEND opcodes),
 *	the sender's SGEs (the initiator's slots); NULL: the whole message
 *	from offset 0 (WRITE, WRITE_IMM, a READ's source).
 * @land_n: SGEs of @land.
 * @initiator: the initiator's own slots: a READ's sink or a pong's
 *	landing, written (never read) by the far side.
 * @remote_read: the far side also reads the slots (a session's region).
 * @verify: every message that arrives is checked.
 * @deferred: with @verify: not by the receive handler, which only queues
 *	the message (@pending); the owner's thread checks it and posts its
 *	receive again (ibpost_target_pending()).  A served connection's
 *	messages above IBPOST_TARGET_INLINE_CHECK: the CQ's handler runs in
 *	a workqueue shared with every CQ of its vector, and a message's
 *	check reads up to 4 MiB.
 */
struct ibpost_target_desc {
	u32 op;
	u32 msg_size;
	u32 imm_data;
	const struct ibpost_sge_desc *send;
	u32 num_sge;
	const struct ibpost_sge_desc *land;
	u32 land_n;
	bool initiator;
	bool remote_read;
	bool verify;
	bool deferred;
};

/**
 * struct ibpost_target_recv - one receive WR of a target.
 * @cqe: completion entry (ibpost_target_recv_done()).
 * @t: the target.
 * @slot: the slot its SGEs scatter into.
 * @wr: the receive WR, reposted after each completion.
 * @node: entry in &ibpost_target.pending (a deferred target's message
 *	waiting for its check).
 * @msg: that message's number.
 * @byte_len: its completion's byte count.
 * @wc_flags: its completion's flags.
 * @imm: its immediate data.
 */
struct ibpost_target_recv {
	struct ib_cqe cqe;
	struct ibpost_target *t;
	u32 slot;
	struct ib_recv_wr wr;
	struct llist_node node;
	u64 msg;
	u32 byte_len;
	int wc_flags;
	__be32 imm;
};

/**
 * struct ibpost_slots - slots one side of a job pins (sizing).
 * @nslots: number of slots (0: none).
 * @slot_size: bytes of each, page-aligned.
 * @mapped: each slot is registered: one fast-reg MR maps it.
 */
struct ibpost_slots {
	u32 nslots;
	u32 slot_size;
	bool mapped;
};

/**
 * struct ibpost_target - the slots of a job's target and what arrived.
 * @d: what the sender puts there.
 * @whole: the whole message from offset 0 (@d.land when none is given).
 * @corrupt_wr: test hook: the message of this WR is corrupted before it
 *	is checked (U64_MAX: none).
 * @failed: told of an error completion, a mismatch or a failed repost of
 *	a receive (never per WR); NULL: the owner reads the fields below.
 * @ep: the endpoint the MRs are registered and the receives posted on.
 * @buf: the slots.
 * @mrs: one MR per slot (remote access), empty when not registered.
 * @recvs: receive WRs (opcodes that consume them), @nrecvs of them.
 * @sges: their SGEs.
 * @nrecvs: receive WRs.
 * @msgs: messages received (receive completions, the fin aside).
 * @bytes: their bytes.
 * @mm: first mismatch found (count: every one).
 * @mm_wr: WR of the first mismatch.
 * @wc_status: first error completion of a receive (IB_WC_GENERAL_ERR: a
 *	receive could not be posted again); IB_WC_SUCCESS: none.
 * @post_err: the error of a failed repost.
 * @fin: a zero-byte SEND_WITH_IMM arrived: the sender's fin.
 * @fin_imm: its immediate data.
 * @pending: a deferred target's messages waiting for their check
 *	(ibpost_target_pending()); their receives are posted again after it.
 */
struct ibpost_target {
	struct ibpost_target_desc d;
	struct ibpost_sge_desc whole;
	u64 corrupt_wr;
	void (*failed)(struct ibpost_target *t, u32 reason,
		       const struct ib_wc *wc, u64 msg);
	struct ibpost_ep *ep;
	struct ibpost_buf buf;
	struct ibpost_mrs mrs;
	struct ibpost_target_recv *recvs;
	struct ib_sge *sges;
	u32 nrecvs;
	u64 msgs;
	u64 bytes;
	struct ibpost_mismatch mm;
	u64 mm_wr;
	enum ib_wc_status wc_status;
	int post_err;
	bool fin;
	u32 fin_imm;
	struct llist_head pending;
};

void ibpost_target_init(struct ibpost_target *t,
			const struct ibpost_target_desc *d);
u32 ibpost_target_slot_size(const struct ibpost_target *t);
int ibpost_target_sizes(const struct ibpost_slots *s, u32 n, u32 max_frpl,
			struct ibpost_status *st);
u32 ibpost_target_chunk(u32 max_frpl, u64 bytes);
int ibpost_target_alloc(struct ibpost_target *t, struct ib_device *ibdev,
			u32 nslots, u32 slot_size, struct ibpost_status *st);
int ibpost_target_register(struct ibpost_target *t, struct ibpost_ep *ep,
			   struct ibpost_status *st);
void ibpost_target_remote(const struct ibpost_target *t, u32 slot,
			  u64 *addr, u32 *rkey);
int ibpost_target_table(const struct ibpost_target *t, u64 **raddr,
			u32 **rkey);
int ibpost_target_recvs(struct ibpost_target *t, struct ibpost_ep *ep,
			u32 n, struct ibpost_status *st);
bool ibpost_target_has_pending(struct ibpost_target *t);
unsigned int ibpost_target_pending(struct ibpost_target *t);
void ibpost_target_stamp(struct ibpost_target *t, u32 slot, u64 wr);
u32 ibpost_target_check(struct ibpost_target *t, u32 slot, u64 wr,
			u64 pattern);
int ibpost_target_invalidate(struct ibpost_target *t);
void ibpost_target_free(struct ibpost_target *t);

#endif /* _IBPOST_TARGET_H */
