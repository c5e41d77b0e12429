-- q15, bidding statistics per day: bids, bidders and auctions in three price ranges. Updating.
-- bucket: day
-- check: exact
CREATE TABLE nexmark_q15 (
  `day` STRING,
  total_bids BIGINT, rank1_bids BIGINT, rank2_bids BIGINT, rank3_bids BIGINT,
  total_bidders BIGINT, rank1_bidders BIGINT, rank2_bidders BIGINT, rank3_bidders BIGINT,
  total_auctions BIGINT, rank1_auctions BIGINT, rank2_auctions BIGINT, rank3_auctions BIGINT,
  PRIMARY KEY (`day`) NOT ENFORCED
) WITH (${SINK});

INSERT INTO nexmark_q15
SELECT DATE_FORMAT(`dateTime`, 'yyyy-MM-dd'),
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
GROUP BY DATE_FORMAT(`dateTime`, 'yyyy-MM-dd');
