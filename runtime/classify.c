/* Classifier: maps a decoded instruction to the template that models it on one machine, and
 * applies the machine's replacement rules (renamer idioms, fusion of adjacent pairs). */
#include "classify.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_KINDS = 8, KIND_LEN = 24, MN_LEN = 48, KEY_LEN = 160, NONE32 = UINT32_MAX };

/* A form key taken apart: "ADD_01 (R64, R64)" -> ADD_01, {R64, R64}. */
struct form {
    char mn[MN_LEN];
    char kinds[MAX_KINDS][KIND_LEN];
    unsigned nk;
    bool has_kinds;
};

/* A string-keyed hash table whose values are lists of template indices. */
struct slot {
    uint32_t key;               /* offset of the key in the pool, NONE32 when free */
    uint32_t head;              /* first node, NONE32 when empty */
};

struct table {
    struct slot *s;
    uint32_t cap, n;
};

struct node {
    uint32_t tmpl, next;
};

struct cls_index {
    char *pool;
    size_t pool_n, pool_cap;
    struct node *nodes;
    uint32_t n_nodes, cap_nodes;
    bool oom;
    struct table exact;         /* every form name */
    struct table variant;       /* "ADD (R64, R64)" -> ADD_01, ADD_03 (no _LOCK/_REPE/_REPNE) */
    struct table loose;         /* loosened key (see loosen_kind) -> forms and variants */
    struct table wild;          /* "MNEMONIC/N" -> forms with `*` kinds and N operands */
    uint32_t *single_off, *single;  /* per template: single rules, last declared first */
    uint32_t *pair_off, *pair;      /* per template: pair rules it starts, last declared first */
};

/* ---- form keys ---------------------------------------------------------------------------------- */

static bool parse_form(const char *key, struct form *f)
{
    memset(f, 0, sizeof *f);
    const char *paren = strstr(key, " (");
    size_t mn = paren ? (size_t)(paren - key) : strlen(key);
    if (mn >= MN_LEN)
        return false;
    memcpy(f->mn, key, mn);
    if (!paren)
        return true;
    f->has_kinds = true;
    const char *p = paren + 2;
    while (*p && *p != ')') {
        size_t len = strcspn(p, ",)");
        if (f->nk >= MAX_KINDS || len >= KIND_LEN)
            return false;
        memcpy(f->kinds[f->nk++], p, len);
        p += len;
        if (*p == ',')
            p += strspn(p + 1, " ") + 1;
    }
    return true;
}

static void append(char *out, size_t n, const char *s)
{
    size_t len = strlen(out);
    if (len < n)
        snprintf(out + len, n - len, "%s", s);
}

static bool is_imm(const char *k)
{
    return (k[0] == 'I' && (k[1] >= '0' && k[1] <= '9')) || strcmp(k, "0") == 0 || strcmp(k, "1") == 0 ||
           strcmp(k, "I") == 0;
}

static bool is_arrangement(const char *k) { return k[0] == 'V' && k[1] >= '0' && k[1] <= '9'; }

/* The family of a kind: kinds of one family stand in for each other when no form has the exact
 * one (an immediate of another width, another 8-bit register, the fixed-register encoding,
 * another memory width, another vector arrangement, a shifted register for a plain one). */
static const char *loosen_kind(const char *k)
{
    static const char *const same[][2] = {
        { "R8l", "R8" }, { "R8h", "R8" }, { "AL", "R8" }, { "CL", "R8" }, { "AX", "R16" }, { "DX", "R16" },
        { "EAX", "R32" }, { "RAX", "R64" }, { "Rel8", "Rel" }, { "Rel32", "Rel" }, { "XS", "X" }, { "WS", "W" },
    };
    for (size_t i = 0; i < sizeof same / sizeof *same; i++)
        if (strcmp(k, same[i][0]) == 0)
            return same[i][1];
    if (is_imm(k))
        return "I";
    if (k[0] == 'M' && (k[1] == 0 || (k[1] >= '0' && k[1] <= '9') || strncmp(k, "Moffs", 5) == 0))
        return "M";
    if (is_arrangement(k))
        return "V";
    return k;
}

