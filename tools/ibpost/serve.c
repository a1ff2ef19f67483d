// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost serve: the far end of 'ibpost run --connect' on another host.  The
 * server lives in the kernel (IBPOST_IOC_SERVE) for as long as /dev/ibpost
 * stays open; this prints its events, one line each, until SIGINT/SIGTERM.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ibpost.h"
#include "json.h"
#include "opt.h"

struct serve_opts {
	struct net_addr addr;		/* family 0: every address */
	unsigned int port;		/* 0: IBPOST_PEER_PORT */
	unsigned int max_conns;
	unsigned int idle_ms;
	unsigned int max_mem_mib;
	unsigned int max_job_ms;
	unsigned int max_per_addr;
	unsigned int keep_s;
	bool cpu_record;		/* --cpu-record: IBPOST_SERVE_CPU_RECORD */
	bool json;
	bool wide;			/* --wide: every --allow network */
	bool stamp;			/* text lines start with the time */
	bool print;			/* --print-options: print, serve not */
	struct opt_conf conf;		/* --config, --check-config */
	/* --allow: who may connect (none given: every address) */
	struct ibpost_serve_allow allow[IBPOST_SERVE_ALLOW_MAX];
	unsigned int nallow;
};

/*
 * --max-keep unless told: ibpost_blk's default ctrl_loss_tmo, so that its
 * devices outlive any cut they keep trying through (Documentation/blk.rst).
 */
#define SERVE_KEEP_DEFAULT	600

static sig_atomic_t got_stop;

static void on_stop(int sig)
{
	(void)sig;
	__atomic_store_n(&got_stop, 1, __ATOMIC_RELAXED);
	/* Should the signal land just before the ioctl, SIGALRM ends it. */
	alarm(1);
}

static void on_alarm(int sig)
{
	(void)sig;
}

static bool stopping(void)
{
	return __atomic_load_n(&got_stop, __ATOMIC_RELAXED);
}

static void serve_about(FILE *f)
{
	fprintf(f,
		"Serve '%s run --connect' clients on other hosts from the kernel: listen\n"
		"with rdma_cm and give each client the target QP, the receive buffers and\n"
		"the MRs its RDMA WRITEs and READs land in; check what arrives and report\n"
		"it back to the client.  Runs until SIGINT or SIGTERM; every connection\n"
		"is closed when it stops.\n", prog);
}

static void serve_tail(FILE *f)
{
	fprintf(f,
		"Refusals name the limit:\n"
		"  --allow:                     \"%s\"\n"
		"  --max-conns, --max-per-addr: \"%s\"\n"
		"  --max-mem, %u MRs:        \"%s\"\n"
		"\n"
		"One line per event on stdout:\n"
		"  serve: listening on ADDR port P, clients from NETS\n"
		"                                          (ADDR * for every address; NETS\n"
		"                                          the --allow networks, or any)\n"
		"  serve: limits: C conns, A per address, M MiB pinned, J ms a job, idle I ms\n"
		"                                          [, keep up to K s]\n"
		"  serve: cpu record: a client that asks gets this host's CPU time over its job\n"
		"                                          (with --cpu-record)\n"
		"  conn N: connected from ADDR port P\n"
		"  conn N: job OP size S depth D slots K[, keep G s of A asked]\n"
		"                                          (a session that asked its\n"
		"                                          region kept A s after a loss)\n"
		"  conn N: refused: ERROR: REASON (value V, limit L)\n"
		"  conn N: done: M msgs, B bytes, E verify errors\n"
		"  conn N: lost: ERROR: REASON[, wc status STATUS]\n"
		"  conn N: kept: session S for K s after: ERROR: REASON\n"
		"  conn N: resumed: session S (resume K) from ADDR port P\n"
		"  serve: D events dropped                 (before an event, when this\n"
		"                                          command fell behind)\n"
		"  serve: stopped: ERROR                   (the device went away)\n"
		"  serve: stopping                         (SIGINT or SIGTERM; on stderr\n"
		"                                          with --json)\n"
		"\n"
		"Each text line starts with the local time (2026-12-04T16:40:24.123+0000)\n"
		"unless standard output is journald's (JOURNAL_STREAM), which stamps\n"
		"lines itself, or IBPOST_SERVE_STAMP=0 is set (1: always).\n"
		"\n"
		"A TIME is a number with ns, us, ms, s, m or h (" OPT_TIME_FORMS ",\n"
		"1.5s), or a bare number in the unit its option names.  A SIZE is a\n"
		"number with K, M, G or T, 1024-based (" OPT_SIZE_FORMS "), or bare in\n"
		"the unit its option names.\n"
		"\n"
		"Exit status: 0 stopped by SIGINT or SIGTERM, 1 the kernel refused or\n"
		"serving stopped, 2 bad options.\n",
		ctl_reason_str(IBPOST_R_PEER_DENIED),
		ctl_reason_str(IBPOST_R_PEER_BUSY), IBPOST_SRV_MRS,
		ctl_reason_str(IBPOST_R_SRV_MEM));
}

