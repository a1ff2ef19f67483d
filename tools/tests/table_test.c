// SPDX-License-Identifier: GPL-2.0
/*
 * The text tables of the tool without a kernel, for tools/tests/host/cli.sh:
 * 'ibpost devices' (devtable.c) and the rows, totals and progress rows of
 * 'ibpost run' (runprint.c), fed sample records of a wide reach (long
 * device names, an IPv6 peer, -q, every lacking capability, large counts).
 * and the listening line of 'ibpost serve' (serve.c) with 0 to 64 --allow
 * networks, and what serve asks the kernel after --config (the defaults
 * of its command line kept).  Usage: table_test CASE, CASE one of devices, run, run-gbits,
 * progress[-wide][-gbits], serve.  Checks that every line of the default form is at most
 * 100 columns and that --wide has every column; prints "ok: WHAT" or
 * "FAIL: WHAT" lines (and the output of a failed case, or of every case
 * with TABLE_TEST_SHOW=1 in the environment), exit 1 on a FAIL.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../ibpost/ibpost.h"
/* its event lines are static: the file itself, its main entry unused */
#include "../ibpost/serve.c"

const char *prog = "ibpost";

/* version.c's, which needs the version the Makefile passes. */
int cmd_version(void)
{
	return 0;
}

/* runopt.c's, which needs the whole command line parser. */
const char *runopt_layout_name(unsigned int layout)
{
	return layout == IBPOST_LAYOUT_RANDOM ? "random" : "equal";
}

#define MAX_OUT		(64 * 1024)

static char out[MAX_OUT];
static int failed;

/* Run @fn(@arg) with stdout into out[]. */
static void capture(void (*fn)(const void *arg), const void *arg)
{
	FILE *t = tmpfile();
	int saved;
	size_t n;

	if (!t) {
		perror("tmpfile");
		exit(2);
	}
	fflush(stdout);
	saved = dup(1);
	dup2(fileno(t), 1);
	fn(arg);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	rewind(t);
	n = fread(out, 1, sizeof(out) - 1, t);
	out[n] = '\0';
	fclose(t);
}

static void check(bool ok, const char *what)
{
	printf("%s: %s\n", ok ? "ok" : "FAIL", what);
	if (!ok)
		failed = 1;
	if (!ok || getenv("TABLE_TEST_SHOW"))
		printf("--- output:\n%s---\n", out);
}

/* Every line of out[] at most @cols wide; @lines: how many there are. */
static bool fits(size_t cols, unsigned int *lines)
{
	const char *p = out, *nl;
	bool ok = true;

	*lines = 0;
	for (; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			return false;
		(*lines)++;
		if ((size_t)(nl - p) > cols) {
			printf("  %zu columns: %.*s\n", (size_t)(nl - p),
			       (int)(nl - p), p);
			ok = false;
		}
	}
	return ok;
}

/* Every word of @words (space-separated) in out[]. */
static bool has_all(const char *words)
{
	char copy[1024], *save = NULL, *w;
	bool ok = true;

	snprintf(copy, sizeof(copy), "%s", words);
	for (w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (!strstr(out, w)) {
			printf("  missing '%s'\n", w);
			ok = false;
		}
	}
	return ok;
}

/* The number of fields (runs of non-blanks) of the line of out[] at @line. */
static unsigned int fields(const char *line)
{
	unsigned int n = 0;
	bool in = false;

	for (; *line && *line != '\n'; line++) {
		if (*line != ' ' && !in)
			n++;
		in = *line != ' ';
	}
	return n;
}

/* --- ibpost devices -------------------------------------------------- */

static struct ibpost_dev_attr devs[4];

