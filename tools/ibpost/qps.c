// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost run -q N: N identical jobs at once, each its own IBPOST_IOC_RUN
 * (so its own QP pair, or its own connection to a server) on its own open
 * /dev/ibpost (where IBPOST_IOC_PROGRESS finds it), issued from its own
 * thread pinned to one CPU, and the sum of what they measured (their
 * latency histograms merged).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "ibpost.h"

/* How often the waiting thread looks for a stop request. */
#define QPS_POLL_NS	(100 * 1000 * 1000)

struct qp_thread {
	struct qp_job *job;
	int fd;
	bool (*stop)(void);
	sem_t *done_sem;
	pthread_t tid;
	bool started;
	int done;		/* set (atomically) when its ioctl returned */
};

static void *qp_main(void *arg)
{
	struct qp_thread *t = arg;
	struct qp_job *j = t->job;
	cpu_set_t set;

	if (j->cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(j->cpu, &set);
		j->pin_err = pthread_setaffinity_np(pthread_self(), sizeof(set),
						    &set);
	}
	if (t->stop())
		j->err = EINTR;
	else if (ioctl(t->fd, IBPOST_IOC_RUN, &j->run))
		j->err = errno;
	__atomic_store_n(&t->done, 1, __ATOMIC_RELEASE);
	sem_post(t->done_sem);
	return NULL;
}

/* The CPUs this process may run on (the online ones unless restricted). */
static unsigned int usable_cpus(int *cpus, unsigned int max)
{
	unsigned int n = 0;
	cpu_set_t set;
	long online;
	int c;

	if (!sched_getaffinity(0, sizeof(set), &set))
		for (c = 0; c < CPU_SETSIZE && n < max; c++)
			if (CPU_ISSET(c, &set))
				cpus[n++] = c;
	if (n)
		return n;
	online = sysconf(_SC_NPROCESSORS_ONLN);
	for (c = 0; c < online && n < max; c++)
		cpus[n++] = c;
	return n;
}

/* Interrupt every thread still in its ioctl with @sig. */
static void kick(struct qp_thread *t, unsigned int n, int sig)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (t[i].started && !__atomic_load_n(&t[i].done, __ATOMIC_ACQUIRE))
			pthread_kill(t[i].tid, sig);
}

/*
 * Wait for @started threads.  A signal may land on any thread of the
 * process; once @stop says so, every thread still running gets @sig too,
 * again at each poll in case one had not entered its ioctl yet.
 */
static void wait_all(struct qp_thread *t, unsigned int n,
		     unsigned int started, sem_t *sem, int sig,
		     bool (*stop)(void))
{
	unsigned int done = 0;
	struct timespec ts;

	for (;;) {
		if (stop())
			kick(t, n, sig);
		if (done == started)
			return;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += QPS_POLL_NS;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		if (!sem_timedwait(sem, &ts))
			done++;
	}
}

/*
 * Run the @n jobs at once, each on its @fd, thread i pinned to usable CPU
 * i % ncpus.  Each job's @err tells how its ioctl went.  -1 (errno set) when nothing could
 * be started at all.
 */
int qps_run(struct qp_job *jobs, unsigned int n, int sig, bool (*stop)(void))
{
	static int cpus[CPU_SETSIZE];
	unsigned int ncpus, i, started = 0;
	struct qp_thread *t;
	sem_t sem;
	int err;

	t = calloc(n, sizeof(*t));
	if (!t || sem_init(&sem, 0, 0)) {
		free(t);
		return -1;
	}
	ncpus = usable_cpus(cpus, CPU_SETSIZE);
	for (i = 0; i < n; i++) {
		jobs[i].cpu = ncpus ? cpus[i % ncpus] : -1;
		t[i].job = &jobs[i];
		t[i].fd = jobs[i].fd;
		t[i].stop = stop;
		t[i].done_sem = &sem;
		err = pthread_create(&t[i].tid, NULL, qp_main, &t[i]);
		if (err) {
			jobs[i].err = err;
			jobs[i].no_thread = true;
			continue;
		}
		t[i].started = true;
		started++;
	}
	wait_all(t, n, started, &sem, sig, stop);
	for (i = 0; i < n; i++)
		if (t[i].started)
			pthread_join(t[i].tid, NULL);
	sem_destroy(&sem);
	free(t);
	return 0;
}

