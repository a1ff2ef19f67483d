// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost_consumer: a user of ibpost's session API that behaves like a
 * block driver, built only on what include/ibpost.h exports.
 *
 * A "disk" of pages (in shuffled order) is registered for remote READ and
 * WRITE.  Several kthreads then each write 4 KiB-aligned requests made of
 * pages taken out of order from a pool (128 KiB from 32 pages by default)
 * into their own part of the disk, read them back into other pages, again
 * out of order, and compare every byte.  Each request waits for its
 * completion callback; the threads run at once on one session.
 *
 * Loaded with autorun=1 (the default) it runs one workload from its module
 * parameters, prints the figures and fails to load if anything went wrong;
 * with autorun=0 it only exports ibpost_consumer_run() (the KUnit suite in
 * session_kunit.c drives it).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>

#include "consumer.h"

struct cons {
	const struct ibpost_consumer_cfg *cfg;
	struct ibpost_session *s;
	struct ibpost_rdesc disk;
	u64 req_bytes;
};

struct cons_thread {
	struct cons *c;
	u32 idx;
	u32 rng;
	struct page **pool;
	u32 *perm;
	struct scatterlist *sg;
	struct completion exited;
	u64 bytes;
	u64 requests;
	u64 errors;
	int first_error;
	u64 bad;
};

struct cons_io {
	struct ibpost_req req;
	struct completion done;
	int status;
};

/* xorshift32: a cheap, reproducible stream per thread. */
static u32 cons_rand(u32 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

static void cons_shuffle(u32 *perm, u32 n, u32 *rng)
{
	u32 i, j, t;

	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n - 1; i > 0; i--) {
		j = cons_rand(rng) % (i + 1);
		t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
}

static u8 cons_pattern(u32 t, u32 i, u64 off)
{
	u32 x = (u32)off * 2654435761U ^ (i + 1) * 40503U ^ (t + 1) * 977U;

	return (u8)(x ^ (x >> 13) ^ (x >> 24));
}

/* Point the thread's scatterlist at @n pool pages from @base, shuffled. */
static void cons_build_sg(struct cons_thread *t, u32 base, u32 n)
{
	u32 k;

	cons_shuffle(t->perm, n, &t->rng);
	sg_init_table(t->sg, n);
	for (k = 0; k < n; k++)
		sg_set_page(&t->sg[k], t->pool[base + t->perm[k]], PAGE_SIZE,
			    0);
}

static void cons_done(struct ibpost_req *req, int status)
{
	struct cons_io *io = container_of(req, struct cons_io, req);

	io->status = status;
	complete(&io->done);
}

static int cons_io(struct cons_thread *t, u32 op, u32 n, u64 off)
{
	struct cons_io io = {};
	int ret;

	init_completion(&io.done);
	io.req.op = op;
	io.req.sgl = t->sg;
	io.req.nents = n;
	if (t->c->cfg->region && t->c->cfg->peer)
		io.req.flags = IBPOST_REQ_REGION;
	else
		io.req.remote = &t->c->disk;
	io.req.remote_offset = off;
	io.req.done = cons_done;
	ret = ibpost_submit(t->c->s, &io.req);
	if (ret)
		return ret;
	wait_for_completion(&io.done);
	return io.status;
}

static void cons_fill(struct cons_thread *t, u32 n, u32 i)
{
	struct scatterlist *sg;
	u32 k, b;
	u8 *va;

	for_each_sg(t->sg, sg, n, k) {
		va = page_address(sg_page(sg));
		for (b = 0; b < PAGE_SIZE; b++)
			va[b] = cons_pattern(t->idx, i, (u64)k * PAGE_SIZE + b);
	}
}

static u64 cons_check(struct cons_thread *t, u32 n, u32 i)
{
	struct scatterlist *sg;
	u64 bad = 0;
	u32 k, b;
	u8 *va;

	for_each_sg(t->sg, sg, n, k) {
		va = page_address(sg_page(sg));
		for (b = 0; b < PAGE_SIZE; b++)
			if (va[b] != cons_pattern(t->idx, i,
						  (u64)k * PAGE_SIZE + b))
				bad++;
	}
	return bad;
}

static void cons_zero(struct cons_thread *t, u32 n)
{
	struct scatterlist *sg;
	u32 k;

	for_each_sg(t->sg, sg, n, k)
		memset(page_address(sg_page(sg)), 0, PAGE_SIZE);
}

static void cons_error(struct cons_thread *t, int err)
{
	if (!t->errors++)
		t->first_error = err;
}

/* Write request @i to its place on the disk, read it back, compare. */
static void cons_one(struct cons_thread *t, u32 i)
{
	u32 n = t->c->cfg->req_pages;
	u64 off = ((u64)t->idx * 2 + (i & 1)) * t->c->req_bytes;
	int ret;

	cons_build_sg(t, 0, n);
	cons_fill(t, n, i);
	ret = cons_io(t, IBPOST_OP_WRITE, n, off);
	t->requests++;
	if (ret) {
		cons_error(t, ret);
		return;
	}
	t->bytes += t->c->req_bytes;
	cons_build_sg(t, n, n);
	cons_zero(t, n);
	ret = cons_io(t, IBPOST_OP_READ, n, off);
	t->requests++;
	if (ret) {
		cons_error(t, ret);
		return;
	}
	t->bytes += t->c->req_bytes;
	t->bad += cons_check(t, n, i);
}

static int cons_thread_fn(void *arg)
{
	struct cons_thread *t = arg;
	u32 i;

	for (i = 0; i < t->c->cfg->reqs && !t->errors; i++)
		cons_one(t, i);
	kthread_complete_and_exit(&t->exited, 0);
}

static void cons_free_pages(struct page **pages, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (pages[i])
			__free_page(pages[i]);
}

static int cons_alloc_pages(struct page **pages, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!pages[i])
			return -ENOMEM;
	}
	return 0;
}

