/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ibpost: the ioctl ABI of /dev/ibpost.
 *
 * Growth rule (see Documentation/ioctl-abi.rst):
 *  - Every argument struct starts with "__u32 size", which the caller sets
 *    to sizeof() of the struct it was compiled with.
 *  - Fields are only ever appended.  The ioctl number always encodes the
 *    size of the first published version (IBPOST_*_SIZE_VER0).
 *  - The kernel accepts any size >= SIZE_VER0.  Bytes the kernel does not
 *    know must be zero (else -E2BIG); fields the caller does not know read
 *    as zero.  Output is written back up to the smaller of the two sizes.
 *  - Reserved fields and unknown flag bits must be zero (else -EINVAL).
 *  - Arrays of records carry their own record size (e.g. attr_size) and
 *    follow the same rule per record.
 */
#ifndef _UAPI_IBPOST_H
#define _UAPI_IBPOST_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define IBPOST_DEVICE_PATH	"/dev/ibpost"
#define IBPOST_ABI_VERSION	1
#define IBPOST_IOC_MAGIC	0xE9
#define IBPOST_NAME_MAX		64

/**
 * enum ibpost_reason - why the kernel refused a request.
 *
 * The words for each code are in IBPOST_REASON_TEXTS just below: one table,
 * used by the module's messages and printed by the tool, completed by the
 * wr/sge/value/limit fields of struct ibpost_status where they apply.
 * Codes are only ever appended.
 */
enum ibpost_reason {
	IBPOST_R_NONE,
	IBPOST_R_ARG_SIZE,
	IBPOST_R_ARG_TAIL,
	IBPOST_R_RESERVED,
	IBPOST_R_FLAGS,
	IBPOST_R_REC_SIZE,
	IBPOST_R_COUNT,
	IBPOST_R_OVERFLOW,
	IBPOST_R_FAULT,
	IBPOST_R_NO_DEVICE,
	IBPOST_R_MAX
};

/* Initializer of a "const char *const [IBPOST_R_MAX]" table. */
#define IBPOST_REASON_TEXTS { \
	[IBPOST_R_NONE] = "no error", \
	[IBPOST_R_ARG_SIZE] = "argument size below the first ABI version", \
	[IBPOST_R_ARG_TAIL] = "argument has non-zero bytes this kernel does not know", \
	[IBPOST_R_RESERVED] = "reserved field is not zero", \
	[IBPOST_R_FLAGS] = "unknown flag bits set", \
	[IBPOST_R_REC_SIZE] = "record size out of range", \
	[IBPOST_R_COUNT] = "record count above the limit", \
	[IBPOST_R_OVERFLOW] = "count * record size overflows", \
	[IBPOST_R_FAULT] = "user buffer not accessible", \
	[IBPOST_R_NO_DEVICE] = "no such RDMA device", \
}

/** IBPOST_STATUS_NONE - wr/sge index that does not apply. */
#define IBPOST_STATUS_NONE	0xffffffffU

/**
 * struct ibpost_status - where and why a request was refused.
 * @reason: an enum ibpost_reason, IBPOST_R_NONE on success.
 * @wr:     index of the offending work request, or IBPOST_STATUS_NONE.
 * @sge:    index of the offending SGE within @wr, or IBPOST_STATUS_NONE.
 * @pad:    reserved, written as zero.
 * @value:  the offending value (when it has one).
 * @limit:  the limit @value broke (when there is one).
 *
 * Filled by the kernel on output only; its input content is ignored.
 */
struct ibpost_status {
	__u32 reason;
	__u32 wr;
	__u32 sge;
	__u32 pad;
	__u64 value;
	__u64 limit;
};

/* Link layers (ibpost_dev_attr.link_layer). */
#define IBPOST_LINK_UNSPECIFIED	0
#define IBPOST_LINK_INFINIBAND	1
#define IBPOST_LINK_ETHERNET	2

/* Port states (ibpost_dev_attr.port_state), as in the IB spec. */
#define IBPOST_PORT_NOP		0
#define IBPOST_PORT_DOWN	1
#define IBPOST_PORT_INIT	2
#define IBPOST_PORT_ARMED	3
#define IBPOST_PORT_ACTIVE	4
#define IBPOST_PORT_ACTIVE_DEFER 5

