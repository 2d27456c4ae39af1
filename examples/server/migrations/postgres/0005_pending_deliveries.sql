-- PostgreSQL version of ../0005_pending_deliveries.sql, plus room in each page:
-- a claim only sets `lease_owner` (no index holds it), which PostgreSQL can then
-- write as a heap-only tuple in the same page instead of a new entry in every
-- index (with full pages every claim added one to each of the table's indexes,
-- and the claims' index scans walked the dead ones).
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (next_at, id) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_pending_order ON webhook_deliveries (document_id, url, event_no) WHERE state = 'pending';
ALTER TABLE webhook_deliveries SET (fillfactor = 50);
ALTER TABLE documents SET (fillfactor = 50);
