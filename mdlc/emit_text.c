/* A human summary of a lowered machine (`mdlc --summary`): what a reader checks first. */
#include "emit.h"
#include "check.h"
#include "isainfo.h"

static const char *const cache_kinds[] = { "data", "instruction", "unified" };

static void summary_resources(FILE *out, const struct mdl_machine *m)
{
    fprintf(out, "  abstract resources (%u):", m->n_resources);
    for (unsigned i = 0; i < m->n_resources; i++)
        fprintf(out, "%s %s/%u", i % 8 ? "" : "\n   ", m->resources[i].name, m->resources[i].width);
    fputc('\n', out);
    for (unsigned i = 0; i < m->n_async; i++)
        fprintf(out, "  asynchronous: %s, %u per cycle\n", m->async[i].name, m->async[i].capacity);
}

/* The values given with a range (spec.md §8.1), which a verdict may depend on. */
static void summary_uncertain(FILE *out, const struct mdl_machine *m)
{
    if (!m->n_uncertain)
        return;
    fprintf(out, "  uncertain values (%u):", m->n_uncertain);
    for (unsigned i = 0; i < m->n_uncertain; i++)
        fprintf(out, "%s %s %g (%g..%g)", i % 4 ? "," : "\n   ", m->uncertain[i].name, (double)m->uncertain[i].value,
                (double)m->uncertain[i].lo, (double)m->uncertain[i].hi);
    fputc('\n', out);
}

void emit_summary(FILE *out, const struct mdl_machine *m)
{
    fprintf(out, "machine %s (%s)%s%s\n", m->name, isainfo_get(m->isa)->name, *m->description ? ": " : "",
            m->description);
    fprintf(out, "  front end: decode %u, issue %u, uop cache %u/cycle, loop buffer %u, IDQ %u\n", m->decode_width,
            m->issue_width, m->uop_cache_width, m->loop_buffer, m->idq);
    if (m->uop_cache_window)
        fprintf(out, "  uop cache: %u uops, %u-byte windows of at most %u ways, %u ways of %u uops a set, "
                "switch %g cycles\n", m->uop_cache_entries, m->uop_cache_window, m->uop_cache_window_ways,
                m->uop_cache_ways, m->uop_cache_line, (double)m->uop_cache_switch);
    fprintf(out, "  window: ROB %u, scheduler %u, load buffer %u, store buffer %u, retire %u, port choice %s, "
            "wakeup delay %g\n", m->rob, m->scheduler, m->load_buffer, m->store_buffer, m->retire_width,
            check_enum_name("PORT_CHOICE", m->port_choice), (double)m->wakeup_delay);
    for (unsigned i = 0; i < m->n_caches; i++) {
        const struct mdl_cache *c = &m->caches[i];
        fprintf(out, "  cache %s: L%u %s, %llu KiB, %u-way, %u B lines, %g cycles, %g B/cycle", c->name, c->level,
                cache_kinds[c->kind], (unsigned long long)(c->size / 1024), c->ways, c->line, (double)c->latency,
                (double)c->bandwidth);
        if (c->outstanding)
            fprintf(out, ", %u misses in flight", c->outstanding);
        fputc('\n', out);
    }
    fprintf(out, "  memory: %g cycles, %g B/cycle; mispredict penalty %g cycles\n", (double)m->memory_latency,
            (double)m->memory_bandwidth, (double)m->mispredict_penalty);
    const struct mdl_strings *st = &m->strings;
    if (st->startup > 0 || st->copy_rate > 0 || st->fill_rate > 0 || st->element_cycles > 0)
        fprintf(out, "  strings: start-up %g cycles (%g up to %u B), copy %g B/cycle (%g unaligned), fill %g "
                "B/cycle, %g cycles per element otherwise\n", (double)st->startup, (double)st->short_startup,
                st->short_max, (double)st->copy_rate, (double)st->unaligned_rate, (double)st->fill_rate,
                (double)st->element_cycles);
    fprintf(out, "  %u instruction forms, %u class defaults, %u replacement rules, %u bypass rules\n", m->n_forms,
            m->n_templates - m->n_forms, m->n_replaces, m->n_bypasses);
    summary_uncertain(out, m);
    summary_resources(out, m);
}