enum {
	SERVE_ADDR = OPT_LONG, SERVE_ALLOW, SERVE_MAX_CONNS, SERVE_IDLE,
	SERVE_MAX_MEM, SERVE_MAX_JOB, SERVE_MAX_PER_ADDR, SERVE_WIDE,
	SERVE_KEEP, SERVE_CPU_RECORD, SERVE_CONFIG, SERVE_CHECK_CONFIG,
	SERVE_PRINT,
};

static const struct opt serve_opts_table[] = {
	{ .name = "addr", .key = SERVE_ADDR, .arg = "ADDR",
	  .help = "IPv4 or IPv6 address to listen on, or a host name\n"
		  "(its first IPv4 address, else its first IPv6 one;\n"
		  "default: every address, IPv4 and IPv6)" },
	{ .name = "port", .letter = 'p', .arg = "P",
	  .help = "port to listen on (default " OPT_STR(IBPOST_PEER_PORT)
		  "; perftest's -p)" },
	{ .name = "allow", .key = SERVE_ALLOW, .arg = "CIDR", .flags = OPT_MANY,
	  .help = "only clients from this network may connect, as\n"
		  "ADDR/PREFIX or ADDR alone, IPv4 or IPv6 (an IPv4\n"
		  "network also holds its IPv4-mapped IPv6 clients);\n"
		  "repeat it for more networks, up to "
		  OPT_STR(IBPOST_SERVE_ALLOW_MAX) ".  Default:\n"
		  "every address.  Others are rejected" },
	{ .name = "max-conns", .key = SERVE_MAX_CONNS, .arg = "N",
	  .help = "connections served at once (default 16, at most\n"
		  "256); more are rejected" },
	{ .name = "idle", .key = SERVE_IDLE, .arg = "TIME",
	  .help = "drop a connection whose client shows no sign of life\n"
		  "for TIME (bare: milliseconds; default 10000,\n"
		  "1000..600000): its messages and data, or during a\n"
		  "one-sided job a keep-alive it took (--max-job-time\n"
		  "bounds the rest)" },
	{ .name = "max-mem", .key = SERVE_MAX_MEM, .arg = "SIZE",
	  .help = "memory all jobs may pin at once, counted as allocated\n"
		  "(bare: MiB; default: an eighth of this host's RAM; at\n"
		  "most all of it); a job beyond it, or beyond the\n"
		  "memory registrations, is refused" },
	{ .name = "max-job-time", .key = SERVE_MAX_JOB, .arg = "TIME",
	  .help = "longest a job may run (bare: milliseconds; default\n"
		  "600000, 1000..86400000); a client declaring more is\n"
		  "refused, a job running past it ended (in-kernel\n"
		  "sessions: no limit)" },
	{ .name = "max-per-addr", .key = SERVE_MAX_PER_ADDR, .arg = "N",
	  .help = "connections one client address may hold at once\n"
		  "(default 8, at most --max-conns)" },
	{ .name = "max-keep", .key = SERVE_KEEP, .arg = "TIME",
	  .help = "keep an in-kernel session's region after its\n"
		  "connections were lost for the time its client asks\n"
		  "(ibpost_blk: its ctrl_loss_tmo), at most TIME (bare:\n"
		  "seconds; default 600; 0: freed at once; at most "
		  OPT_STR(IBPOST_SRV_KEEP_MAX) "),\n"
		  "for the client to take back (its reconnect); it holds\n"
		  "its memory and a connection until then" },
	{ .name = "keep", .key = SERVE_KEEP, .arg = "TIME",
	  .help = "its earlier spelling", .flags = OPT_ALIAS },
	{ .name = "cpu-record", .key = SERVE_CPU_RECORD,
	  .help = "give a client that asks ('run --cpu-util --connect')\n"
		  "this host's CPU time over its job: the busy time of\n"
		  "every CPU, other tenants' work included.  Default:\n"
		  "off, such a job is refused" },
	{ .name = "json", .letter = 'j',
	  .help = "one JSON object per event and line, every field of\n"
		  "the event (kind as a word, addresses as strings)" },
	{ .name = "wide", .key = SERVE_WIDE,
	  .help = "the listening line names every --allow network; by\n"
		  "default those that fit 100 columns, then \"+N more\"" },
	{ .name = "config", .key = SERVE_CONFIG, .arg = "FILE",
	  .help = "the options of FILE first (/etc/ibpost/serve.conf:\n"
		  "these options, a line each, '#' comments), then\n"
		  "those of the command line" },
	{ .name = "check-config", .key = SERVE_CHECK_CONFIG,
	  .help = "with --config: check FILE, print the command line\n"
		  "it amounts to and exit (0, or 2 naming the bad line)" },
	{ .name = "print-options", .key = SERVE_PRINT, .flags = OPT_HIDDEN },
	{ .name = "help", .letter = 'h', .help = "this text", .flags = OPT_HELP },
};

