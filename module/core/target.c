// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: the target of a transfer, "slots for a job".
 *
 * A loopback job's target endpoint, a connection of `ibpost serve` and the
 * initiator's slots a pong lands in all hold the same things: slots sized
 * by what really gets allocated, MRs with only the access the opcode
 * needs, one receive per slot for the opcodes that consume them, and a
 * record of what arrived.  The receive handler is this file's own: it
 * counts, checks and reposts without calling its owner; only a failure
 * (error completion, mismatch, failed repost) is passed on, through
 * @failed, never a message that arrived as sent.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "core/target.h"

/* The byte the corruption test hook flips. */
#define IBPOST_TARGET_CORRUPT	0x5a

/**
 * ibpost_target_init() - describe what the sender puts into a target.
 * @t: zeroed target.
 * @d: the description (its layouts must outlive @t).
 */
void ibpost_target_init(struct ibpost_target *t,
			const struct ibpost_target_desc *d)
{
	t->d = *d;
	t->whole.offset = 0;
	t->whole.length = d->msg_size;
	if (!t->d.land) {
		t->d.land = &t->whole;
		t->d.land_n = 1;
	}
	t->corrupt_wr = U64_MAX;
}

/**
 * ibpost_target_slot_size() - bytes one slot needs.
 * @t: an initialized target.
 *
 * Return: the span of the landing layout, page-aligned.
 */
u32 ibpost_target_slot_size(const struct ibpost_target *t)
{
	return PAGE_ALIGN(ibpost_layout_span(t->d.land, t->d.land_n));
}

/**
 * ibpost_target_sizes() - check the slots of a job against the limits.
 * @s: the slot sets of the job (its initiator's, its target's).
 * @n: their number.
 * @max_frpl: pages one fast-reg MR maps.
 * @st: the refusal.
 *
 * A registered slot must fit one MR; all slots together must pin at most
 * IBPOST_JOB_MEM_MAX, counted as allocated (ibpost_buf_pinned()).
 *
 * Return: 0; -EINVAL with IBPOST_R_FRPL (pages of the largest registered
 * slot) or IBPOST_R_BUF_SIZE (bytes pinned).
 */
int ibpost_target_sizes(const struct ibpost_slots *s, u32 n, u32 max_frpl,
			struct ibpost_status *st)
{
	u32 pages = 0, i;
	u64 mem = 0;

	for (i = 0; i < n; i++) {
		if (s[i].mapped && s[i].nslots)
			pages = max(pages, s[i].slot_size >> PAGE_SHIFT);
		mem += ibpost_buf_pinned(s[i].nslots, s[i].slot_size);
	}
	if (pages > max_frpl) {
		ibpost_status_set(st, IBPOST_R_FRPL, pages, max_frpl);
		return -EINVAL;
	}
	if (mem > IBPOST_JOB_MEM_MAX) {
		ibpost_status_set(st, IBPOST_R_BUF_SIZE, mem,
				  IBPOST_JOB_MEM_MAX);
		return -EINVAL;
	}
	return 0;
}

/**
 * ibpost_target_chunk() - bytes of each slot (and MR) of a region.
 * @max_frpl: pages one fast-reg MR of the device maps.
 * @bytes: the region's size (0: as large as one MR allows).
 *
 * A region (a session's memory, local or a server's) is slots of one
 * power-of-two size, each one allocation registered in an MR of its own:
 * the slot maps fewer pages than the MR's page list holds (one entry spare,
 * mr.c), at most IBPOST_SLOT_MAX, and no more than the power of two the
 * region needs, so that a small region pins only what it needs.
 *
 * Return: the chunk size, a power-of-two multiple of PAGE_SIZE; 0 when
 * the device has no fast-reg MRs of two pages.
 */
u32 ibpost_target_chunk(u32 max_frpl, u64 bytes)
{
	u64 pages, need;

	if (max_frpl < 2)
		return 0;
	pages = min_t(u64, max_frpl - 1, IBPOST_SLOT_MAX >> PAGE_SHIFT);
	pages = rounddown_pow_of_two(pages);
	need = (bytes >> PAGE_SHIFT) + !PAGE_ALIGNED(bytes);
	if (bytes && need < pages)
		pages = roundup_pow_of_two(need);
	return (u32)(pages << PAGE_SHIFT);
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_target_chunk);

