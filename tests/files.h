/* Reading a file a test compares with or a tool wrote: the whole of it, NUL-terminated. */
#ifndef TESTS_FILES_H
#define TESTS_FILES_H
#include <stdio.h>
#include <stdlib.h>

/* The file at PATH and its length in *LEN (when LEN is not NULL); NULL when it cannot be read. */
static inline char *files_read(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    char *buf = NULL;
    size_t n = 0;
    FILE *mem = open_memstream(&buf, &n);
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, fp)) > 0)
        fwrite(chunk, 1, got, mem);
    fclose(mem);
    fclose(fp);
    if (len)
        *len = n;
    return buf;
}

#endif