/* MN + the kinds of F (loosened when LOOSE), as a key. */
static void compose(char *out, size_t n, const char *mn, const struct form *f, bool loose)
{
    snprintf(out, n, "%s", mn);
    if (!f->has_kinds)
        return;
    append(out, n, " (");
    for (unsigned i = 0; i < f->nk; i++) {
        if (i)
            append(out, n, ", ");
        append(out, n, loose ? loosen_kind(f->kinds[i]) : f->kinds[i]);
    }
    append(out, n, ")");
}

/* ---- storage ------------------------------------------------------------------------------------ */

static void *grow(struct cls_index *ci, void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return p;
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *q = realloc(p, c * elem);
    if (!q) {
        ci->oom = true;
        return p;
    }
    *cap = c;
    return q;
}

static uint32_t pool_add(struct cls_index *ci, const char *s)
{
    size_t len = strlen(s) + 1;
    ci->pool = grow(ci, ci->pool, &ci->pool_cap, ci->pool_n + len, 1);
    if (ci->oom)
        return NONE32;
    memcpy(ci->pool + ci->pool_n, s, len);
    ci->pool_n += len;
    return (uint32_t)(ci->pool_n - len);
}

static uint32_t hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

/* The slot holding KEY, or the free slot where it would go. */
static uint32_t table_slot(const struct cls_index *ci, const struct table *t, const char *key)
{
    uint32_t i = hash(key) & (t->cap - 1);
    while (t->s[i].key != NONE32 && strcmp(ci->pool + t->s[i].key, key) != 0)
        i = (i + 1) & (t->cap - 1);
    return i;
}

static bool table_init(struct table *t, uint32_t want)
{
    t->cap = 64;
    while (t->cap < want * 2)
        t->cap *= 2;
    t->n = 0;
    t->s = malloc(t->cap * sizeof *t->s);
    if (!t->s)
        return false;
    for (uint32_t i = 0; i < t->cap; i++)
        t->s[i].key = t->s[i].head = NONE32;
    return true;
}

/* Doubles the table when half full, so that probes stay short. */
static void table_grow(struct cls_index *ci, struct table *t)
{
    struct table bigger;
    if (!table_init(&bigger, t->cap)) {
        ci->oom = true;
        return;
    }
    for (uint32_t i = 0; i < t->cap; i++)
        if (t->s[i].key != NONE32)
            bigger.s[table_slot(ci, &bigger, ci->pool + t->s[i].key)] = t->s[i];
    bigger.n = t->n;
    free(t->s);
    *t = bigger;
}

/* Prepends TMPL to KEY's list. */
static void table_add(struct cls_index *ci, struct table *t, const char *key, uint32_t tmpl)
{
    if (!ci->oom && (t->n + 1) * 2 > t->cap)
        table_grow(ci, t);
    if (ci->oom)
        return;
    uint32_t i = table_slot(ci, t, key);
    if (t->s[i].key == NONE32) {
        t->s[i].key = pool_add(ci, key);
        t->n++;
    }
    size_t cap = ci->cap_nodes;
    ci->nodes = grow(ci, ci->nodes, &cap, (size_t)ci->n_nodes + 1, sizeof *ci->nodes);
    ci->cap_nodes = (uint32_t)cap;
    if (ci->oom)
        return;
    ci->nodes[ci->n_nodes] = (struct node){ tmpl, t->s[i].head };
    t->s[i].head = ci->n_nodes++;
}

static uint32_t table_head(const struct cls_index *ci, const struct table *t, const char *key)
{
    return t->cap ? t->s[table_slot(ci, t, key)].head : NONE32;
}

/* ---- building ----------------------------------------------------------------------------------- */

/* Suffix tokens that change what an instruction does, not just how it is encoded: a variant
 * carrying one never stands in for the plain form. */
static bool hard_suffix(const char *suffix)
{
    static const char *const hard[] = { "LOCK", "REPE", "REPNE" };
    char tok[MN_LEN];
    for (const char *p = suffix; *p;) {
        size_t len = strcspn(p, "_");
        snprintf(tok, sizeof tok, "%.*s", (int)len, p);
        for (size_t i = 0; i < 3; i++)
            if (strcmp(tok, hard[i]) == 0)
                return true;
        p += len + (p[len] == '_');
    }
    return false;
}

/* Tokens that name another operand size, masking or encoding: such a variant is taken only when
 * no plainer one exists. */
