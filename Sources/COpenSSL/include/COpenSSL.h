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

static const int COPENSSL_TLS1_2_VERSION = TLS1_2_VERSION;
static const long COPENSSL_MODE_ENABLE_PARTIAL_WRITE = SSL_MODE_ENABLE_PARTIAL_WRITE;
static const long COPENSSL_MODE_ACCEPT_MOVING_WRITE_BUFFER = SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER;
static const long COPENSSL_MODE_RELEASE_BUFFERS = SSL_MODE_RELEASE_BUFFERS;

#endif
