// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost devices: list RDMA devices and the limits ibpost validates against.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ibpost.h"

void help_devices(FILE *f)
{
	fprintf(f,
		"usage: %s devices [--json] [--dev NAME]\n"
		"\n"
		"List every RDMA device port ibpost knows, with the limits work\n"
		"requests are validated against.  max_inline is what an RC QP is\n"
		"actually granted (found by creating QPs), not a table value.\n"
		"\n"
		"  -j, --json       print JSON instead of a table\n"
		"  -d, --dev NAME   only this device (exit 1 if absent)\n"
		"  -h, --help       this text\n", prog);
}

/* Ask the kernel for all records; retry while devices come and go. */
static struct ibpost_dev_attr *fetch(int fd, unsigned int *n)
{
	struct ibpost_dev_list l;
	struct ibpost_dev_attr *recs = NULL;
	unsigned int want = 0;
	int tries;

	for (tries = 0; tries < 8; tries++) {
		memset(&l, 0, sizeof(l));
		l.size = sizeof(l);
		l.attr_size = sizeof(*recs);
		l.count = want;
		l.devs = (unsigned long)recs;
		if (ctl_ioctl(fd, IBPOST_IOC_DEV_LIST, &l, "list devices",
			      &l.status))
			goto err;
		if (l.total <= want) {
			*n = l.written;
			return recs ? recs : calloc(1, sizeof(*recs));
		}
		want = l.total;
		free(recs);
		recs = calloc(want, sizeof(*recs));
		if (!recs) {
			fprintf(stderr, "%s: out of memory\n", prog);
			return NULL;
		}
	}
	fprintf(stderr, "%s: device list keeps changing\n", prog);
err:
	free(recs);
	return NULL;
}

static void print_json(const struct ibpost_dev_attr *r, unsigned int n)
{
	char guid[32];
	unsigned int i;

	printf("{\"devices\": [");
	for (i = 0; i < n; i++, r++) {
		out_guid(guid, sizeof(guid), r->node_guid);
		printf("%s\n  {\"name\": ", i ? "," : "");
		out_json_str(stdout, r->name);
		printf(", \"index\": %u, \"port\": %u, \"node_guid\": \"%s\","
		       " \"link_layer\": \"%s\", \"port_state\": \"%s\","
		       " \"active_mtu\": %u, \"max_mtu\": %u,"
		       " \"max_msg_sz\": %u, \"max_send_sge\": %u,"
		       " \"max_recv_sge\": %u, \"max_sge_rd\": %u,"
		       " \"max_qp_wr\": %u, \"max_cqe\": %u,"
		       " \"max_mr_size\": %llu,"
		       " \"max_fast_reg_page_list_len\": %u,"
		       " \"max_inline_data\": %u, \"inline_probed\": %s,"
		       " \"local_dma_lkey\": %s, \"mem_mgt_extensions\": %s,"
		       " \"virt_dma\": %s, \"phys_port_cnt\": %u}",
		       r->index, r->port, guid, out_link_layer(r->link_layer),
		       out_port_state(r->port_state), r->active_mtu, r->max_mtu,
		       r->max_msg_sz, r->max_send_sge, r->max_recv_sge,
		       r->max_sge_rd, r->max_qp_wr, r->max_cqe,
		       (unsigned long long)r->max_mr_size,
		       r->max_fast_reg_page_list_len, r->max_inline_data,
		       r->flags & IBPOST_DEV_INLINE_UNKNOWN ? "false" : "true",
		       r->flags & IBPOST_DEV_LOCAL_DMA_LKEY ? "true" : "false",
		       r->flags & IBPOST_DEV_MEM_MGT_EXT ? "true" : "false",
		       r->flags & IBPOST_DEV_VIRT_DMA ? "true" : "false",
		       r->phys_port_cnt);
	}
	printf("%s]}\n", n ? "\n" : "");
}

static void print_table(const struct ibpost_dev_attr *r, unsigned int n)
{
	char guid[32];
	unsigned int i;

	printf("%-16s %4s %-8s %-8s %5s %8s %8s %6s %8s %7s %5s %6s %5s %-20s %s\n",
	       "device", "port", "state", "link", "mtu", "send_sge",
	       "recv_sge", "sge_rd", "qp_wr", "cqe", "frpl", "inline",
	       "dlkey", "max_mr_size", "node_guid");
	for (i = 0; i < n; i++, r++) {
		out_guid(guid, sizeof(guid), r->node_guid);
		printf("%-16s %4u %-8s %-8s %5u %8u %8u %6u %8u %7u %5u ",
		       r->name, r->port, out_port_state(r->port_state),
		       out_link_layer(r->link_layer), r->active_mtu,
		       r->max_send_sge, r->max_recv_sge, r->max_sge_rd,
		       r->max_qp_wr, r->max_cqe, r->max_fast_reg_page_list_len);
		if (r->flags & IBPOST_DEV_INLINE_UNKNOWN)
			printf("%6s ", "?");
		else
			printf("%6u ", r->max_inline_data);
		printf("%5s %-20llu %s\n",
		       r->flags & IBPOST_DEV_LOCAL_DMA_LKEY ? "yes" : "no",
		       (unsigned long long)r->max_mr_size, guid);
	}
	if (!n)
		printf("(no RDMA devices; try: rdma link add rxe_lo type rxe netdev lo)\n");
}

int cmd_devices(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "dev", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct ibpost_dev_attr *recs;
	const char *only = NULL;
	unsigned int n, i, kept = 0;
	bool json = false;
	int c, fd;

	while ((c = getopt_long(argc, argv, "jd:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'd':
			only = optarg;
			break;
		case 'h':
			help_devices(stdout);
			return 0;
		default:
			help_devices(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s devices: unexpected argument '%s'\n", prog,
			argv[optind]);
		return 2;
	}
	fd = ctl_open();
	if (fd < 0)
		return 1;
	recs = fetch(fd, &n);
	close(fd);
	if (!recs)
		return 1;
	for (i = 0; i < n; i++)
		if (!only || !strcmp(recs[i].name, only))
			recs[kept++] = recs[i];
	if (json)
		print_json(recs, kept);
	else
		print_table(recs, kept);
	free(recs);
	if (only && !kept) {
		fprintf(stderr, "%s devices: no RDMA device named '%s'\n", prog,
			only);
		return 1;
	}
	return 0;
}
