-- The Nexmark topic as the suite reads it: Flink's Kafka JSON layout (../shared/NEXMARK.md),
-- event time from whichever of person/auction/bid is set, watermarks 4 s behind it, and one view
-- per event kind. ${KAFKA} is the Kafka source's options (the topic from its earliest to its
-- latest offsets), ${FORMAT} 'json' (stock) or 'floe-json'.
CREATE TABLE events (
  event_type INT,
  person ROW<id BIGINT, name STRING, emailAddress STRING, creditCard STRING, city STRING,
             state STRING, `dateTime` TIMESTAMP(3), extra STRING>,
  auction ROW<id BIGINT, itemName STRING, description STRING, initialBid BIGINT, reserve BIGINT,
              `dateTime` TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT,
              extra STRING>,
  bid ROW<auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING,
          `dateTime` TIMESTAMP(3), extra STRING>,
  `dateTime` AS CASE WHEN event_type = 0 THEN person.`dateTime`
                     WHEN event_type = 1 THEN auction.`dateTime`
                     ELSE bid.`dateTime` END,
  WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH (
  ${KAFKA},
  'format' = '${FORMAT}'
);

CREATE VIEW person AS
SELECT person.id, person.name, person.emailAddress, person.creditCard, person.city, person.state,
       `dateTime`, person.extra
FROM events WHERE event_type = 0;

CREATE VIEW auction AS
SELECT auction.id, auction.itemName, auction.description, auction.initialBid, auction.reserve,
       `dateTime`, auction.expires, auction.seller, auction.category, auction.extra
FROM events WHERE event_type = 1;

CREATE VIEW bid AS
SELECT bid.auction, bid.bidder, bid.price, bid.channel, bid.url, `dateTime`, bid.extra
FROM events WHERE event_type = 2;

-- q13's side input: key -> value for keys 0 to 9999, a CSV file the runner writes.
CREATE TABLE side_input (
  `key` BIGINT,
  `value` STRING
) WITH (
  'connector' = 'filesystem',
  'path' = '${SIDE_INPUT}',
  'format' = 'csv'
);

-- q14's function: how many times a character occurs in a string.
CREATE TEMPORARY FUNCTION count_char AS 'dev.floe.flink.nexmark.CountChar';
