-- PostgreSQL version of ../0001_documents.sql (same tables and columns).

CREATE TABLE documents (
    seq                 BIGSERIAL PRIMARY KEY,
    id                  TEXT    NOT NULL UNIQUE,
    account             TEXT    NOT NULL,
    partner_id          TEXT    NOT NULL,
    document_type       TEXT    NOT NULL,
    direction           TEXT    NOT NULL CHECK (direction IN ('outbound', 'inbound')),
    status              TEXT    NOT NULL,
    created_at          BIGINT  NOT NULL,
    updated_at          BIGINT  NOT NULL,
    interchange_control BIGINT,
    group_control       BIGINT,
    transaction_control BIGINT,
    payload             TEXT    NOT NULL,
    x12                 BYTEA,
    warnings            TEXT    NOT NULL DEFAULT '[]',
    diagnostics         TEXT,
    partner_ack         TEXT
);
CREATE INDEX documents_by_account ON documents (account, seq DESC);
CREATE INDEX documents_by_account_status ON documents (account, status, seq DESC);

CREATE TABLE status_history (
    id          BIGSERIAL PRIMARY KEY,
    document_id TEXT    NOT NULL REFERENCES documents (id),
    status      TEXT    NOT NULL,
    reason      TEXT    NOT NULL,
    at          BIGINT  NOT NULL
);
CREATE INDEX status_history_by_document ON status_history (document_id, id);

CREATE TABLE control_numbers (
    account    TEXT    NOT NULL,
    partner_id TEXT    NOT NULL,
    last       BIGINT  NOT NULL,
    PRIMARY KEY (account, partner_id)
);

CREATE TABLE idempotency_keys (
    account      TEXT    NOT NULL,
    key          TEXT    NOT NULL,
    request_hash TEXT    NOT NULL,
    document_id  TEXT    NOT NULL REFERENCES documents (id),
    created_at   BIGINT  NOT NULL,
    PRIMARY KEY (account, key)
);

CREATE TABLE webhook_deliveries (
    id          TEXT    PRIMARY KEY,
    document_id TEXT    NOT NULL REFERENCES documents (id),
    event       TEXT    NOT NULL,
    body        BYTEA   NOT NULL,
    attempts    BIGINT  NOT NULL DEFAULT 0,
    last_result TEXT,
    next_at     BIGINT,
    created_at  BIGINT  NOT NULL
);
CREATE INDEX webhook_deliveries_by_document ON webhook_deliveries (document_id, created_at);