static const struct opt_cmd serve_cmd = {
	.name = "serve", .opts = serve_opts_table,
	.nopts = ARRAY_SIZE(serve_opts_table), .col = 23,
	.about = serve_about, .tail = serve_tail,
};

void help_serve(FILE *f)
{
	opt_help(f, &serve_cmd);
}

static int serve_err(const char *opt, const char *arg, const char *why)
{
	return opt_bad("serve", opt, arg, why);
}

/* A time of serve (opt_time()): a bare number and the value in @unit. */
static int serve_time(const char *opt, const char *s, unsigned long long unit,
		      unsigned long long max, unsigned int *out)
{
	const struct opt_val val = { .cmd = "serve", .name = opt,
				     .bare = unit, .unit = unit, .max = max };
	long long v;

	if (opt_time(&val, s, &v))
		return -1;
	*out = v;
	return 0;
}

static int serve_num(const char *opt, const char *s, unsigned long max,
		     unsigned int *out)
{
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		return serve_err(opt, s, "not a number");
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno == ERANGE || v > max)
		return serve_err(opt, s, "too large");
	if (errno || *end)
		return serve_err(opt, s, "not a number");
	*out = v;
	return 0;
}

/* --max-mem: MiB bare, or a size (opt_size()) of whole MiB. */
static int serve_mem(const char *s, unsigned int *mib)
{
	const struct opt_val val = { .cmd = "serve", .name = "--max-mem",
				     .bare = OPT_MIB, .unit = OPT_MIB,
				     .max = UINT32_MAX };
	unsigned long long v;

	if (opt_size(&val, s, &v))
		return -1;
	*mib = v;
	return 0;
}

/* One --allow network. */
static int parse_allow(const char *arg, struct serve_opts *o)
{
	struct ibpost_serve_allow *al;
	struct net_addr a;
	unsigned int prefix;
	const char *why;

	if (o->nallow >= IBPOST_SERVE_ALLOW_MAX)
		return serve_err("--allow", arg, "too many networks");
	why = net_parse_cidr(arg, &a, &prefix);
	if (why)
		return serve_err("--allow", arg, why);
	al = &o->allow[o->nallow++];
	memset(al, 0, sizeof(*al));
	memcpy(al->addr, a.addr, sizeof(al->addr));
	al->family = a.family;
	al->prefix = prefix;
	return 0;
}

