// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the pure ABI helpers of module/lib/abi.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/module.h>

#include "ioctl.h"
#include "lib/abi.h"

/* Every reason code has its own non-empty text. */
static void ibpost_reason_table_test(struct kunit *test)
{
	u32 i, j;

	for (i = 0; i < IBPOST_R_MAX; i++) {
		const char *s = ibpost_reason_str(i);

		KUNIT_EXPECT_NE(test, strcmp(s, "unknown reason"), 0);
		KUNIT_EXPECT_GT(test, strlen(s), 0UL);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ(test, s, ibpost_reason_str(j));
	}
	KUNIT_EXPECT_STREQ(test, ibpost_reason_str(IBPOST_R_MAX),
			   "unknown reason");
	KUNIT_EXPECT_STREQ(test, ibpost_reason_str(U32_MAX), "unknown reason");
	KUNIT_EXPECT_STREQ(test, ibpost_reason_str(IBPOST_R_NONE), "no error");
}

/*
 * The capability refusals are the last codes (append-only ABI) and their
 * words name the device capability the tool shows in 'ibpost devices'.
 */
static void ibpost_reason_cap_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, (u32)IBPOST_R_CAP_IMM,
			(u32)IBPOST_R_PEER_FLAG + 1);
	KUNIT_EXPECT_EQ(test, (u32)IBPOST_R_CAP_CM_ONLY,
			(u32)IBPOST_R_PEER_FLAG + 2);
	KUNIT_EXPECT_EQ(test, (u32)IBPOST_R_CAP_WRITE_VERIFY,
			(u32)IBPOST_R_PEER_FLAG + 3);
	/* Codes added after them (wire order, allow list) only append. */
	KUNIT_EXPECT_GT(test, (u32)IBPOST_R_PEER_ORDER,
			(u32)IBPOST_R_CAP_WRITE_VERIFY);
	KUNIT_EXPECT_EQ(test, (u32)IBPOST_R_PEER_DENIED,
			(u32)IBPOST_R_PEER_ORDER + 1);
	KUNIT_EXPECT_GT(test, (u32)IBPOST_R_MAX, (u32)IBPOST_R_PEER_DENIED);
	KUNIT_EXPECT_STREQ(test, ibpost_reason_str(IBPOST_R_PEER_ORDER),
			   "message out of order on the wire");
	KUNIT_EXPECT_STREQ(test, ibpost_reason_str(IBPOST_R_PEER_DENIED),
			   "client address not allowed by the server");
	/* ... then the server budgets. */
	KUNIT_EXPECT_GT(test, (u32)IBPOST_R_SRV_MEM,
			(u32)IBPOST_R_PEER_DENIED);
	KUNIT_EXPECT_GT(test, (u32)IBPOST_R_MAX, (u32)IBPOST_R_SRV_PER_ADDR);
	/* ... then the session's queues and region (issue 14). */
	KUNIT_EXPECT_EQ(test, (u32)IBPOST_R_QUEUE,
			(u32)IBPOST_R_SRV_PER_ADDR + 1);
	KUNIT_EXPECT_EQ(test, (u32)IBPOST_R_REGION_CROSS,
			(u32)IBPOST_R_QUEUE + 1);
	/* ... then joining a session's other queues (issue 14, step 2). */
	KUNIT_EXPECT_EQ(test, (u32)IBPOST_R_JOIN_UNKNOWN,
			(u32)IBPOST_R_REGION_CROSS + 1);
	KUNIT_EXPECT_EQ(test, (u32)IBPOST_R_JOIN_MAX,
			(u32)IBPOST_R_JOIN_UNKNOWN + 3);
	/* ... then privilege and the GID index (issue 15). */
	KUNIT_EXPECT_EQ(test, (u32)IBPOST_R_PRIV, (u32)IBPOST_R_JOIN_MAX + 1);
	KUNIT_EXPECT_EQ(test, (u32)IBPOST_R_GID_RANGE, (u32)IBPOST_R_PRIV + 1);
	KUNIT_EXPECT_EQ(test, (u32)IBPOST_R_GID_CM,
			(u32)IBPOST_R_GID_RANGE + 3);
	/* ... then the run's histogram pointer (issue 15). */
	KUNIT_EXPECT_EQ(test, (u32)IBPOST_R_HIST, (u32)IBPOST_R_GID_CM + 1);
	/* ... then the progress of a file with no job (issue 15). */
	KUNIT_EXPECT_EQ(test, (u32)IBPOST_R_NO_JOB, (u32)IBPOST_R_HIST + 1);
	/* ... then a kept region that is gone (issue 27). */
	KUNIT_EXPECT_EQ(test, (u32)IBPOST_R_REGION_LOST,
			(u32)IBPOST_R_NO_JOB + 1);
	/* ... then the server's CPU time without a server (issue 29). */
	KUNIT_EXPECT_EQ(test, (u32)IBPOST_R_PEER_CPU,
			(u32)IBPOST_R_REGION_LOST + 1);
	/* ... then a server that does not give its CPU time (issue 42). */
	KUNIT_EXPECT_EQ(test, (u32)IBPOST_R_SRV_CPU,
			(u32)IBPOST_R_PEER_CPU + 1);
	KUNIT_EXPECT_EQ(test, (u32)IBPOST_R_MAX, (u32)IBPOST_R_SRV_CPU + 1);
	KUNIT_EXPECT_STREQ(test, ibpost_reason_str(IBPOST_R_SRV_CPU),
			   "the server does not give its CPU time (ibpost serve --cpu-record)");
	KUNIT_EXPECT_STREQ(test, ibpost_reason_str(IBPOST_R_REGION_LOST),
			   "region lost: the server no longer has the session's region (restarted, or its keep time ran out)");
	KUNIT_EXPECT_STREQ(test, ibpost_reason_str(IBPOST_R_NO_JOB),
			   "no job runs on this file descriptor");
	KUNIT_EXPECT_STREQ(test, ibpost_reason_str(IBPOST_R_PRIV),
			   "needs CAP_SYS_ADMIN: running jobs and serving are privileged, listing devices is not");
	KUNIT_EXPECT_STREQ(test, ibpost_reason_str(IBPOST_R_GID_RANGE),
			   "GID index past the port's GID table");
	KUNIT_EXPECT_STREQ(test, ibpost_reason_str(IBPOST_R_HIST),
			   "IBPOST_RUN_HIST and the histogram pointer (hist) go together");
	KUNIT_EXPECT_STREQ(test, ibpost_reason_str(IBPOST_R_JOIN_TOKEN),
			   "wrong token to join the session");
	KUNIT_EXPECT_STREQ(test, ibpost_reason_str(IBPOST_R_CAP_IMM),
			   "device has no immediate data: no SEND or RDMA WRITE with immediate (IBPOST_DEV_NO_IMM)");
	KUNIT_EXPECT_STREQ(test, ibpost_reason_str(IBPOST_R_CAP_CM_ONLY),
			   "device connects QPs only through rdma_cm (IBPOST_DEV_CM_ONLY): give an address of the device (IBPOST_RUN_CM)");
	KUNIT_EXPECT_STREQ(test, ibpost_reason_str(IBPOST_R_CAP_WRITE_VERIFY),
			   "device completes RDMA WRITE before the data is placed (IBPOST_DEV_WRITE_UNPLACED): verify WRITE with ping-pong");
}

