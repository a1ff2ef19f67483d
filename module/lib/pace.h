/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The slowest transfer rate ibpost waits for before a silence counts as a
 * stall (a job's sender) or as an idle peer (a served connection).
 */
#ifndef IBPOST_LIB_PACE_H
#define IBPOST_LIB_PACE_H

#include <linux/math64.h>
#include <linux/time64.h>
#include <linux/types.h>

/*
 * Bytes a second.  Nothing shows at either end before a whole message (or a
 * whole signaled batch) has moved, so a wait grows with its bytes at this
 * rate: the debug test kernel's soft-RoCE moved 4 MiB SENDs at 4.2 MiB/s
 * alone, and at about half that beside a second guest.
 */
#define IBPOST_FLOOR_BPS	(1024 * 1024)

/**
 * ibpost_floor_ms() - how long some bytes take at the slowest rate waited for
 * @bytes: bytes that move before anything shows (below 2^54)
 *
 * Return: milliseconds @bytes take at %IBPOST_FLOOR_BPS, rounded down.
 */
static inline u64 ibpost_floor_ms(u64 bytes)
{
	return div_u64(bytes * MSEC_PER_SEC, IBPOST_FLOOR_BPS);
}

#endif
