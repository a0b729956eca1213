#ifndef SWITCHBOARD_CZLIB_H
#define SWITCHBOARD_CZLIB_H
// zlib for Swift: deflateInit2/inflateInit2 are macros (they pass ZLIB_VERSION and sizeof(z_stream)).
#include <zlib.h>

static inline int czlib_deflateInit2(z_streamp strm, int level, int windowBits, int memLevel) {
    return deflateInit2(strm, level, Z_DEFLATED, windowBits, memLevel, Z_DEFAULT_STRATEGY);
}
static inline int czlib_inflateInit2(z_streamp strm, int windowBits) {
    return inflateInit2(strm, windowBits);
}

#endif
