// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: remote access only through MRs scoped to one job.
 *
 * Every target slot gets its own fast-registration MR (ib_alloc_mr,
 * ib_map_mr_sg, IB_WR_REG_MR posted on the target QP) with only the access
 * the job's opcode needs.  When the job ends the MRs are invalidated with
 * IB_WR_LOCAL_INV (or destroyed with the QP in error) and deregistered.
 * Never IB_PD_UNSAFE_GLOBAL_RKEY.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/random.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "lib/abi.h"
#include "core/live.h"
#include "core/mr.h"
#include "core/trace.h"

#define IBPOST_MR_TIMEOUT	(5 * HZ)

/**
 * ibpost_mr_alloc_pages() - page-list entries to allocate for an MR.
 * @pd: the PD the MR is allocated in.
 * @pages: pages the MR must map.
 *
 * One spare where the device allows it.  rdma_rxe on 6.1 (rxe_mr_copy()) steps to
 * the next map of 256 pages after the last byte it copies, reading one
 * pointer past the map array when a transfer ends exactly at a multiple
 * of 256 pages of the MR (KASAN: slab-out-of-bounds); a spare entry makes
 * that map exist.  Other providers just get a page-list one entry longer.
 *
 * Return: the entries to ask ib_alloc_mr() (or ib_mr_pool_init()) for.
 */
u32 ibpost_mr_alloc_pages(struct ib_pd *pd, u32 pages)
{
	u32 max = pd->device->attrs.max_fast_reg_page_list_len;

	return pages < max ? pages + 1 : pages;
}

/**
 * ibpost_mr_key() - the key byte of an MR's next registration.
 * @mr: the MR.
 *
 * From the kernel's random generator, so that a peer cannot predict it
 * from the keys it was given before, and never the byte the MR has now,
 * so that an rkey handed out for the previous registration of this MR is
 * dead.
 *
 * Return: the byte, for ib_update_fast_reg_key().
 */
u8 ibpost_mr_key(const struct ib_mr *mr)
{
	u8 key;

	do {
		key = get_random_u8();
	} while (key == (u8)mr->rkey);
	return key;
}

/**
 * ibpost_mr_hide_iova() - give a mapped MR a random address
 * @mr: an MR after ib_map_mr_sg(), before its IB_WR_REG_MR is posted
 *
 * After ib_map_mr_sg() the MR's iova is the DMA address of its first byte
 * (on software providers a kernel virtual address).  The iova is what a
 * peer puts in its RDMA WRs, and on iWARP an RDMA READ's sink address
 * travels in the READ request, so it goes on the wire: replace it with a
 * random page-aligned base below 2^(32 + PAGE_SHIFT) plus the first byte's
 * offset in its page, set before IB_WR_REG_MR is posted (providers take
 * the region's address from the MR at that WR: rxe_reg_fast_mr(),
 * siw_fastreg_mr(), mlx5's mkey segment).  The in-page offset stays: rxe
 * computed its page offset from it in map_mr_sg.  Local SGEs on the MR
 * must use this iova too: the caller moves them by the same amount.
 */
void ibpost_mr_hide_iova(struct ib_mr *mr)
{
	u64 off = mr->iova & (mr->page_size - 1);

	mr->iova = ((u64)get_random_u32() << PAGE_SHIFT) + off;
}

struct ibpost_mr_wait {
	struct ib_cqe cqe;
	struct ibpost_ep *ep;
	u32 want;
	u32 done;
	u32 failed;
	enum ib_wc_status status;
	struct ib_reg_wr rwr[IBPOST_MR_CHAIN];
	struct ib_send_wr iwr[IBPOST_MR_CHAIN];
};

static void ibpost_mr_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ibpost_mr_wait *w = container_of(wc->wr_cqe,
						struct ibpost_mr_wait, cqe);

	if (wc->status != IB_WC_SUCCESS &&
	    ibpost_ep_wc_error(w->ep, wc) && !w->failed++)
		w->status = wc->status;
	ibpost_ep_credit_give(w->ep, 1);
	WRITE_ONCE(w->done, w->done + 1);
	ibpost_ep_wake(w->ep);
}

static bool ibpost_mr_all_done(void *arg)
{
	struct ibpost_mr_wait *w = arg;

	return READ_ONCE(w->done) >= w->want;
}

