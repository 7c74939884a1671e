#ifndef CRE2SHIM_H
#define CRE2SHIM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A compiled RE2 regular expression; immutable and safe to share between threads once built.
typedef struct rc_re2 rc_re2;

/// Compiles `pattern` (UTF-8, RE2 syntax). On failure returns NULL and writes RE2's reason, NUL-terminated
/// and truncated to `error_capacity`, into `error`.
rc_re2 *_Nullable rc_re2_new(const char *_Nonnull pattern, size_t length, char *_Nullable error,
                             size_t error_capacity);

/// 1 when the expression matches somewhere in `text` (unanchored, like JavaScript's `RegExp.test`), else 0.
/// Time is linear in `length`.
int rc_re2_partial_match(const rc_re2 *_Nonnull regex, const char *_Nullable text, size_t length);

/// Frees a compiled expression.
void rc_re2_delete(rc_re2 *_Nullable regex);

#ifdef __cplusplus
}
#endif

#endif
