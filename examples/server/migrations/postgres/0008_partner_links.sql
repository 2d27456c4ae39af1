-- PostgreSQL version of ../0008_partner_links.sql.
-- The SFTP and AS2 transports' memory of what partners sent.
--
-- sftp_taken: every file taken from a partner's SFTP folder (name, size, modification
-- time, SHA-256), recorded in the same transaction as its inbound processing, so that a
-- crash between the download and the remote delete (or move) never applies a file
-- twice: the next poll finds the record and only removes the file. The same bytes taken
-- again under another name are recorded as a duplicate and not applied.
CREATE TABLE sftp_taken (
    account    TEXT    NOT NULL,
    partner_id TEXT    NOT NULL,
    name       TEXT    NOT NULL,
    size       BIGINT NOT NULL,
    mtime      BIGINT NOT NULL,                          -- Unix seconds, as the server lists it
    sha256     TEXT    NOT NULL,                          -- hex
    state      TEXT    NOT NULL CHECK (state IN ('applied', 'duplicate', 'rejected')),
    result     TEXT    NOT NULL,                          -- JSON: the inbound answer, or why not
    taken_at   BIGINT NOT NULL,
    removed_at BIGINT,                                   -- deleted or moved on the server
    PRIMARY KEY (account, partner_id, name, size, mtime)
);
CREATE INDEX sftp_taken_by_hash ON sftp_taken (account, partner_id, sha256);

-- as2_received: every AS2 message applied, by its Message-ID, with the MDN answered,
-- so that a repeated Message-ID is answered with the same MDN and applied once; the
-- asynchronous MDNs still to deliver are its pending rows.
CREATE TABLE as2_received (
    account      TEXT    NOT NULL,
    partner_id   TEXT    NOT NULL,
    message_id   TEXT    NOT NULL,
    received_at  BIGINT NOT NULL,
    mic          TEXT,                                    -- "<base64>, sha-256"
    result       TEXT    NOT NULL,                        -- JSON: the inbound answer
    mdn_headers  TEXT,                                    -- JSON [[name, value], ...]; NULL: no MDN asked
    mdn_body     BYTEA,
    mdn_url      TEXT,                                    -- asynchronous MDNs: where they go
    mdn_state    TEXT,                                    -- asynchronous: pending, sent, failed
    mdn_attempts BIGINT NOT NULL DEFAULT 0,
    mdn_next_at  BIGINT,
    mdn_result   TEXT,
    PRIMARY KEY (account, partner_id, message_id)
);
CREATE INDEX as2_received_pending ON as2_received (mdn_state, mdn_next_at);
