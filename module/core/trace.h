/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: tracepoints (events/ibpost/ in tracefs).
 *
 * Each event fires from the one place its mechanism lives: a chain from
 * ibpost_ep_post(), a failed completion from ibpost_ep_wc_error(), a
 * refusal where a request's status goes back to its caller, a
 * registration or invalidation from the MR code's one runner, a
 * server's events where they are queued for ``ibpost serve``.  Arguments are pointers or plain numbers
 * the caller already has: nothing is computed or formatted while an event
 * is disabled.  Documentation/observability.rst lists the fields.
 * A session's state changes are session/trace.h's (the same system).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ibpost

#if !defined(_IBPOST_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _IBPOST_TRACE_H

#include <linux/in6.h>
#include <linux/socket.h>
#include <linux/tracepoint.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
/* rdma_show_wc_status() (its lists also name the CM events: ib_cm.h). */
#include <trace/misc/rdma.h>
#include <uapi/ibpost.h>

#include "compat/compat.h"
#include "lib/abi.h"
#include "core/ep.h"

TRACE_DEFINE_ENUM(IBPOST_SRV_LISTEN);
TRACE_DEFINE_ENUM(IBPOST_SRV_CONNECT);
TRACE_DEFINE_ENUM(IBPOST_SRV_JOB);
TRACE_DEFINE_ENUM(IBPOST_SRV_REFUSED);
TRACE_DEFINE_ENUM(IBPOST_SRV_DONE);
TRACE_DEFINE_ENUM(IBPOST_SRV_LOST);
TRACE_DEFINE_ENUM(IBPOST_SRV_STOPPED);
TRACE_DEFINE_ENUM(IBPOST_SRV_JOIN);
TRACE_DEFINE_ENUM(IBPOST_SRV_KEPT);
TRACE_DEFINE_ENUM(IBPOST_SRV_RESUMED);

#define ibpost_show_srv_kind(x)					\
	__print_symbolic(x,					\
		{ IBPOST_SRV_LISTEN,	"LISTEN" },		\
		{ IBPOST_SRV_CONNECT,	"CONNECT" },		\
		{ IBPOST_SRV_JOB,	"JOB" },		\
		{ IBPOST_SRV_REFUSED,	"REFUSED" },		\
		{ IBPOST_SRV_DONE,	"DONE" },		\
		{ IBPOST_SRV_LOST,	"LOST" },		\
		{ IBPOST_SRV_STOPPED,	"STOPPED" },		\
		{ IBPOST_SRV_JOIN,	"JOIN" },		\
		{ IBPOST_SRV_KEPT,	"KEPT" },		\
		{ IBPOST_SRV_RESUMED,	"RESUMED" })

/**
 * ibpost_job_start - a job's QPs are connected and it starts posting.
 * @run: the job's request.
 * @qpn: its initiator QP.
 * @tgt_qpn: its loopback target QP, 0 for a job against a server.
 */
TRACE_EVENT(ibpost_job_start,
	TP_PROTO(const struct ibpost_run *run, u32 qpn, u32 tgt_qpn),
	TP_ARGS(run, qpn, tgt_qpn),
	TP_STRUCT__entry(
		__string(dev, run->dev)
		__field(u32, qpn)
		__field(u32, tgt_qpn)
		__field(u32, op)
		__field(u32, msg_size)
		__field(u32, num_sge)
		__field(u32, depth)
		__field(u32, batch)
		__field(u64, iters)
	),
	TP_fast_assign(
		ibpost_compat_assign_str(dev, run->dev);
		__entry->qpn = qpn;
		__entry->tgt_qpn = tgt_qpn;
		__entry->op = run->op;
		__entry->msg_size = run->msg_size;
		__entry->num_sge = run->num_sge;
		__entry->depth = run->depth;
		__entry->batch = run->batch;
		__entry->iters = run->iters;
	),
	TP_printk("dev=%s qpn=0x%x tgt_qpn=0x%x op=%u msg_size=%u num_sge=%u depth=%u batch=%u iters=%llu",
		  __get_str(dev), __entry->qpn, __entry->tgt_qpn, __entry->op,
		  __entry->msg_size, __entry->num_sge, __entry->depth,
		  __entry->batch, __entry->iters)
);

