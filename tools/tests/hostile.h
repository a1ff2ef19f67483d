/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hostile: a peer of 'ibpost serve' (hostile.c: connections and the single
 * modes; hostile-battery.c: the battery of malformed and abusive rounds).
 */
#ifndef IBPOST_HOSTILE_H
#define IBPOST_HOSTILE_H

#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/* module/lib/wire.h is kernel C: its kernel-only types. */
typedef uint8_t u8;
typedef uint32_t u32;
#include <uapi/ibpost.h>
#include "../../module/lib/wire.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define H_BUF		4096	/* the send buffer; receives unless said */
#define H_DBUF		(2 * H_BUF)	/* the data buffer */
#define H_RECVS		16	/* receives kept posted (keep-alives, answers) */
/* Bound on each rdma_cm step and answer (a debug kernel on a loaded host is slow). */
#define H_STEP_MS	30000

struct hopts {
	const char *mode;
	const char *server;
	const char *server2;	/* battery: the server at another address */
	unsigned int port;
	const char *until;
	unsigned int size;
	unsigned long long addr;
	unsigned int rkey;
	unsigned int len;
	const char *op;
	unsigned int tries;
	unsigned int conns;		/* battery: connections at once */
	unsigned int max_per_addr;	/* battery: the server's limit */
	unsigned int max_job_ms;	/* battery: the server's job time */
};

struct hconn {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *rmr;	/* receive buffers */
	struct ibv_mr *smr;	/* send buffer */
	struct ibv_mr *dmr;	/* data buffer: RDMA source and sink */
	uint8_t *rbuf;
	uint32_t rsz;		/* bytes of each receive buffer (0: H_BUF) */
	uint8_t *sbuf;
	uint8_t *dbuf;
	uint32_t wrs;		/* data WRs posted (the fin's count) */
	struct ibv_wc last;	/* last completion taken */
	struct ibv_wc held;	/* a message that came while a send was awaited */
	int has_held;
	int dropped;		/* the server disconnected (or the QP failed) */
	struct ibpost_wire_reject rej;	/* private data of a rejection */
	int rej_len;
};

extern const char *prog;

void die(const char *what);
void fail(const char *what);
uint64_t now_ms(void);
const char *reason_str(uint32_t reason);

void resolve(struct hconn *c, const char *host, unsigned int port);
void setup_qp(struct hconn *c, unsigned int sq);
int cm_connect(struct hconn *c, const void *priv, uint8_t plen);
void cm_connect_start(struct hconn *c, const void *priv, uint8_t plen);
int cm_connect_end(struct hconn *c);
int cm_poll_drop(struct hconn *c);
void teardown(struct hconn *c);
void post_recv(struct hconn *c, unsigned int i);
int wait_wc_for(struct hconn *c, int send, uint64_t ms);
enum ibv_wc_status wait_wc(struct hconn *c, int send, uint64_t ms);
int post_msg(struct hconn *c, const void *m, uint32_t len, int fin,
	     uint32_t imm);
void send_msg(struct hconn *c, uint32_t len, int fin);
enum ibv_wc_status rdma_op(struct hconn *c, int write, uint64_t raddr,
			   uint32_t rkey, uint32_t len);
uint32_t job_build(void *buf, uint32_t op, uint32_t flags, uint32_t msg_size,
		   uint32_t depth, uint32_t num_sge, uint32_t recv_num_sge);
void hello_init(struct ibpost_wire_hello *h, uint32_t depth,
		uint32_t recv_sge);

int mode_battery(const struct hopts *o);
int mode_join_race(const struct hopts *o);

#endif
