// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: ioctl dispatch, who may call what, and IBPOST_IOC_DEV_LIST.
 *
 * Every handler copies its argument in with copy_struct_from_user() (the
 * growth rule of include/uapi/ibpost.h), validates every field before it
 * acts, and on refusal writes struct ibpost_status back so the tool can say
 * exactly what was wrong.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib_cache.h>

#include <ibpost.h>

#include "core/device.h"
#include "file.h"
#include "job/job.h"
#include "lib/sgl.h"
#include "ioctl.h"
#include "serve/serve.h"
#include "core/trace.h"

static_assert(sizeof(struct ibpost_dev_attr) == IBPOST_DEV_ATTR_SIZE_VER0);
static_assert(sizeof(struct ibpost_dev_list) == IBPOST_DEV_LIST_SIZE_VER0);
static_assert(sizeof(struct ibpost_run) == IBPOST_RUN_SIZE_VER0);
static_assert(sizeof(struct ibpost_progress) == IBPOST_PROGRESS_SIZE_VER0);

/* Copy the status back; the caller's struct is known to hold it. */
static int ibpost_put_status(struct ibpost_status __user *ust,
			     const struct ibpost_status *st, int err)
{
	trace_ibpost_refuse(st, err);
	if (copy_to_user(ust, st, sizeof(*st)))
		return -EFAULT;
	pr_debug("refused (%d): %s, value %llu, limit %llu\n", err,
		 ibpost_reason_str(st->reason), st->value, st->limit);
	return err;
}

/*
 * Copy an argument struct in.  @usize was read from its first field.
 * Return: 0, -EINVAL (too small) or -E2BIG (unknown non-zero tail).
 */
static int ibpost_copy_arg(void *karg, size_t ksize, size_t ver0,
			   const void __user *uarg, u32 usize,
			   struct ibpost_status *st)
{
	int ret;

	if (usize < ver0) {
		ibpost_status_set(st, IBPOST_R_ARG_SIZE, usize, ver0);
		return -EINVAL;
	}
	ret = copy_struct_from_user(karg, ksize, uarg, usize);
	if (ret == -E2BIG)
		ibpost_status_set(st, IBPOST_R_ARG_TAIL, usize, ksize);
	else if (ret)
		ibpost_status_set(st, IBPOST_R_FAULT, 0, 0);
	return ret;
}

static int ibpost_fill_ports(struct ibpost_dev *dev,
			     struct ibpost_dev_attr *out, u32 room)
{
	struct ibpost_dev_info info;
	struct ib_port_attr pattr;
	u32 i, port;
	int ret;

	if (!room)
		return 0;
	info = dev->info;
	ibpost_dev_name(dev, info.name, sizeof(info.name));
	for (i = 0; i < room && i < info.phys_port_cnt; i++) {
		port = info.start_port + i;
		ret = ib_query_port(dev->ibdev, port, &pattr);
		if (ret)
			memset(&pattr, 0, sizeof(pattr));
		ibpost_fill_dev_attr(&out[i], &info, port,
				     rdma_port_get_link_layer(dev->ibdev, port),
				     &pattr);
	}
	return 0;
}

static int ibpost_copy_recs(void __user *dst, const struct ibpost_dev_attr *recs,
			    u32 n, u32 rec_size)
{
	size_t known = min_t(size_t, rec_size, sizeof(*recs));
	u32 i;

	for (i = 0; i < n; i++, dst += rec_size) {
		if (copy_to_user(dst, &recs[i], known))
			return -EFAULT;
		if (rec_size > known && clear_user(dst + known, rec_size - known))
			return -EFAULT;
	}
	return 0;
}

