// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost run: the options, their defaults and the checks across them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <unistd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ibpost.h"
#include "opt.h"

#define RUN_DEF_DEPTH	64
#define RUN_READ_DEPTH	16

static const char *const layout_names[IBPOST_LAYOUT_MAX] = {
	[IBPOST_LAYOUT_EXPLICIT] = "explicit",
	[IBPOST_LAYOUT_EQUAL] = "equal",
	[IBPOST_LAYOUT_PAGE_CROSS] = "page-cross",
	[IBPOST_LAYOUT_UNALIGNED] = "unaligned",
	[IBPOST_LAYOUT_RANDOM] = "random",
};

/* The name of an IBPOST_LAYOUT_*, as --layout takes it and the output shows. */
const char *runopt_layout_name(unsigned int layout)
{
	return layout_names[layout];
}

static void run_about(FILE *f)
{
	fprintf(f,
		"Connect a loopback RC QP pair on DEV inside the kernel, post work\n"
		"requests with ib_post_send and report bandwidth, message rate and\n"
		"post-to-completion latency, one row per message size.  With --connect\n"
		"the target QP is on another host, run by '%s serve' there.  perftest's\n"
		"options work with perftest's meaning (ib_write_bw -d DEV -s 4096 HOST is\n"
		"ibpost run -d DEV -s 4096 HOST); it refuses the others, naming ibpost's\n"
		"equivalent or saying there is none.\n", prog);
}

static void run_tail(FILE *f)
{
	fprintf(f,
		"perftest's -q, -s, -n, -D, -a, -b, -R, -w, -y and -h mean the same here;\n"
		"-H is --hist, -F and -z do nothing; -o is --op (not ib_read_bw's\n"
		"outstanding reads: --depth).  A perftest option ibpost lacks is refused\n"
		"with its equivalent, or a word that there is none; ibpost(8) has a\n"
		"table of every perftest option (PERFTEST OPTIONS).\n"
		"\n"
		"A TIME is a number with ns, us, ms, s, m or h (" OPT_TIME_FORMS ",\n"
		"1.5s), or a bare number in the unit its option names.  A SIZE (and\n"
		"the LEN and OFF of a layout) is a number of bytes, or with K, M, G\n"
		"or T, 1024-based (" OPT_SIZE_FORMS ").\n"
		"\n"
		"Exit status: 0 ok, 1 the kernel (or the peer) refused or the run\n"
		"failed (with -q: any QP; each failing QP's message starts \"qp I: \"),\n"
		"2 bad options, " OPT_STR(RUN_EXIT_MISSED) " a result missed a threshold (--min-bw,\n"
		"--min-mpps, --max-lat-p50, --max-lat-p99: every result printed, then\n"
		"one line on stderr per miss), 130 interrupted (the partial rows are\n"
		"printed; with --forever a signal is how a run ends: 0).\n");
}

static int opt_err(const char *opt, const char *arg, const char *why)
{
	return opt_bad("run", opt, arg, why);
}

/* A byte count (opt_size()): a bare number of bytes, or K, M, G, T. */
static int parse_size(const char *opt, const char *s, unsigned long long max,
		      unsigned long long *out)
{
	const struct opt_val val = { .cmd = "run", .name = opt, .bare = OPT_B,
				     .unit = OPT_B, .max = max };

	return opt_size(&val, s, out);
}

/* A plain number; base 0 (0x... allowed) when @any_base. */
static int parse_num(const char *opt, const char *s, unsigned long long max,
		     bool any_base, unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return opt_err(opt, s, "not a number");
	errno = 0;
	v = strtoull(s, &end, any_base ? 0 : 10);
	if (errno == ERANGE || v > max)
		return opt_err(opt, s, "too large");
	if (errno || end == s || *end)
		return opt_err(opt, s, "not a number");
	*out = v;
	return 0;
}

static int parse_u32(const char *opt, const char *s, unsigned int *out)
{
	unsigned long long v;

	if (parse_num(opt, s, UINT32_MAX, false, &v))
		return -1;
	*out = v;
	return 0;
}

static int parse_op(const char *s, unsigned int *op)
{
	unsigned int i;

	for (i = 0; i < IBPOST_OP_MAX; i++) {
		if (!strcmp(s, out_op_name(i))) {
			*op = i;
			return 0;
		}
	}
	if (*s >= '0' && *s <= '9')
		return opt_err("--op", s, "expected send, send_imm, write, write_imm or read (perftest's -o, outstanding reads, is -t/--depth here)");
	return opt_err("--op", s, "expected send, send_imm, write, write_imm or read");
}

static int parse_layout(const char *opt, const char *s, unsigned int *layout)
{
	unsigned int i;

	if (!strcmp(s, "page_cross")) {
		*layout = IBPOST_LAYOUT_PAGE_CROSS;
		return 0;
	}
	for (i = IBPOST_LAYOUT_EQUAL; i < IBPOST_LAYOUT_MAX; i++) {
		if (!strcmp(s, layout_names[i])) {
			*layout = i;
			return 0;
		}
	}
	return opt_err(opt, s, "expected equal, page-cross, unaligned or random (or LEN@OFF,...)");
}

/* "LEN@OFF,LEN@OFF,...": returns the number of entries, -1 on error. */
static int parse_sge_list(const char *opt, const char *s,
			  struct ibpost_sge_desc *d)
{
	char *copy = strdup(s), *save = NULL, *tok, *at;
	unsigned long long len, off;
	int n = 0;

