/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: one RDMA READ or WRITE of local memory against a far side's key,
 * built by the kernel's rdma_rw API (rw.c): a session's request, or a
 * target's transfer for a command.  &struct ibpost_rw is in <ibpost.h>
 * (a session's request embeds it).
 */
#ifndef _IBPOST_RW_H
#define _IBPOST_RW_H

#include <ibpost.h>

#include "core/ep.h"

/**
 * struct ibpost_rw_ops - what a transfer's completions tell its owner.
 *	Both run in the endpoint's completion handler (softirq or a
 *	workqueue): no sleeping.
 * @error: an error or flush completion of any WR of the transfer: the
 *	owner counts it (and fails what must fail) and returns the errno it
 *	means; the first one is the transfer's &ibpost_rw.status.
 * @end: the transfer's last WR completed (on an RC QP every WR before it
 *	is done then): &ibpost_rw.status is 0 or its first error.  The owner
 *	calls ibpost_rw_destroy() before it reuses or frees the memory.
 */
struct ibpost_rw_ops {
	int (*error)(struct ibpost_rw *rw, const struct ib_wc *wc);
	void (*end)(struct ibpost_rw *rw);
};

u32 ibpost_rw_worst(const struct ibpost_ep *ep, bool read,
		    unsigned int nents);
u32 ibpost_rw_mr_pages(struct ib_device *dev, u32 port);
int ibpost_rw_init(struct ibpost_rw *rw, struct ibpost_ep *ep, u32 *reason);
int ibpost_rw_post(struct ibpost_rw *rw, u32 *taken);
void ibpost_rw_destroy(struct ibpost_rw *rw);

#endif /* _IBPOST_RW_H */
