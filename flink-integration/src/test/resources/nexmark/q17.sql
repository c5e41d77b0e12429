-- q17, auction statistics per day: bids in three price ranges and price min/max/mean/sum. Updating.
-- bucket: auction
-- check: exact
CREATE TABLE nexmark_q17 (
  auction BIGINT, `day` STRING,
  total_bids BIGINT, rank1_bids BIGINT, rank2_bids BIGINT, rank3_bids BIGINT,
  min_price BIGINT, max_price BIGINT, avg_price BIGINT, sum_price BIGINT,
  PRIMARY KEY (auction, `day`) NOT ENFORCED
) WITH (${SINK});

INSERT INTO nexmark_q17
SELECT auction,
       DATE_FORMAT(`dateTime`, 'yyyy-MM-dd'),
       COUNT(*),
       COUNT(*) FILTER (WHERE price < 10000),
       COUNT(*) FILTER (WHERE price >= 10000 AND price < 1000000),
       COUNT(*) FILTER (WHERE price >= 1000000),
       MIN(price), MAX(price), AVG(price), SUM(price)
FROM bid
GROUP BY auction, DATE_FORMAT(`dateTime`, 'yyyy-MM-dd');
