// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: ioctl dispatch, who may call what, and IBPOST_IOC_DEV_LIST.
 *
 * One table (ibpost_ioc_cmds) says of every command how large its
 * argument is, where its status sits and whether it needs privilege.
 * ibpost_ioctl() alone copies the argument in with copy_struct_from_user()
 * (the growth rule of include/uapi/ibpost.h) and back out: the whole
 * struct on success (or when the handler asks, e.g. a run's results on
 * failure), else struct ibpost_status alone, so the tool can say exactly
 * what was wrong.  The handlers validate every field before they act.
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
static_assert(sizeof(struct ibpost_run) == IBPOST_RUN_SIZE_VER1);
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

static int ibpost_ioc_dev_list(struct file *file, void *karg, bool *full)
{
	struct ibpost_dev_list *k = karg;
	size_t bytes;
	int ret;

	k->total = 0;
	k->written = 0;
	if (k->flags) {
		ibpost_status_set(&k->status, IBPOST_R_FLAGS, k->flags, 0);
		return -EINVAL;
	}
	if (!ibpost_mem_is_zero(k->reserved, sizeof(k->reserved))) {
		ibpost_status_set(&k->status, IBPOST_R_RESERVED, 0, 0);
		return -EINVAL;
	}
	ret = ibpost_check_rec_array(&k->status, k->count, IBPOST_DEV_LIST_MAX,
				     k->attr_size, IBPOST_DEV_ATTR_SIZE_VER0,
				     &bytes);
	if (ret)
		return ret;
	if (bytes && !access_ok(u64_to_user_ptr(k->devs), bytes)) {
		ibpost_status_set(&k->status, IBPOST_R_FAULT, k->devs, bytes);
		return -EFAULT;
	}
	return ibpost_list_devices(k);
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

static int ibpost_ioc_run(struct file *file, void *karg, bool *full)
{
	struct ibpost_sge_desc *sges = NULL, *rsges = NULL;
	struct ibpost_run_ext ext = {};
	struct ibpost_run *k = karg;
	u64 *hist = NULL;
	int ret;

	ret = ibpost_copy_layout(k->sges, k->num_sge,
				 k->layout == IBPOST_LAYOUT_EXPLICIT, &sges,
				 &k->status, false);
	if (ret)
		goto out;
	if (ibpost_op_is_send(k->op)) {
		ret = ibpost_copy_layout(k->recv_sges,
					 k->recv_num_sge ?: k->num_sge,
					 k->recv_layout == IBPOST_LAYOUT_EXPLICIT,
					 &rsges, &k->status, true);
		if (ret)
			goto out;
	}
	ret = ibpost_ioc_run_caps(k);
	if (ret)
		goto out;
	if ((k->flags & IBPOST_RUN_HIST) && k->hist) {
		hist = kvcalloc(IBPOST_HIST_LL_BUCKETS, sizeof(*hist),
				GFP_KERNEL);
		if (!hist) {
			ibpost_status_set(&k->status, IBPOST_R_NOMEM,
					  IBPOST_HIST_LL_BUCKETS, 0);
			ret = -ENOMEM;
			goto out;
		}
	}
	ext.sges = sges;
	ext.recv_sges = rsges;
	ext.hist = hist;
	ret = ibpost_run_on(k, &ext, &ibpost_file(file)->job);
	if (hist)
		ret = ibpost_put_hist(k, hist, ret);
	/* Results and reasons go back on success and on failure alike. */
	*full = true;
out:
	kvfree(hist);
	kfree(rsges);
	kfree(sges);
	return ret;
}

/*
 * IBPOST_IOC_PROGRESS: the counts of the job running on @file, which
 * another thread's IBPOST_IOC_RUN on the same file blocks in.
 */
static int ibpost_ioc_progress(struct file *file, void *karg, bool *full)
{
	struct ibpost_progress *k = karg;

	if (k->flags) {
		ibpost_status_set(&k->status, IBPOST_R_FLAGS, k->flags, 0);
		return -EINVAL;
	}
	if (k->reserved0 || !ibpost_mem_is_zero(k->reserved, sizeof(k->reserved))) {
		ibpost_status_set(&k->status, IBPOST_R_RESERVED, 0, 0);
		return -EINVAL;
	}
	return ibpost_job_slot_progress(&ibpost_file(file)->job, k);
}

/* IBPOST_IOC_SERVE: the file's server (serve/serve.c). */
static int ibpost_ioc_serve(struct file *file, void *karg, bool *full)
{
	return ibpost_serve_ioctl(&ibpost_file(file)->srv, karg, full);
}

/**
 * struct ibpost_ioc_cmd - how one command's argument comes in and goes out.
 * @cmd: IBPOST_IOC_*, or an alias (IBPOST_IOC_RUN_VER1_ALIAS).
 * @ksize: the kernel's struct (every one starts with its __u32 size).
 * @ver0: its first published size: a smaller one is refused, -EINVAL.
 * @status: offset of its struct ibpost_status.
 * @priv: the command needs CAP_SYS_ADMIN (see ibpost_ioc_denied()).
 * @handle: acts on the kernel copy @k, whose status is cleared; sets
 *	*@full to have @k written back whole also when it fails.
 */
struct ibpost_ioc_cmd {
	unsigned int cmd;
	size_t ksize;
	u32 ver0;
	size_t status;
	bool priv;
	int (*handle)(struct file *file, void *k, bool *full);
};

/*
 * Zero, or a build error unless @c is a read-write ibpost number whose
 * size field is @sz.
 */
#define IBPOST_IOC_ASSERT(c, sz)					\
	BUILD_BUG_ON_ZERO(_IOC_SIZE(c) != (sz) ||			\
			  _IOC_TYPE(c) != IBPOST_IOC_MAGIC ||		\
			  _IOC_DIR(c) != (_IOC_READ | _IOC_WRITE))

#define IBPOST_IOC_ENTRY(c, csize, type, v0, p, fn)			\
	{ .cmd = (c) + IBPOST_IOC_ASSERT(c, csize),			\
	  .ksize = sizeof(struct type), .ver0 = (v0),			\
	  .status = offsetof(struct type, status), .priv = (p),		\
	  .handle = (fn) }

/**
 * IBPOST_IOC_CMD() - an entry of ibpost_ioc_cmds.
 * @c: the command's number, IBPOST_IOC_*.
 * @type: its argument, struct @type.
 * @v0: the argument's first published size, IBPOST_*_SIZE_VER0.
 * @p: the command needs CAP_SYS_ADMIN.
 * @fn: its handler.
 *
 * The number must encode @v0 (the growth rule of include/uapi/ibpost.h),
 * checked at build time: a number that follows sizeof() of a struct that
 * grew (as IBPOST_IOC_RUN did in 8ff9aaf) does not build.
 */
#define IBPOST_IOC_CMD(c, type, v0, p, fn)				\
	IBPOST_IOC_ENTRY(c, v0, type, v0, p, fn)

/**
 * IBPOST_IOC_CMD_ALIAS() - an entry for another number of a command.
 * @c: the other number.
 * @csize: the size @c encodes instead of @v0 (checked at build time).
 * @type: the command's argument, struct @type.
 * @v0: the argument's first published size, as for the command itself.
 * @p: the command needs CAP_SYS_ADMIN.
 * @fn: the command's handler.
 *
 * The argument is read and written back exactly as through the command's
 * own number: by its size field, at least @v0.
 */
#define IBPOST_IOC_CMD_ALIAS(c, csize, type, v0, p, fn)		\
	IBPOST_IOC_ENTRY(c, csize, type, v0, p, fn)

/*
 * IBPOST_IOC_DEV_LIST is a read-only query (the records are what sysfs
 * and 'rdma dev' show anyone); everything else needs privilege.
 *
 * IBPOST_IOC_RUN_VER1_ALIAS: IBPOST_IOC_RUN was _IOWR() of its struct
 * from 8ff9aaf on, so tools built since then send the number of
 * IBPOST_RUN_SIZE_VER1 (888 bytes).  They keep working: the same handler
 * with the same first size, the argument's own size field read as for
 * IBPOST_IOC_RUN.  Every other number stays -ENOTTY.
 */
static const struct ibpost_ioc_cmd ibpost_ioc_cmds[] = {
	IBPOST_IOC_CMD(IBPOST_IOC_DEV_LIST, ibpost_dev_list,
		       IBPOST_DEV_LIST_SIZE_VER0, false, ibpost_ioc_dev_list),
	IBPOST_IOC_CMD(IBPOST_IOC_RUN, ibpost_run, IBPOST_RUN_SIZE_VER0,
		       true, ibpost_ioc_run),
	IBPOST_IOC_CMD_ALIAS(IBPOST_IOC_RUN_VER1_ALIAS, IBPOST_RUN_SIZE_VER1,
			     ibpost_run, IBPOST_RUN_SIZE_VER0, true,
			     ibpost_ioc_run),
	IBPOST_IOC_CMD(IBPOST_IOC_SERVE, ibpost_serve, IBPOST_SERVE_SIZE_VER0,
		       true, ibpost_ioc_serve),
	IBPOST_IOC_CMD(IBPOST_IOC_PROGRESS, ibpost_progress,
		       IBPOST_PROGRESS_SIZE_VER0, true, ibpost_ioc_progress),
};

/*
 * Every ioctl but IBPOST_IOC_DEV_LIST needs CAP_SYS_ADMIN: a job pins
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
static bool ibpost_ioc_denied(const struct ibpost_ioc_cmd *c)
{
	return c->priv && !capable(CAP_SYS_ADMIN);
}

static long ibpost_ioc_do(struct file *file, const struct ibpost_ioc_cmd *c,
			  void __user *uarg)
{
	struct ibpost_status __user *ust = uarg + c->status;
	/* Asked once: capable() audits and marks the task at every call. */
	bool denied = ibpost_ioc_denied(c);
	struct ibpost_status *st;
	bool full = false;
	u32 usize;
	void *k;
	int ret;

	if (get_user(usize, (u32 __user *)uarg))
		return denied ? -EPERM : -EFAULT;
	if (denied && usize < c->ver0)
		return -EPERM;
	k = kzalloc(c->ksize, GFP_KERNEL);
	if (!k)
		return -ENOMEM;
	st = k + c->status;
	if (denied) {
		ibpost_status_set(st, IBPOST_R_PRIV, 0, 0);
		ret = -EPERM;
		goto refuse;
	}
	ret = ibpost_copy_arg(k, c->ksize, c->ver0, uarg, usize, st);
	if (ret == -EINVAL)
		goto out_free;
	if (ret)
		goto refuse;
	memset(st, 0, sizeof(*st));
	ret = c->handle(file, k, &full);
	if (ret && !full)
		goto refuse;
	if (copy_to_user(uarg, k, min_t(size_t, usize, c->ksize)))
		ret = -EFAULT;
	goto out_free;

refuse:
	ret = ibpost_put_status(ust, st, ret);
out_free:
	kfree(k);
	return ret;
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
	u32 i;

	for (i = 0; i < ARRAY_SIZE(ibpost_ioc_cmds); i++)
		if (ibpost_ioc_cmds[i].cmd == cmd)
			return ibpost_ioc_do(file, &ibpost_ioc_cmds[i],
					     (void __user *)arg);
	return -ENOTTY;
}