static void fill_devs(void)
{
	struct ibpost_dev_attr *d = devs;

	memset(devs, 0, sizeof(devs));
	snprintf(d->name, sizeof(d->name), "rxe_lo");
	d->port = 1;
	d->link_layer = IBPOST_LINK_ETHERNET;
	d->port_state = IBPOST_PORT_ACTIVE;
	d->active_mtu = 1024;
	d->max_send_sge = 32;
	d->max_recv_sge = 32;
	d->max_sge_rd = 32;
	d->max_qp_wr = 1048576;
	d->max_cqe = 4194303;
	d->max_fast_reg_page_list_len = 512;
	d->max_inline_data = 256;
	d->max_mr_size = ~0ULL;
	d->node_guid = 0x0200c0fffe0a0b0cULL;
	d->flags = IBPOST_DEV_LOCAL_DMA_LKEY | IBPOST_DEV_VIRT_DMA;
	d[1] = d[0];
	snprintf(d[1].name, sizeof(d[1].name), "siw_enp0s1_x1");
	d[1].flags = IBPOST_DEV_NO_IMM | IBPOST_DEV_CM_ONLY |
		     IBPOST_DEV_WRITE_UNPLACED | IBPOST_DEV_INLINE_UNKNOWN;
	d[1].max_qp_wr = 16351;
	d[1].max_cqe = 32767;
	d[1].active_mtu = 4096;
	d[2] = d[0];
	snprintf(d[2].name, sizeof(d[2].name), "mlx5_bond_0_long");
	d[2].link_layer = IBPOST_LINK_INFINIBAND;
	d[2].port_state = IBPOST_PORT_DOWN;
	d[2].port = 2;
	d[2].max_send_sge = 30;
	d[2].max_recv_sge = 30;
	d[2].max_sge_rd = 30;
	d[2].max_qp_wr = 32768;
	d[2].max_cqe = 4194303;
	d[2].max_inline_data = 1024;
	d[2].max_mr_size = 1ULL << 40;
	d[3] = d[1];
	snprintf(d[3].name, sizeof(d[3].name), "siw0");
	d[3].max_qp_wr = 262144;
}

static void devices_narrow(const void *arg)
{
	(void)arg;
	devices_table(devs, ARRAY_SIZE(devs), false);
}

static void devices_wide(const void *arg)
{
	(void)arg;
	devices_table(devs, ARRAY_SIZE(devs), true);
}

static void case_devices(void)
{
	unsigned int lines, i;
	const char *p;
	bool same = true;

	fill_devs();
	capture(devices_narrow, NULL);
	check(fits(100, &lines) && lines == 5,
	      "devices: every line of the table at most 100 columns");
	check(has_all("device port state link mtu sge_s/r/rd qp_wr cqe inline lacks rxe_lo siw_enp0s1_x1 mlx5_bond_0_long 32/32/32 1M 4M 16351 256K ACTIVE Ethernet InfiniBand imm,direct_qp,write_placed"),
	      "devices: the default keeps device, port, state, link, mtu, SGEs, qp_wr, cqe, inline, lacks");
	for (p = out, i = 0; i < lines; i++, p = strchr(p, '\n') + 1)
		same &= fields(p) == 10;
	check(same, "devices: every row has the header's 10 columns");
	capture(devices_wide, NULL);
	check(has_all("device port state link mtu send_sge recv_sge sge_rd qp_wr cqe frpl inline dlkey max_mr_size node_guid lacks 1048576 4194303 16351 16 EiB 1 TiB 0200:c0ff:fe0a:0b0c yes"),
	      "devices --wide: every column (max_mr_size, frpl, dlkey, node_guid), counts exact");
	check(fields(out) == 16, "devices --wide: the header's 16 columns");
}

/* --- ibpost run -------------------------------------------------------- */

struct run_case {
	struct run_opts o;
	bool qps;		/* -q 4: qp0..qp3 and a total */
};

static void fill_result(struct ibpost_result *r, unsigned int k)
{
	memset(r, 0, sizeof(*r));
	r->wrs = 123456789ULL + k;
	r->bytes = r->wrs * 4194304ULL;
	r->elapsed_ns = 41000000000000ULL;
	r->lat_min_ns = 1234;
	r->lat_median_ns = 23456;
	r->lat_avg_ns = 34567;
	r->lat_p99_ns = 456789;
	r->lat_p999_ns = 5678901;
	r->lat_max_ns = 9876543;
	r->lat_samples = 300;
	r->lat_samples_capped = k == 1 ? 100 : 0;
	r->verify_errors = k == 2 ? 123456 : 0;
	r->interrupted = k == 3;
	r->max_inline = 256;
}

static void run_rows(const void *arg)
{
	const struct run_case *c = arg;
	struct run_row w = { .bytes = 4194304, .num_sge = 256, .qp = -1,
			     /* --cpu-util's widest: 1000 % of 64 CPUs */
			     .cost = { .valid = true, .ncpus = 64, .wall_s = 1,
				       .busy_s = 10, .proc_s = 11.82 } };
	char label[8];
	unsigned int k, n = 4;

	fill_result(&w.res, 0);
	runprint_start(&c->o, &w.res);
	for (k = 0; k < n; k++) {
		fill_result(&w.res, k);
		w.qp = c->qps ? (int)k : -1;
		snprintf(label, sizeof(label), "qp%u", k);
		runprint_row(&c->o, &w, c->qps ? label : NULL);
	}
	if (c->qps) {
		w.total = true;
		runprint_total(&c->o, &w, n, 0);
	}
}

