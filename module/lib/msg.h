/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: the messages of a two-sided session and their flow control by
 * credits (msg.c; Documentation/wire.rst, "Messages").  Pure code: the
 * header and the descriptors as they arrive, checked before a byte of
 * them is used, and the credit count of one queue.
 *
 *   initiator                                target
 *   SEND: message (command: header,      ->
 *         descriptors, the consumer's bytes)
 *                                        <-  RDMA READ / WRITE against a
 *                                            descriptor
 *                                        <-  SEND (or SEND_WITH_INV of the
 *                                            descriptor's key): message
 *                                            (answer, @cmd of the command)
 *
 * Commands go from the initiator, answers from the target, one answer to
 * each command, naming it (@cmd).  The target keeps @window receives
 * posted on the queue for commands; the initiator sends a command only
 * while it holds a credit (a receive of the target's it knows to be
 * posted), and every answer returns the receives the target posted again
 * since its last answer (@credits).  The initiator posts a receive for a
 * command's answer before it sends the command.  So no send ever meets
 * an empty receive queue (no RNR retry), credits need no message of their
 * own, and an initiator that sends past its credits, or a target that
 * returns more than it was given, breaks the count and fails its session.
 * (nvme-rdma, iSER and SRP work so: the target's answers carry its
 * credits; SRP's req_lim_delta.)
 */
#ifndef _IBPOST_MSG_H
#define _IBPOST_MSG_H

#include <linux/types.h>
#include <uapi/ibpost.h>

/* The message type (struct ibpost_wire_msg.type), after wire.h's. */
#define IBPOST_WIRE_MSG		4

/* struct ibpost_wire_msg.flags */
#define IBPOST_WIRE_MSG_ANSWER	(1U << 0)	/* answers the command @cmd */
#define IBPOST_WIRE_MSG_FLAGS	IBPOST_WIRE_MSG_ANSWER

/* Descriptors one message may carry. */
#define IBPOST_WIRE_MSG_MAX_DESC	16
/* A session's message size: its bounds, and what a session gets unasked. */
#define IBPOST_WIRE_MSG_MIN	64
#define IBPOST_WIRE_MSG_MAX	65536
#define IBPOST_WIRE_MSG_DEFAULT	4096
/* Receives a target keeps posted on a queue (its window): at most this. */
#define IBPOST_WIRE_MSG_MAX_WINDOW	4096

/**
 * struct ibpost_wire_msg - the header of every message of a two-sided
 *	session, at the start of the receive buffer; what the consumer sent
 *	follows its descriptors.
 * @magic: IBPOST_WIRE_MAGIC.
 * @version: IBPOST_WIRE_VERSION.
 * @type: IBPOST_WIRE_MSG.
 * @length: bytes of the message, this header included: exactly what
 *	arrived, at most the session's message size.
 * @credits: an answer's: the receives the target posted again since its
 *	last answer, the commands the initiator may add; a command's: 0.
 * @ndesc: descriptors after the header (at most IBPOST_WIRE_MSG_MAX_DESC).
 * @flags: IBPOST_WIRE_MSG_*.
 * @cmd: the command's number, chosen by its initiator; an answer carries
 *	the number of the command it answers.
 */
struct ibpost_wire_msg {
	__be32 magic;
	__be16 version;
	__be16 type;
	__be32 length;
	__be16 credits;
	u8 ndesc;
	u8 flags;
	__be64 cmd;
};

/**
 * struct ibpost_wire_desc - memory the sender registered for the far
 *	side's RDMA READ or WRITE, for one command.
 * @addr: its first byte's address in the key's MR (an iova).
 * @key: the MR's rkey.
 * @length: its bytes (not 0; @addr + @length does not wrap).
 */
struct ibpost_wire_desc {
	__be64 addr;
	__be32 key;
	__be32 length;
};

/**
 * struct ibpost_credits - the flow control of one queue.
 * @window: receives the target keeps posted for commands.
 * @avail: the initiator's: commands it may still send.
 * @owed: the target's: receives posted again, not yet returned.
 * @far: the target's: the commands the initiator may still send, as the
 *	target counts them (its own @avail, mirrored).
 */
struct ibpost_credits {
	u32 window;
	u32 avail;
	u32 owed;
	u32 far;
};

int ibpost_wire_msg_check(const void *buf, u32 len, u32 msg_size,
			  struct ibpost_status *st);
const struct ibpost_wire_desc *ibpost_wire_msg_desc(const void *buf);
u32 ibpost_wire_msg_data_off(const struct ibpost_wire_msg *m);
void ibpost_wire_msg_build(void *buf, u16 type, u32 length, u16 credits,
			   u8 ndesc, u8 flags, u64 cmd);

void ibpost_credits_init(struct ibpost_credits *c, u32 window);
bool ibpost_credits_take(struct ibpost_credits *c);
int ibpost_credits_returned(struct ibpost_credits *c, u16 n,
			    struct ibpost_status *st);
int ibpost_credits_received(struct ibpost_credits *c,
			    struct ibpost_status *st);
void ibpost_credits_reposted(struct ibpost_credits *c, u32 n);
u16 ibpost_credits_to_return(struct ibpost_credits *c);

#endif /* _IBPOST_MSG_H */
