-- PostgreSQL version of ../0009_dashboard.sql.
-- The dashboard and its API: documents found by their business reference (the
-- field of the payload the core names for each type: PO number, invoice number,
-- shipment id ...), resends counted, webhook deliveries listed per endpoint.

-- The document's business reference (NULL when its payload has none).
ALTER TABLE documents ADD COLUMN reference TEXT;
CREATE INDEX documents_by_reference ON documents (account, reference, seq DESC) WHERE reference IS NOT NULL;
-- Resends people or keys asked for (POST /transactions/{id}/resend): the routing after
-- one is marked as a resend in the history, the attempts and the document.routed webhook.
ALTER TABLE documents ADD COLUMN resends BIGINT NOT NULL DEFAULT 0;
-- The delivery log of an endpoint, newest first (ids are UUIDv7: time-ordered).
CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, id DESC);
CREATE INDEX webhook_deliveries_by_account ON webhook_deliveries (account, id DESC);
