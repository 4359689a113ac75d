-- runestone schema version 1. Every table is keyed first by the game id, so
-- each can be distributed by it (Citus: see ARCHITECTURE.md, "PostgreSQL").

-- One row per game with a log: the seq and hash of its last event. An append
-- moves it with `UPDATE ... WHERE head = expected`, so of two nodes appending
-- to one game at once exactly one wins; the other is told the log moved on.
CREATE TABLE games (
    game      text   NOT NULL,
    head      bigint NOT NULL,
    head_hash text   NOT NULL,
    PRIMARY KEY (game)
);

-- The logs: one row per event, the event in its stored form (store::codec).
CREATE TABLE events (
    game  text   NOT NULL,
    seq   bigint NOT NULL,
    event bytea  NOT NULL,
    PRIMARY KEY (game, seq)
);

-- Side records (game secrets, idempotency answers, outbox, deadline index),
-- written in the same transaction as the events that cause them. `side` is
-- the record kind ('g', 'i', 'o', 'd'); `game` the game the key names, or ''
-- for the node-wide queues whose keys start with a due time. A due outbox
-- or deadline record is claimed by one node (`claimed_until`, taken with
-- FOR UPDATE SKIP LOCKED) and removed once acted on.
CREATE TABLE side_records (
    game          text        NOT NULL,
    side          smallint    NOT NULL,
    key           bytea       NOT NULL,
    value         bytea       NOT NULL,
    claimed_until timestamptz,
    PRIMARY KEY (game, side, key)
);
CREATE INDEX side_records_by_key ON side_records (side, key);

-- Snapshots of positions: a cache, rebuilt from the log when missing.
CREATE TABLE snapshots (
    game     text   NOT NULL,
    seq      bigint NOT NULL,
    snapshot bytea  NOT NULL,
    PRIMARY KEY (game, seq)
);
