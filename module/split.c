// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: a DMA-mapped scatterlist as SGEs and WRs (pure, KUnit-tested).
 *
 * ib_dma_map_sg() may merge entries (an IOMMU, or physically contiguous
 * pages); what it returns is honoured: only the mapped entries are walked,
 * through their DMA address and length.  Entries the mapping left
 * adjacent in bus address space are merged here as well, so a request
 * built from contiguous pages costs one SGE.  A request with more SGEs than
 * a WR carries is split into consecutive WRs of max_sge SGEs each, as the
 * kernel's rw API splits its contexts.
 */
#include <kunit/visibility.h>
#include <linux/math.h>

#include "split.h"

/**
 * ibpost_sg_to_sges() - one SGE per bus-contiguous run of mapped entries.
 * @sgl: DMA-mapped scatterlist.
 * @mapped: entries ib_dma_map_sg() returned, at least 1.
 * @lkey: lkey of every SGE.
 * @sges: out: room for @mapped SGEs.
 *
 * Return: SGEs written (at most @mapped).
 */
u32 ibpost_sg_to_sges(struct scatterlist *sgl, int mapped, u32 lkey,
		      struct ib_sge *sges)
{
	struct scatterlist *sg;
	struct ib_sge *prev;
	u64 addr;
	u32 len, n = 0;
	int i;

	for_each_sg(sgl, sg, mapped, i) {
		addr = sg_dma_address(sg);
		len = sg_dma_len(sg);
		prev = n ? &sges[n - 1] : NULL;
		if (prev && prev->addr + prev->length == addr &&
		    prev->length + len > prev->length) {
			prev->length += len;
			continue;
		}
		sges[n].addr = addr;
		sges[n].length = len;
		sges[n].lkey = lkey;
		n++;
	}
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_sg_to_sges);

/**
 * ibpost_split_nwr() - WRs a request of @nsge SGEs needs.
 * @nsge: SGEs of the request.
 * @max_sge: SGEs one WR carries, at least 1.
 *
 * Return: DIV_ROUND_UP(@nsge, @max_sge).
 */
u32 ibpost_split_nwr(u32 nsge, u32 max_sge)
{
	return DIV_ROUND_UP(nsge, max_sge);
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_split_nwr);

/**
 * ibpost_sges_bytes() - bytes @n SGEs cover.
 * @sges: the SGEs.
 * @n: how many.
 *
 * Return: the sum of their lengths.
 */
u64 ibpost_sges_bytes(const struct ib_sge *sges, u32 n)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < n; i++)
		sum += sges[i].length;
	return sum;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_sges_bytes);

/**
 * ibpost_sg_pages() - pages a fast-reg MR over the mapped entries needs.
 * @sgl: DMA-mapped scatterlist.
 * @mapped: entries ib_dma_map_sg() returned.
 *
 * Return: the pages each entry touches, summed.
 */
u32 ibpost_sg_pages(struct scatterlist *sgl, int mapped)
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
EXPORT_SYMBOL_IF_KUNIT(ibpost_sg_pages);
