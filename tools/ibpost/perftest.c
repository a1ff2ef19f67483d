// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost run: perftest's options that ibpost does not take (ib_write_bw,
 * ib_read_bw, ib_send_bw, ib_*_lat --help), each refused with ibpost's
 * equivalent or a word that there is none.  The ones ibpost takes with
 * perftest's meaning are in runopt.c.
 */
#include <string.h>

#include "ibpost.h"

struct perftest_opt {
	char letter;		/* 0: a long option only */
	const char *name;	/* the long spelling, without "--" */
	const char *hint;
};

static const struct perftest_opt perftest_opts[] = {
	{ 'c', "connection", "ibpost has none: RC only" },
	{ 'C', "report-cycles", "ibpost has none: times are in microseconds, from the kernel's clock" },
	{ 'e', "events", "ibpost has none: the module reaps completions itself" },
	{ 'f', "margin", "ibpost has none: every measured WR counts (--warmup N posts some before)" },
	{ 'g', "mcg", "ibpost has none: RC only, no multicast" },
	{ 'H', "report-histogram", "use --hist (and --json for every number)" },
	{ 'L', "hop_limit", "ibpost has none" },
	{ 'm', "mtu", "ibpost has none: the port's active MTU is used" },
	{ 'M', "MGID", "ibpost has none: RC only, no multicast" },
	{ 'N', "noPeak", "not needed: ibpost reports no peak bandwidth" },
	{ 'O', "dualport", "ibpost has none: one port per job (-i/--port)" },
	{ 'o', "outs", "use -t/--depth (-o is --op here)" },
	{ 'r', "rx-depth", "ibpost has none: the module posts the receive WRs" },
	{ 'S', "sl", "ibpost has none: SL 0" },
	{ 'T', "tos", "ibpost has none" },
	{ 'u', "qp-timeout", "ibpost has none" },
	{ 'U', "report-unsorted", "ibpost has none: --hist, --json" },
	{ 'W', "report-counters", "ibpost has none" },
	{ 'X', "vector", "ibpost has none: -q N spreads QPs over CPUs" },
	{ 'z', "com_rdma_cm", "ibpost has none: --connect uses rdma_cm" },
	{ 0, "perform_warm_up", "use --warmup N" },
	{ 0, "use_old_post_send", "not needed: ibpost always posts with ib_post_send" },
	{ 0, "ipv6", "give --connect an IPv6 address" },
	{ 0, "source_ip", "ibpost has none: the route picks it" },
	{ 0, "dont_xchg_versions", "ibpost has none" },
	{ 0, "use_hugepages", "ibpost has none: the module allocates the buffers" },
	{ 0, "odp", "ibpost has none" },
	{ 0, "mr_per_qp", "ibpost has none: each job registers its own buffers" },
	{ 0, "reversed", "ibpost has none: --op read reads from the far side" },
	{ 0, "report-both", "not needed: with -b every QP pair has its row (qp0..N-1 one direction, qpN..2N-1 the other)" },
	{ 0, "tclass", "ibpost has none" },
	{ 0, "pkey_index", "ibpost has none" },
	{ 0, "retry_count", "ibpost has none" },
	{ 0, "rate_limit", "ibpost has none" },
	{ 0, "output", "use --json or --csv and pick the columns" },
};

static const struct perftest_opt *find_opt(int letter, const char *name,
					   size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(perftest_opts); i++) {
		const struct perftest_opt *p = &perftest_opts[i];

		if (letter ? p->letter == letter :
		    strlen(p->name) == len && !strncmp(p->name, name, len))
			return p;
	}
	return NULL;
}

/*
 * An option getopt_long() did not take: @c '?' unknown, ':' missing its
 * value; @letter the short option (0 for a long one), @arg the word it
 * was in.
 */
void perftest_unknown(int c, int letter, const char *arg)
{
	const struct perftest_opt *p = NULL;
	const char *name = NULL;
	size_t len = 0;

	if (c == ':') {
		if (letter)
			fprintf(stderr, "%s: run: -%c needs a value\n", prog,
				letter);
		else
			fprintf(stderr, "%s: run: %s needs a value\n", prog, arg);
		return;
	}
	if (!letter && arg && !strncmp(arg, "--", 2)) {
		name = arg + 2;
		len = strcspn(name, "=");
	}
	if (letter || name)
		p = find_opt(letter, name, len);
	if (!p) {
		if (letter)
			fprintf(stderr, "%s: run: unknown option '-%c'\n", prog,
				letter);
		else
			fprintf(stderr, "%s: run: unknown option '%s'\n", prog,
				arg);
		return;
	}
	if (p->letter)
		fprintf(stderr, "%s: run: perftest's -%c (--%s): %s\n", prog,
			p->letter, p->name, p->hint);
	else
		fprintf(stderr, "%s: run: perftest's --%s: %s\n", prog, p->name,
			p->hint);
}