static void ibpost_status_set_test(struct kunit *test)
{
	struct ibpost_status st;

	memset(&st, 0xa5, sizeof(st));
	ibpost_status_set(&st, IBPOST_R_COUNT, 5000, 1024);
	KUNIT_EXPECT_EQ(test, st.reason, (u32)IBPOST_R_COUNT);
	KUNIT_EXPECT_EQ(test, st.wr, IBPOST_STATUS_NONE);
	KUNIT_EXPECT_EQ(test, st.sge, IBPOST_STATUS_NONE);
	KUNIT_EXPECT_EQ(test, st.pad, 0U);
	KUNIT_EXPECT_EQ(test, st.value, 5000ULL);
	KUNIT_EXPECT_EQ(test, st.limit, 1024ULL);
}

static void ibpost_mem_is_zero_test(struct kunit *test)
{
	u64 r[4] = {};

	KUNIT_EXPECT_TRUE(test, ibpost_mem_is_zero(r, sizeof(r)));
	KUNIT_EXPECT_TRUE(test, ibpost_mem_is_zero(r, 0));
	((u8 *)r)[sizeof(r) - 1] = 1;
	KUNIT_EXPECT_FALSE(test, ibpost_mem_is_zero(r, sizeof(r)));
	KUNIT_EXPECT_TRUE(test, ibpost_mem_is_zero(r, sizeof(r) - 1));
}

