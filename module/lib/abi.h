/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: pure helpers for the ioctl ABI (no verbs calls, KUnit-tested).
 */
#ifndef _IBPOST_ABI_H
#define _IBPOST_ABI_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <uapi/ibpost.h>

/**
 * struct ibpost_dev_info - what ibpost caches about one device at add time.
 * @name: device name, kept current by the rename callback.
 * @node_guid: node GUID, host byte order.
 * @index: ib_core device index.
 * @phys_port_cnt: number of ports.
 * @start_port: first port number.
 * @max_inline_data: inline bytes granted to a probe QP.
 * @flags: IBPOST_DEV_* flags known at add time.
 * @attrs: copy of the device attributes.
 */
struct ibpost_dev_info {
	char name[IBPOST_NAME_MAX];
	u64 node_guid;
	u32 index;
	u32 phys_port_cnt;
	u32 start_port;
	u32 max_inline_data;
	u32 flags;
	struct ib_device_attr attrs;
};

const char *ibpost_reason_str(u32 reason);
void ibpost_status_set(struct ibpost_status *st, u32 reason, u64 value,
		       u64 limit);
bool ibpost_mem_is_zero(const void *p, size_t len);
int ibpost_check_rec_array(struct ibpost_status *st, u32 count, u32 max_count,
			   u32 rec_size, u32 rec_ver0, size_t *bytes);
u32 ibpost_link_layer_to_uapi(enum rdma_link_layer ll);
u32 ibpost_dev_flags(const struct ib_device_attr *attrs, bool virt_dma,
		     bool iwarp);
void ibpost_fill_dev_attr(struct ibpost_dev_attr *out,
			  const struct ibpost_dev_info *info, u32 port,
			  enum rdma_link_layer ll,
			  const struct ib_port_attr *pattr);

#endif /* _IBPOST_ABI_H */
