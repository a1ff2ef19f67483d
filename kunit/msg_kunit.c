// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the messages of a two-sided session as they arrive, checked
 * (module/lib/msg.c): every malformed header, descriptor list and credit
 * message refused with its reason, value and limit, the well-formed ones
 * taken; and the credits of a queue: an initiator that sends as fast as
 * its credits let it, against a target that answers in any order, never
 * sends to an empty receive queue and never stalls; a target that returns
 * too much, or an initiator that sends past its credits, is caught.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "lib/msg.h"
#include "lib/wire.h"

#define MSG_SIZE	512

/* A message of @ndesc descriptors and @data bytes in @buf; its length. */
static u32 msg_make(u8 *buf, u8 ndesc, u32 data, u64 cmd)
{
	struct ibpost_wire_desc *d;
	u32 len, i;

	len = sizeof(struct ibpost_wire_msg) +
	      ndesc * sizeof(struct ibpost_wire_desc) + data;
	memset(buf, 0, MSG_SIZE * 2);
	ibpost_wire_msg_build(buf, IBPOST_WIRE_MSG, len, 0, ndesc, 0, cmd);
	d = (void *)(buf + sizeof(struct ibpost_wire_msg));
	for (i = 0; i < ndesc; i++) {
		d[i].addr = cpu_to_be64(0x10000ULL * (i + 1));
		d[i].key = cpu_to_be32(0x1234500 + i);
		d[i].length = cpu_to_be32(4096);
	}
	for (i = 0; i < data; i++)
		buf[len - data + i] = (u8)(0xa5 ^ i);
	return len;
}

static void ibpost_msg_good_test(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, MSG_SIZE * 2, GFP_KERNEL);
	struct ibpost_status st = {};
	const struct ibpost_wire_desc *d;
	const struct ibpost_wire_msg *m;
	u32 len;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	m = (const void *)buf;
	len = msg_make(buf, 2, 64, 77);
	KUNIT_EXPECT_EQ(test, ibpost_wire_msg_check(buf, len, MSG_SIZE, &st), 0);
	KUNIT_EXPECT_EQ(test, st.reason, (u32)IBPOST_R_NONE);
	KUNIT_EXPECT_EQ(test, ibpost_wire_msg_data_off(m), 24U + 32U);
	d = ibpost_wire_msg_desc(buf);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(d[1].addr), 0x20000ULL);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(d[1].key), 0x1234501U);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(m->credits), 0);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(m->cmd), 77ULL);
	KUNIT_EXPECT_EQ(test, buf[len - 1], (u8)(0xa5 ^ 63));
	/* The largest: exactly the message size, the most descriptors. */
	len = msg_make(buf, IBPOST_WIRE_MSG_MAX_DESC,
		       MSG_SIZE - 24 - 16 * IBPOST_WIRE_MSG_MAX_DESC, 1);
	KUNIT_EXPECT_EQ(test, len, (u32)MSG_SIZE);
	KUNIT_EXPECT_EQ(test, ibpost_wire_msg_check(buf, len, MSG_SIZE, &st), 0);
	/* An answer returning credits, a header alone. */
	len = msg_make(buf, 0, 0, 9);
	buf[15] = IBPOST_WIRE_MSG_ANSWER;
	KUNIT_EXPECT_EQ(test, ibpost_wire_msg_check(buf, len, MSG_SIZE, &st), 0);
}

struct msg_case {
	const char *name;
	void (*spoil)(u8 *buf, u32 *len);
	u32 reason;
	u64 value, limit;
};

static void sp_short(u8 *b, u32 *len)
{
	*len = 23;
}

static void sp_magic(u8 *b, u32 *len)
{
	b[0] ^= 0x01;
}

static void sp_version(u8 *b, u32 *len)
{
	((struct ibpost_wire_msg *)b)->version =
		cpu_to_be16(IBPOST_WIRE_VERSION + 1);
}

static void sp_type(u8 *b, u32 *len)
{
	((struct ibpost_wire_msg *)b)->type = cpu_to_be16(3);
}

static void sp_length(u8 *b, u32 *len)
{
	((struct ibpost_wire_msg *)b)->length = cpu_to_be32(*len + 1);
}

static void sp_cut(u8 *b, u32 *len)
{
	*len -= 1;
}

static void sp_big(u8 *b, u32 *len)
{
	*len = MSG_SIZE + 8;
	((struct ibpost_wire_msg *)b)->length = cpu_to_be32(*len);
}

static void sp_flag(u8 *b, u32 *len)
{
	((struct ibpost_wire_msg *)b)->flags = 0x80;
}

static void sp_ndesc(u8 *b, u32 *len)
{
	((struct ibpost_wire_msg *)b)->ndesc = IBPOST_WIRE_MSG_MAX_DESC + 1;
}

static void sp_desc_past(u8 *b, u32 *len)
{
	/* 2 descriptors and 64 bytes: 5 descriptors need 104 of 120. */
	((struct ibpost_wire_msg *)b)->ndesc = 7;
}