/**
 * ibpost_target_alloc() - allocate and map the slots.
 * @t: an initialized target.
 * @ibdev: the device they are mapped for.
 * @nslots: slots.
 * @slot_size: bytes per slot (sized and checked).
 * @st: the failure (IBPOST_R_NOMEM, value: bytes it would pin).
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno; ibpost_target_free() cleans up.
 */
int ibpost_target_alloc(struct ibpost_target *t, struct ib_device *ibdev,
			u32 nslots, u32 slot_size, struct ibpost_status *st)
{
	int ret;

	ret = ibpost_buf_alloc(&t->buf, ibdev, nslots, slot_size);
	if (ret)
		ibpost_status_set(st, IBPOST_R_NOMEM,
				  ibpost_buf_pinned(nslots, slot_size), 0);
	return ret;
}

/* Only the access the sender's opcode needs. */
static int ibpost_target_access(const struct ibpost_target *t)
{
	int access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;

	if (t->d.op == IBPOST_OP_READ && !t->d.initiator)
		access = IB_ACCESS_REMOTE_READ;
	if (t->d.remote_read)
		access |= IB_ACCESS_REMOTE_READ;
	return access;
}

/**
 * ibpost_target_register() - register every slot for remote access.
 * @t: a target with slots.
 * @ep: the endpoint the REG_MR WRs are posted on (its PD is the MRs').
 * @st: the failure.
 *
 * READ: remote read; WRITE, WRITE_IMM and the initiator's slots: local
 * and remote write; @t->d.remote_read adds remote read.
 *
 * Context: process context, may sleep; reaps @ep's completions.
 * Return: 0 or a negative errno; ibpost_target_free() cleans up.
 */
int ibpost_target_register(struct ibpost_target *t, struct ibpost_ep *ep,
			   struct ibpost_status *st)
{
	t->ep = ep;
	return ibpost_mrs_register(&t->mrs, ep, &t->buf,
				   ibpost_target_access(t), st);
}

/**
 * ibpost_target_remote() - where the far side reaches a slot.
 * @t: the target.
 * @slot: slot index.
 * @addr: out: its remote address (0 when not registered).
 * @rkey: out: its rkey (0 when not registered).
 */
void ibpost_target_remote(const struct ibpost_target *t, u32 slot,
			  u64 *addr, u32 *rkey)
{
	*addr = t->mrs.n ? t->mrs.mr[slot]->iova : 0;
	*rkey = t->mrs.n ? t->mrs.mr[slot]->rkey : 0;
}

/**
 * ibpost_target_table() - the remote slot table of a registered target.
 * @t: the target.
 * @raddr: out: remote address of each slot (kvfree()).
 * @rkey: out: rkey of each slot (kvfree()).
 *
 * Return: 0 or -ENOMEM (both freed and NULL).
 */
