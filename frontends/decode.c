/* Decoder frontend: Capstone's view of one instruction turned into what the model needs, its
 * data flow, memory accesses, class and form key in the naming of the machine descriptions; what
 * differs by ISA is in its module (frontends/isa/), this is what they share. */
#include "decode.h"
#include "alloc.h"
#include <capstone/capstone.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "decode_impl.h"
#include "formkey.h"
#include "isa.h"

/* ---- small helpers ---------------------------------------------------------------------------- */

static void set_add(uint8_t *set, uint8_t *n, unsigned max, uint8_t r)
{
    if (r == RT_REG_NONE)
        return;
    for (unsigned i = 0; i < *n; i++)
        if (set[i] == r)
            return;
    if (*n < max)
        set[(*n)++] = r;
}

void dec_add_src(struct rt_insn *o, uint8_t r) { set_add(o->src, &o->n_src, RT_MAX_SRC, r); }
void dec_add_dst(struct rt_insn *o, uint8_t r) { set_add(o->dst, &o->n_dst, RT_MAX_DST, r); }
void dec_add_addr(struct rt_insn *o, uint8_t r) { set_add(o->addr, &o->n_addr, 4, r); }

void dec_add_mem(struct rt_insn *o, uint8_t base, uint8_t index, unsigned scale, unsigned size, int64_t disp,
                    bool load, bool store)
{
    if (o->n_mem >= RT_MAX_MEM)
        return;
    struct rt_mem *m = &o->mem[o->n_mem++];
    m->base = base;
    m->index = index;
    m->scale = (uint8_t)(scale ? scale : 1);
    m->size = (uint8_t)(size > 255 ? 255 : size);
    m->disp = disp;
    m->load = load;
    m->store = store;
}

/* Appends what fits: long operand lists are cut, as the disassembly is only shown. */
static void append_trunc(char *dst, size_t size, const char *s)
{
    size_t n = strlen(dst);
    while (*s && n + 1 < size)
        dst[n++] = *s++;
    dst[n] = 0;
}

bool dec_in_list(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0)
            return true;
    return false;
}

bool dec_starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

bool dec_any_prefix(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (dec_starts(s, *list))
            return true;
    return false;
}

bool dec_ends(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The key is written in place: "MNEMONIC (KIND, KIND)", or the bare mnemonic. */
void dec_key_kind(struct rt_insn *o, unsigned *nk, enum formkey_kind kind)
{
    size_t n = strlen(o->key);
    snprintf(o->key + n, sizeof o->key - n, "%s%s", *nk ? ", " : " (", formkey_kind_name(kind));
    (*nk)++;
}

void dec_key_end(struct rt_insn *o, unsigned nk)
{
    size_t n = strlen(o->key);
    if (nk)
        snprintf(o->key + n, sizeof o->key - n, ")");
}

/* ---- canonical registers ---------------------------------------------------------------------- */

bool dec_reg_num(const char *name, const char *prefix, unsigned max, unsigned *n)
{
    size_t k = strlen(prefix);
    if (strncmp(name, prefix, k) != 0 || !isdigit((unsigned char)name[k]))
        return false;
    char *end;
    unsigned long v = strtoul(name + k, &end, 10);
    if (*end || v > max)
        return false;
    *n = (unsigned)v;
    return true;
}

/* Capstone's register numbering differs per architecture; names are stable, so the tables are
 * built from them once. */
static void build_reg_tables(struct dec *d)
{
    for (unsigned r = 1; r < d->info->cs_regs && r < DEC_REGS; r++) {
        const char *name = cs_reg_name(d->cs, r);
        if (name)
            d->ops->reg_info(name, &d->canon[r], &d->rc[r]);
    }
}

uint8_t dec_canon(const struct dec *d, unsigned reg) { return reg < DEC_REGS ? d->canon[reg] : RT_REG_NONE; }
uint8_t dec_rclass(const struct dec *d, unsigned reg) { return reg < DEC_REGS ? d->rc[reg] : DEC_RC_NONE; }

/* A kind with a width, spelt as FMT formats it, when mdl/opkind.def lists it; else FALLBACK, the
 * family's kind without a width (so that every key the decoder spells is one mdlc accepts). */
enum formkey_kind dec_sized_kind(enum mdl_isa isa, enum formkey_kind fallback, const char *fmt, ...)
{
    char s[32];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s, sizeof s, fmt, ap);
    va_end(ap);
    return formkey_kind_find(isa, s, fallback);
}

