-- How many times a process took a document to route it (the route claim). A
-- claim is committed before the transfer starts, so a count above 1 means an
-- earlier process stopped (or lost its claim) while the document was in its
-- hands, before it recorded the outcome: the partner may have received it
-- already. The resend then says so in the history and the routing attempts.
ALTER TABLE documents ADD COLUMN route_claims INTEGER NOT NULL DEFAULT 0;
