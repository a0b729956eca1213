#ifndef SWITCHBOARD_CCURL_H
#define SWITCHBOARD_CCURL_H
// libcurl for Swift: curl_easy_setopt, curl_multi_setopt and curl_easy_getinfo are variadic
// macros/functions Swift cannot call, so each argument type gets a typed inline wrapper.
#include <curl/curl.h>

typedef size_t (*ccurl_data_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode ccurl_easy_set_long(CURL *easy, CURLoption option, long value) {
    return curl_easy_setopt(easy, option, value);
}
static inline CURLcode ccurl_easy_set_string(CURL *easy, CURLoption option, const char *value) {
    return curl_easy_setopt(easy, option, value);
}
static inline CURLcode ccurl_easy_set_pointer(CURL *easy, CURLoption option, void *value) {
    return curl_easy_setopt(easy, option, value);
}
static inline CURLcode ccurl_easy_set_slist(CURL *easy, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(easy, option, value);
}
static inline CURLcode ccurl_easy_set_offset(CURL *easy, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(easy, option, value);
}
static inline CURLcode ccurl_easy_set_callback(CURL *easy, CURLoption option, ccurl_data_callback value) {
    return curl_easy_setopt(easy, option, value);
}
static inline CURLMcode ccurl_multi_set_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}
static inline CURLcode ccurl_easy_get_long(CURL *easy, CURLINFO info, long *value) {
    return curl_easy_getinfo(easy, info, value);
}
static inline CURLcode ccurl_easy_get_pointer(CURL *easy, CURLINFO info, void **value) {
    return curl_easy_getinfo(easy, info, value);
}
static inline CURLcode ccurl_easy_get_offset(CURL *easy, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(easy, info, value);
}

// Constants defined as macros or enum values Swift imports awkwardly.
static const long CCURL_HTTP_VERSION_2TLS = CURL_HTTP_VERSION_2TLS;
static const long CCURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE = CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE;
static const long CCURL_PIPE_MULTIPLEX = CURLPIPE_MULTIPLEX;
static const long CCURL_GLOBAL_DEFAULT = CURL_GLOBAL_DEFAULT;

#endif
