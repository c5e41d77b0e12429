-- q3, local item suggestion: sellers in OR, ID or CA with auctions in category 10 (a join).
-- bucket: id
-- check: exact
CREATE TABLE nexmark_q3 (name STRING, city STRING, state STRING, id BIGINT) WITH (${SINK});

INSERT INTO nexmark_q3
SELECT p.name, p.city, p.state, a.id
FROM auction AS a JOIN person AS p ON a.seller = p.id
WHERE a.category = 10 AND p.state IN ('OR', 'ID', 'CA');
