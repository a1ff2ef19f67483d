// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost devices: list RDMA devices and the limits ibpost validates against.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ibpost.h"
#include "json.h"
#include "opt.h"

static void devices_about(FILE *f)
{
	fprintf(f,
		"List every RDMA device port ibpost knows, with the limits work\n"
		"requests are validated against.  max_inline is what an RC QP is\n"
		"actually granted (found by creating QPs), not a table value.\n"
		"The table fits 100 columns: sge is the send/recv/RDMA-read SGE\n"
		"limits, qp_wr and cqe above 99999 in K or M (1024-based);\n"
		"--wide adds the other columns and shows max_mr_size in binary\n"
		"units (16 EiB is 2^64 - 1 bytes, rounded); --json has every\n"
		"number exact.\n");
}

static const struct opt devices_opts[] = {
	{ .name = "json", .letter = 'j', .help = "print JSON instead of a table" },
	{ .name = "dev", .letter = 'd', .arg = "NAME",
	  .help = "only this device (exit 1 if absent)" },
	{ .name = "wide", .key = OPT_LONG,
	  .help = "every column (about 150 wide; the default fits\n"
		  "100): separate SGE limits, max_mr_size, frpl (the\n"
		  "fast-register page list), dlkey (local DMA lkey),\n"
		  "node_guid, every count exact" },
	{ .name = "help", .letter = 'h', .help = "this text", .flags = OPT_HELP },
};

static const struct opt_cmd devices_cmd = {
	.name = "devices", .opts = devices_opts,
	.nopts = ARRAY_SIZE(devices_opts), .col = 19, .about = devices_about,
};

void help_devices(FILE *f)
{
	opt_help(f, &devices_cmd);
}

struct devices_args {
	const char *only;
	bool json;
	bool wide;
};

static int devices_set(void *ctx, int key, const char *arg)
{
	struct devices_args *a = ctx;

	if (key == 'j')
		a->json = true;
	else if (key == 'd')
		a->only = arg;
	else if (key == OPT_LONG)
		a->wide = true;
	else
		return -1;
	return 0;
}

/* Ask the kernel for all records; retry while devices come and go. */
struct ibpost_dev_attr *devices_fetch(int fd, unsigned int *n)
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
	struct json j;
	char guid[32];
	unsigned int i;

	json_start(&j, stdout);
	json_obj(&j, NULL);
	json_arr_lines(&j, "devices");
	for (i = 0; i < n; i++, r++) {
		out_guid(guid, sizeof(guid), r->node_guid);
		json_obj(&j, NULL);
		json_str(&j, "name", r->name);
		json_u64(&j, "index", r->index);
		json_u64(&j, "port", r->port);
		json_str(&j, "node_guid", guid);
		json_str(&j, "link_layer", out_link_layer(r->link_layer));
		json_str(&j, "port_state", out_port_state(r->port_state));
		json_u64(&j, "active_mtu", r->active_mtu);
		json_u64(&j, "max_mtu", r->max_mtu);
		json_u64(&j, "max_msg_sz", r->max_msg_sz);
		json_u64(&j, "max_send_sge", r->max_send_sge);
		json_u64(&j, "max_recv_sge", r->max_recv_sge);
		json_u64(&j, "max_sge_rd", r->max_sge_rd);
		json_u64(&j, "max_qp_wr", r->max_qp_wr);
		json_u64(&j, "max_cqe", r->max_cqe);
		json_u64(&j, "max_mr_size", r->max_mr_size);
		json_u64(&j, "max_fast_reg_page_list_len",
			 r->max_fast_reg_page_list_len);
		json_u64(&j, "max_inline_data", r->max_inline_data);
		json_bool(&j, "inline_probed",
			  !(r->flags & IBPOST_DEV_INLINE_UNKNOWN));
		json_bool(&j, "local_dma_lkey", r->flags & IBPOST_DEV_LOCAL_DMA_LKEY);
		json_bool(&j, "mem_mgt_extensions", r->flags & IBPOST_DEV_MEM_MGT_EXT);
		json_bool(&j, "virt_dma", r->flags & IBPOST_DEV_VIRT_DMA);
		json_bool(&j, "imm", !(r->flags & IBPOST_DEV_NO_IMM));
		json_bool(&j, "cm_only", r->flags & IBPOST_DEV_CM_ONLY);
		json_bool(&j, "write_unplaced", r->flags & IBPOST_DEV_WRITE_UNPLACED);
		json_u64(&j, "phys_port_cnt", r->phys_port_cnt);
		json_end(&j);
	}
	json_end_all(&j);
}

int cmd_devices(int argc, char **argv)
{
	struct devices_args a = { .only = NULL };
	struct ibpost_dev_attr *recs;
	unsigned int n, i, kept = 0;
	int fd, rc;

	rc = opt_parse(&devices_cmd, argc, argv, devices_set, &a);
	if (rc != OPT_GO)
		return rc;
	if (optind < argc) {
		fprintf(stderr, "%s devices: unexpected argument '%s'\n", prog,
			argv[optind]);
		return 2;
	}
	fd = ctl_open();
	if (fd < 0)
		return 1;
	recs = devices_fetch(fd, &n);
	close(fd);
	if (!recs)
		return 1;
	for (i = 0; i < n; i++)
		if (!a.only || !strcmp(recs[i].name, a.only))
			recs[kept++] = recs[i];
	if (a.json)
		print_json(recs, kept);
	else
		devices_table(recs, kept, a.wide);
	free(recs);
	if (a.only && !kept) {
		fprintf(stderr, "%s devices: no RDMA device named '%s'\n", prog,
			a.only);
		return 1;
	}
	return 0;
}
