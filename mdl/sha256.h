/* SHA-256 (FIPS 180-4): content keys for cached machine builds and checks of what was read. */
#ifndef SHA256_H
#define SHA256_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sha256 {
    uint32_t h[8];
    uint64_t length;            /* bytes hashed so far */
    uint8_t block[64];
    size_t fill;                /* bytes waiting in block */
};

enum { SHA256_BYTES = 32, SHA256_HEX = 2 * SHA256_BYTES + 1 };

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
/* A string and its terminating zero, so that ("ab","c") and ("a","bc") differ. */
void sha256_string(struct sha256 *s, const char *str);
/* What is left to read from FD, to its end; false (errno set) on a read error. */
bool sha256_fd(struct sha256 *s, int fd);
/* The contents of the file at PATH; false (errno set) when it cannot be read. */
bool sha256_file(struct sha256 *s, const char *path);
/* The digest as 64 lower-case hex digits and a zero. */
void sha256_hex(struct sha256 *s, char hex[SHA256_HEX]);
/* The digest of the file at PATH, in hex; false (errno set) when it cannot be read. */
bool sha256_file_hex(const char *path, char hex[SHA256_HEX]);

#endif
