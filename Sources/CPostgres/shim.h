// libpq's client API (Debian: libpq-dev puts it under /usr/include/postgresql, found through pkg-config libpq).
#include <libpq-fe.h>
