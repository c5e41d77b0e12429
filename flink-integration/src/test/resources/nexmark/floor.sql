-- The floor of every engine of this shape: the topic's messages as raw bytes, no decoding and
-- nothing written (the runner counts them). A query cannot run faster than this job.
CREATE TABLE raw_events (payload BYTES) WITH (${KAFKA}, 'format' = 'raw');