/**
 * ibpost_job_end - a job ended (its results are final).
 * @run: the job's request with its status and result.
 * @qpn: its initiator QP (0 when it never got one).
 * @err: the errno the job returns.
 */
TRACE_EVENT(ibpost_job_end,
	TP_PROTO(const struct ibpost_run *run, u32 qpn, int err),
	TP_ARGS(run, qpn, err),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(int, err)
		__field(u32, reason)
		__field(u64, wrs)
		__field(u64, bytes)
		__field(u32, wc_errors)
		__field(u32, first_err_status)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->err = err;
		__entry->reason = run->status.reason;
		__entry->wrs = run->result.wrs;
		__entry->bytes = run->result.bytes;
		__entry->wc_errors = run->result.wc_errors;
		__entry->first_err_status = run->result.first_err_status;
	),
	TP_printk("qpn=0x%x err=%d reason=%u wrs=%llu bytes=%llu wc_errors=%u first_err_status=%s",
		  __entry->qpn, __entry->err, __entry->reason, __entry->wrs,
		  __entry->bytes, __entry->wc_errors,
		  rdma_show_wc_status(__entry->first_err_status))
);

/**
 * ibpost_post - a chain given to ib_post_send().
 * @qpn: the QP.
 * @wrs: WRs in the chain.
 * @bytes: bytes its SGEs describe.
 * @taken: WRs the provider took.
 * @ret: what ib_post_send() returned.
 */
TRACE_EVENT(ibpost_post,
	TP_PROTO(u32 qpn, u32 wrs, u64 bytes, u32 taken, int ret),
	TP_ARGS(qpn, wrs, bytes, taken, ret),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, wrs)
		__field(u64, bytes)
		__field(u32, taken)
		__field(int, ret)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->wrs = wrs;
		__entry->bytes = bytes;
		__entry->taken = taken;
		__entry->ret = ret;
	),
	TP_printk("qpn=0x%x wrs=%u bytes=%llu taken=%u ret=%d",
		  __entry->qpn, __entry->wrs, __entry->bytes, __entry->taken,
		  __entry->ret)
);

/**
 * ibpost_wc - a completion that did not succeed.
 * @ep: the endpoint it came from.
 * @wc: the completion.
 * @counted: it counts as an error (false: a flush while draining).
 *
 * The WR is named by its QP and opcode only: ibpost posts with wr_cqe, so
 * wr_id is a kernel address, and no kernel address is recorded (a trace
 * buffer is readable where tracefs is, and raw records skip %p hashing).
 */
TRACE_EVENT(ibpost_wc,
	TP_PROTO(const struct ibpost_ep *ep, const struct ib_wc *wc,
		 bool counted),
	TP_ARGS(ep, wc, counted),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, status)
		__field(u32, vendor_err)
		__field(u32, opcode)
		__field(bool, counted)
	),
	TP_fast_assign(
		__entry->qpn = ep->qp ? ep->qp->qp_num : 0;
		__entry->status = wc->status;
		__entry->vendor_err = wc->vendor_err;
		__entry->opcode = wc->opcode;
		__entry->counted = counted;
	),
	TP_printk("qpn=0x%x status=%s vendor_err=0x%x opcode=%u counted=%d",
		  __entry->qpn, rdma_show_wc_status(__entry->status),
		  __entry->vendor_err, __entry->opcode, __entry->counted)
);

/**
 * ibpost_refuse - a request refused before anything was posted.
 * @st: where and why (struct ibpost_status).
 * @err: the errno returned.
 */
