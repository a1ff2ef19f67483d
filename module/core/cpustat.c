// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: the host's CPU time over a window.
 *
 * A served job's work is spread over the connection's thread, the CQ's
 * softirq or workqueue context and the provider's own (rxe's packet
 * processing runs in softirq and kernel threads), which no one task's
 * times hold.  So the figure is system-wide, as /proc/stat's "cpu" line
 * and perftest's --cpu_util give it: the window times the online CPUs,
 * less their idle and iowait time in it, read the way fs/proc/stat.c
 * reads them (the tick-less idle accounting where the CPU has it, else
 * the tick-based kernel_cpustat counters).  There is no exported reader
 * of that line, hence the same two lookups here.  The thread's own
 * runtime is given beside it, a lower bound of the job's cost.
 */
#include <linux/cpumask.h>
#include <linux/kernel_stat.h>
#include <linux/sched.h>
#include <linux/tick.h>
#include <linux/timekeeping.h>

#include "core/cpustat.h"

/* Idle (or iowait, @iowait) time of online CPU @cpu, in ns. */
static u64 ibpost_cpu_idle(int cpu, bool iowait)
{
	u64 us = iowait ? get_cpu_iowait_time_us(cpu, NULL) :
			  get_cpu_idle_time_us(cpu, NULL);

	if (us != -1ULL)
		return us * NSEC_PER_USEC;
	return kcpustat_cpu(cpu).cpustat[iowait ? CPUTIME_IOWAIT :
						  CPUTIME_IDLE];
}

static u64 ibpost_cpu_idle_all(void)
{
	u64 sum = 0;
	int cpu;

	for_each_online_cpu(cpu)
		sum += ibpost_cpu_idle(cpu, false) + ibpost_cpu_idle(cpu, true);
	return sum;
}

/**
 * ibpost_cpu_mark() - start a window.
 * @m: out.
 *
 * Context: the task whose runtime the window counts (the served
 * connection's thread); O(online CPUs).
 */
void ibpost_cpu_mark(struct ibpost_cpu_mark *m)
{
	m->idle_ns = ibpost_cpu_idle_all();
	m->thread_ns = current->se.sum_exec_runtime;
	m->t_ns = ktime_get_ns();
}

/**
 * ibpost_cpu_since() - the CPU time of the window @m started.
 * @m: the mark, taken by the calling task.
 * @c: out: the window, the CPUs' busy time (0 when their idle time went
 *	past the window: a CPU going offline, or counters read apart), the
 *	task's runtime.
 */
void ibpost_cpu_since(const struct ibpost_cpu_mark *m,
		      struct ibpost_cpu_cost *c)
{
	u64 t = ktime_get_ns(), idle = ibpost_cpu_idle_all(), all;

	c->ncpus = num_online_cpus();
	c->wall_ns = t > m->t_ns ? t - m->t_ns : 0;
	all = c->wall_ns * c->ncpus;
	idle = idle > m->idle_ns ? idle - m->idle_ns : 0;
	c->busy_ns = all > idle ? all - idle : 0;
	c->thread_ns = current->se.sum_exec_runtime - m->thread_ns;
}