static bool soft_suffix(const char *suffix)
{
    static const char *const soft[] = { "W", "REX64", "Z", "ER", "SAE", "EVEX", "VEX" };
    char tok[MN_LEN];
    for (const char *p = suffix; *p;) {
        size_t len = strcspn(p, "_");
        snprintf(tok, sizeof tok, "%.*s", (int)len, p);
        for (size_t i = 0; i < sizeof soft / sizeof *soft; i++)
            if (strcmp(tok, soft[i]) == 0)
                return true;
        p += len + (p[len] == '_');
    }
    return false;
}

static bool has_wildcard(const struct form *f)
{
    for (unsigned i = 0; i < f->nk; i++)
        if (strcmp(f->kinds[i], "*") == 0)
            return true;
    return false;
}

static void index_form(struct cls_index *ci, const char *name, uint32_t t)
{
    struct form f;
    char key[KEY_LEN];
    table_add(ci, &ci->exact, name, t);
    if (!parse_form(name, &f))
        return;
    if (has_wildcard(&f)) {
        snprintf(key, sizeof key, "%s/%u", f.mn, f.nk);
        table_add(ci, &ci->wild, key, t);
        return;
    }
    compose(key, sizeof key, f.mn, &f, true);
    table_add(ci, &ci->loose, key, t);
    for (char *u = strchr(f.mn, '_'); u; u = strchr(u + 1, '_')) {
        if (hard_suffix(u + 1))
            continue;
        char base[MN_LEN];
        snprintf(base, sizeof base, "%.*s", (int)(u - f.mn), f.mn);
        compose(key, sizeof key, base, &f, false);
        table_add(ci, &ci->variant, key, t);
        compose(key, sizeof key, base, &f, true);
        table_add(ci, &ci->loose, key, t);
    }
}

/* Rules by the template they start with: SINGLE lists for one-instruction rules, PAIR for pairs. */
static bool index_rules(const struct mdl_machine *m, bool pair, uint32_t **off_out, uint32_t **list_out)
{
    uint32_t n = m->n_templates, total = 0;
    uint32_t *off = calloc((size_t)n + 1, sizeof *off);
    if (!off)
        return false;
    for (uint32_t r = 0; r < m->n_replaces; r++)
        for (uint32_t k = 0; (m->replaces[r].pair != 0) == pair && k < m->replaces[r].first_count; k++)
            if (m->match[m->replaces[r].first + k] < n)
                off[m->match[m->replaces[r].first + k] + 1]++, total++;
    for (uint32_t t = 0; t < n; t++)
        off[t + 1] += off[t];
    uint32_t *list = malloc(((size_t)total + 1) * sizeof *list), *fill = calloc((size_t)n + 1, sizeof *fill);
    if (!list || !fill) {
        free(off), free(list), free(fill);
        return false;
    }
    for (uint32_t r = m->n_replaces; r-- > 0;)     /* last declared first: it wins */
        for (uint32_t k = 0; (m->replaces[r].pair != 0) == pair && k < m->replaces[r].first_count; k++) {
            uint32_t t = m->match[m->replaces[r].first + k];
            if (t < n)
                list[off[t] + fill[t]++] = r;
        }
    free(fill);
    *off_out = off;
    *list_out = list;
    return true;
}

struct cls_index *cls_build(const struct mdl_machine *m)
{
    struct cls_index *ci = calloc(1, sizeof *ci);
    if (!ci)
        return NULL;
    uint32_t n = m->n_forms;
    bool ok = table_init(&ci->exact, n + 1) && table_init(&ci->variant, n + 1) &&
              table_init(&ci->loose, 2 * n + 1) && table_init(&ci->wild, 16);
    for (uint32_t t = 0; ok && t < n; t++)
        index_form(ci, m->templates[t].name, t);
    ok = ok && !ci->oom && index_rules(m, false, &ci->single_off, &ci->single) &&
         index_rules(m, true, &ci->pair_off, &ci->pair);
    if (!ok) {
        cls_free(ci);
        return NULL;
    }
    return ci;
}

void cls_free(struct cls_index *ci)
{
    if (!ci)
        return;
    free(ci->exact.s), free(ci->variant.s), free(ci->loose.s), free(ci->wild.s);
    free(ci->pool), free(ci->nodes);
    free(ci->single_off), free(ci->single), free(ci->pair_off), free(ci->pair);
    free(ci);
}

