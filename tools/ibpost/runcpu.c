// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost run --cpu-util: what a point's run window cost in CPU time.
 *
 * The work of a job is done in the kernel: ib_post_send() and the polling
 * in the thread that issued IBPOST_IOC_RUN, but the provider's share (rxe's
 * packet processing, completions) in softirq context and kernel threads,
 * which no task's times count.  So the figure is system-wide, from
 * /proc/stat's "cpu" line as perftest's --cpu_util reads it: the window
 * times the CPUs, less the idle and iowait time in it.  Not the sum of the
 * busy fields (user, nice, system, irq, softirq, steal): a tickless kernel
 * counts idle time exactly but those only at the ticks, and an emulated
 * guest misses ticks (in a TCG guest they showed half the posting thread's
 * own time).  It counts all of the job's work -- and whatever else ran on
 * the host then.  This process's own time (getrusage(RUSAGE_SELF): its
 * threads, mostly system time in the ioctl) is given beside it, a lower
 * bound of the job's cost.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "ibpost.h"

#define PROC_STAT	"/proc/stat"

struct run_cpu_mark {
	bool ok;
	unsigned long long idle;	/* idle + iowait, clock ticks */
	unsigned int ncpus;		/* "cpuN" lines */
	double t;			/* CLOCK_MONOTONIC, s */
	double proc;			/* user + system of this process, s */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double proc_s(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* The idle ticks of /proc/stat's "cpu" line into @m, and the CPUs. */
static bool read_stat(struct run_cpu_mark *m)
{
	unsigned long long v[5] = { 0 };
	char line[512];
	bool got = false;
	FILE *f;

	f = fopen(PROC_STAT, "r");
	if (!f)
		return false;
	m->ncpus = 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "cpu ", 4)) {
			/* user nice system idle iowait ... */
			got = sscanf(line + 4, "%llu %llu %llu %llu %llu", &v[0],
				     &v[1], &v[2], &v[3], &v[4]) == 5;
		} else if (!strncmp(line, "cpu", 3) && line[3] >= '0' &&
			   line[3] <= '9') {
			m->ncpus++;
		}
	}
	fclose(f);
	if (!got || !m->ncpus)
		return false;
	m->idle = v[3] + v[4];
	return true;
}

struct run_cpu_mark *runcpu_start(void)
{
	struct run_cpu_mark *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->proc = proc_s();
	m->ok = read_stat(m);
	m->t = now_s();
	return m;
}

void runcpu_stop(struct run_cpu_mark *m, struct run_cpu *c)
{
	struct run_cpu_mark e = { 0 };
	long hz = sysconf(_SC_CLK_TCK);

	memset(c, 0, sizeof(*c));
	if (!m)
		return;
	e.t = now_s();
	e.ok = read_stat(&e);
	e.proc = proc_s();
	if (m->ok && e.ok && e.idle >= m->idle && e.t > m->t && hz > 0) {
		c->valid = true;
		c->ncpus = e.ncpus;
		c->wall_s = e.t - m->t;
		/* what the CPUs did not idle (see above) */
		c->busy_s = c->wall_s * c->ncpus -
			    (double)(e.idle - m->idle) / hz;
		if (c->busy_s < 0)
			c->busy_s = 0;
		c->proc_s = e.proc - m->proc;
	}
	free(m);
}

double runcpu_pct(const struct run_cpu *c)
{
	return c->valid && c->wall_s > 0 ? 100.0 * c->busy_s / c->wall_s : 0;
}

double runcpu_s_per_gib(const struct run_cpu *c, unsigned long long bytes)
{
	return c->valid && bytes ? c->busy_s / (bytes / 1073741824.0) : 0;
}

/*
 * The server's CPU time over a peer job (IBPOST_RUN_PEER_CPU) as a run_cpu:
 * @proc_s is its connection thread's.  Invalid when the result has none.
 */
void runcpu_peer(const struct ibpost_result *r, struct run_cpu *c)
{
	memset(c, 0, sizeof(*c));
	if (!r->peer_cpu_ncpus)
		return;
	c->valid = true;
	c->ncpus = r->peer_cpu_ncpus;
	c->wall_s = r->peer_cpu_wall_ns / 1e9;
	c->busy_s = r->peer_cpu_busy_ns / 1e9;
	c->proc_s = r->peer_cpu_thread_ns / 1e9;
}
