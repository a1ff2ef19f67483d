// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost tool: formatting helpers shared by the commands.
 */
#include <string.h>

#include "ibpost.h"

const char *out_port_state(unsigned int state)
{
	static const char *const names[] = {
		[IBPOST_PORT_NOP] = "NOP",
		[IBPOST_PORT_DOWN] = "DOWN",
		[IBPOST_PORT_INIT] = "INIT",
		[IBPOST_PORT_ARMED] = "ARMED",
		[IBPOST_PORT_ACTIVE] = "ACTIVE",
		[IBPOST_PORT_ACTIVE_DEFER] = "ACTIVE_DEFER",
	};

	if (state < ARRAY_SIZE(names))
		return names[state];
	return "UNKNOWN";
}

const char *out_link_layer(unsigned int ll)
{
	switch (ll) {
	case IBPOST_LINK_INFINIBAND:
		return "InfiniBand";
	case IBPOST_LINK_ETHERNET:
		return "Ethernet";
	default:
		return "unspecified";
	}
}

static const char *const op_names[IBPOST_OP_MAX] = {
	[IBPOST_OP_SEND] = "send",
	[IBPOST_OP_SEND_IMM] = "send_imm",
	[IBPOST_OP_WRITE] = "write",
	[IBPOST_OP_WRITE_IMM] = "write_imm",
	[IBPOST_OP_READ] = "read",
};

/* The --op name of an IBPOST_OP_*, NULL for an unknown one. */
const char *out_op_name(unsigned int op)
{
	return op < IBPOST_OP_MAX ? op_names[op] : NULL;
}

/* enum ib_wc_status, as numbered by the kernel. */
static const char *const wc_names[] = {
	"SUCCESS", "LOC_LEN_ERR", "LOC_QP_OP_ERR", "LOC_EEC_OP_ERR",
	"LOC_PROT_ERR", "WR_FLUSH_ERR", "MW_BIND_ERR", "BAD_RESP_ERR",
	"LOC_ACCESS_ERR", "REM_INV_REQ_ERR", "REM_ACCESS_ERR", "REM_OP_ERR",
	"RETRY_EXC_ERR", "RNR_RETRY_EXC_ERR", "LOC_RDD_VIOL_ERR",
	"REM_INV_RD_REQ_ERR", "REM_ABORT_ERR", "INV_EECN_ERR",
	"INV_EEC_STATE_ERR", "FATAL_ERR", "RESP_TIMEOUT_ERR", "GENERAL_ERR",
};

const char *out_wc_status(unsigned int st)
{
	return st < ARRAY_SIZE(wc_names) ? wc_names[st] : "UNKNOWN";
}

/* The GUID as ibv_devinfo prints it: four groups of four hex digits. */
void out_guid(char *buf, size_t len, unsigned long long guid)
{
	snprintf(buf, len, "%04llx:%04llx:%04llx:%04llx",
		 (guid >> 48) & 0xffff, (guid >> 32) & 0xffff,
		 (guid >> 16) & 0xffff, guid & 0xffff);
}

/*
 * @v bytes for people: the largest binary unit it reaches (B, KiB ... EiB),
 * three significant digits, trailing zeros dropped ("16 EiB" for 2^64 - 1,
 * "4 GiB", "1.5 MiB").  --json keeps the exact number.
 */
const char *out_human_bytes(char *buf, size_t len, unsigned long long v)
{
	static const char *const units[] = {
		"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB",
	};
	unsigned int u = 0;
	double x = v;
	char *p;

	while (x >= 1024 && u < ARRAY_SIZE(units) - 1) {
		x /= 1024;
		u++;
	}
	snprintf(buf, len, "%.*f", x >= 100 || !u ? 0 : x >= 10 ? 1 : 2, x);
	/* 1023.9 KiB rounds to "1024": say 1 MiB */
	if (!strcmp(buf, "1024") && u && u < ARRAY_SIZE(units) - 1) {
		snprintf(buf, len, "1");
		u++;
	}
	p = strchr(buf, '.');
	if (p) {
		p += strlen(p) - 1;
		while (*p == '0')
			*p-- = '\0';
		if (*p == '.')
			*p = '\0';
	}
	snprintf(buf + strlen(buf), len - strlen(buf), " %s", units[u]);
	return buf;
}

/*
 * A count for a narrow column: exact up to 99999, else in K or M
 * (1024-based, rounded: 262144 is "256K", 1048576 "1M", 4194303 "4M").
 */
const char *out_count(char *buf, size_t len, unsigned long long v)
{
	if (v <= 99999)
		snprintf(buf, len, "%llu", v);
	else if (v < 1000 * 1024)
		snprintf(buf, len, "%lluK", (v + 512) / 1024);
	else
		snprintf(buf, len, "%lluM", (v + 524288) / 1048576);
	return buf;
}
