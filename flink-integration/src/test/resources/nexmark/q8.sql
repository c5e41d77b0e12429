-- q8, monitor new users: people who opened an auction in the 10 s tumbling window they joined in.
-- bucket: id
-- check: exact
CREATE TABLE nexmark_q8 (id BIGINT, name STRING, stime TIMESTAMP(3)) WITH (${SINK});

INSERT INTO nexmark_q8
SELECT p.id, p.name, p.starttime
FROM (
  SELECT id, name, window_start AS starttime, window_end AS endtime
  FROM TABLE(TUMBLE(TABLE person, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND))
  GROUP BY id, name, window_start, window_end
) AS p
JOIN (
  SELECT seller, window_start AS starttime, window_end AS endtime
  FROM TABLE(TUMBLE(TABLE auction, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND))
  GROUP BY seller, window_start, window_end
) AS a
ON p.id = a.seller AND p.starttime = a.starttime AND p.endtime = a.endtime;
