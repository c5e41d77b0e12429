-- q0, pass through: every bid as it is.
-- bucket: auction
-- check: exact, every bid
CREATE TABLE nexmark_q0 (
  auction BIGINT, bidder BIGINT, price BIGINT, `dateTime` TIMESTAMP(3), extra STRING
) WITH (${SINK});

INSERT INTO nexmark_q0
SELECT auction, bidder, price, `dateTime`, extra FROM bid;
