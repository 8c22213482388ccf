/* Form keys: the decoder and mdlc agree on them. Every key the decoder gives on real code (the
 * BHive dev blocks, the .text of the test programs and C libraries, x86-64 and AArch64) passes
 * the check mdlc applies to a description; with one kind or one mnemonic taken out of that
 * vocabulary the same code fails it, so the agreement is not vacuous. Also Capstone's mnemonics
 * as the keys spell them. The tests run with the current directory tests/. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <gelf.h>
#include <glob.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode.h"
#include "formcheck.h"
#include "formkey.h"

enum { SHOWN = 12 };

static const char *const bhive_blocks = "../../shared/data/bhive/blocks-dev.txt";

/* Decoded instructions checked with one vocabulary, and the keys it faulted. */
struct corpus {
    enum mdl_isa isa;
    struct dec *dec;
    const struct formcheck *fc;
    const char *dropped;        /* what the vocabulary lacks: faults naming it are expected */
    size_t checked, failed, unexplained;
    char shown[SHOWN][64];
    size_t n_shown;
};

static void corpus_key(struct corpus *c, const char *key)
{
    struct formcheck_verdict v;
    c->checked++;
    if (formcheck_text(c->fc, key, &v) && v.problem == FORMCHECK_OK)
        return;
    c->failed++;
    c->unexplained += !c->dropped || !strstr(key, c->dropped);
    for (size_t i = 0; i < c->n_shown; i++)
        if (strcmp(c->shown[i], key) == 0)
            return;
    if (c->n_shown < SHOWN)
        snprintf(c->shown[c->n_shown++], sizeof c->shown[0], "%s", key);
}

/* A linear sweep: bytes that start no instruction are stepped over. */
static void corpus_bytes(struct corpus *c, const uint8_t *bytes, size_t n)
{
    struct rt_insn in;
    char err[160];
    for (size_t at = 0; at < n;) {
        int len = dec_one(c->dec, bytes + at, n - at, 0x400000 + at, &in, err, sizeof err);
        at += len > 0 ? (size_t)len : c->isa == MDL_ISA_X86_64 ? 1 : 4;
        if (len > 0)
            corpus_key(c, in.key);
    }
}

/* The .text of the ELF file PATH (malloc'd), or NULL. */
static uint8_t *elf_text(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return NULL;
    elf_version(EV_CURRENT);
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    size_t names;
    uint8_t *out = NULL;
    for (Elf_Scn *s = NULL; e && elf_getshdrstrndx(e, &names) == 0 && !out && (s = elf_nextscn(e, s));) {
        GElf_Shdr sh;
        const char *name = gelf_getshdr(s, &sh) ? elf_strptr(e, names, sh.sh_name) : NULL;
        Elf_Data *d = name && strcmp(name, ".text") == 0 ? elf_getdata(s, NULL) : NULL;
        if (d && d->d_size && (out = malloc(d->d_size))) {
            memcpy(out, d->d_buf, d->d_size);
            *len = d->d_size;
        }
    }
    elf_end(e);
    close(fd);
    return out;
}

static void corpus_elf(struct corpus *c, const char *pattern)
{
    glob_t g;
    if (glob(pattern, 0, NULL, &g) != 0)
        return;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        size_t len = 0;
        uint8_t *text = elf_text(g.gl_pathv[i], &len);
        if (text)
            corpus_bytes(c, text, len);
        free(text);
    }
    globfree(&g);
}

/* One block of hex digits a line. */
static void corpus_hex_lines(struct corpus *c, const char *path)
{
    FILE *fp = fopen(path, "r");
    char line[4096];
    uint8_t bytes[2048];
    while (fp && fgets(line, sizeof line, fp)) {
        size_t n = 0;
        unsigned v;
        for (const char *p = line; n < sizeof bytes && sscanf(p, "%2x", &v) == 1; p += 2)
            bytes[n++] = (uint8_t)v;
        corpus_bytes(c, bytes, n);
    }
    if (fp)
        fclose(fp);
}

