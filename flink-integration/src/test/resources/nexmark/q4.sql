-- q4, average price per category: the mean of the winning bids (the highest bid inside the
-- auction's lifetime) of each category's auctions. Updating.
-- bucket: id
-- check: exact
CREATE TABLE nexmark_q4 (id BIGINT, final BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH (${SINK});

INSERT INTO nexmark_q4
SELECT category, AVG(final)
FROM (
  SELECT a.id, a.category, MAX(b.price) AS final
  FROM auction AS a JOIN bid AS b ON a.id = b.auction
  WHERE b.`dateTime` BETWEEN a.`dateTime` AND a.expires
  GROUP BY a.id, a.category
)
GROUP BY category;
