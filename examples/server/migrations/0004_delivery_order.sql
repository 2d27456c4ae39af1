-- The webhook claim skips a delivery while an earlier event of its document to
-- the same endpoint is pending, and a new outbox row numbers itself after its
-- document's earlier ones: both look rows up by (document_id, url, event_no).
-- Without this index SQLite's planner read every pending delivery for each
-- candidate (the benchmark's claims took about 1 ms each with 10,000 pending).
CREATE INDEX webhook_deliveries_order ON webhook_deliveries (document_id, url, event_no);
