// zlib (Debian's zlib1g-dev; part of macOS's SDK): the gzip form of remembered client answers.
#include <zlib.h>
