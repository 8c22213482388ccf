/* --set KEY=VALUE: a machine's values changed for one analysis. The values become a description
 * that extends the machine (spec.md §6: a child's block merges with its parent's key by key), so
 * that mdlc checks them by its own rules and mdlfile builds and caches the result as any --mdl. */
#include "mdlset.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "result.h"
#include "suggest.h"

/* The keys of spec.md §12, from the list mdlc checks them against. STRING: a value in quotes. */
static const struct param {
    const char *block, *key;
    bool string;
} params[] = {
#define X(blk, key, dim, en, lo, hi, fixed, doc) { #blk, #key, MDLSET_DIM_##dim },
#define MDLSET_DIM_STRING true
#define MDLSET_DIM_COUNT false
#define MDLSET_DIM_CYCLES false
#define MDLSET_DIM_BYTES false
#define MDLSET_DIM_BANDWIDTH false
#define MDLSET_DIM_ENUM false
#include "param.def"
#undef X
};
enum { N_PARAMS = sizeof params / sizeof *params };

/* A key, parsed: the block's keyword as a description writes it, the cache's name, the param. */
struct key {
    char block[16];
    char cache[64];                 /* "" but for a cache */
    const struct param *param;
};

/* "window" for WINDOW: param.def names blocks by their enum suffix. */
static void block_word(const char *suffix, char *out, size_t len)
{
    size_t i = 0;
    for (; suffix[i] && i + 1 < len; i++)
        out[i] = (char)tolower((unsigned char)suffix[i]);
    out[i] = '\0';
}

/* Every key a --set may name on BASE, into NAMES (the caller frees them and it): its count. */
static size_t key_names(const struct mdl_machine *base, char ***names)
{
    size_t n = 0;
    *names = alloc_zeroed(N_PARAMS * (base->n_caches + 1u), sizeof **names);
    for (size_t i = 0; i < N_PARAMS; i++) {
        char block[16], name[192];
        block_word(params[i].block, block, sizeof block);
        if (strcmp(block, "machine") == 0 && strcmp(params[i].key, "isa") == 0)
            continue;
        for (unsigned c = 0; c < (strcmp(block, "cache") == 0 ? base->n_caches : 1u); c++) {
            if (strcmp(block, "cache") == 0)
                snprintf(name, sizeof name, "cache.%s.%s", base->caches[c].name, params[i].key);
            else
                snprintf(name, sizeof name, "%s.%s", block, params[i].key);
            (*names)[n++] = alloc_strdup(name);
        }
    }
    return n;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* TEXT split into K: "block.key" or "cache.NAME.key"; false when it is neither shape or names no
 * key of param.def (a cache's name is checked against the machine by key_names). */
static bool parse_key(const char *text, struct key *k)
{
    const char *dot = strchr(text, '.'), *last = strrchr(text, '.');
    *k = (struct key){ 0 };
    if (!dot || (size_t)(dot - text) >= sizeof k->block)
        return false;
    snprintf(k->block, sizeof k->block, "%.*s", (int)(dot - text), text);
    if (strcmp(k->block, "cache") == 0 && (last == dot || (size_t)(last - dot) > sizeof k->cache))
        return false;
    if (strcmp(k->block, "cache") == 0)
        snprintf(k->cache, sizeof k->cache, "%.*s", (int)(last - dot - 1), dot + 1);
    else if (last != dot)
        return false;
    for (size_t i = 0; i < N_PARAMS && !k->param; i++) {
        char block[16];
        block_word(params[i].block, block, sizeof block);
        if (strcmp(block, k->block) == 0 && strcmp(params[i].key, last + 1) == 0)
            k->param = &params[i];
    }
    return k->param != NULL;
}

bool mdlset_add(struct mdlset *s, const char *arg, char *err, size_t errlen)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg) {
        snprintf(err, errlen, "--set takes KEY=VALUE (e.g. window.rob=512), got '%s'", arg);
        return false;
    }
    if ((size_t)(eq - arg) >= sizeof s->items[0].key) {
        snprintf(err, errlen, "--set %.40s...: unknown key of %zu bytes (no key has more than %zu)", arg,
                 (size_t)(eq - arg), sizeof s->items[0].key - 1);
        return false;
    }
    if (!eq[1]) {
        snprintf(err, errlen, "--set %s: no value after '='", arg);
        return false;
    }
    if (s->n == MDLSET_MAX) {
        snprintf(err, errlen, "at most %d --set, got another: '%s'", MDLSET_MAX, arg);
        return false;
    }
    struct mdlset_item *it = &s->items[s->n];
    *it = (struct mdlset_item){ .arg = arg, .value = eq + 1 };
    snprintf(it->key, sizeof it->key, "%.*s", (int)(eq - arg), arg);
    for (unsigned i = 0; i < s->n; i++)
        if (strcmp(s->items[i].key, it->key) == 0) {
            snprintf(err, errlen, "--set %s: %s is set twice ('%s', then '%s'): give it once", arg, it->key,
                     s->items[i].value, it->value);
            return false;
        }
    s->args[s->n++] = arg;
    return true;
}