/* Real code for ISA: x86-64 the BHive blocks (when the shared data is there), the test programs
 * and the C library they run with; AArch64 a static test program, glibc included. */
static struct corpus check_real_code(enum mdl_isa isa, const struct formcheck *fc, const char *dropped)
{
    char err[200];
    struct corpus c = { .isa = isa, .fc = fc, .dropped = dropped, .dec = dec_open(isa, err, sizeof err) };
    cr_assert(c.dec, "dec_open: %s", err);
    if (isa == MDL_ISA_X86_64) {
        corpus_hex_lines(&c, bhive_blocks);
        corpus_elf(&c, "../build/programs/*.x86");
        corpus_elf(&c, "/lib/x86_64-linux-gnu/libc.so.6");
    } else {
        corpus_elf(&c, "../build/programs/gemm.a64");
        corpus_elf(&c, "/usr/aarch64-linux-gnu/lib/libc.so.6");
    }
    dec_close(c.dec);
    return c;
}

static void expect_agreement(enum mdl_isa isa, size_t at_least)
{
    char err[200];
    struct formcheck *fc = formcheck_open(isa, err, sizeof err);
    cr_assert(fc, "formcheck_open: %s", err);
    struct corpus c = check_real_code(isa, fc, NULL);
    formcheck_free(fc);
    cr_expect_geq(c.checked, at_least, "only %zu %s instructions decoded (is build/programs built?)", c.checked,
                  formkey_isa_name(isa));
    char list[SHOWN * 66] = "";
    for (size_t i = 0; i < c.n_shown; i++)
        strcat(strcat(list, "\n  "), c.shown[i]);
    cr_expect_eq(c.failed, 0, "%zu of %zu decoded %s instructions have a key mdlc refuses:%s", c.failed,
                 c.checked, formkey_isa_name(isa), list);
}

Test(formkey, every_x86_key_the_decoder_gives_on_real_code_passes_mdlcs_check)
{
    expect_agreement(MDL_ISA_X86_64, 20000);
}

Test(formkey, every_aarch64_key_the_decoder_gives_on_real_code_passes_mdlcs_check)
{
    expect_agreement(MDL_ISA_AARCH64, 20000);
}

/* ---- the agreement is not vacuous: an altered vocabulary fails it ------------------------------ */

/* The check with ISA's vocabulary less the kind or mnemonic DROP (the other one of the pair "").
 * Every fault must name DROP. */
static struct corpus check_without(enum mdl_isa isa, const char *drop_kind, const char *drop_mnemonic)
{
    char err[200];
    struct formkey_names names;
    cr_assert(formkey_names_load(isa, &names, err, sizeof err), "%s", err);
    const char *kinds[FK_COUNT], **mnemonics = malloc(names.n * sizeof *mnemonics);
    size_t n_kinds = 0, n_mnemonics = 0;
    for (int k = 0; k < FK_COUNT; k++)
        if (formkey_kind_isa((enum formkey_kind)k) == isa && strcmp(formkey_kind_name((enum formkey_kind)k), drop_kind))
            kinds[n_kinds++] = formkey_kind_name((enum formkey_kind)k);
    for (size_t i = 0; i < names.n; i++)
        if (strcmp(names.v[i], drop_mnemonic) != 0)
            mnemonics[n_mnemonics++] = names.v[i];
    struct formcheck *fc = formcheck_new(isa, mnemonics, n_mnemonics, kinds, n_kinds);
    cr_assert(fc);
    struct corpus c = check_real_code(isa, fc, drop_kind[0] ? drop_kind : drop_mnemonic);
    formcheck_free(fc);
    free(mnemonics);
    formkey_names_free(&names);
    cr_expect_gt(c.failed, 0, "%s without '%s' went unnoticed on %zu instructions", formkey_isa_name(isa),
                 c.dropped, c.checked);
    cr_expect_eq(c.unexplained, 0, "%zu keys faulted for another reason than the missing '%s', such as %s",
                 c.unexplained, c.dropped, c.shown[0]);
    return c;
}

