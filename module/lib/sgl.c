// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: SGE layouts and their validation.
 *
 * A layout is the list of (offset, length) SGEs of one work request within
 * its buffer slot.  The caller gives it explicitly or asks for a generated
 * one.  Everything here is pure: no verbs, no allocation, no user memory,
 * so kunit/sgl_kunit.c covers it without a device.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/overflow.h>
#include <linux/mm.h>
#include <linux/socket.h>
#include <kunit/visibility.h>

#include "lib/sgl.h"
#include "lib/wire.h"

/* Deterministic generator for IBPOST_LAYOUT_RANDOM (same seed, same layout). */
static u64 ibpost_rand_next(u64 *state)
{
	u64 x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

static int ibpost_refuse(struct ibpost_status *st, u32 reason, u32 sge,
			 u64 value, u64 limit)
{
	ibpost_status_set(st, reason, value, limit);
	st->sge = sge;
	return -EINVAL;
}

static void ibpost_gen_equal(u32 msg, u32 n, struct ibpost_sge_desc *out)
{
	u32 i, off = 0, len = msg / n;

	for (i = 0; i < n; i++) {
		out[i].offset = off;
		out[i].length = i == n - 1 ? msg - off : len;
		off += out[i].length;
	}
}

/* Each SGE straddles the boundary between two pages of its own. */
static void ibpost_gen_page_cross(u32 msg, u32 n, struct ibpost_sge_desc *out)
{
	u32 i, len, before, page = 0;

	ibpost_gen_equal(msg, n, out);
	for (i = 0; i < n; i++) {
		len = out[i].length;
		before = len > 1 ? len / 2 : 1;
		if (before > PAGE_SIZE)
			before = PAGE_SIZE;
		out[i].offset = (page + 1) * PAGE_SIZE - before;
		page += DIV_ROUND_UP(len - before, PAGE_SIZE) + 1;
	}
}

/* Odd offsets, never 8-byte aligned, with 1..8 byte gaps. */
static void ibpost_gen_unaligned(u32 msg, u32 n, struct ibpost_sge_desc *out)
{
	u32 i, off = 1;

	ibpost_gen_equal(msg, n, out);
	for (i = 0; i < n; i++) {
		out[i].offset = off;
		off += out[i].length + 1 + (i % 7);
		if (!(off & 1))
			off++;
	}
}

/* Random lengths summing to msg (each >= 1) and gaps of 0..63 bytes. */
static void ibpost_gen_random(u32 msg, u32 n, u64 seed,
			      struct ibpost_sge_desc *out)
{
	u64 state = seed ? seed : 0x9e3779b97f4a7c15ULL;
	u32 i, left = msg, off = 0, len;

	for (i = 0; i < n; i++) {
		u32 others = n - 1 - i;

		if (!others) {
			len = left;
		} else {
			/* Leave at least one byte for each later SGE. */
			u32 room = left - others;
			u32 fair = max_t(u32, 1, 2 * (left / (others + 1)));

			len = 1 + (u32)(ibpost_rand_next(&state) %
					min_t(u32, room, fair));
		}
		off += (u32)(ibpost_rand_next(&state) % 64);
		out[i].offset = off;
		out[i].length = len;
		off += len;
		left -= len;
	}
}

/**
 * ibpost_layout_gen() - generate a layout.
 * @kind: IBPOST_LAYOUT_EQUAL, _PAGE_CROSS, _UNALIGNED or _RANDOM.
 * @msg_size: bytes of the message, split over the SGEs.
 * @num_sge: SGEs to make, 1..IBPOST_MAX_SGE.
 * @seed: seed for IBPOST_LAYOUT_RANDOM.
 * @out: @num_sge descriptors to fill.
 * @st: refusal reason.
 *
 * Return: 0, or -EINVAL when @kind is unknown or the message has fewer
 * bytes than SGEs.
 */
int ibpost_layout_gen(u32 kind, u32 msg_size, u32 num_sge, u64 seed,
		      struct ibpost_sge_desc *out, struct ibpost_status *st)
{
	if (!num_sge || num_sge > IBPOST_MAX_SGE)
		return ibpost_refuse(st, IBPOST_R_NUM_SGE, IBPOST_STATUS_NONE,
				     num_sge, IBPOST_MAX_SGE);
	if (msg_size < num_sge)
		return ibpost_refuse(st, IBPOST_R_LAYOUT_FIT,
				     IBPOST_STATUS_NONE, msg_size, num_sge);
	switch (kind) {
	case IBPOST_LAYOUT_EQUAL:
		ibpost_gen_equal(msg_size, num_sge, out);
		return 0;
	case IBPOST_LAYOUT_PAGE_CROSS:
		ibpost_gen_page_cross(msg_size, num_sge, out);
		return 0;
	case IBPOST_LAYOUT_UNALIGNED:
		ibpost_gen_unaligned(msg_size, num_sge, out);
		return 0;
	case IBPOST_LAYOUT_RANDOM:
		ibpost_gen_random(msg_size, num_sge, seed, out);
		return 0;
	default:
		return ibpost_refuse(st, IBPOST_R_LAYOUT, IBPOST_STATUS_NONE,
				     kind, IBPOST_LAYOUT_MAX - 1);
	}
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_layout_gen);

/**
 * ibpost_layout_span() - bytes of slot a layout needs.
 * @sges: the layout (already checked: no overflow).
 * @n: its SGE count.
 *
 * Return: the largest offset + length.
 */
u32 ibpost_layout_span(const struct ibpost_sge_desc *sges, u32 n)
{
	u32 i, span = 0;

	for (i = 0; i < n; i++)
		span = max(span, sges[i].offset + sges[i].length);
	return span;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_layout_span);

/**
 * ibpost_layout_sum() - payload bytes of a layout.
 * @sges: the layout.
 * @n: its SGE count.
 *
 * Return: the sum of the SGE lengths.
 */
u64 ibpost_layout_sum(const struct ibpost_sge_desc *sges, u32 n)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < n; i++)
		sum += sges[i].length;
	return sum;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_layout_sum);