/* Whether VALUE stays one value on one line of the description: no ';', '{' or '}' to end it, no
 * line end, no comment to hide what follows. ERR names what it holds otherwise. */
static bool one_value(const struct mdlset_item *it, char *err, size_t errlen)
{
    const char *bad = strpbrk(it->value, ";{}\n\r"), *comment = strstr(it->value, "//");
    if (!comment)
        comment = strstr(it->value, "/*");
    if (!bad && !comment)
        return true;
    char what[16];
    if (bad && (*bad == '\n' || *bad == '\r'))
        snprintf(what, sizeof what, "a line end");
    else if (bad)
        snprintf(what, sizeof what, "'%c'", *bad);
    else
        snprintf(what, sizeof what, "'%.2s'", comment);
    snprintf(err, errlen, "--set %s: a value is one number with its unit or one name (spec.md §8); '%s' holds %s",
             it->arg, it->value, what);
    return false;
}

/* The error of KEY, no key of BASE: a key of another block with KEY's last part
 * (window.issue_width: frontend.issue_width), else the closest key (cache.L4.size: cache.L2.size),
 * else what keys are. */
static void unknown_key(const struct mdlset_item *it, const struct mdl_machine *base, char **names, size_t n,
                        char *err, size_t errlen)
{
    const char *close = NULL, *last = strrchr(it->key, '.');
    size_t block = strcspn(it->key, ".");
    for (size_t i = 0; !close && last && i < n; i++)
        if (strcmp(strrchr(names[i], '.'), last) == 0 && strncmp(names[i], it->key, block + 1) != 0)
            close = names[i];
    if (!close)
        close = suggest_closest(it->key, (const char *const *)names, n);
    if (strcmp(it->key, "machine.isa") == 0) {
        snprintf(err, errlen, "--set %s: the isa cannot be changed: the machine's forms are written for its own",
                 it->arg);
        return;
    }
    if (close) {
        snprintf(err, errlen, "--set %s: unknown key '%s'; did you mean '%s'?", it->arg, it->key, close);
        return;
    }
    char caches[256] = "";
    for (size_t c = 0, k = 0; c < base->n_caches && k < sizeof caches; c++)
        k += (size_t)snprintf(caches + k, sizeof caches - k, "%s%s", c ? ", " : "", base->caches[c].name);
    snprintf(err, errlen, "--set %s: unknown key '%s'; a key is BLOCK.KEY for a frontend, window, memory, branch or "
             "strings key, cache.NAME.KEY for a cache of %s (%s), machine.qemu_cpu or machine.description "
             "(spec.md §12)", it->arg, it->key, base->name, base->n_caches ? caches : "none");
}

