#ifndef SWITCHBOARD_CBUILDINFO_H
#define SWITCHBOARD_CBUILDINFO_H
// What `switchboard version` reports: the build's git commit and date (from a stamp header the build scripts write,
// "unknown" without one) and the versions of the C libraries linked at run time.

const char *cbuildinfo_git_commit(void);
const char *cbuildinfo_build_date(void);
const char *cbuildinfo_openssl_version(void);
const char *cbuildinfo_zlib_version(void);
const char *cbuildinfo_sqlite_version(void);
const char *cbuildinfo_curl_version(void);

#endif
