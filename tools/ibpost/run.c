// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost run: one transfer job per message size through IBPOST_IOC_RUN
 * (N at once with -q), reported like perftest.  Options are in runopt.c,
 * results in runprint.c, refusals and failures in runerr.c.
 */
#include <errno.h>
#include <stdint.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "ibpost.h"

/* SIGINT or SIGTERM came: the jobs end (with --forever, normally). */
static sig_atomic_t got_sigint;

static void on_sigint(int sig)
{
	(void)sig;
	__atomic_store_n(&got_sigint, 1, __ATOMIC_RELAXED);
}

static bool interrupted(void)
{
	return __atomic_load_n(&got_sigint, __ATOMIC_RELAXED);
}

/* Bytes per WR of @size (0: the sum of the explicit --sge-layout). */
static unsigned long long run_bytes(const struct run_opts *o,
				    unsigned long long size)
{
	unsigned long long sum = 0;
	unsigned int i;

	if (size || !o->nsges)
		return size;
	for (i = 0; i < o->nsges && i < o->sge[0]; i++)
		sum += o->sges[i].length;
	return sum;
}

/*
 * The IBPOST_IOC_RUN request of one job of @size bytes in @num_sge SGEs,
 * its latency histogram into @hist (IBPOST_HIST_LL_BUCKETS).
 */
static void fill_run(const struct run_opts *o, struct ibpost_run *r,
		     unsigned long long size, unsigned int num_sge,
		     __u64 *hist)
{
	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	r->flags = IBPOST_RUN_HIST;
	r->hist = (uintptr_t)hist;
	strcpy(r->dev, o->dev);
	r->port = o->port;
	r->op = o->op;
	r->msg_size = size;
	r->num_sge = num_sge;
	r->layout = o->layout;
	r->recv_layout = o->recv_layout;
	r->recv_num_sge = o->recv_sge;
	if (o->nsges)
		r->sges = (unsigned long)o->sges;
	if (o->nrsges)
		r->recv_sges = (unsigned long)o->rsges;
	r->seed = o->seed;
	r->iters = o->iters;
	r->duration_ms = o->duration_ms;
	r->warmup = o->warmup;
	r->depth = o->depth;
	r->batch = o->batch;
	r->signal_every = o->signal_every;
	r->imm_data = o->imm;
	if (o->inline_data ||
	    (o->inline_size_set && run_bytes(o, size) <= o->inline_size))
		r->flags |= IBPOST_RUN_INLINE;
	if (o->verify)
		r->flags |= IBPOST_RUN_VERIFY;
	if (o->pingpong)
		r->flags |= IBPOST_RUN_PINGPONG;
	if (o->cm_family) {
		r->flags |= IBPOST_RUN_CM;
		r->cm_family = o->cm_family;
		memcpy(r->cm_addr, o->cm_addr, sizeof(r->cm_addr));
	}
	if (o->peer.family) {
		r->flags |= IBPOST_RUN_PEER;
		r->cm_family = o->peer.family;
		memcpy(r->cm_addr, o->peer.addr, sizeof(r->cm_addr));
		r->cm_port = o->peer.port;
		if (o->cpu_util)
			r->flags |= IBPOST_RUN_PEER_CPU;
	}
	r->cm_timeout_ms = o->cm_timeout_ms;
	if (o->gid_index >= 0 && !o->gid_unused) {
		r->flags |= IBPOST_RUN_GID;
		r->gid_index = (unsigned int)o->gid_index;
	}
}

/* Refusals a sweep notes and steps over instead of failing. */
static bool skippable(const struct ibpost_run *r, int err)
{
	if (err != EINVAL)
		return false;
	switch (r->status.reason) {
	case IBPOST_R_LAYOUT_FIT:
	case IBPOST_R_SGE_ZERO:
	case IBPOST_R_INLINE_SIZE:
	case IBPOST_R_FRPL:
	case IBPOST_R_BUF_SIZE:
		return true;
	case IBPOST_R_MSG_SIZE:
	case IBPOST_R_SGE_RANGE:
		return r->msg_size < r->num_sge;
	default:
		return false;
	}
}