	if (!copy) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return -1;
	}
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n == IBPOST_MAX_SGE) {
			opt_err(opt, s, "more than 256 entries");
			goto err;
		}
		at = strchr(tok, '@');
		if (!at) {
			opt_err(opt, tok, "expected LEN@OFF");
			goto err;
		}
		*at = '\0';
		if (parse_size(opt, tok, UINT32_MAX, &len) ||
		    parse_size(opt, at + 1, UINT32_MAX, &off))
			goto err;
		d[n].length = len;
		d[n].offset = off;
		n++;
	}
	free(copy);
	if (!n)
		return opt_err(opt, s, "empty list");
	return n;
err:
	free(copy);
	return -1;
}

static int parse_sge_counts(const char *s, struct run_opts *o)
{
	char *copy = strdup(s), *save = NULL, *tok;
	unsigned int n = 0;

	if (!copy) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return -1;
	}
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n == RUN_MAX_SWEEP) {
			opt_err("--sge", s, "too many values");
			goto err;
		}
		if (parse_u32("--sge", tok, &o->sge[n]))
			goto err;
		n++;
	}
	free(copy);
	if (!n)
		return opt_err("--sge", s, "empty list");
	o->nsge = n;
	return 0;
err:
	free(copy);
	return -1;
}

/*
 * A time of 'run' (opt_time()) into @out, counted in @unit, at most @max;
 * a bare number is in @bare.
 */
static int parse_time(const char *opt, const char *s, unsigned long long bare,
		      unsigned long long unit, long long max, long long *out)
{
	const struct opt_val val = { .cmd = "run", .name = opt, .bare = bare,
				     .unit = unit, .max = max };

	return opt_time(&val, s, out);
}

/* -D/--duration: milliseconds above 0, below IBPOST_DURATION_FOREVER. */
static int parse_duration(const char *s, unsigned int *ms)
{
	long long v;

	/* UINT32_MAX ms is IBPOST_DURATION_FOREVER: --forever */
	if (parse_time("--duration", s, OPT_S, OPT_MS, UINT32_MAX - 1, &v))
		return -1;
	if (!v)
		return opt_err("--duration", s, "expected seconds above 0, below 4294967 (--forever runs until a signal)");
	*ms = v;
	return 0;
}

/* --report-every SEC: milliseconds, at least 1. */
static int parse_report_every(const char *s, struct run_opts *o)
{
	long long v;

	o->report_set = true;
	if (parse_time("--report-every", s, OPT_S, OPT_MS, UINT32_MAX - 1,
		       &v))
		return -1;
	if (!v)
		return opt_err("--report-every", s, "expected seconds above 0");
	o->report_ms = v;
	return 0;
}

enum {
	OPT_SGE = OPT_LONG, OPT_LAYOUT, OPT_SGE_LAYOUT, OPT_SEED,
	OPT_RECV_SGE, OPT_RECV_LAYOUT, OPT_RECV_SGE_LAYOUT, OPT_WARMUP,
	OPT_IMM, OPT_INLINE, OPT_VERIFY, OPT_CM, OPT_PINGPONG,
	OPT_CONNECT, OPT_CM_TIMEOUT, OPT_CSV, OPT_GBITS, OPT_PRINT,
	OPT_FOREVER, OPT_REPORT_EVERY, OPT_WIDE, OPT_OUT_JSON,
	OPT_OUT_JSON_FILE, OPT_CPU_UTIL, OPT_MAX_P50, OPT_MAX_P99,
};

/* perftest's --out_json file when no --out-json-file names one. */
#define RUN_OUT_JSON_DEFAULT	"perftest_out.json"

#define PERFTEST	"perftest"

