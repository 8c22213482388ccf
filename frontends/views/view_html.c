/* The HTML view: a self-contained page of an analysis result (the verdict, sensitivity bars and the
 * hottest instructions shaded by their critical share). */
#include "view_html.h"

static void text(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default:
            if ((unsigned char)*s >= 0x20)
                fputc(*s, out);
        }
    }
}

bool view_html(FILE *out, const struct result *r)
{
    fputs("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>mdlsim report</title><style>"
          "body{font:14px sans-serif;margin:2em}td{padding:2px 8px}</style></head><body>\n<h1>mdlsim: ", out);
    text(out, r->m->name);
    fputs(", ", out);
    text(out, r->scope_name ? r->scope_name : "whole run");
    fputs("</h1>\n<p id=\"verdict\">", out);
    text(out, r->verdict.text);
    fputs("</p>\n<table>\n", out);
    for (unsigned i = 0; i < r->n_single; i++) {
        fputs("<tr><td>", out);
        text(out, r->lanes[r->single[i]].label);
        fprintf(out, "</td><td>%.3fx</td></tr>\n", r->lanes[r->single[i]].speedup);
    }
    fputs("</table>\n<table>\n", out);
    for (size_t i = 0; i < r->n_rows && i < 300; i++) {
        const struct result_row *row = &r->rows[r->hot ? r->hot[i] : i];
        fprintf(out, "<tr style=\"background:hsl(0,80%%,%.0f%%)\"><td>%#llx</td><td>", 100 - 45 * row->critical,
                (unsigned long long)row->pc);
        text(out, row->disasm);
        fprintf(out, "</td><td>%llu</td></tr>\n", (unsigned long long)row->executions);
    }
    fputs("</table></body></html>\n", out);
    return !ferror(out);
}
