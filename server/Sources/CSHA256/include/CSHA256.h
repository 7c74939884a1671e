#ifndef CSHA256_H
#define CSHA256_H

#include <stddef.h>
#include <stdint.h>

/// Whether `rc_sha256_parts` can hash on this processor (x86-64 with the SHA extensions).
int rc_sha256_available(void);

/// SHA-256 of the concatenation of three byte ranges (any may be empty), written to `digest` (32 bytes).
/// Returns 0, writing nothing, when `rc_sha256_available()` is 0.
int rc_sha256_parts(const uint8_t *first, size_t firstLength, const uint8_t *second, size_t secondLength,
                    const uint8_t *third, size_t thirdLength, uint8_t *digest);

#endif