static void run_opts_wide(struct run_case *c, bool gbits, bool qps)
{
	struct run_opts *o = &c->o;

	memset(c, 0, sizeof(*c));
	snprintf(o->dev, sizeof(o->dev), "mlx5_bond_0_long");
	snprintf(o->dev_why, sizeof(o->dev_why),
		 "the route to 2001:db8:aaaa:bbbb:cccc:dddd:eeee:ffff leaves from enp0s1f0np0");
	o->port = 1;
	o->gid_index = -1;
	o->op = IBPOST_OP_SEND_IMM;
	o->layout = IBPOST_LAYOUT_RANDOM;
	o->seed = 18446744073709551615ULL;
	o->depth = 1024;
	o->batch = 16;
	o->signal_every = 16;
	o->inline_size = 256;
	o->inline_size_set = true;
	o->duration_ms = 3600000;
	o->warmup = 16;
	o->verify = true;
	o->report_gbits = gbits;
	o->peer.family = AF_INET6;
	inet_pton(AF_INET6, "2001:db8:aaaa:bbbb:cccc:dddd:eeee:ffff",
		  o->peer.addr);
	o->peer.port = 65535;
	o->qps = qps ? 4 : 1;
	o->bidir = qps;
	o->cpu_util = true;
	o->report_ms = 500;
	c->qps = qps;
}

static void case_run(bool gbits)
{
	static const char *const wide_cols[2] = {
		"#bytes #sge #iters BW[MiB/s] BW[Gb/s] MsgRate[Mpps] t_min[us] t_median[us] t_avg[us] t_p99[us] t_p99.9[us] t_max[us] verify",
		"#bytes #sge #iters BW[Gb/s] MsgRate[Mpps] t_min[us] t_median[us] t_avg[us] t_p99[us] t_p99.9[us] t_max[us] verify",
	};
	struct run_case c;
	unsigned int lines, q;
	const char *row;
	char what[160];

	for (q = 0; q < 2; q++) {
		run_opts_wide(&c, gbits, q);
		capture(run_rows, &c);
		snprintf(what, sizeof(what),
			 "run%s%s: every line at most 100 columns (an IPv6 peer, a long device, FAIL, interrupted, capped)",
			 gbits ? " --report-gbits" : "", q ? " -q 4" : "");
		check(fits(100, &lines) && lines > 4, what);
		snprintf(what, sizeof(what),
			 "run%s%s: size, SGEs, WRs, the bandwidth first, then Mpps and 5 latencies",
			 gbits ? " --report-gbits" : "", q ? " -q 4" : "");
		row = strstr(out, q ? "\nqp0 " : "\n4194304 ");
		check(row && has_all(gbits ? "BW[Gb/s] Mpps min_us med_us p99_us p999_us max_us verify FAIL(121K) (interrupted)" :
				     "BW[MiB/s] Mpps min_us med_us p99_us p999_us max_us verify FAIL(121K) (interrupted)") &&
		      fields(row + 1) == 11 + q &&
		      !strncmp(row + 1 + (q ? 7 : 0), "4194304  256 123456789 ", 23) &&
		      strstr(out, " 23.46 ") && !strstr(out, " 34.57 ") &&
		      (!q || strstr(out, "\ntotal  4194304 ")), what);
		snprintf(what, sizeof(what),
			 "run%s%s --cpu-util: its line after the %s",
			 gbits ? " --report-gbits" : "", q ? " -q 4 -b" : "",
			 q ? "total (and the -b note)" : "rows");
		check(strstr(out, q ? "\n# total: cpu: 1000.0% (64 CPUs), " :
			     "\n# cpu: 1000.0% (64 CPUs), ") &&
		      (!q || strstr(out, "# -b: both directions at once")), what);
		c.o.wide = true;
		capture(run_rows, &c);
		snprintf(what, sizeof(what), "run --wide%s%s: every column",
			 gbits ? " --report-gbits" : "", q ? " -q 4" : "");
		row = strstr(out, q ? "\nqp0 " : "\n4194304 ");
		check(row && has_all(wide_cols[gbits]) &&
		      fields(row + 1) == 13 - gbits + q &&
		      strstr(out, " (interrupted)\n") && strstr(out, " FAIL(123456)\n") &&
		      strstr(out, " 34.57 ") &&
		      strstr(out, "t_median, t_p99, t_p99.9 from the histogram (2 significant digits) beyond 100 samples kept whole"),
		      what);
	}
}

