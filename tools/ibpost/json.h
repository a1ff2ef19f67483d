/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost tool: the one JSON writer of every --json output.  It places the
 * commas, the keys and the nesting; strings are escaped, numbers exact.
 * Members are written ", " apart with ": " after a key, as the tests and
 * scripts that grep the output expect.
 */
#ifndef IBPOST_JSON_H
#define IBPOST_JSON_H

#include <stdbool.h>
#include <stdio.h>

#define JSON_DEPTH	16

struct json {
	FILE *f;
	unsigned int depth;
	/* per level: an item written (a comma before the next) */
	bool items[JSON_DEPTH];
	/* per level: items each on a line of their own, indented */
	bool lines[JSON_DEPTH];
	/* per level: '}' or ']' */
	char close[JSON_DEPTH];
};

/* Start a document on @f (an object or array opened next). */
void json_start(struct json *j, FILE *f);
/*
 * Open an object or an array: a member @key of the object around it, or
 * (@key NULL) an item of the array around it or the document itself.
 */
void json_obj(struct json *j, const char *key);
void json_arr(struct json *j, const char *key);
/* An array whose items stand on lines of their own ("\n  " before each). */
void json_arr_lines(struct json *j, const char *key);
/* Close the innermost object or array; at depth 0 end the line, flush. */
void json_end(struct json *j);
/* Close every level still open. */
void json_end_all(struct json *j);

/* Values: members @key of an object, or (@key NULL) array items. */
void json_str(struct json *j, const char *key, const char *v);
/* @v, or null when @v is NULL. */
void json_str_or_null(struct json *j, const char *key, const char *v);
void json_u64(struct json *j, const char *key, unsigned long long v);
void json_i64(struct json *j, const char *key, long long v);
/* @v with @prec digits after the point; NaN and infinities as null. */
void json_dbl(struct json *j, const char *key, double v, int prec);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);

/* @s as a JSON string literal on @f (quotes, escapes, valid UTF-8). */
void json_write_str(FILE *f, const char *s);

#endif
