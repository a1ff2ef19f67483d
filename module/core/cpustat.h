/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: the host's CPU time over a window (a served job's, for the
 * client's --cpu-util).
 */
#ifndef _IBPOST_CPUSTAT_H
#define _IBPOST_CPUSTAT_H

#include <linux/types.h>

/**
 * struct ibpost_cpu_mark - where a window of CPU time starts.
 * @t_ns: ktime_get_ns() then.
 * @idle_ns: the idle and iowait time of every online CPU then, summed.
 * @thread_ns: the runtime of the task that took the mark.
 */
struct ibpost_cpu_mark {
	u64 t_ns;
	u64 idle_ns;
	u64 thread_ns;
};

/**
 * struct ibpost_cpu_cost - the CPU time of a window.
 * @wall_ns: its length.
 * @busy_ns: the time the online CPUs did not idle (nor wait for I/O) in
 *	it, summed over them.
 * @thread_ns: the runtime of the task that took both marks, in it.
 * @ncpus: the online CPUs at its end.
 */
struct ibpost_cpu_cost {
	u64 wall_ns;
	u64 busy_ns;
	u64 thread_ns;
	u32 ncpus;
};

void ibpost_cpu_mark(struct ibpost_cpu_mark *m);
void ibpost_cpu_since(const struct ibpost_cpu_mark *m,
		      struct ibpost_cpu_cost *c);

#endif
