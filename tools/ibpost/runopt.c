// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost run: the options, their defaults and the checks across them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ibpost.h"

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

void help_run(FILE *f)
{
	fprintf(f,
		"usage: %s run --dev DEV [--op OP] [--size SIZE] [--sge N[,N...]]\n"
		"         [--sge-layout LEN@OFF,... | --layout NAME] [--seed S]\n"
		"         [--recv-sge N] [--recv-layout NAME | --recv-sge-layout LEN@OFF,...]\n"
		"         [--iters N | --duration SEC] [--warmup N] [--depth D]\n"
		"         [--batch B] [--signal-every K] [--imm X] [--inline]\n"
		"         [--verify] [--pingpong] [--all-sizes] [--json] [--hist]\n"
		"         [--port P] [--cm ADDR | --connect HOST[:PORT]] [--cm-timeout MS]\n"
		"         [-q N]\n"
		"\n"
		"Connect a loopback RC QP pair on DEV inside the kernel, post work\n"
		"requests with ib_post_send and report bandwidth, message rate and\n"
		"post-to-completion latency, one row per message size.  With --connect\n"
		"the target QP is on another host, run by '%s serve' there.\n"
		"\n"
		"  -d, --dev NAME          RDMA device (e.g. rxe_lo)\n"
		"      --port P            port number (default: the first)\n"
		"  -o, --op OP             send, send_imm, write (default), write_imm, read\n"
		"  -s, --size SIZE         bytes per WR, K/M suffixes are 1024-based\n"
		"                          (default 64K; with --sge-layout the sum of its lengths)\n"
		"      --sge N[,N...]      SGEs per WR (default 1); a list runs each\n"
		"      --layout NAME       equal (default), page-cross, unaligned, random\n"
		"      --sge-layout LIST   explicit SGEs, LEN@OFF within the WR's buffer slot,\n"
		"                          e.g. 256@0,512@1024,128@2048\n"
		"      --seed S            seed of the random layout (default 0)\n"
		"      --recv-sge N        SGEs per receive WR (send ops; default --sge)\n"
		"      --recv-layout NAME  layout of the receive WRs (default equal)\n"
		"      --recv-sge-layout LIST  explicit receive SGEs, LEN@OFF,...\n"
		"  -n, --iters N           measured WRs (default 1000)\n"
		"  -D, --duration SEC      run for SEC seconds instead of --iters\n"
		"      --warmup N          WRs posted before measuring (default 16)\n"
		"      --depth D           most WRs outstanding (default 64, read 16)\n"
		"      --batch B           WRs chained per ib_post_send (default 1)\n"
		"      --signal-every K    signal one WR in K (default min(16, D - B + 1))\n"
		"      --imm X             immediate data of send_imm / write_imm\n"
		"      --inline            post with IB_SEND_INLINE\n"
		"      --verify            stamp every byte and check it arrived\n"
		"      --pingpong          latency as ib_write_lat measures it: WRITE a\n"
		"                          message, the far end WRITEs one back when its\n"
		"                          last byte lands; t = half that round trip\n"
		"                          (write, batch 1)\n"
		"      --cm ADDR           connect the QP pair through rdma_cm to ADDR, an\n"
		"                          IPv4/IPv6 address of the device's netdev (default:\n"
		"                          connect directly, which also works on rxe over lo)\n"
		"      --connect HOST[:PORT]  run against '%s serve' on another host: the\n"
		"                          initiator QP is on DEV here, the target QP and\n"
		"                          its buffers are the server's; HOST is A.B.C.D,\n"
		"                          A.B.C.D:PORT, [IPV6], [IPV6]:PORT or a bare IPV6\n"
		"                          address (numeric, no port); PORT defaults to %u.\n"
		"                          Not with --cm.  Refusals and failures the server\n"
		"                          reported say \"by the peer (conn N)\"\n"
		"      --cm-timeout MS     bound on each of address resolution, route\n"
		"                          resolution and connection set-up (default %u,\n"
		"                          at most %u); with --connect or --cm\n"
		"  -q, --qps N             run N identical jobs at once (1..%u, default 1),\n"
		"                          each its own QP (and connection), issued from its\n"
		"                          own thread pinned to CPU i %% ncpus; one row per\n"
		"                          QP (qp0, qp1, ...) and a total row: bytes and WRs\n"
		"                          summed, bandwidth and rate over the longest\n"
		"                          elapsed time, latencies the median over the QPs\n"
		"                          of each column.  --json: each result has \"qps\"\n"
		"                          (one object per QP) and \"total\"\n"
		"  -a, --all-sizes         run 2, 4, 8, ... 4M bytes\n"
		"  -j, --json              print one JSON object\n"
		"      --hist              print the log2 latency histogram too\n"
		"  -h, --help              this text\n"
		"\n"
		"Exit status: 0 ok, 1 the kernel (or the peer) refused or the run\n"
		"failed (with -q: any QP; each failing QP's message starts \"qp I: \"),\n"
		"2 bad options, 130 interrupted (the partial rows are printed).\n",
		prog, prog, prog, IBPOST_PEER_PORT, IBPOST_CM_TIMEOUT_MS,
		IBPOST_CM_TIMEOUT_MAX, RUN_MAX_QPS);
}

