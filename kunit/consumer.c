// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost_consumer: a thin test of ibpost's session API, built only on what
 * include/ibpost.h exports.  The block driver on that API is ibpost_blk
 * (module/blk/, the model a storage-driver author copies); this module
 * only checks bytes end to end, where the scripts and the KUnit suite can
 * load it on any kernel.
 *
 * A "disk" of single pages is registered for remote READ and WRITE (or, with
 * peer=, is the memory of ibpost serve on another host).  Several kthreads
 * share the one session: each writes requests of req_kb from pages of its
 * own into its part of the disk, reads each back into other pages and
 * compares every byte; each request waits for its completion callback.
 *
 * Loaded with autorun=1 (the default) it runs one workload from its module
 * parameters, prints the figures and fails to load if anything went wrong;
 * with autorun=0 it only exports ibpost_consumer_run() (the KUnit suite in
 * session_kunit.c drives it); with hold=1 it keeps one registered page for
 * the isolation tests.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/inet.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <net/net_namespace.h>

#include "consumer.h"

struct cons {
	const struct ibpost_consumer_cfg *cfg;
	struct ibpost_session *s;
	struct ibpost_rdesc disk;
	u64 req_bytes;
};

/* A thread's pages: [0, n) written, [n, 2n) read back into. */
struct cons_thread {
	struct cons *c;
	u32 idx;
	struct page **pool;
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

static u8 cons_pattern(u32 t, u32 i, u64 off)
{
	u32 x = (u32)off * 2654435761U ^ (i + 1) * 40503U ^ (t + 1) * 977U;

	return (u8)(x ^ (x >> 13) ^ (x >> 24));
}

/* The words of an IBPOST_R_* code, as the tool prints them. */
static const char *cons_reason(u32 reason)
{
	static const char *const texts[] = IBPOST_REASON_TEXTS;

	return reason < ARRAY_SIZE(texts) && texts[reason] ? texts[reason] :
	       "unknown";
}

static void cons_done(struct ibpost_req *req, int status)
{
	struct cons_io *io = container_of(req, struct cons_io, req);

	io->status = status;
	complete(&io->done);
}

/* One request over pool pages [base, base + n), waited for. */
static int cons_io(struct cons_thread *t, u32 op, u32 base, u64 off)
{
	u32 k, n = t->c->cfg->req_pages;
	struct cons_io io = {};
	int ret;

	sg_init_table(t->sg, n);
	for (k = 0; k < n; k++)
		sg_set_page(&t->sg[k], t->pool[base + k], PAGE_SIZE, 0);
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
	t->requests++;
	ret = ibpost_submit(t->c->s, &io.req);
	if (!ret) {
		wait_for_completion(&io.done);
		ret = io.status;
	}
	if (ret && !t->errors++)
		t->first_error = ret;
	if (!ret)
		t->bytes += t->c->req_bytes;
	return ret;
}

/* Request @i: stamped, written to its place, read back, every byte compared. */
static void cons_one(struct cons_thread *t, u32 i)
{
	u32 n = t->c->cfg->req_pages, k, b;
	u64 off = ((u64)t->idx * 2 + (i & 1)) * t->c->req_bytes;
	u8 *va;

	for (k = 0; k < n; k++) {
		va = page_address(t->pool[k]);
		for (b = 0; b < PAGE_SIZE; b++)
			va[b] = cons_pattern(t->idx, i, (u64)k * PAGE_SIZE + b);
		memset(page_address(t->pool[n + k]), 0, PAGE_SIZE);
	}
	if (cons_io(t, IBPOST_OP_WRITE, 0, off) ||
	    cons_io(t, IBPOST_OP_READ, n, off))
		return;
	for (k = 0; k < n; k++) {
		va = page_address(t->pool[n + k]);
		for (b = 0; b < PAGE_SIZE; b++)
			t->bad += va[b] != cons_pattern(t->idx, i,
						       (u64)k * PAGE_SIZE + b);
	}
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

	for (i = 0; pages && i < n; i++)
		if (pages[i])
			__free_page(pages[i]);
	kfree(pages);
}

/* @n single pages, zeroed. */
static struct page **cons_alloc_pages(u32 n)
{
	struct page **pages = kcalloc(n, sizeof(*pages), GFP_KERNEL);
	u32 i;

	for (i = 0; pages && i < n; i++) {
		pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!pages[i]) {
			cons_free_pages(pages, n);
			return NULL;
		}
	}
	return pages;
}

