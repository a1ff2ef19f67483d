// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: the messages of a two-sided session, checked as they arrive,
 * and the credits of a queue (msg.h; Documentation/wire.rst, "Messages").
 *
 * Every field a peer sends is checked here before it is used, with the
 * reason, the value seen and the limit it broke.  The credits are the
 * initiator's count of the target's receives for commands and the
 * target's mirror of it: each side can tell when the other breaks it.
 */
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/overflow.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "lib/abi.h"
#include "lib/msg.h"
#include "lib/wire.h"

static_assert(sizeof(struct ibpost_wire_msg) == 24);
static_assert(offsetof(struct ibpost_wire_msg, length) == 8);
static_assert(offsetof(struct ibpost_wire_msg, credits) == 12);
static_assert(offsetof(struct ibpost_wire_msg, ndesc) == 14);
static_assert(offsetof(struct ibpost_wire_msg, flags) == 15);
static_assert(offsetof(struct ibpost_wire_msg, cmd) == 16);
static_assert(sizeof(struct ibpost_wire_desc) == 16);
static_assert(offsetof(struct ibpost_wire_desc, key) == 8);
static_assert(offsetof(struct ibpost_wire_desc, length) == 12);
/* The smallest message holds the header and two descriptors. */
static_assert(sizeof(struct ibpost_wire_msg) +
	      2 * sizeof(struct ibpost_wire_desc) <= IBPOST_WIRE_MSG_MIN);
/* A window fits the header's credit field. */
static_assert(IBPOST_WIRE_MSG_MAX_WINDOW <= U16_MAX);

static int ibpost_msg_bad(struct ibpost_status *st, u32 reason, u64 value,
			  u64 limit)
{
	ibpost_status_set(st, reason, value, limit);
	return -EPROTO;
}

/* Each descriptor: not empty, and its end within the address space. */
static int ibpost_msg_desc_check(const struct ibpost_wire_desc *d, u32 n,
				 struct ibpost_status *st)
{
	u64 end;
	u32 i;

	for (i = 0; i < n; i++) {
		u32 len = be32_to_cpu(d[i].length);

		if (!len)
			return ibpost_msg_bad(st, IBPOST_R_PEER_PROTO, i, n);
		if (check_add_overflow(be64_to_cpu(d[i].addr), (u64)len, &end))
			return ibpost_msg_bad(st, IBPOST_R_PEER_PROTO,
					      be64_to_cpu(d[i].addr),
					      U64_MAX - len);
	}
	return 0;
}

/**
 * ibpost_wire_msg_check() - is what arrived in a receive buffer a message
 *	of the session?
 * @buf: the receive buffer.
 * @len: bytes that arrived (the receive's byte_len).
 * @msg_size: the session's message size (IBPOST_WIRE_MSG_MIN to
 *	IBPOST_WIRE_MSG_MAX): the receive buffers' size.
 * @st: the refusal's reason, value and limit.
 *
 * Checked: the header fits; magic; version; type; @length equal to @len
 * and at most @msg_size; only known flags; no credits in a command; the
 * descriptors fit the message, at most IBPOST_WIRE_MSG_MAX_DESC, each not
 * empty and not wrapping.  An answer's credits are the queue's to judge
 * (ibpost_credits_returned()), and so is whether a command came within
 * its credits (ibpost_credits_received()).
 *
 * Return: 0, or -EPROTO with IBPOST_R_PEER_VERSION (value: the version
 * seen, limit: ours) or IBPOST_R_PEER_PROTO (the field's value and its
 * limit; a descriptor's: its index and the count, or its address and the
 * highest it may have).
 */
int ibpost_wire_msg_check(const void *buf, u32 len, u32 msg_size,
			  struct ibpost_status *st)
{
	const struct ibpost_wire_msg *m = buf;
	u32 ndesc, need;
	u16 type;

	if (len < sizeof(*m))
		return ibpost_msg_bad(st, IBPOST_R_PEER_PROTO, len, sizeof(*m));
	if (be32_to_cpu(m->magic) != IBPOST_WIRE_MAGIC)
		return ibpost_msg_bad(st, IBPOST_R_PEER_PROTO,
				      be32_to_cpu(m->magic), IBPOST_WIRE_MAGIC);
	if (be16_to_cpu(m->version) != IBPOST_WIRE_VERSION)
		return ibpost_msg_bad(st, IBPOST_R_PEER_VERSION,
				      be16_to_cpu(m->version),
				      IBPOST_WIRE_VERSION);
	type = be16_to_cpu(m->type);
	if (type != IBPOST_WIRE_MSG)
		return ibpost_msg_bad(st, IBPOST_R_PEER_PROTO, type,
				      IBPOST_WIRE_MSG);
	if (be32_to_cpu(m->length) != len)
		return ibpost_msg_bad(st, IBPOST_R_PEER_PROTO,
				      be32_to_cpu(m->length), len);
	if (len > msg_size)
		return ibpost_msg_bad(st, IBPOST_R_PEER_PROTO, len, msg_size);
	if (m->flags & ~IBPOST_WIRE_MSG_FLAGS)
		return ibpost_msg_bad(st, IBPOST_R_PEER_PROTO, m->flags,
				      IBPOST_WIRE_MSG_FLAGS);
	/* Only an answer returns credits. */
	if (!(m->flags & IBPOST_WIRE_MSG_ANSWER) && m->credits)
		return ibpost_msg_bad(st, IBPOST_R_PEER_PROTO,
				      be16_to_cpu(m->credits), 0);
	ndesc = m->ndesc;
	if (ndesc > IBPOST_WIRE_MSG_MAX_DESC)
		return ibpost_msg_bad(st, IBPOST_R_PEER_PROTO, ndesc,
				      IBPOST_WIRE_MSG_MAX_DESC);
	need = sizeof(*m) + ndesc * sizeof(struct ibpost_wire_desc);
	if (need > len)
		return ibpost_msg_bad(st, IBPOST_R_PEER_PROTO, need, len);
	return ibpost_msg_desc_check(ibpost_wire_msg_desc(buf), ndesc, st);
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_wire_msg_check);