static int opt_err(const char *opt, const char *arg, const char *why)
{
	fprintf(stderr, "%s: run: bad %s '%s': %s\n", prog, opt, arg, why);
	return -1;
}

/* A byte count: digits with an optional K or M (1024-based) suffix. */
static int parse_size(const char *opt, const char *s, unsigned long long max,
		      unsigned long long *out)
{
	unsigned long long v, mul = 1;
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return opt_err(opt, s, "not a size");
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return opt_err(opt, s, "not a size");
	if (*end == 'K' || *end == 'k')
		mul = 1024;
	else if (*end == 'M' || *end == 'm')
		mul = 1024 * 1024;
	if (mul != 1)
		end++;
	if (*end)
		return opt_err(opt, s, "not a size (digits, then K or M)");
	if (v > max / mul)
		return opt_err(opt, s, "too large");
	*out = v * mul;
	return 0;
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

static int parse_duration(const char *s, unsigned int *ms)
{
	double v;
	char *end;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v * 1000 > UINT32_MAX)
		return opt_err("--duration", s, "expected seconds above 0");
	*ms = v * 1000 + 0.5;
	if (!*ms)
		*ms = 1;
	return 0;
}

enum {
	OPT_PORT = 256, OPT_SGE, OPT_LAYOUT, OPT_SGE_LAYOUT, OPT_SEED,
	OPT_RECV_SGE, OPT_RECV_LAYOUT, OPT_RECV_SGE_LAYOUT, OPT_WARMUP,
	OPT_DEPTH, OPT_BATCH, OPT_SIGNAL, OPT_IMM, OPT_INLINE, OPT_VERIFY,
	OPT_HIST, OPT_CM, OPT_PINGPONG, OPT_CONNECT, OPT_CM_TIMEOUT,
};