/* ibpost_dev_attr.flags */
/** The device has its own local DMA lkey (IB_DEVICE_LOCAL_DMA_LKEY). */
#define IBPOST_DEV_LOCAL_DMA_LKEY	(1U << 0)
/** Fast registration work requests are supported (MEM_MGT_EXTENSIONS). */
#define IBPOST_DEV_MEM_MGT_EXT		(1U << 1)
/** DMA addresses are kernel virtual addresses (software device). */
#define IBPOST_DEV_VIRT_DMA		(1U << 2)
/** The inline probe QP could not be created; max_inline_data is 0. */
#define IBPOST_DEV_INLINE_UNKNOWN	(1U << 3)

/**
 * struct ibpost_dev_attr - one port of one RDMA device, as ibpost sees it.
 * @name: device name, NUL terminated (follows renames).
 * @node_guid: node GUID in host byte order.
 * @max_mr_size: largest MR the device can register, in bytes.
 * @index: ib_core device index.
 * @port: port number (1-based on IB/RoCE devices).
 * @link_layer: IBPOST_LINK_*.
 * @port_state: IBPOST_PORT_*.
 * @active_mtu: active path MTU in bytes (256..4096).
 * @max_mtu: largest path MTU of the port in bytes.
 * @max_msg_sz: largest message the port carries, in bytes.
 * @max_send_sge: SGEs per send WR the device accepts.
 * @max_recv_sge: SGEs per receive WR.
 * @max_sge_rd: SGEs per RDMA READ WR.
 * @max_qp_wr: work requests per queue.
 * @max_cqe: entries per completion queue.
 * @max_fast_reg_page_list_len: pages per fast-registration MR.
 * @max_inline_data: inline bytes an RC QP with one send SGE is actually
 *	granted on this device (found by creating QPs, not from a table).
 * @flags: IBPOST_DEV_*.
 * @phys_port_cnt: number of ports of the device.
 * @reserved: written as zero.
 */
struct ibpost_dev_attr {
	char name[IBPOST_NAME_MAX];
	__u64 node_guid;
	__u64 max_mr_size;
	__u32 index;
	__u32 port;
	__u32 link_layer;
	__u32 port_state;
	__u32 active_mtu;
	__u32 max_mtu;
	__u32 max_msg_sz;
	__u32 max_send_sge;
	__u32 max_recv_sge;
	__u32 max_sge_rd;
	__u32 max_qp_wr;
	__u32 max_cqe;
	__u32 max_fast_reg_page_list_len;
	__u32 max_inline_data;
	__u32 flags;
	__u32 phys_port_cnt;
	__u64 reserved[4];
};

#define IBPOST_DEV_ATTR_SIZE_VER0	(IBPOST_NAME_MAX + 16 + 16 * 4 + 32)

/** Upper bound on @count of struct ibpost_dev_list. */
#define IBPOST_DEV_LIST_MAX	1024

/**
 * struct ibpost_dev_list - argument of IBPOST_IOC_DEV_LIST.
 * @size: in: sizeof(struct ibpost_dev_list) as the caller knows it.
 * @attr_size: in: size of one record in @devs, >= IBPOST_DEV_ATTR_SIZE_VER0.
 * @count: in: records @devs has room for (may be 0 to ask for @total only),
 *	at most IBPOST_DEV_LIST_MAX.
 * @total: out: number of (device, port) records that exist; when larger
 *	than @count only the first @count were written.
 * @devs: in: user pointer to @count records of @attr_size bytes.
 * @written: out: number of records written.
 * @flags: in: must be 0.
 * @status: out: reason for a refusal.
 * @reserved: in: must be 0.
 */
struct ibpost_dev_list {
	__u32 size;
	__u32 attr_size;
	__u32 count;
	__u32 total;
	__u64 devs;
	__u32 written;
	__u32 flags;
	struct ibpost_status status;
	__u64 reserved[2];
};

#define IBPOST_DEV_LIST_SIZE_VER0	(32 + 32 + 16)

#define IBPOST_IOC_DEV_LIST	_IOWR(IBPOST_IOC_MAGIC, 0x01, struct ibpost_dev_list)

#endif /* _UAPI_IBPOST_H */
