// SPDX-License-Identifier: GPL-2.0
/*
 * Host units of the tool for tools/tests/host/cli.sh:
 *   json_test json          a document of the JSON writer (tools/ibpost/
 *                           json.c) with every kind of value and the
 *                           strings that need escaping; cli.sh parses it
 *   json_test host ARG...   net_parse_hostport() of each ARG, one line
 *                           each: "ARG: v4|v6 ADDR PORT" or "ARG: WHY"
 */
#include <arpa/inet.h>
#include <math.h>
#include <string.h>
#include <sys/socket.h>

#include "../ibpost/ibpost.h"
#include "../ibpost/json.h"

const char *prog = "json_test";

static void doc(void)
{
	struct json j;
	int i;

	json_start(&j, stdout);
	json_obj(&j, NULL);
	json_str(&j, "quote", "a\"b\\c/d");
	json_str(&j, "control", "\x01\t\n\r\x1f\x7f");
	json_str(&j, "utf8", "gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x98\x80");
	/* not UTF-8: a lone continuation, a truncated sequence, overlong */
	json_str(&j, "bytes", "a\200b\303c\300\257d\355\240\200e\377");
	json_str(&j, "empty", "");
	json_str(&j, "key \"with\" quotes", "v");
	json_u64(&j, "u64_max", 18446744073709551615ULL);
	json_u64(&j, "zero", 0);
	json_i64(&j, "i64_min", -9223372036854775807LL - 1);
	json_dbl(&j, "pi", 3.14159265, 4);
	json_dbl(&j, "nan", NAN, 3);
	json_dbl(&j, "inf", INFINITY, 3);
	json_dbl(&j, "ninf", -INFINITY, 3);
	json_bool(&j, "yes", true);
	json_bool(&j, "no", false);
	json_null(&j, "nothing");
	json_str_or_null(&j, "str_null", NULL);
	json_arr(&j, "empty_arr");
	json_end(&j);
	json_obj(&j, "empty_obj");
	json_end(&j);
	json_arr_lines(&j, "lines");
	for (i = 0; i < 3; i++) {
		json_obj(&j, NULL);
		json_i64(&j, "i", i);
		json_arr(&j, "nested");
		json_arr(&j, NULL);
		json_u64(&j, NULL, i);
		json_null(&j, NULL);
		json_end(&j);
		json_end(&j);
		json_end(&j);
	}
	json_end(&j);
	json_end_all(&j);
}

static void host(const char *arg)
{
	struct net_addr a;
	const char *why = net_parse_hostport(arg, &a);
	char buf[INET6_ADDRSTRLEN];

	if (why)
		printf("%s: %s\n", arg, why);
	else
		printf("%s: %s %s %u\n", arg, a.family == AF_INET ? "v4" : "v6",
		       net_addr_str(buf, sizeof(buf), a.family, a.addr),
		       a.port);
}

int main(int argc, char **argv)
{
	int i;

	if (argc >= 2 && !strcmp(argv[1], "json")) {
		doc();
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "host")) {
		for (i = 2; i < argc; i++)
			host(argv[i]);
		return 0;
	}
	fprintf(stderr, "usage: %s json | host ARG...\n", prog);
	return 2;
}