/* One option: 0, or -1 on a bad one. */
static int serve_set(void *ctx, int key, const char *arg)
{
	struct serve_opts *o = ctx;
	const char *why;

	switch (key) {
	case SERVE_ADDR:
		why = net_parse_host(arg, &o->addr);
		return why ? serve_err("--addr", arg, why) : 0;
	case 'p':
		return serve_num("--port", arg, 65535, &o->port);
	case SERVE_ALLOW:
		return parse_allow(arg, o);
	case SERVE_MAX_CONNS:
		return serve_num("--max-conns", arg, UINT32_MAX, &o->max_conns);
	case SERVE_IDLE:
		return serve_time("--idle", arg, OPT_MS, UINT32_MAX,
				  &o->idle_ms);
	case SERVE_MAX_MEM:
		return serve_mem(arg, &o->max_mem_mib);
	case SERVE_MAX_JOB:
		return serve_time("--max-job-time", arg, OPT_MS, UINT32_MAX,
				  &o->max_job_ms);
	case SERVE_MAX_PER_ADDR:
		return serve_num("--max-per-addr", arg, UINT32_MAX,
				 &o->max_per_addr);
	case SERVE_KEEP:
		return serve_time("--max-keep", arg, OPT_S, IBPOST_SRV_KEEP_MAX,
				  &o->keep_s);
	case SERVE_CPU_RECORD:
		o->cpu_record = true;
		return 0;
	case 'j':
		o->json = true;
		return 0;
	case SERVE_WIDE:
		o->wide = true;
		return 0;
	case SERVE_PRINT:
		o->print = true;
		return 0;
	case SERVE_CONFIG:
	case SERVE_CHECK_CONFIG:
		return opt_conf_set(&o->conf, &serve_cmd, key == SERVE_CONFIG,
				    arg);
	default:
		return -1;
	}
}

static void fill_serve(const struct serve_opts *o, struct ibpost_serve *sv)
{
	memset(sv, 0, sizeof(*sv));
	sv->size = sizeof(*sv);
	sv->family = o->addr.family;
	memcpy(sv->addr, o->addr.addr, sizeof(sv->addr));
	sv->port = o->port;
	sv->max_conns = o->max_conns;
	sv->idle_ms = o->idle_ms;
	sv->max_mem_mib = o->max_mem_mib;
	sv->max_job_ms = o->max_job_ms;
	sv->max_per_addr = o->max_per_addr;
	sv->keep_s = o->keep_s;
	if (o->cpu_record)
		sv->flags |= IBPOST_SERVE_CPU_RECORD;
	/* without --allow the tail is zero: a module of version 0 takes it */
	if (o->nallow) {
		sv->allow = (uintptr_t)o->allow;
		sv->nallow = o->nallow;
	}
}

static bool all_zero(const unsigned char *p, size_t len)
{
	while (len--)
		if (*p++)
			return false;
	return true;
}

/* Where the server listens: "*" for every address (IPv4 and IPv6). */
static const char *listen_str(char *buf, size_t len, const struct serve_opts *o,
			      const struct ibpost_serve_event *e)
{
	if (e->peer_family && !all_zero(e->peer, 16))
		return net_addr_str(buf, len, e->peer_family, e->peer);
	if (!o->addr.family ||
	    (o->addr.family == AF_INET6 && all_zero(o->addr.addr, 16)))
		return "*";
	return net_addr_str(buf, len, o->addr.family, o->addr.addr);
}

/*
 * The --allow networks, space-separated, or "any"; with @room those that
 * fit in @room characters and then "+N more", or "N networks" when not
 * one does (@room 0: every one).
 */
static const char *allow_str(char *buf, size_t len, const struct serve_opts *o,
			     size_t room)
{
	char a[INET6_ADDRSTRLEN], net[INET6_ADDRSTRLEN + 8];
	size_t used = 0, n;
	unsigned int i;

	if (!o->nallow)
		return "any";
	buf[0] = '\0';
	for (i = 0; i < o->nallow && used < len; i++) {
		n = snprintf(net, sizeof(net), "%s/%u",
			     net_addr_str(a, sizeof(a), o->allow[i].family,
					  o->allow[i].addr),
			     o->allow[i].prefix);
		/* the last one, or room for " +NN more" after it */
		if (room && used + !!i + n +
		    (i + 1 < o->nallow ? sizeof(" +64 more") - 1 : 0) > room) {
			if (i)
				snprintf(buf + used, len - used, " +%u more",
					 o->nallow - i);
			else	/* not even one: how many */
				snprintf(buf, len, "%u networks", o->nallow);
			break;
		}
		used += snprintf(buf + used, len - used, "%s%s", i ? " " : "",
				 net);
	}
	return buf;
}

