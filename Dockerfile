# Multi-stage build: compile in the Rust image, run in a slim Debian as a
# non-root user with the data (sled store, signing key, mail files) on a volume.
FROM rust:1-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked --bin runestone

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /data runestone \
    && mkdir -p /data && chown runestone /data
COPY --from=build /src/target/release/runestone /usr/local/bin/runestone
USER runestone
WORKDIR /data
VOLUME ["/data"]
ENV RUNESTONE__SERVER__HOST=0.0.0.0 \
    RUNESTONE__STORAGE__PATH=/data
EXPOSE 8080
HEALTHCHECK CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/8080"]
ENTRYPOINT ["runestone"]
CMD ["serve"]
