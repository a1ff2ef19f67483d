/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: signaling cadence and send-queue accounting (pure).
 */
#ifndef _IBPOST_SQ_H
#define _IBPOST_SQ_H

#include <linux/types.h>

/**
 * struct ibpost_sq - ibpost's own count of send-queue slots.
 * @depth: slots the QP was created with.
 * @every: one signaled WR every this many.
 * @posted: WRs posted so far (the next WR's sequence number).
 * @retired: WRs known complete: every WR below this sequence number.
 * @max_used: most slots in use at once.
 *
 * A slot is free only once a signaled WR at or after it has completed:
 * hardware such as mlx5 frees unsignaled slots only then, even though
 * rdma_rxe frees them earlier.  So ibpost never trusts the provider to
 * tell it the SQ is full; it counts.
 */
struct ibpost_sq {
	u32 depth;
	u32 every;
	u64 posted;
	u64 retired;
	u32 max_used;
};

void ibpost_sq_init(struct ibpost_sq *sq, u32 depth, u32 every);
u32 ibpost_sq_used(const struct ibpost_sq *sq);
u32 ibpost_sq_room(const struct ibpost_sq *sq);
bool ibpost_sq_signaled(const struct ibpost_sq *sq, u64 seq, u64 last);
void ibpost_sq_posted(struct ibpost_sq *sq, u32 n);
u32 ibpost_sq_retire(struct ibpost_sq *sq, u64 seq);

#endif /* _IBPOST_SQ_H */
