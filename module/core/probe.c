// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: find out how much inline data a QP is really granted.
 *
 * No device attribute reports it: providers refuse a QP whose requested
 * max_inline_data is above their limit and may round an accepted request
 * up.  So do what a real consumer does: create small RC QPs, binary search
 * the largest accepted request, and report what the provider wrote back.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "core/device.h"
#include "core/ep.h"

#define IBPOST_INLINE_PROBE_MAX	65536U

static int ibpost_probe_one(struct ib_pd *pd, struct ib_cq *cq, u32 request,
			    u32 *granted)
{
	struct ibpost_ep_caps ec = {
		.send_wr = 1, .send_sge = 1, .inline_data = request,
		.recv_wr = 1, .recv_sge = 1,
	};
	struct ibpost_ep ep = { .cq = cq };
	struct ib_qp_init_attr init;
	struct ib_qp *qp;

	/* The attributes every endpoint's QP is created with. */
	ibpost_ep_qp_attr(&ep, &ec, &init);
	qp = ib_create_qp(pd, &init);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	*granted = init.cap.max_inline_data;
	ib_destroy_qp(qp);
	return 0;
}

/**
 * ibpost_probe_max_inline() - inline bytes an RC QP gets on a device.
 * @ibdev: the device.
 * @pd: a PD of the device.
 * @ok: out: false when not even a QP without inline data could be made.
 *
 * Context: process context, may sleep.
 * Return: the granted max_inline_data of a QP with one send SGE.
 */
u32 ibpost_probe_max_inline(struct ib_device *ibdev, struct ib_pd *pd,
			    bool *ok)
{
	u32 lo = 0, hi = IBPOST_INLINE_PROBE_MAX, granted = 0, g;
	struct ib_cq *cq;

	*ok = false;
	cq = ib_alloc_cq(ibdev, NULL, 2, 0, IB_POLL_DIRECT);
	if (IS_ERR(cq))
		return 0;
	if (ibpost_probe_one(pd, cq, 0, &granted))
		goto out;
	*ok = true;
	/* Invariant: a request of lo is accepted; hi + 1 is not known to be. */
	while (lo < hi) {
		u32 mid = lo + (hi - lo + 1) / 2;

		if (!ibpost_probe_one(pd, cq, mid, &g)) {
			lo = mid;
			granted = g;
		} else {
			hi = mid - 1;
		}
	}
out:
	ib_free_cq(cq);
	return granted;
}