/**
 * ibpost_layout_check() - validate every SGE of a layout.
 * @sges: the layout.
 * @n: its SGE count.
 * @msg_size: bytes the lengths must add up to.
 * @slot_max: largest slot (offset + length) allowed.
 * @st: refusal reason, with the SGE index.
 *
 * Return: 0 or -EINVAL.
 */
int ibpost_layout_check(const struct ibpost_sge_desc *sges, u32 n,
			u32 msg_size, u32 slot_max, struct ibpost_status *st)
{
	u32 i, end;

	for (i = 0; i < n; i++) {
		if (!sges[i].length)
			return ibpost_refuse(st, IBPOST_R_SGE_ZERO, i, 0, 1);
		if (check_add_overflow(sges[i].offset, sges[i].length, &end) ||
		    end > slot_max)
			return ibpost_refuse(st, IBPOST_R_SGE_RANGE, i,
					     (u64)sges[i].offset + sges[i].length,
					     slot_max);
	}
	if (ibpost_layout_sum(sges, n) != msg_size)
		return ibpost_refuse(st, IBPOST_R_MSG_SUM, IBPOST_STATUS_NONE,
				     ibpost_layout_sum(sges, n), msg_size);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_layout_check);

/**
 * ibpost_wr_sge_limit() - SGEs one WR of @op may carry.
 * @op: IBPOST_OP_*.
 * @lim: device limits.
 *
 * Return: max_sge_rd for READ, max_send_sge otherwise.
 */
u32 ibpost_wr_sge_limit(u32 op, const struct ibpost_limits *lim)
{
	return op == IBPOST_OP_READ ? lim->max_sge_rd : lim->max_send_sge;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_wr_sge_limit);

static int ibpost_run_check_queue(const struct ibpost_run *r,
				  const struct ibpost_limits *lim,
				  struct ibpost_status *st)
{
	u64 bytes;