int dec_lookup_class(const char *mn, const struct dec_name_class *t, bool prefix)
{
    for (; t->name; t++)
        if (prefix ? dec_starts(mn, t->name) : strcmp(mn, t->name) == 0)
            return t->cls;
    return -1;
}

int dec_lookup_exact_prefix(const char *mn, const struct dec_name_class *exact, const struct dec_name_class *prefix)
{
    int k = dec_lookup_class(mn, exact, false);
    return k >= 0 ? k : dec_lookup_class(mn, prefix, true);
}

void dec_mem_rw(const struct rt_insn *o, bool *load, bool *store)
{
    *load = *store = false;
    for (unsigned i = 0; i < o->n_mem; i++) {
        *load |= o->mem[i].load;
        *store |= o->mem[i].store;
    }
}

/* ==== entry points ============================================================================== */

struct dec *dec_open(enum mdl_isa isa, char *err, size_t errlen)
{
    struct dec *d = alloc_zeroed(1, sizeof *d);
    d->isa = isa;
    d->info = isainfo_get(isa);
    d->ops = isa_get(isa);
    if (!d->info || !d->ops) {
        snprintf(err, errlen, "no decoder for ISA %u", (unsigned)isa);
        free(d);
        return NULL;
    }
    cs_err e = cs_open(d->info->cs_arch, d->info->cs_mode, &d->cs);
    if (e != CS_ERR_OK) {
        snprintf(err, errlen, "cannot open the Capstone disassembler: %s", cs_strerror(e));
        free(d);
        return NULL;
    }
    cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
    d->ci = cs_malloc(d->cs);
    if (!d->ci) {
        snprintf(err, errlen, "out of memory");
        cs_close(&d->cs);
        free(d);
        return NULL;
    }
    build_reg_tables(d);
    /* Done here, by whoever opens a decoder first, before any thread of a batch or plugin
     * decodes (see isa.h). */
    if (d->ops->warm_up) {
        const uint8_t *code = d->ops->warm_up;
        size_t size = d->ops->warm_up_len;
        uint64_t addr = 0;
        cs_disasm_iter(d->cs, &code, &size, &addr, d->ci);
    }
    return d;
}

void dec_close(struct dec *d)
{
    if (!d)
        return;
    cs_free(d->ci, 1);
    cs_close(&d->cs);
    free(d);
}

static void hex_error(const uint8_t *bytes, size_t len, uint64_t pc, char *err, size_t errlen)
{
    char hex[64] = "";
    size_t n = 0, shown = len < 15 ? len : 15;
    for (size_t i = 0; i < shown && n + 4 < sizeof hex; i++)
        n += (size_t)snprintf(hex + n, sizeof hex - n, "%s%02x", i ? " " : "", bytes[i]);
    if (!len)
        snprintf(err, errlen, "no bytes to decode at 0x%llx", (unsigned long long)pc);
    else
        snprintf(err, errlen, "cannot decode bytes %s%s at 0x%llx", hex, len > shown ? " ..." : "",
                 (unsigned long long)pc);
}

int dec_one(struct dec *d, const uint8_t *bytes, size_t len, uint64_t pc, struct rt_insn *out, char *err,
            size_t errlen)
{
    const uint8_t *p = bytes;
    size_t left = len;
    uint64_t addr = pc;
    memset(out, 0, sizeof *out);
    if (!len || !cs_disasm_iter(d->cs, &p, &left, &addr, d->ci)) {
        hex_error(bytes, len, pc, err, errlen);
        return 0;
    }
    const cs_insn *ci = d->ci;
    out->pc = pc;
    out->len = (uint8_t)ci->size;
    memcpy(out->bytes, bytes, ci->size < sizeof out->bytes ? ci->size : sizeof out->bytes);
    append_trunc(out->disasm, sizeof out->disasm, ci->mnemonic);
    if (ci->op_str[0]) {
        append_trunc(out->disasm, sizeof out->disasm, " ");
        append_trunc(out->disasm, sizeof out->disasm, ci->op_str);
    }
    d->ops->fill(d, ci, out);
    return (int)ci->size;
}

uint64_t dec_last_target(const struct dec *d, const struct rt_insn *in)
{
    if (in->branch != RT_BR_COND && in->branch != RT_BR_DIRECT)
        return 0;
    return d->ops->direct_target(d->ci);
}