static int ibpost_list_devices(struct ibpost_dev_list *k)
{
	struct ibpost_dev_attr *recs = NULL;
	struct ibpost_dev **devs;
	u32 ndev, i, total = 0, written = 0, room;
	int ret;

	ret = ibpost_devices_get_all(&devs, &ndev);
	if (ret)
		return ret;
	for (i = 0; i < ndev; i++)
		total += devs[i]->info.phys_port_cnt;
	room = min(total, k->count);
	if (room) {
		recs = kcalloc(room, sizeof(*recs), GFP_KERNEL);
		if (!recs) {
			ret = -ENOMEM;
			goto out_put;
		}
	}
	for (i = 0; i < ndev && written < room; i++) {
		u32 n = min(room - written, devs[i]->info.phys_port_cnt);

		ibpost_fill_ports(devs[i], recs + written, n);
		written += n;
	}
	ret = ibpost_copy_recs(u64_to_user_ptr(k->devs), recs, written,
			       k->attr_size);
	if (ret) {
		ibpost_status_set(&k->status, IBPOST_R_FAULT, k->devs, 0);
		goto out_free;
	}
	k->total = total;
	k->written = written;
out_free:
	kfree(recs);
out_put:
	ibpost_devices_put_all(devs, ndev);
	return ret;
}

static long ibpost_ioc_dev_list(struct ibpost_dev_list __user *uarg)
{
	struct ibpost_dev_list k;
	size_t bytes;
	u32 usize;
	int ret;

	if (get_user(usize, &uarg->size))
		return -EFAULT;
	memset(&k, 0, sizeof(k));
	ret = ibpost_copy_arg(&k, sizeof(k), IBPOST_DEV_LIST_SIZE_VER0, uarg,
			      usize, &k.status);
	if (ret == -EINVAL)
		return ret;
	if (ret)
		goto refuse;
	memset(&k.status, 0, sizeof(k.status));
	k.total = 0;
	k.written = 0;
	if (k.flags) {
		ibpost_status_set(&k.status, IBPOST_R_FLAGS, k.flags, 0);
		ret = -EINVAL;
		goto refuse;
	}
	if (!ibpost_mem_is_zero(k.reserved, sizeof(k.reserved))) {
		ibpost_status_set(&k.status, IBPOST_R_RESERVED, 0, 0);
		ret = -EINVAL;
		goto refuse;
	}
	ret = ibpost_check_rec_array(&k.status, k.count, IBPOST_DEV_LIST_MAX,
				     k.attr_size, IBPOST_DEV_ATTR_SIZE_VER0,
				     &bytes);
	if (ret)
		goto refuse;
	if (bytes && !access_ok(u64_to_user_ptr(k.devs), bytes)) {
		ibpost_status_set(&k.status, IBPOST_R_FAULT, k.devs, bytes);
		ret = -EFAULT;
		goto refuse;
	}
	ret = ibpost_list_devices(&k);
	if (ret)
		goto refuse;
	if (copy_to_user(uarg, &k, min_t(size_t, usize, sizeof(k))))
		return -EFAULT;
	return 0;

refuse:
	return ibpost_put_status(&uarg->status, &k.status, ret);
}

/* Copy an explicit layout in; NULL when the layout is generated. */
static int ibpost_copy_layout(u64 uptr, u32 n, bool explicit,
			      struct ibpost_sge_desc **out,
			      struct ibpost_status *st, bool recv)
{
	size_t bytes;

	*out = NULL;
	if (!explicit)
		return 0;
	if (!n || n > IBPOST_MAX_SGE) {
		ibpost_status_set(st, IBPOST_R_NUM_SGE, n, IBPOST_MAX_SGE);
		return -EINVAL;
	}
	if (check_mul_overflow((size_t)n, sizeof(**out), &bytes)) {
		ibpost_status_set(st, IBPOST_R_OVERFLOW, n, sizeof(**out));
		return -EOVERFLOW;
	}
	*out = memdup_user(u64_to_user_ptr(uptr), bytes);
	if (IS_ERR(*out)) {
		int ret = PTR_ERR(*out);

		*out = NULL;
		ibpost_status_set(st, IBPOST_R_FAULT, uptr, bytes);
		st->wr = recv ? IBPOST_STATUS_RECV_WR : IBPOST_STATUS_NONE;
		return ret;
	}
	return 0;
}

/*
 * What the device cannot do at all is refused here, before the engine
 * creates anything on it, with the capability named (the same check
 * ibpost_run_check() makes when its limits carry the device's flags).
 * An unknown device is left to ibpost_run(), which names it.
 */
