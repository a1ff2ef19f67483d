// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: command-line front of /dev/ibpost.
 */
#include <getopt.h>
#include <string.h>

#include "ibpost.h"

const char *prog = "ibpost";

static const struct ibpost_cmd cmds[] = {
	{ "devices", "list RDMA devices and their limits", cmd_devices,
	  help_devices },
	{ "run", "run a transfer job and report bandwidth and latency",
	  cmd_run, help_run },
	{ "serve", "serve 'run --connect' clients on other hosts",
	  cmd_serve, help_serve },
	{ "blk", "map, unmap and list ibpost_blk RAM block devices",
	  cmd_blk, help_blk },
};

#define NCMDS ARRAY_SIZE(cmds)

static void print_usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"usage: %s [-h|--help] [-V|--version] COMMAND [ARGS]\n"
		"\n"
		"Push data over RDMA with ib_post_send from the kernel module\n"
		"ibpost.ko, through %s (listing devices: root, or the group\n"
		"rdma with the udev rule; running and serving: CAP_SYS_ADMIN).\n"
		"\n"
		"commands:\n", prog, IBPOST_DEVICE_PATH);
	for (i = 0; i < NCMDS; i++)
		fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f, "  %-10s %s\n", "help", "help of one command");
	fprintf(f,
		"\n"
		"Two hosts: '%s serve' on one, '%s run --connect HOST' on the other\n"
		"(-q N for N QPs at once; perftest's options work too: run -d DEV\n"
		"-s 4096 -t 128 HOST).\n"
		"\n'%s COMMAND --help' describes a command.\n", prog, prog, prog);
}

static const struct ibpost_cmd *find(const char *name)
{
	size_t i;

	for (i = 0; i < NCMDS; i++)
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct ibpost_cmd *cmd;

	if (argc < 2) {
		print_usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))
		return cmd_version();
	if (!strcmp(argv[1], "help")) {
		if (argc < 3) {
			print_usage(stdout);
			return 0;
		}
		cmd = find(argv[2]);
		if (!cmd) {
			fprintf(stderr, "%s: unknown command '%s'\n", prog,
				argv[2]);
			return 2;
		}
		cmd->help(stdout);
		return 0;
	}
	cmd = find(argv[1]);
	if (!cmd) {
		fprintf(stderr, "%s: unknown command '%s' (try '%s --help')\n",
			prog, argv[1], prog);
		return 2;
	}
	optind = 1;
	return cmd->run(argc - 1, argv + 1);
}