struct run_state {
	const struct run_opts *o;
	struct run_row *rows;
	unsigned int nrows;
	bool started;		/* header printed */
	bool sweep;		/* more than one run */
	struct run_cpu cpu;	/* --cpu-util: the point running now */
	unsigned int max_inline; /* of the first result */
};

static void start_output(struct run_state *s, const struct ibpost_result *r)
{
	if (s->started)
		return;
	s->started = true;
	s->max_inline = r->max_inline;
	runprint_start(s->o, r);
}

/* Bytes per WR of @r: its size, or what @res measured (explicit layouts). */
static unsigned long long msg_bytes(const struct ibpost_run *r,
				    const struct ibpost_result *res)
{
	if (r->msg_size || !res || !res->wrs)
		return r->msg_size;
	return res->bytes / res->wrs;
}

/* A copy of @n buckets of @hist (NULL: none, or out of memory). */
static __u64 *hist_dup(const __u64 *hist)
{
	size_t len = IBPOST_HIST_LL_BUCKETS * sizeof(*hist);
	__u64 *h;

	if (!hist)
		return NULL;
	h = malloc(len);
	if (h)
		memcpy(h, hist, len);
	return h;
}

/* Keep the row of @r and its histogram (for --hist) and return it. */
static struct run_row *keep_row(struct run_state *s, const struct ibpost_run *r,
				int qp, int cpu)
{
	struct run_row *w = &s->rows[s->nrows++];

	w->bytes = msg_bytes(r, &r->result);
	w->num_sge = r->num_sge;
	w->qp = qp;
	w->cpu = cpu;
	w->res = r->result;
	w->reason = r->status.reason;
	w->cost = s->cpu;
	if (r->flags & IBPOST_RUN_HIST)
		w->hist = hist_dup((const __u64 *)(uintptr_t)r->hist);
	return w;
}

static void add_row(struct run_state *s, const struct ibpost_run *r)
{
	struct run_row *w = keep_row(s, r, -1, -1);

	runprint_row(s->o, w, NULL);
}

/* One ioctl: 0 ok or skipped, 1 failed, 130 interrupted. */
static int run_one(int fd, struct run_state *s, unsigned long long size,
		   unsigned int num_sge)
{
	__u64 hist[IBPOST_HIST_LL_BUCKETS];
	struct progress *prog_thread;
	struct run_cpu_mark *mark;
	struct ibpost_run r;
	int err = 0;

	fill_run(s->o, &r, size, num_sge, hist);
	prog_thread = progress_start(s->o, &fd, 1, run_bytes(s->o, size),
				     num_sge, &s->started);
	mark = s->o->cpu_util ? runcpu_start() : NULL;
	if (ioctl(fd, IBPOST_IOC_RUN, &r))
		err = errno;
	runcpu_stop(mark, &s->cpu);
	progress_stop(prog_thread);
	if (!err) {
		start_output(s, &r.result);
		add_row(s, &r);
		return 0;
	}
	if (err == EINTR) {
		bool row = r.result.interrupted || r.result.wrs;

		if (row) {
			r.result.interrupted = 1;
			r.status.reason = IBPOST_R_NONE;
			start_output(s, &r.result);
			add_row(s, &r);
		}
		/* --forever: a signal is how the run ends */
		if (s->o->forever && row)
			return 0;
		fprintf(stderr, "%s: run interrupted\n", prog);
		return 130;
	}
	if (s->sweep && skippable(&r, err)) {
		runerr_skip(s->o, &r);
		return 0;
	}
	runerr_job(&r, err, -1);
	if (s->o->json && (r.status.reason == IBPOST_R_WC_ERROR ||
			   r.status.reason == IBPOST_R_VERIFY)) {
		start_output(s, &r.result);
		add_row(s, &r);
	}
	return 1;
}

/* How one job of a -q point ended. */
enum qp_end { QP_ROW, QP_EMPTY, QP_SKIP, QP_FAIL };

static enum qp_end qp_end(const struct run_state *s, struct qp_job *j)
{
	if (j->no_thread)
		return QP_FAIL;
	if (!j->err)
		return QP_ROW;
	if (j->err == EINTR) {
		if (!j->run.result.interrupted && !j->run.result.wrs)
			return QP_EMPTY;
		j->run.result.interrupted = 1;
		j->run.status.reason = IBPOST_R_NONE;
		return QP_ROW;
	}
	if (s->sweep && skippable(&j->run, j->err))
		return QP_SKIP;
	return QP_FAIL;
}