bool mdlset_check(const struct mdlset *s, const struct mdl_machine *base, char *err, size_t errlen)
{
    char **names;
    size_t n = key_names(base, &names);
    bool ok = true;
    for (unsigned i = 0; ok && i < s->n; i++) {
        const struct mdlset_item *it = &s->items[i];
        struct key k;
        bool known = false;
        for (size_t j = 0; j < n && !known; j++)
            known = strcmp(names[j], it->key) == 0;
        if (!known || !parse_key(it->key, &k)) {
            unknown_key(it, base, names, n, err, errlen);
            ok = false;
        } else if (!k.param->string) {
            ok = one_value(it, err, errlen);
        }
    }
    free_names(names, n);
    return ok;
}

/* A growing text. */
struct text {
    char *s;
    size_t len, cap;
    unsigned lines;                 /* line ends so far */
};

static void put(struct text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        t->cap = 2 * (t->len + n + 1);
        t->s = alloc_resize(t->s, t->cap, 1);
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = '\0';
    for (size_t i = 0; i < n; i++)
        t->lines += s[i] == '\n';
}

static void puts_text(struct text *t, const char *s)
{
    put(t, s, strlen(s));
}

/* S as an MDL string (spec.md §2): in quotes, with its escapes. */
static void put_string(struct text *t, const char *s, size_t n)
{
    puts_text(t, "\"");
    for (size_t i = 0; i < n; i++) {
        const char *esc = s[i] == '"' ? "\\\"" : s[i] == '\\' ? "\\\\" : s[i] == '\n' ? "\\n" : s[i] == '\t' ? "\\t"
                                                                                                              : NULL;
        if (esc)
            puts_text(t, esc);
        else
            put(t, &s[i], 1);
    }
    puts_text(t, "\"");
}

/* A value as a description writes it: a string key's in quotes (given with or without them), a
 * number with its unit apart as the language wants it (a command line's 64KiB is 64 KiB), else as
 * given. */
static void put_value(struct text *t, const struct key *k, const char *v)
{
    static const char *const units[] = { "B", "KiB", "MiB", "GiB", "cycle" };
    size_t n = strlen(v), digits = strspn(v, "0123456789.");
    if (k->param->string) {
        bool quoted = n >= 2 && v[0] == '"' && v[n - 1] == '"';
        put_string(t, v + quoted, n - 2 * quoted);
        return;
    }
    bool unit = false;
    for (size_t i = 0; digits && i < sizeof units / sizeof *units; i++)
        unit |= strncmp(v + digits, units[i], strlen(units[i])) == 0;
    put(t, v, unit ? digits : n);
    if (unit) {
        puts_text(t, " ");
        puts_text(t, v + digits);
    }
}

/* KEY VALUE; on a line of its own, which IT remembers. */
static void put_item(struct text *t, struct mdlset_item *it, const struct key *k)
{
    it->line = t->lines + 1;
    puts_text(t, k->param->key);
    puts_text(t, " ");
    put_value(t, k, it->value);
    puts_text(t, ";\n");
}

/* Whether A and B go in one block. */
static bool same_block(const struct key *a, const struct key *b)
{
    return strcmp(a->block, b->block) == 0 && strcmp(a->cache, b->cache) == 0;
}

char *mdlset_description(struct mdlset *s, const char *name, const char *parent, bool parent_is_path)
{
    struct text t = { 0 };
    struct key *keys = alloc_zeroed(s->n + 1u, sizeof *keys);
    bool *done = alloc_zeroed(s->n + 1u, sizeof *done);
    for (unsigned i = 0; i < s->n; i++)
        parse_key(s->items[i].key, &keys[i]);
    puts_text(&t, "machine ");
    puts_text(&t, name);
    puts_text(&t, " extends ");
    if (parent_is_path)
        put_string(&t, parent, strlen(parent));
    else
        puts_text(&t, parent);
    puts_text(&t, " {\n");
    /* the header's own keys in its braces, then each block once, its keys in the order given */
    for (unsigned i = 0; i < s->n; i++)
        if (strcmp(keys[i].block, "machine") == 0)
            put_item(&t, &s->items[i], &keys[i]), done[i] = true;
    puts_text(&t, "}\n");
    for (unsigned i = 0; i < s->n; i++) {
        if (done[i])
            continue;
        puts_text(&t, keys[i].block);
        if (keys[i].cache[0]) {
            puts_text(&t, " ");
            puts_text(&t, keys[i].cache);
        }
        puts_text(&t, " {\n");
        for (unsigned j = i; j < s->n; j++)
            if (!done[j] && same_block(&keys[i], &keys[j]))
                put_item(&t, &s->items[j], &keys[j]), done[j] = true;
        puts_text(&t, "}\n");
    }
    free(keys);
    free(done);
    return t.s;
}

