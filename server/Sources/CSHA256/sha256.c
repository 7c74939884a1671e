// SHA-256 (FIPS 180-4) with the x86 SHA extensions, for the percent buckets of the fetch path: a caller's
// buckets hash a few dozen bytes several times per fetch, where swift-crypto's per-hash context object,
// exclusivity checks and wrappers cost about twice the hashing itself. Other processors report
// `rc_sha256_available() == 0` and the caller uses swift-crypto.

#include "CSHA256.h"

#include <string.h>

#if defined(__x86_64__)

#include <cpuid.h>
#include <immintrin.h>

static const uint32_t roundConstants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

// 1 or 0 once known, -1 before; relaxed atomics, since racing first calls all compute the same answer.
static int available = -1;

int rc_sha256_available(void) {
    int known = __atomic_load_n(&available, __ATOMIC_RELAXED);
    if (known >= 0) return known;
    unsigned a, b, c, d;
    int sha = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 29));
    int vector = __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 9)) && (c & (1u << 19));  // SSSE3, SSE4.1
    known = sha && vector;
    __atomic_store_n(&available, known, __ATOMIC_RELAXED);
    return known;
}

// One 64-byte block into `state` (A..H), four rounds per pair of `sha256rnds2`.
__attribute__((target("sha,sse4.1,ssse3"))) static void compress(uint32_t state[8], const uint8_t block[64]) {
    const __m128i byteSwap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    // The instructions keep the state as ABEF and CDGH.
    __m128i abcd = _mm_loadu_si128((const __m128i *)&state[0]);
    __m128i efgh = _mm_loadu_si128((const __m128i *)&state[4]);
    __m128i cdab = _mm_shuffle_epi32(abcd, 0xB1);
    __m128i hgfe = _mm_shuffle_epi32(efgh, 0x1B);
    __m128i abef = _mm_alignr_epi8(cdab, hgfe, 8);
    __m128i cdgh = _mm_blend_epi16(hgfe, cdab, 0xF0);
    const __m128i abefBefore = abef;
    const __m128i cdghBefore = cdgh;

    // w[i % 4] holds message words 4i..4i+3 once computed.
    __m128i w[4];
    for (int i = 0; i < 16; i++) {
        __m128i words;
        if (i < 4) {
            words = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(block + 16 * i)), byteSwap);
        } else {
            // W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16], four at a time.
            __m128i back4 = w[i % 4], back3 = w[(i + 1) % 4], back2 = w[(i + 2) % 4], back1 = w[(i + 3) % 4];
            __m128i partial = _mm_add_epi32(_mm_sha256msg1_epu32(back4, back3), _mm_alignr_epi8(back1, back2, 4));
            words = _mm_sha256msg2_epu32(partial, back1);
        }
        w[i % 4] = words;
        __m128i message = _mm_add_epi32(words, _mm_loadu_si128((const __m128i *)&roundConstants[4 * i]));
        cdgh = _mm_sha256rnds2_epu32(cdgh, abef, message);
        abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(message, 0x0E));
    }
    abef = _mm_add_epi32(abef, abefBefore);
    cdgh = _mm_add_epi32(cdgh, cdghBefore);

    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, dchg, 0xF0));
    _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(dchg, feba, 8));
}

typedef struct {
    uint32_t state[8];
    uint8_t pending[64];
    size_t pendingLength;
    uint64_t totalLength;
} Hasher;

static void absorb(Hasher *hasher, const uint8_t *bytes, size_t length) {
    hasher->totalLength += length;
    if (hasher->pendingLength > 0) {
        size_t take = 64 - hasher->pendingLength;
        if (take > length) take = length;
        memcpy(hasher->pending + hasher->pendingLength, bytes, take);
        hasher->pendingLength += take;
        bytes += take;
        length -= take;
        if (hasher->pendingLength < 64) return;
        compress(hasher->state, hasher->pending);
        hasher->pendingLength = 0;
    }
    for (; length >= 64; bytes += 64, length -= 64) compress(hasher->state, bytes);
    if (length > 0) {
        memcpy(hasher->pending, bytes, length);
        hasher->pendingLength = length;
    }
}

int rc_sha256_parts(const uint8_t *first, size_t firstLength, const uint8_t *second, size_t secondLength,
                    const uint8_t *third, size_t thirdLength, uint8_t *digest) {
    if (!rc_sha256_available()) return 0;
    Hasher hasher = {
        .state = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19},
        .pendingLength = 0,
        .totalLength = 0,
    };
    if (firstLength > 0) absorb(&hasher, first, firstLength);
    if (secondLength > 0) absorb(&hasher, second, secondLength);
    if (thirdLength > 0) absorb(&hasher, third, thirdLength);

    // Padding: 0x80, zeros to 56 bytes into a block, the length in bits, big-endian.
    uint64_t bits = hasher.totalLength * 8;
    uint8_t tail[128] = {0};
    size_t used = hasher.pendingLength;
    memcpy(tail, hasher.pending, used);
    tail[used] = 0x80;
    size_t tailLength = used < 56 ? 64 : 128;
    for (int i = 0; i < 8; i++) tail[tailLength - 1 - i] = (uint8_t)(bits >> (8 * i));
    compress(hasher.state, tail);
    if (tailLength == 128) compress(hasher.state, tail + 64);

    for (int i = 0; i < 8; i++) {
        digest[4 * i] = (uint8_t)(hasher.state[i] >> 24);
        digest[4 * i + 1] = (uint8_t)(hasher.state[i] >> 16);
        digest[4 * i + 2] = (uint8_t)(hasher.state[i] >> 8);
        digest[4 * i + 3] = (uint8_t)hasher.state[i];
    }
    return 1;
}

#else

int rc_sha256_available(void) { return 0; }

int rc_sha256_parts(const uint8_t *first, size_t firstLength, const uint8_t *second, size_t secondLength,
                    const uint8_t *third, size_t thirdLength, uint8_t *digest) {
    (void)first, (void)firstLength, (void)second, (void)secondLength, (void)third, (void)thirdLength, (void)digest;
    return 0;
}

#endif
