/* Checks form keys against the decoder's vocabulary and proposes the key it would spell: the
 * same word in the decoder's case, the decoder's name of an alias, or the closest name. */
#include "formcheck.h"
#include "alloc.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "formkey.h"
#include "resolve.h"
#include "suggest.h"

enum { WORD_MAX = 64, KINDS_MAX = 16 };

struct formcheck {
    enum mdl_isa isa;
    struct formkey_names loaded;        /* Capstone's, when opened from it */
    const char **mnemonics;             /* sorted */
    size_t n_mnemonics;
    const char **kinds, **other_kinds;  /* of the ISA, of the other ISA */
    size_t n_kinds, n_other;
};

static int formcheck_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The spellings of mdl/opkind.def that belong (or not) to ISA. */
static const char **formcheck_isa_kinds(enum mdl_isa isa, bool same, size_t *n)
{
    const char **v = alloc_zeroed(FK_COUNT, sizeof *v);
    *n = 0;
    for (int k = 0; k < FK_COUNT; k++)
        if ((formkey_kind_isa((enum formkey_kind)k) == isa) == same)
            v[(*n)++] = formkey_kind_name((enum formkey_kind)k);
    return v;
}

struct formcheck *formcheck_new(enum mdl_isa isa, const char *const *mnemonics, size_t n_mnemonics,
                                const char *const *kinds, size_t n_kinds)
{
    struct formcheck *fc = alloc_zeroed(1, sizeof *fc);
    fc->isa = isa;
    fc->mnemonics = alloc_zeroed(n_mnemonics + 1, sizeof *fc->mnemonics);
    fc->kinds = alloc_zeroed(n_kinds + 1, sizeof *fc->kinds);
    fc->other_kinds = formcheck_isa_kinds(isa, false, &fc->n_other);
    memcpy(fc->mnemonics, mnemonics, n_mnemonics * sizeof *mnemonics);
    memcpy(fc->kinds, kinds, n_kinds * sizeof *kinds);
    fc->n_mnemonics = n_mnemonics;
    fc->n_kinds = n_kinds;
    qsort(fc->mnemonics, n_mnemonics, sizeof *fc->mnemonics, formcheck_cmp);
    return fc;
}

struct formcheck *formcheck_open(enum mdl_isa isa, char *err, size_t errlen)
{
    struct formkey_names names;
    if (!formkey_names_load(isa, &names, err, errlen))
        return NULL;
    size_t n_kinds;
    const char **kinds = formcheck_isa_kinds(isa, true, &n_kinds);
    struct formcheck *fc = formcheck_new(isa, names.v, names.n, kinds, n_kinds);
    free(kinds);
    fc->loaded = names;
    return fc;
}

void formcheck_free(struct formcheck *fc)
{
    if (!fc)
        return;
    formkey_names_free(&fc->loaded);
    free(fc->mnemonics);
    free(fc->kinds);
    free(fc->other_kinds);
    free(fc);
}

/* ---- mnemonics ---------------------------------------------------------------------------------- */

static bool formcheck_has(const struct formcheck *fc, const char *mn)
{
    return fc->n_mnemonics && bsearch(&mn, fc->mnemonics, fc->n_mnemonics, sizeof *fc->mnemonics, formcheck_cmp);
}

/* The key for every conditional branch without one of its own (AArch64's B.cond: the decoder's
 * alt_key, runtime/classify.c). */
static bool formcheck_b_cond(const struct formcheck *fc, const char *mn)
{
    const char *family = formkey_cond_family(fc->isa);
    return family && strcmp(mn, family) == 0;
}

/* What the classifier matches a decoded mnemonic with (runtime/classify.c): the mnemonic itself,
 * a variant of it (uops.info's ADD_01 and LEA_B_D8; the decoder's ADD_LOCK and VADDPS_Z) and, on
 * AArch64, B.cond. */
static bool formcheck_known(const struct formcheck *fc, const char *mn)
{
    char base[WORD_MAX];
    if (formcheck_has(fc, mn) || formcheck_b_cond(fc, mn))
        return true;
    for (const char *u = strchr(mn, '_'); u; u = strchr(u + 1, '_')) {
        snprintf(base, sizeof base, "%.*s", (int)(u - mn), mn);
        if (formcheck_has(fc, base))
            return true;
    }
    return false;
}

/* Spelt as the decoder spells mnemonics: an upper-case letter, then upper-case letters, digits
 * and '_' (and on AArch64 the '.' of B.EQ). */
static bool formcheck_well_spelt(const struct formcheck *fc, const char *mn)
{
    if (!isupper((unsigned char)mn[0]))
        return false;
    for (const char *c = mn; *c; c++)
        if (!isupper((unsigned char)*c) && !isdigit((unsigned char)*c) && *c != '_' &&
            !(*c == '.' && formkey_dotted(fc->isa)))
            return formcheck_b_cond(fc, mn);
    return true;
}

/* The decoder's spelling closest to MN: its upper case, the name of the alias it spells (JE is
 * JZ, cmpltps is CMPPS), the same letters in another case (B.COND), else the nearest name. */
static const char *formcheck_fix_mnemonic(const struct formcheck *fc, const char *mn, char *buf, size_t size)
{
    formkey_mnemonic(fc->isa, mn, buf, size);
    if (formcheck_known(fc, buf))
        return buf;
    const char *family = formkey_cond_family(fc->isa);
    if (family && strcasecmp(mn, family) == 0)
        return family;
    formkey_upper_word(mn, buf, size);
    return suggest_closest(buf, fc->mnemonics, fc->n_mnemonics);
}