/* ---- lookup ------------------------------------------------------------------------------------- */

static int64_t find_exact(const struct cls_index *ci, const char *key)
{
    uint32_t h = table_head(ci, &ci->exact, key);
    return h == NONE32 ? -1 : (int64_t)ci->nodes[h].tmpl;
}

/* The variant first in name order, one without a size/masking/encoding token if there is one. */
static int64_t find_variant(const struct cls_index *ci, const struct mdl_machine *m, const char *key,
                            size_t base_len)
{
    int64_t best = -1;
    bool best_soft = true;
    for (uint32_t h = table_head(ci, &ci->variant, key); h != NONE32; h = ci->nodes[h].next) {
        uint32_t t = ci->nodes[h].tmpl;
        struct form f;
        bool soft = !parse_form(m->templates[t].name, &f) || strlen(f.mn) <= base_len ||
                    soft_suffix(f.mn + base_len + 1);
        if (best < 0 || (best_soft && !soft) || (soft == best_soft && t < best)) {
            best = t;
            best_soft = soft;
        }
    }
    return best;
}

/* A form with `*` kinds covering Q; the one with fewest wildcards, then first in name order. */
static int64_t find_wildcard(const struct cls_index *ci, const struct mdl_machine *m, const struct form *q)
{
    char key[KEY_LEN];
    snprintf(key, sizeof key, "%s/%u", q->mn, q->nk);
    int64_t best = -1;
    unsigned best_stars = MAX_KINDS + 1;
    for (uint32_t h = table_head(ci, &ci->wild, key); h != NONE32; h = ci->nodes[h].next) {
        struct form f;
        uint32_t t = ci->nodes[h].tmpl;
        if (!parse_form(m->templates[t].name, &f))
            continue;
        unsigned stars = 0;
        bool ok = true;
        for (unsigned i = 0; i < f.nk; i++) {
            stars += strcmp(f.kinds[i], "*") == 0;
            ok &= strcmp(f.kinds[i], "*") == 0 || strcmp(f.kinds[i], q->kinds[i]) == 0;
        }
        if (ok && (stars < best_stars || (stars == best_stars && t < best))) {
            best = t;
            best_stars = stars;
        }
    }
    return best;
}

/* How well a form's kind stands in for the instruction's: equal; of one family (another 8-bit
 * register, the fixed-register encoding, a shifted register, a non-zero immediate of another
 * width, an arrangement of the same element size); another immediate; another width of memory
 * or another arrangement, which changes what is moved and so counts least. */
static unsigned kind_score(const char *want, const char *have)
{
    if (strcmp(want, have) == 0)
        return 4;
    if (is_arrangement(want) && is_arrangement(have))
        return want[strlen(want) - 1] == have[strlen(have) - 1] ? 3 : 1;
    if (is_imm(want) && is_imm(have))
        return strcmp(want, "0") != 0 && strcmp(have, "0") != 0 ? 3 : 2;
    if (strcmp(loosen_kind(want), "M") == 0)
        return 1;
    return 3;
}

static int64_t find_loose(const struct cls_index *ci, const struct mdl_machine *m, const struct form *q)
{
    char key[KEY_LEN];
    compose(key, sizeof key, q->mn, q, true);
    int64_t best = -1;
    unsigned best_score = 0;
    for (uint32_t h = table_head(ci, &ci->loose, key); h != NONE32; h = ci->nodes[h].next) {
        struct form f;
        uint32_t t = ci->nodes[h].tmpl;
        if (!parse_form(m->templates[t].name, &f) || f.nk != q->nk)
            continue;
        unsigned score = 1;
        for (unsigned i = 0; i < f.nk; i++)
            score += kind_score(q->kinds[i], f.kinds[i]);
        if (score > best_score || (score == best_score && t < best)) {
            best = t;
            best_score = score;
        }
    }
    return best;
}

/* The same instruction under the other name the decoder gives it (IN->alt_key), else loosened. */
static int64_t find_related(const struct cls_index *ci, const struct mdl_machine *m, const struct rt_insn *in,
                            const struct form *q)
{
    int64_t t = in->alt_key[0] ? find_exact(ci, in->alt_key) : -1;
    return t >= 0 ? t : find_loose(ci, m, q);
}

