-- q13, bounded side input join: each bid with the side input's value for its auction mod 10000.
-- The published query looks the side input up at processing time; the side input never
-- changes, so a regular join gives the same rows.
-- bucket: auction
-- check: exact
CREATE TABLE nexmark_q13 (
  auction BIGINT, bidder BIGINT, price BIGINT, `dateTime` TIMESTAMP(3), `value` STRING
) WITH (${SINK});

INSERT INTO nexmark_q13
SELECT b.auction, b.bidder, b.price, b.`dateTime`, s.`value`
FROM bid AS b JOIN side_input AS s ON MOD(b.auction, 10000) = s.`key`;