/* A QP that failed: its "qp I: " line, and its entry of "qps". */
static void report_qp_failure(struct run_state *s, struct qp_job *j, int qp)
{
	const struct run_opts *o = s->o;
	unsigned int reason = j->run.status.reason;

	runerr_qp(j, qp);
	if (!o->json)
		return;
	if (!j->no_thread &&
	    (reason == IBPOST_R_WC_ERROR || reason == IBPOST_R_VERIFY))
		runprint_row(o, keep_row(s, &j->run, qp, j->cpu), NULL);
	else
		runprint_json_qp_error(o, j, qp);
}

static void report_qp_row(struct run_state *s, struct qp_job *j, int qp)
{
	struct run_row *w = keep_row(s, &j->run, qp, j->cpu);
	char label[16];

	snprintf(label, sizeof(label), "qp%d", qp);
	runprint_row(s->o, w, label);
}

/*
 * The total row (text) or object (JSON) of the QPs that have a row, kept
 * (for --hist) when they do.
 */
static void report_total(struct run_state *s, const struct qp_job *jobs,
			 const struct ibpost_result *const *res,
			 const __u64 *const *hist, unsigned int nres,
			 unsigned int nfail)
{
	__u64 tot_hist[IBPOST_HIST_LL_BUCKETS];
	struct run_row w = { .qp = -1, .cpu = -1, .total = true,
			     .cost = s->cpu };

	qps_total(res, hist, nres, &w.res, tot_hist);
	w.bytes = msg_bytes(&jobs[0].run, &w.res);
	w.num_sge = jobs[0].run.num_sge;
	w.hist = tot_hist;
	runprint_total(s->o, &w, nres, nfail);
	if (nres) {
		w.hist = hist_dup(tot_hist);
		s->rows[s->nrows++] = w;
	}
}

/*
 * One -q point: the QPs in order (a row, or on stderr the message of one
 * that failed), then the total.  Without any row, text output stays empty
 * (like one refused QP); JSON still lists the QPs and their errors.
 */
static void print_point(struct run_state *s, struct qp_job *jobs,
			unsigned int n, const enum qp_end *end,
			const struct ibpost_result *const *res,
			const __u64 *const *hist, unsigned int nres,
			unsigned int nbad)
{
	bool open = nres || s->o->json;
	unsigned int i;

	if (open) {
		start_output(s, nres ? res[0] : &jobs[0].run.result);
		if (s->o->json)
			runprint_json_point(msg_bytes(&jobs[0].run,
						      nres ? res[0] : NULL),
					    jobs[0].run.num_sge);
	}
	for (i = 0; i < n; i++) {
		if (end[i] == QP_ROW)
			report_qp_row(s, &jobs[i], i);
		else if (end[i] != QP_EMPTY)
			report_qp_failure(s, &jobs[i], i);
	}
	if (open)
		report_total(s, jobs, res, hist, nres, nbad);
}

/* Sort out how the jobs of one -q point ended and print it: 0, 1 or 130. */
static int report_qps(struct run_state *s, struct qp_job *jobs, unsigned int n)
{
	const struct ibpost_result *res[RUN_MAX_QPS];
	const __u64 *hist[RUN_MAX_QPS];
	enum qp_end end[RUN_MAX_QPS];
	unsigned int i, nres = 0, nskip = 0, nfail = 0;
	bool intr = interrupted();

	for (i = 0; i < n; i++) {
		intr |= jobs[i].err == EINTR;
		end[i] = qp_end(s, &jobs[i]);
		if (end[i] == QP_ROW) {
			hist[nres] = jobs[i].hist;
			res[nres++] = &jobs[i].run.result;
		}
		nskip += end[i] == QP_SKIP;
		nfail += end[i] == QP_FAIL;
	}
	runerr_pins(jobs, n);
	if (nskip == n) {
		runerr_skip(s->o, &jobs[0].run);
		return 0;
	}
	if (nres || nfail + nskip)
		print_point(s, jobs, n, end, res, hist, nres, nfail + nskip);
	/* --forever: a signal is how the run ends */
	if (intr && !(s->o->forever && nres)) {
		fprintf(stderr, "%s: run interrupted\n", prog);
		return 130;
	}
	return nfail + nskip ? 1 : 0;
}

