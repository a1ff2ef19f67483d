/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost tool: shared declarations.
 */
#ifndef IBPOST_TOOL_H
#define IBPOST_TOOL_H

#include <stdbool.h>
#include <stdio.h>
#include <uapi/ibpost.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct ibpost_cmd {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
	void (*help)(FILE *f);
};

/* ctl.c: talking to /dev/ibpost */
int ctl_open(void);
int ctl_ioctl(int fd, unsigned long cmd, void *arg, const char *what,
	      const struct ibpost_status *st);
const char *ctl_reason_str(unsigned int reason);
void ctl_print_status(FILE *f, const struct ibpost_status *st);

/* out.c: output helpers */
const char *out_port_state(unsigned int state);
const char *out_link_layer(unsigned int ll);
void out_guid(char *buf, size_t len, unsigned long long guid);
const char *out_op_name(unsigned int op);
const char *out_wc_status(unsigned int st);
/* @v bytes with a binary unit, for tables people read ("16 EiB"). */
const char *out_human_bytes(char *buf, size_t len, unsigned long long v);
/* @v in at most 5 characters: exact up to 99999, else with K or M. */
const char *out_count(char *buf, size_t len, unsigned long long v);

/* net.c: addresses and host names */
struct net_addr {
	unsigned short family;		/* AF_INET or AF_INET6 */
	unsigned char addr[16];		/* network order, IPv4 in 4 bytes */
	unsigned int port;		/* 0: none given */
};

bool net_parse_addr(const char *s, struct net_addr *a);
/* An address or a host name (getaddrinfo); NULL, else why not. */
const char *net_parse_host(const char *s, struct net_addr *a);
const char *net_parse_hostport(const char *s, struct net_addr *a);
/* What net_parse_hostport() takes, for the messages of its refusals. */
#define NET_HOSTPORT_FORMS	"HOST[:PORT], [IPV6][:PORT] or IPV6"

const char *net_addr_str(char *buf, size_t len, unsigned int family,
			 const unsigned char *addr);
const char *net_parse_cidr(const char *s, struct net_addr *a,
			   unsigned int *prefix);

/* qps.c: several jobs at once, one thread and one CPU each */
struct qp_job {
	struct ibpost_run run;		/* in: the job; out: its results */
	__u64 hist[IBPOST_HIST_LL_BUCKETS]; /* out: run.hist points here */
	int fd;				/* its own open /dev/ibpost */
	int err;			/* errno of the ioctl, 0 on success */
	bool no_thread;			/* @err is from pthread_create */
	int cpu;			/* CPU it was pinned to, -1: none */
	int pin_err;			/* pthread_setaffinity_np() error */
};

int qps_run(struct qp_job *jobs, unsigned int n, int sig, bool (*stop)(void));
void qps_total(const struct ibpost_result *const *res,
	       const __u64 *const *hist, unsigned int n,
	       struct ibpost_result *tot, __u64 *tot_hist);

/* hist.c: the log-linear latency histogram (IBPOST_HIST_LL_BUCKETS) */
/* The smallest latency bucket @i counts, in ns. */
unsigned long long hist_lower(unsigned int i);
/* Add the counts of @from to @to. */
void hist_add(__u64 *to, const __u64 *from);
/* A nearest-rank percentile (500: the median), 2 significant digits. */
unsigned long long hist_percentile(const __u64 *b, unsigned long long min,
				   unsigned long long max,
				   unsigned int per_mille);

/* devices.c */
int cmd_devices(int argc, char **argv);
/* Every (device, port) record of the module (free() it), or NULL (said). */
struct ibpost_dev_attr *devices_fetch(int fd, unsigned int *n);
void help_devices(FILE *f);
/* devtable.c: the text table; 100 columns, every column when @wide. */
void devices_table(const struct ibpost_dev_attr *r, unsigned int n, bool wide);

/* run.c, runopt.c, runprint.c, runerr.c: ibpost run */
#define RUN_MAX_SWEEP	64		/* values of one --sge list */
#define RUN_MAX_QPS	64		/* most jobs at once (-q) */

