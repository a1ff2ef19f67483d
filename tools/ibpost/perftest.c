// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost run: perftest's options that ibpost does not take (ib_write_bw,
 * ib_read_bw, ib_send_bw, ib_*_lat --help), each refused with ibpost's
 * equivalent or a word that there is none.  The ones ibpost takes with
 * perftest's meaning are in runopt.c.
 */
#include <string.h>

#include "ibpost.h"

struct perftest_opt {
	char letter;		/* 0: a long option only */
	const char *name;	/* the long spelling, without "--" */
	const char *hint;
};

/* The hints of perftest's families of options ibpost has none of. */
#define PERFTEST_RAW	"ibpost has none: perftest's raw Ethernet tests' option"
#define PERFTEST_MEM	"ibpost has none: the module allocates the buffers in host memory"
#define PERFTEST_CRYPTO	"ibpost has none: no encryption offload"

/*
 * Every option of perftest's option table (src/perftest_parameters.c,
 * perftest 26.04 and after) that 'ibpost run' has no spelling of; ibpost.8
 * has them all in its table, with those ibpost takes.
 */
static const struct perftest_opt perftest_opts[] = {
	{ 'c', "connection", "ibpost has none: RC only" },
	{ 'C', "report-cycles", "ibpost has none: times are in microseconds, from the kernel's clock" },
	{ 'e', "events", "ibpost has none: the module reaps completions itself" },
	{ 'f', "margin", "ibpost has none: every measured WR counts (--warmup N posts some before)" },
	{ 'g', "mcg", "ibpost has none: RC only, no multicast" },
	{ 'L', "hop_limit", "ibpost has none" },
	{ 'm', "mtu", "ibpost has none: the port's active MTU is used" },
	{ 'M', "MGID", "ibpost has none: RC only, no multicast" },
	{ 'N', "noPeak", "not needed: ibpost reports no peak bandwidth" },
	{ 'O', "dualport", "ibpost has none: one port per job (-i/--port)" },
	{ 'o', "outs", "use -t/--depth (-o is --op here)" },
	{ 'r', "rx-depth", "ibpost has none: the module posts the receive WRs" },
	{ 'S', "sl", "ibpost has none: SL 0" },
	{ 'T', "tos", "ibpost has none" },
	{ 'u', "qp-timeout", "ibpost has none" },
	{ 'U', "report-unsorted", "ibpost has none: --hist, --json" },
	{ 'W', "report-counters", "ibpost has none" },
	{ 'X', "vector", "ibpost has none: -q N spreads QPs over CPUs" },
	{ 0, "perform_warm_up", "use --warmup N" },
	{ 0, "use_old_post_send", "not needed: ibpost always posts with ib_post_send" },
	{ 0, "ipv6", "give --connect an IPv6 address" },
	{ 0, "source_ip", "ibpost has none: the route picks it" },
	{ 0, "dont_xchg_versions", "ibpost has none" },
	{ 0, "use_hugepages", "ibpost has none: the module allocates the buffers" },
	{ 0, "odp", "ibpost has none" },
	{ 0, "mr_per_qp", "ibpost has none: each job registers its own buffers" },
	{ 0, "reversed", "ibpost has none: --op read reads from the far side" },
	{ 0, "report-both", "not needed: with -b every QP pair has its row (qp0..N-1 one direction, qpN..2N-1 the other)" },
	{ 0, "tclass", "ibpost has none" },
	{ 0, "pkey_index", "ibpost has none" },
	{ 0, "retry_count", "ibpost has none" },
	{ 0, "rate_limit", "ibpost has none" },
	{ 0, "output", "use --json or --csv and pick the columns" },
	{ 'A', "atomic_type", "ibpost has none: no atomic operations (--op)" },
	{ 0, "use-srq", "ibpost has none: the module posts to each QP's own receive queue" },
	{ 0, "use-null-mr", "ibpost has none: the module registers the job's buffers" },
	{ 0, "no_lock", "not needed: each QP is posted to by one thread" },
	{ 0, "tcp", "ibpost has none: --connect reaches 'ibpost serve' through rdma_cm" },
	{ 0, "latency_gap", "ibpost has none: WRs are posted back to back" },
	{ 0, "flow_label", "ibpost has none" },
	{ 0, "payload_file_path", "ibpost has none: --verify stamps the payload itself" },
	{ 0, "rate_limit_type", "ibpost has none" },
	{ 0, "rate_units", "ibpost has none" },
	{ 0, "burst_size", "ibpost has none" },
	{ 0, "typical_pkt_size", "ibpost has none" },
	{ 0, "mmap", PERFTEST_MEM },
	{ 0, "mmap-offset", PERFTEST_MEM },
	{ 0, "ipv6-addr", "give --connect an IPv6 address" },
	{ 0, "report-per-port", "ibpost has none: one port per job (-i/--port)" },
	{ 0, "dlid", "ibpost has none: the address resolves the path (--connect)" },
	{ 0, "wait_destroy", "ibpost has none" },
	{ 0, "flows", PERFTEST_RAW },
	{ 0, "flows_burst", PERFTEST_RAW },
	{ 0, "reply_every", "ibpost has none: --pingpong answers every message" },
	{ 0, "recv_post_list", "ibpost has none: the module posts the receive WRs" },
	{ 0, "log_dci_streams", "ibpost has none: RC only" },
	{ 0, "log_active_dci_streams", "ibpost has none: RC only" },
	{ 0, "disable_pcie_relaxed", "ibpost has none: the module registers the buffers" },
	{ 0, "use_ooo", "ibpost has none" },
	{ 0, "congest_type", "ibpost has none" },
	{ 0, "force-link", "ibpost has none: the port's link layer is used" },
	/* raw Ethernet tests (raw_ethernet_bw, ...) */
	{ 'B', "source_mac", PERFTEST_RAW },
	{ 'E', "dest_mac", PERFTEST_RAW },
	{ 'J', "dest_ip", PERFTEST_RAW },
	{ 'K', "dest_port", PERFTEST_RAW },
	{ 'k', "source_port", PERFTEST_RAW },
	{ 'Y', "ethertype", PERFTEST_RAW },
	{ 'Z', "server", "ibpost has none: without HOST the run is a loopback; 'ibpost serve' serves" },
	{ 'P', "client", "ibpost has none: with HOST (--connect) the run is a client" },
	{ 'v', "mac_fwd", PERFTEST_RAW },
	{ 'G', "use_rss", PERFTEST_RAW },
	{ 0, "remote_mac", PERFTEST_RAW },
	{ 0, "local_mac", PERFTEST_RAW },
	{ 0, "remote_ip", PERFTEST_RAW },
	{ 0, "local_ip", PERFTEST_RAW },
	{ 0, "remote_port", PERFTEST_RAW },
	{ 0, "local_port", PERFTEST_RAW },
	{ 0, "raw_ipv6", PERFTEST_RAW },
	{ 0, "promiscuous", PERFTEST_RAW },
	{ 0, "sniffer", PERFTEST_RAW },
	{ 0, "raw_mcast", PERFTEST_RAW },
	{ 0, "vlan_en", PERFTEST_RAW },
	{ 0, "vlan_pcp", PERFTEST_RAW },
	/* accelerator memory */
	{ 0, "use_cuda", PERFTEST_MEM },
	{ 0, "use_cuda_bus_id", PERFTEST_MEM },
	{ 0, "use_cuda_dmabuf", PERFTEST_MEM },
	{ 0, "use_cuda_pcie_mapping", PERFTEST_MEM },
	{ 0, "use_data_direct", PERFTEST_MEM },
	{ 0, "cuda_mem_type", PERFTEST_MEM },
	{ 0, "use_musa", PERFTEST_MEM },
	{ 0, "use_musa_bus_id", PERFTEST_MEM },
	{ 0, "use_musa_dmabuf", PERFTEST_MEM },
	{ 0, "use_musa_pcie_mapping", PERFTEST_MEM },
	{ 0, "use_rocm", PERFTEST_MEM },
	{ 0, "use_rocm_dmabuf", PERFTEST_MEM },
	{ 0, "use_neuron", PERFTEST_MEM },
	{ 0, "use_neuron_dmabuf", PERFTEST_MEM },
	{ 0, "use_hl", PERFTEST_MEM },
	{ 0, "use_mlu", PERFTEST_MEM },
	{ 0, "use_mlu_dmabuf", PERFTEST_MEM },
	{ 0, "use_opencl", PERFTEST_MEM },
	{ 0, "opencl_platform_id", PERFTEST_MEM },
	{ 0, "use_ib_dm_dmabuf", PERFTEST_MEM },
	{ 0, "gpu_touch", PERFTEST_MEM },
	/* data encryption offload */
	{ 0, "aes_xts", PERFTEST_CRYPTO },
	{ 0, "encrypt_on_tx", PERFTEST_CRYPTO },
	{ 0, "sig_before", PERFTEST_CRYPTO },
	{ 0, "aes_block_size", PERFTEST_CRYPTO },
	{ 0, "kek_path", PERFTEST_CRYPTO },
	{ 0, "credentials_path", PERFTEST_CRYPTO },
	{ 0, "data_enc_keys_number", PERFTEST_CRYPTO },
	{ 0, "data_enc_key_app_path", PERFTEST_CRYPTO },
};

