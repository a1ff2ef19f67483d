// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost tool: formatting helpers shared by the commands.
 */
#include "ibpost.h"

void out_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

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

/* The GUID as ibv_devinfo prints it: four groups of four hex digits. */
void out_guid(char *buf, size_t len, unsigned long long guid)
{
	snprintf(buf, len, "%04llx:%04llx:%04llx:%04llx",
		 (guid >> 48) & 0xffff, (guid >> 32) & 0xffff,
		 (guid >> 16) & 0xffff, guid & 0xffff);
}
