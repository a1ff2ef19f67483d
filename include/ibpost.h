/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: in-kernel API.
 *
 * The same engine serves /dev/ibpost and kernel callers: fill a
 * struct ibpost_run (include/uapi/ibpost.h) in kernel memory, give the
 * explicit layouts (if any) as kernel arrays, and call ibpost_run().
 */
#ifndef _IBPOST_H
#define _IBPOST_H

#include <linux/types.h>
#include <uapi/ibpost.h>

/* Faults a test may inject past validation (struct ibpost_run_ext.fault). */
/** Corrupt the lkey of the first SGE of every WR. */
#define IBPOST_FAULT_BAD_LKEY		(1U << 0)
/** Point the last WR's remote address past the end of its MR. */
#define IBPOST_FAULT_REMOTE_RANGE	(1U << 1)
/** Flip one byte at the target after the first WR (verification test). */
#define IBPOST_FAULT_CORRUPT		(1U << 2)
#define IBPOST_FAULTS			(IBPOST_FAULT_BAD_LKEY | \
					 IBPOST_FAULT_REMOTE_RANGE | \
					 IBPOST_FAULT_CORRUPT)

/**
 * struct ibpost_run_ext - kernel-side arguments of ibpost_run().
 * @sges: explicit send layout, run->num_sge entries (IBPOST_LAYOUT_EXPLICIT).
 * @recv_sges: explicit receive layout, run->recv_num_sge entries.
 * @fault: IBPOST_FAULT_* to inject, 0 normally.
 */
struct ibpost_run_ext {
	const struct ibpost_sge_desc *sges;
	const struct ibpost_sge_desc *recv_sges;
	u32 fault;
};

int ibpost_run(struct ibpost_run *run, const struct ibpost_run_ext *ext);

#endif /* _IBPOST_H */