/* The options of 'ibpost run', in the order of its --help. */
static const struct opt run_table[] = {
	{ .name = "dev", .letter = 'd', .arg = "NAME",
	  .help = "RDMA device (e.g. rxe_lo).\n"
		  "Default: with --connect or --cm, the device whose\n"
		  "port's GID table lists the netdev the route to\n"
		  "the address leaves from; else the first device\n"
		  "(by name) with an ACTIVE port" },
	{ .name = "ib-dev", .key = 'd', .help = PERFTEST, .flags = OPT_ALIAS },
	{ .name = "port", .letter = 'i', .arg = "P",
	  .help = "port of the RDMA device (default: the first).\n"
		  "Not perftest's --port: that is the rdma_cm port,\n"
		  "-p here" },
	{ .name = "ib-port", .key = 'i', .help = PERFTEST, .flags = OPT_ALIAS },
	{ .name = "gid-index", .letter = 'x', .arg = "N",
	  .help = "source GID of the loopback pair: index N of the\n"
		  "port's GID table (perftest --gid-index); default:\n"
		  "the first RoCE v2 IPv4-mapped GID, perftest's.\n"
		  "With --connect, HOST, --cm or -R it is not used\n"
		  "(rdma_cm takes the GID of the address; a note on\n"
		  "stderr says so)" },
	{ .name = "op", .letter = 'o', .arg = "OP",
	  .help = "send, send_imm, write (default), write_imm, read" },
	{ .name = "size", .letter = 's', .arg = "SIZE",
	  .help = "bytes per WR (default 64K; with --sge-layout the\n"
		  "sum of its lengths)" },
	{ .name = "sge", .key = OPT_SGE, .arg = "N[,N...]",
	  .help = "SGEs per WR (default 1); a list runs each" },
	{ .name = "layout", .key = OPT_LAYOUT, .arg = "NAME",
	  .help = "equal (default), page-cross, unaligned, random" },
	{ .name = "sge-layout", .key = OPT_SGE_LAYOUT, .arg = "LIST",
	  .help = "explicit SGEs, LEN@OFF within the WR's buffer slot,\n"
		  "e.g. 256@0,512@1024,128@2048" },
	{ .name = "seed", .key = OPT_SEED, .arg = "S",
	  .help = "seed of the random layout (default 0)" },
	{ .name = "recv-sge", .key = OPT_RECV_SGE, .arg = "N",
	  .help = "SGEs per receive WR (send ops; default --sge)" },
	{ .name = "recv-layout", .key = OPT_RECV_LAYOUT, .arg = "NAME",
	  .help = "layout of the receive WRs (default equal)" },
	{ .name = "recv-sge-layout", .key = OPT_RECV_SGE_LAYOUT, .arg = "LIST",
	  .help = "explicit receive SGEs, LEN@OFF,..." },
	{ .name = "iters", .letter = 'n', .arg = "N",
	  .help = "measured WRs (default 1000)" },
	{ .name = "duration", .letter = 'D', .arg = "TIME",
	  .help = "run for TIME (bare: seconds) instead of --iters" },
	{ .name = "forever", .key = OPT_FOREVER,
	  .help = "run until SIGINT or SIGTERM, then print the\n"
		  "result and exit 0; one size and SGE count;\n"
		  "progress every 5 s unless --report-every says\n"
		  "otherwise.  A server (--connect) refuses it: its\n"
		  "--max-job-time bounds every job (give -D)" },
	{ .name = "run_infinitely", .key = OPT_FOREVER, .help = PERFTEST,
	  .flags = OPT_ALIAS },
	{ .name = "report-every", .key = OPT_REPORT_EVERY, .arg = "TIME",
	  .help = "while a job runs, print every TIME (bare:\n"
		  "seconds) its counts so far (the module's live\n"
		  "counters, summed over the QPs of -q) and the rates\n"
		  "of the last interval: a \"progress\" row, with\n"
		  "--json an object {\"progress\": ...} on a line\n"
		  "of its own (one size and SGE count), with\n"
		  "--csv a row whose qp column is \"progress\"" },
	{ .name = "warmup", .key = OPT_WARMUP, .arg = "N",
	  .help = "WRs posted before measuring (default 16)" },
	{ .name = "depth", .letter = 't', .arg = "D",
	  .help = "most WRs outstanding (default 64, read 16)" },
	{ .name = "tx-depth", .key = 't', .help = PERFTEST, .flags = OPT_ALIAS },
	{ .name = "batch", .letter = 'l', .arg = "B",
	  .help = "WRs chained per ib_post_send (default 1)" },
	{ .name = "post_list", .key = 'l', .help = PERFTEST, .flags = OPT_ALIAS },
	{ .name = "signal-every", .letter = 'Q', .arg = "K",
	  .help = "signal one WR in K (default min(16, D - B + 1))" },
	{ .name = "cq-mod", .key = 'Q', .help = PERFTEST, .flags = OPT_ALIAS },
	{ .name = "imm", .key = OPT_IMM, .arg = "X",
	  .help = "immediate data of send_imm / write_imm" },
	{ .name = "inline", .key = OPT_INLINE,
	  .help = "post every WR with IB_SEND_INLINE" },
	{ .name = "inline-size", .letter = 'I', .arg = "SIZE",
	  .help = "post with IB_SEND_INLINE the messages of at most\n"
		  "SIZE bytes; 0: none" },
	{ .name = "inline_size", .key = 'I', .help = PERFTEST,
	  .flags = OPT_ALIAS },
	{ .name = "verify", .key = OPT_VERIFY,
	  .help = "stamp every byte and check it arrived" },
	{ .name = "pingpong", .key = OPT_PINGPONG,
	  .help = "latency as ib_write_lat measures it: WRITE a\n"
		  "message, the far end WRITEs one back when its\n"
		  "last byte lands; t = half that round trip\n"
		  "(write, batch 1)" },
	{ .name = "cm", .key = OPT_CM, .arg = "ADDR",
	  .help = "connect the QP pair through rdma_cm to ADDR, an\n"
		  "IPv4/IPv6 address of the device's netdev (default:\n"
		  "connect directly, which also works on rxe over lo)" },
	{ .name = "rdma-cm", .letter = 'R',
	  .help = "connect through rdma_cm (perftest -R): --connect\n"
		  "and HOST always do; the loopback pair gets --cm\n"
		  "with the first address of the port's netdev\n"
		  "(refused on lo: rdma_cm binds 127.0.0.1 to no\n"
		  "RDMA device)" },
	{ .name = "rdma_cm", .key = 'R', .help = PERFTEST, .flags = OPT_ALIAS },
	{ .name = "connect", .key = OPT_CONNECT, .arg = "HOST[:PORT]",
	  .help = "run against 'ibpost serve' on another host: the\n"
		  "initiator QP is on DEV here, the target QP and\n"
		  "its buffers are the server's; HOST is A.B.C.D,\n"
		  "A.B.C.D:PORT, [IPV6], [IPV6]:PORT or a bare IPV6\n"
		  "address (no port), or a host name (its first\n"
		  "IPv4 address, else IPv6); PORT defaults to "
		  OPT_STR(IBPOST_PEER_PORT) ".\n"
		  "A last argument HOST is --connect HOST (perftest)\n"
		  "Not with --cm.  Refusals and failures the server\n"
		  "reported say \"by the peer (conn N)\"" },
	{ .name = "cm-port", .letter = 'p', .arg = "P",
	  .help = "the port of --connect HOST (perftest --port)" },
	{ .name = "cm-timeout", .key = OPT_CM_TIMEOUT, .arg = "TIME",
	  .help = "bound on each of address resolution, route\n"
		  "resolution and connection set-up (bare:\n"
		  "milliseconds; default " OPT_STR(IBPOST_CM_TIMEOUT_MS)
		  ", at most " OPT_STR(IBPOST_CM_TIMEOUT_MAX) ");\n"
		  "with --connect, --cm or -R" },
	{ .name = "qps", .letter = 'q', .arg = "N",
	  .help = "run N identical jobs at once (1.." OPT_STR(RUN_MAX_QPS)
		  ", default 1),\n"
		  "each its own QP (and connection), issued from its\n"
		  "own thread pinned to CPU i % ncpus; one row per\n"
		  "QP (qp0, qp1, ...) and a total row: bytes and WRs\n"
		  "summed, bandwidth and rate over the longest\n"
		  "elapsed time, latencies over every sample of\n"
		  "every QP (percentiles of the QPs' histograms\n"
		  "merged, 2 significant digits).  --json: each\n"
		  "result has \"qps\" (one object per QP) and\n"
		  "\"total\"" },
	{ .name = "qp", .key = 'q', .help = PERFTEST, .flags = OPT_ALIAS },
	{ .name = "bidirectional", .letter = 'b',
	  .help = "both directions at once (perftest -b): a\n"
		  "loopback's two directions are the same device and\n"
		  "port, so each is a QP pair of its own, alike (-q N:\n"
		  "2N pairs, qp0..N-1 and qpN..2N-1), and the total\n"
		  "is both.  Not with --connect: 'ibpost serve'\n"
		  "never posts toward a client" },
	{ .name = "all-sizes", .letter = 'a',
	  .help = "run 2, 4, 8, ... 4M bytes" },
	{ .name = "all", .key = 'a', .help = PERFTEST, .flags = OPT_ALIAS },
	{ .name = "json", .letter = 'j', .help = "print one JSON object" },
	{ .name = "out-json", .key = OPT_OUT_JSON,
	  .help = "also write the results with perftest's JSON keys\n"
		  "(test_info, results: MsgSize, BW_average, ...)\n"
		  "to " RUN_OUT_JSON_DEFAULT " (perftest --out_json)" },
	{ .name = "out_json", .key = OPT_OUT_JSON, .help = PERFTEST,
	  .flags = OPT_ALIAS },
	{ .name = "out-json-file", .key = OPT_OUT_JSON_FILE, .arg = "FILE",
	  .help = "--out-json into FILE (perftest --out_json_file)" },
	{ .name = "out_json_file", .key = OPT_OUT_JSON_FILE, .help = PERFTEST,
	  .flags = OPT_ALIAS },
	{ .name = "csv", .key = OPT_CSV,
	  .help = "print CSV: one header row, one row per result" },
	{ .name = "hist", .letter = 'H',
	  .help = "print the latency histograms too (2 significant\n"
		  "digits; perftest -H prints every sample)" },
	{ .name = "report-histogrm", .key = 'H', .help = PERFTEST,
	  .flags = OPT_ALIAS },
	{ .name = "report-histogram", .key = 'H',
	  .help = "perftest's --help", .flags = OPT_ALIAS },
	{ .name = "report-gbits", .key = OPT_GBITS,
	  .help = "the table's bandwidth in Gb/s only, not MiB/s" },
	{ .name = "report_gbits", .key = OPT_GBITS, .help = PERFTEST,
	  .flags = OPT_ALIAS },
	{ .name = "wide", .key = OPT_WIDE,
	  .help = "the wide table (about 150 columns): both bandwidths,\n"
		  "MsgRate, t_avg, the long column names; the default\n"
		  "fits 100 columns with one bandwidth (MiB/s, Gb/s with\n"
		  "--report-gbits) and the same first four columns" },
	{ .name = "cpu-util", .key = OPT_CPU_UTIL,
	  .help = "CPU cost of each point: every CPU's busy time\n"
		  "(/proc/stat) over the run, as % of one CPU and\n"
		  "CPU-seconds per GiB, and this process's share\n"
		  "(perftest --cpu_util); with --connect the server's\n"
		  "too, over the job as it saw it" },
	{ .name = "cpu_util", .key = OPT_CPU_UTIL, .help = PERFTEST,
	  .flags = OPT_ALIAS },
	{ .name = "min-bw", .letter = 'w', .arg = "BW",
	  .help = "fail (exit " OPT_STR(RUN_EXIT_MISSED) ") when a result's bandwidth is\n"
		  "below BW MiB/s (Gb/s with --report-gbits)" },
	{ .name = "limit_bw", .key = 'w', .help = PERFTEST, .flags = OPT_ALIAS },
	{ .name = "min-mpps", .letter = 'y', .arg = "MPPS",
	  .help = "fail (exit " OPT_STR(RUN_EXIT_MISSED) ") below MPPS million WRs a second" },
	{ .name = "limit_msgrate", .key = 'y', .help = PERFTEST,
	  .flags = OPT_ALIAS },
	{ .name = "max-lat-p50", .key = OPT_MAX_P50, .arg = "TIME",
	  .help = "fail (exit " OPT_STR(RUN_EXIT_MISSED) ") when a result's median latency\n"
		  "is above TIME (bare: microseconds, 2.5 too)" },
	{ .name = "max-lat-p99", .key = OPT_MAX_P99, .arg = "TIME",
	  .help = "fail (exit " OPT_STR(RUN_EXIT_MISSED) ") when its 99th percentile is\n"
		  "above TIME (bare: microseconds)" },
	{ .name = "CPU-freq", .letter = 'F',
	  .help = "accepted, does nothing: perftest -F silences its\n"
		  "cpufreq warning; ibpost times with the kernel's\n"
		  "clock (ktime), not CPU cycles, and has none" },
	{ .name = "comm_rdma_cm", .letter = 'z',
	  .help = "accepted, does nothing: perftest -z exchanges\n"
		  "its QPs' data through rdma_cm, which --connect\n"
		  "(and HOST) always do; a loopback pair has none\n"
		  "to exchange" },
	{ .name = "version", .letter = 'V', .flags = OPT_VERSION,
	  .help = "the tool's and the module's version" },
	{ .name = "print-options", .key = OPT_PRINT, .flags = OPT_HIDDEN },
	{ .name = "help", .letter = 'h', .help = "this text", .flags = OPT_HELP },
};

