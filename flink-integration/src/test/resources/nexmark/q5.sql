-- q5, hot items: in every 10 s window sliding by 2 s, the auctions with the most bids. Updating;
-- the window start is part of the key (the published output, auction and count, has no key).
-- bucket: auction
-- check: exact
CREATE TABLE nexmark_q5 (
  auction BIGINT, num BIGINT, starttime TIMESTAMP(3), endtime TIMESTAMP(3),
  PRIMARY KEY (auction, starttime) NOT ENFORCED
) WITH (${SINK});

INSERT INTO nexmark_q5
SELECT counts.auction, counts.num, counts.starttime, counts.endtime
FROM (
  SELECT auction, COUNT(*) AS num, window_start AS starttime, window_end AS endtime
  FROM TABLE(HOP(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
  GROUP BY auction, window_start, window_end
) AS counts
JOIN (
  SELECT MAX(num) AS maxn, starttime, endtime
  FROM (
    SELECT COUNT(*) AS num, window_start AS starttime, window_end AS endtime
    FROM TABLE(HOP(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
    GROUP BY auction, window_start, window_end
  )
  GROUP BY starttime, endtime
) AS maxima
ON counts.starttime = maxima.starttime AND counts.endtime = maxima.endtime AND counts.num >= maxima.maxn;
