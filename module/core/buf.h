/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: DMA-mapped buffer slots of kernel pages.
 */
#ifndef _IBPOST_BUF_H
#define _IBPOST_BUF_H

#include <linux/mm_types.h>
#include <rdma/ib_verbs.h>

#include "compat/compat.h"

/**
 * struct ibpost_buf - @nslots slots of @slot_size bytes.
 * @ibdev: device the slots are mapped for.
 * @nslots: number of slots.
 * @slot_size: bytes per slot, a multiple of PAGE_SIZE.
 * @order: page order of one slot (each slot is one contiguous allocation,
 *	so an SGE may cross page boundaries inside it).
 * @pages: first page of each slot.
 * @dma: DMA address of each slot.
 */
struct ibpost_buf {
	struct ib_device *ibdev;
	u32 nslots;
	u32 slot_size;
	u32 order;
	struct page **pages;
	u64 *dma;
};

/* Largest slot: one contiguous allocation. */
#define IBPOST_SLOT_MAX		(PAGE_SIZE << MAX_PAGE_ORDER)

int ibpost_buf_alloc(struct ibpost_buf *b, struct ib_device *ibdev,
		     u32 nslots, u32 slot_size);
void ibpost_buf_free(struct ibpost_buf *b);
u64 ibpost_buf_pinned(u32 nslots, u32 slot_size);
void *ibpost_buf_va(const struct ibpost_buf *b, u32 slot);
void ibpost_buf_for_device(const struct ibpost_buf *b, u32 slot);
void ibpost_buf_for_cpu(const struct ibpost_buf *b, u32 slot);

#endif /* _IBPOST_BUF_H */
