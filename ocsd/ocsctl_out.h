/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocsctl's output, iproute2's way (include/json_print.h): each field is
 * written once, by one call that prints it as text (with its format) or
 * adds it to the JSON answer under its key, as -j says.  Text may be
 * muted where a command shows less than its reply holds (JSON keeps every
 * part); a text-only or a JSON-only piece says so by passing no key or no
 * format.  Text is printed as it comes; JSON is one object, printed at
 * out_finish.  Strings from the wire are printed with their control bytes
 * escaped: what ocsd or an argument carries never reaches the terminal
 * raw.
 */
#ifndef OCS_OCSCTL_OUT_H
#define OCS_OCSCTL_OUT_H

#include <stdint.h>

#include <jansson.h>

#define OUT_DEPTH 8

struct out {
	int     json, brief;
	int     mute;             /* text off (JSON goes on) */
	json_t *stack[OUT_DEPTH]; /* the open objects and arrays */
	int     depth;
	int     failed; /* out of memory while building */
};

void out_init(struct out *, int json, int brief);
/* JSON: print the whole answer (compact with -br); 0, or 1 after saying
 * why.  Text: nothing to do. */
int out_finish(struct out *);

/* JSON: the whole answer as a string (malloc'd; compact or as -j prints
 * it, with its newline), the out finished; NULL when out of memory. */
char *out_dump(struct out *, int compact);

/* An object or an array under key (NULL inside an array); text: none. */
void out_obj(struct out *, const char *key);
void out_arr(struct out *, const char *key);
void out_end(struct out *);
/* Text only, printf-style; nothing with -j or when muted. */
void out_text(struct out *, const char *fmt, ...)
    __attribute__((__format__(printf, 2, 3)));

/*
 * One field.  key NULL: text only; fmt NULL: JSON only.  The text is
 * fmt with the value (a %s for strings, times, sizes and rates, which
 * are formatted with their units; %u/%llu-style for numbers as given).
 */
void out_str(struct out *, const char *key, const char *fmt, const char *v);
void out_u64(struct out *, const char *key, const char *fmt, uint64_t v);
void out_dbl(struct out *, const char *key, const char *fmt, double v);
void out_bool(struct out *, const char *key, const char *fmt, int v,
              const char *yes, const char *no);
void out_time(struct out *, const char *key, const char *fmt, double s);
void out_size(struct out *, const char *key, const char *fmt, uint64_t b);
void out_null(struct out *, const char *key);
/* A JSON value made elsewhere (a run's record): taken over. */
void out_json(struct out *, const char *key, json_t *v);

/* An error the command ends with: on stderr as "ocsctl: msg", and with
 * -j also as {"error": msg} on stdout (a script reading only stdout
 * sees it).  Control bytes escaped.  Returns 1. */
int out_error(const struct out *, const char *msg);

/* s with control bytes and DEL escaped (\e, \x7f...) into buf. */
const char *out_safe(const char *s, char *buf, size_t len);

#endif
