// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost tool: the JSON writer (json.h).
 */
#include <math.h>
#include <string.h>

#include "json.h"

void json_start(struct json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
}

/* The length of the valid UTF-8 sequence at @s, 0 if it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, UTF-16 surrogates, beyond U+10FFFF */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

/*
 * Quotes, backslash and control characters escaped; valid UTF-8 passed
 * as it is; any other byte (not text) as U+FFFD, so the output is always
 * valid UTF-8 and valid JSON.
 */
void json_write_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	fputc('"', f);
	while (*p) {
		if (*p == '"' || *p == '\\') {
			fprintf(f, "\\%c", *p++);
			continue;
		}
		if (*p < 0x20 || *p == 0x7f) {
			switch (*p) {
			case '\n':
				fputs("\\n", f);
				break;
			case '\t':
				fputs("\\t", f);
				break;
			case '\r':
				fputs("\\r", f);
				break;
			default:
				fprintf(f, "\\u%04x", *p);
			}
			p++;
			continue;
		}
		n = utf8_len(p);
		if (!n) {
			fputs("\\ufffd", f);
			p++;
			continue;
		}
		fwrite(p, 1, n, f);
		p += n;
	}
	fputc('"', f);
}

/* The comma, line break and key before a value or an opening. */
static void json_key(struct json *j, const char *key)
{
	unsigned int d = j->depth;

	if (d) {
		if (j->items[d - 1])
			fputc(',', j->f);
		if (j->lines[d - 1])
			fputs("\n  ", j->f);
		else if (j->items[d - 1])
			fputc(' ', j->f);
		j->items[d - 1] = true;
	}
	if (key) {
		json_write_str(j->f, key);
		fputs(": ", j->f);
	}
}

static void json_open(struct json *j, const char *key, char c, bool lines)
{
	json_key(j, key);
	fputc(c, j->f);
	if (j->depth < JSON_DEPTH) {
		j->items[j->depth] = false;
		j->lines[j->depth] = lines;
		j->close[j->depth] = c == '{' ? '}' : ']';
	}
	j->depth++;
}

void json_obj(struct json *j, const char *key)
{
	json_open(j, key, '{', false);
}

void json_arr(struct json *j, const char *key)
{
	json_open(j, key, '[', false);
}

void json_arr_lines(struct json *j, const char *key)
{
	json_open(j, key, '[', true);
}

void json_end(struct json *j)
{
	unsigned int d;

	if (!j->depth)
		return;
	d = --j->depth;
	if (d >= JSON_DEPTH)
		return;		/* nested too deep: a caller's bug */
	if (j->lines[d] && j->items[d])
		fputc('\n', j->f);
	fputc(j->close[d], j->f);
	if (!d) {
		fputc('\n', j->f);
		fflush(j->f);
	}
}

void json_end_all(struct json *j)
{
	while (j->depth)
		json_end(j);
}

void json_str(struct json *j, const char *key, const char *v)
{
	json_key(j, key);
	json_write_str(j->f, v);
}

void json_str_or_null(struct json *j, const char *key, const char *v)
{
	if (v)
		json_str(j, key, v);
	else
		json_null(j, key);
}

void json_u64(struct json *j, const char *key, unsigned long long v)
{
	json_key(j, key);
	fprintf(j->f, "%llu", v);
}

void json_i64(struct json *j, const char *key, long long v)
{
	json_key(j, key);
	fprintf(j->f, "%lld", v);
}

void json_dbl(struct json *j, const char *key, double v, int prec)
{
	json_key(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.*f", prec, v);
	else
		fputs("null", j->f);
}

void json_bool(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	json_key(j, key);
	fputs("null", j->f);
}
