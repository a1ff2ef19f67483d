/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: a DMA-mapped scatterlist as SGEs and WRs (pure).
 */
#ifndef _IBPOST_SPLIT_H
#define _IBPOST_SPLIT_H

#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>

u32 ibpost_sg_to_sges(struct scatterlist *sgl, int mapped, u32 lkey,
		      struct ib_sge *sges);
u32 ibpost_split_nwr(u32 nsge, u32 max_sge);
u64 ibpost_sges_bytes(const struct ib_sge *sges, u32 n);
u32 ibpost_sg_pages(struct scatterlist *sgl, int mapped);

#endif /* _IBPOST_SPLIT_H */
