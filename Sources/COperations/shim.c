#include "COperations.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdio.h>
#include <unistd.h>
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

const char *coperations_git_commit(void) { return SWITCHBOARD_GIT_COMMIT; }
const char *coperations_build_date(void) { return SWITCHBOARD_BUILD_DATE; }
const char *coperations_openssl_version(void) { return OpenSSL_version(OPENSSL_VERSION); }
const char *coperations_zlib_version(void) { return zlibVersion(); }
const char *coperations_sqlite_version(void) { return sqlite3_libversion(); }

const char *coperations_curl_version(void) {
    curl_version_info_data *info = curl_version_info(CURLVERSION_NOW);
    return info ? info->version : "unknown";
}

static int fail(char *error, unsigned long size, const char *what) {
    unsigned long code = ERR_get_error();
    char detail[256] = "";
    if (code) ERR_error_string_n(code, detail, sizeof detail);
    snprintf(error, size, "%s%s%s", what, code ? ": " : "", detail);
    return -1;
}

static FILE *create(const char *path, mode_t mode) {
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0) return NULL;
    FILE *file = fdopen(fd, "w");
    if (!file) close(fd);
    return file;
}

int coperations_generate_p256(const char *private_path, const char *public_path, char *error, unsigned long error_size) {
    EVP_PKEY *key = EVP_EC_gen("P-256");
    if (!key) return fail(error, error_size, "cannot generate a P-256 key");
    FILE *private_file = create(private_path, 0600);
    if (!private_file) {
        EVP_PKEY_free(key);
        snprintf(error, error_size, "cannot create %s (it must not exist yet)", private_path);
        return -1;
    }
    int ok = PEM_write_PrivateKey(private_file, key, NULL, NULL, 0, NULL, NULL);
    ok = (fclose(private_file) == 0) && ok;
    if (!ok) { EVP_PKEY_free(key); return fail(error, error_size, "cannot write the private key"); }
    FILE *public_file = create(public_path, 0644);
    if (!public_file) {
        EVP_PKEY_free(key);
        snprintf(error, error_size, "cannot create %s (it must not exist yet)", public_path);
        return -1;
    }
    ok = PEM_write_PUBKEY(public_file, key);
    ok = (fclose(public_file) == 0) && ok;
    EVP_PKEY_free(key);
    return ok ? 0 : fail(error, error_size, "cannot write the public key");
}
