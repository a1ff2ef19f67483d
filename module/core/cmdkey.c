// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: per-command keys.
 *
 * A two-sided session's initiator hands its far side a key for the pages
 * of one command (where a write's data is read from, where a read's data
 * goes), as nvme-rdma, iSER and SRP do: a fast-registration MR from a pool
 * the endpoint's QP owns (ib_mr_pool_*()), mapped over the command's
 * scatterlist, with a new random key byte (ibpost_mr_key()) and a random
 * address (ibpost_mr_hide_iova()), and only the access the direction
 * needs.  Its IB_WR_REG_MR goes unsignaled in the same chain as the
 * command's SEND, before it: the SEND's completion says both are done,
 * and the far side cannot use the key before the SEND arrives.
 *
 * The key dies exactly once: the far side's SEND_WITH_INV of that very
 * key (ibpost_cmdkey_remote_inv(), which the answer's receive checks), or
 * a LOCAL_INV the initiator posts when the answer did not invalidate it,
 * or the QP's flush.  Only then are the pages unmapped and the MR goes
 * back to the pool (ibpost_cmdkey_put()); the next registration of that
 * MR has another key byte, so a stale or replayed key finds nothing.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <rdma/mr_pool.h>
#include <kunit/visibility.h>

#include "lib/abi.h"
#include "core/cmdkey.h"
#include "core/mr.h"

/**
 * ibpost_cmdkeys_init() - fill an endpoint's pool of command keys.
 * @p: the pool to fill.
 * @ep: the endpoint, its QP created (the pool is the QP's: destroy it
 *	before the QP).
 * @n: keys live at once (commands in flight with a key).
 * @max_pages: pages one command's key maps at most.
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL when @n or @max_pages is 0 or above what the device
 * registers, or the provider's errno.
 */
int ibpost_cmdkeys_init(struct ibpost_cmdkeys *p, struct ibpost_ep *ep,
			u32 n, u32 max_pages)
{
	const struct ib_device_attr *a = &ep->ibdev->attrs;
	int ret;

	if (!n || !max_pages || max_pages > a->max_fast_reg_page_list_len ||
	    n > a->max_mr)
		return -EINVAL;
	if (!(a->device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS))
		return -EOPNOTSUPP;
	p->ep = ep;
	p->n = n;
	p->max_pages = max_pages;
	INIT_LIST_HEAD(&p->mrs);
	ret = ib_mr_pool_init(ep->qp, &p->mrs, n, IB_MR_TYPE_MEM_REG,
			      ibpost_mr_alloc_pages(ep->pd, max_pages), 0);
	if (ret)
		p->n = 0;
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_cmdkeys_init);

/**
 * ibpost_cmdkeys_destroy() - free the pool (every key put back).
 * @p: the pool (may be empty).
 *
 * Context: process context, before the endpoint's QP is destroyed.
 */
void ibpost_cmdkeys_destroy(struct ibpost_cmdkeys *p)
{
	if (p->n)
		ib_mr_pool_destroy(p->ep->qp, &p->mrs);
	p->n = 0;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_cmdkeys_destroy);

static int ibpost_cmdkey_access(enum dma_data_direction dir)
{
	/* The far side reads what goes to the device, writes what comes. */
	if (dir == DMA_TO_DEVICE)
		return IB_ACCESS_REMOTE_READ;
	return IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
}

/**
 * ibpost_cmdkey_get() - register a command's pages for the far side.
 * @p: the endpoint's pool.
 * @k: the command's key, IBPOST_CMDKEY_FREE.
 * @sgl: the pages, not mapped.
 * @nents: entries of @sgl.
 * @dir: DMA_TO_DEVICE (the far side reads them) or DMA_FROM_DEVICE (it
 *	writes them).
 * @st: the refusal's reason.
 *
 * Maps @sgl, takes an MR from the pool and maps it with a new key byte
 * and a random address, and builds the registration in @k->reg: the
 * caller chains @k->reg.wr before the command's SEND.  Then @k->key,
 * @k->addr and @k->length are what the far side is given.
 *
 * Context: any (no allocation).
 * Return: 0; -EAGAIN when every key of the pool is taken; -EINVAL for
 * another @dir (a caller's bug, warned about); -ENOMEM when the mapping failed;
 * -EINVAL with IBPOST_R_FRPL (value: the entries the MR took, limit: the
 * entries) when the pages do not fit one MR (a gap, or above
 * @p->max_pages).  Nothing is held on failure.
 */
int ibpost_cmdkey_get(struct ibpost_cmdkeys *p, struct ibpost_cmdkey *k,
		      struct scatterlist *sgl, int nents,
		      enum dma_data_direction dir, struct ibpost_status *st)
{
	struct ib_device *ibdev = p->ep->ibdev;
	int n;

	if (WARN_ON_ONCE(dir != DMA_TO_DEVICE && dir != DMA_FROM_DEVICE))
		return -EINVAL;
	k->mr = ib_mr_pool_get(p->ep->qp, &p->mrs);
	if (!k->mr)
		return -EAGAIN;
	k->mapped = ib_dma_map_sg(ibdev, sgl, nents, dir);
	if (!k->mapped) {
		ib_mr_pool_put(p->ep->qp, &p->mrs, k->mr);
		k->mr = NULL;
		return -ENOMEM;
	}
	k->sgl = sgl;
	k->nents = nents;
	k->dir = dir;
	n = ib_map_mr_sg(k->mr, sgl, k->mapped, NULL, PAGE_SIZE);
	if (n != k->mapped) {
		ibpost_status_set(st, IBPOST_R_FRPL, n < 0 ? 0 : n, k->mapped);
		ib_dma_unmap_sg(ibdev, sgl, nents, dir);
		ib_mr_pool_put(p->ep->qp, &p->mrs, k->mr);
		k->mr = NULL;
		return -EINVAL;
	}
	ib_update_fast_reg_key(k->mr, ibpost_mr_key(k->mr));
	ibpost_mr_hide_iova(k->mr);
	memset(&k->reg, 0, sizeof(k->reg));
	k->reg.wr.opcode = IB_WR_REG_MR;
	k->reg.mr = k->mr;
	k->reg.key = k->mr->rkey;
	k->reg.access = ibpost_cmdkey_access(dir);
	k->key = k->mr->rkey;
	k->addr = k->mr->iova;
	k->length = k->mr->length;
	k->posted = false;
	k->state = IBPOST_CMDKEY_LIVE;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_cmdkey_get);

/**
 * ibpost_cmdkey_remote_inv() - the answer's SEND_WITH_INV invalidated
 *	@rkey: is it this command's key?
 * @k: the command's key.
 * @rkey: the key the receive completion says was invalidated.
 *
 * Return: true, and the key is dead, when @rkey is @k's live key; false
 * (nothing changes) for any other key: a foreign or stale key, which the
 * caller treats as a protocol breach of its far side.
 */
bool ibpost_cmdkey_remote_inv(struct ibpost_cmdkey *k, u32 rkey)
{
	if (k->state != IBPOST_CMDKEY_LIVE || rkey != k->key)
		return false;
	k->state = IBPOST_CMDKEY_DEAD;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_cmdkey_remote_inv);

/**
 * ibpost_cmdkey_inv_wr() - the LOCAL_INV that ends a live key.
 * @k: the command's key, IBPOST_CMDKEY_LIVE.
 * @cqe: its completion; the handler calls ibpost_cmdkey_dead().
 *
 * Return: the WR (signaled) for the caller to post.
 */
struct ib_send_wr *ibpost_cmdkey_inv_wr(struct ibpost_cmdkey *k,
					 struct ib_cqe *cqe)
{
	memset(&k->inv, 0, sizeof(k->inv));
	k->inv.opcode = IB_WR_LOCAL_INV;
	k->inv.ex.invalidate_rkey = k->key;
	k->inv.send_flags = IB_SEND_SIGNALED;
	k->inv.wr_cqe = cqe;
	return &k->inv;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_cmdkey_inv_wr);

/**
 * ibpost_cmdkey_dead() - the key is invalidated (its LOCAL_INV completed)
 *	or its QP flushed: no byte moves through it any more.
 * @k: the command's key.
 */
void ibpost_cmdkey_dead(struct ibpost_cmdkey *k)
{
	if (k->state == IBPOST_CMDKEY_LIVE)
		k->state = IBPOST_CMDKEY_DEAD;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_cmdkey_dead);

/**
 * ibpost_cmdkey_put() - unmap a dead key's pages and give its MR back.
 * @p: the pool.
 * @k: the key, IBPOST_CMDKEY_DEAD, live but never posted (its message
 *	was refused before it went), or FREE (nothing to do).
 *
 * A key posted and still live is a caller's bug: it is warned about and
 * leaked, never given back while the far side may use it.
 *
 * Context: any.
 */
void ibpost_cmdkey_put(struct ibpost_cmdkeys *p, struct ibpost_cmdkey *k)
{
	if (k->state == IBPOST_CMDKEY_FREE ||
	    WARN_ON_ONCE(k->state == IBPOST_CMDKEY_LIVE && k->posted))
		return;
	ib_dma_unmap_sg(p->ep->ibdev, k->sgl, k->nents, k->dir);
	ib_mr_pool_put(p->ep->qp, &p->mrs, k->mr);
	k->mr = NULL;
	k->state = IBPOST_CMDKEY_FREE;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_cmdkey_put);
