// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost devices: the text table, in 100 columns or (--wide) every column.
 */
#include <string.h>

#include "ibpost.h"

/* Capabilities the device lacks (IBPOST_DEV_NO_IMM, _CM_ONLY, _WRITE_UNPLACED). */
static const char *dev_lacks(unsigned int flags, char *buf, size_t len)
{
	static const struct { unsigned int flag; const char *name; } lacks[] = {
		{ IBPOST_DEV_NO_IMM, "imm" },
		{ IBPOST_DEV_CM_ONLY, "direct_qp" },
		{ IBPOST_DEV_WRITE_UNPLACED, "write_placed" },
	};
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(lacks); i++)
		if (flags & lacks[i].flag)
			n += snprintf(buf + n, n < len ? len - n : 0, "%s%s",
				      n ? "," : "", lacks[i].name);
	return n ? buf : "-";
}

static void print_inline(const struct ibpost_dev_attr *r, int width)
{
	if (r->flags & IBPOST_DEV_INLINE_UNKNOWN)
		printf("%*s ", width, "?");
	else
		printf("%*u ", width, r->max_inline_data);
}

static void print_wide(const struct ibpost_dev_attr *r, unsigned int n)
{
	char guid[32], lacks[64], mr[16];
	unsigned int i;

	printf("%-16s %4s %-8s %-8s %5s %8s %8s %6s %8s %7s %5s %6s %5s %-11s %-19s %s\n",
	       "device", "port", "state", "link", "mtu", "send_sge",
	       "recv_sge", "sge_rd", "qp_wr", "cqe", "frpl", "inline",
	       "dlkey", "max_mr_size", "node_guid", "lacks");
	for (i = 0; i < n; i++, r++) {
		out_guid(guid, sizeof(guid), r->node_guid);
		printf("%-16s %4u %-8s %-8s %5u %8u %8u %6u %8u %7u %5u ",
		       r->name, r->port, out_port_state(r->port_state),
		       out_link_layer(r->link_layer), r->active_mtu,
		       r->max_send_sge, r->max_recv_sge, r->max_sge_rd,
		       r->max_qp_wr, r->max_cqe, r->max_fast_reg_page_list_len);
		print_inline(r, 6);
		printf("%5s %-11s %-19s %s\n",
		       r->flags & IBPOST_DEV_LOCAL_DMA_LKEY ? "yes" : "no",
		       out_human_bytes(mr, sizeof(mr), r->max_mr_size), guid,
		       dev_lacks(r->flags, lacks, sizeof(lacks)));
	}
}

/* The width of the device column: its longest name, at least 6. */
static int name_width(const struct ibpost_dev_attr *r, unsigned int n)
{
	size_t w = strlen("device"), len;
	unsigned int i;

	for (i = 0; i < n; i++) {
		len = strnlen(r[i].name, sizeof(r[i].name));
		if (len > w)
			w = len;
	}
	return w;
}

/*
 * The 100 columns: the SGE limits in one column, the large counts with a
 * unit; max_mr_size, frpl, dlkey and node_guid only with --wide.  With
 * device names of up to 16 characters a row is at most 99 wide.
 */
static void print_narrow(const struct ibpost_dev_attr *r, unsigned int n)
{
	char sge[40], qp_wr[16], cqe[16], lacks[64];
	int w = name_width(r, n);
	unsigned int i;

	printf("%-*s %4s %-6s %-8s %4s %-10s %5s %5s %6s %s\n", w, "device",
	       "port", "state", "link", "mtu", "sge_s/r/rd", "qp_wr", "cqe",
	       "inline", "lacks");
	for (i = 0; i < n; i++, r++) {
		snprintf(sge, sizeof(sge), "%u/%u/%u", r->max_send_sge,
			 r->max_recv_sge, r->max_sge_rd);
		printf("%-*s %4u %-6s %-8s %4u %-10s %5s %5s ", w, r->name,
		       r->port, out_port_state(r->port_state),
		       out_link_layer(r->link_layer), r->active_mtu, sge,
		       out_count(qp_wr, sizeof(qp_wr), r->max_qp_wr),
		       out_count(cqe, sizeof(cqe), r->max_cqe));
		print_inline(r, 6);
		printf("%s\n", dev_lacks(r->flags, lacks, sizeof(lacks)));
	}
}

/* The table of ibpost devices on stdout (@wide: every column). */
void devices_table(const struct ibpost_dev_attr *r, unsigned int n, bool wide)
{
	if (wide)
		print_wide(r, n);
	else
		print_narrow(r, n);
	if (!n)
		printf("(no RDMA devices; try: rdma link add rxe_lo type rxe netdev lo)\n");
}
