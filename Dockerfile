# Switchboard container image: a Swift build stage, then a slim Debian 12 runtime running as a non-root user.
#   podman build -t switchboard .        (or docker build)
#   podman run -p 7420:7420 -v switchboard-data:/var/lib/switchboard switchboard
# The image's configuration (/etc/switchboard/switchboard.toml) is config/switchboard.example.toml listening on
# 0.0.0.0:7420 with its database in the /var/lib/switchboard volume; mount your own file over it for production.
ARG SWIFT_IMAGE=docker.io/library/swift:6.3-bookworm
ARG RUNTIME_IMAGE=docker.io/library/debian:bookworm-slim

FROM ${SWIFT_IMAGE} AS build
RUN apt-get update && apt-get install -y --no-install-recommends libssl-dev zlib1g-dev libsqlite3-dev libcurl4-openssl-dev libpq-dev libhiredis-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN scripts/build-stamp || true \
    && swift build -c release --product switchboard --static-swift-stdlib \
    && install -D -m 0755 "$(swift build -c release --show-bin-path)/switchboard" /out/usr/bin/switchboard \
    && mkdir -p /out/etc/switchboard \
    && sed -e 's|^listen = "127.0.0.1:7420"|listen = "0.0.0.0:7420"|' \
           -e 's|^path = "switchboard.db"|path = "/var/lib/switchboard/switchboard.db"|' \
           config/switchboard.example.toml > /out/etc/switchboard/switchboard.toml

FROM ${RUNTIME_IMAGE}
RUN apt-get update && apt-get install -y --no-install-recommends libssl3 zlib1g libsqlite3-0 libcurl4 libpq5 libhiredis0.14 ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system switchboard \
    && useradd --system --gid switchboard --home-dir /var/lib/switchboard --shell /usr/sbin/nologin switchboard \
    && install -d -o switchboard -g switchboard -m 0750 /var/lib/switchboard
COPY --from=build /out/ /
USER switchboard
WORKDIR /var/lib/switchboard
VOLUME ["/var/lib/switchboard"]
EXPOSE 7420
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s CMD ["/bin/bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/7420 && printf 'GET /readyz HTTP/1.0\\r\\n\\r\\n' >&3 && grep -q ' 200 ' <&3"]
ENTRYPOINT ["/usr/bin/switchboard"]
CMD ["serve", "--config", "/etc/switchboard/switchboard.toml"]