/* Run the threads; every started one is waited for. */
static int cons_run_threads(struct cons *c, struct cons_thread *th,
			    struct ibpost_consumer_result *res)
{
	u32 i, n = c->cfg->req_pages, started = 0;
	struct task_struct *task;
	int ret = 0;
	u64 t0;

	for (i = 0; i < c->cfg->threads; i++) {
		th[i].c = c;
		th[i].idx = i;
		init_completion(&th[i].exited);
		th[i].pool = cons_alloc_pages(2 * n);
		th[i].sg = kcalloc(n, sizeof(*th[i].sg), GFP_KERNEL);
		if (!th[i].pool || !th[i].sg) {
			ret = -ENOMEM;
			goto out;
		}
	}
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
out:
	for (i = 0; i < c->cfg->threads; i++) {
		cons_free_pages(th[i].pool, 2 * n);
		kfree(th[i].sg);
	}
	return ret;
}

/* Local pages registered for remote READ and WRITE, one entry each. */
struct cons_local {
	struct page **pages;
	u32 n;
	struct sg_table sgt;
	struct ibpost_mreg *reg;
};

static int cons_local_disk(struct cons *c, struct cons_local *l, u32 n,
			   struct ibpost_rdesc *desc)
{
	struct scatterlist *sg;
	u32 k;
	int ret;