struct ibpost_rec_case {
	const char *desc;
	u32 count, max_count, rec_size, rec_ver0;
	int err;
	u32 reason;
	size_t bytes;
};

static const struct ibpost_rec_case ibpost_rec_cases[] = {
	{ "empty", 0, 16, 176, 176, 0, IBPOST_R_NONE, 0 },
	{ "exact", 3, 16, 176, 176, 0, IBPOST_R_NONE, 528 },
	{ "grown record", 2, 16, 200, 176, 0, IBPOST_R_NONE, 400 },
	{ "record too small", 1, 16, 175, 176, -EINVAL, IBPOST_R_REC_SIZE, 0 },
	{ "record size zero", 1, 16, 0, 176, -EINVAL, IBPOST_R_REC_SIZE, 0 },
	{ "record too big", 1, 16, 4097, 176, -EINVAL, IBPOST_R_REC_SIZE, 0 },
	{ "count at limit", 16, 16, 176, 176, 0, IBPOST_R_NONE, 2816 },
	{ "count above limit", 17, 16, 176, 176, -EINVAL, IBPOST_R_COUNT, 0 },
	{ "count huge", U32_MAX, 16, 176, 176, -EINVAL, IBPOST_R_COUNT, 0 },
	{ "largest product", U32_MAX, U32_MAX, 4096, 176, 0, IBPOST_R_NONE,
	  (size_t)U32_MAX * 4096 },
};

static void ibpost_rec_case_desc(const struct ibpost_rec_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ibpost_rec, ibpost_rec_cases, ibpost_rec_case_desc);

static void ibpost_check_rec_array_test(struct kunit *test)
{
	const struct ibpost_rec_case *c = test->param_value;
	struct ibpost_status st = {};
	size_t bytes = 12345;
	int ret;

	ret = ibpost_check_rec_array(&st, c->count, c->max_count, c->rec_size,
				     c->rec_ver0, &bytes);
	KUNIT_EXPECT_EQ(test, ret, c->err);
	KUNIT_EXPECT_EQ(test, st.reason, c->reason);
	if (!c->err)
		KUNIT_EXPECT_EQ(test, bytes, c->bytes);
	else
		KUNIT_EXPECT_EQ(test, bytes, (size_t)12345);
}

static void ibpost_link_layer_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ibpost_link_layer_to_uapi(IB_LINK_LAYER_INFINIBAND),
			(u32)IBPOST_LINK_INFINIBAND);
	KUNIT_EXPECT_EQ(test, ibpost_link_layer_to_uapi(IB_LINK_LAYER_ETHERNET),
			(u32)IBPOST_LINK_ETHERNET);
	KUNIT_EXPECT_EQ(test, ibpost_link_layer_to_uapi(IB_LINK_LAYER_UNSPECIFIED),
			(u32)IBPOST_LINK_UNSPECIFIED);
	KUNIT_EXPECT_EQ(test, ibpost_link_layer_to_uapi((enum rdma_link_layer)77),
			(u32)IBPOST_LINK_UNSPECIFIED);
}

