// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost run: what comes after the results -- the JSON file with
 * perftest's keys (--out-json, --out-json-file), and the thresholds that
 * fail a run for CI (--min-bw, --min-mpps, --max-lat-p50, --max-lat-p99).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ibpost.h"
#include "json.h"

bool runreport_is_result(const struct run_opts *o, const struct run_row *w)
{
	if (w->reason != IBPOST_R_NONE)
		return false;
	return o->qps > 1 ? w->total : w->qp < 0;
}

/* perftest's name of the test ("RDMA_Write BW Test"). */
static const char *test_name(const struct run_opts *o)
{
	if (o->pingpong)
		return "RDMA_Write Latency Test";
	switch (o->op) {
	case IBPOST_OP_SEND:
	case IBPOST_OP_SEND_IMM:
		return "Send BW Test";
	case IBPOST_OP_READ:
		return "RDMA_Read BW Test";
	default:
		return "RDMA_Write BW Test";
	}
}

/* The module's record of the run's port (its first without -i), or NULL. */
static const struct ibpost_dev_attr *port_rec(const struct run_opts *o,
					      const struct ibpost_dev_attr *r,
					      unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(r[i].name, o->dev) && (!o->port || r[i].port == o->port))
			return &r[i];
	return NULL;
}

static void json_test_info(struct json *j, const struct run_opts *o,
			   const struct ibpost_dev_attr *port,
			   unsigned int max_inline)
{
	json_obj(j, "test_info");
	json_str(j, "test", test_name(o));
	json_str(j, "Dual_port", "OFF");
	json_str(j, "Device", o->dev);
	json_u64(j, "Number_of_qps", o->qps);
	json_str(j, "Transport_type", "IB");
	json_str(j, "Connection_type", "RC");
	json_str(j, "Using_SRQ", "OFF");
	json_u64(j, "TX_depth", o->depth);
	json_u64(j, "CQ_Moderation", o->signal_every);
	json_u64(j, "Post_List", o->batch);
	if (port) {
		json_u64(j, "Mtu", port->active_mtu);
		json_str(j, "Link_type",
			 port->link_layer == IBPOST_LINK_INFINIBAND ? "IB" :
			 out_link_layer(port->link_layer));
	}
	if (o->gid_index >= 0)
		json_i64(j, "GID_index", o->gid_index);
	json_u64(j, "Max_inline_data", max_inline);
	json_str(j, "rdma_cm_QPs", o->peer.family || o->cm_family ? "ON" : "OFF");
	json_str(j, "Data_ex_method", o->peer.family ? "rdma_cm" : "none (loopback)");
	json_str(j, "tool", "ibpost");
	json_end(j);
}

/*
 * One result with perftest's keys (and its latencies, in microseconds):
 * the member @key, or (NULL) an item of a list.
 */
static void json_result(struct json *j, const char *key,
			const struct run_opts *o, const struct run_row *w)
{
	const struct ibpost_result *r = &w->res;
	double bw = o->report_gbits ? run_bw_gbps(r) : run_bw_mib(r);

	json_obj(j, key);
	json_u64(j, "MsgSize", w->bytes);
	json_u64(j, "n_iterations", r->wrs);
	/* no peak is measured: the peak is the average, as perftest -N */
	json_dbl(j, "BW_peak", bw, 2);
	json_dbl(j, "BW_average", bw, 2);
	json_dbl(j, "MsgRate", run_mpps(r), 6);
	json_dbl(j, "t_min", r->lat_min_ns / 1e3, 2);
	json_dbl(j, "t_max", r->lat_max_ns / 1e3, 2);
	json_dbl(j, "t_typical", r->lat_median_ns / 1e3, 2);
	json_dbl(j, "t_avg", r->lat_avg_ns / 1e3, 2);
	json_dbl(j, "t_stdev", r->lat_stdev_ns / 1e3, 2);
	json_dbl(j, "percentile_99", r->lat_p99_ns / 1e3, 2);
	json_dbl(j, "percentile_99.9", r->lat_p999_ns / 1e3, 2);
	if (o->cpu_util && w->cost.valid) {
		/* perftest's CPU_util: the share of the whole machine */
		json_dbl(j, "CPU_util", runcpu_pct(&w->cost) / w->cost.ncpus, 2);
		json_dbl(j, "CPU_s_per_GiB",
			 runcpu_s_per_gib(&w->cost, r->bytes), 4);
	}
	json_end(j);
}

int runreport_json_file(const struct run_opts *o, int fd,
			const struct run_row *rows, unsigned int nrows,
			unsigned int max_inline)
{
	struct ibpost_dev_attr *ports;
	unsigned int i, n = 0, nports = 0;
	struct json j;
	FILE *f;

	for (i = 0; i < nrows; i++)
		n += runreport_is_result(o, &rows[i]);
	/* Mtu and Link_type: without them (no list) the keys are left out */
	ports = devices_fetch(fd, &nports);
	f = fopen(o->out_json_file, "w");
	if (!f) {
		fprintf(stderr, "%s: run: --out-json-file %s: %s\n", prog,
			o->out_json_file, strerror(errno));
		free(ports);
		return -1;
	}
	json_start(&j, f);
	json_obj(&j, NULL);
	json_test_info(&j, o, port_rec(o, ports, nports), max_inline);
	free(ports);
	/* one result: an object, as perftest writes it; a sweep: a list */
	if (n != 1)
		json_arr_lines(&j, "results");
	for (i = 0; i < nrows; i++)
		if (runreport_is_result(o, &rows[i]))
			json_result(&j, n == 1 ? "results" : NULL, o, &rows[i]);
	json_end_all(&j);
	if (fclose(f)) {
		fprintf(stderr, "%s: run: --out-json-file %s: %s\n", prog,
			o->out_json_file, strerror(errno));
		return -1;
	}
	return 0;
}

/* One threshold of one result: 0 met, 1 missed (said on stderr). */
static int check_limit(const struct run_row *w, const char *what, double v,
		       const char *opt, double limit, bool max, const char *unit)
{
	if (limit < 0 || (max ? v <= limit : v >= limit))
		return 0;
	fprintf(stderr, "%s: run: threshold missed: %llu bytes, %u sge: %s %.6g %s %s %s %g\n",
		prog, w->bytes, w->num_sge, what, v, unit,
		max ? "above" : "below", opt, limit);
	return 1;
}

int runreport_thresholds(const struct run_opts *o, const struct run_row *rows,
			 unsigned int nrows)
{
	const struct ibpost_result *r;
	unsigned int i, n = 0;

	for (i = 0; i < nrows; i++) {
		if (!runreport_is_result(o, &rows[i]))
			continue;
		r = &rows[i].res;
		n += check_limit(&rows[i], "bandwidth",
				 o->report_gbits ? run_bw_gbps(r) : run_bw_mib(r),
				 "--min-bw", o->min_bw, false,
				 o->report_gbits ? "Gb/s" : "MiB/s");
		n += check_limit(&rows[i], "message rate", run_mpps(r),
				 "--min-mpps", o->min_mpps, false, "Mpps");
		n += check_limit(&rows[i], "median latency",
				 r->lat_median_ns / 1e3, "--max-lat-p50",
				 o->max_p50_us, true, "us");
		n += check_limit(&rows[i], "p99 latency", r->lat_p99_ns / 1e3,
				 "--max-lat-p99", o->max_p99_us, true, "us");
	}
	return n ? RUN_EXIT_MISSED : 0;
}