	if (!r->depth || r->depth > lim->max_qp_wr)
		return ibpost_refuse(st, IBPOST_R_DEPTH, IBPOST_STATUS_NONE,
				     r->depth, lim->max_qp_wr);
	if (!r->batch || r->batch > r->depth)
		return ibpost_refuse(st, IBPOST_R_BATCH, IBPOST_STATUS_NONE,
				     r->batch, r->depth);
	/*
	 * A batch is posted when the SQ has room for all of it: the WRs still
	 * outstanding then (at least depth - batch + 1) must include a
	 * signaled one, or nothing ever frees the SQ.
	 */
	if (!r->signal_every || r->signal_every > r->depth - r->batch + 1)
		return ibpost_refuse(st, IBPOST_R_SIGNAL, IBPOST_STATUS_NONE,
				     r->signal_every,
				     r->depth - r->batch + 1);
	if (!r->iters && !r->duration_ms)
		return ibpost_refuse(st, IBPOST_R_ITERS, IBPOST_STATUS_NONE,
				     0, 0);
	if (check_mul_overflow(r->iters + r->warmup, (u64)r->msg_size, &bytes) ||
	    r->iters + r->warmup < r->iters) {
		ibpost_refuse(st, IBPOST_R_OVERFLOW, IBPOST_STATUS_NONE,
			      r->iters, r->msg_size);
		return -EOVERFLOW;
	}
	return 0;
}

/* The rdma_cm fields, and what a job against a peer cannot do. */
static int ibpost_run_check_cm(const struct ibpost_run *r,
			       struct ibpost_status *st)
{
	u32 cm = r->flags & (IBPOST_RUN_CM | IBPOST_RUN_PEER);
	u32 recv_sge = r->recv_num_sge ? r->recv_num_sge : r->num_sge;

	if (cm == (IBPOST_RUN_CM | IBPOST_RUN_PEER))
		return ibpost_refuse(st, IBPOST_R_PEER_FLAG, IBPOST_STATUS_NONE,
				     IBPOST_RUN_CM, 0);
	/* rdma_cm takes the source GID of the address it resolves. */
	if (cm && (r->flags & IBPOST_RUN_GID))
		return ibpost_refuse(st, IBPOST_R_GID_CM, IBPOST_STATUS_NONE,
				     r->gid_index, 0);
	if (cm ? (r->cm_family != AF_INET && r->cm_family != AF_INET6) :
	    (r->cm_family || r->cm_timeout_ms ||
	     !ibpost_mem_is_zero(r->cm_addr, sizeof(r->cm_addr))))
		return ibpost_refuse(st, IBPOST_R_CM_ADDR, IBPOST_STATUS_NONE,
				     r->cm_family, 0);
	if (r->cm_port && !(cm & IBPOST_RUN_PEER))
		return ibpost_refuse(st, IBPOST_R_CM_ADDR, IBPOST_STATUS_NONE,
				     r->cm_port, 0);
	if (r->cm_timeout_ms > IBPOST_CM_TIMEOUT_MAX)
		return ibpost_refuse(st, IBPOST_R_CM_ADDR, IBPOST_STATUS_NONE,
				     r->cm_timeout_ms, IBPOST_CM_TIMEOUT_MAX);
	if (!(cm & IBPOST_RUN_PEER))
		return 0;
	if (r->flags & IBPOST_RUN_PINGPONG)
		return ibpost_refuse(st, IBPOST_R_PEER_FLAG, IBPOST_STATUS_NONE,
				     IBPOST_RUN_PINGPONG, 0);
	if (r->num_sge > IBPOST_WIRE_MAX_SGE)
		return ibpost_refuse(st, IBPOST_R_NUM_SGE, IBPOST_STATUS_NONE,
				     r->num_sge, IBPOST_WIRE_MAX_SGE);
	if (ibpost_op_is_send(r->op) && recv_sge > IBPOST_WIRE_MAX_SGE) {
		ibpost_refuse(st, IBPOST_R_NUM_SGE, IBPOST_STATUS_NONE,
			      recv_sge, IBPOST_WIRE_MAX_SGE);
		st->wr = IBPOST_STATUS_RECV_WR;
		return -EINVAL;
	}
	if (r->depth > IBPOST_WIRE_MAX_DEPTH)
		return ibpost_refuse(st, IBPOST_R_DEPTH, IBPOST_STATUS_NONE,
				     r->depth, IBPOST_WIRE_MAX_DEPTH);
	return 0;
}

