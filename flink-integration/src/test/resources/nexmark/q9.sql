-- q9, winning bids: each auction with its highest bid inside its lifetime (earliest first on a
-- tie). Updating. Bids tied on price and time make the winner's bidder and extra a matter of
-- arrival order, so the engines are compared on the columns every tie agrees on.
-- bucket: id
-- check: columns id, itemName, description, initialBid, reserve, dateTime, expires, seller, category, extra, auction, price, bid_dateTime
CREATE TABLE nexmark_q9 (
  id BIGINT, itemName STRING, description STRING, initialBid BIGINT, reserve BIGINT,
  `dateTime` TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra STRING,
  auction BIGINT, bidder BIGINT, price BIGINT, bid_dateTime TIMESTAMP(3), bid_extra STRING,
  PRIMARY KEY (id) NOT ENFORCED
) WITH (${SINK});

INSERT INTO nexmark_q9
SELECT id, itemName, description, initialBid, reserve, `dateTime`, expires, seller, category, extra,
       auction, bidder, price, bid_dateTime, bid_extra
FROM (
  SELECT a.*, b.auction, b.bidder, b.price, b.`dateTime` AS bid_dateTime, b.extra AS bid_extra,
         ROW_NUMBER() OVER (PARTITION BY a.id ORDER BY b.price DESC, b.`dateTime` ASC) AS rownum
  FROM auction AS a JOIN bid AS b ON a.id = b.auction
  WHERE b.`dateTime` BETWEEN a.`dateTime` AND a.expires
)
WHERE rownum <= 1;
