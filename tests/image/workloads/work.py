# The python3 workload of make run IMAGE=debian: text processing a
# program might do (JSON, regular expressions, sorting, hashing), in the
# interpreter's own code and the C modules it loads.
import hashlib
import json
import random
import re

random.seed(1)
words = ["%s%d" % (random.choice(["alpha", "beta", "gamma", "delta"]), i % 997)
         for i in range(60000)]
records = [{"id": i, "name": w, "tags": words[i % 50:i % 50 + 5],
            "score": random.random()} for i, w in enumerate(words)]
for _ in range(3):
    text = json.dumps(records)
    records = json.loads(text)
pattern = re.compile(r"(alpha|gamma)(\d+)")
hits = sum(1 for r in records if pattern.search(r["name"]))
ranked = sorted(records, key=lambda r: (r["score"], r["name"]))
digest = hashlib.sha256(text.encode()).hexdigest()
print("records", len(records), "matches", hits, "first", ranked[0]["id"], digest[:16])