/**
 * ibpost_run_check_caps() - refuse what the device cannot do at all.
 * @r: the request (an unknown opcode passes here and is refused by
 *	ibpost_run_check()).
 * @dev_flags: IBPOST_DEV_* flags of the device (struct ibpost_dev_attr).
 * @st: refusal reason.
 *
 * iWARP devices (siw) have no immediate data, connect QPs only through
 * rdma_cm (a loopback job needs IBPOST_RUN_CM; IBPOST_RUN_PEER uses rdma_cm
 * anyway), and complete an RDMA WRITE before its data is placed, so a
 * loopback WRITE is verified only in ping-pong (the target waits for the
 * data); against a peer the server checks WRITE data after the fin, a SEND
 * that arrives after the data.  Each is refused before anything is created
 * on the device, with the capability named.
 *
 * Return: 0 or -EOPNOTSUPP.
 */
int ibpost_run_check_caps(const struct ibpost_run *r, u32 dev_flags,
			  struct ibpost_status *st)
{
	if (ibpost_op_has_imm(r->op) && (dev_flags & IBPOST_DEV_NO_IMM)) {
		ibpost_refuse(st, IBPOST_R_CAP_IMM, IBPOST_STATUS_NONE, r->op, 0);
		return -EOPNOTSUPP;
	}
	if ((dev_flags & IBPOST_DEV_CM_ONLY) &&
	    !(r->flags & (IBPOST_RUN_CM | IBPOST_RUN_PEER))) {
		ibpost_refuse(st, IBPOST_R_CAP_CM_ONLY, IBPOST_STATUS_NONE,
			      r->flags, 0);
		return -EOPNOTSUPP;
	}
	if ((dev_flags & IBPOST_DEV_WRITE_UNPLACED) &&
	    r->op == IBPOST_OP_WRITE && (r->flags & IBPOST_RUN_VERIFY) &&
	    !(r->flags & (IBPOST_RUN_PINGPONG | IBPOST_RUN_PEER))) {
		ibpost_refuse(st, IBPOST_R_CAP_WRITE_VERIFY, IBPOST_STATUS_NONE,
			      r->flags, 0);
		return -EOPNOTSUPP;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_run_check_caps);

/**
 * ibpost_run_check() - validate the scalar fields of a run.
 * @r: the request, as copied from the caller.
 * @lim: limits of the device (and of the QP where known).
 * @st: refusal reason.
 *
 * Layout entries are checked separately by ibpost_layout_check().
 *
 * Return: 0, -EINVAL, -EOPNOTSUPP when the device lacks a capability the
 * job needs (ibpost_run_check_caps()), or -EOVERFLOW when iterations *
 * size overflows.
 */
int ibpost_run_check(const struct ibpost_run *r, const struct ibpost_limits *lim,
		     struct ibpost_status *st)
{
	u32 max_sge = ibpost_wr_sge_limit(r->op, lim);
	u32 recv_sge = r->recv_num_sge ? r->recv_num_sge : r->num_sge;
	u32 max_msg = min_t(u32, lim->max_msg_sz, IBPOST_MAX_MSG);
	int ret;