static const struct opt_cmd run_cmd = {
	.name = "run", .opts = run_table, .nopts = ARRAY_SIZE(run_table),
	.operands = "[HOST]", .col = 26, .about = run_about, .tail = run_tail,
	.unknown = perftest_unknown,
};

/* The usage text of 'ibpost run'. */
void help_run(FILE *f)
{
	opt_help(f, &run_cmd);
}

static int parse_recv_layout(const char *opt, const char *arg,
			     struct run_opts *o)
{
	int n;

	o->recv_layout_set = true;
	if (!strchr(arg, '@'))
		return parse_layout(opt, arg, &o->recv_layout);
	n = parse_sge_list(opt, arg, o->rsges);
	if (n < 0)
		return -1;
	o->nrsges = n;
	o->recv_layout = IBPOST_LAYOUT_EXPLICIT;
	return 0;
}

static int parse_connect(const char *arg, struct run_opts *o)
{
	const char *why = net_parse_hostport(arg, &o->peer);

	if (!why)
		return 0;
	o->peer.family = 0;
	fprintf(stderr, "%s: run: bad --connect '%s': %s (want " NET_HOSTPORT_FORMS ")\n",
		prog, arg, why);
	return -1;
}

/* -i/--port: the RDMA device's port, which perftest's --port is not. */
static int parse_ib_port(const char *arg, struct run_opts *o)
{
	if (parse_u32("--port", arg, &o->port))
		return -1;
	if (o->port > 255)
		return opt_err("--port", arg,
			       "RDMA device ports are 1 to 255 (-i, perftest --ib-port); the rdma_cm port of --connect is -p/--cm-port (perftest's -p/--port)");
	return 0;
}

