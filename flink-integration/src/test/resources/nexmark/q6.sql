-- q6, average selling price by seller: the mean winning bid of each seller's last 10 auctions.
-- The published query (an OVER window on an updating stream) is one Flink cannot run
-- (FLINK-19059); this is the same question as Flink runs it: winning bids per auction, the
-- seller's 10 latest auctions by a top-N (ties broken by auction id), their mean. Updating.
-- bucket: seller
-- check: exact
CREATE TABLE nexmark_q6 (seller BIGINT, avg_price BIGINT, PRIMARY KEY (seller) NOT ENFORCED) WITH (${SINK});

INSERT INTO nexmark_q6
SELECT seller, AVG(final)
FROM (
  SELECT seller, final,
         ROW_NUMBER() OVER (PARTITION BY seller ORDER BY `dateTime` DESC, id DESC) AS recency
  FROM (
    SELECT a.id, a.seller, a.`dateTime`, MAX(b.price) AS final
    FROM auction AS a JOIN bid AS b ON a.id = b.auction
    WHERE b.`dateTime` BETWEEN a.`dateTime` AND a.expires
    GROUP BY a.id, a.seller, a.`dateTime`
  )
)
WHERE recency <= 10
GROUP BY seller;
