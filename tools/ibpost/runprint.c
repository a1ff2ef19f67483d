// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost run: the results on stdout, a perftest-like table (with --hist the
 * latency histograms after it), one JSON object, or CSV.
 */
#include <arpa/inet.h>
#include <string.h>

#include "ibpost.h"

static double bw_mib(const struct ibpost_result *r)
{
	return r->elapsed_ns ? r->bytes * 1e9 / r->elapsed_ns / 1048576.0 : 0;
}

static double bw_gbps(const struct ibpost_result *r)
{
	return r->elapsed_ns ? r->bytes * 8.0 / r->elapsed_ns : 0;
}

static double mpps(const struct ibpost_result *r)
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

static void print_columns(const struct run_opts *o)
{
	if (o->qps > 1)
		printf("%-6s ", "#qp");
	printf("%-9s %5s %9s ", "#bytes", "#sge", "#iters");
	if (!o->report_gbits)
		printf("%11s ", "BW[MiB/s]");
	printf("%9s %13s %10s %12s %10s %10s %12s %10s  %s\n", "BW[Gb/s]",
	       "MsgRate[Mpps]", "t_min[us]", "t_median[us]", "t_avg[us]",
	       "t_p99[us]", "t_p99.9[us]", "t_max[us]", "verify");
}

/* What the rows measure: where the QPs are, and what t is. */
static void print_measures(const struct run_opts *o)
{
	char addr[INET6_ADDRSTRLEN];

	if (o->peer.family)
		printf("# measures: peer %s port %u ('%s serve' there holds the target QP)",
		       peer_str(addr, sizeof(addr), o), peer_port(o), prog);
	else
		printf("# measures: loopback (initiator and target QP both on %s)",
		       o->dev);
	if (o->pingpong)
		printf(", t = half a round trip (ping-pong, as ib_write_lat)\n");
	else
		printf(", t = post to completion of each WR\n");
	if (o->dev_why[0])
		printf("# no --dev: %s, %s\n", o->dev, o->dev_why);
}

static void print_header(const struct run_opts *o, const struct ibpost_result *r)
{
	char addr[INET6_ADDRSTRLEN];

	print_measures(o);
	printf("# device %s", o->dev);
	if (o->port)
		printf(" port %u", o->port);
	if (o->gid_index >= 0)
		printf(" gid index %d", o->gid_index);
	if (o->peer.family)
		printf(", peer %s port %u", peer_str(addr, sizeof(addr), o),
		       peer_port(o));
	printf(", op %s, layout %s", out_op_name(o->op),
	       runopt_layout_name(o->layout));
	if (o->layout == IBPOST_LAYOUT_RANDOM)
		printf(" (seed %llu)", o->seed);
	if (o->op <= IBPOST_OP_SEND_IMM)
		printf(", recv layout %s", runopt_layout_name(o->recv_layout));
	printf(", depth %u, batch %u, signal-every %u", o->depth, o->batch,
	       o->signal_every);
	if (o->inline_size_set)
		printf(", inline up to %u bytes", o->inline_size);
	else
		printf(", inline %s", o->inline_data ? "on" : "off");
	printf(" (max_inline %u)", r->max_inline);
	if (o->forever)
		printf(", until SIGINT or SIGTERM");
	else if (o->duration_ms)
		printf(", duration %.3f s", o->duration_ms / 1000.0);
	printf(", warmup %u", o->warmup);
	if (o->pingpong)
		printf(", ping-pong (t = half a round trip)");
	printf("\n");
	if (o->qps > 1)
		printf("# %u QPs at once, qp i on CPU i %% ncpus; total: bytes and WRs summed, bandwidth and rate over the longest elapsed time, t_min and t_max over all QPs, t_avg over all samples, t_median, t_p99 and t_p99.9 of the QPs' latency histograms merged (2 significant digits)\n",
		       o->qps);
	print_columns(o);
}

