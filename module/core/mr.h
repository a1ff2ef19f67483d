/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: fast-registration MRs scoped to one job's target buffer.
 */
#ifndef _IBPOST_MR_H
#define _IBPOST_MR_H

#include "core/buf.h"
#include "core/ep.h"

struct ibpost_status;

/* Registration WRs in flight at once (send-queue slots they need). */
#define IBPOST_MR_CHAIN		16

/**
 * struct ibpost_mrs - one MR per target slot.
 * @n: number of MRs.
 * @mr: the MRs.
 * @registered: MRs whose REG_MR completed and that are not invalidated.
 */
struct ibpost_mrs {
	u32 n;
	struct ib_mr **mr;
	u32 registered;
};

int ibpost_mrs_register(struct ibpost_mrs *m, struct ibpost_ep *ep,
			const struct ibpost_buf *b, int access,
			struct ibpost_status *st);
int ibpost_mrs_register_sg(struct ibpost_mrs *m, struct ibpost_ep *ep,
			   struct scatterlist *sgl, int mapped, u32 pages,
			   int access);
int ibpost_mrs_invalidate(struct ibpost_mrs *m, struct ibpost_ep *ep);
void ibpost_mrs_free(struct ibpost_mrs *m);
void ibpost_mr_hide_iova(struct ib_mr *mr);
u32 ibpost_mr_alloc_pages(struct ib_pd *pd, u32 pages);
u8 ibpost_mr_key(const struct ib_mr *mr);

#endif /* _IBPOST_MR_H */
