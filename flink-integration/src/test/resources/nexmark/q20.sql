-- q20, expand bid with auction: bids on category-10 auctions with the auction's columns (a join).
-- bucket: auction
-- check: exact
CREATE TABLE nexmark_q20 (
  auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING,
  bid_dateTime TIMESTAMP(3), bid_extra STRING,
  itemName STRING, description STRING, initialBid BIGINT, reserve BIGINT,
  auction_dateTime TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT,
  auction_extra STRING
) WITH (${SINK});

INSERT INTO nexmark_q20
SELECT b.auction, b.bidder, b.price, b.channel, b.url, b.`dateTime`, b.extra,
       a.itemName, a.description, a.initialBid, a.reserve, a.`dateTime`, a.expires, a.seller,
       a.category, a.extra
FROM bid AS b JOIN auction AS a ON b.auction = a.id
WHERE a.category = 10;