static void cons_thread_free(struct cons_thread *t)
{
	if (t->pool)
		cons_free_pages(t->pool, 2 * t->c->cfg->req_pages);
	kfree(t->pool);
	kfree(t->perm);
	kfree(t->sg);
}

static int cons_thread_alloc(struct cons *c, struct cons_thread *t, u32 idx)
{
	u32 n = c->cfg->req_pages;

	t->c = c;
	t->idx = idx;
	t->rng = 0x9e3779b9U ^ (idx + 1) * 2246822519U;
	init_completion(&t->exited);
	t->pool = kcalloc(2 * n, sizeof(*t->pool), GFP_KERNEL);
	t->perm = kcalloc(n, sizeof(*t->perm), GFP_KERNEL);
	t->sg = kcalloc(n, sizeof(*t->sg), GFP_KERNEL);
	if (!t->pool || !t->perm || !t->sg)
		return -ENOMEM;
	return cons_alloc_pages(t->pool, 2 * n);
}

/* Run the threads; every started one is waited for. */
static int cons_run_threads(struct cons *c, struct cons_thread *th,
			    struct ibpost_consumer_result *res)
{
	struct task_struct *task;
	u32 i, started = 0;
	u64 t0;
	int ret = 0;

	t0 = ktime_get_ns();
	for (i = 0; i < c->cfg->threads; i++) {
		task = kthread_run(cons_thread_fn, &th[i], "ibpost_cons/%u", i);
		if (IS_ERR(task)) {
			ret = PTR_ERR(task);
			break;
		}
		started++;
	}
	for (i = 0; i < started; i++)
		wait_for_completion(&th[i].exited);
	res->elapsed_ns = ktime_get_ns() - t0;
	for (i = 0; i < started; i++) {
		res->bytes += th[i].bytes;
		res->requests += th[i].requests;
		res->bad_bytes += th[i].bad;
		if (th[i].errors && !res->errors)
			res->first_error = th[i].first_error;
		res->errors += th[i].errors;
	}
	return ret;
}