static int parse_cm_port(const char *arg, struct run_opts *o)
{
	if (parse_u32("--cm-port", arg, &o->cm_port))
		return -1;
	if (!o->cm_port || o->cm_port > 65535)
		return opt_err("--cm-port", arg, "expected 1 to 65535");
	return 0;
}

static int parse_gid_index(const char *arg, struct run_opts *o)
{
	unsigned long long v;

	if (parse_num("--gid-index", arg, INT32_MAX, false, &v))
		return -1;
	o->gid_index = v;
	return 0;
}

static int parse_qps(const char *arg, unsigned int *qps)
{
	unsigned long long v;

	if (parse_num("--qps", arg, UINT32_MAX, false, &v))
		return -1;
	if (v < 1 || v > RUN_MAX_QPS)
		return opt_err("--qps", arg, "expected 1 to 64");
	*qps = v;
	return 0;
}

static int parse_cm_timeout(const char *arg, struct run_opts *o)
{
	long long v;

	o->cm_timeout_set = true;
	if (parse_time("--cm-timeout", arg, OPT_MS, OPT_MS,
		       IBPOST_CM_TIMEOUT_MAX, &v))
		return -1;
	o->cm_timeout_ms = v;
	return 0;
}

/* --max-lat-p50/p99: microseconds above 0, to the nanosecond. */
static int parse_max_lat(const char *opt, const char *arg, double *us)
{
	long long ns;

	if (parse_time(opt, arg, OPT_US, OPT_NS, LLONG_MAX, &ns))
		return -1;
	if (!ns)
		return opt_err(opt, arg, "expected microseconds above 0");
	*us = ns / 1000.0;
	return 0;
}

/* A threshold: a finite number above 0 (below 0 in @out: none given). */
static int parse_threshold(const char *opt, const char *arg, const char *unit,
			   double *out)
{
	char why[64];
	double v;
	char *end;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || !(v > 0)) {
		snprintf(why, sizeof(why), "expected %s above 0", unit);
		return opt_err(opt, arg, why);
	}
	*out = v;
	return 0;
}

/* --out-json-file FILE: a path, not an option that lost its value. */
static int parse_out_json_file(const char *arg, struct run_opts *o)
{
	if (!*arg)
		return opt_err("--out-json-file", arg, "empty");
	if (*arg == '-' && arg[1])
		return opt_err("--out-json-file", arg,
			       "looks like an option; write ./FILE for a file starting with '-'");
	o->out_json_file = arg;
	return 0;
}