static const char *peer_str(char *buf, size_t len,
			    const struct ibpost_serve_event *e)
{
	return net_addr_str(buf, len, e->peer_family, e->peer);
}

static const char *op_str(char *buf, size_t len, unsigned int op)
{
	const char *name = out_op_name(op);

	if (name)
		return name;
	snprintf(buf, len, "op%u", op);
	return buf;
}

static const char *kind_str(unsigned int kind)
{
	static const char *const kinds[] = {
		[IBPOST_SRV_LISTEN] = "listen",
		[IBPOST_SRV_CONNECT] = "connect",
		[IBPOST_SRV_JOB] = "job",
		[IBPOST_SRV_REFUSED] = "refused",
		[IBPOST_SRV_DONE] = "done",
		[IBPOST_SRV_LOST] = "lost",
		[IBPOST_SRV_STOPPED] = "stopped",
		[IBPOST_SRV_JOIN] = "join",
		[IBPOST_SRV_KEPT] = "kept",
		[IBPOST_SRV_RESUMED] = "resumed",
	};

	if (kind < ARRAY_SIZE(kinds) && kinds[kind])
		return kinds[kind];
	return "unknown";
}

/* "REASON (value V, limit L)", the value and limit when there are some. */
static void print_reason(FILE *f, unsigned int reason, unsigned long long value,
			 unsigned long long limit)
{
	fputs(ctl_reason_str(reason), f);
	if (value || limit)
		fprintf(f, " (value %llu, limit %llu)", value, limit);
}

