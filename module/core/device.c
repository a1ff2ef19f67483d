// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: registry of RDMA devices.
 *
 * ib_core calls add() for every device present when the client registers
 * and for every device registered later (rdma link add), remove() when a
 * device goes (rdma link del, driver unload) or the client unregisters, and
 * rename() on rdma dev set ... name.  remove() unlinks the device, drops
 * the registry's reference and waits for every user to drop theirs before
 * the probing PD is freed: users must never sleep unboundedly while holding
 * one.  Nothing that a peer can reach is ever in that PD: every endpoint
 * has the PD of its own trust domain (ibpost_ep_cq()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "core/device.h"

static LIST_HEAD(ibpost_devs);
static DEFINE_MUTEX(ibpost_devs_lock);	/* list and every info.name */
static LIST_HEAD(ibpost_listeners);
static DEFINE_MUTEX(ibpost_listeners_lock);

static int ibpost_client_add(struct ib_device *ibdev);
static void ibpost_client_remove(struct ib_device *ibdev, void *data);
static void ibpost_client_rename(struct ib_device *ibdev, void *data);

static struct ib_client ibpost_client = {
	.name	= "ibpost",
	.add	= ibpost_client_add,
	.remove	= ibpost_client_remove,
	.rename	= ibpost_client_rename,
};

static void ibpost_dev_release(struct kref *ref)
{
	struct ibpost_dev *dev = container_of(ref, struct ibpost_dev, ref);

	complete(&dev->released);
}

/**
 * ibpost_dev_get() - take another reference on a device already held.
 * @dev: the device.
 */
void ibpost_dev_get(struct ibpost_dev *dev)
{
	kref_get(&dev->ref);
}

/**
 * ibpost_dev_put() - drop a reference taken by a ibpost_dev_get_*() call.
 * @dev: the device.
 */
void ibpost_dev_put(struct ibpost_dev *dev)
{
	kref_put(&dev->ref, ibpost_dev_release);
}

/**
 * ibpost_dev_get_by_name() - find a registered device.
 * @name: device name.
 *
 * Context: process context; takes the registry mutex.
 * Return: the device with a reference held, or NULL.
 */
struct ibpost_dev *ibpost_dev_get_by_name(const char *name)
{
	struct ibpost_dev *dev, *found = NULL;

	mutex_lock(&ibpost_devs_lock);
	list_for_each_entry(dev, &ibpost_devs, node) {
		if (!strncmp(dev->info.name, name, IBPOST_NAME_MAX)) {
			kref_get(&dev->ref);
			found = dev;
			break;
		}
	}
	mutex_unlock(&ibpost_devs_lock);
	return found;
}

/**
 * ibpost_dev_get_by_ibdev() - find the registered entry of a device.
 * @ibdev: the device.
 *
 * Context: process context; takes the registry mutex.
 * Return: the device with a reference held, or NULL (unknown, or being
 * removed).
 */
struct ibpost_dev *ibpost_dev_get_by_ibdev(struct ib_device *ibdev)
{
	struct ibpost_dev *dev, *found = NULL;

	mutex_lock(&ibpost_devs_lock);
	list_for_each_entry(dev, &ibpost_devs, node) {
		if (dev->ibdev == ibdev) {
			kref_get(&dev->ref);
			found = dev;
			break;
		}
	}
	mutex_unlock(&ibpost_devs_lock);
	return found;
}

/**
 * ibpost_dev_name() - copy the current name of a device.
 * @dev: the device (reference held).
 * @buf: destination.
 * @len: size of @buf.
 */
void ibpost_dev_name(struct ibpost_dev *dev, char *buf, size_t len)
{
	mutex_lock(&ibpost_devs_lock);
	strscpy(buf, dev->info.name, len);
	mutex_unlock(&ibpost_devs_lock);
}

/**
 * ibpost_devices_get_all() - take a reference on every registered device.
 * @devs: out: kmalloc'ed array, freed by ibpost_devices_put_all().
 * @n: out: number of entries.
 *
 * Return: 0 or -ENOMEM.
 */
int ibpost_devices_get_all(struct ibpost_dev ***devs, u32 *n)
{
	struct ibpost_dev *dev, **arr;
	u32 count = 0, i = 0;

	mutex_lock(&ibpost_devs_lock);
	list_for_each_entry(dev, &ibpost_devs, node)
		count++;
	arr = kcalloc(max_t(u32, count, 1), sizeof(*arr), GFP_KERNEL);
	if (!arr) {
		mutex_unlock(&ibpost_devs_lock);
		return -ENOMEM;
	}
	list_for_each_entry(dev, &ibpost_devs, node) {
		kref_get(&dev->ref);
		arr[i++] = dev;
	}
	mutex_unlock(&ibpost_devs_lock);
	*devs = arr;
	*n = count;
	return 0;
}

/**
 * ibpost_devices_put_all() - undo ibpost_devices_get_all().
 * @devs: the array.
 * @n: its number of entries.
 */
void ibpost_devices_put_all(struct ibpost_dev **devs, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		ibpost_dev_put(devs[i]);
	kfree(devs);
}

static void ibpost_dev_fill_info(struct ibpost_dev *dev)
{
	struct ib_device *ibdev = dev->ibdev;
	struct ibpost_dev_info *info = &dev->info;
	bool ok;

	strscpy(info->name, ibdev->name, sizeof(info->name));
	info->node_guid = be64_to_cpu(ibdev->node_guid);
	info->index = ibdev->index;
	info->phys_port_cnt = ibdev->phys_port_cnt;
	info->start_port = rdma_start_port(ibdev);
	info->attrs = ibdev->attrs;
	info->flags = ibpost_dev_flags(&ibdev->attrs, ib_uses_virt_dma(ibdev),
				       rdma_protocol_iwarp(ibdev,
							   info->start_port));
	info->max_inline_data = ibpost_probe_max_inline(ibdev, dev->pd, &ok);
	if (!ok)
		info->flags |= IBPOST_DEV_INLINE_UNKNOWN;
}

static int ibpost_client_add(struct ib_device *ibdev)
{
	struct ibpost_dev *dev;
	int ret;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	kref_init(&dev->ref);
	init_completion(&dev->released);
	dev->ibdev = ibdev;

	dev->pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(dev->pd)) {
		ret = PTR_ERR(dev->pd);
		goto err_free;
	}
	ibpost_dev_fill_info(dev);

	mutex_lock(&ibpost_devs_lock);
	list_add_tail(&dev->node, &ibpost_devs);
	mutex_unlock(&ibpost_devs_lock);
	ib_set_client_data(ibdev, &ibpost_client, dev);
	dev_dbg(&ibdev->dev, "ibpost: added, max_inline_data %u\n",
		dev->info.max_inline_data);
	return 0;

err_free:
	kfree(dev);
	return ret;
}

