-- q7, highest bid: the bids at the highest price of their 10 s tumbling window.
-- bucket: auction
-- check: exact
CREATE TABLE nexmark_q7 (
  auction BIGINT, bidder BIGINT, price BIGINT, `dateTime` TIMESTAMP(3), extra STRING
) WITH (${SINK});

INSERT INTO nexmark_q7
SELECT b.auction, b.bidder, b.price, b.`dateTime`, b.extra
FROM bid AS b
JOIN (
  SELECT MAX(price) AS maxprice, window_end AS `dateTime`
  FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND))
  GROUP BY window_start, window_end
) AS top
ON b.price = top.maxprice
WHERE b.`dateTime` BETWEEN top.`dateTime` - INTERVAL '10' SECOND AND top.`dateTime`;