static void progress_rows(const void *arg)
{
	const struct run_case *c = arg;
	struct progress_row r = {
		.msg_bytes = 4194304, .num_sge = 1, .nqps = 4, .t_s = 12345.5,
		.dt_s = 0.5, .wrs = 123456789012ULL, .bytes = 517815245602357248ULL,
		.elapsed_ns = 12345500000000ULL, .d_wrs = 1234567890,
		.d_bytes = 5178152456023572ULL, .wc_errors = 4294967,
	};
	struct ibpost_progress qp[4];

	memset(qp, 0, sizeof(qp));
	runprint_progress(&c->o, &r, qp);
	r.t_s += 0.5;
	runprint_progress(&c->o, &r, qp);
}

/* One case per process: the progress header is printed once. */
static void case_progress(bool gbits, bool wide)
{
	struct run_case c;
	unsigned int lines;
	char what[160];
	const char *row;

	run_opts_wide(&c, gbits, true);
	c.o.wide = wide;
	capture(progress_rows, &c);
	row = strstr(out, "\nprogress ");
	snprintf(what, sizeof(what), "run --report-every%s%s: %s", gbits ?
		 " --report-gbits" : "", wide ? " --wide" : "", wide ?
		 "every column" : "every line at most 100 columns");
	if (wide)
		check(row && has_all(gbits ?
			"#progress t[s] iters +iters BW[Gb/s] MsgRate[Mpps] avg_BW[Gb/s] avg_Mpps wc_errors" :
			"#progress t[s] iters +iters BW[MiB/s] BW[Gb/s] MsgRate[Mpps] avg_BW[MiB/s] avg_BW[Gb/s] avg_Mpps wc_errors") &&
		      fields(row + 1) == (gbits ? 9u : 11u), what);
	else
		check(fits(100, &lines) && row && fields(row + 1) == 9 &&
		      strstr(row, " 123456789012 ") &&
		      has_all(gbits ? "#progress t[s] iters +iters BW[Gb/s] Mpps avg_BW[Gb/s] avg_Mpps wc_err" :
			      "#progress t[s] iters +iters BW[MiB/s] Mpps avg_BW[MiB/s] avg_Mpps wc_err"),
		      what);
}

/* --- ibpost serve: the listening line ---------------------------------- */

static struct serve_opts sopts;

static void serve_listen(const void *arg)
{
	struct ibpost_serve sv = {
		.event = { .kind = IBPOST_SRV_LISTEN, .port = 65535 },
		.max_conns = 256, .max_per_addr = 256, .max_mem_mib = 4294967,
		.max_job_ms = 86400000, .idle_ms = 600000,
	};

	/* a non-NULL @arg: --cpu-record, its line after the limits */
	if (arg)
		sv.flags = IBPOST_SERVE_CPU_RECORD;
	text_event(stdout, &sopts, &sv);
}

/* The @n networks case_serve() allows, each in out[]. */
static bool has_nets(unsigned int n)
{
	char net[64];
	unsigned int k;

	for (k = 0; k < n; k++) {
		snprintf(net, sizeof(net), k % 2 ? " fd00:%x:%x::/64" :
			 " 198.51.%u.0/24", k, k * 7);
		if (!strstr(out, net))
			return false;
	}
	return true;
}

static void serve_stamped(const void *arg)
{
	put_lines(&sopts, arg);
}

/* @line is "YYYY-MM-DDTHH:MM:SS.mmm+ZZZZ @rest". */
static bool stamped(const char *line, const char *rest)
{
	static const char form[] = "dddd-dd-ddTdd:dd:dd.ddd+dddd ";
	size_t i;

	for (i = 0; i < sizeof(form) - 1; i++) {
		if (form[i] == 'd' ? line[i] < '0' || line[i] > '9' :
		    form[i] == '+' ? line[i] != '+' && line[i] != '-' :
		    line[i] != form[i])
			return false;
	}
	return !strncmp(line + i, rest, strlen(rest)) &&
	       line[i + strlen(rest)] == '\n';
}