static void text_event(FILE *f, const struct serve_opts *o,
		       const struct ibpost_serve *sv)
{
	const struct ibpost_serve_event *e = &sv->event;
	char addr[INET6_ADDRSTRLEN], op[16];
	char nets[IBPOST_SERVE_ALLOW_MAX * (INET6_ADDRSTRLEN + 5)];
	int n;

	switch (e->kind) {
	case IBPOST_SRV_LISTEN:
		/* 100 columns but with --wide: the networks that fit */
		n = snprintf(NULL, 0, "serve: listening on %s port %u, clients from ",
			     listen_str(addr, sizeof(addr), o, e), e->port);
		fprintf(f, "serve: listening on %s port %u, clients from %s\n",
		       listen_str(addr, sizeof(addr), o, e), e->port,
		       allow_str(nets, sizeof(nets), o,
				 o->wide ? 0 : n < 88 ? 100 - n : 12));
		fprintf(f, "serve: limits: %u conns, %u per address, %u MiB pinned, %u ms a job, idle %u ms",
		       sv->max_conns, sv->max_per_addr, sv->max_mem_mib,
		       sv->max_job_ms, sv->idle_ms);
		if (sv->keep_s)
			fprintf(f, ", keep up to %u s", sv->keep_s);
		fputc('\n', f);
		if (sv->flags & IBPOST_SERVE_CPU_RECORD)
			fputs("serve: cpu record: a client that asks gets this host's CPU time over its job\n",
			      f);
		break;
	case IBPOST_SRV_CONNECT:
		fprintf(f, "conn %u: connected from %s port %u\n", e->conn,
		       peer_str(addr, sizeof(addr), e), e->port);
		break;
	case IBPOST_SRV_JOB:
		fprintf(f, "conn %u: job %s size %u depth %u slots %u", e->conn,
		       op_str(op, sizeof(op), e->op), e->msg_size, e->depth,
		       e->nslots);
		if (e->limit)
			fprintf(f, ", keep %llu s of %llu asked",
				(unsigned long long)e->value,
				(unsigned long long)e->limit);
		fputc('\n', f);
		break;
	case IBPOST_SRV_REFUSED:
		if (e->conn)
			fprintf(f, "conn %u: ", e->conn);
		else	/* refused at its connect request: no number yet */
			fprintf(f, "client %s port %u: ",
			       peer_str(addr, sizeof(addr), e), e->port);
		fprintf(f, "refused: %s: ", strerror(abs(e->err)));
		print_reason(f, e->reason, e->value, e->limit);
		fputc('\n', f);
		break;
	case IBPOST_SRV_DONE:
		fprintf(f, "conn %u: done: %llu msgs, %llu bytes, %llu verify errors\n",
		       e->conn, (unsigned long long)e->msgs,
		       (unsigned long long)e->bytes,
		       (unsigned long long)e->verify_errors);
		break;
	case IBPOST_SRV_LOST:
		fprintf(f, "conn %u: lost: %s: %s", e->conn, strerror(abs(e->err)),
		       ctl_reason_str(e->reason));
		if (e->wc_status)
			fprintf(f, ", wc status %s", out_wc_status(e->wc_status));
		fputc('\n', f);
		break;
	case IBPOST_SRV_STOPPED:
		fprintf(f, "serve: stopped: %s\n", strerror(abs(e->err)));
		break;
	case IBPOST_SRV_JOIN:
		fprintf(f, "conn %u: joined session %llu (%llu connections) from %s port %u\n",
		       e->conn, (unsigned long long)e->value,
		       (unsigned long long)e->limit,
		       peer_str(addr, sizeof(addr), e), e->port);
		break;
	case IBPOST_SRV_KEPT:
		fprintf(f, "conn %u: kept: session %llu for %llu s after: %s: %s\n",
		       e->conn, (unsigned long long)e->value,
		       (unsigned long long)e->limit, strerror(abs(e->err)),
		       ctl_reason_str(e->reason));
		break;
	case IBPOST_SRV_RESUMED:
		fprintf(f, "conn %u: resumed: session %llu (resume %llu) from %s port %u\n",
		       e->conn, (unsigned long long)e->value,
		       (unsigned long long)e->limit,
		       peer_str(addr, sizeof(addr), e), e->port);
		break;
	default:
		fprintf(f, "serve: event of kind %u (unknown to this tool)\n",
		       e->kind);
		break;
	}
}

static void json_event(const struct serve_opts *o,
		       const struct ibpost_serve *sv)
{
	const struct ibpost_serve_event *e = &sv->event;
	char addr[INET6_ADDRSTRLEN], op[16];
	char nets[IBPOST_SERVE_ALLOW_MAX * (INET6_ADDRSTRLEN + 5)];
	struct json j;

	json_start(&j, stdout);
	json_obj(&j, NULL);
	json_str(&j, "kind", kind_str(e->kind));
	json_u64(&j, "conn", e->conn);
	json_i64(&j, "err", e->err);
	if (e->err)
		json_str(&j, "error", strerror(abs(e->err)));
	json_u64(&j, "reason", e->reason);
	json_str(&j, "reason_text", ctl_reason_str(e->reason));
	json_u64(&j, "value", e->value);
	json_u64(&j, "limit", e->limit);
	if (e->kind == IBPOST_SRV_LISTEN) {
		json_str(&j, "addr", listen_str(addr, sizeof(addr), o, e));
		json_str(&j, "allow", allow_str(nets, sizeof(nets), o, 0));
		json_u64(&j, "max_conns", sv->max_conns);
		json_u64(&j, "max_per_addr", sv->max_per_addr);
		json_u64(&j, "max_mem_mib", sv->max_mem_mib);
		json_u64(&j, "max_job_ms", sv->max_job_ms);
		json_u64(&j, "idle_ms", sv->idle_ms);
		json_u64(&j, "keep_s", sv->keep_s);
		json_bool(&j, "cpu_record",
			  sv->flags & IBPOST_SERVE_CPU_RECORD);
	}
	json_str(&j, "peer", e->peer_family ?
		 peer_str(addr, sizeof(addr), e) : "");
	json_u64(&j, "peer_family", e->peer_family);
	json_u64(&j, "port", e->port);
	json_str(&j, "op", op_str(op, sizeof(op), e->op));
	json_u64(&j, "msg_size", e->msg_size);
	json_u64(&j, "depth", e->depth);
	json_u64(&j, "nslots", e->nslots);
	json_u64(&j, "msgs", e->msgs);
	json_u64(&j, "bytes", e->bytes);
	json_u64(&j, "verify_errors", e->verify_errors);
	json_u64(&j, "wc_status", e->wc_status);
	json_str(&j, "wc_status_name", out_wc_status(e->wc_status));
	json_u64(&j, "dropped", e->dropped);
	json_end(&j);
}

