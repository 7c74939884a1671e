#include "CRE2Shim.h"

#include <re2/re2.h>

#include <cstring>
#include <string>

struct rc_re2 {
    re2::RE2 regex;
    rc_re2(const re2::StringPiece &pattern, const re2::RE2::Options &options) : regex(pattern, options) {}
};

extern "C" rc_re2 *rc_re2_new(const char *pattern, size_t length, char *error, size_t error_capacity) {
    re2::RE2::Options options;
    options.set_encoding(re2::RE2::Options::EncodingUTF8);
    options.set_log_errors(false);  // errors go back to the caller, not to stderr
    auto *compiled = new rc_re2(re2::StringPiece(pattern, length), options);
    if (compiled->regex.ok()) {
        return compiled;
    }
    if (error != nullptr && error_capacity > 0) {
        const std::string &reason = compiled->regex.error();
        size_t count = reason.size() < error_capacity - 1 ? reason.size() : error_capacity - 1;
        std::memcpy(error, reason.data(), count);
        error[count] = '\0';
    }
    delete compiled;
    return nullptr;
}

extern "C" int rc_re2_partial_match(const rc_re2 *regex, const char *text, size_t length) {
    return re2::RE2::PartialMatch(re2::StringPiece(text == nullptr ? "" : text, length), regex->regex) ? 1 : 0;
}

extern "C" void rc_re2_delete(rc_re2 *regex) { delete regex; }
