-- PostgreSQL version of ../0010_inbound_claims.sql.
-- Inbound interchanges applied in steps (src/inbound.rs): the token of the request
-- that holds an unfinished one (result '{}'), so that a request renews, finishes or
-- gives back only its own claim, never one a retry took over after it lapsed.
ALTER TABLE inbound_interchanges ADD COLUMN claim TEXT;
