// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost tool: the options of a command from its one table (opt.h): the
 * getopt_long() tables, the synopsis and the option lines of --help are
 * all made from it, so they cannot drift apart.  Every command also takes
 * the hidden --list-options: its table, one spelling a line, for the tests
 * (tools/tests/host/cli.sh checks --help against it).  A config file
 * (opt_config()) holds the same options, a line each, for the services.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
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

/*
 * What getopt_long() returned for a short option: its option's key, where
 * that is not its letter ('blk map -t' is its --depth); else @ch as it is.
 * A command's keys are never another option's letter (opt.h).
 */
static int key_of_letter(const struct opt_cmd *c, int ch)
{
	unsigned int i;

	for (i = 0; i < c->nopts; i++)
		if (c->opts[i].letter && c->opts[i].letter == ch &&
		    c->opts[i].key)
			return c->opts[i].key;
	return ch;
}

/* The entry (not an alias) of @key; NULL: none. */
const struct opt *opt_primary(const struct opt_cmd *c, int key)
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
		o = opt_primary(c, key_of(o));
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
		ch = key_of_letter(c, ch);
		p = opt_primary(c, ch);
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

int opt_bad(const char *cmd, const char *name, const char *arg,
	    const char *why)
{
	fprintf(stderr, "%s: %s: bad %s '%s': %s\n", prog, cmd, name, arg, why);
	return -1;
}

/* What a value of @unit counts, in messages. */
static const char *unit_name(unsigned long long unit, bool size)
{
	if (size)
		return unit == OPT_MIB ? "MiB" : "bytes";
	switch (unit) {
	case OPT_NS:
		return "nanoseconds";
	case OPT_US:
		return "microseconds";
	case OPT_MS:
		return "milliseconds";
	default:
		return "seconds";
	}
}

/* Why @s is refused, then the forms a value of @v takes; -1. */
static int val_err(const struct opt_val *v, const char *s, bool size,
		   const char *what)
{
	char why[256];

	if (size)
		snprintf(why, sizeof(why),
			 "%s (a number with K, M, G or T, 1024-based: "
			 OPT_SIZE_FORMS "; a bare number is %s)", what,
			 unit_name(v->bare, true));
	else
		snprintf(why, sizeof(why),
			 "%s (a number with ns, us, ms, s, m or h: "
			 OPT_TIME_FORMS ", 1.5s; a bare number is %s)", what,
			 unit_name(v->bare, false));
	return opt_bad(v->cmd, v->name, s, why);
}

static int val_too_large(const struct opt_val *v, const char *s, bool size)
{
	char why[96];

	snprintf(why, sizeof(why), "too large: at most %llu %s", v->max,
		 unit_name(v->unit, size));
	return opt_bad(v->cmd, v->name, s, why);
}

/* The value @n (in ns or bytes) counted in @v->unit, checked: 0 or -1. */
static int val_in_unit(const struct opt_val *v, const char *s, bool size,
		       unsigned long long n, unsigned long long *out)
{
	char what[64];

	if (n % v->unit) {
		snprintf(what, sizeof(what), "not a whole number of %s",
			 unit_name(v->unit, size));
		return val_err(v, s, size, what);
	}
	n /= v->unit;
	if (n > v->max)
		return val_too_large(v, s, size);
	*out = n;
	return 0;
}

static const struct {
	const char *word;
	unsigned long long ns;
} time_units[] = {
	{ "ns", OPT_NS }, { "us", OPT_US }, { "ms", OPT_MS }, { "s", OPT_S },
	{ "m", 60 * OPT_S }, { "h", 3600 * OPT_S },
};

/* Most digits after the point of a time (nanoseconds of a second). */
#define OPT_FRAC_DIGITS	9

int opt_time(const struct opt_val *v, const char *s, long long *out)
{
	unsigned long long n = 0, frac = 0, pow = 1, mul = v->bare, f, r;
	unsigned int i, digits = 0;
	const char *p = s;
	long long neg;
	char *end;

	if (v->neg && *s == '-' && s[1] >= '0' && s[1] <= '9') {
		/* -1: for ever, and the like: the command checks them */
		errno = 0;
		neg = strtoll(s, &end, 10);
		if (*end)
			return val_err(v, s, false, "not a time");
		if (errno)
			return val_err(v, s, false, "too small");
		*out = neg;
		return 0;
	}
	if (*p < '0' || *p > '9')
		return val_err(v, s, false, "not a time");
	for (; *p >= '0' && *p <= '9'; p++) {
		if (n > (ULLONG_MAX - (*p - '0')) / 10)
			return val_too_large(v, s, false);
		n = n * 10 + (*p - '0');
	}
	if (*p == '.') {
		if (p[1] < '0' || p[1] > '9')
			return val_err(v, s, false, "not a time");
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (digits == OPT_FRAC_DIGITS) {
				/* trailing zeros are fine */
				if (*p != '0')
					return val_err(v, s, false,
						       "more than 9 digits after the point");
				continue;
			}
			frac = frac * 10 + (*p - '0');
			pow *= 10;
			digits++;
		}
	}
	if (*p) {
		for (i = 0; i < ARRAY_SIZE(time_units); i++)
			if (!strcmp(p, time_units[i].word))
				break;
		if (i == ARRAY_SIZE(time_units))
			return val_err(v, s, false, "not a time");
		mul = time_units[i].ns;
	}
	if (n > ULLONG_MAX / mul)
		return val_too_large(v, s, false);
	n *= mul;
	/* frac / pow of @mul: below @mul, exact or not a whole ns */
	if (!(mul % pow)) {
		f = frac * (mul / pow);
	} else {
		/* @mul is ns, us or ms here: frac * mul < 10^15 */
		f = frac * mul / pow;
		r = frac * mul % pow;
		if (r)
			return val_err(v, s, false,
				       "not a whole number of nanoseconds");
	}
	if (n > ULLONG_MAX - f)
		return val_too_large(v, s, false);
	if (val_in_unit(v, s, false, n + f, &r))
		return -1;
	*out = r;	/* at most v->max, which a long long holds */
	return 0;
}

int opt_size(const struct opt_val *v, const char *s, unsigned long long *out)
{
	static const char units[] = "KMGT";
	unsigned long long n, mul = v->bare;
	const char *u;
	char *end;
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');

	if (*s < '0' || *s > '9' || (hex && !isxdigit((unsigned char)s[2])))
		return val_err(v, s, true, "not a size");
	errno = 0;
	n = strtoull(s, &end, hex ? 16 : 10);
	if (errno == ERANGE)
		return val_too_large(v, s, true);
	if (*end) {
		u = strchr(units, toupper((unsigned char)*end));
		if (!u || end[1])
			return val_err(v, s, true, "not a size");
		mul = 1ULL << (10 * (u - units + 1));
	}
	if (n > ULLONG_MAX / mul)
		return val_too_large(v, s, true);
	return val_in_unit(v, s, true, n * mul, out);
}
