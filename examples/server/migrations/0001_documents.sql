-- Outbound documents (the "transactions" of the API), their status history,
-- control-number sequences, idempotency keys and webhook deliveries.

CREATE TABLE documents (
    seq                 INTEGER PRIMARY KEY AUTOINCREMENT, -- order of acceptance; the list cursor
    id                  TEXT    NOT NULL UNIQUE,            -- doc_<uuidv7>
    account             TEXT    NOT NULL,
    partner_id          TEXT    NOT NULL,
    document_type       TEXT    NOT NULL,
    direction           TEXT    NOT NULL CHECK (direction IN ('outbound', 'inbound')),
    status              TEXT    NOT NULL,                   -- lower case
    created_at          INTEGER NOT NULL,                   -- Unix milliseconds
    updated_at          INTEGER NOT NULL,
    interchange_control INTEGER,
    group_control       INTEGER,
    transaction_control INTEGER,
    payload             TEXT    NOT NULL,                   -- the request's payload, JSON
    x12                 BLOB,                               -- the rendered interchange
    warnings            TEXT    NOT NULL DEFAULT '[]',      -- render warnings, JSON
    diagnostics         TEXT,                               -- validation diagnostics, JSON (workers)
    partner_ack         TEXT                                -- the partner's acknowledgement, JSON (workers)
);
CREATE INDEX documents_by_account ON documents (account, seq DESC);
CREATE INDEX documents_by_account_status ON documents (account, status, seq DESC);

CREATE TABLE status_history (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    document_id TEXT    NOT NULL REFERENCES documents (id),
    status      TEXT    NOT NULL,
    reason      TEXT    NOT NULL,
    at          INTEGER NOT NULL                            -- Unix milliseconds
);
CREATE INDEX status_history_by_document ON status_history (document_id, id);

-- Last control number used per account and partner (ISA13 = GS06 = ST02 of a document).
CREATE TABLE control_numbers (
    account    TEXT    NOT NULL,
    partner_id TEXT    NOT NULL,
    last       INTEGER NOT NULL,
    PRIMARY KEY (account, partner_id)
);

CREATE TABLE idempotency_keys (
    account      TEXT    NOT NULL,
    key          TEXT    NOT NULL,
    request_hash TEXT    NOT NULL,                          -- SHA-256 of the canonical request JSON
    document_id  TEXT    NOT NULL REFERENCES documents (id),
    created_at   INTEGER NOT NULL,                          -- Unix milliseconds; valid 24 h
    PRIMARY KEY (account, key)
);

CREATE TABLE webhook_deliveries (
    id          TEXT    PRIMARY KEY,
    document_id TEXT    NOT NULL REFERENCES documents (id),
    event       TEXT    NOT NULL,
    body        BLOB    NOT NULL,
    attempts    INTEGER NOT NULL DEFAULT 0,
    last_result TEXT,
    next_at     INTEGER,
    created_at  INTEGER NOT NULL
);
CREATE INDEX webhook_deliveries_by_document ON webhook_deliveries (document_id, created_at);
