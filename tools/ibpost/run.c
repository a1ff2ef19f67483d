// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost run: one transfer job per message size through IBPOST_IOC_RUN,
 * reported like perftest.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "ibpost.h"

#define RUN_MAX_SWEEP	64
#define RUN_DEF_DEPTH	64
#define RUN_READ_DEPTH	16
#define RUN_MAX_QPS	64

static const char *const layout_names[IBPOST_LAYOUT_MAX] = {
	[IBPOST_LAYOUT_EXPLICIT] = "explicit",
	[IBPOST_LAYOUT_EQUAL] = "equal",
	[IBPOST_LAYOUT_PAGE_CROSS] = "page-cross",
	[IBPOST_LAYOUT_UNALIGNED] = "unaligned",
	[IBPOST_LAYOUT_RANDOM] = "random",
};

struct run_opts {
	char dev[IBPOST_NAME_MAX];
	unsigned int port;
	unsigned int op;
	unsigned long long size;
	bool size_set;
	unsigned int sge[RUN_MAX_SWEEP];
	unsigned int nsge;		/* 0: not given */
	unsigned int layout;
	bool layout_set;
	struct ibpost_sge_desc sges[IBPOST_MAX_SGE];
	unsigned int nsges;		/* explicit send layout entries */
	unsigned int recv_sge;
	unsigned int recv_layout;
	bool recv_layout_set;
	struct ibpost_sge_desc rsges[IBPOST_MAX_SGE];
	unsigned int nrsges;
	unsigned long long seed;
	unsigned long long iters;
	bool iters_set;
	unsigned int duration_ms;
	unsigned int warmup;
	unsigned int depth;
	bool depth_set;
	unsigned int batch;
	unsigned int signal_every;
	bool signal_set;
	unsigned int imm;
	bool inline_data;
	bool verify;
	bool pingpong;
	bool all_sizes;
	bool json;
	bool hist;
	unsigned short cm_family;	/* 0: connect the QPs directly */
	unsigned char cm_addr[16];
	struct net_addr peer;		/* --connect; family 0: none */
	unsigned int cm_timeout_ms;
	bool cm_timeout_set;
	unsigned int qps;		/* jobs at once (-q) */
};

struct run_row {
	unsigned long long bytes;	/* message size */
	unsigned int num_sge;
	int qp;				/* -q index, -1 with one QP */
	int cpu;			/* CPU its thread ran on (-q) */
	struct ibpost_result res;
	unsigned int reason;		/* IBPOST_R_NONE unless it failed */
};

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

static void fill_run(const struct run_opts *o, struct ibpost_run *r,
		     unsigned long long size, unsigned int num_sge)
{
	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
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
	if (o->inline_data)
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
	}
	r->cm_timeout_ms = o->cm_timeout_ms;
}

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
	printf("%-9s %5s %9s %11s %9s %13s %10s %12s %10s %10s %12s %10s  %s\n",
	       "#bytes", "#sge", "#iters", "BW[MiB/s]", "BW[Gb/s]",
	       "MsgRate[Mpps]", "t_min[us]", "t_median[us]", "t_avg[us]",
	       "t_p99[us]", "t_p99.9[us]", "t_max[us]", "verify");
}

