/* A row's form as the user reads it, on machines built by hand: the entry its key found where
 * that names the form, else the decoder's key; and the note saying which entry times it. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include "analysis/result.h"
#include "insn.h"

/* An AArch64 machine whose conditional branches share B.cond (L), and with a bare SQADD. */
static const struct mdl_template a64_entries[] = { { .name = "B.cond (L)" }, { .name = "SQADD" },
                                                   { .name = "ADD (X, X, I)" } };
static const struct mdl_machine a64 = { .isa = MDL_ISA_AARCH64, .templates = a64_entries, .n_forms = 3,
                                        .n_templates = 3 };

/* The row of an instruction with key KEY (ALT: its other spelling) found as ENTRY (an index in
 * a64_entries, or none when UNKNOWN) shows FORM (NULL: none) and the note NOTE (NULL: none). */
static void expect_row(const char *key, const char *alt, uint32_t entry, bool unknown, const char *form,
                       const char *note)
{
    struct rt_insn in = { .branch = RT_BR_COND, .unknown = unknown, .tmpl = entry, .form = { entry, RT_NO_INDEX },
                          .rule = RT_NO_INDEX };
    snprintf(in.key, sizeof in.key, "%s", key);
    snprintf(in.alt_key, sizeof in.alt_key, "%s", alt);
    struct result r = { .m = &a64 };
    result_row_from_insn(&r, result_add_row(&r), &in);
    char got[64], why[160];
    const char *shown = result_row_form(&r.rows[0], got, sizeof got);
    if (form)
        cr_expect_str_eq(shown, form, "%s", key);
    else
        cr_expect_null(shown, "%s: a class default has no form", key);
    if (note) {
        cr_assert(result_row_timed_as(&r.rows[0], why, sizeof why), "%s", key);
        cr_expect_str_eq(why, note, "%s", key);
    } else {
        cr_expect_not(result_row_timed_as(&r.rows[0], NULL, 0), "%s: an entry of its own has no note", key);
    }
    result_free(&r);
}

Test(result, a_branch_timed_by_the_entry_of_every_condition_keeps_the_condition_written)
{
    expect_row("B.NE (L)", "B.cond (L)", 0, false, "B.NE (L)",
               "timed as B.cond (L), the description's one entry for every condition");
}

Test(result, a_form_timed_by_a_bare_mnemonic_keeps_its_operands)
{
    expect_row("SQADD (V4S, V4S, V4S)", "", 1, false, "SQADD (V4S, V4S, V4S)",
               "timed as SQADD, the description's one entry for every form of the instruction");
}

Test(result, a_form_with_an_entry_of_its_own_has_no_note)
{
    expect_row("ADD (X, X, I)", "", 2, false, "ADD (X, X, I)", NULL);
}

Test(result, a_class_default_has_no_form)
{
    expect_row("FOO (X)", "", 2, true, NULL, NULL);
}