static int ibpost_ioc_run_caps(struct ibpost_run *k)
{
	struct ibpost_dev *dev;
	u32 flags;

	k->dev[IBPOST_NAME_MAX - 1] = '\0';
	dev = ibpost_dev_get_by_name(k->dev);
	if (!dev)
		return 0;
	flags = dev->info.flags;
	ibpost_dev_put(dev);
	return ibpost_run_check_caps(k, flags, &k->status);
}

/*
 * IBPOST_RUN_HIST: the run's histogram to the caller's array, whatever the
 * run's outcome; a fault fails a run that succeeded (-EFAULT, FAULT).
 */
static int ibpost_put_hist(struct ibpost_run *k, const u64 *hist, int ret)
{
	if (!copy_to_user(u64_to_user_ptr(k->hist), hist,
			  IBPOST_HIST_LL_BUCKETS * sizeof(*hist)) || ret)
		return ret;
	ibpost_status_set(&k->status, IBPOST_R_FAULT, k->hist, 0);
	return -EFAULT;
}

static long ibpost_ioc_run(struct file *file, struct ibpost_run __user *uarg)
{
	struct ibpost_sge_desc *sges = NULL, *rsges = NULL;
	struct ibpost_run_ext ext = {};
	struct ibpost_run *k;
	u64 *hist = NULL;
	u32 usize;
	int ret;

	if (get_user(usize, &uarg->size))
		return -EFAULT;
	k = kzalloc(sizeof(*k), GFP_KERNEL);
	if (!k)
		return -ENOMEM;
	ret = ibpost_copy_arg(k, sizeof(*k), IBPOST_RUN_SIZE_VER0, uarg, usize,
			      &k->status);
	if (ret == -EINVAL)
		goto out_free;
	if (ret)
		goto refuse;
	memset(&k->status, 0, sizeof(k->status));
	ret = ibpost_copy_layout(k->sges, k->num_sge,
				 k->layout == IBPOST_LAYOUT_EXPLICIT, &sges,
				 &k->status, false);
	if (ret)
		goto refuse;
	if (ibpost_op_is_send(k->op)) {
		ret = ibpost_copy_layout(k->recv_sges,
					 k->recv_num_sge ?: k->num_sge,
					 k->recv_layout == IBPOST_LAYOUT_EXPLICIT,
					 &rsges, &k->status, true);
		if (ret)
			goto refuse;
	}
	ret = ibpost_ioc_run_caps(k);
	if (ret)
		goto refuse;
	if ((k->flags & IBPOST_RUN_HIST) && k->hist) {
		hist = kvcalloc(IBPOST_HIST_LL_BUCKETS, sizeof(*hist),
				GFP_KERNEL);
		if (!hist) {
			ibpost_status_set(&k->status, IBPOST_R_NOMEM,
					  IBPOST_HIST_LL_BUCKETS, 0);
			ret = -ENOMEM;
			goto refuse;
		}
	}
	ext.sges = sges;
	ext.recv_sges = rsges;
	ext.hist = hist;
	ret = ibpost_run_on(k, &ext, ibpost_file(file));
	if (hist)
		ret = ibpost_put_hist(k, hist, ret);
	/* Results and reasons go back on success and on failure alike. */
	if (copy_to_user(uarg, k, min_t(size_t, usize, sizeof(*k))))
		ret = -EFAULT;
	goto out_free;

refuse:
	ret = ibpost_put_status(&uarg->status, &k->status, ret);
out_free:
	kvfree(hist);
	kfree(rsges);
	kfree(sges);
	kfree(k);
	return ret;
}

/*
 * Every ioctl but IBPOST_IOC_DEV_LIST (a read-only query: the records are
 * what sysfs and 'rdma dev' show anyone) needs CAP_SYS_ADMIN: a job pins
 * memory, creates QPs and MRs and busy-polls a CPU; a server does that for
 * clients on other hosts and listens on the network.  CAP_NET_ADMIN would
 * cover the listener only, not the pinned memory and the CPU, so it is
 * CAP_SYS_ADMIN, as the node was before (Documentation/security.rst).
 *
 * The check is capable(), on the caller at each call, not
 * file_ns_capable(file, ...) (the opener's credentials) and not at open:
 * a privileged process that opened the node may pass the descriptor to an
 * unprivileged one (SCM_RIGHTS, fork and exec after dropping privileges),
 * which must not run or serve through it.  The other way round, a
 * privileged caller of an unprivileged opener's descriptor, is harmless
 * here: an ioctl acts on its explicit argument, not on data a setuid
 * program could be tricked into writing (the reason write() handlers
 * must not check capable()).  A server started by a privileged caller
 * belongs to the open file; each later IBPOST_IOC_SERVE (its events)
 * is checked again, so a descriptor handed over cannot read them either.
 *
 * The refusal is -EPERM with IBPOST_R_PRIV in the argument's status when
 * the caller's struct is large enough to hold one (every version of the
 * structs holds it; @ver0 guards a short one, which only gets -EPERM).
 */
