// SPDX-License-Identifier: GPL-2.0
/* Probe: the largest page order is MAX_PAGE_ORDER, inclusive (6.8). */
#include <linux/mmzone.h>

int ibpost_probe(void);

int ibpost_probe(void)
{
	return MAX_PAGE_ORDER;
}