static int cons_disk(struct cons *c, struct sg_table *sgt, struct page **pages,
		     u32 n)
{
	struct scatterlist *sg;
	u32 *perm, rng = 12345, k;
	int ret;

	ret = cons_alloc_pages(pages, n);
	if (ret)
		return ret;
	perm = kcalloc(n, sizeof(*perm), GFP_KERNEL);
	if (!perm)
		return -ENOMEM;
	ret = sg_alloc_table(sgt, n, GFP_KERNEL);
	if (ret)
		goto out;
	cons_shuffle(perm, n, &rng);
	for_each_sg(sgt->sgl, sg, n, k)
		sg_set_page(sg, pages[perm[k]], PAGE_SIZE, 0);
out:
	kfree(perm);
	return ret;
}

/*
 * A disk of local pages registered for the peer (here: the device); on a
 * session with a peer, a registration that shows ibpost_reg() works there.
 */
struct cons_local {
	struct page **pages;
	struct sg_table sgt;
	struct ibpost_mreg *reg;
};

static int cons_local_disk(struct cons *c, struct cons_local *l, u32 n,
			   struct ibpost_rdesc *desc)
{
	int ret;

	l->pages = kcalloc(n, sizeof(*l->pages), GFP_KERNEL);
	if (!l->pages)
		return -ENOMEM;
	ret = cons_disk(c, &l->sgt, l->pages, n);
	if (ret)
		return ret;
	l->reg = ibpost_reg(c->s, l->sgt.sgl, n, IBPOST_ACCESS_REMOTE_READ |
			    IBPOST_ACCESS_REMOTE_WRITE, desc);
	if (IS_ERR(l->reg)) {
		ret = PTR_ERR(l->reg);
		l->reg = NULL;
		return ret;
	}
	/* The MR maps every page given, no more, no less. */
	if (desc->length != (u64)n * PAGE_SIZE || !desc->rkey)
		return -EIO;
	return 0;
}

static void cons_local_free(struct cons_local *l, u32 n)
{
	if (l->reg)
		ibpost_unreg(l->reg);
	sg_free_table(&l->sgt);
	if (l->pages)
		cons_free_pages(l->pages, n);
	kfree(l->pages);
}

/* "a.b.c.d" or an IPv6 address, at ibpost serve's default port. */
static int cons_peer_addr(const char *str, struct sockaddr_storage *ss)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (in4_pton(str, -1, (u8 *)&in4->sin_addr, -1, NULL)) {
		in4->sin_family = AF_INET;
		return 0;
	}
	if (in6_pton(str, -1, (u8 *)&in6->sin6_addr, -1, NULL)) {
		in6->sin6_family = AF_INET6;
		return 0;
	}
	return -EINVAL;
}

/*
 * The server's region as the session's limits say: its size, a chunk no
 * request of the workload crosses (requests are aligned to their size).
 */
static int cons_region_check(struct cons *c, u64 bytes)
{
	struct ibpost_session_limits lim;

	ibpost_session_get_limits(c->s, &lim);
	pr_info("the server's region: %llu bytes in chunks of %u\n",
		lim.region_bytes, lim.region_chunk);
	if (lim.region_bytes != bytes || !lim.region_chunk ||
	    lim.region_chunk % c->req_bytes)
		return -ERANGE;
	return 0;
}

/**
 * ibpost_consumer_run() - run one workload on a new session.
 * @cfg: the workload.
 * @res: out: what happened (zeroed first).
 *
 * Context: process context, may sleep for the length of the workload.
 * Return: 0 when it could run (see @res for errors and mismatches), or a
 * negative errno from setting it up.
 */
int ibpost_consumer_run(const struct ibpost_consumer_cfg *cfg,
			struct ibpost_consumer_result *res)
{
	struct ibpost_session_attr attr = {
		.dev_name = cfg->dev,
		.depth = cfg->depth,
		.max_sge = cfg->max_sge,
		.owner = KBUILD_MODNAME,
	};
	struct cons c = { .cfg = cfg };
	struct cons_local local = {};
	struct ibpost_rdesc mine;
	struct cons_thread *th;
	struct sockaddr_storage ss;
	u32 i, ndisk;
	int ret;

