// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost run: the results on stdout, a perftest-like table (with --hist the
 * latency histograms after it), one JSON object, or CSV.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <string.h>

#include "ibpost.h"
#include "json.h"

double run_bw_mib(const struct ibpost_result *r)
{
	return r->elapsed_ns ? r->bytes * 1e9 / r->elapsed_ns / 1048576.0 : 0;
}

double run_bw_gbps(const struct ibpost_result *r)
{
	return r->elapsed_ns ? r->bytes * 8.0 / r->elapsed_ns : 0;
}

double run_mpps(const struct ibpost_result *r)
{
	return r->elapsed_ns ? r->wrs * 1e3 / r->elapsed_ns : 0;
}

static const char *peer_str(char *buf, size_t len, const struct run_opts *o)
{
	return net_addr_str(buf, len, o->peer.family, o->peer.addr);
}

static unsigned int peer_port(const struct run_opts *o)
{
	return o->peer.port ? o->peer.port : IBPOST_PEER_PORT;
}

/*
 * The column names.  Wide (--wide): both bandwidths (MiB/s unless
 * --report-gbits) and every latency.  Default, in 100 columns with -q:
 * one bandwidth (Gb/s with --report-gbits), no t_avg, shorter names; the
 * first four columns (size, SGEs, WRs, bandwidth) are the same in both.
 */
static void print_columns(const struct run_opts *o)
{
	if (o->qps > 1)
		printf("%-6s ", "#qp");
	if (!o->wide) {
		printf("%-8s %3s %9s %9s %7s %7s %7s %7s %7s %7s %s\n",
		       "#bytes", "sge", "#iters",
		       o->report_gbits ? "BW[Gb/s]" : "BW[MiB/s]", "Mpps",
		       "min_us", "med_us", "p99_us", "p999_us", "max_us",
		       "verify");
		return;
	}
	printf("%-9s %5s %9s ", "#bytes", "#sge", "#iters");
	if (!o->report_gbits)
		printf("%11s ", "BW[MiB/s]");
	printf("%9s %13s %10s %12s %10s %10s %12s %10s  %s\n", "BW[Gb/s]",
	       "MsgRate[Mpps]", "t_min[us]", "t_median[us]", "t_avg[us]",
	       "t_p99[us]", "t_p99.9[us]", "t_max[us]", "verify");
}

/* The text form's width, but with --wide. */
#define RUN_COLS	100

/* A '#' line of the text header, built piece by piece. */
struct hline {
	char buf[1024];
	size_t len;
};