/*
 * journald stamps the lines it receives: JOURNAL_STREAM is the device and
 * inode of its stream (systemd.exec(5)), which stdout still is when it
 * was not redirected elsewhere.
 */
static bool to_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!js || sscanf(js, "%llu:%llu", &dev, &ino) != 2 ||
	    fstat(STDOUT_FILENO, &st))
		return false;
	return st.st_dev == dev && st.st_ino == ino;
}

/*
 * Whether text lines start with the time: IBPOST_SERVE_STAMP=0 or 1 says
 * (a script that reads the lines, a log collector that stamps), else
 * unless journald stamps them.
 */
static bool serve_stamps(void)
{
	const char *force = getenv("IBPOST_SERVE_STAMP");

	if (force && (!strcmp(force, "0") || !strcmp(force, "1")))
		return *force == '1';
	return !to_journal();
}

/* @text on stdout, each line after the time when o->stamp. */
static void put_lines(const struct serve_opts *o, const char *text)
{
	const char *nl;
	struct timespec ts;
	char when[48], zone[8];
	struct tm tm;

	if (!o->stamp) {
		fputs(text, stdout);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	strftime(zone, sizeof(zone), "%z", &tm);
	for (; *text; text = nl + 1) {
		nl = strchr(text, '\n');
		if (!nl)
			nl = text + strlen(text) - 1;
		printf("%s.%03ld%s %.*s\n", when, ts.tv_nsec / 1000000, zone,
		       (int)(nl - text), text);
	}
}

/* One event on stdout; false when it ends serving (STOPPED). */
static bool print_event(const struct serve_opts *o,
			const struct ibpost_serve *sv)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (o->json) {
		json_event(o, sv);
	} else {
		f = open_memstream(&text, &len);
		if (!f) {
			perror(prog);
			return false;
		}
		if (sv->event.dropped)
			fprintf(f, "serve: %u events dropped\n", sv->event.dropped);
		text_event(f, o, sv);
		fclose(f);
		put_lines(o, text);
		free(text);
	}
	fflush(stdout);
	return sv->event.kind != IBPOST_SRV_STOPPED;
}

static void print_refusal(int err, const struct ibpost_status *st)
{
	fprintf(stderr, "%s: serve refused: %s", prog, strerror(err));
	if (st->reason != IBPOST_R_NONE) {
		fputs(": ", stderr);
		print_reason(stderr, st->reason, st->value, st->limit);
	}
	fputc('\n', stderr);
	if (err == ENOTTY)
		fprintf(stderr, "  (this ibpost module has no IBPOST_IOC_SERVE)\n");
}

/*
 * Tell the service manager (Type=notify; nothing without $NOTIFY_SOCKET);
 * a failure is said, as the unit would wait for READY=1 until it times out.
 */
static void serve_notify(const char *state)
{
	int err = notify_send(state);

	if (err)
		fprintf(stderr, "%s: serve: cannot notify $NOTIFY_SOCKET of %s: %s\n",
			prog, state, strerror(-err));
}

/* Events until a signal (0), a refusal or the end of serving (1). */
static int serve_loop(int fd, const struct serve_opts *o)
{
	struct ibpost_serve sv;
	int err;

	for (;;) {
		if (stopping())
			break;
		fill_serve(o, &sv);
		if (!ioctl(fd, IBPOST_IOC_SERVE, &sv)) {
			if (!print_event(o, &sv))
				return 1;
			if (sv.event.kind == IBPOST_SRV_LISTEN)
				serve_notify("READY=1");
			continue;
		}
		err = errno;
		if (err == EINTR)
			continue;
		print_refusal(err, &sv.status);
		return 1;
	}
	serve_notify("STOPPING=1");
	if (o->json)
		fprintf(stderr, "serve: stopping\n");
	else
		put_lines(o, "serve: stopping\n");
	fflush(stdout);
	return 0;
}