	memset(res, 0, sizeof(*res));
	if (!cfg->threads || !cfg->reqs || !cfg->req_pages)
		return -EINVAL;
	c.req_bytes = (u64)cfg->req_pages * PAGE_SIZE;
	ndisk = cfg->threads * 2 * cfg->req_pages;
	if (cfg->peer) {
		if (cons_peer_addr(cfg->peer, &ss))
			return -EINVAL;
		attr.peer = &ss;
		if (cfg->region)
			attr.region_bytes = (u64)ndisk * PAGE_SIZE;
		else
			attr.remote_bytes = ndisk * PAGE_SIZE;
	}
	c.s = ibpost_session_open(&attr);
	if (IS_ERR(c.s))
		return PTR_ERR(c.s);
	th = kcalloc(cfg->threads, sizeof(*th), GFP_KERNEL);
	if (!th) {
		ret = -ENOMEM;
		goto out_close;
	}
	if (cfg->peer && cfg->region) {	/* the server's region */
		ret = cons_region_check(&c, (u64)ndisk * PAGE_SIZE);
	} else if (cfg->peer) {	/* the disk is the server's memory */
		ret = ibpost_session_remote(c.s, &c.disk);
		/* Registration works on a session with a peer too. */
		if (!ret)
			ret = cons_local_disk(&c, &local, ndisk, &mine);
	} else {
		ret = cons_local_disk(&c, &local, ndisk, &c.disk);
	}
	for (i = 0; i < cfg->threads && !ret; i++)
		ret = cons_thread_alloc(&c, &th[i], i);
	if (!ret)
		ret = cons_run_threads(&c, th, res);
	ibpost_session_get_stats(c.s, &res->stats);
	for (i = 0; i < cfg->threads; i++)
		if (th[i].c)
			cons_thread_free(&th[i]);
	kfree(th);
	cons_local_free(&local, ndisk);
out_close:
	ibpost_session_close(c.s);
	return ret;
}
EXPORT_SYMBOL_GPL(ibpost_consumer_run);

static char *dev = "rxe_lo";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "RDMA device (default rxe_lo)");
static uint threads = 4;
module_param(threads, uint, 0444);
MODULE_PARM_DESC(threads, "submitting kthreads (default 4)");
static uint reqs = 64;
module_param(reqs, uint, 0444);
MODULE_PARM_DESC(reqs, "requests per thread, each written and read back (default 64)");
static uint req_kb = 128;
module_param(req_kb, uint, 0444);
MODULE_PARM_DESC(req_kb, "KiB per request, a multiple of the page size (default 128)");
static uint depth = 64;
module_param(depth, uint, 0444);
MODULE_PARM_DESC(depth, "session send-queue depth (default 64)");
static uint max_sge;
module_param(max_sge, uint, 0444);
MODULE_PARM_DESC(max_sge, "SGEs per WR, 0 for the device's (default 0)");
static char *peer;
module_param(peer, charp, 0444);
MODULE_PARM_DESC(peer, "address of ibpost serve on another host: its memory is the disk (default: local pages)");
static bool region;
module_param(region, bool, 0444);
MODULE_PARM_DESC(region, "with peer: the disk is a region of the server's memory in chunks, reached by offset (default: one chunk, ibpost_session_remote())");
static bool autorun = true;
module_param(autorun, bool, 0444);
MODULE_PARM_DESC(autorun, "run the workload at load and fail to load if it fails (default 1)");

static bool hold;
module_param(hold, bool, 0444);
MODULE_PARM_DESC(hold, "instead of a workload: keep one page with a pattern registered (remote READ and WRITE) on a session of dev until unload, print its descriptor now and at unload whether the page still holds the pattern (isolation tests)");

/* The registration hold=1 keeps for the life of the module. */
static struct {
	struct ibpost_session *s;
	struct page *page;
	struct scatterlist sg;
	struct ibpost_mreg *reg;
} cons_held;

static u8 cons_held_byte(u32 i)
{
	return (u8)(0x3c + i * 7);
}

