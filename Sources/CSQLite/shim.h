#include <sqlite3.h>
// SQLITE_TRANSIENT is a macro casting -1 to a destructor pointer, which Swift cannot import.
static const sqlite3_destructor_type CSQLITE_TRANSIENT = (sqlite3_destructor_type)-1;
