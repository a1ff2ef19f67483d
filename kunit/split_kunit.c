// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: a mapped scatterlist as SGEs and WRs (module/split.c), and the
 * histogram percentile sessions report (module/stats.c).
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/scatterlist.h>

#include "split.h"
#include "stats.h"

#define SPLIT_MAX	16

/* A "mapped" list: bus addresses and lengths given by the case. */
struct split_case {
	const char *name;
	u32 n;
	u64 addr[SPLIT_MAX];
	u32 len[SPLIT_MAX];
	u32 want_nsge;		/* after merging */
	u32 max_sge;
	u32 want_nwr;
	u32 want_pages;
};

static const struct split_case split_cases[] = {
	{ "one page", 1, { 0x10000 }, { 4096 }, 1, 1, 1, 1 },
	{ "two apart", 2, { 0x10000, 0x30000 }, { 4096, 4096 }, 2, 1, 2, 2 },
	{ "two adjacent merge", 2, { 0x10000, 0x11000 }, { 4096, 4096 },
	  1, 1, 1, 2 },
	{ "eight adjacent merge to one", 8,
	  { 0x10000, 0x11000, 0x12000, 0x13000, 0x14000, 0x15000, 0x16000,
	    0x17000 },
	  { 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096 }, 1, 1, 1, 8 },
	{ "adjacent but reversed do not merge", 2, { 0x11000, 0x10000 },
	  { 4096, 4096 }, 2, 2, 1, 2 },
	{ "ten apart, 4 per WR", 10,
	  { 0x10000, 0x30000, 0x50000, 0x70000, 0x90000, 0xb0000, 0xd0000,
	    0xf0000, 0x110000, 0x130000 },
	  { 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096 },
	  10, 4, 3, 10 },
	{ "runs of two merge, 3 per WR", 6,
	  { 0x10000, 0x11000, 0x40000, 0x41000, 0x80000, 0x81000 },
	  { 4096, 4096, 4096, 4096, 4096, 4096 }, 3, 3, 1, 6 },
	{ "exactly max_sge", 4, { 0x10000, 0x30000, 0x50000, 0x70000 },
	  { 4096, 4096, 4096, 4096 }, 4, 4, 1, 4 },
	{ "one past max_sge", 5,
	  { 0x10000, 0x30000, 0x50000, 0x70000, 0x90000 },
	  { 4096, 4096, 4096, 4096, 4096 }, 5, 4, 2, 5 },
	{ "unaligned piece spans two pages", 2, { 0x10f00, 0x40000 },
	  { 512, 4096 }, 2, 32, 1, 3 },
	/* Pages are counted per entry: an upper bound for the MR. */
	{ "partial pages merge", 2, { 0x10800, 0x10c00 }, { 1024, 1024 },
	  1, 1, 1, 2 },
};

static void split_desc(const struct split_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(split, split_cases, split_desc);

static void split_test(struct kunit *test)
{
	const struct split_case *c = test->param_value;
	struct scatterlist *sgl = kunit_kcalloc(test, SPLIT_MAX, sizeof(*sgl),
						GFP_KERNEL);
	struct ib_sge *sges = kunit_kcalloc(test, SPLIT_MAX, sizeof(*sges),
					    GFP_KERNEL);
	u64 total = 0, covered;
	u32 i, nsge;

	KUNIT_ASSERT_NOT_NULL(test, sgl);
	KUNIT_ASSERT_NOT_NULL(test, sges);
	sg_init_table(sgl, c->n);
	for (i = 0; i < c->n; i++) {
		sg_dma_address(&sgl[i]) = c->addr[i];
		sg_dma_len(&sgl[i]) = c->len[i];
		total += c->len[i];
	}
	nsge = ibpost_sg_to_sges(sgl, c->n, 0x77, sges);
	KUNIT_EXPECT_EQ(test, nsge, c->want_nsge);
	KUNIT_EXPECT_EQ(test, ibpost_split_nwr(nsge, c->max_sge), c->want_nwr);
	KUNIT_EXPECT_EQ(test, ibpost_sg_pages(sgl, c->n), c->want_pages);
	covered = ibpost_sges_bytes(sges, nsge);
	KUNIT_EXPECT_EQ(test, covered, total);
	/* The SGEs start where the list starts and keep its order. */
	KUNIT_EXPECT_EQ(test, sges[0].addr, c->addr[0]);
	for (i = 0; i < nsge; i++) {
		KUNIT_EXPECT_EQ(test, sges[i].lkey, 0x77U);
		if (i)
			KUNIT_EXPECT_NE(test, sges[i - 1].addr +
					sges[i - 1].length, sges[i].addr);
	}
}

/* Every WR gets max_sge SGEs but the last; the remote side is contiguous. */
static void split_wr_bytes_test(struct kunit *test)
{
	struct scatterlist *sgl = kunit_kcalloc(test, SPLIT_MAX, sizeof(*sgl),
						GFP_KERNEL);
	struct ib_sge *sges = kunit_kcalloc(test, SPLIT_MAX, sizeof(*sges),
					    GFP_KERNEL);
	u32 i, nsge, nwr, left, per, max_sge = 3;
	u64 off = 0;

	KUNIT_ASSERT_NOT_NULL(test, sgl);
	KUNIT_ASSERT_NOT_NULL(test, sges);
	sg_init_table(sgl, 10);
	for (i = 0; i < 10; i++) {
		sg_dma_address(&sgl[i]) = 0x100000 * (i + 1);
		sg_dma_len(&sgl[i]) = 512 * (i + 1);
	}
	nsge = ibpost_sg_to_sges(sgl, 10, 1, sges);
	nwr = ibpost_split_nwr(nsge, max_sge);
	KUNIT_ASSERT_EQ(test, nwr, 4U);
	for (i = 0, left = nsge; i < nwr; i++, left -= per) {
		per = min(left, max_sge);
		KUNIT_EXPECT_EQ(test, per, i < nwr - 1 ? max_sge : 1U);
		off += ibpost_sges_bytes(&sges[i * max_sge], per);
	}
	KUNIT_EXPECT_EQ(test, off, 512ULL * 55);
}

static void hist_percentile_test(struct kunit *test)
{
	u64 hist[IBPOST_HIST_BUCKETS] = {};

	KUNIT_EXPECT_EQ(test, ibpost_hist_percentile(hist, 500), 0ULL);
	hist[10] = 98;		/* [1024, 2048) */
	hist[20] = 1;		/* [1 Mi, 2 Mi) */
	hist[30] = 1;
	KUNIT_EXPECT_EQ(test, ibpost_hist_percentile(hist, 500), 1ULL << 10);
	KUNIT_EXPECT_EQ(test, ibpost_hist_percentile(hist, 980), 1ULL << 10);
	KUNIT_EXPECT_EQ(test, ibpost_hist_percentile(hist, 990), 1ULL << 20);
	KUNIT_EXPECT_EQ(test, ibpost_hist_percentile(hist, 1000), 1ULL << 30);
	KUNIT_EXPECT_EQ(test, ibpost_hist_percentile(hist, 1), 1ULL << 10);
}

static struct kunit_case split_cases_list[] = {
	KUNIT_CASE_PARAM(split_test, split_gen_params),
	KUNIT_CASE(split_wr_bytes_test),
	KUNIT_CASE(hist_percentile_test),
	{}
};

static struct kunit_suite split_suite = {
	.name = "ibpost_split",
	.test_cases = split_cases_list,
};

kunit_test_suite(split_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