static int64_t find_form(const struct cls_index *ci, const struct mdl_machine *m, const struct rt_insn *in)
{
    struct form q;
    int64_t t = find_exact(ci, in->key);
    if (t >= 0 || !parse_form(in->key, &q))
        return t;
    t = find_variant(ci, m, in->key, strlen(q.mn));
    if (t < 0)
        t = find_wildcard(ci, m, &q);
    if (t < 0)
        t = find_related(ci, m, in, &q);
    if (t < 0 && q.has_kinds)
        t = find_exact(ci, q.mn);
    return t;
}

static bool has_reg(const uint8_t *set, unsigned n, uint8_t r)
{
    for (unsigned i = 0; i < n; i++)
        if (set[i] == r)
            return true;
    return false;
}

static void add_reg(uint8_t *set, uint8_t *n, unsigned max, uint8_t r)
{
    if (r != RT_REG_NONE && !has_reg(set, *n, r) && *n < max)
        set[(*n)++] = r;
}

/* ---- rules -------------------------------------------------------------------------------------- */

static uint8_t slot_reg(const struct rt_insn *first, const struct rt_insn *second, unsigned slot)
{
    const struct rt_insn *in = slot < 8 ? first : second;
    unsigned i = slot & 7;
    return in && i < in->n_ops ? in->op_reg[i] : RT_REG_NONE;
}

static bool same_holds(const struct mdl_replace *r, const struct rt_insn *first, const struct rt_insn *second)
{
    for (unsigned k = 0; k < r->n_same && k < 8; k++) {
        uint8_t a = slot_reg(first, second, r->same[k][0]), b = slot_reg(first, second, r->same[k][1]);
        if (a == RT_REG_NONE || a != b)
            return false;
    }
    return true;
}

/* The flow of a rule: reads and writes name operand slots; neither means "as without the rule". */
static void apply_flow(const struct mdl_replace *r, struct rt_insn *in)
{
    if (!r->reads && !r->writes)
        return;
    in->n_src = 0;
    for (unsigned s = 0; s < 8; s++)
        if (r->reads & (1u << s))
            add_reg(in->src, &in->n_src, RT_MAX_SRC, slot_reg(in, NULL, s));
}

static void apply_single(const struct cls_index *ci, const struct mdl_machine *m, struct rt_insn *in)
{
    for (uint32_t k = ci->single_off[in->tmpl]; k < ci->single_off[in->tmpl + 1]; k++) {
        const struct mdl_replace *r = &m->replaces[ci->single[k]];
        if (!same_holds(r, in, NULL))
            continue;
        if (r->kind == MDL_REPLACE_NOP)
            in->eliminated = true;
        else if (r->target >= 0)
            in->tmpl = (uint32_t)r->target;
        in->rule = ci->single[k];
        apply_flow(r, in);
        return;
    }
}

/* A `depends` rule: the old value of what the form writes is read too (BSR keeps its destination
 * when the source is zero; POPCNT's false dependency on some cores; a shift by CL keeps the flags
 * when the count is zero). Only registers the instruction writes qualify. */
static void apply_depends(const struct mdl_machine *m, struct rt_insn *in)
{
    uint8_t bits = m->templates[in->tmpl].depends;
    if (bits & (1u << MDL_DEPEND_DESTINATION))
        for (unsigned i = 0; i < in->n_ops && i < RT_MAX_OPS; i++)
            if (has_reg(in->dst, in->n_dst, in->op_reg[i]))
                add_reg(in->src, &in->n_src, RT_MAX_SRC, in->op_reg[i]);
    if ((bits & (1u << MDL_DEPEND_FLAGS)) && has_reg(in->dst, in->n_dst, in->flags_reg))
        add_reg(in->src, &in->n_src, RT_MAX_SRC, in->flags_reg);
}

void cls_apply(const struct cls_index *ci, const struct mdl_machine *m, struct rt_insn *in)
{
    in->unknown = in->eliminated = in->fusible = false;
    in->form[0] = in->form[1] = in->rule = RT_NO_INDEX;
    int64_t t = find_form(ci, m, in);
    if (t < 0) {
        in->tmpl = m->class_default[in->cls < MDL_CLASS_COUNT ? in->cls : MDL_CLASS_GENERIC];
        in->unknown = true;
        return;
    }
    in->tmpl = in->form[0] = (uint32_t)t;
    apply_depends(m, in);
    apply_single(ci, m, in);
    in->fusible = !in->eliminated && ci->pair_off[in->tmpl] < ci->pair_off[in->tmpl + 1];
}

