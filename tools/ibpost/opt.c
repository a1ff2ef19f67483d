// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost tool: the options of a command from its one table (opt.h): the
 * getopt_long() tables, the synopsis and the option lines of --help are
 * all made from it, so they cannot drift apart.  Every command also takes
 * the hidden --list-options: its table, one spelling a line, for the tests
 * (tools/tests/host/cli.sh checks --help against it).  A config file
 * (opt_config()) holds the same options, a line each, for the services.
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "ibpost.h"
#include "opt.h"

/* Most spellings of one command. */
#define OPT_MAX		80
/* The key of --list-options: no letter, below OPT_LONG. */
#define OPT_KEY_LIST	255
/* The synopsis wraps before this column. */
#define OPT_WIDTH	80

static int key_of(const struct opt *o)
{
	return o->key ? o->key : o->letter;
}

/* The entry (not an alias) of @key. */
static const struct opt *primary(const struct opt_cmd *c, int key)
{
	unsigned int i;

	for (i = 0; i < c->nopts; i++)
		if (!(c->opts[i].flags & OPT_ALIAS) && key_of(&c->opts[i]) == key)
			return &c->opts[i];
	return NULL;
}

static bool takes_arg(const struct opt_cmd *c, const struct opt *o)
{
	if (o->flags & OPT_ALIAS)
		o = primary(c, key_of(o));
	return o && o->arg;
}

/* --list-options: "--NAME<tab>-L<tab>option|alias|hidden", a line each. */
static void list_options(const struct opt_cmd *c)
{
	const struct opt *o;
	unsigned int i;

	for (i = 0; i < c->nopts; i++) {
		o = &c->opts[i];
		printf("--%s\t", o->name);
		if (o->letter)
			printf("-%c", o->letter);
		else
			printf("-");
		printf("\t%s\n", o->flags & OPT_HIDDEN ? "hidden" :
		       o->flags & OPT_ALIAS ? "alias" : "option");
	}
}

int opt_try(const struct opt_cmd *c)
{
	fprintf(stderr, "try '%s %s --help'\n", prog, c->name);
	return 2;
}

/* An option getopt_long() did not take: the message, the synopsis. */
static int refused(const struct opt_cmd *c, int ch, const char *word)
{
	int letter = optopt;

	if (c->unknown) {
		/* a long option's value missing: name it by its word */
		if (word && !strncmp(word, "--", 2))
			letter = 0;
		c->unknown(ch, letter, word);
	}
	opt_synopsis(stderr, c, true, true);
	return opt_try(c);
}