static void on_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;	/* no SA_RESTART: the ioctl returns EINTR */
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* One line of --config's file, into the options. */
static int serve_conf_line(void *ctx, unsigned int lineno, int argc,
			   char **argv)
{
	struct serve_opts *o = ctx;
	int i;

	if (o->conf.check)
		for (i = 1; i < argc; i++)
			printf(" %s", argv[i]);
	return opt_parse_line(&serve_cmd, argv[0], lineno, argc, argv,
			      serve_set, o);
}

/*
 * --config FILE: the file's options, then the command line's again (so
 * that they win).  --check-config prints the command line of both.
 */
static int serve_config(struct serve_opts *o, const char *file, bool check,
			int argc, char **argv)
{
	int i, rc;

	memset(o, 0, sizeof(*o));
	o->keep_s = SERVE_KEEP_DEFAULT;
	o->conf.in_file = true;
	rc = opt_config(file, serve_conf_line, o);
	if (rc)
		return rc;
	o->conf.in_file = false;
	optind = 0;
	rc = opt_parse(&serve_cmd, argc, argv, serve_set, o);
	if (rc != OPT_GO)
		return rc;
	/*
	 * A service's configuration names whom it serves: the default, every
	 * address, is for a lab's command line.
	 */
	if (!o->nallow) {
		fprintf(stderr, "%s: serve: %s: no --allow: refusing to serve every address from a configuration file; name the networks served (--allow 0.0.0.0/0 --allow ::/0: all of them)\n",
			prog, file);
		return 2;
	}
	if (!check)
		return 0;
	/* Valid: the file again, its words printed this time. */
	printf("%s %s", prog, serve_cmd.name);
	memset(o, 0, sizeof(*o));
	o->conf.in_file = true;
	o->conf.check = true;
	opt_config(file, serve_conf_line, o);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--config")) {
			i++;
			continue;
		}
		if (strncmp(argv[i], "--config=", 9) &&
		    strcmp(argv[i], "--check-config"))
			printf(" %s", argv[i]);
	}
	putchar('\n');
	return 0;
}

/*
 * --print-options: the parsed values, a "key=value" line each, for the
 * tests (tools/tests/host/cli.sh); /dev/ibpost is not opened.
 */
static void serve_print(const struct serve_opts *o)
{
	printf("port=%u\nmax_conns=%u\nidle_ms=%u\nmax_mem_mib=%u\n",
	       o->port, o->max_conns, o->idle_ms, o->max_mem_mib);
	printf("max_job_ms=%u\nmax_per_addr=%u\nkeep_s=%u\nallow=%u\n",
	       o->max_job_ms, o->max_per_addr, o->keep_s, o->nallow);
}

int cmd_serve(int argc, char **argv)
{
	struct serve_opts o = { .keep_s = SERVE_KEEP_DEFAULT };
	int fd, rc;

	rc = opt_parse(&serve_cmd, argc, argv, serve_set, &o);
	if (rc != OPT_GO)
		return rc;
	if (optind < argc) {
		fprintf(stderr, "%s: serve: unexpected argument '%s'\n", prog,
			argv[optind]);
		return 2;
	}
	if (o.conf.check && !o.conf.file) {
		fprintf(stderr, "%s: serve: --check-config needs --config FILE\n",
			prog);
		return 2;
	}
	if (o.conf.file) {
		bool check = o.conf.check;

		rc = serve_config(&o, o.conf.file, check, argc, argv);
		if (rc || check)
			return rc;
	}
	if (o.print) {
		serve_print(&o);
		return 0;
	}
	o.stamp = !o.json && serve_stamps();
	on_signals();
	fd = ctl_open();
	if (fd < 0)
		return 1;
	rc = serve_loop(fd, &o);
	alarm(0);
	close(fd);		/* stops the server and its connections */
	return rc;
}