static const struct perftest_opt *find_opt(int letter, const char *name,
					   size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(perftest_opts); i++) {
		const struct perftest_opt *p = &perftest_opts[i];

		if (letter ? p->letter == letter :
		    strlen(p->name) == len && !strncmp(p->name, name, len))
			return p;
	}
	return NULL;
}

/*
 * An option getopt_long() did not take: @c '?' unknown, ':' missing its
 * value; @letter the short option (0 for a long one), @arg the word it
 * was in.
 */
void perftest_unknown(int c, int letter, const char *arg)
{
	const struct perftest_opt *p = NULL;
	const char *name = NULL;
	size_t len = 0;

	if (c == ':') {
		if (letter)
			fprintf(stderr, "%s: run: -%c needs a value\n", prog,
				letter);
		else
			fprintf(stderr, "%s: run: %s needs a value\n", prog, arg);
		return;
	}
	if (!letter && arg && !strncmp(arg, "--", 2)) {
		name = arg + 2;
		len = strcspn(name, "=");
	}
	if (letter || name)
		p = find_opt(letter, name, len);
	if (!p) {
		if (letter)
			fprintf(stderr, "%s: run: unknown option '-%c'\n", prog,
				letter);
		else
			fprintf(stderr, "%s: run: unknown option '%s'\n", prog,
				arg);
		return;
	}
	if (p->letter)
		fprintf(stderr, "%s: run: perftest's -%c (--%s): %s\n", prog,
			p->letter, p->name, p->hint);
	else
		fprintf(stderr, "%s: run: perftest's --%s: %s\n", prog, p->name,
			p->hint);
}
