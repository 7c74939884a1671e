// glibc's allocator (Debian's libc6-dev): `malloc_trim`, which gives memory freed inside the heap back to the
// system. Nothing on other systems, whose allocators return it by themselves.
#if defined(__linux__)
#include <malloc.h>
#endif
