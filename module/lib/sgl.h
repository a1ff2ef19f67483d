/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: SGE layouts, their validation, and the data pattern (pure).
 */
#ifndef _IBPOST_SGL_H
#define _IBPOST_SGL_H

#include <linux/types.h>
#include <uapi/ibpost.h>

#include "lib/abi.h"

/* Properties of the IBPOST_OP_* opcodes, in one place. */

/* SEND, SEND_WITH_IMM: the payload lands in a receive WR's SGEs. */
static inline bool ibpost_op_is_send(u32 op)
{
	return op <= IBPOST_OP_SEND_IMM;
}

/* WRITE, WRITE_WITH_IMM, READ: the far side is a remote MR. */
static inline bool ibpost_op_is_rdma(u32 op)
{
	return op >= IBPOST_OP_WRITE;
}

/* Carries immediate data. */
static inline bool ibpost_op_has_imm(u32 op)
{
	return op == IBPOST_OP_SEND_IMM || op == IBPOST_OP_WRITE_IMM;
}

/* Consumes a receive WR at the target: the sends and WRITE_WITH_IMM. */
static inline bool ibpost_op_has_recv(u32 op)
{
	return ibpost_op_is_send(op) || op == IBPOST_OP_WRITE_IMM;
}

/**
 * struct ibpost_limits - what a job is validated against.
 * @max_send_sge: SGEs per send WR.
 * @max_recv_sge: SGEs per receive WR.
 * @max_sge_rd: SGEs per RDMA READ WR.
 * @max_qp_wr: WRs per queue.
 * @max_inline: inline bytes a QP is granted.
 * @max_msg_sz: largest message of the port.
 * @max_frpl: pages one fast-registration MR maps.
 * @dev_flags: IBPOST_DEV_* flags of the device; the capability ones
 *	(IBPOST_DEV_NO_IMM, IBPOST_DEV_CM_ONLY, IBPOST_DEV_WRITE_UNPLACED)
 *	refuse jobs it cannot run.  0 (nothing missing) when the caller does not fill it.
 */
struct ibpost_limits {
	u32 max_send_sge;
	u32 max_recv_sge;
	u32 max_sge_rd;
	u32 max_qp_wr;
	u32 max_inline;
	u32 max_msg_sz;
	u32 max_frpl;
	u32 dev_flags;
};

/** struct ibpost_pos - a byte's place in a layout: SGE index and offset. */
struct ibpost_pos {
	u32 sge;
	u32 off;
};

/**
 * struct ibpost_mismatch - first byte that did not arrive as sent.
 * @count: mismatching bytes.
 * @sge: SGE (of the WR's own list) of the first one.
 * @off: its offset within that SGE.
 * @expected: byte sent.
 * @got: byte found.
 */
struct ibpost_mismatch {
	u32 count;
	u32 sge;
	u32 off;
	u8 expected;
	u8 got;
};

int ibpost_layout_gen(u32 kind, u32 msg_size, u32 num_sge, u64 seed,
		      struct ibpost_sge_desc *out, struct ibpost_status *st);
int ibpost_layout_check(const struct ibpost_sge_desc *sges, u32 n,
			u32 msg_size, u32 slot_max, struct ibpost_status *st);
u32 ibpost_layout_span(const struct ibpost_sge_desc *sges, u32 n);
u64 ibpost_layout_sum(const struct ibpost_sge_desc *sges, u32 n);
u32 ibpost_wr_sge_limit(u32 op, const struct ibpost_limits *lim);
int ibpost_run_check(const struct ibpost_run *r, const struct ibpost_limits *lim,
		     struct ibpost_status *st);
int ibpost_run_check_caps(const struct ibpost_run *r, u32 dev_flags,
			  struct ibpost_status *st);
u8 ibpost_pattern(u64 wr, u32 sge, u32 off);
void ibpost_pattern_fill(u8 *buf, const struct ibpost_sge_desc *buf_layout,
			 u32 bn, const struct ibpost_sge_desc *wr_layout,
			 u32 wn, u64 wr);
u32 ibpost_pattern_check(const u8 *buf,
			 const struct ibpost_sge_desc *buf_layout, u32 bn,
			 const struct ibpost_sge_desc *wr_layout, u32 wn,
			 u64 wr, struct ibpost_mismatch *mm);

#endif /* _IBPOST_SGL_H */
