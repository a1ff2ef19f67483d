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

/* devices.c */
int cmd_devices(int argc, char **argv);
void help_devices(FILE *f);

/* run.c */
int cmd_run(int argc, char **argv);
void help_run(FILE *f);

extern const char *prog;

#endif
