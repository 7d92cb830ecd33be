-- The sqlite3 workload of make run IMAGE=debian: a table filled in one
-- transaction, an index built, then aggregate and join queries.
CREATE TABLE orders(id INTEGER PRIMARY KEY, customer INTEGER, amount REAL, day INTEGER);
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000)
INSERT INTO orders(customer, amount, day)
	SELECT (i * 7919) % 5000, (i * 104729 % 100000) / 100.0, i % 365 FROM n;
COMMIT;
CREATE INDEX orders_customer ON orders(customer);
SELECT customer, count(*), sum(amount) FROM orders GROUP BY customer ORDER BY 3 DESC LIMIT 3;
SELECT o.day, count(*) FROM orders o JOIN orders p ON o.customer = p.customer AND p.id = o.id + 5000
	GROUP BY o.day ORDER BY 2 DESC LIMIT 3;
SELECT count(DISTINCT amount) FROM orders;