/* Reap until every WR posted of @w completed. */
static int ibpost_mr_wait(struct ibpost_mr_wait *w)
{
	struct ibpost_ep_wait wait = {
		.ep = { w->ep },
		.done = ibpost_mr_all_done,
		.arg = w,
		.deadline = jiffies + IBPOST_MR_TIMEOUT,
	};
	int ret = ibpost_ep_poll_until(&wait);

	return ret ? ret : w->failed ? -EIO : 0;
}

/*
 * Post one signaled WR per MR in [from, to) on @w's endpoint; @w->want
 * counts those the provider took, even when it refused a later one.
 */
static int ibpost_mr_post(struct ibpost_mrs *m, u32 from, u32 to, int access,
			  bool reg, struct ibpost_mr_wait *w)
{
	struct ib_send_wr *first = NULL, *prev = NULL, *wr;
	u32 i, taken = 0;
	int ret;

	if (!ibpost_ep_credit_take(w->ep, to - from))
		return -ENOSPC;
	for (i = from; i < to; i++) {
		if (reg) {
			/* A new key each time: an rkey handed out before is dead. */
			ib_update_fast_reg_key(m->mr[i],
					       ibpost_mr_key(m->mr[i]));
			memset(&w->rwr[i - from], 0, sizeof(w->rwr[0]));
			w->rwr[i - from].mr = m->mr[i];
			w->rwr[i - from].key = m->mr[i]->rkey;
			w->rwr[i - from].access = access;
			wr = &w->rwr[i - from].wr;
			wr->opcode = IB_WR_REG_MR;
		} else {
			wr = &w->iwr[i - from];
			memset(wr, 0, sizeof(*wr));
			wr->opcode = IB_WR_LOCAL_INV;
			wr->ex.invalidate_rkey = m->mr[i]->rkey;
		}
		wr->wr_cqe = &w->cqe;
		wr->send_flags = IB_SEND_SIGNALED;
		if (prev)
			prev->next = wr;
		else
			first = wr;
		prev = wr;
	}
	ret = ibpost_ep_post(w->ep, first, &taken);
	ibpost_ep_credit_give(w->ep, to - from - taken);
	w->want += taken;
	return ret;
}

static int ibpost_mr_run(struct ibpost_mrs *m, struct ibpost_ep *ep,
			 int access, bool reg)
{
	struct ibpost_mr_wait *w;
	u32 from, to;
	int ret = 0;

	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	w->cqe.done = ibpost_mr_done;
	w->ep = ep;
	for (from = 0; from < m->n && !ret; from = to) {
		to = min(m->n, from + IBPOST_MR_CHAIN);
		ret = ibpost_mr_post(m, from, to, access, reg, w);
		if (!ret)
			ret = ibpost_mr_wait(w);
	}
	/*
	 * Completions of WRs already posted still reference @w: reap them,
	 * flushing the QP if the device stopped answering.
	 */
	if (ret && !ibpost_mr_all_done(w) && ibpost_mr_wait(w) == -ETIMEDOUT)
		ibpost_ep_drain(ep);
	kfree(w);
	if (reg)
		trace_ibpost_reg(ep->qp->qp_num, m->n, access, ret);
	else
		trace_ibpost_inval(ep->qp->qp_num, m->n, access, ret);
	return ret;
}

/**
 * ibpost_mrs_register() - register every slot of @b for remote access.
 * @m: MR set to fill (zeroed).
 * @ep: the endpoint REG_MR WRs are posted on (the MRs' PD is its PD).
 * @b: target buffer.
 * @access: IB_ACCESS_* flags the job's opcode needs.
 * @st: failure reason.
 *
 * Context: process context, may sleep; reaps @ep's completions.
 * Return: 0 or a negative errno; on failure ibpost_mrs_free() cleans up.
 */
int ibpost_mrs_register(struct ibpost_mrs *m, struct ibpost_ep *ep,
			const struct ibpost_buf *b, int access,
			struct ibpost_status *st)
{
	struct scatterlist sg;
	u32 i, pages = b->slot_size >> PAGE_SHIFT;
	int ret;

