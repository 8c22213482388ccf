/* The machine a draft extends, read with mdlc's own resolve and check passes: its cache blocks and
 * the attributes of a form the probe does not measure (a replacement keeps nothing, spec.md 6). */
#ifndef PROBE_BASE_H
#define PROBE_BASE_H
#include <stdbool.h>
#include <stddef.h>

struct base;

/* Reads the base: NAME (NAME.mdl in DIRS, in order) or a path (with a '/' or ending in .mdl).
 * NULL with ERR on failure; the description's own errors go to stderr as mdlc prints them. */
struct base *base_load(const char *name, const char *const *dirs, size_t n_dirs, char *err, size_t errlen);
void base_free(struct base *b);

/* `extends` operand: NAME, or "FILE.mdl" for a path; and the directory mdlc needs with -I. */
const char *base_extends(const struct base *b);
const char *base_dir(const struct base *b);
/* The name of the data or unified cache block of LEVEL, or NULL when the base has none. */
const char *base_cache(const struct base *b, unsigned level);
/* A number of that block (size, ways, line in bytes or a count); 0 when not given. */
double base_cache_value(const struct base *b, unsigned level, const char *key);
/* A number of the singleton block BLOCK ("frontend", "window"); 0 when not given. */
double base_value(const struct base *b, const char *block, const char *key);
/* How many port instances the entry of FORM may use for its uops (the union of its mapping's
 * sets: 4 for `ports 1*p0156`); 0 when the base has no entry for FORM or it names no ports. */
unsigned base_form_ports(const struct base *b, const char *form);
/* The entry of FORM written again without its latency and/or tp, each other attribute with the
 * source that covers it ("uops 1 @uops_skylake ports 1*p1 @uops_skylake"); false when the base
 * has no entry for FORM. */
bool base_form_rest(const struct base *b, const char *form, bool drop_latency, bool drop_tp, char *out,
                    size_t len);

#endif
