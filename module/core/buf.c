// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: buffer slots.
 *
 * Each slot is one alloc_pages() allocation of the order its size needs and
 * is mapped with ib_dma_map_page(), whose result is checked even though
 * rdma_rxe never fails it.  Never vmalloc memory: virt_to_page() of it is
 * wrong, and a DMA mapping of it is not contiguous.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/gfp.h>
#include <linux/slab.h>

#include "core/buf.h"
#include "core/live.h"

static void ibpost_buf_release(struct ibpost_buf *b, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		ib_dma_unmap_page(b->ibdev, b->dma[i], b->slot_size,
				  DMA_BIDIRECTIONAL);
		__free_pages(b->pages[i], b->order);
		atomic_long_sub(1L << b->order, &ibpost_live.pages);
	}
	kfree(b->dma);
	kfree(b->pages);
	b->pages = NULL;
	b->dma = NULL;
}

/**
 * ibpost_buf_alloc() - allocate and map zeroed slots.
 * @b: buffer to fill.
 * @ibdev: device to map for.
 * @nslots: slots, at least 1.
 * @slot_size: bytes per slot, a multiple of PAGE_SIZE, at most
 *	IBPOST_SLOT_MAX.
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOMEM, or the mapping error.
 */
int ibpost_buf_alloc(struct ibpost_buf *b, struct ib_device *ibdev,
		     u32 nslots, u32 slot_size)
{
	struct page *page;
	u32 i;
	int ret;

	b->ibdev = ibdev;
	b->nslots = nslots;
	b->slot_size = slot_size;
	b->order = get_order(slot_size);
	b->pages = kcalloc(nslots, sizeof(*b->pages),
			   GFP_KERNEL | __GFP_RETRY_MAYFAIL);
	b->dma = kcalloc(nslots, sizeof(*b->dma),
			 GFP_KERNEL | __GFP_RETRY_MAYFAIL);
	if (!b->pages || !b->dma) {
		ret = -ENOMEM;
		goto err;
	}
	for (i = 0; i < nslots; i++) {
		/*
		 * Fail rather than call the OOM killer: the size comes from
		 * a user or a remote client, and below PAGE_ALLOC_COSTLY_ORDER
		 * a plain GFP_KERNEL allocation would never fail.
		 */
		page = alloc_pages(GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN |
				   __GFP_RETRY_MAYFAIL, b->order);
		if (!page) {
			ret = -ENOMEM;
			goto err;
		}
		b->dma[i] = ib_dma_map_page(ibdev, page, 0, slot_size,
					    DMA_BIDIRECTIONAL);
		if (ib_dma_mapping_error(ibdev, b->dma[i])) {
			__free_pages(page, b->order);
			ret = -EIO;
			goto err;
		}
		b->pages[i] = page;
		atomic_long_add(1L << b->order, &ibpost_live.pages);
	}
	return 0;

err:
	ibpost_buf_release(b, i);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_buf_alloc);

/**
 * ibpost_buf_free() - unmap and free every slot.
 * @b: the buffer (may be unallocated).
 */
void ibpost_buf_free(struct ibpost_buf *b)
{
	if (b->pages)
		ibpost_buf_release(b, b->nslots);
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_buf_free);

/**
 * ibpost_buf_pinned() - memory @nslots slots of @slot_size bytes pin.
 * @nslots: slots.
 * @slot_size: bytes per slot.
 *
 * Each slot is one alloc_pages() of the order its size needs: a slot of
 * 2 MiB + 1 page pins 4 MiB.
 *
 * Return: bytes really allocated (0 for no slots).
 */
u64 ibpost_buf_pinned(u32 nslots, u32 slot_size)
{
	if (!nslots || !slot_size)
		return 0;
	return (u64)nslots * (PAGE_SIZE << get_order(slot_size));
}

/**
 * ibpost_buf_va() - kernel address of a slot.
 * @b: the buffer.
 * @slot: slot index.
 *
 * Return: the address of the slot's first byte.
 */
void *ibpost_buf_va(const struct ibpost_buf *b, u32 slot)
{
	return page_address(b->pages[slot]);
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_buf_va);

/**
 * ibpost_buf_for_device() - hand a slot the CPU wrote to the device.
 * @b: the buffer.
 * @slot: slot index.
 */
void ibpost_buf_for_device(const struct ibpost_buf *b, u32 slot)
{
	ib_dma_sync_single_for_device(b->ibdev, b->dma[slot], b->slot_size,
				      DMA_BIDIRECTIONAL);
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_buf_for_device);

/**
 * ibpost_buf_for_cpu() - take a slot back from the device before reading.
 * @b: the buffer.
 * @slot: slot index.
 */
void ibpost_buf_for_cpu(const struct ibpost_buf *b, u32 slot)
{
	ib_dma_sync_single_for_cpu(b->ibdev, b->dma[slot], b->slot_size,
				   DMA_BIDIRECTIONAL);
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_buf_for_cpu);