static int cons_hold_start(void)
{
	struct ibpost_session_attr attr = { .dev_name = dev, .depth = 4,
					    .owner = KBUILD_MODNAME };
	struct ibpost_rdesc desc;
	u8 *va;
	u32 i;
	int ret;

	cons_held.s = ibpost_session_open(&attr);
	if (IS_ERR(cons_held.s))
		return PTR_ERR(cons_held.s);
	cons_held.page = alloc_page(GFP_KERNEL);
	if (!cons_held.page) {
		ret = -ENOMEM;
		goto err_close;
	}
	va = page_address(cons_held.page);
	for (i = 0; i < PAGE_SIZE; i++)
		va[i] = cons_held_byte(i);
	sg_init_table(&cons_held.sg, 1);
	sg_set_page(&cons_held.sg, cons_held.page, PAGE_SIZE, 0);
	cons_held.reg = ibpost_reg(cons_held.s, &cons_held.sg, 1,
				   IBPOST_ACCESS_REMOTE_READ |
				   IBPOST_ACCESS_REMOTE_WRITE, &desc);
	if (IS_ERR(cons_held.reg)) {
		ret = PTR_ERR(cons_held.reg);
		goto err_page;
	}
	pr_info("holding a registration: addr 0x%llx rkey 0x%x length %u\n",
		desc.addr, desc.rkey, desc.length);
	return 0;

err_page:
	__free_page(cons_held.page);
err_close:
	ibpost_session_close(cons_held.s);
	cons_held.s = NULL;
	return ret;
}

static void cons_hold_end(void)
{
	const u8 *va;
	u32 i, bad = 0;

	if (!cons_held.s)
		return;
	ibpost_unreg(cons_held.reg);
	va = page_address(cons_held.page);
	for (i = 0; i < PAGE_SIZE; i++)
		bad += va[i] != cons_held_byte(i);
	if (bad)
		pr_info("held registration corrupted: %u bytes\n",
			bad);
	else
		pr_info("held registration intact\n");
	__free_page(cons_held.page);
	ibpost_session_close(cons_held.s);
}

static int __init cons_init(void)
{
	struct ibpost_consumer_cfg cfg = {
		.dev = dev, .threads = threads, .reqs = reqs,
		.req_pages = req_kb * 1024 / PAGE_SIZE, .depth = depth,
		.max_sge = max_sge, .peer = peer, .region = region,
	};
	struct ibpost_consumer_result *res;
	u64 mib_x100;
	int ret;

	if (hold)
		return cons_hold_start();
	if (!autorun)
		return 0;
	if (!req_kb || (req_kb * 1024) % PAGE_SIZE)
		return -EINVAL;
	res = kzalloc(sizeof(*res), GFP_KERNEL);
	if (!res)
		return -ENOMEM;
	ret = ibpost_consumer_run(&cfg, res);
	mib_x100 = res->elapsed_ns ?
		   div64_u64(res->bytes * 100 * NSEC_PER_SEC,
			     res->elapsed_ns * 1048576ULL) : 0;
	pr_info("%s: %u threads x %u requests of %u KiB (WRITE, READ back): %llu bytes in %llu us = %llu.%02llu MiB/s; %llu requests, %llu errors (first %d), %llu bad bytes; session: %llu WRs, %llu sq_full, p50 %llu ns, p99 %llu ns; ret %d\n",
		dev, threads, reqs, req_kb, res->bytes,
		div_u64(res->elapsed_ns, 1000), div_u64(mib_x100, 100),
		mib_x100 % 100, res->requests, res->errors, res->first_error,
		res->bad_bytes, res->stats.wrs, res->stats.sq_full,
		res->stats.lat_p50_ns, res->stats.lat_p99_ns, ret);
	if (!ret && (res->errors || res->bad_bytes))
		ret = -EIO;
	kfree(res);
	return ret;
}

static void __exit cons_exit(void)
{
	cons_hold_end();
}

module_init(cons_init);
module_exit(cons_exit);

MODULE_DESCRIPTION("ibpost session API consumer: block-driver-like scattered WRITE/READ with verification");
MODULE_LICENSE("GPL");