/* ---- pairs -------------------------------------------------------------------------------------- */

static bool in_match(const struct mdl_machine *m, uint32_t first, uint32_t count, uint32_t tmpl)
{
    for (uint32_t k = 0; k < count; k++)
        if (m->match[first + k] == tmpl)
            return true;
    return false;
}

/* "A SEP B" cut to N bytes, keeping SEP even when A is long: it marks a fused entry. */
static void join_text(char *dst, size_t n, const char *a, const char *sep, const char *b)
{
    char tmp[2 * KEY_LEN];
    int room = (int)(n - 1 - strlen(sep)) - 1;
    snprintf(tmp, sizeof tmp, "%.*s%s%s", room, a, sep, b);
    snprintf(dst, n, "%.*s", (int)(n - 1), tmp);
}

/* What FIRST writes and SECOND reads stays inside the pair: it is no source of the result. */
static void merge_flow(struct rt_insn *f, const struct rt_insn *s)
{
    uint8_t written[RT_MAX_DST], nw = f->n_dst;
    memcpy(written, f->dst, sizeof written);
    for (unsigned i = 0; i < s->n_src; i++)
        if (!has_reg(written, nw, s->src[i]))
            add_reg(f->src, &f->n_src, RT_MAX_SRC, s->src[i]);
    for (unsigned i = 0; i < s->n_addr; i++)
        if (!has_reg(written, nw, s->addr[i]))
            add_reg(f->addr, &f->n_addr, 4, s->addr[i]);
    for (unsigned i = 0; i < s->n_dst; i++)
        add_reg(f->dst, &f->n_dst, RT_MAX_DST, s->dst[i]);
    for (unsigned i = 0; i < s->n_mem && f->n_mem < RT_MAX_MEM; i++)
        f->mem[f->n_mem++] = s->mem[i];
}

/* SECOND's bytes after FIRST's, as far as they fit (a fusible pair is shorter than 16 bytes). */
static void merge_bytes(struct rt_insn *f, const struct rt_insn *s)
{
    for (unsigned i = 0; i < s->len && f->len + i < sizeof f->bytes; i++)
        f->bytes[f->len + i] = s->bytes[i];
}

static void merge(const struct mdl_machine *m, uint32_t rule, struct rt_insn *f, const struct rt_insn *s)
{
    const struct mdl_replace *r = &m->replaces[rule];
    merge_flow(f, s);
    merge_bytes(f, s);
    f->form[1] = s->form[0];
    f->rule = rule;
    if (r->target >= 0)
        f->tmpl = (uint32_t)r->target;
    uint8_t tc = m->templates[f->tmpl].cls;
    f->cls = tc != MDL_CLASS_UNSET ? tc : s->branch != RT_BR_NONE ? s->cls : f->cls;
    f->branch = s->branch;
    f->len = (uint8_t)(f->len + s->len);
    f->unknown = f->eliminated = f->fusible = false;
    join_text(f->key, sizeof f->key, f->key, " ++ ", s->key);
    join_text(f->disasm, sizeof f->disasm, f->disasm, "; ", s->disasm);
}

bool cls_fuse(const struct cls_index *ci, const struct mdl_machine *m, struct rt_insn *first,
              const struct rt_insn *second)
{
    /* A pair fuses once: an entry that is already a pair (its key joins two) stays as it is. */
    if (first->unknown || second->unknown || first->eliminated || second->eliminated ||
        second->pc != first->pc + first->len || strstr(first->key, " ++ "))
        return false;
    for (uint32_t k = ci->pair_off[first->tmpl]; k < ci->pair_off[first->tmpl + 1]; k++) {
        const struct mdl_replace *r = &m->replaces[ci->pair[k]];
        if (in_match(m, r->second, r->second_count, second->tmpl) && same_holds(r, first, second)) {
            merge(m, ci->pair[k], first, second);
            return true;
        }
    }
    return false;
}