static void ibpost_dev_flags_test(struct kunit *test)
{
	struct ib_device_attr a = {};

	KUNIT_EXPECT_EQ(test, ibpost_dev_flags(&a, false, false), 0U);
	KUNIT_EXPECT_EQ(test, ibpost_dev_flags(&a, true, false),
			(u32)IBPOST_DEV_VIRT_DMA);
	a.kernel_cap_flags = IBK_LOCAL_DMA_LKEY;
	a.device_cap_flags = IB_DEVICE_MEM_MGT_EXTENSIONS;
	KUNIT_EXPECT_EQ(test, ibpost_dev_flags(&a, false, false),
			(u32)(IBPOST_DEV_LOCAL_DMA_LKEY | IBPOST_DEV_MEM_MGT_EXT));
	/* Unrelated capability bits do not leak into the ABI. */
	a.kernel_cap_flags = ~(u64)IBK_LOCAL_DMA_LKEY;
	a.device_cap_flags = ~(u64)IB_DEVICE_MEM_MGT_EXTENSIONS;
	KUNIT_EXPECT_EQ(test, ibpost_dev_flags(&a, false, false), 0U);
	/*
	 * iWARP (siw): no immediate data, rdma_cm connections only, WRITE
	 * completions before placement.
	 */
	KUNIT_EXPECT_EQ(test, ibpost_dev_flags(&a, true, true),
			(u32)(IBPOST_DEV_VIRT_DMA | IBPOST_DEV_NO_IMM |
			      IBPOST_DEV_CM_ONLY | IBPOST_DEV_WRITE_UNPLACED));
	memset(&a, 0, sizeof(a));
	KUNIT_EXPECT_EQ(test, ibpost_dev_flags(&a, false, true),
			(u32)(IBPOST_DEV_NO_IMM | IBPOST_DEV_CM_ONLY |
			      IBPOST_DEV_WRITE_UNPLACED));
}

/* Attributes as rxe reports them on 6.1. */
static void ibpost_rxe_like_info(struct ibpost_dev_info *info)
{
	memset(info, 0, sizeof(*info));
	strscpy(info->name, "rxe_lo", sizeof(info->name));
	info->node_guid = 0x0200000000000001ULL;
	info->index = 3;
	info->phys_port_cnt = 1;
	info->start_port = 1;
	info->max_inline_data = 512;
	info->flags = IBPOST_DEV_MEM_MGT_EXT | IBPOST_DEV_VIRT_DMA;
	info->attrs.max_mr_size = ~0ULL;
	info->attrs.max_send_sge = 32;
	info->attrs.max_recv_sge = 32;
	info->attrs.max_sge_rd = 32;
	info->attrs.max_qp_wr = 1 << 20;
	info->attrs.max_cqe = 32767;
	info->attrs.max_fast_reg_page_list_len = 512;
}