	l->pages = cons_alloc_pages(n);
	if (!l->pages)
		return -ENOMEM;
	l->n = n;
	ret = sg_alloc_table(&l->sgt, n, GFP_KERNEL);
	if (ret)
		return ret;
	for_each_sg(l->sgt.sgl, sg, n, k)
		sg_set_page(sg, l->pages[k], PAGE_SIZE, 0);
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

static void cons_local_free(struct cons_local *l)
{
	if (l->reg)
		ibpost_unreg(l->reg);
	sg_free_table(&l->sgt);
	cons_free_pages(l->pages, l->n);
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

/* After a resume: each thread's last two requests are in the region. */
static int cons_verify_kept(struct cons *c, u64 *bad)
{
	u32 n = c->cfg->req_pages, k, b, th, i;
	struct cons_thread t = { .c = c };
	u64 off;
	u8 *va;
	int ret = 0;

	t.pool = cons_alloc_pages(2 * n);
	t.sg = kcalloc(n, sizeof(*t.sg), GFP_KERNEL);
	if (!t.pool || !t.sg) {
		ret = -ENOMEM;
		goto out;
	}
	for (th = 0; th < c->cfg->threads && !ret; th++) {
		for (i = c->cfg->reqs - min(c->cfg->reqs, 2U);
		     i < c->cfg->reqs && !ret; i++) {
			off = ((u64)th * 2 + (i & 1)) * c->req_bytes;
			for (k = 0; k < n; k++)
				memset(page_address(t.pool[n + k]), 0,
				       PAGE_SIZE);
			ret = cons_io(&t, IBPOST_OP_READ, n, off);
			for (k = 0; !ret && k < n; k++) {
				va = page_address(t.pool[n + k]);
				for (b = 0; b < PAGE_SIZE; b++)
					*bad += va[b] != cons_pattern(th, i,
						(u64)k * PAGE_SIZE + b);
			}
		}
	}
out:
	cons_free_pages(t.pool, 2 * n);
	kfree(t.sg);
	return ret;
}

/*
 * Close the session without its fin (the caller's session_test_nofin),
 * take its region back and read it; the first token is then refused.
 * Not inlined: its two copies of the resume would take the caller's frame
 * past 1 KiB on the debug kernel.
 */
static noinline_for_stack int
cons_resume(struct cons *c, struct ibpost_session_attr *attr,
	    struct ibpost_consumer_result *res)
{
	struct ibpost_session_resume r, old;
	struct ibpost_session *s;
	u32 reason = 0;
	int ret;

	ret = ibpost_session_get_resume(c->s, &r);
	if (ret)
		return ret;
	res->keep_s = r.keep_s;
	old = r;
	ibpost_session_close(c->s);
	c->s = NULL;
	attr->resume = &r;
	attr->reason = &reason;
	s = ibpost_session_open(attr);
	if (IS_ERR(s)) {
		res->resume_reason = reason;
		ret = PTR_ERR(s);
		goto out;
	}
	c->s = s;
	ret = cons_region_check(c, attr->region_bytes);
	if (!ret)
		ret = cons_verify_kept(c, &res->resume_bad);
	res->resumed = !ret;
	/* Each ready gives a new token: the first one took it back once. */
	attr->resume = &old;
	reason = 0;
	s = ibpost_session_open(attr);
	if (!IS_ERR(s)) {
		ibpost_session_close(s);
		ret = ret ?: -EEXIST;
	}
	res->stale_reason = reason;
out:
	memzero_explicit(&r, sizeof(r));
	memzero_explicit(&old, sizeof(old));
	return ret;
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
	u32 ndisk;
	int ret;

	memset(res, 0, sizeof(*res));
	if (!cfg->threads || !cfg->reqs || !cfg->req_pages)
		return -EINVAL;
	c.req_bytes = (u64)cfg->req_pages * PAGE_SIZE;
	ndisk = cfg->threads * 2 * cfg->req_pages;
	if (cfg->peer) {
		/* IPv4 or IPv6, port 0: ibpost serve's default port. */
		if (inet_pton_with_scope(&init_net, AF_UNSPEC, cfg->peer,
					 cfg->peer_port, &ss))
			return -EINVAL;
		attr.peer = &ss;
		if (cfg->region) {
			attr.region_bytes = (u64)ndisk * PAGE_SIZE;
			/* Kept for the resume (at most its --max-keep). */
			if (cfg->resume)
				attr.keep_s = CONS_KEEP_S;
		} else {
			attr.remote_bytes = ndisk * PAGE_SIZE;
		}
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
	if (!ret)
		ret = cons_run_threads(&c, th, res);
	ibpost_session_get_stats(c.s, &res->stats);
	kfree(th);
	cons_local_free(&local);
	if (!ret && cfg->resume && cfg->peer && cfg->region && !res->errors &&
	    !res->bad_bytes)
		ret = cons_resume(&c, &attr, res);
out_close:
	if (c.s)
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
static char *peer_port;
module_param(peer_port, charp, 0444);
MODULE_PARM_DESC(peer_port, "with peer: the server's port (default: ibpost serve's)");
static bool resume;
module_param(resume, bool, 0444);
MODULE_PARM_DESC(resume, "with region: once the workload ran, close the session without its fin (set ibpost's session_test_nofin first), take the region back, read back what was written last, then check that the first token is refused");
static bool autorun = true;
module_param(autorun, bool, 0444);
MODULE_PARM_DESC(autorun, "run the workload at load and fail to load if it fails (default 1)");

static bool hold;
module_param(hold, bool, 0444);
MODULE_PARM_DESC(hold, "instead of a workload: keep one page with a pattern registered (remote READ and WRITE) on a session of dev (with peer: a session with that server) until unload, print its descriptor now and at unload whether the page still holds the pattern (isolation tests; the close at unload: races tests)");

/* The registration hold=1 keeps for the life of the module. */
static struct {
	struct ibpost_session *s;
	struct page *page;
	struct scatterlist sg;
	struct ibpost_mreg *reg;
} cons_held;

static int cons_hold_start(void)
{
	struct ibpost_session_attr attr = { .dev_name = dev, .depth = 4,
					    .owner = KBUILD_MODNAME };
	struct sockaddr_storage ss;
	struct ibpost_rdesc desc;
	u32 i;
	int ret;

	/* With peer=: a session with ibpost serve (closed at unload: its fin). */
	if (peer) {
		if (inet_pton_with_scope(&init_net, AF_UNSPEC, peer, NULL, &ss))
			return -EINVAL;
		attr.peer = &ss;
		attr.remote_bytes = PAGE_SIZE;
	}
	cons_held.s = ibpost_session_open(&attr);
	if (IS_ERR(cons_held.s))
		return PTR_ERR(cons_held.s);
	cons_held.page = alloc_page(GFP_KERNEL);
	if (!cons_held.page) {
		ret = -ENOMEM;
		goto err_close;
	}
	for (i = 0; i < PAGE_SIZE; i++)
		((u8 *)page_address(cons_held.page))[i] = cons_pattern(0, 0, i);
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
		bad += va[i] != cons_pattern(0, 0, i);
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
		.peer_port = peer_port && *peer_port ? peer_port : NULL,
		.resume = resume,
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
	if (resume)
		pr_info("resume: %s (reason %u: %s), %llu bad bytes read back; the first token again: reason %u: %s; keep %u s of %u asked\n",
			res->resumed ? "region taken back" : "not taken back",
			res->resume_reason, cons_reason(res->resume_reason),
			res->resume_bad, res->stale_reason,
			cons_reason(res->stale_reason), res->keep_s,
			CONS_KEEP_S);
	if (!ret && (res->errors || res->bad_bytes || res->resume_bad))
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

MODULE_DESCRIPTION("ibpost session API: a thin end-to-end test (WRITE, READ back, every byte compared)");
MODULE_LICENSE("GPL");