static const struct option run_longopts[] = {
	{ "dev", required_argument, NULL, 'd' },
	{ "port", required_argument, NULL, OPT_PORT },
	{ "op", required_argument, NULL, 'o' },
	{ "size", required_argument, NULL, 's' },
	{ "sge", required_argument, NULL, OPT_SGE },
	{ "layout", required_argument, NULL, OPT_LAYOUT },
	{ "sge-layout", required_argument, NULL, OPT_SGE_LAYOUT },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "recv-sge", required_argument, NULL, OPT_RECV_SGE },
	{ "recv-layout", required_argument, NULL, OPT_RECV_LAYOUT },
	{ "recv-sge-layout", required_argument, NULL, OPT_RECV_SGE_LAYOUT },
	{ "iters", required_argument, NULL, 'n' },
	{ "duration", required_argument, NULL, 'D' },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "depth", required_argument, NULL, OPT_DEPTH },
	{ "batch", required_argument, NULL, OPT_BATCH },
	{ "signal-every", required_argument, NULL, OPT_SIGNAL },
	{ "imm", required_argument, NULL, OPT_IMM },
	{ "inline", no_argument, NULL, OPT_INLINE },
	{ "verify", no_argument, NULL, OPT_VERIFY },
	{ "pingpong", no_argument, NULL, OPT_PINGPONG },
	{ "all-sizes", no_argument, NULL, 'a' },
	{ "json", no_argument, NULL, 'j' },
	{ "hist", no_argument, NULL, OPT_HIST },
	{ "cm", required_argument, NULL, OPT_CM },
	{ "connect", required_argument, NULL, OPT_CONNECT },
	{ "cm-timeout", required_argument, NULL, OPT_CM_TIMEOUT },
	{ "qps", required_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

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
	fprintf(stderr, "%s: run: bad --connect '%s': %s (want A.B.C.D[:PORT], [IPV6][:PORT] or IPV6)\n",
		prog, arg, why);
	return -1;
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
	unsigned long long v;

	o->cm_timeout_set = true;
	if (parse_num("--cm-timeout", arg, UINT32_MAX, false, &v))
		return -1;
	if (v > IBPOST_CM_TIMEOUT_MAX)
		return opt_err("--cm-timeout", arg,
			       "at most 600000 ms (0: the default, 5000)");
	o->cm_timeout_ms = v;
	return 0;
}

/* One option; 1 when --help was asked, -1 on a bad one. */
static int parse_opt(int c, const char *arg, struct run_opts *o)
{
	unsigned long long v;
	int n;

	switch (c) {
	case 'd':
		if (!*arg || strlen(arg) >= sizeof(o->dev))
			return opt_err("--dev", arg, "empty or too long");
		strcpy(o->dev, arg);
		return 0;
	case OPT_PORT:
		return parse_u32("--port", arg, &o->port);
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
	case OPT_WARMUP:
		return parse_u32("--warmup", arg, &o->warmup);
	case OPT_DEPTH:
		o->depth_set = true;
		return parse_u32("--depth", arg, &o->depth);
	case OPT_BATCH:
		return parse_u32("--batch", arg, &o->batch);
	case OPT_SIGNAL:
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
	case OPT_HIST:
		o->hist = true;
		return 0;
	case 'h':
		return 1;
	default:
		return -1;
	}
}

/* Defaults that depend on other options, and cross-option checks. */
static int finish_opts(struct run_opts *o)
{
	int sig;

	if (!o->dev[0]) {
		fprintf(stderr, "%s: run: --dev is required (see '%s devices')\n",
			prog, prog);
		return -1;
	}
	if (o->cm_family && o->peer.family) {
		fprintf(stderr, "%s: run: give --cm or --connect, not both (--cm connects the loopback pair through rdma_cm on this host, --connect runs against '%s serve' on another)\n",
			prog, prog);
		return -1;
	}
	if (o->cm_timeout_set && !o->cm_family && !o->peer.family) {
		fprintf(stderr, "%s: run: --cm-timeout needs --connect or --cm\n",
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
	int c, rc;

	*o = (struct run_opts){
		.op = IBPOST_OP_WRITE, .layout = IBPOST_LAYOUT_EQUAL,
		.iters = 1000, .warmup = 16, .batch = 1, .qps = 1,
	};
	while ((c = getopt_long(argc, argv, "d:o:s:n:D:ajhq:", run_longopts,
				NULL)) != -1) {
		rc = parse_opt(c, optarg, o);
		if (rc > 0) {
			help_run(stdout);
			return 0;
		}
		if (rc < 0) {
			fprintf(stderr, "try '%s run --help'\n", prog);
			return 2;
		}
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