int opt_parse(const struct opt_cmd *c, int argc, char **argv,
	      int (*set)(void *ctx, int key, const char *arg), void *ctx)
{
	struct option lo[OPT_MAX + 2];
	char so[2 * OPT_MAX + 2];
	const struct opt *o, *p;
	unsigned int i, n = 0;
	int ch;

	if (c->nopts > OPT_MAX) {
		fprintf(stderr, "%s: %s: more than %u options\n", prog, c->name,
			OPT_MAX);
		return 2;
	}
	if (c->unknown)
		so[n++] = ':';	/* a missing value is ':', not '?' */
	for (i = 0; i < c->nopts; i++) {
		o = &c->opts[i];
		lo[i] = (struct option){ o->name, takes_arg(c, o) ?
			required_argument : no_argument, NULL, key_of(o) };
		if (o->letter) {
			so[n++] = o->letter;
			if (o->arg)
				so[n++] = ':';
		}
	}
	lo[i++] = (struct option){ "list-options", no_argument, NULL,
				   OPT_KEY_LIST };
	lo[i] = (struct option){ NULL, 0, NULL, 0 };
	so[n] = '\0';
	opterr = !c->unknown;
	while ((ch = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		if (ch == '?' || ch == ':')
			return refused(c, ch, argv[optind - 1]);
		if (ch == OPT_KEY_LIST) {
			list_options(c);
			return 0;
		}
		p = primary(c, ch);
		if (p && (p->flags & OPT_HELP)) {
			if (c->help)
				c->help(stdout);
			else
				opt_help(stdout, c);
			return 0;
		}
		if (p && (p->flags & OPT_VERSION))
			return cmd_version();
		if (set(ctx, ch, optarg))
			return opt_try(c);
	}
	return OPT_GO;
}

static bool in_help(const struct opt *o)
{
	return !(o->flags & (OPT_ALIAS | OPT_HIDDEN));
}

/* One word of the synopsis at column @col, wrapped: the new column. */
static size_t word(FILE *f, size_t col, const char *w)
{
	size_t len = strlen(w);

	if (col + 1 + len >= OPT_WIDTH) {
		fprintf(f, "\n%9s", "");
		col = 9;
	} else {
		fputc(' ', f);
		col++;
	}
	fputs(w, f);
	return col + len;
}

void opt_synopsis(FILE *f, const struct opt_cmd *c, bool first, bool brief)
{
	const struct opt *o;
	bool req, more = false;
	char w[128];
	unsigned int i;
	size_t col;

	col = fprintf(f, "%s %s %s", first ? "usage:" : "      ", prog,
		      c->name);
	for (i = 0; i < c->nopts; i++) {
		o = &c->opts[i];
		if (!in_help(o) || (o->flags & (OPT_HELP | OPT_VERSION)))
			continue;
		req = o->flags & OPT_REQUIRED;
		if (brief && !req) {
			more = true;
			continue;
		}
		snprintf(w, sizeof(w), "%s--%s%s%s%s%s", req ? "" : "[",
			 o->name, o->arg ? " " : "", o->arg ? o->arg : "",
			 req ? "" : "]", o->flags & OPT_MANY ? "..." : "");
		col = word(f, col, w);
	}
	if (more)
		col = word(f, col, "[OPTION]...");
	if (c->operands)
		word(f, col, c->operands);
	fputc('\n', f);
}

/* The help of @o from column @col, its lines at c->col. */
static void help_lines(FILE *f, const struct opt_cmd *c, const struct opt *o,
		       int col)
{
	const char *s = o->help ? o->help : "", *nl;
	int indent = c->col;

	if (col + 2 <= indent)
		fprintf(f, "%*s", indent - col, "");
	else
		fputs("  ", f);
	for (;;) {
		nl = strchr(s, '\n');
		if (!nl) {
			fprintf(f, "%s\n", s);
			return;
		}
		fprintf(f, "%.*s\n%*s", (int)(nl - s), s, indent, "");
		s = nl + 1;
	}
}

void opt_options(FILE *f, const struct opt_cmd *c)
{
	const struct opt *o, *a;
	unsigned int i, j;
	int col;

	for (i = 0; i < c->nopts; i++) {
		o = &c->opts[i];
		if (!in_help(o))
			continue;
		if (o->letter)
			col = fprintf(f, "  -%c, --%s", o->letter, o->name);
		else
			col = fprintf(f, "      --%s", o->name);
		if (o->arg)
			col += fprintf(f, " %s", o->arg);
		help_lines(f, c, o, col);
		for (j = 0; j < c->nopts; j++) {
			a = &c->opts[j];
			if (!(a->flags & OPT_ALIAS) || (a->flags & OPT_HIDDEN) ||
			    key_of(a) != key_of(o))
				continue;
			fprintf(f, "%*salso --%s", (int)c->col, "", a->name);
			if (a->help)
				fprintf(f, " (%s)", a->help);
			fputc('\n', f);
		}
	}
}

void opt_help(FILE *f, const struct opt_cmd *c)
{
	opt_synopsis(f, c, true, false);
	if (c->about) {
		fputc('\n', f);
		c->about(f);
	}
	fputc('\n', f);
	opt_options(f, c);
	if (c->tail) {
		fputc('\n', f);
		c->tail(f);
	}
}

/* Most words of one line of a config file. */
#define OPT_CONF_WORDS	64

int opt_config(const char *file,
	       int (*line)(void *ctx, unsigned int lineno, int argc,
			   char **argv),
	       void *ctx)
{
	char buf[1024], *argv[OPT_CONF_WORDS + 2], *w, *save;
	unsigned int lineno = 0;
	FILE *f;
	int argc, rc = 0;

	f = fopen(file, "r");
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, file, strerror(errno));
		return 1;
	}
	while (!rc && fgets(buf, sizeof(buf), f)) {
		lineno++;
		if (!strchr(buf, '\n') && !feof(f)) {
			fprintf(stderr, "%s: %s:%u: line longer than %zu bytes\n",
				prog, file, lineno, sizeof(buf) - 2);
			rc = 2;
			break;
		}
		w = strchr(buf, '#');
		if (w)
			*w = '\0';
		argc = 0;
		argv[argc++] = (char *)file;
		for (w = strtok_r(buf, " \t\r\n", &save); w;
		     w = strtok_r(NULL, " \t\r\n", &save)) {
			if (argc > OPT_CONF_WORDS) {
				fprintf(stderr, "%s: %s:%u: more than %d words\n",
					prog, file, lineno, OPT_CONF_WORDS);
				rc = 2;
				break;
			}
			argv[argc++] = w;
		}
		argv[argc] = NULL;
		if (!rc && argc > 1)
			rc = line(ctx, lineno, argc, argv);
	}
	fclose(f);
	return rc;
}

int opt_conf_set(struct opt_conf *oc, const struct opt_cmd *c, bool is_file,
		 const char *arg)
{
	if (oc->in_file) {
		fprintf(stderr, "%s: %s: --config and --check-config belong on the command line\n",
			prog, c->name);
		return -1;
	}
	if (is_file)
		oc->file = arg;
	else
		oc->check = true;
	return 0;
}

int opt_parse_line(const struct opt_cmd *c, const char *file,
		   unsigned int lineno, int argc, char **argv,
		   int (*set)(void *ctx, int key, const char *arg), void *ctx)
{
	int rc;

	optind = 0;	/* glibc: start again */
	rc = opt_parse(c, argc, argv, set, ctx);
	if (rc == OPT_GO && optind < argc) {
		fprintf(stderr, "%s: %s:%u: '%s' is not an option of '%s %s'\n",
			prog, file, lineno, argv[optind], prog, c->name);
		return 2;
	}
	if (rc == OPT_GO)
		return 0;
	fprintf(stderr, "%s: %s:%u: this line is not valid for '%s %s' (above: why)\n",
		prog, file, lineno, prog, c->name);
	return rc ? rc : 2;
}

void opt_print_line(FILE *f, const struct opt_cmd *c, int argc, char **argv)
{
	int i;

	fprintf(f, "%s %s", prog, c->name);
	for (i = 1; i < argc; i++)
		fprintf(f, " %s", argv[i]);
	fputc('\n', f);
}
