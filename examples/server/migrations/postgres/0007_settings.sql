-- PostgreSQL version of ../0007_settings.sql.
-- Settings in the store (they were the configuration file's): accounts, the
-- people who sign in, their sessions, API keys, trading partners, webhook
-- endpoints with their signing secrets, the audit log, and the version counter
-- every process polls to reload its copy of the settings.
-- Nothing here is a secret in clear: passwords are argon2id hashes, session ids
-- and API keys SHA-256 hashes, webhook secrets and transport credentials are
-- sealed (XChaCha20-Poly1305) with the operator's secret key.

-- One row: bumped by every settings change (processes reload when it moves), and the
-- check value of the secret key (a sealed constant: a wrong key file is refused at start).
CREATE TABLE settings_state (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    version     BIGINT NOT NULL,
    key_check   BYTEA,
    imported_at BIGINT                                   -- Unix ms of the configuration import
);
INSERT INTO settings_state (id, version) VALUES (1, 0);

CREATE TABLE accounts (
    id         TEXT    PRIMARY KEY,
    created_at BIGINT NOT NULL
);

CREATE TABLE users (
    id            TEXT    PRIMARY KEY,                    -- usr_<uuidv7>
    account       TEXT    NOT NULL REFERENCES accounts (id),
    email         TEXT    NOT NULL UNIQUE,                -- lower case
    password_hash TEXT    NOT NULL,                       -- argon2id PHC string
    role          TEXT    NOT NULL CHECK (role IN ('admin', 'member')),
    created_at    BIGINT NOT NULL,
    last_login_at BIGINT,
    disabled_at   BIGINT
);
CREATE INDEX users_by_account ON users (account, created_at);

-- Failed sign-ins in a row per e-mail address (known or not, so that a lock does not
-- tell which addresses exist), and until when it is locked.
CREATE TABLE login_failures (
    email_hash   TEXT    PRIMARY KEY,                     -- SHA-256 of the lower-case address
    failures     BIGINT NOT NULL,
    locked_until BIGINT,
    updated_at   BIGINT NOT NULL
);

CREATE TABLE sessions (
    id_hash      TEXT    PRIMARY KEY,                     -- SHA-256 of the cookie's session id
    user_id      TEXT    NOT NULL REFERENCES users (id),
    account      TEXT    NOT NULL,
    created_at   BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL,
    expires_at   BIGINT NOT NULL                         -- the absolute limit
);
CREATE INDEX sessions_by_user ON sessions (user_id);

CREATE TABLE api_keys (
    id           TEXT    PRIMARY KEY,                     -- key_<uuidv7>
    account      TEXT    NOT NULL REFERENCES accounts (id),
    name         TEXT    NOT NULL,
    sha256       TEXT    NOT NULL UNIQUE,                 -- hex SHA-256 of the key text
    prefix       TEXT,                                    -- the first characters, for people (NULL: imported hash)
    created_by   TEXT    NOT NULL,                        -- user id, `console` or `configuration`
    created_at   BIGINT NOT NULL,
    last_used_at BIGINT,
    revoked_at   BIGINT
);
CREATE INDEX api_keys_by_account ON api_keys (account, created_at);

CREATE TABLE partners (
    account             TEXT    NOT NULL REFERENCES accounts (id),
    id                  TEXT    NOT NULL,
    profile             TEXT    NOT NULL,                 -- the core's partner profile, JSON
    transport           TEXT,                             -- JSON, secret values replaced by "********"
    transport_secrets   BYTEA,                             -- sealed JSON {pointer: value}
    ack_window_seconds  BIGINT,
    acknowledge_inbound TEXT,
    enabled             BIGINT NOT NULL DEFAULT 1,
    version             BIGINT NOT NULL,
    created_at          BIGINT NOT NULL,
    updated_at          BIGINT NOT NULL,
    PRIMARY KEY (account, id)
);

CREATE TABLE webhook_endpoints (
    id          TEXT    PRIMARY KEY,                      -- wh_<uuidv7>
    account     TEXT    NOT NULL REFERENCES accounts (id),
    url         TEXT    NOT NULL,
    events      TEXT    NOT NULL,                         -- JSON array of event kinds; [] = all
    enabled     BIGINT NOT NULL DEFAULT 1,
    description TEXT    NOT NULL DEFAULT '',
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    UNIQUE (account, url)
);

CREATE TABLE webhook_secrets (
    id          TEXT    PRIMARY KEY,                      -- whs_<uuidv7>
    endpoint_id TEXT    NOT NULL REFERENCES webhook_endpoints (id),
    sealed      BYTEA    NOT NULL,
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT                                   -- NULL: signs until rotated
);
CREATE INDEX webhook_secrets_by_endpoint ON webhook_secrets (endpoint_id, created_at);

-- Which endpoint a delivery is for (NULL on rows written before settings lived here).
ALTER TABLE webhook_deliveries ADD COLUMN endpoint_id TEXT;

CREATE TABLE audit_log (
    seq        BIGSERIAL PRIMARY KEY,
    at         BIGINT NOT NULL,
    account    TEXT    NOT NULL,
    actor      TEXT    NOT NULL,                          -- user id, `console` or `configuration`
    actor_name TEXT    NOT NULL,                          -- the user's e-mail, or the same word
    action     TEXT    NOT NULL,                          -- key.create, partner.update, ...
    target     TEXT    NOT NULL,                          -- the id changed
    before     TEXT,                                      -- JSON, secrets left out
    after      TEXT,
    client     TEXT                                       -- the client address, when over HTTP
);
CREATE INDEX audit_log_by_account ON audit_log (account, seq DESC);
