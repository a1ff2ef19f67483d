// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: pure helpers for the ioctl ABI.
 *
 * Nothing here calls a verb or touches user memory, so the KUnit suite in
 * kunit/abi_kunit.c exercises all of it without a device.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/overflow.h>
#include <linux/string.h>
#include <linux/errno.h>
#include <kunit/visibility.h>

#include "lib/abi.h"

static const char *const ibpost_reason_text[IBPOST_R_MAX] =
	IBPOST_REASON_TEXTS;

/* Largest record a caller may declare: bounds what one copy touches. */
#define IBPOST_REC_SIZE_MAX	4096U

/**
 * ibpost_reason_str() - text of a reason code.
 * @reason: an enum ibpost_reason value, possibly out of range.
 *
 * Return: a static string, "unknown reason" for values out of range.
 */
const char *ibpost_reason_str(u32 reason)
{
	if (reason >= IBPOST_R_MAX || !ibpost_reason_text[reason])
		return "unknown reason";
	return ibpost_reason_text[reason];
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_reason_str);

/**
 * ibpost_status_set() - record why a request is refused.
 * @st: status to fill.
 * @reason: enum ibpost_reason.
 * @value: the offending value.
 * @limit: the limit it broke.
 *
 * The wr and sge indices are set to IBPOST_STATUS_NONE; callers that know
 * them set them afterwards.
 */
void ibpost_status_set(struct ibpost_status *st, u32 reason, u64 value,
		       u64 limit)
{
	st->reason = reason;
	st->wr = IBPOST_STATUS_NONE;
	st->sge = IBPOST_STATUS_NONE;
	st->pad = 0;
	st->value = value;
	st->limit = limit;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_status_set);

/**
 * ibpost_mem_is_zero() - test a reserved area.
 * @p: start of the area.
 * @len: its length in bytes.
 *
 * Return: true when every byte is zero.
 */
bool ibpost_mem_is_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_mem_is_zero);

/**
 * ibpost_check_rec_array() - validate an array of user records.
 * @st: status filled on refusal.
 * @count: number of records the caller declares.
 * @max_count: most records accepted.
 * @rec_size: size of one record as the caller knows it.
 * @rec_ver0: size of the first published version of the record.
 * @bytes: out: @count * @rec_size.
 *
 * Return: 0, -EINVAL for a count or record size out of range, or
 * -EOVERFLOW when the product does not fit.
 */
int ibpost_check_rec_array(struct ibpost_status *st, u32 count, u32 max_count,
			   u32 rec_size, u32 rec_ver0, size_t *bytes)
{
	size_t n;

	if (rec_size < rec_ver0) {
		ibpost_status_set(st, IBPOST_R_REC_SIZE, rec_size, rec_ver0);
		return -EINVAL;
	}
	if (rec_size > IBPOST_REC_SIZE_MAX) {
		ibpost_status_set(st, IBPOST_R_REC_SIZE, rec_size,
				  IBPOST_REC_SIZE_MAX);
		return -EINVAL;
	}
	if (count > max_count) {
		ibpost_status_set(st, IBPOST_R_COUNT, count, max_count);
		return -EINVAL;
	}
	if (check_mul_overflow((size_t)count, (size_t)rec_size, &n)) {
		ibpost_status_set(st, IBPOST_R_OVERFLOW, count, rec_size);
		return -EOVERFLOW;
	}
	*bytes = n;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_check_rec_array);

/**
 * ibpost_link_layer_to_uapi() - map a link layer to IBPOST_LINK_*.
 * @ll: link layer reported by ib_core.
 *
 * Return: the IBPOST_LINK_* value.
 */
u32 ibpost_link_layer_to_uapi(enum rdma_link_layer ll)
{
	switch (ll) {
	case IB_LINK_LAYER_INFINIBAND:
		return IBPOST_LINK_INFINIBAND;
	case IB_LINK_LAYER_ETHERNET:
		return IBPOST_LINK_ETHERNET;
	default:
		return IBPOST_LINK_UNSPECIFIED;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_link_layer_to_uapi);

/**
 * ibpost_dev_flags() - IBPOST_DEV_* flags from device attributes.
 * @attrs: device attributes.
 * @virt_dma: the device uses virtual DMA addresses.
 * @iwarp: the device's transport is iWARP (rdma_protocol_iwarp()): no
 *	immediate data, QPs connected only through rdma_cm, WRITE completions
 *	before placement.
 *
 * Return: the flags.
 */
u32 ibpost_dev_flags(const struct ib_device_attr *attrs, bool virt_dma,
		     bool iwarp)
{
	u32 flags = 0;

	if (attrs->kernel_cap_flags & IBK_LOCAL_DMA_LKEY)
		flags |= IBPOST_DEV_LOCAL_DMA_LKEY;
	if (attrs->device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS)
		flags |= IBPOST_DEV_MEM_MGT_EXT;
	if (virt_dma)
		flags |= IBPOST_DEV_VIRT_DMA;
	if (iwarp)
		flags |= IBPOST_DEV_NO_IMM | IBPOST_DEV_CM_ONLY |
			 IBPOST_DEV_WRITE_UNPLACED;
	return flags;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_dev_flags);

static u32 ibpost_clamp_u32(s64 v)
{
	if (v < 0)
		return 0;
	return v > U32_MAX ? U32_MAX : (u32)v;
}

/**
 * ibpost_fill_dev_attr() - build the record of one device port.
 * @out: record to fill (fully overwritten, reserved fields zero).
 * @info: cached device information.
 * @port: port number.
 * @ll: link layer of @port.
 * @pattr: port attributes just queried.
 */
void ibpost_fill_dev_attr(struct ibpost_dev_attr *out,
			  const struct ibpost_dev_info *info, u32 port,
			  enum rdma_link_layer ll,
			  const struct ib_port_attr *pattr)
{
	const struct ib_device_attr *a = &info->attrs;

	memset(out, 0, sizeof(*out));
	strscpy(out->name, info->name, sizeof(out->name));
	out->node_guid = info->node_guid;
	out->max_mr_size = a->max_mr_size;
	out->index = info->index;
	out->port = port;
	out->link_layer = ibpost_link_layer_to_uapi(ll);
	out->port_state = pattr->state;
	out->active_mtu = ibpost_clamp_u32(ib_mtu_enum_to_int(pattr->active_mtu));
	out->max_mtu = ibpost_clamp_u32(ib_mtu_enum_to_int(pattr->max_mtu));
	out->max_msg_sz = pattr->max_msg_sz;
	out->max_send_sge = ibpost_clamp_u32(a->max_send_sge);
	out->max_recv_sge = ibpost_clamp_u32(a->max_recv_sge);
	out->max_sge_rd = ibpost_clamp_u32(a->max_sge_rd);
	out->max_qp_wr = ibpost_clamp_u32(a->max_qp_wr);
	out->max_cqe = ibpost_clamp_u32(a->max_cqe);
	out->max_fast_reg_page_list_len = a->max_fast_reg_page_list_len;
	out->max_inline_data = info->max_inline_data;
	out->flags = info->flags;
	out->phys_port_cnt = info->phys_port_cnt;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_fill_dev_attr);
