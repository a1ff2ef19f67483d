// SPDX-License-Identifier: GPL-2.0
/*
 * The tool's human units (out_human_bytes() of tools/ibpost/out.c) for
 * tools/tests/host/cli.sh: one line per argument, "N: TEXT".
 */
#include <stdlib.h>

#include "../ibpost/ibpost.h"

const char *prog = "units_test";

int main(int argc, char **argv)
{
	char buf[16];
	int i;

	for (i = 1; i < argc; i++)
		printf("%s: %s\n", argv[i],
		       out_human_bytes(buf, sizeof(buf),
				       strtoull(argv[i], NULL, 0)));
	return 0;
}
