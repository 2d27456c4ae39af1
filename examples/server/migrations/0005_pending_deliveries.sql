-- The webhook claim walks the pending deliveries in the order it takes them
-- (next_at, id) and skips one while an earlier event of its document to the
-- same endpoint is pending. Both lookups now read indexes of the pending rows
-- only, so delivered rows (and, on PostgreSQL, their dead versions) are not
-- walked at every claim.
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (next_at, id) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_pending_order ON webhook_deliveries (document_id, url, event_no) WHERE state = 'pending';
