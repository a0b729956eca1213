#include "CBuildInfo.h"

#include <curl/curl.h>
#include <openssl/crypto.h>
#include <sqlite3.h>
#include <zlib.h>

// scripts/build-stamp writes this header (commit and UTC date) before release builds and touches this file so it is
// recompiled; a plain `swift build` without it reports "unknown".
#if __has_include("../../.build/build-stamp.h")
#include "../../.build/build-stamp.h"
#endif
#ifndef SWITCHBOARD_GIT_COMMIT
#define SWITCHBOARD_GIT_COMMIT "unknown"
#endif
#ifndef SWITCHBOARD_BUILD_DATE
#define SWITCHBOARD_BUILD_DATE "unknown"
#endif

const char *cbuildinfo_git_commit(void) { return SWITCHBOARD_GIT_COMMIT; }
const char *cbuildinfo_build_date(void) { return SWITCHBOARD_BUILD_DATE; }
const char *cbuildinfo_openssl_version(void) { return OpenSSL_version(OPENSSL_VERSION); }
const char *cbuildinfo_zlib_version(void) { return zlibVersion(); }
const char *cbuildinfo_sqlite_version(void) { return sqlite3_libversion(); }

const char *cbuildinfo_curl_version(void) {
    curl_version_info_data *info = curl_version_info(CURLVERSION_NOW);
    return info ? info->version : "unknown";
}
