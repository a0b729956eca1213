#ifndef SWITCHBOARD_COPENSSL_H
#define SWITCHBOARD_COPENSSL_H
// OpenSSL 3 for Swift: the headers plus functions for the macros Swift cannot import.
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/bio.h>
#include <openssl/x509.h>
#include <openssl/pem.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>

static inline long copenssl_ctx_set_min_proto_version(SSL_CTX *ctx, int version) {
    return SSL_CTX_set_min_proto_version(ctx, version);
}
static inline long copenssl_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}
static inline long copenssl_ctx_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }
static inline long copenssl_bio_pending(BIO *bio) { return (long)BIO_ctrl_pending(bio); }
static inline int copenssl_bio_set_mem_eof_return(BIO *bio, int v) { return (int)BIO_set_mem_eof_return(bio, v); }

static inline long copenssl_ctx_set_max_proto_version(SSL_CTX *ctx, int version) {
    return SSL_CTX_set_max_proto_version(ctx, version);
}
static inline long copenssl_ctx_set_options(SSL_CTX *ctx, unsigned long long options) {
    return (long)SSL_CTX_set_options(ctx, (uint64_t)options);
}
static inline long copenssl_ctx_set_session_cache_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_session_cache_mode(ctx, mode);
}
/// Bytes allocated by a memory BIO's buffer (not just the unread part): a drained BIO keeps its
/// high-water allocation, so the engine swaps in a fresh BIO when this grows large.
static inline size_t copenssl_bio_mem_capacity(BIO *bio) {
    BUF_MEM *mem = NULL;
    if (BIO_get_mem_ptr(bio, &mem) <= 0 || mem == NULL) return 0;
    return mem->max;
}

// RFC 8446 §4.2.1 / RFC 5246 §6.2.1 ProtocolVersion values.
static const int COPENSSL_TLS1_1_VERSION = TLS1_1_VERSION;
static const int COPENSSL_TLS1_3_VERSION = TLS1_3_VERSION;
static const unsigned long long COPENSSL_OP_NO_RENEGOTIATION = SSL_OP_NO_RENEGOTIATION;
static const unsigned long long COPENSSL_OP_CIPHER_SERVER_PREFERENCE = SSL_OP_CIPHER_SERVER_PREFERENCE;
static const long COPENSSL_SESS_CACHE_OFF = SSL_SESS_CACHE_OFF;
static const int COPENSSL_TLS1_2_VERSION = TLS1_2_VERSION;
static const long COPENSSL_MODE_ENABLE_PARTIAL_WRITE = SSL_MODE_ENABLE_PARTIAL_WRITE;
static const long COPENSSL_MODE_ACCEPT_MOVING_WRITE_BUFFER = SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER;
static const long COPENSSL_MODE_RELEASE_BUFFERS = SSL_MODE_RELEASE_BUFFERS;

#endif
