-- q1, currency conversion: bid prices from dollars to euros.
-- bucket: auction
-- check: exact
CREATE TABLE nexmark_q1 (
  auction BIGINT, bidder BIGINT, price DECIMAL(23, 3), `dateTime` TIMESTAMP(3), extra STRING
) WITH (${SINK});

INSERT INTO nexmark_q1
SELECT auction, bidder, 0.908 * price, `dateTime`, extra FROM bid;