/* ---- operand kinds ------------------------------------------------------------------------------ */

static bool formcheck_in(const char *kind, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(kind, list[i]) == 0)
            return true;
    return false;
}

/* A kind of the ISA in another case (r64: R64; RAX stays), else the closest within a few edits. */
static const char *formcheck_fix_kind(const struct formcheck *fc, const char *kind)
{
    if (strcmp(kind, "*") == 0 || formcheck_in(kind, fc->kinds, fc->n_kinds))
        return kind;
    for (size_t i = 0; i < fc->n_kinds; i++)
        if (strcasecmp(kind, fc->kinds[i]) == 0)
            return fc->kinds[i];
    return formcheck_in(kind, fc->other_kinds, fc->n_other) ? NULL
                                                            : suggest_closest(kind, fc->kinds, fc->n_kinds);
}

/* ---- the verdict -------------------------------------------------------------------------------- */

/* "; did you mean 'ADD (R64, R64)'?" when every part of KEY has a close spelling, else "". */
static void formcheck_suggest(const struct formcheck *fc, const struct formcheck_key *key, char *out, size_t size)
{
    char mn[WORD_MAX];
    const char *m = formcheck_fix_mnemonic(fc, key->mnemonic, mn, sizeof mn);
    out[0] = 0;
    if (!m)
        return;
    size_t n = (size_t)snprintf(out, size, "; did you mean '%s%s", m, key->has_kinds ? " (" : "");
    for (size_t i = 0; i < key->n_kinds && n < size; i++) {
        const char *k = formcheck_fix_kind(fc, key->kinds[i]);
        if (!k) {
            out[0] = 0;
            return;
        }
        n += (size_t)snprintf(out + n, size - n, "%s%s", i ? ", " : "", k);
    }
    if (n < size)
        snprintf(out + n, size - n, "%s'?", key->has_kinds ? ")" : "");
}

static enum formcheck_problem formcheck_first(const struct formcheck *fc, const struct formcheck_key *key,
                                              size_t *at)
{
    if (!formcheck_well_spelt(fc, key->mnemonic))
        return FORMCHECK_MNEMONIC;
    for (*at = 0; *at < key->n_kinds; ++*at) {
        const char *k = key->kinds[*at];
        if (strcmp(k, "*") == 0 || formcheck_in(k, fc->kinds, fc->n_kinds))
            continue;
        return formcheck_in(k, fc->other_kinds, fc->n_other) ? FORMCHECK_OTHER_ISA_KIND : FORMCHECK_KIND;
    }
    return formcheck_known(fc, key->mnemonic) ? FORMCHECK_OK : FORMCHECK_UNKNOWN;
}

void formcheck_key(const struct formcheck *fc, const struct formcheck_key *key, struct formcheck_verdict *v)
{
    v->kind = 0;
    v->problem = formcheck_first(fc, key, &v->kind);
}

void formcheck_message(const struct formcheck *fc, const struct formcheck_key *key,
                       const struct formcheck_verdict *v, char *out, size_t size)
{
    const char *isa = formkey_isa_name(fc->isa);
    const char *kind = v->kind < key->n_kinds ? key->kinds[v->kind] : "", *other = "other";
    for (unsigned i = 0; i < MDL_ISA_COUNT; i++)    /* the ISA whose kind it is */
        if (i != fc->isa && formkey_kind_find((enum mdl_isa)i, kind, FK_COUNT) != FK_COUNT)
            other = formkey_isa_name((enum mdl_isa)i);
    char mean[256];
    formcheck_suggest(fc, key, mean, sizeof mean);
    switch (v->problem) {
    case FORMCHECK_OK:
        snprintf(out, size, "'%s' is a form key the decoder spells", key->mnemonic);
        break;
    case FORMCHECK_MNEMONIC:
        snprintf(out, size, "'%s' is not an %s mnemonic%s", key->mnemonic, isa, mean);
        break;
    case FORMCHECK_KIND:
        snprintf(out, size, "'%s' is not an %s operand kind%s", kind, isa, mean);
        break;
    case FORMCHECK_OTHER_ISA_KIND:
        snprintf(out, size, "'%s' is an %s operand kind, not an %s one", kind, other, isa);
        break;
    case FORMCHECK_UNKNOWN:
        snprintf(out, size, "no %s instruction decodes as '%s': the form never matches%s", isa, key->mnemonic, mean);
        break;
    }
}

bool formcheck_text(const struct formcheck *fc, const char *text, struct formcheck_verdict *v)
{
    char mn[WORD_MAX], kinds[KINDS_MAX][WORD_MAX];
    const char *list[KINDS_MAX];
    struct formcheck_key key = { mn, list, 0, false };
    const char *paren = strstr(text, " (");
    size_t len = paren ? (size_t)(paren - text) : strlen(text);
    if (len >= sizeof mn)
        return false;
    snprintf(mn, sizeof mn, "%.*s", (int)len, text);
    for (const char *p = paren ? paren + 2 : NULL; p && *p && *p != ')'; key.n_kinds++) {
        size_t k = strcspn(p, ",)");
        if (key.n_kinds == KINDS_MAX || k >= WORD_MAX)
            return false;
        snprintf(kinds[key.n_kinds], WORD_MAX, "%.*s", (int)k, p);
        list[key.n_kinds] = kinds[key.n_kinds];
        p += k + (p[k] == ',');
        p += strspn(p, " ");
    }
    key.has_kinds = paren != NULL;
    formcheck_key(fc, &key, v);
    return true;
}
