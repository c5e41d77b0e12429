-- q19, auction top-10 prices: each auction's 10 highest bids with their rank. Updating. Bids tied
-- on price take ranks in arrival order, so the engines are compared on the columns every tie
-- agrees on (the price at each rank).
-- bucket: auction
-- check: columns auction, rank_number, price
CREATE TABLE nexmark_q19 (
  auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING,
  `dateTime` TIMESTAMP(3), extra STRING, rank_number BIGINT,
  PRIMARY KEY (auction, rank_number) NOT ENFORCED
) WITH (${SINK});

INSERT INTO nexmark_q19
SELECT *
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rank_number
  FROM bid
)
WHERE rank_number <= 10;
