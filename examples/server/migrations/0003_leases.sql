-- Work claimed by a process (documents to route, webhooks to deliver), so that
-- several processes on one database (PostgreSQL) never do the same item at
-- once; a claim is void when its owner's heartbeat is stale (a dead process).
ALTER TABLE documents ADD COLUMN lease_owner TEXT;
ALTER TABLE webhook_deliveries ADD COLUMN lease_owner TEXT;
-- Order of a document's events to one endpoint (delivered in this order).
ALTER TABLE webhook_deliveries ADD COLUMN event_no INTEGER NOT NULL DEFAULT 0;
CREATE TABLE workers (
    id           TEXT    PRIMARY KEY,                       -- one per process start
    heartbeat_at INTEGER NOT NULL                           -- Unix ms
);