/* The options of one 'ibpost run', defaults and checks applied. */
struct run_opts {
	char dev[IBPOST_NAME_MAX];	/* "": pick one (devpick.c) */
	char dev_why[128];		/* why that one was picked */
	unsigned int port;
	int gid_index;			/* -x; -1: not given */
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
	unsigned int duration_ms;	/* IBPOST_DURATION_FOREVER: --forever */
	bool forever;			/* --forever, --run_infinitely */
	unsigned int report_ms;		/* --report-every, 0: no progress rows */
	bool report_set;
	unsigned int warmup;
	unsigned int depth;
	bool depth_set;
	unsigned int batch;
	unsigned int signal_every;
	bool signal_set;
	unsigned int imm;
	bool inline_data;
	unsigned int inline_size;	/* -I: inline messages up to this */
	bool inline_size_set;
	bool verify;
	bool pingpong;
	bool all_sizes;
	bool json;
	bool csv;
	bool hist;
	bool report_gbits;		/* the table's bandwidth in Gb/s only */
	bool wide;			/* --wide: every column, not 100 */
	bool print_opts;		/* --print-options: print, run nothing */
	unsigned short cm_family;	/* 0: connect the QPs directly */
	unsigned char cm_addr[16];
	struct net_addr peer;		/* --connect; family 0: none */
	unsigned int cm_port;		/* -p/--cm-port, 0: none */
	unsigned int cm_timeout_ms;
	bool cm_timeout_set;
	unsigned int qps;		/* jobs at once (-q; twice -q's with -b) */
	bool rdma_cm;			/* -R: connect through rdma_cm */
	bool bidir;			/* -b: both directions (loopback) */
	bool gid_unused;		/* -x given where rdma_cm picks the GID */
	const char *out_json_file;	/* --out-json[-file]: perftest's JSON */
	bool cpu_util;			/* --cpu-util */
	/* Thresholds (--min-bw, ...; below 0: none); exit RUN_EXIT_MISSED. */
	double min_bw;			/* MiB/s, Gb/s with --report-gbits */
	double min_mpps;
	double max_p50_us;
	double max_p99_us;
};

/* Exit status of a run that missed a threshold (--min-bw, ...). */
#define RUN_EXIT_MISSED	3

/* CPU time over one point's run window (--cpu-util, runcpu.c). */
struct run_cpu {
	bool valid;
	unsigned int ncpus;		/* CPUs /proc/stat counted */
	double wall_s;			/* the window */
	double busy_s;			/* every CPU's non-idle time in it */
	double proc_s;			/* this process's (its threads') */
};

/* One row of results: one job (of one QP with -q) of one size and SGE count. */
struct run_row {
	unsigned long long bytes;	/* message size */
	unsigned int num_sge;
	int qp;				/* -q index, -1 with one QP */
	int cpu;			/* CPU its thread ran on (-q) */
	struct ibpost_result res;
	unsigned int reason;		/* IBPOST_R_NONE unless it failed */
	__u64 *hist;			/* its log-linear histogram, or NULL */
	bool total;			/* the total of a -q point */
	struct run_cpu cost;		/* --cpu-util: the point's window */
};

/* One row of progress (--report-every): the jobs of one point so far. */
struct progress_row {
	unsigned long long msg_bytes;	/* bytes per WR of the point */
	unsigned int num_sge;
	unsigned int nqps;		/* QPs (files) asked */
	double t_s;			/* since reporting started */
	double dt_s;			/* since the row before (or the start) */
	unsigned long long wrs;		/* measured WRs so far, all QPs */
	unsigned long long bytes;
	unsigned long long elapsed_ns;	/* the longest measured time of a QP */
	unsigned long long d_wrs;	/* of them in the last dt_s */
	unsigned long long d_bytes;
	unsigned int wc_errors;
};

/* progress.c: the progress thread of --report-every */
struct progress;
struct progress *progress_start(const struct run_opts *o, const int *fds,
				unsigned int n, unsigned long long bytes,
				unsigned int num_sge, bool *header_done);
void progress_stop(struct progress *p);

/* run.c: the jobs, one point after another (N at once with -q) */
int cmd_run(int argc, char **argv);

/* runopt.c: the options */
/* The usage text of 'ibpost run'. */
void help_run(FILE *f);
/* The command line into @o: -1 to run, else the exit status (0 or 2). */
int runopt_parse(int argc, char **argv, struct run_opts *o);
/* The name of an IBPOST_LAYOUT_* as --layout takes it. */
const char *runopt_layout_name(unsigned int layout);
/* --print-options: every field of @o, "key=value" lines. */
void runopt_print(const struct run_opts *o);

/* perftest.c: perftest's options ibpost lacks */
/* The message of an unknown option (@c '?') or a missing value (@c ':'). */
void perftest_unknown(int c, int letter, const char *arg);

/* sysfs.c: a sysfs file into @buf, trailing newlines cut; 0 or -1. */
int sysfs_read(const char *path, char *buf, size_t len);

/* blkstate.c */
int blk_state_save(const char *name, const char *serial);
int blk_state_load(const char *serial, char *buf, size_t len);
void blk_state_drop(const char *serial);