static void sp_desc_zero(u8 *b, u32 *len)
{
	struct ibpost_wire_desc *d = (void *)(b + 24);

	d[1].length = 0;
}

static void sp_desc_wrap(u8 *b, u32 *len)
{
	struct ibpost_wire_desc *d = (void *)(b + 24);

	d[0].addr = cpu_to_be64(U64_MAX - 4094);
}

static void sp_credits(u8 *b, u32 *len)
{
	((struct ibpost_wire_msg *)b)->credits = cpu_to_be16(2);
}

/* Each spoils the message of 2 descriptors and 64 bytes (120 bytes). */
static const struct msg_case msg_cases[] = {
	{ "short of its header", sp_short, IBPOST_R_PEER_PROTO, 23, 24 },
	{ "magic", sp_magic, IBPOST_R_PEER_PROTO, IBPOST_WIRE_MAGIC ^ 0x01000000,
	  IBPOST_WIRE_MAGIC },
	{ "the next version", sp_version, IBPOST_R_PEER_VERSION,
	  IBPOST_WIRE_VERSION + 1, IBPOST_WIRE_VERSION },
	{ "a session's type (result)", sp_type, IBPOST_R_PEER_PROTO, 3,
	  IBPOST_WIRE_MSG },
	{ "length past what arrived", sp_length, IBPOST_R_PEER_PROTO, 121, 120 },
	{ "a byte short of its length", sp_cut, IBPOST_R_PEER_PROTO, 120, 119 },
	{ "past the message size", sp_big, IBPOST_R_PEER_PROTO, MSG_SIZE + 8,
	  MSG_SIZE },
	{ "an unknown flag", sp_flag, IBPOST_R_PEER_PROTO, 0x80,
	  IBPOST_WIRE_MSG_FLAGS },
	{ "17 descriptors", sp_ndesc, IBPOST_R_PEER_PROTO,
	  IBPOST_WIRE_MSG_MAX_DESC + 1, IBPOST_WIRE_MSG_MAX_DESC },
	{ "descriptors past the message", sp_desc_past, IBPOST_R_PEER_PROTO,
	  24 + 7 * 16, 120 },
	{ "an empty descriptor (the second)", sp_desc_zero, IBPOST_R_PEER_PROTO,
	  1, 2 },
	{ "a descriptor that wraps", sp_desc_wrap, IBPOST_R_PEER_PROTO,
	  U64_MAX - 4094, U64_MAX - 4096 },
	{ "a command returning credits", sp_credits, IBPOST_R_PEER_PROTO, 2, 0 },
};

static void msg_case_desc(const struct msg_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(msg, msg_cases, msg_case_desc);

static void ibpost_msg_bad_test(struct kunit *test)
{
	const struct msg_case *c = test->param_value;
	u8 *buf = kunit_kzalloc(test, MSG_SIZE * 2, GFP_KERNEL);
	struct ibpost_status st = {};
	u32 len;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	len = msg_make(buf, 2, 64, 77);
	KUNIT_ASSERT_EQ(test, len, 120U);
	c->spoil(buf, &len);
	KUNIT_EXPECT_EQ(test, ibpost_wire_msg_check(buf, len, MSG_SIZE, &st),
			-EPROTO);
	KUNIT_EXPECT_EQ(test, st.reason, c->reason);
	KUNIT_EXPECT_EQ(test, st.value, c->value);
	KUNIT_EXPECT_EQ(test, st.limit, c->limit);
}

static void ibpost_credits_rule_test(struct kunit *test)
{
	struct ibpost_status st = {};
	struct ibpost_credits ini, tgt;
	u32 i;

	ibpost_credits_init(&ini, 4);
	ibpost_credits_init(&tgt, 4);
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_TRUE(test, ibpost_credits_take(&ini));
		KUNIT_EXPECT_EQ(test, ibpost_credits_received(&tgt, &st), 0);
	}
	KUNIT_EXPECT_FALSE(test, ibpost_credits_take(&ini));
	/* A fifth command, past the credits: the target sees it. */
	KUNIT_EXPECT_EQ(test, ibpost_credits_received(&tgt, &st), -EPROTO);
	KUNIT_EXPECT_EQ(test, st.reason, (u32)IBPOST_R_PEER_PROTO);
	KUNIT_EXPECT_EQ(test, st.value, 1ULL);
	KUNIT_EXPECT_EQ(test, st.limit, 0ULL);
	/* Two receives posted again: the next answer returns them. */
	ibpost_credits_reposted(&tgt, 2);
	KUNIT_EXPECT_EQ(test, ibpost_credits_to_return(&tgt), 2);
	KUNIT_EXPECT_EQ(test, ibpost_credits_to_return(&tgt), 0);
	KUNIT_EXPECT_EQ(test, ibpost_credits_returned(&ini, 2, &st), 0);
	KUNIT_EXPECT_EQ(test, ini.avail, 2U);
	/* 2 of 4 outstanding: 3 is more than the target could post. */
	KUNIT_EXPECT_EQ(test, ibpost_credits_returned(&ini, 3, &st), -EPROTO);
	KUNIT_EXPECT_EQ(test, st.value, 5ULL);
	KUNIT_EXPECT_EQ(test, st.limit, 4ULL);
	KUNIT_EXPECT_EQ(test, ini.avail, 2U);
	KUNIT_EXPECT_EQ(test, ibpost_credits_returned(&ini, 2, &st), 0);
	KUNIT_EXPECT_EQ(test, ini.avail, 4U);
	KUNIT_EXPECT_EQ(test, ibpost_credits_returned(&ini, 1, &st), -EPROTO);
}