static void case_serve(void)
{
	static const unsigned int counts[] = { 0, 2, 5, 64 };
	unsigned int i, k, v6, lines;
	char net[64], what[200];
	bool all;

	for (v6 = 0; v6 < 2; v6++) {
		for (i = 0; i < ARRAY_SIZE(counts); i++) {
			memset(&sopts, 0, sizeof(sopts));
			if (v6) {
				inet_pton(AF_INET6, "2001:db8:aaaa:bbbb:cccc:dddd:eeee:ffff",
					  sopts.addr.addr);
				sopts.addr.family = AF_INET6;
			}
			for (k = 0; k < counts[i]; k++) {
				snprintf(net, sizeof(net), k % 2 ?
					 "fd00:%x:%x::/64" : "198.51.%u.0/24",
					 k, k * 7);
				if (parse_allow(net, &sopts))
					exit(2);
			}
			capture(serve_listen, NULL);
			all = has_nets(counts[i]);
			snprintf(what, sizeof(what),
				 "serve on %s, %u --allow networks: the listening and limits lines at most 100 columns, %s",
				 v6 ? "an IPv6 address" : "*", counts[i],
				 all ? "every network" : "then how many more");
			/* listening on *: two networks fit */
			check(fits(100, &lines) && lines == 2 &&
			      (v6 || counts[i] > 2 || all) &&
			      (all ? !strstr(out, "more") :
			       strstr(out, " more\n") ||
			       strstr(out, " networks\n")), what);
			sopts.wide = true;
			capture(serve_listen, NULL);
			all = has_nets(counts[i]);
			snprintf(what, sizeof(what),
				 "serve --wide on %s, %u --allow networks: every one",
				 v6 ? "an IPv6 address" : "*", counts[i]);
			check(all && !strstr(out, "more") &&
			      !strstr(out, "networks"), what);
		}
	}
	/* --cpu-record: a third line, within 100 columns too */
	memset(&sopts, 0, sizeof(sopts));
	capture(serve_listen, "cpu record");
	check(fits(100, &lines) && lines == 3 &&
	      strstr(out, "\nserve: cpu record: a client that asks gets this host's CPU time over its job\n"),
	      "serve --cpu-record: its own line after the limits, at most 100 columns");
	/* Not under journald: each line after the local time. */
	memset(&sopts, 0, sizeof(sopts));
	sopts.stamp = true;
	capture(serve_stamped, "conn 1: connected\nserve: stopping\n");
	check(stamped(out, "conn 1: connected") && strchr(out, '\n') &&
	      stamped(strchr(out, '\n') + 1, "serve: stopping"),
	      "serve's text lines stamped 2026-12-04T16:40:24.123+0000 (no JOURNAL_STREAM)");
	sopts.stamp = false;
	capture(serve_stamped, "serve: stopping\n");
	check(!strcmp(out, "serve: stopping\n"), "serve's lines unstamped under journald");
	/* journald: JOURNAL_STREAM is stdout's device:inode */
	{
		struct stat st;
		char js[64];
		bool yes, other, none;

		fstat(STDOUT_FILENO, &st);
		snprintf(js, sizeof(js), "%llu:%llu",
			 (unsigned long long)st.st_dev,
			 (unsigned long long)st.st_ino);
		setenv("JOURNAL_STREAM", js, 1);
		yes = to_journal();
		setenv("JOURNAL_STREAM", "1:1", 1);
		other = to_journal();
		unsetenv("JOURNAL_STREAM");
		none = to_journal();
		check(yes && !other && !none,
		      "JOURNAL_STREAM: journald when it names stdout, not another stream nor unset");
	}
	/*
	 * --config (the unit's way): the command line's defaults kept, what
	 * the kernel is asked is the file's --allow and --max-keep 600.
	 */
	{
		char path[] = "/tmp/ibpost-table-test-XXXXXX";
		char cmd[] = "serve", opt[] = "--config";
		char *args[4];
		struct ibpost_serve sv;
		int fd = mkstemp(path), rc;

		args[0] = cmd;
		args[1] = opt;
		args[2] = path;
		args[3] = NULL;

		if (fd < 0 || write(fd, "--allow 192.0.2.0/24\n", 21) != 21) {
			perror(path);
			exit(2);
		}
		close(fd);
		rc = serve_config(&sopts, path, false, 3, args);
		unlink(path);
		fill_serve(&sopts, &sv);
		check(!rc && sv.nallow == 1 && sv.keep_s == SERVE_KEEP_DEFAULT,
		      "serve --config: the file's --allow, --max-keep's default (600 s) kept");
	}
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";

	if (!strcmp(c, "devices"))
		case_devices();
	else if (!strcmp(c, "run"))
		case_run(false);
	else if (!strcmp(c, "run-gbits"))
		case_run(true);
	else if (!strcmp(c, "progress"))
		case_progress(false, false);
	else if (!strcmp(c, "progress-gbits"))
		case_progress(true, false);
	else if (!strcmp(c, "progress-wide"))
		case_progress(false, true);
	else if (!strcmp(c, "progress-wide-gbits"))
		case_progress(true, true);
	else if (!strcmp(c, "serve"))
		case_serve();
	else {
		fprintf(stderr, "usage: table_test devices|run|run-gbits|progress[-wide][-gbits]|serve\n");
		return 2;
	}
	return failed;
}