static void ibpost_client_remove(struct ib_device *ibdev, void *data)
{
	struct ibpost_dev *dev = data;
	struct ibpost_dev_listener *l;

	mutex_lock(&ibpost_devs_lock);
	list_del(&dev->node);
	mutex_unlock(&ibpost_devs_lock);

	/* Running jobs see this, end with an error and drop their refs. */
	WRITE_ONCE(dev->dying, true);
	/*
	 * The layers above end what would hold their refs for ever: rdma_cm
	 * waits (core/cm.c), then sessions (session/session.c).
	 */
	mutex_lock(&ibpost_listeners_lock);
	list_for_each_entry(l, &ibpost_listeners, node)
		l->removing(dev);
	mutex_unlock(&ibpost_listeners_lock);
	ibpost_dev_put(dev);
	wait_for_completion(&dev->released);

	ib_dealloc_pd(dev->pd);
	kfree(dev);
}

static void ibpost_client_rename(struct ib_device *ibdev, void *data)
{
	struct ibpost_dev *dev = data;

	mutex_lock(&ibpost_devs_lock);
	strscpy(dev->info.name, ibdev->name, sizeof(dev->info.name));
	mutex_unlock(&ibpost_devs_lock);
}

/**
 * ibpost_dev_listen() - be told when a device goes away.
 * @l: the listener, with @l->removing set; it stays registered until
 *	ibpost_dev_unlisten().
 *
 * Context: process context, at module init (before ibpost_devices_init(),
 * so that no device is removed unseen).
 */
void ibpost_dev_listen(struct ibpost_dev_listener *l)
{
	mutex_lock(&ibpost_listeners_lock);
	list_add_tail(&l->node, &ibpost_listeners);
	mutex_unlock(&ibpost_listeners_lock);
}

/**
 * ibpost_dev_unlisten() - undo ibpost_dev_listen().
 * @l: the listener; no call of @l->removing runs once this returns.
 *
 * Context: process context, at module exit (after ibpost_devices_exit(),
 * which removes every device).
 */
void ibpost_dev_unlisten(struct ibpost_dev_listener *l)
{
	mutex_lock(&ibpost_listeners_lock);
	list_del(&l->node);
	mutex_unlock(&ibpost_listeners_lock);
}

/**
 * ibpost_devices_init() - register the ib_client.
 *
 * Return: 0 or a negative errno from ib_register_client().
 */
int ibpost_devices_init(void)
{
	return ib_register_client(&ibpost_client);
}

/**
 * ibpost_devices_exit() - unregister the ib_client; removes every device.
 */
void ibpost_devices_exit(void)
{
	ib_unregister_client(&ibpost_client);
}
