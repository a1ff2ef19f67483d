/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: `ibpost serve`, the target side of jobs from other hosts.
 */
#ifndef _IBPOST_SERVE_H
#define _IBPOST_SERVE_H

#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/rdma_cm.h>
#include <uapi/ibpost.h>

#include "core/buf.h"
#include "core/ep.h"
#include "core/pair.h"
#include "core/ctl.h"
#include "core/cpustat.h"
#include "core/device.h"
#include "core/mr.h"
#include "lib/sgl.h"
#include "core/target.h"

/* What an rdma_cm id's context points to. */
enum ibpost_srv_kind {
	IBPOST_SRV_KIND_LISTEN,
	IBPOST_SRV_KIND_CONN,
	IBPOST_SRV_KIND_JOIN,
};

/* Events a server queues for its owner at most (then they are dropped). */
#define IBPOST_SRV_EVENTS_MAX	1024

/**
 * struct ibpost_srv_ev - an event queued for the server's owner.
 * @node: entry in &ibpost_server.events.
 * @ev: the event.
 */
struct ibpost_srv_ev {
	struct list_head node;
	struct ibpost_serve_event ev;
};

/**
 * struct ibpost_server - one `ibpost serve`, owned by an open file.
 * @kind: IBPOST_SRV_KIND_LISTEN (the listener's context).
 * @args: what it was started with (defaults filled in).
 * @listen: the listening id; NULL once its device went away.
 * @lock: @listen, @conns, @rsvs, @active, @next_conn, @stopping,
 *	@listen_lost, each connection's @joinable, @joins, @njoins and
 *	@joining.
 * @conns: every connection whose thread has not been reaped.
 * @rsvs: slots of the per-address limit taken by connect requests being
 *	set up (struct ibpost_srv_rsv), until their connection is in @conns.
 * @active: connections not yet reaped (what --max-conns counts: a
 *	finished connection holds its thread until it is reaped), joined
 *	ones (struct ibpost_sjoin) included.
 * @next_conn: number of the next connection.
 * @stopping: the file is being released: refuse new connections.
 * @max_mem: @args.max_mem_mib in bytes.
 * @pinned: bytes the jobs of all connections pin now (@lock).
 * @mrs: memory registrations they hold now (@lock).
 * @listen_lost: the listener's device went away; rdma_cm frees the
 *	listening id once ibpost_srv_listener_lost() returned.
 * @listen_done: completed when ibpost_srv_listener_lost() is done with
 *	the server (its last access): the release waits for it.
 * @reap_work: reaps finished connections whether or not the owner sits in
 *	IBPOST_IOC_SERVE.
 * @ev_lock: @events, @nevents, @dropped.
 * @events: events not yet read.
 * @nevents: their number.
 * @dropped: events dropped since the last one read.
 * @ev_wq: readers waiting for an event.
 * @allow: networks clients may connect from (allow.c), NULL for any.
 * @nallow: their number.
 */
struct ibpost_server {
	enum ibpost_srv_kind kind;
	struct ibpost_serve args;
	struct rdma_cm_id *listen;
	struct mutex lock;
	struct list_head conns;
	struct list_head rsvs;
	u32 active;
	u32 next_conn;
	bool stopping;
	u64 max_mem;
	u64 pinned;
	u32 mrs;
	bool listen_lost;
	struct completion listen_done;
	struct work_struct reap_work;
	spinlock_t ev_lock;
	struct list_head events;
	u32 nevents;
	u32 dropped;
	wait_queue_head_t ev_wq;
	struct ibpost_serve_allow *allow;
	u32 nallow;
};

/**
 * struct ibpost_srv_rsv - a per-address slot a connect request took.
 * @node: entry in &ibpost_server.rsvs.
 * @addr: the client's address.
 *
 * Taken in the same critical section (&ibpost_server.lock) as the check
 * of the per-address limit, given back when the connection is in
 * &ibpost_server.conns (which then counts it) or the request failed: the
 * child listeners of a listener on every device each handle their connect
 * requests apart, so the check and the insert must be one.
 */
struct ibpost_srv_rsv {
	struct list_head node;
	struct sockaddr_storage addr;
};