/**
 * ibpost_wire_msg_desc() - a checked message's descriptors.
 * @buf: the message (ibpost_wire_msg_check() returned 0).
 *
 * Return: the first of its @ndesc descriptors.
 */
const struct ibpost_wire_desc *ibpost_wire_msg_desc(const void *buf)
{
	return (const void *)((const u8 *)buf + sizeof(struct ibpost_wire_msg));
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_wire_msg_desc);

/**
 * ibpost_wire_msg_data_off() - where a checked message's own bytes (the
 *	consumer's) start.
 * @m: the message.
 *
 * Return: the offset after its header and descriptors; its @length less
 * this is their size.
 */
u32 ibpost_wire_msg_data_off(const struct ibpost_wire_msg *m)
{
	return sizeof(*m) + m->ndesc * sizeof(struct ibpost_wire_desc);
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_wire_msg_data_off);

/**
 * ibpost_wire_msg_build() - write a message's header.
 * @buf: the send buffer (at least the header's size).
 * @type: IBPOST_WIRE_MSG.
 * @length: the whole message's bytes.
 * @credits: an answer's: the receives returned (ibpost_credits_to_return());
 *	a command's: 0.
 * @ndesc: descriptors that follow (the caller writes them).
 * @flags: IBPOST_WIRE_MSG_*.
 * @cmd: the command's number.
 */
void ibpost_wire_msg_build(void *buf, u16 type, u32 length, u16 credits,
			   u8 ndesc, u8 flags, u64 cmd)
{
	struct ibpost_wire_msg *m = buf;

	m->magic = cpu_to_be32(IBPOST_WIRE_MAGIC);
	m->version = cpu_to_be16(IBPOST_WIRE_VERSION);
	m->type = cpu_to_be16(type);
	m->length = cpu_to_be32(length);
	m->credits = cpu_to_be16(credits);
	m->ndesc = ndesc;
	m->flags = flags;
	m->cmd = cpu_to_be64(cmd);
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_wire_msg_build);

/**
 * ibpost_credits_init() - a queue's credits at its start.
 * @c: the credits (the initiator's or the target's).
 * @window: the receives the target posts for commands (1 to
 *	IBPOST_WIRE_MSG_MAX_WINDOW): the commands the initiator may have
 *	sent and not yet had an answer to with their credit.
 */
void ibpost_credits_init(struct ibpost_credits *c, u32 window)
{
	WARN_ON_ONCE(!window || window > IBPOST_WIRE_MSG_MAX_WINDOW);
	c->window = window;
	c->avail = window;
	c->owed = 0;
	c->far = window;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_credits_init);

/**
 * ibpost_credits_take() - the initiator takes a credit for a command.
 * @c: the initiator's credits.
 *
 * Return: true when the command may go; false: wait for an answer's
 * credits.
 */
bool ibpost_credits_take(struct ibpost_credits *c)
{
	if (!c->avail)
		return false;
	c->avail--;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_credits_take);

/**
 * ibpost_credits_returned() - an answer returned credits to the initiator.
 * @c: the initiator's credits.
 * @n: the answer's @credits.
 * @st: the refusal: the target returned more than the initiator's
 *	commands took, receives it cannot have posted for them.
 *
 * Return: 0, or -EPROTO with IBPOST_R_PEER_PROTO (value: the credits the
 * initiator would hold, limit: the window); the credits are unchanged
 * then, and the session must fail.
 */
int ibpost_credits_returned(struct ibpost_credits *c, u16 n,
			    struct ibpost_status *st)
{
	if (n > c->window - c->avail)
		return ibpost_msg_bad(st, IBPOST_R_PEER_PROTO,
				      (u64)c->avail + n, c->window);
	c->avail += n;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_credits_returned);

/**
 * ibpost_credits_received() - a command arrived at the target.
 * @c: the target's credits.
 * @st: the refusal: the initiator had no credit left for it (it sent past
 *	the receives it was given; with RC it met one the target had posted
 *	early, or an RNR retry).
 *
 * Return: 0, or -EPROTO with IBPOST_R_PEER_PROTO (value: the commands
 * the initiator sent past its credits plus this one, 1; limit: 0); the
 * session must fail.
 */
int ibpost_credits_received(struct ibpost_credits *c, struct ibpost_status *st)
{
	if (!c->far)
		return ibpost_msg_bad(st, IBPOST_R_PEER_PROTO, 1, 0);
	c->far--;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_credits_received);

/**
 * ibpost_credits_reposted() - the target posted receives for commands
 *	again.
 * @c: the target's credits.
 * @n: receives posted, each for one a command used.  The target posts a
 *	command's receive again before it answers that command, so that
 *	every answer returns at least its own command's credit and the
 *	initiator's credits never stall.
 */
void ibpost_credits_reposted(struct ibpost_credits *c, u32 n)
{
	c->owed += n;
	WARN_ON_ONCE(c->owed + c->far > c->window);
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_credits_reposted);

/**
 * ibpost_credits_to_return() - the credits the target's next answer
 *	carries.
 * @c: the target's credits.
 *
 * Return: what the target owes the initiator, now counted as the
 * initiator's again (0 when nothing).
 */
u16 ibpost_credits_to_return(struct ibpost_credits *c)
{
	u16 n = c->owed;

	c->far += n;
	c->owed = 0;
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_credits_to_return);
