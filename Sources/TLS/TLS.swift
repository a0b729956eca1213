import COpenSSL
// Placeholder until the TLS module lands.
