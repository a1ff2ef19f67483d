// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: a session's scatterlists registered for remote access.
 *
 * One fast-registration MR per registration, over the caller's pages as
 * ib_dma_map_sg() mapped them, with only the access asked for; its rkey is
 * what the peer gets.  ibpost_unreg() invalidates it (IB_WR_LOCAL_INV)
 * before deregistering, so the rkey is dead before the pages are given
 * back.  Never IB_PD_UNSAFE_GLOBAL_RKEY.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>

#include "session/session.h"

static int ibpost_reg_access(u32 access)
{
	int ib = IB_ACCESS_LOCAL_WRITE;

	if (access & IBPOST_ACCESS_REMOTE_READ)
		ib |= IB_ACCESS_REMOTE_READ;
	if (access & IBPOST_ACCESS_REMOTE_WRITE)
		ib |= IB_ACCESS_REMOTE_WRITE;
	return ib;
}

static bool ibpost_session_live(struct ibpost_session *s)
{
	unsigned long flags;
	bool live;

	spin_lock_irqsave(&s->lock, flags);
	live = s->state == IBPOST_S_LIVE;
	spin_unlock_irqrestore(&s->lock, flags);
	return live;
}

/* Pages a fast-reg MR over the mapped entries needs: those each touches. */
static u32 ibpost_sg_pages(struct scatterlist *sgl, int mapped)
{
	struct scatterlist *sg;
	u64 first, last, pages = 0;
	int i;

	for_each_sg(sgl, sg, mapped, i) {
		if (!sg_dma_len(sg))
			continue;
		first = sg_dma_address(sg) >> PAGE_SHIFT;
		last = (sg_dma_address(sg) + sg_dma_len(sg) - 1) >> PAGE_SHIFT;
		pages += last - first + 1;
	}
	return pages > U32_MAX ? U32_MAX : (u32)pages;
}

/* Deregister and unmap one registration (its QP no longer uses it). */
static void ibpost_mreg_release(struct ibpost_mreg *m)
{
	if (!m->mapped)
		return;
	ibpost_mrs_free(&m->mrs);
	ib_dma_unmap_sg(m->s->ep->ibdev, m->sgl, m->nents,
			DMA_BIDIRECTIONAL);
	m->mapped = 0;
}

/**
 * ibpost_regs_release() - free every registration's MR and mapping.
 * @s: a session whose QPs were drained (called with @s->reg_lock held).
 */
void ibpost_regs_release(struct ibpost_session *s)
{
	struct ibpost_mreg *m;

	list_for_each_entry(m, &s->regs, node)
		ibpost_mreg_release(m);
}

/**
 * ibpost_reg() - register a scatterlist for remote access.
 * @s: the session.
 * @sgl: the memory; pages of it may be in any order, entries must meet at
 *	page boundaries (one MR maps them).
 * @nents: entries of @sgl.
 * @access: IBPOST_ACCESS_REMOTE_READ and/or IBPOST_ACCESS_REMOTE_WRITE.
 * @desc: out: address, rkey and length for the peer.
 *
 * Context: process context, may sleep.
 * Return: the registration (give it back with ibpost_unreg()), or
 * ERR_PTR(): -EINVAL (no access, no entries, more pages than one fast-reg
 * MR maps, or entries that do not form one MR), -ENOTCONN (session not
 * live), -ENOMEM, -EIO/-ETIMEDOUT (the registration WR failed).
 */
struct ibpost_mreg *ibpost_reg(struct ibpost_session *s,
			       struct scatterlist *sgl, unsigned int nents,
			       u32 access, struct ibpost_rdesc *desc)
{
	struct ibpost_mreg *m;
	u32 pages;
	int ret;

	if (!sgl || !nents || !access ||
	    (access & ~(IBPOST_ACCESS_REMOTE_READ | IBPOST_ACCESS_REMOTE_WRITE)))
		return ERR_PTR(-EINVAL);
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return ERR_PTR(-ENOMEM);
	m->s = s;
	m->sgl = sgl;
	m->nents = nents;
	mutex_lock(&s->reg_lock);
	ret = -ENOTCONN;
	if (!ibpost_session_live(s))
		goto err_unlock;
	ret = -ENOMEM;
	m->mapped = ib_dma_map_sg(s->ep->ibdev, sgl, nents,
				  DMA_BIDIRECTIONAL);
	if (!m->mapped)
		goto err_unlock;
	pages = ibpost_sg_pages(sgl, m->mapped);
	ret = -EINVAL;
	if (pages > s->dev->info.attrs.max_fast_reg_page_list_len)
		goto err_unmap;
	ret = ibpost_mrs_register_sg(&m->mrs, s->ep, sgl, m->mapped, pages,
				     ibpost_reg_access(access));
	if (ret)
		goto err_mr;
	desc->addr = m->mrs.mr[0]->iova;
	desc->rkey = m->mrs.mr[0]->rkey;
	desc->length = (u32)min_t(u64, m->mrs.mr[0]->length, U32_MAX);
	list_add_tail(&m->node, &s->regs);
	mutex_unlock(&s->reg_lock);
	return m;

err_mr:
	ibpost_mrs_free(&m->mrs);
err_unmap:
	ib_dma_unmap_sg(s->ep->ibdev, sgl, nents, DMA_BIDIRECTIONAL);
err_unlock:
	mutex_unlock(&s->reg_lock);
	kfree(m);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(ibpost_reg);

/**
 * ibpost_unreg() - invalidate and free a registration.
 * @m: from ibpost_reg(); invalid afterwards.
 *
 * The rkey is invalidated (LOCAL_INV) before the MR is deregistered and
 * the pages unmapped; requests still using it should have completed.
 * After the session's device went away only the bookkeeping is left.
 *
 * Context: process context, may sleep; not after ibpost_session_close().
 */
void ibpost_unreg(struct ibpost_mreg *m)
{
	struct ibpost_session *s = m->s;

	mutex_lock(&s->reg_lock);
	if (m->mapped && ibpost_session_live(s))
		ibpost_mrs_invalidate(&m->mrs, s->ep);
	ibpost_mreg_release(m);
	list_del(&m->node);
	mutex_unlock(&s->reg_lock);
	kfree(m);
}
EXPORT_SYMBOL_GPL(ibpost_unreg);
