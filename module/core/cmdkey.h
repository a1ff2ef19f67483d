/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: per-command keys: a command's pages registered for the far
 * side's RDMA READ or WRITE, for that command alone (cmdkey.c).
 */
#ifndef _IBPOST_CMDKEY_H
#define _IBPOST_CMDKEY_H

#include <linux/dma-direction.h>
#include <linux/list.h>
#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>
#include <uapi/ibpost.h>

#include "core/ep.h"

/**
 * struct ibpost_cmdkeys - the MR pool of one endpoint's command keys.
 * @ep: the endpoint (its QP and PD).
 * @mrs: the pool's free MRs (ib_mr_pool_*(), under the QP's lock).
 * @n: MRs in the pool: command keys live at once.
 * @max_pages: pages one key maps at most.
 */
struct ibpost_cmdkeys {
	struct ibpost_ep *ep;
	struct list_head mrs;
	u32 n;
	u32 max_pages;
};

/**
 * enum ibpost_cmdkey_state - where a command key is in its one life.
 * @IBPOST_CMDKEY_FREE: no MR, no mapping.
 * @IBPOST_CMDKEY_LIVE: mapped, its registration built; once that is
 *	posted (&ibpost_cmdkey.posted) the far side may use it until it is
 *	invalidated.
 * @IBPOST_CMDKEY_DEAD: invalidated (by the far side's SEND_WITH_INV or a
 *	local LOCAL_INV that completed), or its QP flushed: ready for
 *	ibpost_cmdkey_put().
 */
enum ibpost_cmdkey_state {
	IBPOST_CMDKEY_FREE,
	IBPOST_CMDKEY_LIVE,
	IBPOST_CMDKEY_DEAD,
};

/**
 * struct ibpost_cmdkey - one command's registration.
 * @mr: its MR, from the pool.
 * @sgl: the command's pages, DMA-mapped while the key lives.
 * @nents: entries of @sgl.
 * @mapped: entries ib_dma_map_sg() returned.
 * @dir: the direction they are mapped for.
 * @reg: the IB_WR_REG_MR, posted (unsignaled) before the command's SEND.
 * @inv: the IB_WR_LOCAL_INV of ibpost_cmdkey_invalidate().
 * @state: enum ibpost_cmdkey_state.
 * @posted: its registration was handed to the provider (a message queue
 *	sets it): from then on only an invalidation or the QP's flush ends
 *	it.  A live key never posted (its message was refused) may be put.
 * @key: the rkey the far side got.
 * @addr: the address the far side got (a random iova).
 * @length: bytes registered.
 */
struct ibpost_cmdkey {
	struct ib_mr *mr;
	struct scatterlist *sgl;
	int nents;
	int mapped;
	enum dma_data_direction dir;
	struct ib_reg_wr reg;
	struct ib_send_wr inv;
	enum ibpost_cmdkey_state state;
	bool posted;
	u32 key;
	u64 addr;
	u32 length;
};

int ibpost_cmdkeys_init(struct ibpost_cmdkeys *p, struct ibpost_ep *ep,
			u32 n, u32 max_pages);
void ibpost_cmdkeys_destroy(struct ibpost_cmdkeys *p);
int ibpost_cmdkey_get(struct ibpost_cmdkeys *p, struct ibpost_cmdkey *k,
		      struct scatterlist *sgl, int nents,
		      enum dma_data_direction dir, struct ibpost_status *st);
bool ibpost_cmdkey_remote_inv(struct ibpost_cmdkey *k, u32 rkey);
struct ib_send_wr *ibpost_cmdkey_inv_wr(struct ibpost_cmdkey *k,
					 struct ib_cqe *cqe);
void ibpost_cmdkey_dead(struct ibpost_cmdkey *k);
void ibpost_cmdkey_put(struct ibpost_cmdkeys *p, struct ibpost_cmdkey *k);

#endif /* _IBPOST_CMDKEY_H */
