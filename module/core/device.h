/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: registry of RDMA devices, fed by the ib_client callbacks.
 */
#ifndef _IBPOST_DEVICE_H
#define _IBPOST_DEVICE_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <rdma/ib_verbs.h>

#include "lib/abi.h"

/**
 * struct ibpost_dev - ibpost's state for one RDMA device.
 * @node: entry in the registry list.
 * @ref: users; the registry holds one until the device goes away.
 * @released: completed when the last reference is dropped.
 * @ibdev: the device (ib_core keeps it alive until our remove returns).
 * @pd: a protection domain for probing the device only (ibpost_probe_*());
 *	jobs, sessions and served connections each have their own (ep.c).
 * @info: cached attributes; @info.name changes on rename (registry lock).
 * @dying: set when ib_core removes the device; jobs on it end with an error.
 */
struct ibpost_dev {
	struct list_head node;
	struct kref ref;
	struct completion released;
	struct ib_device *ibdev;
	struct ib_pd *pd;
	struct ibpost_dev_info info;
	bool dying;
};

/**
 * struct ibpost_dev_listener - a layer above the registry that must know
 *	when a device goes away (the registry never names who listens).
 * @removing: called by the ib_client remove callback once @dev is marked
 *	dying and unlinked, before the registry waits for the last reference
 *	to @dev: end whatever waits on @dev or holds a reference for long.
 *	Process context, may sleep; must not (un)register a listener.
 * @node: entry in the registry's list of listeners (private).
 *
 * Listeners are called in the order they registered: a layer that ends
 * waits (rdma_cm, core/cm.c) registers before one whose ending needs
 * those waits ended (sessions).
 */
struct ibpost_dev_listener {
	void (*removing)(struct ibpost_dev *dev);
	struct list_head node;
};

void ibpost_dev_listen(struct ibpost_dev_listener *l);
void ibpost_dev_unlisten(struct ibpost_dev_listener *l);
int ibpost_devices_init(void);
void ibpost_devices_exit(void);
struct ibpost_dev *ibpost_dev_get_by_name(const char *name);
struct ibpost_dev *ibpost_dev_get_by_ibdev(struct ib_device *ibdev);
void ibpost_dev_get(struct ibpost_dev *dev);
void ibpost_dev_put(struct ibpost_dev *dev);
int ibpost_devices_get_all(struct ibpost_dev ***devs, u32 *n);
void ibpost_devices_put_all(struct ibpost_dev **devs, u32 n);
void ibpost_dev_name(struct ibpost_dev *dev, char *buf, size_t len);

u32 ibpost_probe_max_inline(struct ib_device *ibdev, struct ib_pd *pd,
			    bool *ok);

#endif /* _IBPOST_DEVICE_H */