static void ibpost_fill_dev_attr_test(struct kunit *test)
{
	struct ibpost_dev_info info;
	struct ib_port_attr pa = {};
	struct ibpost_dev_attr out;

	ibpost_rxe_like_info(&info);
	pa.state = IB_PORT_ACTIVE;
	pa.active_mtu = IB_MTU_1024;
	pa.max_mtu = IB_MTU_4096;
	pa.max_msg_sz = 0x80000000;
	memset(&out, 0xff, sizeof(out));
	ibpost_fill_dev_attr(&out, &info, 1, IB_LINK_LAYER_ETHERNET, &pa);

	KUNIT_EXPECT_STREQ(test, out.name, "rxe_lo");
	KUNIT_EXPECT_EQ(test, out.node_guid, 0x0200000000000001ULL);
	KUNIT_EXPECT_EQ(test, out.max_mr_size, ~0ULL);
	KUNIT_EXPECT_EQ(test, out.index, 3U);
	KUNIT_EXPECT_EQ(test, out.port, 1U);
	KUNIT_EXPECT_EQ(test, out.link_layer, (u32)IBPOST_LINK_ETHERNET);
	KUNIT_EXPECT_EQ(test, out.port_state, (u32)IBPOST_PORT_ACTIVE);
	KUNIT_EXPECT_EQ(test, out.active_mtu, 1024U);
	KUNIT_EXPECT_EQ(test, out.max_mtu, 4096U);
	KUNIT_EXPECT_EQ(test, out.max_msg_sz, 0x80000000U);
	KUNIT_EXPECT_EQ(test, out.max_send_sge, 32U);
	KUNIT_EXPECT_EQ(test, out.max_recv_sge, 32U);
	KUNIT_EXPECT_EQ(test, out.max_sge_rd, 32U);
	KUNIT_EXPECT_EQ(test, out.max_qp_wr, 1U << 20);
	KUNIT_EXPECT_EQ(test, out.max_cqe, 32767U);
	KUNIT_EXPECT_EQ(test, out.max_fast_reg_page_list_len, 512U);
	KUNIT_EXPECT_EQ(test, out.max_inline_data, 512U);
	KUNIT_EXPECT_EQ(test, out.flags,
			(u32)(IBPOST_DEV_MEM_MGT_EXT | IBPOST_DEV_VIRT_DMA));
	KUNIT_EXPECT_EQ(test, out.phys_port_cnt, 1U);
	KUNIT_EXPECT_TRUE(test, ibpost_mem_is_zero(out.reserved,
						   sizeof(out.reserved)));
	/* The whole name buffer past the string is cleared. */
	KUNIT_EXPECT_TRUE(test, ibpost_mem_is_zero(out.name + 6,
						   sizeof(out.name) - 6));
}

/* Garbage from a provider never turns into huge or negative values. */
static void ibpost_fill_dev_attr_clamp_test(struct kunit *test)
{
	struct ibpost_dev_info info;
	struct ib_port_attr pa = {};
	struct ibpost_dev_attr out;

	ibpost_rxe_like_info(&info);
	info.attrs.max_send_sge = -5;
	info.attrs.max_cqe = -1;
	pa.active_mtu = (enum ib_mtu)0;
	pa.max_mtu = (enum ib_mtu)9;
	ibpost_fill_dev_attr(&out, &info, 1, IB_LINK_LAYER_INFINIBAND, &pa);
	KUNIT_EXPECT_EQ(test, out.max_send_sge, 0U);
	KUNIT_EXPECT_EQ(test, out.max_cqe, 0U);
	KUNIT_EXPECT_EQ(test, out.active_mtu, 0U);
	KUNIT_EXPECT_EQ(test, out.max_mtu, 0U);
	KUNIT_EXPECT_EQ(test, out.link_layer, (u32)IBPOST_LINK_INFINIBAND);
}