static void add_one(struct ibpost_result *tot, const struct ibpost_result *r)
{
	unsigned int i;

	tot->bytes += r->bytes;
	tot->wrs += r->wrs;
	tot->posted += r->posted;
	tot->post_calls += r->post_calls;
	tot->lat_samples += r->lat_samples;
	if (r->elapsed_ns > tot->elapsed_ns)
		tot->elapsed_ns = r->elapsed_ns;
	for (i = 0; i < IBPOST_HIST_BUCKETS; i++)
		tot->hist[i] += r->hist[i];
	for (i = 0; i < IBPOST_WC_STATUS_MAX; i++)
		tot->wc_status[i] += r->wc_status[i];
	if (r->wc_errors && !tot->wc_errors) {
		tot->first_err_status = r->first_err_status;
		tot->first_err_vendor = r->first_err_vendor;
		tot->first_err_wr = r->first_err_wr;
	}
	tot->wc_errors += r->wc_errors;
	if (r->verify_errors && !tot->verify_errors) {
		tot->verify_wr = r->verify_wr;
		tot->verify_sge = r->verify_sge;
		tot->verify_offset = r->verify_offset;
		tot->verify_expected = r->verify_expected;
		tot->verify_got = r->verify_got;
	}
	tot->verify_errors += r->verify_errors;
	if (r->sq_max_used > tot->sq_max_used)
		tot->sq_max_used = r->sq_max_used;
	tot->interrupted |= r->interrupted;
	tot->peer |= r->peer;
	tot->peer_msgs += r->peer_msgs;
	/*
	 * The server's CPU time: each connection's window counts the whole
	 * host's, so the QPs' windows, which overlap, are not added up: the
	 * longest stands for them all.  Their threads' times are their own.
	 */
	tot->peer_cpu_thread_ns += r->peer_cpu_thread_ns;
	if (r->peer_cpu_ncpus && r->peer_cpu_wall_ns >= tot->peer_cpu_wall_ns) {
		tot->peer_cpu_wall_ns = r->peer_cpu_wall_ns;
		tot->peer_cpu_busy_ns = r->peer_cpu_busy_ns;
		tot->peer_cpu_ncpus = r->peer_cpu_ncpus;
	}
}

/*
 * The latency of all the samples of @n results: count, min and max over
 * all, mean and (population) standard deviation pooled from each one's,
 * median, p99 and p99.9 read off the sum of their histograms @tot_hist.
 */
static void lat_total(const struct ibpost_result *const *res, unsigned int n,
		      const __u64 *tot_hist, struct ibpost_result *tot)
{
	double sum = 0, sq = 0, mean, var;
	unsigned long long kept = 0;
	bool capped = false, any = false;
	unsigned int i;

	for (i = 0; i < n; i++) {
		const struct ibpost_result *r = res[i];
		double m = r->lat_avg_ns, sd = r->lat_stdev_ns;

		if (!r->lat_samples)
			continue;
		if (!any || r->lat_min_ns < tot->lat_min_ns)
			tot->lat_min_ns = r->lat_min_ns;
		if (r->lat_max_ns > tot->lat_max_ns)
			tot->lat_max_ns = r->lat_max_ns;
		any = true;
		sum += m * r->lat_samples;
		sq += (sd * sd + m * m) * r->lat_samples;
		capped |= r->lat_samples_capped != 0;
		kept += r->lat_samples_capped ? r->lat_samples_capped :
			r->lat_samples;
	}
	if (!tot->lat_samples)
		return;
	mean = sum / tot->lat_samples;
	var = sq / tot->lat_samples - mean * mean;
	tot->lat_avg_ns = mean + 0.5;
	tot->lat_stdev_ns = var > 0 ? sqrt(var) + 0.5 : 0;
	tot->lat_samples_capped = capped ? kept : 0;
	tot->lat_median_ns = hist_percentile(tot_hist, tot->lat_min_ns,
					     tot->lat_max_ns, 500);
	tot->lat_p99_ns = hist_percentile(tot_hist, tot->lat_min_ns,
					  tot->lat_max_ns, 990);
	tot->lat_p999_ns = hist_percentile(tot_hist, tot->lat_min_ns,
					   tot->lat_max_ns, 999);
}

/*
 * The "total" of @n results: counts summed, elapsed time the longest (so
 * bandwidth and message rate are the sums over the longest run), latency
 * over all the samples of all (lat_total()), the histograms @hist summed
 * into @tot_hist.
 */
void qps_total(const struct ibpost_result *const *res,
	       const __u64 *const *hist, unsigned int n,
	       struct ibpost_result *tot, __u64 *tot_hist)
{
	unsigned int i;

	memset(tot, 0, sizeof(*tot));
	memset(tot_hist, 0, IBPOST_HIST_LL_BUCKETS * sizeof(*tot_hist));
	for (i = 0; i < n; i++) {
		add_one(tot, res[i]);
		if (hist[i])
			hist_add(tot_hist, hist[i]);
	}
	if (!n)
		return;
	tot->max_inline = res[0]->max_inline;
	lat_total(res, n, tot_hist, tot);
}
