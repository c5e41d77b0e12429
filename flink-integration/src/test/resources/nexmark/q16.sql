-- q16, channel statistics per day: q15 per channel, with the latest minute seen. Updating.
-- bucket: channel
-- check: exact
CREATE TABLE nexmark_q16 (
  channel STRING, `day` STRING, `minute` STRING,
  total_bids BIGINT, rank1_bids BIGINT, rank2_bids BIGINT, rank3_bids BIGINT,
  total_bidders BIGINT, rank1_bidders BIGINT, rank2_bidders BIGINT, rank3_bidders BIGINT,
  total_auctions BIGINT, rank1_auctions BIGINT, rank2_auctions BIGINT, rank3_auctions BIGINT,
  PRIMARY KEY (channel, `day`) NOT ENFORCED
) WITH (${SINK});

INSERT INTO nexmark_q16
SELECT channel,
       DATE_FORMAT(`dateTime`, 'yyyy-MM-dd'),
       MAX(DATE_FORMAT(`dateTime`, 'HH:mm')),
       COUNT(*),
       COUNT(*) FILTER (WHERE price < 10000),
       COUNT(*) FILTER (WHERE price >= 10000 AND price < 1000000),
       COUNT(*) FILTER (WHERE price >= 1000000),
       COUNT(DISTINCT bidder),
       COUNT(DISTINCT bidder) FILTER (WHERE price < 10000),
       COUNT(DISTINCT bidder) FILTER (WHERE price >= 10000 AND price < 1000000),
       COUNT(DISTINCT bidder) FILTER (WHERE price >= 1000000),
       COUNT(DISTINCT auction),
       COUNT(DISTINCT auction) FILTER (WHERE price < 10000),
       COUNT(DISTINCT auction) FILTER (WHERE price >= 10000 AND price < 1000000),
       COUNT(DISTINCT auction) FILTER (WHERE price >= 1000000)
FROM bid
GROUP BY channel, DATE_FORMAT(`dateTime`, 'yyyy-MM-dd');