/* Close the files of the first @n jobs. */
static void close_fds(struct qp_job *jobs, int *fds, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		close(jobs[i].fd);
	free(fds);
	free(jobs);
}

/* -q N: the N jobs of one size and SGE count at once, each on its file. */
static int run_qps(struct run_state *s, unsigned long long size,
		   unsigned int num_sge)
{
	unsigned int i, n = s->o->qps;
	struct progress *prog_thread;
	struct run_cpu_mark *mark;
	struct qp_job *jobs;
	int rc, *fds;

	jobs = calloc(n, sizeof(*jobs));
	fds = calloc(n, sizeof(*fds));
	if (!jobs || !fds) {
		fprintf(stderr, "%s: out of memory\n", prog);
		close_fds(jobs, fds, 0);
		return 1;
	}
	for (i = 0; i < n; i++) {
		fill_run(s->o, &jobs[i].run, size, num_sge, jobs[i].hist);
		jobs[i].fd = fds[i] = ctl_open();
		if (jobs[i].fd < 0) {
			close_fds(jobs, fds, i);
			return 1;
		}
	}
	prog_thread = progress_start(s->o, fds, n, run_bytes(s->o, size),
				     num_sge, &s->started);
	mark = s->o->cpu_util ? runcpu_start() : NULL;
	rc = qps_run(jobs, n, SIGINT, interrupted);
	runcpu_stop(mark, &s->cpu);
	progress_stop(prog_thread);
	if (rc) {
		fprintf(stderr, "%s: run: cannot start %u jobs: %s\n", prog, n,
			strerror(errno));
		close_fds(jobs, fds, n);
		return 1;
	}
	rc = report_qps(s, jobs, n);
	close_fds(jobs, fds, n);
	return rc;
}

static int run_all(int fd, const struct run_opts *o)
{
	unsigned long long sizes[32];
	unsigned int nsizes = 0, i, j;
	struct run_state s = { .o = o };
	int rc = 0;

	if (o->all_sizes)
		for (i = 1; (1ULL << i) <= IBPOST_MAX_MSG; i++)
			sizes[nsizes++] = 1ULL << i;
	else
		sizes[nsizes++] = o->size;
	s.sweep = nsizes * o->nsge > 1;
	/* A row per job, and a total per -q point. */
	s.rows = calloc(nsizes * o->nsge * (o->qps + (o->qps > 1)),
			sizeof(*s.rows));
	if (!s.rows) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	for (j = 0; j < o->nsge && !rc; j++) {
		for (i = 0; i < nsizes && !rc; i++) {
			if (interrupted()) {
				fprintf(stderr, "%s: run interrupted\n", prog);
				rc = 130;
				break;
			}
			if (o->qps > 1)
				rc = run_qps(&s, sizes[i], o->sge[j]);
			else
				rc = run_one(fd, &s, sizes[i], o->sge[j]);
		}
	}
	if (s.started || o->json)
		runprint_end(o, s.started, s.rows, s.nrows);
	if (o->out_json_file && s.started &&
	    runreport_json_file(o, fd, s.rows, s.nrows, s.max_inline) && !rc)
		rc = 1;
	if (!rc)
		rc = runreport_thresholds(o, s.rows, s.nrows);
	for (i = 0; i < s.nrows; i++)
		free(s.rows[i].hist);
	free(s.rows);
	return rc;
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o;
	struct sigaction sa;
	int fd, rc;

	rc = runopt_parse(argc, argv, &o);
	if (rc >= 0)
		return rc;
	if (devpick(&o) || devpick_rdma_cm(&o))
		return 2;
	if (o.gid_unused)
		fprintf(stderr, "%s: run: note: -x %d is not used: through rdma_cm (%s) the source GID is the one of the address\n",
			prog, o.gid_index, o.peer.family ? "--connect" :
			o.rdma_cm ? "-R" : "--cm");
	if (o.print_opts) {
		runopt_print(&o);
		return 0;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;	/* no SA_RESTART: the ioctl returns EINTR */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	fd = ctl_open();
	if (fd < 0)
		return 1;
	rc = run_all(fd, &o);
	close(fd);
	return rc;
}
