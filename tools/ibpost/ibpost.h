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
void out_json_str(FILE *f, const char *s);
const char *out_port_state(unsigned int state);
const char *out_link_layer(unsigned int ll);
void out_guid(char *buf, size_t len, unsigned long long guid);
const char *out_op_name(unsigned int op);
const char *out_wc_status(unsigned int st);

/* net.c: numeric addresses */
struct net_addr {
	unsigned short family;		/* AF_INET or AF_INET6 */
	unsigned char addr[16];		/* network order, IPv4 in 4 bytes */
	unsigned int port;		/* 0: none given */
};

bool net_parse_addr(const char *s, struct net_addr *a);
const char *net_parse_hostport(const char *s, struct net_addr *a);
const char *net_addr_str(char *buf, size_t len, unsigned int family,
			 const unsigned char *addr);

/* qps.c: several jobs at once, one thread and one CPU each */
struct qp_job {
	struct ibpost_run run;		/* in: the job; out: its results */
	int err;			/* errno of the ioctl, 0 on success */
	bool no_thread;			/* @err is from pthread_create */
	int cpu;			/* CPU it was pinned to, -1: none */
	int pin_err;			/* pthread_setaffinity_np() error */
};

int qps_run(int fd, struct qp_job *jobs, unsigned int n, int sig,
	    bool (*stop)(void));
void qps_total(const struct ibpost_result *const *res, unsigned int n,
	       struct ibpost_result *tot);

/* devices.c */
int cmd_devices(int argc, char **argv);
void help_devices(FILE *f);

/* run.c */
int cmd_run(int argc, char **argv);
void help_run(FILE *f);

/* serve.c */
int cmd_serve(int argc, char **argv);
void help_serve(FILE *f);

extern const char *prog;

#endif
