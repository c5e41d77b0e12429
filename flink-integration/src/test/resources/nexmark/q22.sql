-- q22, get url directories: the first three directories of each bid's url.
-- bucket: auction
-- check: exact
CREATE TABLE nexmark_q22 (
  auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, dir1 STRING, dir2 STRING, dir3 STRING
) WITH (${SINK});

INSERT INTO nexmark_q22
SELECT auction, bidder, price, channel,
       SPLIT_INDEX(url, '/', 3), SPLIT_INDEX(url, '/', 4), SPLIT_INDEX(url, '/', 5)
FROM bid;