void mdlset_label(const struct mdlset *s, const char *name, char *out, size_t len)
{
    size_t k = (size_t)snprintf(out, len, "%s", name);
    for (unsigned i = 0; i < s->n && k < len; i++)
        k += (size_t)snprintf(out + k, len - k, "%s%s", i ? ", " : " with ", s->items[i].arg);
    result_printable(out);
}

/* Whether LINE is a diagnostic of mdlc's with a place, "FILE:LINE:COL: KIND: ...": its kind
 * ("error", "warning", "note") in KIND, the message's start in *MSG, its line in *AT. */
static bool diagnostic(const char *line, unsigned *at, char *kind, size_t kindlen, const char **msg)
{
    for (const char *c = strchr(line, ':'); c; c = strchr(c + 1, ':')) {
        char *end;
        unsigned long l = strtoul(c + 1, &end, 10);
        if (end == c + 1 || *end != ':' || !isdigit((unsigned char)end[1]))
            continue;
        end += 1 + strspn(end + 1, "0123456789");
        size_t k = strcspn(end + 2, ":");
        if (end[0] != ':' || end[1] != ' ' || end[2 + k] != ':' || k >= kindlen)
            continue;
        snprintf(kind, kindlen, "%.*s", (int)k, end + 2);
        if (strcmp(kind, "error") && strcmp(kind, "warning") && strcmp(kind, "note"))
            continue;
        *at = (unsigned)l;
        *msg = end + 2 + k + 1 + (end[3 + k] == ' ');
        return true;
    }
    return false;
}

/* Whether LINE is mdlc's last, "N error(s) generated.". */
static bool error_count(const char *line)
{
    size_t digits = strspn(line, "0123456789");
    return digits && (strcmp(line + digits, " error generated.") == 0 || strcmp(line + digits, " errors generated.") == 0);
}

bool mdlset_diagnostics(const struct mdlset *s, const char *label, const char *path, const char *text, FILE *out)
{
    char *copy = alloc_strdup(text), *rest = copy, *line, kind[16];
    size_t plen = strlen(path);
    bool all_set = true, skipping = false;
    while ((line = strsep(&rest, "\n")) && (*line || rest)) {
        unsigned at;
        const char *msg;
        bool placed = diagnostic(line, &at, kind, sizeof kind, &msg);
        bool ours = placed && strncmp(line, path, plen) == 0 && line[plen] == ':';
        if (!placed && ((skipping && strncmp(line, "mdlc: ", 6) != 0) || error_count(line)))
            continue;           /* the source line and caret under one of ours; mdlc's count */
        skipping = ours;
        if (!ours) {
            all_set &= !placed ? strncmp(line, "mdlc: ", 6) != 0 : strcmp(kind, "error") != 0;
            fprintf(out, "%s\n", line);
            continue;
        }
        const struct mdlset_item *it = NULL;
        for (unsigned i = 0; i < s->n && !it; i++)
            if (s->items[i].line == at)
                it = &s->items[i];
        char what[1024];
        snprintf(what, sizeof what, it ? "--set %s" : "%s", it ? it->arg : label);
        all_set &= it || strcmp(kind, "error") != 0;
        fprintf(out, "mdlsim: %s: %s: %s\n", kind, result_printable(what), msg);
    }
    free(copy);
    return all_set;
}
