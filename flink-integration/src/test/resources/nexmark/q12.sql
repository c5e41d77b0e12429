-- q12, processing-time windows: bids per bidder per 10 s tumbling window of processing time.
-- Which window a bid falls in depends on when it is processed, so the check is what holds
-- regardless: every bid counted once, every window 10 s long.
-- bucket: bidder
-- check: processing-time
CREATE TABLE nexmark_q12 (
  bidder BIGINT, bid_count BIGINT, starttime TIMESTAMP(3), endtime TIMESTAMP(3)
) WITH (${SINK});

CREATE TEMPORARY VIEW bid_by_processing_time AS SELECT *, PROCTIME() AS p_time FROM bid;

INSERT INTO nexmark_q12
SELECT bidder, COUNT(*), window_start, window_end
FROM TABLE(TUMBLE(TABLE bid_by_processing_time, DESCRIPTOR(p_time), INTERVAL '10' SECOND))
GROUP BY bidder, window_start, window_end;
