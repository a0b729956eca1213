# Switchboard container image: a Swift build stage, then a Debian 12 runtime with only the C libraries, running as a
# non-root user.
#   podman build -t switchboard .        (or docker build; on a Mac: Docker Desktop or podman machine)
#   podman run -p 7420:7420 -v switchboard-data:/var/lib/switchboard switchboard
# The image's configuration (/etc/switchboard/switchboard.toml) is config/switchboard.example.toml listening on
# 0.0.0.0:7420 with its database in the /var/lib/switchboard volume; mount your own file over it for production.
# CI (scripts/container-test) builds the `runtime` stage below from a Debian base made with mmdebstrap and adds the
# files of scripts/image-root built on the host: the same steps as here, without the Swift build image.
ARG SWIFT_IMAGE=docker.io/library/swift:6.3-bookworm
ARG RUNTIME_IMAGE=docker.io/library/debian:bookworm-slim

FROM ${SWIFT_IMAGE} AS build
RUN apt-get update && apt-get install -y --no-install-recommends libssl-dev zlib1g-dev libsqlite3-dev libcurl4-openssl-dev libpq-dev libhiredis-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN (scripts/build-stamp || true) && scripts/image-root /out

FROM ${RUNTIME_IMAGE} AS runtime
# The C and C++ libraries the binary links (its Swift runtime is static; it still needs libstdc++). A base that already has them (CI's) skips apt.
ARG RUNTIME_PACKAGES="libssl3 zlib1g libsqlite3-0 libcurl4 libpq5 libhiredis0.14 libstdc++6 ca-certificates"
RUN if ! dpkg -s $RUNTIME_PACKAGES >/dev/null 2>&1; then \
        apt-get update && apt-get install -y --no-install-recommends $RUNTIME_PACKAGES && rm -rf /var/lib/apt/lists/*; \
    fi \
    && groupadd --system switchboard \
    && useradd --system --gid switchboard --home-dir /var/lib/switchboard --shell /usr/sbin/nologin switchboard \
    && install -d -o switchboard -g switchboard -m 0750 /var/lib/switchboard
USER switchboard
WORKDIR /var/lib/switchboard
VOLUME ["/var/lib/switchboard"]
EXPOSE 7420
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s CMD ["/bin/bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/7420 && printf 'GET /readyz HTTP/1.0\\r\\n\\r\\n' >&3 && grep -q ' 200 ' <&3"]
ENTRYPOINT ["/usr/bin/switchboard"]
CMD ["serve", "--config", "/etc/switchboard/switchboard.toml"]

FROM runtime
COPY --from=build /out/ /