static void hl_add(struct hline *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->len >= sizeof(l->buf) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(l->buf + l->len, sizeof(l->buf) - l->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->len += n;
	if (l->len > sizeof(l->buf) - 1)
		l->len = sizeof(l->buf) - 1;
}

/*
 * The line on stdout; without --wide broken after a ", " or "; " (else a
 * space) to fit RUN_COLS,
 * the rest on lines of their own that start "#   ".
 */
static void hl_end(const struct run_opts *o, struct hline *l)
{
	const char *p = l->buf, *cut;
	size_t room = RUN_COLS;
	size_t i;

	while (!o->wide && strlen(p) > room) {
		cut = NULL;
		for (i = 0; i + 1 < room && p[i + 1]; i++)
			if ((p[i] == ',' || p[i] == ';') && p[i + 1] == ' ')
				cut = p + i;
		for (i = room - 1; !cut && i > 4; i--)
			if (p[i] == ' ')
				cut = p + i - 1;
		if (!cut)
			break;
		printf("%.*s\n#   ", (int)(cut + 1 - p), p);
		p = cut + 2;
		room = RUN_COLS - 4;
	}
	printf("%s\n", p);
	l->len = 0;
	l->buf[0] = '\0';
}

/* What the rows measure: where the QPs are, and what t is. */
static void print_measures(const struct run_opts *o)
{
	char addr[INET6_ADDRSTRLEN];
	struct hline l = { .len = 0 };

	if (o->peer.family)
		hl_add(&l, "# measures: peer %s port %u ('%s serve' there holds the target QP)",
		       peer_str(addr, sizeof(addr), o), peer_port(o), prog);
	else
		hl_add(&l, "# measures: loopback (initiator and target QP both on %s)",
		       o->dev);
	if (o->pingpong)
		hl_add(&l, ", t = half a round trip (ping-pong, as ib_write_lat)");
	else
		hl_add(&l, ", t = post to completion of each WR");
	hl_end(o, &l);
	if (o->dev_why[0]) {
		hl_add(&l, "# no --dev: %s, %s", o->dev, o->dev_why);
		hl_end(o, &l);
	}
}

static void print_header(const struct run_opts *o, const struct ibpost_result *r)
{
	char addr[INET6_ADDRSTRLEN];
	struct hline l = { .len = 0 };

	print_measures(o);
	hl_add(&l, "# device %s", o->dev);
	if (o->port)
		hl_add(&l, " port %u", o->port);
	if (o->gid_index >= 0)
		hl_add(&l, " gid index %d", o->gid_index);
	if (o->peer.family)
		hl_add(&l, ", peer %s port %u", peer_str(addr, sizeof(addr), o),
		       peer_port(o));
	hl_add(&l, ", op %s, layout %s", out_op_name(o->op),
	       runopt_layout_name(o->layout));
	if (o->layout == IBPOST_LAYOUT_RANDOM)
		hl_add(&l, " (seed %llu)", o->seed);
	if (o->op <= IBPOST_OP_SEND_IMM)
		hl_add(&l, ", recv layout %s", runopt_layout_name(o->recv_layout));
	hl_add(&l, ", depth %u, batch %u, signal-every %u", o->depth, o->batch,
	       o->signal_every);
	if (o->inline_size_set)
		hl_add(&l, ", inline up to %u bytes", o->inline_size);
	else
		hl_add(&l, ", inline %s", o->inline_data ? "on" : "off");
	hl_add(&l, " (max_inline %u)", r->max_inline);
	if (o->forever)
		hl_add(&l, ", until SIGINT or SIGTERM");
	else if (o->duration_ms)
		hl_add(&l, ", duration %.3f s", o->duration_ms / 1000.0);
	hl_add(&l, ", warmup %u", o->warmup);
	if (o->pingpong)
		hl_add(&l, ", ping-pong (t = half a round trip)");
	hl_end(o, &l);
	if (o->bidir) {
		hl_add(&l, "# -b: both directions at once: a loopback's two directions are the same device and port, so each is a QP pair of its own, alike (qp0..qp%u and qp%u..qp%u); the total is both directions",
		       o->qps / 2 - 1, o->qps / 2, o->qps - 1);
		hl_end(o, &l);
	}
	if (o->rdma_cm && o->cm_family && !o->peer.family) {
		hl_add(&l, "# -R: the loopback pair connects through rdma_cm to %s",
		       net_addr_str(addr, sizeof(addr), o->cm_family, o->cm_addr));
		hl_end(o, &l);
	}
	if (o->qps > 1) {
		hl_add(&l, "# %u QPs at once, qp i on CPU i %% ncpus; total: bytes and WRs summed, bandwidth and rate over the longest elapsed time, t_min and t_max over all QPs, t_avg over all samples, t_median, t_p99 and t_p99.9 of the QPs' latency histograms merged (2 significant digits)",
		       o->qps);
		hl_end(o, &l);
	}
	print_columns(o);
}

/*
 * --cpu-util: the CPU cost of a point after its row (one QP's, or the
 * total of -q's): % of one CPU (every CPU's busy time over the window),
 * CPU-seconds per GiB, this process's part of the busy CPU-seconds.
 */
static void print_cpu(const struct run_opts *o, const struct run_row *w,
		      const char *label)
{
	const struct run_cpu *c = &w->cost;
	struct run_cpu srv;

	if (!c->valid)
		printf("# %s%scpu: unknown (/proc/stat unreadable)",
		       label ? label : "", label ? ": " : "");
	else
		printf("# %s%scpu: %.1f%% (%u CPUs), %.3f CPU-s/GiB; process %.2f of %.2f CPU-s",
		       label ? label : "", label ? ": " : "", runcpu_pct(c),
		       c->ncpus, runcpu_s_per_gib(c, w->res.bytes), c->proc_s,
		       c->busy_s);
	/* --connect: the server's figures over its window of the job */
	runcpu_peer(&w->res, &srv);
	if (!o->peer.family)
		printf("; server: n/a\n");
	else if (!srv.valid)
		printf("; server: not reported\n");
	else
		printf("; server: %.1f%% (%u CPUs), %.3f CPU-s/GiB; thread %.2f of %.2f CPU-s\n",
		       runcpu_pct(&srv), srv.ncpus,
		       runcpu_s_per_gib(&srv, w->res.bytes), srv.proc_s,
		       srv.busy_s);
}

/* One table row; @label (qp0, ..., total) in a first column with -q. */
static void print_row(const struct run_opts *o, const struct run_row *w,
		      const char *label)
{
	const struct ibpost_result *r = &w->res;
	char v[32], n[16];

	if (!o->verify)
		snprintf(v, sizeof(v), "off");
	else if (r->verify_errors && !o->wide)
		snprintf(v, sizeof(v), "FAIL(%s)",
			 out_count(n, sizeof(n), r->verify_errors));
	else if (r->verify_errors)
		snprintf(v, sizeof(v), "FAIL(%u)", r->verify_errors);
	else
		snprintf(v, sizeof(v), "ok");
	if (label)
		printf("%-6s ", label);
	if (!o->wide) {
		printf("%-8llu %3u %9llu %9.*f %7.3f %7.2f %7.2f %7.2f %7.2f %7.2f %s\n",
		       w->bytes, w->num_sge, (unsigned long long)r->wrs,
		       o->report_gbits ? 3 : 2,
		       o->report_gbits ? run_bw_gbps(r) : run_bw_mib(r), run_mpps(r),
		       r->lat_min_ns / 1e3, r->lat_median_ns / 1e3,
		       r->lat_p99_ns / 1e3, r->lat_p999_ns / 1e3,
		       r->lat_max_ns / 1e3, v);
		if (r->interrupted && !o->forever)
			printf("# %s%s(interrupted): the row above is what ran before the signal\n",
			       label ? label : "", label ? ": " : "");
	} else {
		printf("%-9llu %5u %9llu ", w->bytes, w->num_sge,
		       (unsigned long long)r->wrs);
		if (!o->report_gbits)
			printf("%11.2f ", run_bw_mib(r));
		printf("%9.3f %13.6f %10.2f %12.2f %10.2f %10.2f %12.2f %10.2f  %s%s\n",
		       run_bw_gbps(r), run_mpps(r), r->lat_min_ns / 1e3,
		       r->lat_median_ns / 1e3, r->lat_avg_ns / 1e3,
		       r->lat_p99_ns / 1e3, r->lat_p999_ns / 1e3,
		       r->lat_max_ns / 1e3, v,
		       r->interrupted && !o->forever ? " (interrupted)" : "");
	}
	if (o->cpu_util && (label ? w->total : true))
		print_cpu(o, w, label);
	if (r->lat_samples_capped && o->wide)
		printf("# %s%s%llu latency samples: t_median, t_p99, t_p99.9 from the histogram (2 significant digits) beyond %llu samples kept whole\n",
		       label ? label : "", label ? ": " : "",
		       (unsigned long long)r->lat_samples,
		       (unsigned long long)r->lat_samples_capped);
	else if (r->lat_samples_capped)
		printf("# %s%s%llu latency samples: med, p99, p999 from the histogram (2 digits) beyond %llu kept whole\n",
		       label ? label : "", label ? ": " : "",
		       (unsigned long long)r->lat_samples,
		       (unsigned long long)r->lat_samples_capped);
	fflush(stdout);
}

/* Most bars of a --hist histogram at 2 significant digits. */
#define HIST_BARS	40

/* @v with every digit after the first zeroed. */
static unsigned long long one_digit(unsigned long long v)
{
	unsigned long long p = 1;

	while (v / p >= 10)
		p *= 10;
	return v / p * p;
}

/*
 * --hist: the log-linear histogram of one row, a bar per non-empty bucket
 * (2 significant digits), or per first digit when that makes more than
 * HIST_BARS bars.
 */
static void print_hist(const struct run_row *w)
{
	static unsigned long long lo[IBPOST_HIST_LL_BUCKETS];
	static unsigned long long cnt[IBPOST_HIST_LL_BUCKETS];
	unsigned long long most = 0, key;
	unsigned int i, j, bar, n = 0, used = 0;
	bool coarse;

	if (!w->hist)
		return;
	for (i = 0; i < IBPOST_HIST_LL_BUCKETS; i++)
		used += w->hist[i] != 0;
	coarse = used > HIST_BARS;
	for (i = 0; i < IBPOST_HIST_LL_BUCKETS; i++) {
		if (!w->hist[i])
			continue;
		key = coarse ? one_digit(hist_lower(i)) : hist_lower(i);
		if (!n || lo[n - 1] != key) {
			lo[n] = key;
			cnt[n++] = 0;
		}
		cnt[n - 1] += w->hist[i];
		if (cnt[n - 1] > most)
			most = cnt[n - 1];
	}
	printf("\n# latency histogram, ");
	if (w->total)
		printf("total, ");
	else if (w->qp >= 0)
		printf("qp%d, ", w->qp);
	printf("%llu bytes, %u sge (%llu samples), buckets of %s significant digit%s\n",
	       w->bytes, w->num_sge, (unsigned long long)w->res.lat_samples,
	       coarse ? "1" : "2", coarse ? "" : "s");
	for (i = 0; i < n; i++) {
		bar = (cnt[i] * 50 + most - 1) / most;
		printf("  >= %12.3f us %10llu  ", lo[i] / 1e3, cnt[i]);
		for (j = 0; j < bar; j++)
			putchar('#');
		putchar('\n');
	}
}

/* The one JSON document of a run (its progress lines are their own). */
static struct json js;

static void json_sge_list(const char *key, const struct ibpost_sge_desc *d,
			  unsigned int n)
{
	unsigned int i;

	json_arr(&js, key);
	for (i = 0; i < n; i++) {
		json_obj(&js, NULL);
		json_u64(&js, "offset", d[i].offset);
		json_u64(&js, "length", d[i].length);
		json_end(&js);
	}
	json_end(&js);
}

/* Parameters of the options that are new with --connect, --cm-timeout, -q. */
static void json_peer_params(const struct run_opts *o)
{
	char addr[INET6_ADDRSTRLEN];

	if (o->peer.family) {
		json_str(&js, "connect", peer_str(addr, sizeof(addr), o));
		json_u64(&js, "cm_port", peer_port(o));
	}
	if (o->cm_timeout_set)
		json_u64(&js, "cm_timeout_ms", o->cm_timeout_ms);
	if (o->qps > 1)
		json_u64(&js, "qps", o->qps);
	if (o->bidir)
		json_bool(&js, "bidirectional", true);
	if (o->rdma_cm)
		json_bool(&js, "rdma_cm", true);
}

/* The document's opening: the device, the parameters, "results": [. */
static void json_params(const struct run_opts *o, unsigned int max_inline)
{
	json_start(&js, stdout);
	json_obj(&js, NULL);
	json_str(&js, "device", o->dev);
	json_str(&js, "op", out_op_name(o->op));
	json_obj(&js, "params");
	json_u64(&js, "port", o->port);
	json_str(&js, "layout", runopt_layout_name(o->layout));
	if (o->gid_index >= 0)
		json_i64(&js, "gid_index", o->gid_index);
	if (o->nsges)
		json_sge_list("sge_layout", o->sges, o->nsges);
	if (o->op <= IBPOST_OP_SEND_IMM) {
		json_str(&js, "recv_layout", runopt_layout_name(o->recv_layout));
		json_u64(&js, "recv_sge", o->recv_sge);
		if (o->nrsges)
			json_sge_list("recv_sge_layout", o->rsges, o->nrsges);
	}
	json_u64(&js, "seed", o->seed);
	json_u64(&js, "iters", o->iters);
	json_u64(&js, "duration_ms", o->duration_ms);
	json_u64(&js, "warmup", o->warmup);
	json_u64(&js, "depth", o->depth);
	json_u64(&js, "batch", o->batch);
	json_u64(&js, "signal_every", o->signal_every);
	json_u64(&js, "imm", o->imm);
	json_bool(&js, "inline", o->inline_data);
	json_bool(&js, "verify", o->verify);
	json_bool(&js, "pingpong", o->pingpong);
	json_u64(&js, "max_inline", max_inline);
	if (o->inline_size_set)
		json_u64(&js, "inline_size", o->inline_size);
	if (o->forever)
		json_bool(&js, "forever", true);
	if (o->report_ms)
		json_u64(&js, "report_every_ms", o->report_ms);
	json_peer_params(o);
	json_end(&js);
	json_arr(&js, "results");
}

/* "hist_ns": the non-empty buckets of @hist, [lower bound, count] each. */
static void json_hist(const __u64 *hist)
{
	unsigned int i;

	if (!hist)
		return;
	json_arr(&js, "hist_ns");
	for (i = 0; i < IBPOST_HIST_LL_BUCKETS; i++) {
		if (!hist[i])
			continue;
		json_arr(&js, NULL);
		json_u64(&js, NULL, hist_lower(i));
		json_u64(&js, NULL, hist[i]);
		json_end(&js);
	}
	json_end(&js);
}

static void json_lat(const char *key, const struct ibpost_result *r)
{
	json_obj(&js, key);
	json_u64(&js, "min", r->lat_min_ns);
	json_u64(&js, "median", r->lat_median_ns);
	json_u64(&js, "avg", r->lat_avg_ns);
	json_u64(&js, "stdev", r->lat_stdev_ns);
	json_u64(&js, "p99", r->lat_p99_ns);
	json_u64(&js, "p999", r->lat_p999_ns);
	json_u64(&js, "max", r->lat_max_ns);
	json_u64(&js, "samples", r->lat_samples);
	json_u64(&js, "samples_capped", r->lat_samples_capped);
	json_end(&js);
}

/* Bytes, WRs, time and the rates of @r, as rows and totals have them. */
static void json_rates(const struct ibpost_result *r)
{
	json_u64(&js, "elapsed_ns", r->elapsed_ns);
	json_dbl(&js, "bw_mib_s", run_bw_mib(r), 3);
	json_dbl(&js, "bw_gbps", run_bw_gbps(r), 4);
	json_dbl(&js, "mpps", run_mpps(r), 6);
}

static void json_wc(const struct ibpost_result *r)
{
	unsigned int i;

	json_u64(&js, "wc_errors", r->wc_errors);
	if (!r->wc_errors)
		return;
	json_obj(&js, "wc_status");
	for (i = 1; i < IBPOST_WC_STATUS_MAX; i++)
		if (r->wc_status[i])
			json_u64(&js, out_wc_status(i), r->wc_status[i]);
	json_end(&js);
	json_obj(&js, "first_err");
	json_str(&js, "status", out_wc_status(r->first_err_status));
	json_u64(&js, "vendor_err", r->first_err_vendor);
	json_u64(&js, "wr", r->first_err_wr);
	json_end(&js);
}

/* --cpu-util: "cpu", the cost of the point's window (this host's). */
static void json_cpu(const struct run_opts *o, const struct run_row *w)
{
	const struct run_cpu *c = &w->cost;
	struct run_cpu srv;

	if (!o->cpu_util)
		return;
	if (!c->valid) {
		json_null(&js, "cpu");
		return;
	}
	json_obj(&js, "cpu");
	json_str(&js, "source", "/proc/stat");
	json_u64(&js, "ncpus", c->ncpus);
	json_dbl(&js, "wall_s", c->wall_s, 3);
	json_dbl(&js, "busy_s", c->busy_s, 3);
	json_dbl(&js, "process_s", c->proc_s, 3);
	json_dbl(&js, "pct", runcpu_pct(c), 2);
	json_dbl(&js, "s_per_gib", runcpu_s_per_gib(c, w->res.bytes), 4);
	runcpu_peer(&w->res, &srv);
	if (!srv.valid) {
		json_null(&js, "server");
	} else {
		/* --connect: the server's, over its window of the job */
		json_obj(&js, "server");
		json_u64(&js, "ncpus", srv.ncpus);
		json_dbl(&js, "wall_s", srv.wall_s, 3);
		json_dbl(&js, "busy_s", srv.busy_s, 3);
		json_dbl(&js, "thread_s", srv.proc_s, 3);
		json_dbl(&js, "pct", runcpu_pct(&srv), 2);
		json_dbl(&js, "s_per_gib",
			 runcpu_s_per_gib(&srv, w->res.bytes), 4);
		json_end(&js);
	}
	json_end(&js);
}

static void json_row(const struct run_opts *o, const struct run_row *w)
{
	const struct ibpost_result *r = &w->res;
	unsigned int i;

	json_obj(&js, NULL);
	if (w->qp >= 0) {
		json_i64(&js, "qp", w->qp);
		json_i64(&js, "cpu", w->cpu);
	}
	json_u64(&js, "bytes", w->bytes);
	json_u64(&js, "num_sge", w->num_sge);
	json_u64(&js, "iters", r->wrs);
	json_rates(r);
	json_lat("lat_ns", r);
	json_hist(w->hist);
	json_arr(&js, "hist_log2_ns");
	for (i = 0; i < IBPOST_HIST_BUCKETS; i++) {
		if (!r->hist[i])
			continue;
		json_obj(&js, NULL);
		json_u64(&js, "ge_ns", 1ULL << i);
		json_u64(&js, "count", r->hist[i]);
		json_end(&js);
	}
	json_end(&js);
	json_wc(r);
	json_u64(&js, "verify_errors", r->verify_errors);
	if (r->verify_errors) {
		json_obj(&js, "verify_first");
		json_u64(&js, "wr", r->verify_wr);
		json_u64(&js, "sge", r->verify_sge);
		json_u64(&js, "offset", r->verify_offset);
		json_u64(&js, "expected", r->verify_expected);
		json_u64(&js, "got", r->verify_got);
		json_end(&js);
	}
	json_u64(&js, "sq_max_used", r->sq_max_used);
	json_bool(&js, "interrupted", r->interrupted);
	json_u64(&js, "qpn", r->qpn);
	json_u64(&js, "target_qpn", r->target_qpn);
	if (o->peer.family) {
		json_bool(&js, "peer", r->peer);
		json_u64(&js, "peer_conn", r->peer_conn);
		json_u64(&js, "peer_msgs", r->peer_msgs);
	}
	if (w->qp < 0)
		json_cpu(o, w);
	if (w->reason != IBPOST_R_NONE)
		json_str(&js, "error", ctl_reason_str(w->reason));
	json_end(&js);
}

/* The entry of "qps" of a QP that failed without a row (JSON). */
void runprint_json_qp_error(const struct run_opts *o, const struct qp_job *j,
			    int qp)
{
	const struct ibpost_run *r = &j->run;

	json_obj(&js, NULL);
	json_i64(&js, "qp", qp);
	json_i64(&js, "cpu", j->cpu);
	json_bool(&js, "refused", !j->no_thread && !r->result.posted);
	json_str(&js, "errno", strerror(j->err));
	json_str(&js, "error", j->no_thread ? "cannot start its thread" :
		 ctl_reason_str(r->status.reason));
	if (o->peer.family) {
		json_bool(&js, "peer", r->result.peer);
		json_u64(&js, "peer_conn", r->result.peer_conn);
	}
	json_end(&js);
}

/* The end of a -q point: its "qps" list closed, "total", the point closed. */
static void json_total(const struct run_opts *o, const struct run_row *w,
		       unsigned int nok, unsigned int nfail)
{
	const struct ibpost_result *r = &w->res;

	json_end(&js);
	json_obj(&js, "total");
	json_u64(&js, "qps_ok", nok);
	json_u64(&js, "qps_failed", nfail);
	json_u64(&js, "bytes", w->bytes);
	json_u64(&js, "num_sge", w->num_sge);
	json_u64(&js, "iters", r->wrs);
	json_u64(&js, "total_bytes", r->bytes);
	json_rates(r);
	json_lat("lat_ns", r);
	json_hist(w->hist);
	json_u64(&js, "wc_errors", r->wc_errors);
	json_u64(&js, "verify_errors", r->verify_errors);
	json_bool(&js, "interrupted", r->interrupted);
	if (o->peer.family)
		json_u64(&js, "peer_msgs", r->peer_msgs);
	json_cpu(o, w);
	json_end(&js);
	json_end(&js);
}

/* --csv: the one header row (--cpu-util: two columns more). */
void runprint_csv_header(const struct run_opts *o)
{
	printf("device,op,qp,bytes,num_sge,iters,elapsed_ns,bw_mib_s,bw_gbps,mpps,lat_min_ns,lat_median_ns,lat_avg_ns,lat_stdev_ns,lat_p99_ns,lat_p999_ns,lat_max_ns,wc_errors,verify_errors,sq_max_used,interrupted%s\n",
	       o->cpu_util ? ",cpu_pct,cpu_s_per_gib" : "");
}

/* --csv --cpu-util: the two columns of a row (empty: none or unknown). */
static void csv_cpu(const struct run_opts *o, const struct run_row *w,
		    bool result)
{
	if (!o->cpu_util)
		return;
	if (result && w->cost.valid)
		printf(",%.2f,%.4f", runcpu_pct(&w->cost),
		       runcpu_s_per_gib(&w->cost, w->res.bytes));
	else
		printf(",,");
}

/* --csv: one result; @label "" (one QP), qp0, ... or total. */
static void csv_row(const struct run_opts *o, const struct run_row *w,
		    const char *label)
{
	const struct ibpost_result *r = &w->res;

	/* device names are one word without commas (IB_DEVICE_NAME_MAX) */
	printf("%s,%s,%s,%llu,%u,%llu,%llu,%.3f,%.4f,%.6f,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%u,%u,%u,%d",
	       o->dev, out_op_name(o->op), label ? label : "", w->bytes,
	       w->num_sge, (unsigned long long)r->wrs,
	       (unsigned long long)r->elapsed_ns, run_bw_mib(r), run_bw_gbps(r),
	       run_mpps(r), (unsigned long long)r->lat_min_ns,
	       (unsigned long long)r->lat_median_ns,
	       (unsigned long long)r->lat_avg_ns,
	       (unsigned long long)r->lat_stdev_ns,
	       (unsigned long long)r->lat_p99_ns,
	       (unsigned long long)r->lat_p999_ns,
	       (unsigned long long)r->lat_max_ns, r->wc_errors,
	       r->verify_errors, r->sq_max_used, r->interrupted ? 1 : 0);
	csv_cpu(o, w, label ? w->total || !*label : true);
	printf("\n");
	fflush(stdout);
}

static const char *const job_states[] = {
	[0] = "none",
	[IBPOST_JOB_SETUP] = "setup",
	[IBPOST_JOB_WARMUP] = "warmup",
	[IBPOST_JOB_MEASURE] = "measure",
	[IBPOST_JOB_ENDING] = "ending",
};

static const char *job_state(unsigned int state)
{
	return state < ARRAY_SIZE(job_states) ? job_states[state] : "unknown";
}

/* Bytes and WRs per second of @bytes and @wrs in @ns. */
static double rate_mib(unsigned long long bytes, double ns)
{
	return ns > 0 ? bytes * 1e9 / ns / 1048576.0 : 0;
}

static double rate_gbps(unsigned long long bytes, double ns)
{
	return ns > 0 ? bytes * 8.0 / ns : 0;
}

static double rate_mpps(unsigned long long wrs, double ns)
{
	return ns > 0 ? wrs * 1e3 / ns : 0;
}

/* The progress header: wide, both bandwidths; default, one (in 100 columns). */
static void progress_columns(const struct run_opts *o,
			     const struct progress_row *r)
{
	const char *bw = o->report_gbits ? "BW[Gb/s]" : "BW[MiB/s]";
	const char *avg = o->report_gbits ? "avg_BW[Gb/s]" : "avg_BW[MiB/s]";

	struct hline l = { .len = 0 };

	hl_add(&l, "# progress every %.3g s (%u QP%s): t since the start; iters so far, +iters in the interval; BW and MsgRate of the interval, avg_* over the measured time so far",
	       o->report_ms / 1000.0, r->nqps, r->nqps > 1 ? "s, summed" : "");
	hl_end(o, &l);
	printf("%-9s %8s %12s %10s ", "#progress", "t[s]", "iters", "+iters");
	if (!o->wide) {
		printf("%10s %8s %13s %8s %6s\n", bw, "Mpps", avg, "avg_Mpps",
		       "wc_err");
		return;
	}
	if (!o->report_gbits)
		printf("%11s ", "BW[MiB/s]");
	printf("%9s %13s ", "BW[Gb/s]", "MsgRate[Mpps]");
	if (!o->report_gbits)
		printf("%15s ", "avg_BW[MiB/s]");
	printf("%13s %14s %9s\n", "avg_BW[Gb/s]", "avg_Mpps", "wc_errors");
}

static void text_progress(const struct run_opts *o, const struct progress_row *r)
{
	static bool header;
	double dt = r->dt_s * 1e9, el = r->elapsed_ns;
	int prec = o->report_gbits ? 3 : 2;

	if (!header) {
		header = true;
		progress_columns(o, r);
	}
	printf("%-9s %8.3f %12llu %10llu ", "progress", r->t_s, r->wrs,
	       r->d_wrs);
	if (!o->wide) {
		printf("%10.*f %8.4f %13.*f %8.4f %6u\n", prec,
		       o->report_gbits ? rate_gbps(r->d_bytes, dt) :
		       rate_mib(r->d_bytes, dt), rate_mpps(r->d_wrs, dt), prec,
		       o->report_gbits ? rate_gbps(r->bytes, el) :
		       rate_mib(r->bytes, el), rate_mpps(r->wrs, el),
		       r->wc_errors);
		return;
	}
	if (!o->report_gbits)
		printf("%11.2f ", rate_mib(r->d_bytes, dt));
	printf("%9.3f %13.6f ", rate_gbps(r->d_bytes, dt),
	       rate_mpps(r->d_wrs, dt));
	if (!o->report_gbits)
		printf("%15.2f ", rate_mib(r->bytes, el));
	printf("%13.3f %14.6f %9u\n", rate_gbps(r->bytes, el),
	       rate_mpps(r->wrs, el), r->wc_errors);
}

/* One progress object, a document on a line of its own. */
static void json_progress(const struct progress_row *r,
			  const struct ibpost_progress *qp)
{
	double dt = r->dt_s * 1e9, el = r->elapsed_ns;
	struct json j;
	unsigned int i;

	json_start(&j, stdout);
	json_obj(&j, NULL);
	json_obj(&j, "progress");
	json_dbl(&j, "t_s", r->t_s, 3);
	json_u64(&j, "bytes", r->msg_bytes);
	json_u64(&j, "num_sge", r->num_sge);
	json_u64(&j, "iters", r->wrs);
	json_u64(&j, "total_bytes", r->bytes);
	json_u64(&j, "elapsed_ns", r->elapsed_ns);
	json_dbl(&j, "bw_mib_s", rate_mib(r->bytes, el), 3);
	json_dbl(&j, "bw_gbps", rate_gbps(r->bytes, el), 4);
	json_dbl(&j, "mpps", rate_mpps(r->wrs, el), 6);
	json_u64(&j, "wc_errors", r->wc_errors);
	json_obj(&j, "interval");
	json_dbl(&j, "s", r->dt_s, 3);
	json_u64(&j, "iters", r->d_wrs);
	json_u64(&j, "total_bytes", r->d_bytes);
	json_dbl(&j, "bw_mib_s", rate_mib(r->d_bytes, dt), 3);
	json_dbl(&j, "bw_gbps", rate_gbps(r->d_bytes, dt), 4);
	json_dbl(&j, "mpps", rate_mpps(r->d_wrs, dt), 6);
	json_end(&j);
	json_arr(&j, "qps");
	for (i = 0; i < r->nqps; i++) {
		json_obj(&j, NULL);
		json_u64(&j, "qp", i);
		json_str(&j, "state", job_state(qp[i].state));
		json_u64(&j, "iters", qp[i].wrs);
		json_u64(&j, "total_bytes", qp[i].bytes);
		json_u64(&j, "elapsed_ns", qp[i].elapsed_ns);
		json_u64(&j, "wc_errors", qp[i].wc_errors);
		json_u64(&j, "qpn", qp[i].qpn);
		json_end(&j);
	}
	json_end_all(&j);
}

/* --csv: the counts so far as a result row labelled "progress". */
static void csv_progress(const struct run_opts *o, const struct progress_row *r)
{
	double el = r->elapsed_ns;

	printf("%s,%s,progress,%llu,%u,%llu,%llu,%.3f,%.4f,%.6f,,,,,,,,%u,,,0%s\n",
	       o->dev, out_op_name(o->op), r->msg_bytes, r->num_sge, r->wrs,
	       r->elapsed_ns, rate_mib(r->bytes, el), rate_gbps(r->bytes, el),
	       rate_mpps(r->wrs, el), r->wc_errors, o->cpu_util ? ",," : "");
}

/*
 * One progress row (the progress thread's, while the jobs run): a text
 * row (a header before the first), one JSON object on a line of its own,
 * or a CSV row whose qp column says "progress" and whose figures are those
 * of the measured time so far (the interval's are the difference of two
 * rows); @qp: the last counts of each QP.
 */
void runprint_progress(const struct run_opts *o, const struct progress_row *r,
		       const struct ibpost_progress *qp)
{
	if (o->json)
		json_progress(r, qp);
	else if (o->csv)
		csv_progress(o, r);
	else
		text_progress(o, r);
	fflush(stdout);
}

/* The header: JSON parameters, CSV's header row, or the text header. */
void runprint_start(const struct run_opts *o, const struct ibpost_result *r)
{
	if (o->json)
		json_params(o, r->max_inline);
	else if (o->csv)
		runprint_csv_header(o);
	else
		print_header(o, r);
}

/*
 * One row: a JSON object (the next of its list), or a table row
 * with @label (qp0, ...) in a first column, none when NULL.
 */
void runprint_row(const struct run_opts *o, const struct run_row *w,
		  const char *label)
{
	if (o->json)
		json_row(o, w);
	else if (o->csv)
		csv_row(o, w, label);
	else
		print_row(o, w, label);
}

/* JSON: the opening of one -q point, its QPs' list follows. */
void runprint_json_point(unsigned long long bytes, unsigned int num_sge)
{
	json_obj(&js, NULL);
	json_u64(&js, "bytes", bytes);
	json_u64(&js, "num_sge", num_sge);
	json_arr(&js, "qps");
}

/* The total of a -q point: JSON object, or a "total" row when @nok. */
void runprint_total(const struct run_opts *o, const struct run_row *w,
		    unsigned int nok, unsigned int nfail)
{
	if (o->json)
		json_total(o, w, nok, nfail);
	else if (nok && o->csv)
		csv_row(o, w, "total");
	else if (nok)
		print_row(o, w, "total");
}

/*
 * The end of the output: JSON closes its object (printing the parameters
 * if no run ever @started), text adds the histograms with --hist.
 */
void runprint_end(const struct run_opts *o, bool started,
		  const struct run_row *rows, unsigned int nrows)
{
	unsigned int i;

	if (o->json) {
		if (!started)
			json_params(o, 0);
		json_end_all(&js);
		return;
	}
	if (o->hist && !o->csv)
		for (i = 0; i < nrows; i++)
			print_hist(&rows[i]);
}
