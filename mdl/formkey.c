/* The form-key convention the decoder and mdlc share: operand kinds, Capstone's mnemonics as
 * uops.info names them, and the list of every mnemonic the decoder can produce. */
#include "formkey.h"
#include "isainfo.h"
#include <capstone/capstone.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    enum mdl_isa isa;
} formkey_kinds[FK_COUNT] = {
#define K(isa, id, s) { s, MDL_ISA_##isa },
#include "opkind.def"
#undef K
};

const char *formkey_kind_name(enum formkey_kind k) { return formkey_kinds[k].name; }
enum mdl_isa formkey_kind_isa(enum formkey_kind k) { return formkey_kinds[k].isa; }

enum formkey_kind formkey_kind_find(enum mdl_isa isa, const char *s, enum formkey_kind fallback)
{
    for (int k = 0; k < FK_COUNT; k++)
        if (formkey_kinds[k].isa == isa && strcmp(formkey_kinds[k].name, s) == 0)
            return (enum formkey_kind)k;
    return fallback;
}

const char *formkey_isa_name(enum mdl_isa isa) { return isainfo_get(isa)->title; }

/* ---- mnemonics ---------------------------------------------------------------------------------- */

void formkey_upper_word(const char *printed, char *out, size_t size)
{
    const char *w = strrchr(printed, ' ');
    w = w ? w + 1 : printed;
    size_t i = 0;
    for (; w[i] && i + 1 < size; i++)
        out[i] = (char)toupper((unsigned char)w[i]);
    if (size)
        out[i] = 0;
}

static bool formkey_starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* Capstone spells conditions as AT&T/GNU do (je, cmova); uops.info uses Intel's (JZ, CMOVNBE). */
static void formkey_intel_condition(char *mn, size_t size)
{
    static const char *const prefixes[] = { "CMOV", "SET", "J" };
    static const char *const map[][2] = {
        { "E", "Z" }, { "NE", "NZ" }, { "AE", "NB" }, { "A", "NBE" }, { "GE", "NL" }, { "G", "NLE" },
        { "NAE", "B" }, { "C", "B" }, { "NC", "NB" }, { "NA", "BE" }, { "NGE", "L" }, { "NG", "LE" },
        { "PE", "P" }, { "PO", "NP" },
    };
    for (size_t p = 0; p < sizeof prefixes / sizeof *prefixes; p++) {
        size_t k = strlen(prefixes[p]);
        if (strncmp(mn, prefixes[p], k) != 0)
            continue;
        for (size_t i = 0; i < sizeof map / sizeof *map; i++)
            if (strcmp(mn + k, map[i][0]) == 0) {
                snprintf(mn + k, size - k, "%s", map[i][1]);
                return;
            }
        return;
    }
}

/* Capstone prints the predicate of CMPPS and friends in the name (cmpltps, vcmpeq_uqsd) and
 * drops the immediate; uops.info keeps CMPPS (XMM, XMM, I8). Every name of the shape
 * [V]CMP<predicate><PS|PD|SS|SD> is such a compare (CMPSD, the string compare, has no middle). */
static unsigned formkey_fp_predicate(char *mn, size_t size)
{
    size_t n = strlen(mn), vex = mn[0] == 'V';
    static const char *const types[] = { "PS", "PD", "SS", "SD" };
    if (!formkey_starts(mn + vex, "CMP") || n <= vex + 3 + 2)
        return 0;
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (strcmp(mn + n - 2, types[i]) == 0) {
            snprintf(mn + vex + 3, size - vex - 3, "%s", types[i]);
            return FORMKEY_PREDICATE;
        }
    return 0;
}

/* The same for the integer compares of AVX-512 and XOP (vpcmpltud, vpcomgeb: uops.info's VPCMPUD,
 * VPCOMB), with the predicates Capstone 4 prints (printAVXCC, printXOPCC). VPCMPEQB and VPCMPGTD
 * are instructions of their own and keep their names. */
static unsigned formkey_int_predicate(char *mn, size_t size)
{
    static const char *const preds[] = {
        "EQ", "LT", "LE", "UNORD", "NEQ", "NLT", "NLE", "ORD", "EQ_UQ", "NGE", "NGT", "FALSE", "NEQ_OQ", "GE",
        "GT", "TRUE", "EQ_OS", "LT_OQ", "LE_OQ", "UNORD_S", "NEQ_US", "NLT_UQ", "NLE_UQ", "ORD_S", "EQ_US",
        "NGE_UQ", "NGT_UQ", "FALSE_OS", "NEQ_OS", "GE_OQ", "GT_OQ", "TRUE_US",
    };
    static const char *const types[] = { "UB", "UW", "UD", "UQ", "B", "W", "D", "Q" };
    if (!formkey_starts(mn, "VPCMP") && !formkey_starts(mn, "VPCOM"))
        return 0;
    const char *rest = mn + 5;
    for (size_t p = 0; p < sizeof preds / sizeof *preds; p++) {
        size_t k = strlen(preds[p]);
        for (size_t t = 0; strncmp(rest, preds[p], k) == 0 && t < sizeof types / sizeof *types; t++) {
            bool own = mn[3] == 'M' && strlen(types[t]) == 1 && (strcmp(preds[p], "EQ") == 0 || strcmp(preds[p], "GT") == 0);
            if (strcmp(rest + k, types[t]) == 0 && !own) {
                snprintf(mn + 5, size - 5, "%s", types[t]);
                return FORMKEY_PREDICATE;
            }
        }
    }
    return 0;
}