TRACE_EVENT(ibpost_refuse,
	TP_PROTO(const struct ibpost_status *st, int err),
	TP_ARGS(st, err),
	TP_STRUCT__entry(
		__field(int, err)
		__field(u32, reason)
		__string(text, ibpost_reason_str(st->reason))
		__field(u32, wr)
		__field(u32, sge)
		__field(u64, value)
		__field(u64, limit)
	),
	TP_fast_assign(
		__entry->err = err;
		__entry->reason = st->reason;
		ibpost_compat_assign_str(text, ibpost_reason_str(st->reason));
		__entry->wr = st->wr;
		__entry->sge = st->sge;
		__entry->value = st->value;
		__entry->limit = st->limit;
	),
	TP_printk("err=%d reason=%u wr=%d sge=%d value=%llu limit=%llu text=\"%s\"",
		  __entry->err, __entry->reason, (int)__entry->wr,
		  (int)__entry->sge, __entry->value, __entry->limit,
		  __get_str(text))
);

DECLARE_EVENT_CLASS(ibpost_mr_class,
	TP_PROTO(u32 qpn, u32 mrs, int access, int ret),
	TP_ARGS(qpn, mrs, access, ret),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, mrs)
		__field(int, access)
		__field(int, ret)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->mrs = mrs;
		__entry->access = access;
		__entry->ret = ret;
	),
	TP_printk("qpn=0x%x mrs=%u access=0x%x ret=%d",
		  __entry->qpn, __entry->mrs, __entry->access, __entry->ret)
);

/**
 * ibpost_reg - fast-reg MRs registered (REG_MR posted and completed).
 * @qpn: the QP the WRs were posted on.
 * @mrs: MRs of the set.
 * @access: IB_ACCESS_* granted.
 * @ret: 0 or the errno.
 */
DEFINE_EVENT(ibpost_mr_class, ibpost_reg,
	TP_PROTO(u32 qpn, u32 mrs, int access, int ret),
	TP_ARGS(qpn, mrs, access, ret));

/**
 * ibpost_inval - registered MRs invalidated (LOCAL_INV).
 * @qpn: the QP the WRs were posted on.
 * @mrs: MRs of the set.
 * @access: 0.
 * @ret: 0 or the errno.
 */
DEFINE_EVENT(ibpost_mr_class, ibpost_inval,
	TP_PROTO(u32 qpn, u32 mrs, int access, int ret),
	TP_ARGS(qpn, mrs, access, ret));

/**
 * ibpost_srv - an event of ``ibpost serve`` (connect, refusal, loss, ...).
 * @ev: the event as the server's owner reads it.
 *
 * The client's address is kept as IPv6 (IPv4 mapped), printed with %pI6c.
 */
TRACE_EVENT(ibpost_srv,
	TP_PROTO(const struct ibpost_serve_event *ev),
	TP_ARGS(ev),
	TP_STRUCT__entry(
		__field(u32, kind)
		__field(u32, conn)
		__field(int, err)
		__field(u32, reason)
		__field(u64, value)
		__field(u64, limit)
		__field(u32, wc_status)
		__field(u16, port)
		__array(u8, addr, 16)
	),
	TP_fast_assign(
		__entry->kind = ev->kind;
		__entry->conn = ev->conn;
		__entry->err = ev->err;
		__entry->reason = ev->reason;
		__entry->value = ev->value;
		__entry->limit = ev->limit;
		__entry->wc_status = ev->wc_status;
		__entry->port = ev->port;
		memset(__entry->addr, 0, 16);
		if (ev->peer_family == AF_INET) {
			__entry->addr[10] = 0xff;
			__entry->addr[11] = 0xff;
			memcpy(&__entry->addr[12], ev->peer, 4);
		} else if (ev->peer_family == AF_INET6) {
			memcpy(__entry->addr, ev->peer, 16);
		}
	),
	TP_printk("kind=%s conn=%u peer=%pI6c port=%u err=%d reason=%u value=%llu limit=%llu wc_status=%s",
		  ibpost_show_srv_kind(__entry->kind), __entry->conn,
		  __entry->addr, __entry->port, __entry->err, __entry->reason,
		  __entry->value, __entry->limit,
		  rdma_show_wc_status(__entry->wc_status))
);

#endif /* _IBPOST_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH core
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