int ibpost_target_table(const struct ibpost_target *t, u64 **raddr,
			u32 **rkey)
{
	u32 n = t->buf.nslots, i;

	*raddr = kvcalloc(n, sizeof(**raddr), GFP_KERNEL);
	*rkey = kvcalloc(n, sizeof(**rkey), GFP_KERNEL);
	if (!*raddr || !*rkey) {
		kvfree(*rkey);
		kvfree(*raddr);
		*raddr = NULL;
		*rkey = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		ibpost_target_remote(t, i, &(*raddr)[i], &(*rkey)[i]);
	return 0;
}

/**
 * ibpost_target_stamp() - fill a slot with what WR @wr carries.
 * @t: the target.
 * @slot: slot index.
 * @wr: the WR whose pattern is written, where its message lies.
 *
 * The source of a READ, stamped before the READ; the initiator's slots
 * (their landing layout is the sender's) are stamped the same way.
 */
void ibpost_target_stamp(struct ibpost_target *t, u32 slot, u64 wr)
{
	ibpost_pattern_fill(ibpost_buf_va(&t->buf, slot), t->d.land,
			    t->d.land_n, t->d.send, t->d.num_sge, wr);
	ibpost_buf_for_device(&t->buf, slot);
}

/**
 * ibpost_target_check() - check a slot against the sender's layout.
 * @t: the target.
 * @slot: slot index; the CPU's (ibpost_buf_for_cpu()).
 * @wr: the WR whose message it holds (noted with the first mismatch).
 * @pattern: the WR whose pattern it must hold (@wr, unless the sender
 *	stamped its slots once).
 *
 * Return: mismatching bytes (@t->mm and @t->mm_wr keep the first).
 */
u32 ibpost_target_check(struct ibpost_target *t, u32 slot, u64 wr,
			u64 pattern)
{
	u8 *va = ibpost_buf_va(&t->buf, slot);
	u32 bad;

	if (unlikely(wr == t->corrupt_wr))
		va[t->d.land[0].offset] ^= IBPOST_TARGET_CORRUPT;
	bad = ibpost_pattern_check(va, t->d.land, t->d.land_n, t->d.send,
				   t->d.num_sge, pattern, &t->mm);
	if (bad && t->mm.count == bad)
		t->mm_wr = wr;
	return bad;
}

/*
 * Message @msg arrived as its completion said (@r's @byte_len, @wc_flags,
 * @imm): its length, immediate data, bytes.  @wc: that completion, for
 * the owner's @failed (a deferred check's copy of those fields).
 */
static void ibpost_target_recv_check(struct ibpost_target *t,
				     const struct ibpost_target_recv *r,
				     const struct ib_wc *wc, u64 msg)
{
	u32 slot = r->slot, bad = 0;
	u64 q = msg;

	if (r->byte_len != t->d.msg_size)
		bad++;
	if (ibpost_op_has_imm(t->d.op) &&
	    (!(r->wc_flags & IB_WC_WITH_IMM) ||
	     be32_to_cpu(r->imm) != t->d.imm_data))
		bad++;
	if (bad) {
		if (!t->mm.count)
			t->mm_wr = msg;
		t->mm.count += bad;
	} else {
		/* WR msg of a WRITE_WITH_IMM wrote slot msg % nslots. */
		if (t->d.op == IBPOST_OP_WRITE_IMM)
			slot = do_div(q, t->buf.nslots);
		ibpost_buf_for_cpu(&t->buf, slot);
		bad = ibpost_target_check(t, slot, msg, msg);
	}
	if (bad && t->failed)
		t->failed(t, IBPOST_R_VERIFY, wc, msg);
}

static int ibpost_target_post(struct ibpost_target *t,
			      struct ibpost_target_recv *r)
{
	int ret = ibpost_ep_post_recv(t->ep, &r->wr);

	if (unlikely(ret) && !t->post_err) {
		t->post_err = ret;
		if (t->wc_status == IB_WC_SUCCESS)
			t->wc_status = IB_WC_GENERAL_ERR;
	}
	return ret;
}

/*
 * A receive completed: count it, check it (verifying targets), post it
 * again unless the endpoint drains.  A zero-byte SEND_WITH_IMM is the
 * sender's fin (a message is never empty): noted, not reposted.
 */
static void ibpost_target_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ibpost_target_recv *r = container_of(wc->wr_cqe,
						    struct ibpost_target_recv,
						    cqe);
	struct ibpost_target *t = r->t;
	u64 msg = t->msgs;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		if (!ibpost_ep_wc_error(t->ep, wc))
			return;
		if (t->wc_status == IB_WC_SUCCESS)
			t->wc_status = wc->status;
		if (t->failed)
			t->failed(t, IBPOST_R_WC_ERROR, wc, msg);
		ibpost_ep_wake(t->ep);
		return;
	}
	if (unlikely(!wc->byte_len && wc->opcode == IB_WC_RECV &&
		     (wc->wc_flags & IB_WC_WITH_IMM))) {
		t->fin_imm = be32_to_cpu(wc->ex.imm_data);
		/* what the handler counted is seen with it */
		smp_store_release(&t->fin, true);
		/* an owner asleep (handlers in softirq or a workqueue) */
		ibpost_ep_wake(t->ep);
		return;
	}
	t->msgs++;
	t->bytes += wc->byte_len;
	r->msg = msg;
	r->byte_len = wc->byte_len;
	r->wc_flags = wc->wc_flags;
	r->imm = wc->ex.imm_data;
	if (t->d.verify && t->d.deferred) {
		/* The owner's thread checks it and posts the receive again. */
		llist_add(&r->node, &t->pending);
		ibpost_ep_wake(t->ep);
		return;
	}
	if (t->d.verify)
		ibpost_target_recv_check(t, r, wc, msg);
	if (likely(!READ_ONCE(t->ep->draining)) &&
	    unlikely(ibpost_target_post(t, r)) && t->failed)
		t->failed(t, IBPOST_R_POST, wc, msg);
}

/**
 * ibpost_target_has_pending() - does a deferred target hold messages not
 *	checked yet?
 * @t: the target.
 *
 * Context: any.
 * Return: true when ibpost_target_pending() has work.
 */
bool ibpost_target_has_pending(struct ibpost_target *t)
{
	return !llist_empty(&t->pending);
}