/* One table row; @label (qp0, ..., total) in a first column with -q. */
static void print_row(const struct run_opts *o, const struct run_row *w,
		      const char *label)
{
	const struct ibpost_result *r = &w->res;
	char v[32];

	if (!o->verify)
		snprintf(v, sizeof(v), "off");
	else if (r->verify_errors)
		snprintf(v, sizeof(v), "FAIL(%u)", r->verify_errors);
	else
		snprintf(v, sizeof(v), "ok");
	if (label)
		printf("%-6s ", label);
	printf("%-9llu %5u %9llu ", w->bytes, w->num_sge,
	       (unsigned long long)r->wrs);
	if (!o->report_gbits)
		printf("%11.2f ", bw_mib(r));
	printf("%9.3f %13.6f %10.2f %12.2f %10.2f %10.2f %12.2f %10.2f  %s%s\n",
	       bw_gbps(r), mpps(r), r->lat_min_ns / 1e3, r->lat_median_ns / 1e3,
	       r->lat_avg_ns / 1e3, r->lat_p99_ns / 1e3, r->lat_p999_ns / 1e3,
	       r->lat_max_ns / 1e3, v,
	       r->interrupted && !o->forever ? " (interrupted)" : "");
	if (r->lat_samples_capped)
		printf("# %s%s%llu latency samples: t_median, t_p99, t_p99.9 from the histogram (2 significant digits) beyond %llu samples kept whole\n",
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

static void json_sge_list(const char *key, const struct ibpost_sge_desc *d,
			  unsigned int n)
{
	unsigned int i;

	printf(", \"%s\": [", key);
	for (i = 0; i < n; i++)
		printf("%s{\"offset\": %u, \"length\": %u}", i ? ", " : "",
		       d[i].offset, d[i].length);
	printf("]");
}

/* Parameters of the options that are new with --connect, --cm-timeout, -q. */
static void json_peer_params(const struct run_opts *o)
{
	char addr[INET6_ADDRSTRLEN];

	if (o->peer.family) {
		printf(", \"connect\": ");
		out_json_str(stdout, peer_str(addr, sizeof(addr), o));
		printf(", \"cm_port\": %u", peer_port(o));
	}
	if (o->cm_timeout_set)
		printf(", \"cm_timeout_ms\": %u", o->cm_timeout_ms);
	if (o->qps > 1)
		printf(", \"qps\": %u", o->qps);
}

static void json_params(const struct run_opts *o, unsigned int max_inline)
{
	printf("{\"device\": ");
	out_json_str(stdout, o->dev);
	printf(", \"op\": \"%s\", \"params\": {\"port\": %u, \"layout\": \"%s\"",
	       out_op_name(o->op), o->port, runopt_layout_name(o->layout));
	if (o->gid_index >= 0)
		printf(", \"gid_index\": %d", o->gid_index);
	if (o->nsges)
		json_sge_list("sge_layout", o->sges, o->nsges);
	if (o->op <= IBPOST_OP_SEND_IMM) {
		printf(", \"recv_layout\": \"%s\", \"recv_sge\": %u",
		       runopt_layout_name(o->recv_layout), o->recv_sge);
		if (o->nrsges)
			json_sge_list("recv_sge_layout", o->rsges, o->nrsges);
	}
	printf(", \"seed\": %llu, \"iters\": %llu, \"duration_ms\": %u, \"warmup\": %u, \"depth\": %u, \"batch\": %u, \"signal_every\": %u, \"imm\": %u, \"inline\": %s, \"verify\": %s, \"pingpong\": %s, \"max_inline\": %u",
	       o->seed, o->iters, o->duration_ms, o->warmup, o->depth, o->batch,
	       o->signal_every, o->imm, o->inline_data ? "true" : "false",
	       o->verify ? "true" : "false", o->pingpong ? "true" : "false",
	       max_inline);
	if (o->inline_size_set)
		printf(", \"inline_size\": %u", o->inline_size);
	if (o->forever)
		printf(", \"forever\": true");
	if (o->report_ms)
		printf(", \"report_every_ms\": %u", o->report_ms);
	json_peer_params(o);
	printf("}, \"results\": [");
}

/* "hist_ns": the non-empty buckets of @hist, [lower bound, count] each. */
static void json_hist(const __u64 *hist)
{
	unsigned int i;
	bool any = false;

	if (!hist)
		return;
	printf(", \"hist_ns\": [");
	for (i = 0; i < IBPOST_HIST_LL_BUCKETS; i++) {
		if (!hist[i])
			continue;
		printf("%s[%llu, %llu]", any ? ", " : "", hist_lower(i),
		       (unsigned long long)hist[i]);
		any = true;
	}
	printf("]");
}

static void json_lat(const char *key, const struct ibpost_result *r,
		     bool samples)
{
	printf(", \"%s\": {\"min\": %llu, \"median\": %llu, \"avg\": %llu, \"stdev\": %llu, \"p99\": %llu, \"p999\": %llu, \"max\": %llu",
	       key, (unsigned long long)r->lat_min_ns,
	       (unsigned long long)r->lat_median_ns,
	       (unsigned long long)r->lat_avg_ns,
	       (unsigned long long)r->lat_stdev_ns,
	       (unsigned long long)r->lat_p99_ns,
	       (unsigned long long)r->lat_p999_ns,
	       (unsigned long long)r->lat_max_ns);
	if (samples)
		printf(", \"samples\": %llu, \"samples_capped\": %llu",
		       (unsigned long long)r->lat_samples,
		       (unsigned long long)r->lat_samples_capped);
	printf("}");
}

static void json_wc(const struct ibpost_result *r)
{
	unsigned int i;
	bool any = false;

	printf(", \"wc_errors\": %u", r->wc_errors);
	if (!r->wc_errors)
		return;
	printf(", \"wc_status\": {");
	for (i = 1; i < IBPOST_WC_STATUS_MAX; i++) {
		if (!r->wc_status[i])
			continue;
		printf("%s\"%s\": %u", any ? ", " : "", out_wc_status(i),
		       r->wc_status[i]);
		any = true;
	}
	printf("}, \"first_err\": {\"status\": \"%s\", \"vendor_err\": %u, \"wr\": %u}",
	       out_wc_status(r->first_err_status), r->first_err_vendor,
	       r->first_err_wr);
}

static void json_row(const struct run_opts *o, const struct run_row *w,
		     bool first)
{
	const struct ibpost_result *r = &w->res;
	unsigned int i;
	bool any = false;

	printf("%s{", first ? "" : ", ");
	if (w->qp >= 0)
		printf("\"qp\": %d, \"cpu\": %d, ", w->qp, w->cpu);
	printf("\"bytes\": %llu, \"num_sge\": %u, \"iters\": %llu, \"elapsed_ns\": %llu, \"bw_mib_s\": %.3f, \"bw_gbps\": %.4f, \"mpps\": %.6f",
	       w->bytes, w->num_sge,
	       (unsigned long long)r->wrs, (unsigned long long)r->elapsed_ns,
	       bw_mib(r), bw_gbps(r), mpps(r));
	json_lat("lat_ns", r, true);
	json_hist(w->hist);
	printf(", \"hist_log2_ns\": [");
	for (i = 0; i < IBPOST_HIST_BUCKETS; i++) {
		if (!r->hist[i])
			continue;
		printf("%s{\"ge_ns\": %llu, \"count\": %llu}", any ? ", " : "",
		       1ULL << i, (unsigned long long)r->hist[i]);
		any = true;
	}
	printf("]");
	json_wc(r);
	printf(", \"verify_errors\": %u", r->verify_errors);
	if (r->verify_errors)
		printf(", \"verify_first\": {\"wr\": %u, \"sge\": %u, \"offset\": %u, \"expected\": %u, \"got\": %u}",
		       r->verify_wr, r->verify_sge, r->verify_offset,
		       r->verify_expected, r->verify_got);
	printf(", \"sq_max_used\": %u, \"interrupted\": %s",
	       r->sq_max_used, r->interrupted ? "true" : "false");
	printf(", \"qpn\": %u, \"target_qpn\": %u", r->qpn, r->target_qpn);
	if (o->peer.family)
		printf(", \"peer\": %s, \"peer_conn\": %u, \"peer_msgs\": %llu",
		       r->peer ? "true" : "false", r->peer_conn,
		       (unsigned long long)r->peer_msgs);
	if (w->reason != IBPOST_R_NONE) {
		printf(", \"error\": ");
		out_json_str(stdout, ctl_reason_str(w->reason));
	}
	printf("}");
}

/* The entry of "qps" of a QP that failed without a row (JSON). */
void runprint_json_qp_error(const struct run_opts *o, const struct qp_job *j,
			    int qp, bool first)
{
	const struct ibpost_run *r = &j->run;

	printf("%s{\"qp\": %d, \"cpu\": %d, \"refused\": %s, \"errno\": ",
	       first ? "" : ", ", qp, j->cpu,
	       !j->no_thread && !r->result.posted ? "true" : "false");
	out_json_str(stdout, strerror(j->err));
	printf(", \"error\": ");
	out_json_str(stdout, j->no_thread ? "cannot start its thread" :
		     ctl_reason_str(r->status.reason));
	if (o->peer.family)
		printf(", \"peer\": %s, \"peer_conn\": %u",
		       r->result.peer ? "true" : "false", r->result.peer_conn);
	printf("}");
}

static void json_total(const struct run_opts *o, const struct run_row *w,
		       unsigned int nok, unsigned int nfail)
{
	const struct ibpost_result *r = &w->res;

	printf("], \"total\": {\"qps_ok\": %u, \"qps_failed\": %u, \"bytes\": %llu, \"num_sge\": %u, \"iters\": %llu, \"total_bytes\": %llu, \"elapsed_ns\": %llu, \"bw_mib_s\": %.3f, \"bw_gbps\": %.4f, \"mpps\": %.6f",
	       nok, nfail, w->bytes, w->num_sge, (unsigned long long)r->wrs,
	       (unsigned long long)r->bytes,
	       (unsigned long long)r->elapsed_ns, bw_mib(r), bw_gbps(r),
	       mpps(r));
	json_lat("lat_ns", r, true);
	json_hist(w->hist);
	printf(", \"wc_errors\": %u, \"verify_errors\": %u, \"interrupted\": %s",
	       r->wc_errors, r->verify_errors,
	       r->interrupted ? "true" : "false");
	if (o->peer.family)
		printf(", \"peer_msgs\": %llu",
		       (unsigned long long)r->peer_msgs);
	printf("}}");
}

/* --csv: the one header row. */
void runprint_csv_header(void)
{
	printf("device,op,qp,bytes,num_sge,iters,elapsed_ns,bw_mib_s,bw_gbps,mpps,lat_min_ns,lat_median_ns,lat_avg_ns,lat_stdev_ns,lat_p99_ns,lat_p999_ns,lat_max_ns,wc_errors,verify_errors,sq_max_used,interrupted\n");
}

/* --csv: one result; @label "" (one QP), qp0, ... or total. */
static void csv_row(const struct run_opts *o, const struct run_row *w,
		    const char *label)
{
	const struct ibpost_result *r = &w->res;

	/* device names are one word without commas (IB_DEVICE_NAME_MAX) */
	printf("%s,%s,%s,%llu,%u,%llu,%llu,%.3f,%.4f,%.6f,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%u,%u,%u,%d\n",
	       o->dev, out_op_name(o->op), label ? label : "", w->bytes,
	       w->num_sge, (unsigned long long)r->wrs,
	       (unsigned long long)r->elapsed_ns, bw_mib(r), bw_gbps(r),
	       mpps(r), (unsigned long long)r->lat_min_ns,
	       (unsigned long long)r->lat_median_ns,
	       (unsigned long long)r->lat_avg_ns,
	       (unsigned long long)r->lat_stdev_ns,
	       (unsigned long long)r->lat_p99_ns,
	       (unsigned long long)r->lat_p999_ns,
	       (unsigned long long)r->lat_max_ns, r->wc_errors,
	       r->verify_errors, r->sq_max_used, r->interrupted ? 1 : 0);
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

static void text_progress(const struct run_opts *o, const struct progress_row *r)
{
	static bool header;
	double dt = r->dt_s * 1e9, el = r->elapsed_ns;

	if (!header) {
		header = true;
		printf("# progress every %.3g s (%u QP%s): t since the start; iters so far, +iters in the interval; BW and MsgRate of the interval, avg_* over the measured time so far\n",
		       o->report_ms / 1000.0, r->nqps, r->nqps > 1 ? "s, summed" : "");
		printf("%-9s %8s %12s %10s ", "#progress", "t[s]", "iters",
		       "+iters");
		if (!o->report_gbits)
			printf("%11s ", "BW[MiB/s]");
		printf("%9s %13s ", "BW[Gb/s]", "MsgRate[Mpps]");
		if (!o->report_gbits)
			printf("%15s ", "avg_BW[MiB/s]");
		printf("%13s %14s %9s\n", "avg_BW[Gb/s]", "avg_Mpps",
		       "wc_errors");
	}
	printf("%-9s %8.3f %12llu %10llu ", "progress", r->t_s, r->wrs,
	       r->d_wrs);
	if (!o->report_gbits)
		printf("%11.2f ", rate_mib(r->d_bytes, dt));
	printf("%9.3f %13.6f ", rate_gbps(r->d_bytes, dt),
	       rate_mpps(r->d_wrs, dt));
	if (!o->report_gbits)
		printf("%15.2f ", rate_mib(r->bytes, el));
	printf("%13.3f %14.6f %9u\n", rate_gbps(r->bytes, el),
	       rate_mpps(r->wrs, el), r->wc_errors);
}

static void json_progress(const struct progress_row *r,
			  const struct ibpost_progress *qp)
{
	double dt = r->dt_s * 1e9, el = r->elapsed_ns;
	unsigned int i;

	printf("{\"progress\": {\"t_s\": %.3f, \"bytes\": %llu, \"num_sge\": %u, \"iters\": %llu, \"total_bytes\": %llu, \"elapsed_ns\": %llu, \"bw_mib_s\": %.3f, \"bw_gbps\": %.4f, \"mpps\": %.6f, \"wc_errors\": %u",
	       r->t_s, r->msg_bytes, r->num_sge, r->wrs, r->bytes,
	       r->elapsed_ns, rate_mib(r->bytes, el), rate_gbps(r->bytes, el),
	       rate_mpps(r->wrs, el), r->wc_errors);
	printf(", \"interval\": {\"s\": %.3f, \"iters\": %llu, \"total_bytes\": %llu, \"bw_mib_s\": %.3f, \"bw_gbps\": %.4f, \"mpps\": %.6f}",
	       r->dt_s, r->d_wrs, r->d_bytes, rate_mib(r->d_bytes, dt),
	       rate_gbps(r->d_bytes, dt), rate_mpps(r->d_wrs, dt));
	printf(", \"qps\": [");
	for (i = 0; i < r->nqps; i++)
		printf("%s{\"qp\": %u, \"state\": \"%s\", \"iters\": %llu, \"total_bytes\": %llu, \"elapsed_ns\": %llu, \"wc_errors\": %u, \"qpn\": %u}",
		       i ? ", " : "", i, job_state(qp[i].state),
		       (unsigned long long)qp[i].wrs,
		       (unsigned long long)qp[i].bytes,
		       (unsigned long long)qp[i].elapsed_ns, qp[i].wc_errors,
		       qp[i].qpn);
	printf("]}}\n");
}

/* --csv: the counts so far as a result row labelled "progress". */
static void csv_progress(const struct run_opts *o, const struct progress_row *r)
{
	double el = r->elapsed_ns;

	printf("%s,%s,progress,%llu,%u,%llu,%llu,%.3f,%.4f,%.6f,,,,,,,,%u,,,0\n",
	       o->dev, out_op_name(o->op), r->msg_bytes, r->num_sge, r->wrs,
	       r->elapsed_ns, rate_mib(r->bytes, el), rate_gbps(r->bytes, el),
	       rate_mpps(r->wrs, el), r->wc_errors);
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
		runprint_csv_header();
	else
		print_header(o, r);
}

/*
 * One row: a JSON object (@first: the first of its list), or a table row
 * with @label (qp0, ...) in a first column, none when NULL.
 */
void runprint_row(const struct run_opts *o, const struct run_row *w,
		  const char *label, bool first)
{
	if (o->json)
		json_row(o, w, first);
	else if (o->csv)
		csv_row(o, w, label);
	else
		print_row(o, w, label);
}

/* JSON: the opening of one -q point, its QPs' list follows. */
void runprint_json_point(bool first, unsigned long long bytes,
			 unsigned int num_sge)
{
	printf("%s{\"bytes\": %llu, \"num_sge\": %u, \"qps\": [",
	       first ? "" : ", ", bytes, num_sge);
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
		printf("]}\n");
		return;
	}
	if (o->hist && !o->csv)
		for (i = 0; i < nrows; i++)
			print_hist(&rows[i]);
}