	if (r->flags & ~IBPOST_RUN_FLAGS)
		return ibpost_refuse(st, IBPOST_R_FLAGS, IBPOST_STATUS_NONE,
				     r->flags, IBPOST_RUN_FLAGS);
	/* gid_index was reserved0: zero unless IBPOST_RUN_GID gives it. */
	if (r->gid_index && !(r->flags & IBPOST_RUN_GID))
		return ibpost_refuse(st, IBPOST_R_RESERVED, IBPOST_STATUS_NONE,
				     0, 0);
	if (!(r->flags & IBPOST_RUN_HIST) != !r->hist)
		return ibpost_refuse(st, IBPOST_R_HIST, IBPOST_STATUS_NONE,
				     r->flags, 0);
	if ((r->flags & IBPOST_RUN_PEER_CPU) && !(r->flags & IBPOST_RUN_PEER))
		return ibpost_refuse(st, IBPOST_R_PEER_CPU, IBPOST_STATUS_NONE,
				     r->flags, 0);
	ret = ibpost_run_check_cm(r, st);
	if (ret)
		return ret;
	if (r->op >= IBPOST_OP_MAX)
		return ibpost_refuse(st, IBPOST_R_OPCODE, IBPOST_STATUS_NONE,
				     r->op, IBPOST_OP_MAX - 1);
	ret = ibpost_run_check_caps(r, lim->dev_flags, st);
	if (ret)
		return ret;
	if (r->layout >= IBPOST_LAYOUT_MAX)
		return ibpost_refuse(st, IBPOST_R_LAYOUT, IBPOST_STATUS_NONE,
				     r->layout, IBPOST_LAYOUT_MAX - 1);
	if (ibpost_op_is_send(r->op) && r->recv_layout >= IBPOST_LAYOUT_MAX)
		return ibpost_refuse(st, IBPOST_R_LAYOUT, IBPOST_STATUS_NONE,
				     r->recv_layout, IBPOST_LAYOUT_MAX - 1);
	if (!r->num_sge || r->num_sge > max_sge)
		return ibpost_refuse(st, IBPOST_R_NUM_SGE, IBPOST_STATUS_NONE,
				     r->num_sge, max_sge);
	if (ibpost_op_is_send(r->op) && recv_sge > lim->max_recv_sge) {
		ibpost_refuse(st, IBPOST_R_NUM_SGE, IBPOST_STATUS_NONE,
			      recv_sge, lim->max_recv_sge);
		st->wr = IBPOST_STATUS_RECV_WR;
		return -EINVAL;
	}
	if (r->msg_size > max_msg ||
	    (!r->msg_size && r->layout != IBPOST_LAYOUT_EXPLICIT))
		return ibpost_refuse(st, IBPOST_R_MSG_SIZE, IBPOST_STATUS_NONE,
				     r->msg_size, max_msg);
	if (r->flags & IBPOST_RUN_INLINE) {
		if (r->op == IBPOST_OP_READ)
			return ibpost_refuse(st, IBPOST_R_INLINE_OP,
					     IBPOST_STATUS_NONE, r->op, 0);
		if (r->msg_size > lim->max_inline)
			return ibpost_refuse(st, IBPOST_R_INLINE_SIZE,
					     IBPOST_STATUS_NONE, r->msg_size,
					     lim->max_inline);
	}
	if (r->imm_data && !ibpost_op_has_imm(r->op))
		return ibpost_refuse(st, IBPOST_R_IMM_OP, IBPOST_STATUS_NONE,
				     r->op, 0);
	/* One message each way at a time, detected by its last byte. */
	if ((r->flags & IBPOST_RUN_PINGPONG) &&
	    (r->op != IBPOST_OP_WRITE || r->batch != 1))
		return ibpost_refuse(st, IBPOST_R_PINGPONG, IBPOST_STATUS_NONE,
				     r->op == IBPOST_OP_WRITE ? r->batch : r->op,
				     0);
	return ibpost_run_check_queue(r, lim, st);
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_run_check);

/**
 * ibpost_pattern() - the byte a position carries.
 * @wr: work request index in the run.
 * @sge: SGE index in the WR's own list.
 * @off: byte offset within that SGE.
 *
 * Neighbouring bytes, SGEs and WRs all differ, so a byte that lands in the
 * wrong place, a stale WR, or swapped SGEs show up.
 *
 * Return: the pattern byte.
 */
u8 ibpost_pattern(u64 wr, u32 sge, u32 off)
{
	u32 x = (u32)wr * 0x9e3779b1U ^ (u32)(wr >> 32) * 0x27d4eb2fU ^
		(sge + 1) * 0x85ebca77U ^ (off >> 8) * 0xc2b2ae3dU;

	/* Full avalanche: every bit of wr, sge and off >> 8 reaches the byte. */
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return (u8)(x + off);
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_pattern);

/*
 * Walk a message byte by byte in two layouts at once: @a is where the bytes
 * sit in a buffer, @b is the WR's own SGE list that names them.  Calls @fn
 * once per contiguous run where neither layout changes SGE.
 */
struct ibpost_walk {
	u8 *buf;
	const u8 *cbuf;
	u64 wr;
	struct ibpost_mismatch *mm;
};

static void ibpost_walk(const struct ibpost_sge_desc *a, u32 an,
			const struct ibpost_sge_desc *b, u32 bn,
			struct ibpost_walk *w,
			void (*fn)(struct ibpost_walk *w, u32 buf_off,
				   struct ibpost_pos pos, u32 len))
{
	struct ibpost_pos pa = {}, pb = {};