static void print_header(const struct run_opts *o, const struct ibpost_result *r)
{
	char addr[INET6_ADDRSTRLEN];

	printf("# device %s", o->dev);
	if (o->port)
		printf(" port %u", o->port);
	if (o->peer.family)
		printf(", peer %s port %u", peer_str(addr, sizeof(addr), o),
		       peer_port(o));
	printf(", op %s, layout %s", out_op_name(o->op), layout_names[o->layout]);
	if (o->layout == IBPOST_LAYOUT_RANDOM)
		printf(" (seed %llu)", o->seed);
	if (o->op <= IBPOST_OP_SEND_IMM)
		printf(", recv layout %s", layout_names[o->recv_layout]);
	printf(", depth %u, batch %u, signal-every %u, inline %s (max_inline %u)",
	       o->depth, o->batch, o->signal_every, o->inline_data ? "on" : "off",
	       r->max_inline);
	if (o->duration_ms)
		printf(", duration %.3f s", o->duration_ms / 1000.0);
	printf(", warmup %u", o->warmup);
	if (o->pingpong)
		printf(", ping-pong (t = half a round trip)");
	printf("\n");
	if (o->qps > 1)
		printf("# %u QPs at once, qp i on CPU i %% ncpus; total: bytes and WRs summed, bandwidth and rate over the longest elapsed time, t_* the median over the QPs of each column\n",
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
	printf("%-9llu %5u %9llu %11.2f %9.3f %13.6f %10.2f %12.2f %10.2f %10.2f %12.2f %10.2f  %s%s\n",
	       w->bytes, w->num_sge, (unsigned long long)r->wrs, bw_mib(r),
	       bw_gbps(r), mpps(r), r->lat_min_ns / 1e3, r->lat_median_ns / 1e3,
	       r->lat_avg_ns / 1e3, r->lat_p99_ns / 1e3, r->lat_p999_ns / 1e3,
	       r->lat_max_ns / 1e3, v, r->interrupted ? " (interrupted)" : "");
	fflush(stdout);
}

static void print_hist(const struct run_row *w)
{
	const struct ibpost_result *r = &w->res;
	unsigned long long most = 0;
	unsigned int i, j, bar;

	printf("\n# latency histogram, ");
	if (w->qp >= 0)
		printf("qp%d, ", w->qp);
	printf("%llu bytes, %u sge (%llu samples)\n",
	       w->bytes, w->num_sge, (unsigned long long)r->lat_samples);
	for (i = 0; i < IBPOST_HIST_BUCKETS; i++)
		if (r->hist[i] > most)
			most = r->hist[i];
	for (i = 0; i < IBPOST_HIST_BUCKETS; i++) {
		if (!r->hist[i])
			continue;
		bar = most ? (r->hist[i] * 50 + most - 1) / most : 0;
		printf("  >= %12.3f us %10llu  ", (double)(1ULL << i) / 1e3,
		       (unsigned long long)r->hist[i]);
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
	       out_op_name(o->op), o->port, layout_names[o->layout]);
	if (o->nsges)
		json_sge_list("sge_layout", o->sges, o->nsges);
	if (o->op <= IBPOST_OP_SEND_IMM) {
		printf(", \"recv_layout\": \"%s\", \"recv_sge\": %u",
		       layout_names[o->recv_layout], o->recv_sge);
		if (o->nrsges)
			json_sge_list("recv_sge_layout", o->rsges, o->nrsges);
	}
	printf(", \"seed\": %llu, \"iters\": %llu, \"duration_ms\": %u, \"warmup\": %u, \"depth\": %u, \"batch\": %u, \"signal_every\": %u, \"imm\": %u, \"inline\": %s, \"verify\": %s, \"pingpong\": %s, \"max_inline\": %u",
	       o->seed, o->iters, o->duration_ms, o->warmup, o->depth, o->batch,
	       o->signal_every, o->imm, o->inline_data ? "true" : "false",
	       o->verify ? "true" : "false", o->pingpong ? "true" : "false",
	       max_inline);
	json_peer_params(o);
	printf("}, \"results\": [");
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
		printf(", \"samples\": %llu",
		       (unsigned long long)r->lat_samples);
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

/* What a failed run found, after the refusal line. */
static void print_failure(const struct ibpost_result *r, unsigned int reason)
{
	unsigned int i;

	if (reason == IBPOST_R_WC_ERROR || r->wc_errors) {
		fprintf(stderr, "  first error completion: %s (%u), vendor_err 0x%x, wr %u\n",
			out_wc_status(r->first_err_status), r->first_err_status,
			r->first_err_vendor, r->first_err_wr);
		fprintf(stderr, "  error completions: %u:", r->wc_errors);
		for (i = 1; i < IBPOST_WC_STATUS_MAX; i++)
			if (r->wc_status[i])
				fprintf(stderr, " %s %u", out_wc_status(i), r->wc_status[i]);
		fputc('\n', stderr);
	}
	if (reason == IBPOST_R_VERIFY || r->verify_errors)
		fprintf(stderr, "  first mismatch: wr %u, sge %u, offset %u: expected 0x%02x, got 0x%02x; %u bad bytes in all\n",
			r->verify_wr, r->verify_sge, r->verify_offset,
			r->verify_expected, r->verify_got, r->verify_errors);
}

/*
 * The line of a refused or failed job (nothing posted: refused; else it
 * failed on the way), whether the server of a --connect run reported it,
 * and what it found.  With -q the line starts "qp I: ".
 */
static void print_run_error(const struct ibpost_run *r, int err, int qp)
{
	bool refused = !r->result.posted;

	if (qp >= 0)
		fprintf(stderr, "qp %d: ", qp);
	fprintf(stderr, "%s: run %s", prog, refused ? "refused" : "failed");
	if (r->result.peer && refused)
		fprintf(stderr, " by the peer (conn %u)", r->result.peer_conn);
	fprintf(stderr, ": %s", strerror(err));
	if (r->status.reason != IBPOST_R_NONE) {
		fputs(": ", stderr);
		ctl_print_status(stderr, &r->status);
	}
	if (r->result.peer && !refused)
		fprintf(stderr, " (reported by the peer, conn %u)",
			r->result.peer_conn);
	fputc('\n', stderr);
	if (err == ENOTTY)
		fprintf(stderr, "  (this ibpost module has no IBPOST_IOC_RUN)\n");
	print_failure(&r->result, r->status.reason);
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
	unsigned int npoints;	/* entries of "results" (-q) */
	bool started;		/* header printed */
	bool sweep;		/* more than one run */
};

static void start_output(struct run_state *s, const struct ibpost_result *r)
{
	if (s->started)
		return;
	s->started = true;
	if (s->o->json)
		json_params(s->o, r->max_inline);
	else
		print_header(s->o, r);
}

static void end_output(struct run_state *s)
{
	unsigned int i;

	if (s->o->json) {
		if (!s->started)
			json_params(s->o, 0);
		printf("]}\n");
		return;
	}
	if (s->o->hist)
		for (i = 0; i < s->nrows; i++)
			print_hist(&s->rows[i]);
}

/* Bytes per WR of @r: its size, or what @res measured (explicit layouts). */
static unsigned long long msg_bytes(const struct ibpost_run *r,
				    const struct ibpost_result *res)
{
	if (r->msg_size || !res || !res->wrs)
		return r->msg_size;
	return res->bytes / res->wrs;
}

/* Keep the row of @r (for --hist) and return it. */
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
	return w;
}

static void add_row(struct run_state *s, const struct ibpost_run *r)
{
	struct run_row *w = keep_row(s, r, -1, -1);

	if (s->o->json)
		json_row(s->o, w, s->nrows == 1);
	else
		print_row(s->o, w, NULL);
}

static void print_skip_note(const struct run_state *s,
			    const struct ibpost_run *r)
{
	FILE *f = s->o->json ? stderr : stdout;

	fprintf(f, "# note: %llu bytes, %u sge skipped", (unsigned long long)r->msg_size,
		r->num_sge);
	if (r->result.peer)
		fprintf(f, " (refused by the peer, conn %u)",
			r->result.peer_conn);
	fputs(": ", f);
	ctl_print_status(f, &r->status);
	fputc('\n', f);
}

/* One ioctl: 0 ok or skipped, 1 failed, 130 interrupted. */
static int run_one(int fd, struct run_state *s, unsigned long long size,
		   unsigned int num_sge)
{
	struct ibpost_run r;
	int err;

	fill_run(s->o, &r, size, num_sge);
	if (!ioctl(fd, IBPOST_IOC_RUN, &r)) {
		start_output(s, &r.result);
		add_row(s, &r);
		return 0;
	}
	err = errno;
	if (err == EINTR) {
		if (r.result.interrupted || r.result.wrs) {
			r.result.interrupted = 1;
			r.status.reason = IBPOST_R_NONE;
			start_output(s, &r.result);
			add_row(s, &r);
		}
		fprintf(stderr, "%s: run interrupted\n", prog);
		return 130;
	}
	if (s->sweep && skippable(&r, err)) {
		print_skip_note(s, &r);
		return 0;
	}
	print_run_error(&r, err, -1);
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

static void json_qp_error(const struct run_opts *o, const struct qp_job *j,
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

/* A QP that failed: its "qp I: " line, and its entry of "qps". */
static void report_qp_failure(struct run_state *s, struct qp_job *j, int qp,
			      bool first)
{
	const struct run_opts *o = s->o;
	unsigned int reason = j->run.status.reason;

	if (j->no_thread)
		fprintf(stderr, "qp %d: %s: cannot start its thread: %s\n", qp,
			prog, strerror(j->err));
	else
		print_run_error(&j->run, j->err, qp);
	if (!o->json)
		return;
	if (!j->no_thread &&
	    (reason == IBPOST_R_WC_ERROR || reason == IBPOST_R_VERIFY))
		json_row(o, keep_row(s, &j->run, qp, j->cpu), first);
	else
		json_qp_error(o, j, qp, first);
}

static void report_qp_row(struct run_state *s, struct qp_job *j, int qp,
			  bool first)
{
	struct run_row *w = keep_row(s, &j->run, qp, j->cpu);
	char label[16];

	if (s->o->json) {
		json_row(s->o, w, first);
		return;
	}
	snprintf(label, sizeof(label), "qp%d", qp);
	print_row(s->o, w, label);
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
	json_lat("lat_ns_median_of_qps", r, false);
	printf(", \"wc_errors\": %u, \"verify_errors\": %u, \"interrupted\": %s",
	       r->wc_errors, r->verify_errors,
	       r->interrupted ? "true" : "false");
	if (o->peer.family)
		printf(", \"peer_msgs\": %llu",
		       (unsigned long long)r->peer_msgs);
	printf("}}");
}

/* The total row (text) or object (JSON) of the QPs that have a row. */
static void report_total(struct run_state *s, const struct qp_job *jobs,
			 const struct ibpost_result *const *res,
			 unsigned int nres, unsigned int nfail)
{
	struct run_row w = { .qp = -1, .cpu = -1 };

	qps_total(res, nres, &w.res);
	w.bytes = msg_bytes(&jobs[0].run, &w.res);
	w.num_sge = jobs[0].run.num_sge;
	if (s->o->json)
		json_total(s->o, &w, nres, nfail);
	else if (nres)
		print_row(s->o, &w, "total");
}

static void warn_pins(const struct qp_job *jobs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (jobs[i].pin_err)
			fprintf(stderr, "qp %u: %s: cannot pin its thread to CPU %d: %s (ran unpinned)\n",
				i, prog, jobs[i].cpu, strerror(jobs[i].pin_err));
}

/*
 * One -q point: the QPs in order (a row, or on stderr the message of one
 * that failed), then the total.  Without any row, text output stays empty
 * (like one refused QP); JSON still lists the QPs and their errors.
 */
static void print_point(struct run_state *s, struct qp_job *jobs,
			unsigned int n, const enum qp_end *end,
			const struct ibpost_result *const *res,
			unsigned int nres, unsigned int nbad)
{
	bool open = nres || s->o->json, first = true;
	unsigned int i;

	if (open) {
		start_output(s, nres ? res[0] : &jobs[0].run.result);
		if (s->o->json)
			printf("%s{\"bytes\": %llu, \"num_sge\": %u, \"qps\": [",
			       s->npoints++ ? ", " : "",
			       msg_bytes(&jobs[0].run, nres ? res[0] : NULL),
			       jobs[0].run.num_sge);
	}
	for (i = 0; i < n; i++) {
		if (end[i] == QP_ROW)
			report_qp_row(s, &jobs[i], i, first);
		else if (end[i] != QP_EMPTY)
			report_qp_failure(s, &jobs[i], i, first);
		first &= end[i] == QP_EMPTY;
	}
	if (open)
		report_total(s, jobs, res, nres, nbad);
}

/* Sort out how the jobs of one -q point ended and print it: 0, 1 or 130. */
static int report_qps(struct run_state *s, struct qp_job *jobs, unsigned int n)
{
	const struct ibpost_result *res[RUN_MAX_QPS];
	enum qp_end end[RUN_MAX_QPS];
	unsigned int i, nres = 0, nskip = 0, nfail = 0;
	bool intr = interrupted();

	for (i = 0; i < n; i++) {
		intr |= jobs[i].err == EINTR;
		end[i] = qp_end(s, &jobs[i]);
		if (end[i] == QP_ROW)
			res[nres++] = &jobs[i].run.result;
		nskip += end[i] == QP_SKIP;
		nfail += end[i] == QP_FAIL;
	}
	warn_pins(jobs, n);
	if (nskip == n) {
		print_skip_note(s, &jobs[0].run);
		return 0;
	}
	if (nres || nfail + nskip)
		print_point(s, jobs, n, end, res, nres, nfail + nskip);
	if (intr) {
		fprintf(stderr, "%s: run interrupted\n", prog);
		return 130;
	}
	return nfail + nskip ? 1 : 0;
}

/* -q N: the N jobs of one size and SGE count at once. */
static int run_qps(int fd, struct run_state *s, unsigned long long size,
		   unsigned int num_sge)
{
	unsigned int i, n = s->o->qps;
	struct qp_job *jobs;
	int rc;

	jobs = calloc(n, sizeof(*jobs));
	if (!jobs) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	for (i = 0; i < n; i++)
		fill_run(s->o, &jobs[i].run, size, num_sge);
	if (qps_run(fd, jobs, n, SIGINT, interrupted)) {
		fprintf(stderr, "%s: run: cannot start %u jobs: %s\n", prog, n,
			strerror(errno));
		free(jobs);
		return 1;
	}
	rc = report_qps(s, jobs, n);
	free(jobs);
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
	s.rows = calloc(nsizes * o->nsge * o->qps, sizeof(*s.rows));
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
				rc = run_qps(fd, &s, sizes[i], o->sge[j]);
			else
				rc = run_one(fd, &s, sizes[i], o->sge[j]);
		}
	}
	if (s.started || o->json)
		end_output(&s);
	free(s.rows);
	return rc;
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o = {
		.op = IBPOST_OP_WRITE, .layout = IBPOST_LAYOUT_EQUAL,
		.iters = 1000, .warmup = 16, .batch = 1, .qps = 1,
	};
	struct sigaction sa;
	int c, fd, rc;

	while ((c = getopt_long(argc, argv, "d:o:s:n:D:ajhq:", run_longopts,
				NULL)) != -1) {
		rc = parse_opt(c, optarg, &o);
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
	if (finish_opts(&o))
		return 2;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;	/* no SA_RESTART: the ioctl returns EINTR */
	sigaction(SIGINT, &sa, NULL);

	fd = ctl_open();
	if (fd < 0)
		return 1;
	rc = run_all(fd, &o);
	close(fd);
	return rc;
}
