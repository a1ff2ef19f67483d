// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost run --report-every SEC (and --run_infinitely, every 5 s): while
 * the jobs' IBPOST_IOC_RUN calls block, a thread of its own asks each
 * job's file for its counts (IBPOST_IOC_PROGRESS) every SEC and prints one
 * row: the counts so far, summed over the QPs, and the rates of the last
 * interval.  The counts are the kernel's live counters of the running
 * jobs, not the end result divided up.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "ibpost.h"

struct progress {
	const struct run_opts *o;
	const int *fds;
	unsigned int n;
	bool *header_done;		/* CSV: the header row is out */
	struct progress_row row;
	struct ibpost_progress *qp;	/* the last counts seen of each QP */
	pthread_t tid;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	struct timespec t0;		/* when the reporter started */
	double t_prev;			/* when the last row was taken */
	unsigned long long rows;	/* rows printed */
	unsigned long long wrs_prev, bytes_prev;
};

static double since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) + (now.tv_nsec - t0->tv_nsec) / 1e9;
}

/*
 * Ask every QP's file.  A QP whose job has not started or has ended
 * (ENOENT) keeps the counts last seen.  True when a job measures now:
 * only then is a row worth printing.
 */
static bool sample(struct progress *p)
{
	struct progress_row *r = &p->row;
	struct ibpost_progress q;
	bool measuring = false;
	unsigned int i;

	r->wrs = r->bytes = r->elapsed_ns = 0;
	r->wc_errors = 0;
	for (i = 0; i < p->n; i++) {
		memset(&q, 0, sizeof(q));
		q.size = sizeof(q);
		if (!ioctl(p->fds[i], IBPOST_IOC_PROGRESS, &q)) {
			p->qp[i] = q;
			measuring |= q.state == IBPOST_JOB_MEASURE;
		} else {
			p->qp[i].state = 0;	/* none now */
		}
		r->wrs += p->qp[i].wrs;
		r->bytes += p->qp[i].bytes;
		r->wc_errors += p->qp[i].wc_errors;
		if (p->qp[i].elapsed_ns > r->elapsed_ns)
			r->elapsed_ns = p->qp[i].elapsed_ns;
	}
	return measuring;
}

static void report(struct progress *p)
{
	struct progress_row *r = &p->row;
	double t = since(&p->t0);

	if (!sample(p))
		return;
	r->t_s = t;
	r->dt_s = t - p->t_prev;
	/* The first interval starts with the measuring, not the set-up. */
	if (!p->rows++ && r->elapsed_ns && r->elapsed_ns / 1e9 < r->dt_s)
		r->dt_s = r->elapsed_ns / 1e9;
	r->d_wrs = r->wrs - p->wrs_prev;
	r->d_bytes = r->bytes - p->bytes_prev;
	p->t_prev = t;
	p->wrs_prev = r->wrs;
	p->bytes_prev = r->bytes;
	if (p->o->csv && !*p->header_done) {
		runprint_csv_header(p->o);
		*p->header_done = true;
	}
	runprint_progress(p->o, r, p->qp);
}

static void *progress_main(void *arg)
{
	struct progress *p = arg;
	struct timespec next = p->t0;
	long step_ns = p->o->report_ms % 1000 * 1000000L;
	time_t step_s = p->o->report_ms / 1000;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		next.tv_sec += step_s;
		next.tv_nsec += step_ns;
		if (next.tv_nsec >= 1000000000) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000;
		}
		while (!p->stop &&
		       pthread_cond_timedwait(&p->cond, &p->lock, &next) != ETIMEDOUT)
			;
		if (p->stop)
			break;
		report(p);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/*
 * Start reporting on the files @fds of @n jobs of @bytes in @num_sge SGEs,
 * every o->report_ms.  The thread blocks every signal: SIGINT and SIGTERM
 * go to the threads in IBPOST_IOC_RUN, which they end.  NULL when
 * reporting is off or cannot start (said on stderr: the jobs run anyway).
 */
struct progress *progress_start(const struct run_opts *o, const int *fds,
				unsigned int n, unsigned long long bytes,
				unsigned int num_sge, bool *header_done)
{
	struct progress *p;
	pthread_condattr_t ca;
	sigset_t all, old;
	int err;

	if (!o->report_ms)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (p)
		p->qp = calloc(n, sizeof(*p->qp));
	if (!p || !p->qp) {
		free(p);
		fprintf(stderr, "%s: run: out of memory, no progress rows\n", prog);
		return NULL;
	}
	p->o = o;
	p->fds = fds;
	p->n = n;
	p->header_done = header_done;
	p->row.msg_bytes = bytes;
	p->row.num_sge = num_sge;
	p->row.nqps = n;
	pthread_mutex_init(&p->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cond, &ca);
	pthread_condattr_destroy(&ca);
	clock_gettime(CLOCK_MONOTONIC, &p->t0);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&p->tid, NULL, progress_main, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		fprintf(stderr, "%s: run: cannot start the progress thread: %s\n",
			prog, strerror(err));
		pthread_cond_destroy(&p->cond);
		pthread_mutex_destroy(&p->lock);
		free(p->qp);
		free(p);
		return NULL;
	}
	return p;
}

/* Stop reporting (before the results are printed); @p may be NULL. */
void progress_stop(struct progress *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->tid, NULL);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	free(p->qp);
	free(p);
}