	while (pa.sge < an && pb.sge < bn) {
		u32 ra = a[pa.sge].length - pa.off;
		u32 rb = b[pb.sge].length - pb.off;
		u32 len = min(ra, rb);

		fn(w, a[pa.sge].offset + pa.off, pb, len);
		pa.off += len;
		pb.off += len;
		if (pa.off == a[pa.sge].length) {
			pa.sge++;
			pa.off = 0;
		}
		if (pb.off == b[pb.sge].length) {
			pb.sge++;
			pb.off = 0;
		}
	}
}

static void ibpost_fill_run(struct ibpost_walk *w, u32 buf_off,
			    struct ibpost_pos pos, u32 len)
{
	u32 i;

	for (i = 0; i < len; i++)
		w->buf[buf_off + i] = ibpost_pattern(w->wr, pos.sge, pos.off + i);
}

static void ibpost_check_run(struct ibpost_walk *w, u32 buf_off,
			     struct ibpost_pos pos, u32 len)
{
	u32 i;
	u8 want;

	for (i = 0; i < len; i++) {
		want = ibpost_pattern(w->wr, pos.sge, pos.off + i);
		if (w->cbuf[buf_off + i] == want)
			continue;
		if (!w->mm->count++) {
			w->mm->sge = pos.sge;
			w->mm->off = pos.off + i;
			w->mm->expected = want;
			w->mm->got = w->cbuf[buf_off + i];
		}
	}
}

/**
 * ibpost_pattern_fill() - stamp a message into a buffer.
 * @buf: start of the buffer slot.
 * @buf_layout: where the message bytes sit in @buf.
 * @bn: SGEs of @buf_layout.
 * @wr_layout: the WR's own SGE list, which names every byte.
 * @wn: SGEs of @wr_layout.
 * @wr: WR index.
 */
void ibpost_pattern_fill(u8 *buf, const struct ibpost_sge_desc *buf_layout,
			 u32 bn, const struct ibpost_sge_desc *wr_layout,
			 u32 wn, u64 wr)
{
	struct ibpost_walk w = { .buf = buf, .wr = wr };

	ibpost_walk(buf_layout, bn, wr_layout, wn, &w, ibpost_fill_run);
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_pattern_fill);

/**
 * ibpost_pattern_check() - check a message that arrived in a buffer.
 * @buf: start of the buffer slot.
 * @buf_layout: where the message bytes landed in @buf.
 * @bn: SGEs of @buf_layout.
 * @wr_layout: the WR's own SGE list.
 * @wn: SGEs of @wr_layout.
 * @wr: WR index.
 * @mm: out: the first mismatch (count accumulates).
 *
 * Return: number of mismatching bytes in this message.
 */
u32 ibpost_pattern_check(const u8 *buf,
			 const struct ibpost_sge_desc *buf_layout, u32 bn,
			 const struct ibpost_sge_desc *wr_layout, u32 wn,
			 u64 wr, struct ibpost_mismatch *mm)
{
	struct ibpost_walk w = { .cbuf = buf, .wr = wr, .mm = mm };
	u32 before = mm->count;

	ibpost_walk(buf_layout, bn, wr_layout, wn, &w, ibpost_check_run);
	return mm->count - before;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_pattern_check);