	m->mr = kcalloc(b->nslots, sizeof(*m->mr), GFP_KERNEL);
	if (!m->mr) {
		ibpost_status_set(st, IBPOST_R_NOMEM, b->nslots, 0);
		return -ENOMEM;
	}
	for (i = 0; i < b->nslots; i++) {
		m->mr[i] = ib_alloc_mr(ep->pd, IB_MR_TYPE_MEM_REG,
				      ibpost_mr_alloc_pages(ep->pd, pages));
		if (IS_ERR(m->mr[i])) {
			ret = PTR_ERR(m->mr[i]);
			m->mr[i] = NULL;
			ibpost_status_set(st, IBPOST_R_FRPL, pages, 0);
			return ret;
		}
		m->n = i + 1;
		atomic_long_inc(&ibpost_live.mrs);
		sg_init_table(&sg, 1);
		sg_set_page(&sg, b->pages[i], b->slot_size, 0);
		sg_dma_address(&sg) = b->dma[i];
		sg_dma_len(&sg) = b->slot_size;
		ret = ib_map_mr_sg(m->mr[i], &sg, 1, NULL, PAGE_SIZE);
		if (ret != 1) {
			ibpost_status_set(st, IBPOST_R_FRPL, pages, 0);
			return ret < 0 ? ret : -EINVAL;
		}
		ibpost_mr_hide_iova(m->mr[i]);
	}
	ret = ibpost_mr_run(m, ep, access, true);
	if (ret) {
		ibpost_status_set(st, IBPOST_R_WC_ERROR, -ret, 0);
		return ret;
	}
	m->registered = m->n;
	return 0;
}

/**
 * ibpost_mrs_register_sg() - register one MR over a mapped scatterlist.
 * @m: MR set to fill (zeroed); gets one MR.
 * @ep: the endpoint the REG_MR WR is posted on.
 * @sgl: DMA-mapped scatterlist.
 * @mapped: entries ib_dma_map_sg() returned.
 * @pages: pages the entries touch (ibpost_sg_pages()).
 * @access: IB_ACCESS_* flags.
 *
 * Context: process context, may sleep; waits for @ep's completions, so
 * callers serialize registrations on one endpoint.
 * Return: 0; -EINVAL when the entries do not form one MR (a gap that is
 * not at a page boundary); another negative errno; on failure
 * ibpost_mrs_free() cleans up.
 */
int ibpost_mrs_register_sg(struct ibpost_mrs *m, struct ibpost_ep *ep,
			   struct scatterlist *sgl, int mapped, u32 pages,
			   int access)
{
	int ret;

	m->mr = kcalloc(1, sizeof(*m->mr), GFP_KERNEL);
	if (!m->mr)
		return -ENOMEM;
	m->mr[0] = ib_alloc_mr(ep->pd, IB_MR_TYPE_MEM_REG,
			       ibpost_mr_alloc_pages(ep->pd, pages));
	if (IS_ERR(m->mr[0])) {
		ret = PTR_ERR(m->mr[0]);
		m->mr[0] = NULL;
		return ret;
	}
	m->n = 1;
	atomic_long_inc(&ibpost_live.mrs);
	ret = ib_map_mr_sg(m->mr[0], sgl, mapped, NULL, PAGE_SIZE);
	if (ret != mapped)
		return ret < 0 ? ret : -EINVAL;
	ibpost_mr_hide_iova(m->mr[0]);
	ret = ibpost_mr_run(m, ep, access, true);
	if (ret)
		return ret;
	m->registered = 1;
	return 0;
}

/**
 * ibpost_mrs_invalidate() - LOCAL_INV every registered MR.
 * @m: the MR set.
 * @ep: the endpoint they were registered on, still able to post.
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno (the MRs are then destroyed by
 * ibpost_mrs_free(), which invalidates them as well).
 */
int ibpost_mrs_invalidate(struct ibpost_mrs *m, struct ibpost_ep *ep)
{
	int ret;

	if (!m->registered)
		return 0;
	ret = ibpost_mr_run(m, ep, 0, false);
	m->registered = 0;
	return ret;
}

/**
 * ibpost_mrs_free() - deregister every MR.
 * @m: the MR set (its QP no longer posts to it).
 */
void ibpost_mrs_free(struct ibpost_mrs *m)
{
	u32 i;

	for (i = 0; i < m->n; i++) {
		ib_dereg_mr(m->mr[i]);
		atomic_long_dec(&ibpost_live.mrs);
	}
	kfree(m->mr);
	memset(m, 0, sizeof(*m));
}