#define SIM_CMDS	300
#define SIM_WIN_MAX	8

/* The simulated queue: what each side holds, what is on the wire. */
struct sim {
	struct ibpost_credits ini, tgt;
	struct ibpost_status st;
	u32 posted;	/* the target's receives posted */
	u32 wire;	/* commands sent, not yet arrived */
	u32 unposted;	/* commands arrived, their receive not posted again */
	u32 held;	/* commands arrived, their receive posted again */
	u32 sent, done, nans;
	u16 *ans;	/* answers sent, not yet arrived: their credits */
	struct rnd_state rnd;	/* cheap: the debug kernel's crng is slow */
};

static u32 sim_below(struct sim *m, u32 n)
{
	return prandom_u32_state(&m->rnd) % n;
}

/* One random step; false when nothing could be done. */
static bool sim_step(struct kunit *test, struct sim *m)
{
	switch (sim_below(m, 5)) {
	case 0:	/* the initiator sends a command */
		if (m->sent == SIM_CMDS || !ibpost_credits_take(&m->ini))
			return false;
		m->sent++;
		m->wire++;
		return true;
	case 1:	/* the oldest command arrives: it takes a receive */
		if (!m->wire)
			return false;
		/* Never an empty receive queue: the credits' whole point. */
		KUNIT_ASSERT_GT(test, m->posted, 0U);
		KUNIT_ASSERT_EQ(test, ibpost_credits_received(&m->tgt, &m->st),
				0);
		m->posted--;
		m->wire--;
		m->unposted++;
		return true;
	case 2:	/* the target posts a command's receive again */
		if (!m->unposted)
			return false;
		ibpost_credits_reposted(&m->tgt, 1);
		m->posted++;
		m->unposted--;
		m->held++;
		return true;
	case 3:	/* it answers a command whose receive it posted again */
		if (!m->held)
			return false;
		m->ans[m->nans++] = ibpost_credits_to_return(&m->tgt);
		m->held--;
		return true;
	default: {	/* an answer arrives, in any order */
		u32 k;

		if (!m->nans)
			return false;
		k = sim_below(m, m->nans);
		KUNIT_ASSERT_EQ(test, ibpost_credits_returned(&m->ini, m->ans[k],
							      &m->st), 0);
		m->ans[k] = m->ans[--m->nans];
		m->done++;
		return true;
	}
	}
}

/*
 * An initiator with SIM_CMDS commands against a target that posts each
 * command's receive again at some later step but before it answers it,
 * and answers in any order; commands in flight on the wire, answers
 * arriving in any order; windows 1 to SIM_WIN_MAX, every step random:
 * no command ever arrives at an empty receive queue, every count holds
 * (no refusal on either side), every command is answered, and the
 * initiator ends with its whole window.
 */
static void ibpost_credits_sim_test(struct kunit *test)
{
	u16 *ans = kunit_kcalloc(test, SIM_CMDS, sizeof(*ans), GFP_KERNEL);
	u32 window, round, steps;

	KUNIT_ASSERT_NOT_NULL(test, ans);
	for (window = 1; window <= SIM_WIN_MAX; window++) {
		for (round = 0; round < 10; round++) {
			struct sim m = { .posted = window, .ans = ans };

			prandom_seed_state(&m.rnd, 1000 * window + round);
			ibpost_credits_init(&m.ini, window);
			ibpost_credits_init(&m.tgt, window);
			for (steps = 0; m.done < SIM_CMDS && steps < 1000000;
			     steps++)
				sim_step(test, &m);
			KUNIT_EXPECT_EQ(test, m.done, (u32)SIM_CMDS);
			KUNIT_EXPECT_EQ(test, m.ini.avail, window);
			KUNIT_EXPECT_EQ(test, m.posted, window);
			/* KASAN under TCG: let the watchdog see progress. */
			cond_resched();
			if (m.done != SIM_CMDS) {
				kunit_info(test, "window %u: %u of %u after %u steps",
					   window, m.done, SIM_CMDS, steps);
				return;
			}
		}
	}
}

static struct kunit_case ibpost_msg_cases[] = {
	KUNIT_CASE(ibpost_msg_good_test),
	KUNIT_CASE_PARAM(ibpost_msg_bad_test, msg_gen_params),
	KUNIT_CASE(ibpost_credits_rule_test),
	KUNIT_CASE(ibpost_credits_sim_test),
	{}
};

static struct kunit_suite ibpost_msg_suite = {
	.name = "ibpost_msg",
	.test_cases = ibpost_msg_cases,
};

kunit_test_suite(ibpost_msg_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