static long ibpost_ioc_priv(const u32 __user *usize,
			    struct ibpost_status __user *ust, u32 ver0)
{
	struct ibpost_status st;
	u32 n;

	if (capable(CAP_SYS_ADMIN))
		return 0;
	if (get_user(n, usize) || n < ver0)
		return -EPERM;
	ibpost_status_set(&st, IBPOST_R_PRIV, 0, 0);
	ibpost_put_status(ust, &st, -EPERM);
	return -EPERM;
}

/*
 * IBPOST_IOC_PROGRESS: the counts of the job running on @file, which
 * another thread's IBPOST_IOC_RUN on the same file blocks in.
 */
static long ibpost_ioc_progress(struct file *file,
				struct ibpost_progress __user *uarg)
{
	struct ibpost_progress k;
	u32 usize;
	int ret;

	if (get_user(usize, &uarg->size))
		return -EFAULT;
	memset(&k, 0, sizeof(k));
	ret = ibpost_copy_arg(&k, sizeof(k), IBPOST_PROGRESS_SIZE_VER0, uarg,
			      usize, &k.status);
	if (ret == -EINVAL)
		return ret;
	if (ret)
		goto refuse;
	memset(&k.status, 0, sizeof(k.status));
	if (k.flags) {
		ibpost_status_set(&k.status, IBPOST_R_FLAGS, k.flags, 0);
		ret = -EINVAL;
		goto refuse;
	}
	if (k.reserved0 || !ibpost_mem_is_zero(k.reserved, sizeof(k.reserved))) {
		ibpost_status_set(&k.status, IBPOST_R_RESERVED, 0, 0);
		ret = -EINVAL;
		goto refuse;
	}
	ret = ibpost_file_progress(ibpost_file(file), &k);
	if (ret)
		goto refuse;
	if (copy_to_user(uarg, &k, min_t(size_t, usize, sizeof(k))))
		return -EFAULT;
	return 0;

refuse:
	return ibpost_put_status(&uarg->status, &k.status, ret);
}

/**
 * ibpost_ioctl() - unlocked_ioctl of /dev/ibpost.
 * @file: the open device.
 * @cmd: IBPOST_IOC_*.
 * @arg: user pointer to the command's argument struct.
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno; -ENOTTY for unknown commands, -EPERM
 * (IBPOST_R_PRIV) for a command that needs CAP_SYS_ADMIN the caller
 * lacks.
 */
long ibpost_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct ibpost_serve __user *userve = (void __user *)arg;
	struct ibpost_progress __user *uprog = (void __user *)arg;
	struct ibpost_run __user *urun = (void __user *)arg;
	long ret;

	switch (cmd) {
	case IBPOST_IOC_DEV_LIST:
		return ibpost_ioc_dev_list((void __user *)arg);
	case IBPOST_IOC_RUN:
		ret = ibpost_ioc_priv(&urun->size, &urun->status,
				      IBPOST_RUN_SIZE_VER0);
		return ret ?: ibpost_ioc_run(file, urun);
	case IBPOST_IOC_SERVE:
		ret = ibpost_ioc_priv(&userve->size, &userve->status,
				      IBPOST_SERVE_SIZE_VER0);
		return ret ?: ibpost_ioc_serve(file, userve);
	case IBPOST_IOC_PROGRESS:
		ret = ibpost_ioc_priv(&uprog->size, &uprog->status,
				      IBPOST_PROGRESS_SIZE_VER0);
		return ret ?: ibpost_ioc_progress(file, uprog);
	default:
		return -ENOTTY;
	}
}