/**
 * struct ibpost_sconn - one client's connection and job.
 * @kind: IBPOST_SRV_KIND_CONN (the id's context).
 * @node: entry in the server's @conns.
 * @srv: the server.
 * @id: the rdma_cm id of the connection.
 * @dev: its device, referenced.
 * @ep: the connection's endpoint (QP on @id, CQ, PD).
 * @thread: the connection's thread.
 * @num: the server's number of the connection.
 * @peer: the client's address (the per-address limit).
 * @charged: bytes of the server's memory budget this job holds.
 * @charged_ctl: bytes of it the control slots hold (charged at the
 *	connect request: a region's hello sizes them for
 *	IBPOST_WIRE_MAX_CHUNKS chunks).
 * @charged_mrs: MRs of the server's MR budget it holds.
 * @hello: what the connect request said.
 * @ctl: control channel.
 * @op: the job's opcode.
 * @flags: IBPOST_WIRE_*.
 * @msg_size: bytes per message.
 * @depth: the client's queue depth.
 * @imm_data: immediate data expected.
 * @send_layout: the client's SGEs (patterns are built from them).
 * @num_sge: their number.
 * @recv_layout: SGEs of each receive (SEND opcodes).
 * @recv_num_sge: their number.
 * @region_bytes: a session's region (IBPOST_WIRE_SESSION), else 0.
 * @chunk: bytes of each of its chunks (ibpost_target_chunk()).
 * @target: the job's slots, their MRs (RDMA opcodes), the data receives
 *	and what arrived: messages and bytes (an RDMA WRITE job: slots
 *	checked at the fin), mismatches, the first error completion of a
 *	data receive, the client's fin (on a data receive, whose immediate
 *	data is the number of WRs the client posted).
 * @lost: the rdma_cm connection ended (set by the id's handler).
 * @wake: the thread's wait queue.
 * @finished: the thread is done with the connection (server's @lock).
 * @t_active: jiffies of the client's last sign of life: its thread's
 *	start, the ready it was sent, a message or data it sent, or the
 *	thread's check of its messages (their receives posted again), never
 *	the server's own completions; set by the connection's thread only.
 * @peer_seen: messages and data receives from the client counted so far.
 * @t_kick: jiffies of the last keep-alive sent.
 * @kick_out: that keep-alive has not completed yet.
 * @t_job: jiffies the job was accepted.
 * @job_ms: the job's time limit (0: none, a session).
 * @token: a session's join token (random; zero before its ready).
 * @has_token: @token was given in a ready (set once, by the thread).
 * @joinable: other connections may join the session now (from its ready
 *	until its fin or its teardown; server's @lock).
 * @joins: the connections that joined it (struct ibpost_sjoin.node).
 * @njoins: their number (server's @lock); each counts against the
 *	per-address limit (ibpost_srv_addr_slots()).
 * @joins_lost: set (1) by a joined connection's rdma_cm handler when it
 *	ended; the thread then frees it (ibpost_sjoin_reap_lost()).
 * @joining: joins being set up in its PD (server's @lock); the teardown
 *	waits for none, on @wake.
 * @generation: a session's region's generation: random, never 0, made at
 *	its first ready and the same in every ready after a resume.
 * @keep_asked: a session's: the seconds its client asked the server to
 *	keep the region after a loss (struct ibpost_wire_job.keep_s).
 * @keep_s: the seconds granted: @keep_asked, at most
 *	&ibpost_serve.keep_s (said in its ready).
 * @kept: its connections were lost and its region waits for the client
 *	to take it back (for @keep_s; server's @lock).
 * @resuming: a connect request is taking it back (server's @lock); the
 *	thread waits for none before it frees the region.
 * @resumed: that request was accepted: the thread serves the new
 *	connection (written under the server's @lock, read by the thread).
 * @resumes: how many times the region was taken back.
 * @ending: the thread is ending the connection for good: no resume may
 *	claim it (server's @lock).
 * @cpu: a job with IBPOST_WIRE_CPU: where its CPU time is counted from
 *	(its ready; taken by the thread).
 */
