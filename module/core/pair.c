// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: connect endpoints: two RC QPs of one device to each other, or
 * one to a server on another host.
 *
 * rdma_cm cannot resolve a route over rxe on lo on 6.1 ("rdma_resolve_route
 * failed"), the first soft-RoCE device users make, so by default a loopback
 * pair is connected directly: each QP is moved INIT -> RTR -> RTS with the
 * other's QP number and an address vector built from the port's own GID
 * (RoCE) or LID (InfiniBand), as perftest does without -R.  Given an IP
 * address of the device, the pair is connected through rdma_cm instead
 * (cm.c), as perftest -R does.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/etherdevice.h>
#include <linux/inetdevice.h>
#include <linux/in.h>
#include <net/net_namespace.h>
#include <rdma/ib_cache.h>

#include "lib/abi.h"
#include "core/pair.h"

#define IBPOST_PSN		0x1000
#define IBPOST_RD_ATOMIC	16

/* Pick a GID: RoCE v2 with an IPv4-mapped address first, like perftest. */
static const struct ib_gid_attr *ibpost_pick_gid(struct ib_device *ibdev,
						 u32 port, int tbl_len)
{
	const struct ib_gid_attr *best = NULL, *a;
	int i, score, best_score = -1;

	for (i = 0; i < tbl_len; i++) {
		a = rdma_get_gid_attr(ibdev, port, i);
		if (IS_ERR(a))
			continue;
		score = 0;
		if (a->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP)
			score += 2;
		if (ipv6_addr_v4mapped((const struct in6_addr *)a->gid.raw))
			score += 1;
		if (score > best_score) {
			if (best)
				rdma_put_gid_attr(best);
			best = a;
			best_score = score;
		} else {
			rdma_put_gid_attr(a);
		}
	}
	return best;
}

/* Does the port's protocol carry GIDs of this type? */
static bool ibpost_gid_type_ok(struct ib_device *ibdev, u32 port,
			       enum ib_gid_type type)
{
	switch (type) {
	case IB_GID_TYPE_IB:
		return rdma_protocol_ib(ibdev, port);
	case IB_GID_TYPE_ROCE:
		return rdma_protocol_roce_eth_encap(ibdev, port);
	case IB_GID_TYPE_ROCE_UDP_ENCAP:
		return rdma_protocol_roce_udp_encap(ibdev, port);
	default:
		return false;
	}
}

/*
 * The GID at @index of the port, held (rdma_put_gid_attr()), or an
 * ERR_PTR with the reason in @st: past the table, no GID there (an empty
 * entry: rdma_get_gid_attr() fails), or a type the port does not carry.
 * @value is the index, @limit the table's size.
 */
static const struct ib_gid_attr *ibpost_gid_get(struct ib_device *ibdev,
						u32 port, u32 index,
						struct ibpost_status *st)
{
	u32 len = ib_port_immutable_read(ibdev, port)->gid_tbl_len;
	const struct ib_gid_attr *a;

	if (index >= len) {
		ibpost_status_set(st, IBPOST_R_GID_RANGE, index, len);
		return ERR_PTR(-EINVAL);
	}
	a = rdma_get_gid_attr(ibdev, port, index);
	if (IS_ERR(a)) {
		ibpost_status_set(st, IBPOST_R_GID_EMPTY, index, len);
		return ERR_PTR(-EINVAL);
	}
	if (!ibpost_gid_type_ok(ibdev, port, a->gid_type)) {
		rdma_put_gid_attr(a);
		ibpost_status_set(st, IBPOST_R_GID_TYPE, index, len);
		return ERR_PTR(-EINVAL);
	}
	return a;
}

/**
 * ibpost_gid_check() - may a directly connected pair use a GID index?
 * @ibdev: the device.
 * @port: a valid port number of it.
 * @index: the index in the port's GID table (IBPOST_RUN_GID).
 * @st: the refusal: IBPOST_R_GID_RANGE, IBPOST_R_GID_EMPTY or
 *	IBPOST_R_GID_TYPE, with the index as @value and the table's size as
 *	@limit.
 *
 * The check a job makes before it creates anything on the device; the
 * connection looks the entry up again (it may change in between: an
 * address removed from the netdev) and refuses the same way.
 *
 * Context: process context.
 * Return: 0 or -EINVAL.
 */
int ibpost_gid_check(struct ib_device *ibdev, u32 port, u32 index,
		     struct ibpost_status *st)
{
	const struct ib_gid_attr *a = ibpost_gid_get(ibdev, port, index, st);

	if (IS_ERR(a))
		return PTR_ERR(a);
	rdma_put_gid_attr(a);
	return 0;
}

/*
 * @pattr: the port's attributes, queried once by the caller.  The source
 * GID is @caps->gid_index when the caller fixed one (IBPOST_RUN_GID),
 * else the one ibpost_pick_gid() picks; on InfiniBand a fixed GID adds a
 * GRH to the LID route.
 */
static int ibpost_fill_av(struct ibpost_ep *ep, struct rdma_ah_attr *ah,
			  const struct ib_port_attr *pattr,
			  const struct ibpost_conn_caps *caps,
			  struct ibpost_status *st)
{
	bool roce = rdma_protocol_roce(ep->ibdev, ep->port);
	const struct ib_gid_attr *gid;
	union ib_gid dgid;
	int ret = 0;

	ah->type = rdma_ah_find_type(ep->ibdev, ep->port);
	rdma_ah_set_port_num(ah, ep->port);
	rdma_ah_set_sl(ah, 0);
	if (!roce)
		rdma_ah_set_dlid(ah, pattr->lid);
	if (caps->gid_fixed) {
		gid = ibpost_gid_get(ep->ibdev, ep->port, caps->gid_index, st);
		if (IS_ERR(gid))
			return PTR_ERR(gid);
	} else if (roce) {
		gid = ibpost_pick_gid(ep->ibdev, ep->port, pattr->gid_tbl_len);
		if (!gid) {
			ret = -EADDRNOTAVAIL;
			goto refuse;
		}
	} else {
		return 0;
	}
	dgid = gid->gid;	/* loopback: the destination is our own GID */
	rdma_ah_set_grh(ah, &dgid, 0, gid->index, 64, 0);
	/* Loopback: the destination MAC is the port's own. */
	if (roce)
		ret = rdma_read_gid_l2_fields(gid, NULL, ah->roce.dmac);
	rdma_put_gid_attr(gid);
	if (ret)
		goto refuse;
	return 0;

refuse:
	ibpost_status_set(st, IBPOST_R_CONNECT, -ret, 0);
	return ret;
}

/* A failed connection says why, unless a step already did. */
static int ibpost_connect_failed(struct ibpost_status *st, int ret)
{
	if (ret && st->reason == IBPOST_R_NONE)
		ibpost_status_set(st, IBPOST_R_CONNECT, -ret, 0);
	return ret;
}

static int ibpost_qp_to_rts(struct ibpost_ep *ep, u32 dest_qpn,
			    const struct rdma_ah_attr *ah, enum ib_mtu mtu)
{
	struct ib_qp_attr attr = {};
	int ret;

	attr.qp_state = IB_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = ep->port;
	attr.qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ;
	ret = ib_modify_qp(ep->qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = mtu;
	attr.dest_qp_num = dest_qpn;
	attr.rq_psn = IBPOST_PSN;
	attr.max_dest_rd_atomic = IBPOST_RD_ATOMIC;
	attr.min_rnr_timer = 1;
	attr.ah_attr = *ah;
	ret = ib_modify_qp(ep->qp, &attr, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.sq_psn = IBPOST_PSN;
	attr.max_rd_atomic = IBPOST_RD_ATOMIC;
	return ib_modify_qp(ep->qp, &attr, IB_QP_STATE | IB_QP_TIMEOUT |
			    IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_SQ_PSN |
			    IB_QP_MAX_QP_RD_ATOMIC);
}

/* The target endpoint's queues (loopback pairs). */
static void ibpost_conn_tgt_caps(const struct ibpost_conn_caps *caps,
				 struct ibpost_ep_caps *ec)
{
	memset(ec, 0, sizeof(*ec));
	ec->send_wr = caps->target_send_wr;
	ec->send_sge = 1;
	ec->recv_wr = caps->recv_wr;
	ec->recv_sge = caps->recv_sge;
	ec->poll = IB_POLL_DIRECT;
	ec->owner = caps->owner;
}

static int ibpost_direct_pair(struct ibpost_pair *p,
			      const struct ibpost_conn_caps *caps,
			      struct ibpost_status *st)
{
	struct rdma_ah_attr ah = {};
	struct ibpost_ep_caps ec;
	struct ib_port_attr pattr;
	int ret;

	ibpost_conn_ini_caps(caps, &ec);
	ret = ibpost_ep_qp(&p->ini, &ec);
	if (ret)
		goto err;
	ibpost_conn_tgt_caps(caps, &ec);
	ret = ibpost_ep_qp(&p->tgt, &ec);
	if (ret)
		goto err;
	ret = ib_query_port(p->ini.ibdev, p->ini.port, &pattr);
	if (ret)
		goto err;
	ret = ibpost_fill_av(&p->ini, &ah, &pattr, caps, st);
	if (ret)
		goto err;
	ret = ibpost_qp_to_rts(&p->ini, p->tgt.qp->qp_num, &ah,
			       pattr.active_mtu);
	if (!ret)
		ret = ibpost_qp_to_rts(&p->tgt, p->ini.qp->qp_num, &ah,
				       pattr.active_mtu);
	if (ret)
		goto err;
	return 0;

err:
	/* The caller frees the endpoints' QPs with their CQs. */
	return ibpost_connect_failed(st, ret);
}

/*
 * iWARP QPs are connected only through rdma_cm (there is no direct move to
 * RTS as on RoCE): a loopback pair on an iWARP port asked to connect
 * directly goes through rdma_cm to the port's own first IPv4 address
 * instead (127.0.0.1 for siw on lo).
 */
static int ibpost_pair_iwarp_addr(struct ib_device *ibdev, u32 port,
				  struct sockaddr_storage *ss,
				  struct ibpost_status *st)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	const struct in_ifaddr *ifa;
	struct ib_device *owner;
	struct net_device *nd;
	struct in_device *in;
	int ret = -EADDRNOTAVAIL;

	memset(ss, 0, sizeof(*ss));
	/* ib_device_get_netdev() is not exported: find the netdev by owner. */
	rcu_read_lock();
	for_each_netdev_rcu(&init_net, nd) {
		owner = ib_device_get_by_netdev(nd, RDMA_DRIVER_UNKNOWN);
		if (!owner)
			continue;
		ib_device_put(owner);
		if (owner != ibdev)
			continue;
		in = __in_dev_get_rcu(nd);
		ifa = in ? rcu_dereference(in->ifa_list) : NULL;
		if (ifa) {
			in4->sin_family = AF_INET;
			in4->sin_addr.s_addr = ifa->ifa_local;
			ret = 0;
			break;
		}
	}
	rcu_read_unlock();
	if (ret)
		ibpost_status_set(st, IBPOST_R_CONNECT, EADDRNOTAVAIL, port);
	return ret;
}

/**
 * ibpost_pair_create() - create and connect a loopback pair.
 * @p: zeroed pair to fill.
 * @ibdev: the device.
 * @port: port number.
 * @caps: queue sizes (without @caps->peer).
 * @addr: connect through rdma_cm to this address of the device, or NULL
 *	to connect the QPs directly (on iWARP: through rdma_cm to the port's
 *	first IPv4 address).
 * @st: failure reason.
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno; on failure nothing is left allocated.
 */
int ibpost_pair_create(struct ibpost_pair *p, struct ib_device *ibdev,
		       u32 port,
		       const struct ibpost_conn_caps *caps,
		       const struct sockaddr_storage *addr,
		       struct ibpost_status *st)
{
	struct sockaddr_storage iw;
	struct ibpost_ep_caps ec;
	int ret;

	if (!addr && rdma_protocol_iwarp(ibdev, port)) {
		ret = ibpost_pair_iwarp_addr(ibdev, port, &iw, st);
		if (ret)
			goto err;
		addr = &iw;
	}
	ibpost_conn_ini_caps(caps, &ec);
	/*
	 * One trust domain: the initiator's PD, which the target shares (the
	 * initiator's own, or the one of @caps->pd_share).
	 */
	ret = ibpost_ep_cq(&p->ini, ibdev, caps->pd_share, port, &ec);
	if (ret)
		goto err;
	ibpost_conn_tgt_caps(caps, &ec);
	ret = ibpost_ep_cq(&p->tgt, ibdev, &p->ini, port, &ec);
	if (ret)
		goto err_ini;
	if (addr)
		ret = ibpost_cm_pair(p, caps, addr, st);
	else
		ret = ibpost_direct_pair(p, caps, st);
	if (ret)
		ibpost_pair_destroy(p);
	return ibpost_connect_failed(st, ret);

err_ini:
	ibpost_ep_destroy(&p->ini);
err:
	memset(p, 0, sizeof(*p));
	return ibpost_connect_failed(st, ret);
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_pair_create);

/**
 * ibpost_pair_drain() - flush both QPs; every posted WR completes.
 * @p: the pair.
 *
 * Context: process context; polls the direct CQs until both QPs are empty.
 */
void ibpost_pair_drain(struct ibpost_pair *p)
{
	ibpost_ep_drain(&p->ini);
	ibpost_ep_drain(&p->tgt);
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_pair_drain);

/**
 * ibpost_pair_destroy() - free the ids, QPs and CQs (after
 *	ibpost_pair_drain()).
 * @p: the pair.
 */
void ibpost_pair_destroy(struct ibpost_pair *p)
{
	ibpost_cm_pair_close(p);
	ibpost_ep_destroy(&p->tgt);
	ibpost_ep_destroy(&p->ini);
	memset(p, 0, sizeof(*p));
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_pair_destroy);

/**
 * ibpost_peer_ep_create() - connect one endpoint to ``ibpost serve``.
 * @ep: zeroed endpoint to fill.
 * @ibdev: the device.
 * @port: port number.
 * @caps: queue sizes, with @caps->peer (and @caps->pd_share for another
 *	queue of a session).
 * @addr: the server's address.
 * @st: failure reason.
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno (-ECONNREFUSED: the server rejected);
 * on failure nothing is left allocated.
 */
int ibpost_peer_ep_create(struct ibpost_ep *ep, struct ib_device *ibdev,
			  u32 port,
			  const struct ibpost_conn_caps *caps,
			  const struct sockaddr_storage *addr,
			  struct ibpost_status *st)
{
	struct ibpost_ep_caps ec;
	int ret;

	ibpost_conn_ini_caps(caps, &ec);
	/*
	 * Its own PD: the trust domain is this connection; or the one of
	 * @caps->pd_share: another queue of the same session.
	 */
	ret = ibpost_ep_cq(ep, ibdev, caps->pd_share, port, &ec);
	if (ret)
		goto err;
	ret = ibpost_cm_connect(ep, caps, addr, st);
	if (ret)
		goto err_ep;
	return 0;

err_ep:
	ibpost_ep_destroy(ep);
err:
	memset(ep, 0, sizeof(*ep));
	return ibpost_connect_failed(st, ret);
}

/**
 * ibpost_peer_ep_destroy() - disconnect and free a peer endpoint (drained).
 * @ep: the endpoint.
 */
void ibpost_peer_ep_destroy(struct ibpost_ep *ep)
{
	ibpost_cm_disconnect(ep);
	ibpost_ep_destroy(ep);
	memset(ep, 0, sizeof(*ep));
}