/* One option: 0, or -1 on a bad one. */
static int run_set(void *ctx, int c, const char *arg)
{
	struct run_opts *o = ctx;
	unsigned long long v;
	int n;

	switch (c) {
	case 'd':
		if (!*arg || strlen(arg) >= sizeof(o->dev))
			return opt_err("--dev", arg, "empty or too long");
		strcpy(o->dev, arg);
		return 0;
	case 'i':
		return parse_ib_port(arg, o);
	case 'x':
		return parse_gid_index(arg, o);
	case 'p':
		return parse_cm_port(arg, o);
	case 'o':
		return parse_op(arg, &o->op);
	case 's':
		o->size_set = true;
		return parse_size("--size", arg, UINT32_MAX, &o->size);
	case OPT_SGE:
		return parse_sge_counts(arg, o);
	case OPT_LAYOUT:
		o->layout_set = true;
		return parse_layout("--layout", arg, &o->layout);
	case OPT_SGE_LAYOUT:
		n = parse_sge_list("--sge-layout", arg, o->sges);
		if (n < 0)
			return -1;
		o->nsges = n;
		return 0;
	case OPT_SEED:
		return parse_num("--seed", arg, UINT64_MAX, true, &o->seed);
	case OPT_RECV_SGE:
		return parse_u32("--recv-sge", arg, &o->recv_sge);
	case OPT_RECV_LAYOUT:
		return parse_recv_layout("--recv-layout", arg, o);
	case OPT_RECV_SGE_LAYOUT:
		if (!strchr(arg, '@'))
			return opt_err("--recv-sge-layout", arg, "expected LEN@OFF,...");
		return parse_recv_layout("--recv-sge-layout", arg, o);
	case 'n':
		o->iters_set = true;
		return parse_num("--iters", arg, UINT64_MAX, false, &o->iters);
	case 'D':
		return parse_duration(arg, &o->duration_ms);
	case OPT_FOREVER:
		o->forever = true;
		return 0;
	case OPT_REPORT_EVERY:
		return parse_report_every(arg, o);
	case OPT_WARMUP:
		return parse_u32("--warmup", arg, &o->warmup);
	case 't':
		o->depth_set = true;
		return parse_u32("--depth", arg, &o->depth);
	case 'l':
		return parse_u32("--batch", arg, &o->batch);
	case 'Q':
		o->signal_set = true;
		return parse_u32("--signal-every", arg, &o->signal_every);
	case OPT_IMM:
		if (parse_num("--imm", arg, UINT32_MAX, true, &v))
			return -1;
		o->imm = v;
		return 0;
	case OPT_INLINE:
		o->inline_data = true;
		return 0;
	case 'I':
		o->inline_size_set = true;
		if (parse_size("--inline-size", arg, UINT32_MAX, &v))
			return -1;
		o->inline_size = v;
		return 0;
	case OPT_VERIFY:
		o->verify = true;
		return 0;
	case OPT_PINGPONG:
		o->pingpong = true;
		return 0;
	case OPT_CM:
		if (inet_pton(AF_INET, arg, o->cm_addr) == 1) {
			o->cm_family = AF_INET;
		} else if (inet_pton(AF_INET6, arg, o->cm_addr) == 1) {
			o->cm_family = AF_INET6;
		} else {
			fprintf(stderr, "%s run: --cm: not an IPv4 or IPv6 address: '%s'\n",
				prog, arg);
			return -1;
		}
		return 0;
	case OPT_CONNECT:
		return parse_connect(arg, o);
	case OPT_CM_TIMEOUT:
		return parse_cm_timeout(arg, o);
	case 'q':
		return parse_qps(arg, &o->qps);
	case 'a':
		o->all_sizes = true;
		return 0;
	case 'j':
		o->json = true;
		return 0;
	case 'H':
		o->hist = true;
		return 0;
	case OPT_CSV:
		o->csv = true;
		return 0;
	case OPT_GBITS:
		o->report_gbits = true;
		return 0;
	case OPT_WIDE:
		o->wide = true;
		return 0;
	case OPT_PRINT:
		o->print_opts = true;
		return 0;
	case 'F':
		/* perftest's cpufreq warning: ibpost has none (see --help) */
	case 'z':
		/* perftest's data exchange: rdma_cm already (see --help) */
		return 0;
	case 'R':
		o->rdma_cm = true;
		return 0;
	case 'b':
		o->bidir = true;
		return 0;
	case OPT_OUT_JSON:
		if (!o->out_json_file)
			o->out_json_file = RUN_OUT_JSON_DEFAULT;
		return 0;
	case OPT_OUT_JSON_FILE:
		return parse_out_json_file(arg, o);
	case OPT_CPU_UTIL:
		o->cpu_util = true;
		return 0;
	case 'w':
		return parse_threshold("--min-bw", arg,
				       "MiB/s (Gb/s with --report-gbits)",
				       &o->min_bw);
	case 'y':
		return parse_threshold("--min-mpps", arg, "Mpps", &o->min_mpps);
	case OPT_MAX_P50:
		return parse_max_lat("--max-lat-p50", arg, &o->max_p50_us);
	case OPT_MAX_P99:
		return parse_max_lat("--max-lat-p99", arg, &o->max_p99_us);
	default:
		return -1;
	}
}