struct ibpost_sconn {
	enum ibpost_srv_kind kind;
	struct list_head node;
	struct ibpost_server *srv;
	struct rdma_cm_id *id;
	struct ibpost_dev *dev;
	struct ibpost_ep ep;
	struct task_struct *thread;
	u32 num;
	struct sockaddr_storage peer;
	u64 charged;
	u32 charged_mrs;
	struct ibpost_wire_hello hello;
	struct ibpost_ctl ctl;
	u32 op;
	u32 flags;
	u32 msg_size;
	u32 depth;
	u32 imm_data;
	struct ibpost_sge_desc send_layout[IBPOST_WIRE_MAX_SGE];
	u32 num_sge;
	struct ibpost_sge_desc recv_layout[IBPOST_WIRE_MAX_SGE];
	u32 recv_num_sge;
	u64 region_bytes;
	u32 chunk;
	struct ibpost_target target;
	bool lost;
	wait_queue_head_t wake;
	bool finished;
	unsigned long t_active;
	u64 peer_seen;
	unsigned long t_kick;
	bool kick_out;
	unsigned long t_job;
	u32 job_ms;
	u64 charged_ctl;
	u8 token[IBPOST_WIRE_TOKEN_LEN];
	bool has_token;
	bool joinable;
	struct list_head joins;
	u32 njoins;
	atomic_t joins_lost;
	u32 joining;
	u32 generation;
	u32 keep_asked;
	u32 keep_s;
	bool kept;
	bool resuming;
	bool resumed;
	u32 resumes;
	bool ending;
	struct ibpost_cpu_mark cpu;
};

/**
 * struct ibpost_sjoin - a connection that joined a session: one more queue
 *	of the client's session, in the session's PD (its region's rkeys work
 *	on it), no job, no thread; the session's thread frees it when it is
 *	lost (ibpost_sjoin_reap_lost()) or the session ends.
 * @kind: IBPOST_SRV_KIND_JOIN (the id's context).
 * @node: entry in the session's @joins.
 * @owner: the session's connection.
 * @id: the rdma_cm id of the connection.
 * @ep: its endpoint (QP on @id, CQ; the owner's PD).
 * @num: the server's number of the connection.
 * @lost: the rdma_cm connection ended (set by the id's handler).
 */
struct ibpost_sjoin {
	enum ibpost_srv_kind kind;
	struct list_head node;
	struct ibpost_sconn *owner;
	struct rdma_cm_id *id;
	struct ibpost_ep ep;
	u32 num;
	bool lost;
};

int ibpost_serve_ioctl(struct ibpost_server **slot, struct ibpost_serve *k,
		       bool *full);
void ibpost_serve_release(struct ibpost_server *srv);

/* serve/account.c: events, the budget, refusals (calls no other file) */
bool ibpost_srv_same_addr(const struct sockaddr_storage *a,
			  const struct sockaddr *b);
u32 ibpost_srv_addr_slots(struct ibpost_server *srv,
			  const struct sockaddr *addr);
void ibpost_srv_event(struct ibpost_server *srv,
		      const struct ibpost_serve_event *ev);
void ibpost_srv_peer(struct ibpost_serve_event *ev, const struct sockaddr *sa);
void ibpost_srv_conn_event(struct ibpost_sconn *sc, u32 kind, int err,
			   const struct ibpost_status *st);
void ibpost_srv_finished(struct ibpost_sconn *sc);
int ibpost_srv_charge(struct ibpost_sconn *sc, u64 bytes, u32 mrs,
		      struct ibpost_status *st);
void ibpost_srv_uncharge(struct ibpost_sconn *sc);
int ibpost_srv_reject(struct rdma_cm_id *id, int err, u32 reason, u64 value,
		      u64 limit);

/* serve/join.c: calls account.c */
struct ibpost_sconn *ibpost_srv_session(struct ibpost_server *srv, u32 num);
int ibpost_srv_session_auth(const struct ibpost_sconn *sc,
			    const struct rdma_cm_id *id,
			    const struct ibpost_wire_join *j,
			    struct ibpost_status *st);
int ibpost_srv_join(struct ibpost_server *srv, struct rdma_cm_id *id,
		    const struct rdma_cm_event *ev,
		    const struct ibpost_wire_join *j);
void ibpost_sjoin_end_all(struct ibpost_sconn *sc);
void ibpost_sjoin_reap_lost(struct ibpost_sconn *sc);
void ibpost_sjoin_test_drop(struct ibpost_sconn *sc);

/* serve/conn.c: calls join.c, account.c */
u64 ibpost_sconn_ctl_pinned(const struct ibpost_wire_hello *h);
int ibpost_sconn_qp(struct ibpost_sconn *sc);
void ibpost_sconn_qp_free(struct ibpost_sconn *sc);
int ibpost_sconn_resume(struct ibpost_server *srv, struct rdma_cm_id *id,
			const struct rdma_cm_event *ev,
			const struct ibpost_wire_join *j);
int ibpost_sconn_thread(void *arg);
void ibpost_sconn_abandon(struct ibpost_sconn *sc);

#endif /* _IBPOST_SERVE_H */
