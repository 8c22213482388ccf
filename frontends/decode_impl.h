/* What the decoder shares with its ISA modules (frontends/isa/): the decoder's state, register
 * classes, and the helpers that fill struct rt_insn and spell form keys. Not for other callers. */
#ifndef DECODE_IMPL_H
#define DECODE_IMPL_H
#include <capstone/capstone.h>
#include <stdbool.h>
#include <stdint.h>
#include "formkey.h"
#include "insn.h"
#include "mdl_machine.h"

enum { DEC_REGS = 512, DEC_MN_LEN = 32 };

/* What a register is, for its operand kind and for the data-flow rules. */
enum dec_rclass {
    DEC_RC_NONE, DEC_RC_R8L, DEC_RC_R8H, DEC_RC_R16, DEC_RC_R32, DEC_RC_R64, DEC_RC_XMM, DEC_RC_YMM, DEC_RC_ZMM,
    DEC_RC_K, DEC_RC_MM, DEC_RC_ST, DEC_RC_SEG, DEC_RC_BND, DEC_RC_CR, DEC_RC_DR, DEC_RC_IP, DEC_RC_FLAGS,
    DEC_RC_SYS, DEC_RC_X, DEC_RC_W, DEC_RC_XZR, DEC_RC_WZR, DEC_RC_SP, DEC_RC_WSP, DEC_RC_V, DEC_RC_Q, DEC_RC_D,
    DEC_RC_S, DEC_RC_H, DEC_RC_B
};

struct dec {
    csh cs;
    cs_insn *ci;                /* reused by cs_disasm_iter: no allocation per instruction */
    enum mdl_isa isa;
    const struct isainfo *info; /* what differs by ISA: Capstone's arch, the names */
    const struct isa_ops *ops;  /* and what the decoding does (frontends/isa/) */
    uint8_t canon[DEC_REGS];    /* Capstone register -> canonical id */
    uint8_t rc[DEC_REGS];       /* Capstone register -> enum dec_rclass */
};

/* Capstone register REG's canonical id and class (RT_REG_NONE, DEC_RC_NONE for none). */
uint8_t dec_canon(const struct dec *d, unsigned reg);
uint8_t dec_rclass(const struct dec *d, unsigned reg);

/* Register sets of O without duplicates (RT_REG_NONE is never added) and its memory entries. */
void dec_add_src(struct rt_insn *o, uint8_t r);
void dec_add_dst(struct rt_insn *o, uint8_t r);
void dec_add_addr(struct rt_insn *o, uint8_t r);
void dec_add_mem(struct rt_insn *o, uint8_t base, uint8_t index, unsigned scale, unsigned size, int64_t disp,
                 bool load, bool store);

/* The key is written in place: "MNEMONIC (KIND, KIND)", or the bare mnemonic. */
void dec_key_kind(struct rt_insn *o, unsigned *nk, enum formkey_kind kind);
void dec_key_end(struct rt_insn *o, unsigned nk);
/* A kind with a width, spelt as FMT formats it, when mdl/opkind.def lists it; else FALLBACK, the
 * family's kind without a width (so that every key the decoder spells is one mdlc accepts). */
enum formkey_kind dec_sized_kind(enum mdl_isa isa, enum formkey_kind fallback, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Names: in a NULL-ended list, starting with PREFIX, with any prefix of a list, ending with SUFFIX. */
bool dec_in_list(const char *s, const char *const *list);
bool dec_starts(const char *s, const char *prefix);
bool dec_any_prefix(const char *s, const char *const *list);
bool dec_ends(const char *s, const char *suffix);
/* NAME is PREFIX and a number up to MAX, which goes to N. */
bool dec_reg_num(const char *name, const char *prefix, unsigned max, unsigned *n);

/* A mnemonic's class, by its name or a prefix of it (tables end with a NULL name); -1 if none. */
struct dec_name_class {
    const char *name;
    uint8_t cls;
};
int dec_lookup_class(const char *mn, const struct dec_name_class *t, bool prefix);
/* By its whole name in EXACT, else by a prefix in PREFIX; -1 if none. */
int dec_lookup_exact_prefix(const char *mn, const struct dec_name_class *exact, const struct dec_name_class *prefix);
/* Whether O's memory entries load or store. */
void dec_mem_rw(const struct rt_insn *o, bool *load, bool *store);

#endif
