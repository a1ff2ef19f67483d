// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: signaling cadence and send-queue accounting.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <kunit/visibility.h>

#include "lib/sq.h"

/**
 * ibpost_sq_init() - start counting.
 * @sq: the counter.
 * @depth: send-queue slots.
 * @every: signal interval, 1..depth.
 */
void ibpost_sq_init(struct ibpost_sq *sq, u32 depth, u32 every)
{
	sq->depth = depth;
	sq->every = every;
	sq->posted = 0;
	sq->retired = 0;
	sq->max_used = 0;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_sq_init);

/**
 * ibpost_sq_used() - slots in use.
 * @sq: the counter.
 *
 * Return: WRs posted and not yet known complete.
 */
u32 ibpost_sq_used(const struct ibpost_sq *sq)
{
	return (u32)(sq->posted - sq->retired);
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_sq_used);

/**
 * ibpost_sq_room() - free slots.
 * @sq: the counter.
 *
 * Return: WRs that may be posted now.
 */
u32 ibpost_sq_room(const struct ibpost_sq *sq)
{
	return sq->depth - ibpost_sq_used(sq);
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_sq_room);

/**
 * ibpost_sq_signaled() - whether a WR asks for a completion.
 * @sq: the counter.
 * @seq: the WR's sequence number.
 * @last: sequence number of the run's last WR (always signaled).
 *
 * Return: true for every @sq->every-th WR and for the last.
 */
bool ibpost_sq_signaled(const struct ibpost_sq *sq, u64 seq, u64 last)
{
	return seq == last || (seq + 1) % sq->every == 0;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_sq_signaled);

/**
 * ibpost_sq_posted() - account WRs the provider accepted.
 * @sq: the counter.
 * @n: how many.
 */
void ibpost_sq_posted(struct ibpost_sq *sq, u32 n)
{
	sq->posted += n;
	sq->max_used = max(sq->max_used, ibpost_sq_used(sq));
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_sq_posted);

/**
 * ibpost_sq_retire() - a signaled WR completed.
 * @sq: the counter.
 * @seq: its sequence number; it and every WR before it are done.
 *
 * Return: slots freed (0 for a stale or duplicate completion).
 */
u32 ibpost_sq_retire(struct ibpost_sq *sq, u64 seq)
{
	u32 freed;

	if (seq < sq->retired || seq >= sq->posted)
		return 0;
	freed = (u32)(seq + 1 - sq->retired);
	sq->retired = seq + 1;
	return freed;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_sq_retire);
