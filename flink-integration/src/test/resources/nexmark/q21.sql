-- q21, add channel id: a number for the four named channels, else the url's channel_id parameter.
-- bucket: auction
-- check: exact
CREATE TABLE nexmark_q21 (
  auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, channel_id STRING
) WITH (${SINK});

INSERT INTO nexmark_q21
SELECT auction, bidder, price, channel,
       CASE WHEN LOWER(channel) = 'apple' THEN '0'
            WHEN LOWER(channel) = 'google' THEN '1'
            WHEN LOWER(channel) = 'facebook' THEN '2'
            WHEN LOWER(channel) = 'baidu' THEN '3'
            ELSE REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2) END
FROM bid
WHERE REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2) IS NOT NULL
   OR LOWER(channel) IN ('apple', 'google', 'facebook', 'baidu');
