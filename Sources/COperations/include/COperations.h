#ifndef SWITCHBOARD_COPERATIONS_H
#define SWITCHBOARD_COPERATIONS_H
// What `switchboard version` reports: the build's git commit and date (from a stamp header the build scripts write,
// "unknown" without one) and the versions of the C libraries linked at run time; key generation for `keygen`.

const char *coperations_git_commit(void);
const char *coperations_build_date(void);
const char *coperations_openssl_version(void);
const char *coperations_zlib_version(void);
const char *coperations_sqlite_version(void);
const char *coperations_curl_version(void);

// `switchboard keygen es256`: a new P-256 key pair, written as PEM (private: PKCS#8, created with mode 0600 and
// O_EXCL; public: SubjectPublicKeyInfo). Returns 0, or -1 with a message in `error` (NUL-terminated).
int coperations_generate_p256(const char *private_path, const char *public_path, char *error, unsigned long error_size);

#endif