/**
 * ibpost_target_pending() - check the messages a deferred target's
 *	handler queued, in the order they arrived, and post their receives
 *	again.
 * @t: a target with &ibpost_target_desc.deferred.
 *
 * Each message's check (up to 4 MiB read) is followed by cond_resched():
 * a client sending verified messages as fast as it can costs the server
 * this thread's fair share of a CPU, never a workqueue's.
 *
 * Context: process context, the target's one owner thread.
 * Return: the number of messages checked (their receives posted again).
 */
unsigned int ibpost_target_pending(struct ibpost_target *t)
{
	struct llist_node *first = llist_del_all(&t->pending);
	struct ibpost_target_recv *r, *next;
	struct ib_wc wc = {};
	unsigned int n = 0;

	first = llist_reverse_order(first);
	llist_for_each_entry_safe(r, next, first, node) {
		wc.wr_cqe = &r->cqe;
		wc.byte_len = r->byte_len;
		wc.wc_flags = r->wc_flags;
		wc.ex.imm_data = r->imm;
		ibpost_target_recv_check(t, r, &wc, r->msg);
		if (likely(!READ_ONCE(t->ep->draining)) &&
		    unlikely(ibpost_target_post(t, r)) && t->failed)
			t->failed(t, IBPOST_R_POST, &wc, r->msg);
		cond_resched();
		n++;
	}
	return n;
}

/**
 * ibpost_target_recvs() - build and post the receives of a target.
 * @t: a target with slots (opcodes that consume receive WRs).
 * @ep: the endpoint they are posted on.
 * @n: receive WRs, at most the slots; receive i scatters into slot i
 *	(SEND opcodes: the landing SGEs; WRITE_WITH_IMM: no SGE).
 * @st: the failure: IBPOST_R_NOMEM or IBPOST_R_POST.
 *
 * Context: process context.
 * Return: 0 or a negative errno; ibpost_target_free() cleans up after
 * the endpoint is drained.
 */
int ibpost_target_recvs(struct ibpost_target *t, struct ibpost_ep *ep,
			u32 n, struct ibpost_status *st)
{
	u32 ns = t->d.op == IBPOST_OP_WRITE_IMM ? 0 : t->d.land_n, i, k;
	struct ibpost_target_recv *r;
	struct ib_sge *sge;
	int ret;

	t->ep = ep;
	t->recvs = kvcalloc(n, sizeof(*t->recvs), GFP_KERNEL);
	t->sges = kvcalloc((size_t)n * max_t(u32, ns, 1), sizeof(*t->sges),
			   GFP_KERNEL);
	if (!t->recvs || !t->sges) {
		ibpost_status_set(st, IBPOST_R_NOMEM, n, 0);
		return -ENOMEM;
	}
	t->nrecvs = n;
	for (i = 0; i < n; i++) {
		r = &t->recvs[i];
		sge = &t->sges[(size_t)i * ns];
		r->t = t;
		r->slot = i;
		r->cqe.done = ibpost_target_recv_done;
		r->wr.wr_cqe = &r->cqe;
		for (k = 0; k < ns; k++) {
			sge[k].addr = t->buf.dma[i] + t->d.land[k].offset;
			sge[k].length = t->d.land[k].length;
			sge[k].lkey = ep->pd->local_dma_lkey;
		}
		r->wr.sg_list = ns ? sge : NULL;
		r->wr.num_sge = ns;
		ret = ibpost_target_post(t, r);
		if (ret) {
			ibpost_status_set(st, IBPOST_R_POST, 0, 0);
			return ret;
		}
	}
	return 0;
}

/**
 * ibpost_target_invalidate() - LOCAL_INV the MRs: their rkeys die.
 * @t: the target; its endpoint still able to post.
 *
 * Context: process context, may sleep.
 * Return: 0 (also when nothing is registered) or a negative errno.
 */
int ibpost_target_invalidate(struct ibpost_target *t)
{
	return ibpost_mrs_invalidate(&t->mrs, t->ep);
}

/**
 * ibpost_target_free() - free the receives, MRs and slots.
 * @t: the target (may be zeroed or partly built); its endpoint drained.
 */
void ibpost_target_free(struct ibpost_target *t)
{
	kvfree(t->sges);
	kvfree(t->recvs);
	t->sges = NULL;
	t->recvs = NULL;
	t->nrecvs = 0;
	ibpost_mrs_free(&t->mrs);
	ibpost_buf_free(&t->buf);
}