Test(formkey, a_vocabulary_without_a_kind_the_decoder_uses_fails_on_real_code)
{
    check_without(MDL_ISA_X86_64, "R64", "");
    check_without(MDL_ISA_AARCH64, "V4S", "");
}

Test(formkey, a_vocabulary_without_a_mnemonic_the_decoder_uses_fails_on_real_code)
{
    check_without(MDL_ISA_X86_64, "", "MOV");
    check_without(MDL_ISA_AARCH64, "", "RET");
}

/* ---- Capstone's mnemonics as keys spell them ---------------------------------------------------- */

static const char *mnemonic(enum mdl_isa isa, const char *printed, unsigned *flags)
{
    static char out[64];
    *flags = formkey_mnemonic(isa, printed, out, sizeof out);
    return out;
}

Test(formkey, spells_capstones_mnemonics_as_uops_info_names_them)
{
    unsigned f;
    cr_expect_str_eq(mnemonic(MDL_ISA_X86_64, "je", &f), "JZ");
    cr_expect_str_eq(mnemonic(MDL_ISA_X86_64, "cmovae", &f), "CMOVNB");
    cr_expect_str_eq(mnemonic(MDL_ISA_X86_64, "lock add", &f), "ADD");
    cr_expect_str_eq(mnemonic(MDL_ISA_X86_64, "movabs", &f), "MOV");
    cr_expect_str_eq(mnemonic(MDL_ISA_X86_64, "xlatb", &f), "XLAT");
    cr_expect_str_eq(mnemonic(MDL_ISA_X86_64, "cmpsd", &f), "CMPSD");
    cr_expect_eq(f, 0, "the string compare has no predicate");
    cr_expect_str_eq(mnemonic(MDL_ISA_X86_64, "vcmpneq_oqpd", &f), "VCMPPD");
    cr_expect_eq(f, FORMKEY_PREDICATE);
    cr_expect_str_eq(mnemonic(MDL_ISA_AARCH64, "b.eq", &f), "B.EQ");
    cr_expect_str_eq(mnemonic(MDL_ISA_AARCH64, "b.cs", &f), "B.HS");
}

Test(formkey, lists_the_names_capstone_prints_beside_its_instruction_names)
{
    char err[200];
    struct formkey_names x86, a64;
    cr_assert(formkey_names_load(MDL_ISA_X86_64, &x86, err, sizeof err), "%s", err);
    cr_assert(formkey_names_load(MDL_ISA_AARCH64, &a64, err, sizeof err), "%s", err);
    cr_expect(formkey_names_has(&x86, "JZ") && !formkey_names_has(&x86, "JE"), "conditions in Intel's names");
    cr_expect(formkey_names_has(&x86, "CMPPS") && !formkey_names_has(&x86, "CMPLTPS"), "predicates taken out");
    cr_expect(formkey_names_has(&x86, "XSTORERNG"), "printed, not an instruction name");
    cr_expect(formkey_names_has(&a64, "ADDS") && formkey_names_has(&a64, "B.LO"), "printed AArch64 names");
    cr_expect(!formkey_names_has(&a64, "add") && !formkey_names_has(&a64, "B.CC"), "upper case, Capstone's names");
    formkey_names_free(&x86);
    formkey_names_free(&a64);
}

Test(formkey, every_kind_belongs_to_one_isa_and_is_found_by_its_spelling)
{
    for (int k = 0; k < FK_COUNT; k++) {
        enum formkey_kind kind = (enum formkey_kind)k;
        cr_expect_eq(formkey_kind_find(formkey_kind_isa(kind), formkey_kind_name(kind), FK_COUNT), kind,
                     "%s is listed twice for one isa", formkey_kind_name(kind));
    }
}
