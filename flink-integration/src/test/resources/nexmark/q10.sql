-- q10, log to file system: every bid with its day and minute as strings (the published query
-- partitions a file sink by them; here the table is bucketed like every other).
-- bucket: auction
-- check: exact
CREATE TABLE nexmark_q10 (
  auction BIGINT, bidder BIGINT, price BIGINT, `dateTime` TIMESTAMP(3), extra STRING,
  dt STRING, hm STRING
) WITH (${SINK});

INSERT INTO nexmark_q10
SELECT auction, bidder, price, `dateTime`, extra,
       DATE_FORMAT(`dateTime`, 'yyyy-MM-dd'), DATE_FORMAT(`dateTime`, 'HH:mm')
FROM bid;