/* Spellings Capstone 4's printer uses beside its instruction names: the flag-setting forms of
 * AArch64 (ADDS is instruction ADD with its flags updated), the condition of a conditional
 * branch (B.EQ; LLVM's condition names), and x86's XSTORE printed as xstorerng. */
static const char *const formkey_x86_printed[] = { "xstorerng", NULL };
static const char *const formkey_a64_printed[] = {
    "adcs", "adds", "ands", "bics", "sbcs", "subs",
    "b.eq", "b.ne", "b.hs", "b.lo", "b.mi", "b.pl", "b.vs", "b.vc",
    "b.hi", "b.ls", "b.ge", "b.lt", "b.gt", "b.le", "b.al", "b.nv", NULL,
};

/* Other names for the same instruction: on x86-64 uops.info's, where Capstone prints an alias;
 * on AArch64 the condition names Capstone prints, HS and LO, for their synonyms CS and CC. */
static const char *const formkey_x86_renames[][2] = {
    { "MOVABS", "MOV" }, { "SAL", "SHL" },     /* SAL is the /6 alias of SHL */
    { "XLATB", "XLAT" }, { NULL, NULL },
};
static const char *const formkey_a64_renames[][2] = { { "B.CS", "B.HS" }, { "B.CC", "B.LO" }, { NULL, NULL } };

/* The form-key convention of each ISA of mdl/isa.def. */
static const struct {
    const char *const (*renames)[2];
    const char *const *printed;
    bool uops_info;             /* uops.info's names: predicates as immediates, Intel's conditions */
    const char *cond_family;    /* see formkey_cond_family */
    bool dotted;
} formkey_isas[MDL_ISA_COUNT] = {
    [MDL_ISA_X86_64] = { formkey_x86_renames, formkey_x86_printed, true, NULL, false },
    [MDL_ISA_AARCH64] = { formkey_a64_renames, formkey_a64_printed, false, "B.cond", true },
};

const char *formkey_cond_family(enum mdl_isa isa) { return formkey_isas[isa].cond_family; }
bool formkey_dotted(enum mdl_isa isa) { return formkey_isas[isa].dotted; }

static void formkey_rename(enum mdl_isa isa, char *mn, size_t size)
{
    for (const char *const (*r)[2] = formkey_isas[isa].renames; (*r)[0]; r++)
        if (strcmp(mn, (*r)[0]) == 0)
            snprintf(mn, size, "%s", (*r)[1]);
}

unsigned formkey_mnemonic(enum mdl_isa isa, const char *printed, char *out, size_t size)
{
    formkey_upper_word(printed, out, size);
    formkey_rename(isa, out, size);
    if (!formkey_isas[isa].uops_info)
        return 0;
    unsigned flags = formkey_fp_predicate(out, size) | formkey_int_predicate(out, size);
    formkey_intel_condition(out, size);
    return flags;
}

/* ---- the decoder's mnemonics -------------------------------------------------------------------- */

static int formkey_cmp(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static bool formkey_names_add(struct formkey_names *names, size_t *cap, enum mdl_isa isa, const char *printed)
{
    char mn[64];
    formkey_mnemonic(isa, printed, mn, sizeof mn);
    if (names->n == *cap) {
        size_t c = *cap ? 2 * *cap : 1024;
        const char **v = realloc(names->v, c * sizeof *v);
        if (!v)
            return false;
        names->v = v;
        *cap = c;
    }
    return (names->v[names->n++] = strdup(mn)) != NULL;
}

/* Sorts the names and drops repeats (JE and JZ both give JZ). */
static void formkey_names_unique(struct formkey_names *names)
{
    qsort(names->v, names->n, sizeof *names->v, formkey_cmp);
    size_t k = 0;
    for (size_t i = 0; i < names->n; i++) {
        if (k && strcmp(names->v[k - 1], names->v[i]) == 0)
            free((char *)names->v[i]);
        else
            names->v[k++] = names->v[i];
    }
    names->n = k;
}

bool formkey_names_load(enum mdl_isa isa, struct formkey_names *names, char *err, size_t errlen)
{
    const struct isainfo *info = isainfo_get(isa);
    csh cs;
    cs_err e = cs_open(info->cs_arch, info->cs_mode, &cs);
    *names = (struct formkey_names){ 0 };
    if (e != CS_ERR_OK) {
        snprintf(err, errlen, "cannot open the Capstone disassembler: %s", cs_strerror(e));
        return false;
    }
    size_t cap = 0;
    bool ok = true;
    for (unsigned id = 1; ok && id < info->cs_insns; id++) {
        const char *name = cs_insn_name(cs, id);
        ok = !name || formkey_names_add(names, &cap, isa, name);
    }
    for (const char *const *p = formkey_isas[isa].printed; ok && *p; p++)
        ok = formkey_names_add(names, &cap, isa, *p);
    cs_close(&cs);
    if (!ok) {
        formkey_names_free(names);
        snprintf(err, errlen, "out of memory");
        return false;
    }
    formkey_names_unique(names);
    return true;
}

void formkey_names_free(struct formkey_names *names)
{
    for (size_t i = 0; i < names->n; i++)
        free((char *)names->v[i]);
    free(names->v);
    *names = (struct formkey_names){ 0 };
}

bool formkey_names_has(const struct formkey_names *names, const char *mnemonic)
{
    return names->n && bsearch(&mnemonic, names->v, names->n, sizeof *names->v, formkey_cmp) != NULL;
}