/* The ABI sizes are frozen: a change here breaks every built tool. */
static void ibpost_abi_sizes_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct ibpost_status), (size_t)32);
	KUNIT_EXPECT_EQ(test, sizeof(struct ibpost_dev_attr),
			(size_t)IBPOST_DEV_ATTR_SIZE_VER0);
	KUNIT_EXPECT_EQ(test, sizeof(struct ibpost_dev_list),
			(size_t)IBPOST_DEV_LIST_SIZE_VER0);
	KUNIT_EXPECT_EQ(test, offsetof(struct ibpost_dev_list, devs), (size_t)16);
	KUNIT_EXPECT_EQ(test, offsetof(struct ibpost_dev_list, status),
			(size_t)32);
	KUNIT_EXPECT_EQ(test, _IOC_SIZE(IBPOST_IOC_DEV_LIST),
			(unsigned int)IBPOST_DEV_LIST_SIZE_VER0);
	/* SERVE grew (version 1: the allow list); its number did not. */
	KUNIT_EXPECT_EQ(test, sizeof(struct ibpost_serve),
			(size_t)IBPOST_SERVE_SIZE_VER1);
	KUNIT_EXPECT_EQ(test, offsetof(struct ibpost_serve, allow),
			(size_t)IBPOST_SERVE_SIZE_VER0);
	KUNIT_EXPECT_EQ(test, _IOC_SIZE(IBPOST_IOC_SERVE),
			(unsigned int)IBPOST_SERVE_SIZE_VER0);
	KUNIT_EXPECT_EQ(test, sizeof(struct ibpost_serve_allow), (size_t)24);
	/* The serve flags are ABI too: the CPU record is bit 0, the only one. */
	KUNIT_EXPECT_EQ(test, (u32)IBPOST_SERVE_CPU_RECORD, 1U);
	KUNIT_EXPECT_EQ(test, (u32)IBPOST_SERVE_FLAGS, 1U);
	/* RUN grew too (version 1: the server's CPU time); its number not. */
	KUNIT_EXPECT_EQ(test, sizeof(struct ibpost_run),
			(size_t)IBPOST_RUN_SIZE_VER1);
	KUNIT_EXPECT_EQ(test, _IOC_SIZE(IBPOST_IOC_RUN),
			(unsigned int)IBPOST_RUN_SIZE_VER0);
	KUNIT_EXPECT_EQ(test, _IOC_SIZE(IBPOST_IOC_RUN_VER1_ALIAS),
			(unsigned int)IBPOST_RUN_SIZE_VER1);
	KUNIT_EXPECT_EQ(test, sizeof(struct ibpost_progress),
			(size_t)IBPOST_PROGRESS_SIZE_VER0);
	KUNIT_EXPECT_EQ(test, _IOC_SIZE(IBPOST_IOC_PROGRESS),
			(unsigned int)IBPOST_PROGRESS_SIZE_VER0);
}

/*
 * The ioctl numbers themselves, written out: installed tools send these.
 * Read-write, magic 0xE9, the command's number and its first size.
 */
static void ibpost_abi_numbers_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, (u32)IBPOST_IOC_DEV_LIST, 0xc050e901U);
	KUNIT_EXPECT_EQ(test, (u32)IBPOST_IOC_RUN, 0xc358e902U);
	KUNIT_EXPECT_EQ(test, (u32)IBPOST_IOC_RUN_VER1_ALIAS, 0xc378e902U);
	KUNIT_EXPECT_EQ(test, (u32)IBPOST_IOC_SERVE, 0xc0c0e903U);
	KUNIT_EXPECT_EQ(test, (u32)IBPOST_IOC_PROGRESS, 0xc060e905U);
}

static struct kunit_case ibpost_abi_cases[] = {
	KUNIT_CASE(ibpost_reason_table_test),
	KUNIT_CASE(ibpost_status_set_test),
	KUNIT_CASE(ibpost_mem_is_zero_test),
	KUNIT_CASE_PARAM(ibpost_check_rec_array_test, ibpost_rec_gen_params),
	KUNIT_CASE(ibpost_link_layer_test),
	KUNIT_CASE(ibpost_dev_flags_test),
	KUNIT_CASE(ibpost_reason_cap_test),
	KUNIT_CASE(ibpost_fill_dev_attr_test),
	KUNIT_CASE(ibpost_fill_dev_attr_clamp_test),
	KUNIT_CASE(ibpost_abi_sizes_test),
	KUNIT_CASE(ibpost_abi_numbers_test),
	{}
};

static struct kunit_suite ibpost_abi_suite = {
	.name = "ibpost_abi",
	.test_cases = ibpost_abi_cases,
};

kunit_test_suite(ibpost_abi_suite);

MODULE_DESCRIPTION("KUnit tests of ibpost's ioctl ABI helpers");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