/* Defaults that depend on other options, and cross-option checks. */
static int finish_opts(struct run_opts *o)
{
	int sig;

	if (o->cm_family && o->peer.family) {
		fprintf(stderr, "%s: run: give --cm or --connect, not both (--cm connects the loopback pair through rdma_cm on this host, --connect runs against '%s serve' on another)\n",
			prog, prog);
		return -1;
	}
	/*
	 * The kernel checks N against the port's GID table; through rdma_cm
	 * (as perftest -x N -R HOST) the address decides the GID: N is kept
	 * for the output and not sent (cmd_run() says so).
	 */
	o->gid_unused = o->gid_index >= 0 &&
			(o->peer.family || o->cm_family || o->rdma_cm);
	if (o->bidir && o->peer.family) {
		fprintf(stderr, "%s: run: -b/--bidirectional: not with --connect: '%s serve' never posts toward its client (the server's QP only receives and answers; its buffers are the only ones the job registers), so run '%s serve' here and 'ibpost run --connect' from the other host as well\n",
			prog, prog, prog);
		return -1;
	}
	if (o->bidir && o->qps > RUN_MAX_QPS / 2) {
		fprintf(stderr, "%s: run: -b/--bidirectional runs -q's QPs each way: -q %u is above %u\n",
			prog, o->qps, RUN_MAX_QPS / 2);
		return -1;
	}
	if (o->bidir && o->pingpong) {
		fprintf(stderr, "%s: run: -b/--bidirectional with --pingpong: a ping-pong already goes both ways; give one\n",
			prog);
		return -1;
	}
	if (o->bidir)
		o->qps *= 2;
	if (o->cm_port) {
		if (!o->peer.family) {
			fprintf(stderr, "%s: run: -p/--cm-port is the port of --connect HOST (the loopback pair needs none)\n",
				prog);
			return -1;
		}
		if (o->peer.port && o->peer.port != o->cm_port) {
			fprintf(stderr, "%s: run: --connect names port %u, -p/--cm-port %u\n",
				prog, o->peer.port, o->cm_port);
			return -1;
		}
		o->peer.port = o->cm_port;
	}
	if (o->inline_data && o->inline_size_set) {
		fprintf(stderr, "%s: run: give --inline (every WR) or --inline-size N, not both\n",
			prog);
		return -1;
	}
	if (o->csv && (o->json || o->hist)) {
		fprintf(stderr, "%s: run: --csv prints neither JSON nor histograms: give --csv, --json or --hist\n",
			prog);
		return -1;
	}
	if (o->cm_timeout_set && !o->cm_family && !o->peer.family &&
	    !o->rdma_cm) {
		fprintf(stderr, "%s: run: --cm-timeout needs --connect, --cm or -R\n",
			prog);
		return -1;
	}
	if (o->nsges) {
		if (o->layout_set) {
			fprintf(stderr, "%s: run: give --layout or --sge-layout, not both\n",
				prog);
			return -1;
		}
		o->layout = IBPOST_LAYOUT_EXPLICIT;
		if (!o->nsge) {
			o->sge[0] = o->nsges;
			o->nsge = 1;
		}
		if (o->nsge > 1 || o->sge[0] > o->nsges) {
			fprintf(stderr, "%s: run: --sge-layout lists %u SGEs; --sge must be one value up to that\n",
				prog, o->nsges);
			return -1;
		}
		if (o->all_sizes) {
			fprintf(stderr, "%s: run: --all-sizes needs a generated layout, not --sge-layout\n",
				prog);
			return -1;
		}
	}
	if (!o->nsge) {
		o->sge[0] = 1;
		o->nsge = 1;
	}
	if (o->nrsges) {
		if (!o->recv_sge)
			o->recv_sge = o->nrsges;
		if (o->recv_sge > o->nrsges) {
			fprintf(stderr, "%s: run: the receive layout lists %u SGEs; --recv-sge %u is more\n",
				prog, o->nrsges, o->recv_sge);
			return -1;
		}
	}
	if (!o->size_set)
		o->size = o->nsges ? 0 : 65536;
	if (o->all_sizes && o->size_set) {
		fprintf(stderr, "%s: run: give --size or --all-sizes, not both\n", prog);
		return -1;
	}
	if (o->duration_ms && o->iters_set) {
		fprintf(stderr, "%s: run: give --iters or --duration, not both\n", prog);
		return -1;
	}
	if (o->forever && (o->duration_ms || o->iters_set)) {
		fprintf(stderr, "%s: run: --forever runs until a signal: give it, --iters or --duration\n",
			prog);
		return -1;
	}
	if (o->forever && (o->all_sizes || o->nsge > 1)) {
		fprintf(stderr, "%s: run: --forever runs one size and SGE count (no --all-sizes, one --sge value)\n",
			prog);
		return -1;
	}
	if (o->report_ms && o->json && (o->all_sizes || o->nsge > 1)) {
		fprintf(stderr, "%s: run: --report-every with --json: one size and SGE count (the progress objects are lines before the result's object)\n",
			prog);
		return -1;
	}
	if (o->forever) {
		o->duration_ms = IBPOST_DURATION_FOREVER;
		if (!o->report_set)
			o->report_ms = 5000;
	}
	if (o->duration_ms)
		o->iters = 0;
	/* An explicit --depth 0 goes to the kernel, which says why not. */
	if (!o->depth_set)
		o->depth = o->op == IBPOST_OP_READ ? RUN_READ_DEPTH : RUN_DEF_DEPTH;
	if (!o->signal_set) {
		sig = (int)o->depth - (int)o->batch + 1;
		o->signal_every = sig < 1 ? 1 : sig > 16 ? 16 : sig;
	}
	/* Receive WRs only exist for SEND; 0 (explicit) needs a list. */
	if (!o->recv_layout_set && o->op <= IBPOST_OP_SEND_IMM)
		o->recv_layout = IBPOST_LAYOUT_EQUAL;
	return 0;
}

