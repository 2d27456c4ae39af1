-- PostgreSQL version of ../0002_lifecycle.sql.
-- webhook outbox.

-- When a routed document's acknowledgement window closes (Unix ms; NULL: none awaited).
ALTER TABLE documents ADD COLUMN ack_deadline BIGINT;
-- Transport attempts of the routing, JSON array [{at, result}].
ALTER TABLE documents ADD COLUMN route_attempts TEXT;
-- Why the document failed (the last reason), for people.
ALTER TABLE documents ADD COLUMN failure TEXT;
CREATE INDEX documents_by_status ON documents (status, seq);
CREATE INDEX documents_by_interchange ON documents (account, partner_id, interchange_control);
CREATE INDEX documents_by_group ON documents (account, partner_id, group_control, transaction_control);
CREATE INDEX documents_by_ack_deadline ON documents (ack_deadline) WHERE status = 'routed' AND ack_deadline IS NOT NULL;

-- The webhook outbox: one row per event and endpoint, written in the same
-- transaction as the state change it reports. `id` is the delivery id (a
-- UUIDv7 from the core), the same on every attempt.
ALTER TABLE webhook_deliveries ADD COLUMN account TEXT NOT NULL DEFAULT '';
ALTER TABLE webhook_deliveries ADD COLUMN url TEXT NOT NULL DEFAULT '';
ALTER TABLE webhook_deliveries ADD COLUMN state TEXT NOT NULL DEFAULT 'pending'
    CHECK (state IN ('pending', 'delivered', 'failed'));
ALTER TABLE webhook_deliveries ADD COLUMN delivered_at BIGINT;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_at);

CREATE TABLE webhook_attempts (
    delivery_id TEXT    NOT NULL REFERENCES webhook_deliveries (id),
    attempt     BIGINT NOT NULL,                           -- 1, 2, ...
    at          BIGINT NOT NULL,                           -- Unix ms
    status      BIGINT,                                    -- HTTP status, NULL when none came
    result      TEXT    NOT NULL,                           -- `delivered`, `HTTP 500`, `timeout`, ...
    duration_ms BIGINT NOT NULL,
    PRIMARY KEY (delivery_id, attempt)
);

-- Interchanges received from partners (inbound endpoint, inbox folders):
-- one row per ISA13, so that a file read twice after a crash is not processed twice.
CREATE TABLE inbound_interchanges (
    account     TEXT    NOT NULL,
    partner_id  TEXT    NOT NULL,
    control     BIGINT NOT NULL,                           -- ISA13
    received_at BIGINT NOT NULL,
    source      TEXT    NOT NULL,                           -- `api` or `inbox`
    result      TEXT    NOT NULL,                           -- JSON: what was done with it
    PRIMARY KEY (account, partner_id, control)
);
