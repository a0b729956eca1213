// hiredis, Redis's own C client (Debian: libhiredis-dev, found through pkg-config hiredis).
#include <hiredis/hiredis.h>
