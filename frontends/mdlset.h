/* --set KEY=VALUE: values of a machine changed for one analysis, written as a description that
 * extends the machine and sets them, which mdlc checks and mdlfile builds and caches as any. */
#ifndef MDLSET_H
#define MDLSET_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "mdl_machine.h"

enum { MDLSET_MAX = 64 };

/* One --set: its argument as given, split at the first '='. LINE: where the description has it. */
struct mdlset_item {
    const char *arg;
    char key[128];
    const char *value;
    unsigned line;
};

struct mdlset {
    struct mdlset_item items[MDLSET_MAX];
    const char *args[MDLSET_MAX];       /* each item's arg: what the report lists */
    unsigned n;
};

/* Adds the --set ARG to S: a KEY=VALUE whose value stays one value of one line (no ';', '{', '}',
 * line end or comment), a key not given before. False with ERR otherwise. */
bool mdlset_add(struct mdlset *s, const char *arg, char *err, size_t errlen);

/* Whether every key of S names a value a description that extends BASE can set: BLOCK.KEY for a
 * key of spec.md §12's frontend, window, memory, branch and strings blocks, cache.NAME.KEY for a
 * cache BASE has, machine.qemu_cpu and machine.description. ERR otherwise, with the closest key. */
bool mdlset_check(const struct mdlset *s, const struct mdl_machine *base, char *err, size_t errlen);

/* The description of BASE with S's values: `machine NAME extends PARENT` (PARENT a path when
 * PARENT_IS_PATH, else a machine's name), each value on a line of its own (S's lines are set).
 * The caller frees it. */
char *mdlset_description(struct mdlset *s, const char *name, const char *parent, bool parent_is_path);

/* "NAME with KEY=VALUE, KEY=VALUE": what the report and the messages call the machine. */
void mdlset_label(const struct mdlset *s, const char *name, char *out, size_t len);

/* mdlc's diagnostics TEXT on the description of S at PATH, to OUT: one at the line of a --set as
 * "mdlsim: KIND: --set KEY=VALUE: MESSAGE", one elsewhere in it as "mdlsim: KIND: LABEL: MESSAGE"
 * (the line of a file the user never wrote means nothing to them), others (in the machine
 * extended) as mdlc wrote them; mdlc's count of errors is left out. False when an error was not
 * at a --set's line: then only mdlc's lines say what was wrong. */
bool mdlset_diagnostics(const struct mdlset *s, const char *label, const char *path, const char *text, FILE *out);

#endif
