-- PostgreSQL version of ../0004_delivery_order.sql.
CREATE INDEX webhook_deliveries_order ON webhook_deliveries (document_id, url, event_no);