/* rdmanl.c: RDMA netlink */
/* The netdev of port @port of @dev (rdma link show): 0, or -1 none known. */
int rdmanl_port_netdev(const char *dev, unsigned int port, char *ifname,
		       size_t len);

/* devpick.c: the device of a run without --dev */
/* Fill @o->dev (and port) when not given: 0, or -1 having said why. */
int devpick(struct run_opts *o);
/* -R on the loopback pair: --cm with the first address of the port's netdev. */
int devpick_rdma_cm(struct run_opts *o);

/* runprint.c: results on stdout, the text table or JSON */
/* The rates of @r: MiB/s, Gb/s (10^9 bits), millions of WRs a second. */
double run_bw_mib(const struct ibpost_result *r);
double run_bw_gbps(const struct ibpost_result *r);
double run_mpps(const struct ibpost_result *r);
/* The header: text header and column names, or the JSON parameters. */
void runprint_start(const struct run_opts *o, const struct ibpost_result *r);
/* One row; text: @label (or NULL) first; JSON: the next of its list. */
void runprint_row(const struct run_opts *o, const struct run_row *w,
		  const char *label);
/* JSON: the opening of one -q point (its "qps" list follows). */
void runprint_json_point(unsigned long long bytes, unsigned int num_sge);
/* JSON: the "qps" entry of a QP that failed without a row. */
void runprint_json_qp_error(const struct run_opts *o, const struct qp_job *j,
			    int qp);
/* The total of a -q point: a JSON object, or a "total" row when @nok. */
void runprint_total(const struct run_opts *o, const struct run_row *w,
		    unsigned int nok, unsigned int nfail);
/* --csv: the header row. */
void runprint_csv_header(const struct run_opts *o);
/* One progress row: text, a JSON object on its own line, or a CSV row. */
void runprint_progress(const struct run_opts *o, const struct progress_row *r,
		       const struct ibpost_progress *qp);
/* The end: JSON closes its object, text adds the --hist histograms. */
void runprint_end(const struct run_opts *o, bool started,
		  const struct run_row *rows, unsigned int nrows);

/* runcpu.c: --cpu-util, the CPU time of a run window */
struct run_cpu_mark;
/* Start a window: /proc/stat and this process's times now. */
struct run_cpu_mark *runcpu_start(void);
/* End the window of @m (freed) into @c; @c->valid false when unknown. */
void runcpu_stop(struct run_cpu_mark *m, struct run_cpu *c);
/* Percent of one CPU busy (0 .. 100 * ncpus). */
double runcpu_pct(const struct run_cpu *c);
/* CPU-seconds per GiB of @bytes (0 without bytes). */
double runcpu_s_per_gib(const struct run_cpu *c, unsigned long long bytes);
void runcpu_peer(const struct ibpost_result *r, struct run_cpu *c);

/* runreport.c: perftest's JSON file, the thresholds */
/* --out-json-file: the result rows with perftest's keys; 0 or -1 (said). */
int runreport_json_file(const struct run_opts *o, int fd,
			const struct run_row *rows, unsigned int nrows,
			unsigned int max_inline);
/* The thresholds over the result rows: 0 met (or none), RUN_EXIT_MISSED. */
int runreport_thresholds(const struct run_opts *o, const struct run_row *rows,
			 unsigned int nrows);
/* A row that is a result (one QP's point, or a -q point's total). */
bool runreport_is_result(const struct run_opts *o, const struct run_row *w);

/* runerr.c: refusals and failures on stderr */
/* The line of a refused or failed job (@qp >= 0: "qp I: "), what it found. */
void runerr_job(const struct ibpost_run *r, int err, int qp);
/* A QP of -q that failed: no thread, or runerr_job(). */
void runerr_qp(const struct qp_job *j, int qp);
/* The note of a point a sweep steps over (text: on stdout). */
void runerr_skip(const struct run_opts *o, const struct ibpost_run *r);
/* The -q threads that could not be pinned to their CPU. */
void runerr_pins(const struct qp_job *jobs, unsigned int n);

/* blk.c: ibpost_blk devices (sysfs) */
int cmd_blk(int argc, char **argv);
void help_blk(FILE *f);

/* serve.c */
int cmd_serve(int argc, char **argv);
void help_serve(FILE *f);

/* notify.c */
/*
 * Send @state ("READY=1", ...) to the service manager's $NOTIFY_SOCKET
 * (sd_notify(3)'s protocol); 0, also when it is unset, or -errno.
 */
int notify_send(const char *state);

/* version.c: -V, --version */
int cmd_version(void);

extern const char *prog;

#endif
