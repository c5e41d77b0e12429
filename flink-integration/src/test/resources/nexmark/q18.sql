-- q18, last bid: each bidder's latest bid on each auction. Updating. Bids tied on time make
-- which of them is last a matter of arrival order, so the engines are compared on the columns
-- every tie agrees on.
-- bucket: auction
-- check: columns auction, bidder, dateTime
CREATE TABLE nexmark_q18 (
  auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING,
  `dateTime` TIMESTAMP(3), extra STRING,
  PRIMARY KEY (bidder, auction) NOT ENFORCED
) WITH (${SINK});

INSERT INTO nexmark_q18
SELECT auction, bidder, price, channel, url, `dateTime`, extra
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder, auction ORDER BY `dateTime` DESC) AS rank_number
  FROM bid
)
WHERE rank_number <= 1;
