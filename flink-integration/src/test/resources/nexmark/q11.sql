-- q11, user sessions: bids per bidder per session (a 10 s gap closes a session).
-- bucket: bidder
-- check: exact
CREATE TABLE nexmark_q11 (
  bidder BIGINT, bid_count BIGINT, starttime TIMESTAMP(3), endtime TIMESTAMP(3)
) WITH (${SINK});

INSERT INTO nexmark_q11
SELECT bidder, COUNT(*), window_start, window_end
FROM TABLE(SESSION(TABLE bid PARTITION BY bidder, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND))
GROUP BY bidder, window_start, window_end;
