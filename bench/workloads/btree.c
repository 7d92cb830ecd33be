// SPDX-License-Identifier: GPL-2.0
/*
 * The SLEEPY paper's "btree" benchmark: a B-tree under 20% random inserts
 * and 80% lookups, with the paper's functions: main, lookup, insert
 * (recursive), find_index, find_child and get_parent_key.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ORDER 32		/* children per node */
#define MAX_KEYS (ORDER - 1)

struct node {
	int nkeys;
	int leaf;
	long keys[MAX_KEYS];
	struct node *child[ORDER];
};

static struct node *new_node(int leaf)
{
	struct node *n = calloc(1, sizeof(*n));

	if (!n) {
		perror("btree");
		exit(1);
	}
	n->leaf = leaf;
	return n;
}

/* First index whose key is >= key: a linear scan, as in the paper. */
int find_index(struct node *n, long key)
{
	int i = 0;

	while (i < n->nkeys && n->keys[i] < key)
		i++;
	return i;
}

struct node *find_child(struct node *n, long key)
{
	return n->child[find_index(n, key)];
}

int lookup(struct node *n, long key)
{
	while (n) {
		int i = find_index(n, key);

		if (i < n->nkeys && n->keys[i] == key)
			return 1;
		if (n->leaf)
			return 0;
		n = find_child(n, key);
	}
	return 0;
}

/* Median key that moves up when child @i of @parent splits. */
long get_parent_key(struct node *parent, int i)
{
	return parent->child[i]->keys[MAX_KEYS / 2];
}

static void split_child(struct node *parent, int i)
{
	struct node *full = parent->child[i];
	struct node *right = new_node(full->leaf);
	int mid = MAX_KEYS / 2, j;

	right->nkeys = MAX_KEYS - mid - 1;
	memcpy(right->keys, full->keys + mid + 1, right->nkeys * sizeof(long));
	if (!full->leaf)
		memcpy(right->child, full->child + mid + 1,
		       (right->nkeys + 1) * sizeof(struct node *));
	for (j = parent->nkeys; j > i; j--) {
		parent->keys[j] = parent->keys[j - 1];
		parent->child[j + 1] = parent->child[j];
	}
	parent->keys[i] = get_parent_key(parent, i);
	parent->child[i + 1] = right;
	parent->nkeys++;
	full->nkeys = mid;
}

/* Inserts into a node that is not full, descending recursively. */
void insert(struct node *n, long key)
{
	int i = find_index(n, key);

	if (i < n->nkeys && n->keys[i] == key)
		return;
	if (n->leaf) {
		memmove(n->keys + i + 1, n->keys + i,
			(n->nkeys - i) * sizeof(long));
		n->keys[i] = key;
		n->nkeys++;
		return;
	}
	if (n->child[i]->nkeys == MAX_KEYS) {
		split_child(n, i);
		if (key > n->keys[i])
			i++;
		else if (key == n->keys[i])
			return;
	}
	insert(n->child[i], key);
}

int main(int argc, char **argv)
{
	long ops = argc > 1 ? atol(argv[1]) : 400000;
	struct node *root = new_node(1);
	long i, found = 0;

	srandom(42);
	for (i = 0; i < ops; i++) {
		long key = random() % 1000000;

		if (random() % 5 == 0) {
			if (root->nkeys == MAX_KEYS) {
				struct node *top = new_node(0);

				top->child[0] = root;
				split_child(top, 0);
				root = top;
			}
			insert(root, key);
		} else {
			found += lookup(root, key);
		}
	}
	printf("btree: %ld found\n", found);
	return 0;
}
