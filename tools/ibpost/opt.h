/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost tool: one table of options per command, from which both the
 * getopt_long() tables and the --help text are made (opt.c).
 */
#ifndef IBPOST_OPT_H
#define IBPOST_OPT_H

#include <stdbool.h>
#include <stdio.h>

/* A number macro as a string, for help lines ("default " OPT_STR(N)). */
#define OPT_STR_(x)	#x
#define OPT_STR(x)	OPT_STR_(x)

/* The keys of long-only options start here (above every letter). */
#define OPT_LONG	256

enum {
	OPT_ALIAS = 1 << 0,	/* another spelling of the entry of its key */
	OPT_HIDDEN = 1 << 1,	/* in no help (for tests and scripts) */
	OPT_HELP = 1 << 2,	/* print the help on stdout, exit 0 */
	OPT_VERSION = 1 << 3,	/* print the versions (cmd_version()) */
	OPT_REQUIRED = 1 << 4,	/* the synopsis shows it without [ ] */
	OPT_MANY = 1 << 5,	/* the synopsis shows it repeatable: [...]... */
};

/* One spelling of an option. */
struct opt {
	const char *name;	/* --NAME */
	char letter;		/* -L, 0: none */
	/*
	 * What the handler gets; 0: @letter.  One with a letter of its own
	 * is never another option's letter in the same command (-t of 'blk
	 * map' gives --depth's key 'D').
	 */
	int key;
	const char *arg;	/* the value's name; NULL: it takes none */
	/*
	 * Its help, lines separated by '\n'; of an OPT_ALIAS a note shown
	 * after the spelling ("perftest"), or NULL.
	 */
	const char *help;
	unsigned int flags;
};

/* One command (or subcommand) and its table. */
struct opt_cmd {
	const char *name;		/* "run", "blk map": messages, synopsis */
	const struct opt *opts;
	unsigned int nopts;
	const char *operands;		/* after the options in the synopsis */
	unsigned int col;		/* where the text of an option starts */
	void (*about)(FILE *f);		/* after the synopsis, or NULL */
	void (*tail)(FILE *f);		/* after the options, or NULL */
	/*
	 * Reports an option getopt_long() did not take (@c '?' unknown, ':'
	 * without its value); NULL: getopt_long()'s own message.
	 */
	void (*unknown)(int c, int letter, const char *arg);
	void (*help)(FILE *f);		/* --help; NULL: opt_help() */
};

/* The option (not an alias) whose handler gets @key; NULL: none. */
const struct opt *opt_primary(const struct opt_cmd *c, int key);

/* What opt_parse() returns when the command goes on. */
#define OPT_GO		(-1)

/*
 * The options of @argv into @set(@ctx, key, value), which returns 0, or -1
 * having said what is wrong.  OPT_GO with optind at the first operand, or
 * the exit status: 0 after --help (or --version, its own), 2 after a bad
 * option (with the synopsis when getopt_long() refused it).
 */
int opt_parse(const struct opt_cmd *c, int argc, char **argv,
	      int (*set)(void *ctx, int key, const char *arg), void *ctx);

/*
 * "usage: ibpost NAME [--opt V]... OPERANDS", wrapped; @first: "usage:"
 * or spaces; @brief: the required options only, then "[OPTION]...".
 */
void opt_synopsis(FILE *f, const struct opt_cmd *c, bool first, bool brief);
/* One line per option: "  -L, --NAME ARG   help", aliases after. */
void opt_options(FILE *f, const struct opt_cmd *c);
/* The whole help: synopsis, about, options, tail. */
void opt_help(FILE *f, const struct opt_cmd *c);
/* Fail: the message "try 'ibpost NAME --help'", exit status 2. */
int opt_try(const struct opt_cmd *c);

/*
 * A config file of the services (/etc/ibpost/serve.conf, blk.conf): each
 * line the options of one command line ("--port 18520"), '#' to the end
 * of a line a comment, blank lines skipped.  @line gets each line's words
 * after argv[0] (the file's name) and returns 0 or the exit status that
 * ends the reading.  0, or that status (1 when the file cannot be read).
 */
int opt_config(const char *file,
	       int (*line)(void *ctx, unsigned int lineno, int argc,
			   char **argv),
	       void *ctx);
/* --config FILE and --check-config of a command, where it has them. */
struct opt_conf {
	const char *file;	/* --config FILE, or NULL */
	bool check;		/* --check-config */
	bool in_file;		/* parsing a line of the file */
};

/*
 * --config (@is_file, @arg its value) or --check-config into @oc: 0, or -1
 * having said that they belong on the command line (in the file itself).
 */
int opt_conf_set(struct opt_conf *oc, const struct opt_cmd *c, bool is_file,
		 const char *arg);
/*
 * One line of a config file through opt_parse() (the command line's own
 * checks): 0, or the exit status after saying which line is wrong (an
 * operand, or --help, is not valid there either).
 */
int opt_parse_line(const struct opt_cmd *c, const char *file,
		   unsigned int lineno, int argc, char **argv,
		   int (*set)(void *ctx, int key, const char *arg), void *ctx);
/* "ibpost NAME WORDS...": the command line a config line amounts to. */
void opt_print_line(FILE *f, const struct opt_cmd *c, int argc, char **argv);

/*
 * The values of time and size options, the same words in every command:
 * a time is a decimal number (a fraction allowed) with ns, us, ms, s, m or
 * h, or bare in the option's own unit; a size is a number (0x: hex) with
 * K, M, G or T (1024-based), or bare in the option's own unit.
 */
#define OPT_NS		1ULL			/* time units, in ns */
#define OPT_US		1000ULL
#define OPT_MS		1000000ULL
#define OPT_S		1000000000ULL
#define OPT_B		1ULL			/* size units, in bytes */
#define OPT_MIB		(1ULL << 20)

/* What the help of a time option says of its forms. */
#define OPT_TIME_FORMS	"500ms, 10s, 2m, 1h"
/* ... and of a size option. */
#define OPT_SIZE_FORMS	"4K, 64M, 1G, 1T"

/* One time or size option, for opt_time() and opt_size(). */
struct opt_val {
	const char *cmd;		/* "run", "blk map": the messages' */
	const char *name;		/* "--idle" */
	unsigned long long bare;	/* the unit of a bare number */
	unsigned long long unit;	/* what the value counts, a whole number of */
	unsigned long long max;		/* the largest value, in @unit */
	bool neg;	/* times: a bare negative number is kept as it is */
};

/* "ibpost: CMD: bad NAME 'ARG': WHY" on stderr; -1. */
int opt_bad(const char *cmd, const char *name, const char *arg,
	    const char *why);
/*
 * @s as a time into @out, counted in @v->unit: 0, or -1 having said why
 * not (not a time, too large, not a whole number of the unit).
 */
int opt_time(const struct opt_val *v, const char *s, long long *out);
/* @s as a size into @out, counted in @v->unit: 0, or -1 having said why. */
int opt_size(const struct opt_val *v, const char *s, unsigned long long *out);

#endif