/*
 * The command line of 'ibpost run' into @o, defaults and checks applied:
 * -1 to go on and run, else the exit status (0 after --help, 2 bad options).
 */
int runopt_parse(int argc, char **argv, struct run_opts *o)
{
	int rc;

	*o = (struct run_opts){
		.op = IBPOST_OP_WRITE, .layout = IBPOST_LAYOUT_EQUAL,
		.iters = 1000, .warmup = 16, .batch = 1, .qps = 1,
		.gid_index = -1, .min_bw = -1, .min_mpps = -1,
		.max_p50_us = -1, .max_p99_us = -1,
	};
	rc = opt_parse(&run_cmd, argc, argv, run_set, o);
	if (rc != OPT_GO)
		return rc;
	/* perftest's last argument: the server (ib_write_bw HOST) */
	if (optind == argc - 1 && !o->peer.family && !o->cm_family) {
		if (parse_connect(argv[optind], o))
			return 2;
		optind++;
	}
	if (optind < argc) {
		fprintf(stderr, "%s: run: unexpected argument '%s'\n", prog,
			argv[optind]);
		return 2;
	}
	if (finish_opts(o))
		return 2;
	return -1;
}

static void print_sges(const char *key, const struct ibpost_sge_desc *d,
		       unsigned int n)
{
	unsigned int i;

	printf("%s=", key);
	for (i = 0; i < n; i++)
		printf("%s%u@%u", i ? "," : "", d[i].length, d[i].offset);
	printf("\n");
}

/*
 * --print-options: every field of @o, one "key=value" line each, the
 * defaults applied and the device picked; /dev/ibpost is not opened.  The
 * host test (tools/tests/host/cli.sh) compares perftest's spellings with the
 * long options through it.
 */
void runopt_print(const struct run_opts *o)
{
	char addr[INET6_ADDRSTRLEN];
	unsigned int i;

	printf("dev=%s\ndev_why=%s\nport=%u\ngid_index=%d\nop=%s\n",
	       o->dev, o->dev_why, o->port, o->gid_index, out_op_name(o->op));
	printf("size=%llu\nsize_set=%d\nsge=", o->size, o->size_set);
	for (i = 0; i < o->nsge; i++)
		printf("%s%u", i ? "," : "", o->sge[i]);
	printf("\nlayout=%s\nlayout_set=%d\n", runopt_layout_name(o->layout),
	       o->layout_set);
	print_sges("sge_layout", o->sges, o->nsges);
	printf("recv_sge=%u\nrecv_layout=%s\nrecv_layout_set=%d\n",
	       o->recv_sge, runopt_layout_name(o->recv_layout),
	       o->recv_layout_set);
	print_sges("recv_sge_layout", o->rsges, o->nrsges);
	printf("seed=%llu\niters=%llu\niters_set=%d\nduration_ms=%u\nwarmup=%u\n",
	       o->seed, o->iters, o->iters_set, o->duration_ms, o->warmup);
	printf("depth=%u\ndepth_set=%d\nbatch=%u\nsignal_every=%u\nsignal_set=%d\n",
	       o->depth, o->depth_set, o->batch, o->signal_every,
	       o->signal_set);
	printf("imm=%u\ninline=%d\ninline_size=%u\ninline_size_set=%d\n",
	       o->imm, o->inline_data, o->inline_size, o->inline_size_set);
	printf("verify=%d\npingpong=%d\nall_sizes=%d\njson=%d\ncsv=%d\nhist=%d\nreport_gbits=%d\nwide=%d\n",
	       o->verify, o->pingpong, o->all_sizes, o->json, o->csv, o->hist,
	       o->report_gbits, o->wide);
	printf("cm=%s\n", o->cm_family ?
	       net_addr_str(addr, sizeof(addr), o->cm_family, o->cm_addr) : "");
	printf("connect=%s\ncm_port=%u\n", o->peer.family ?
	       net_addr_str(addr, sizeof(addr), o->peer.family, o->peer.addr) :
	       "", o->peer.port);
	printf("cm_timeout_ms=%u\ncm_timeout_set=%d\nqps=%u\n",
	       o->cm_timeout_ms, o->cm_timeout_set, o->qps);
	printf("forever=%d\nreport_ms=%u\nreport_set=%d\n", o->forever,
	       o->report_ms, o->report_set);
	printf("rdma_cm=%d\nbidir=%d\ngid_unused=%d\nout_json_file=%s\ncpu_util=%d\n",
	       o->rdma_cm, o->bidir, o->gid_unused,
	       o->out_json_file ? o->out_json_file : "", o->cpu_util);
	printf("min_bw=%g\nmin_mpps=%g\nmax_lat_p50_us=%g\nmax_lat_p99_us=%g\n",
	       o->min_bw, o->min_mpps, o->max_p50_us, o->max_p99_us);
}
